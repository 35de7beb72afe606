"""Parameter descriptions shared by the metric docstrings, filled in by :func:`fill_doc`."""

PARAMETERS = {
    "y_true_y_score": """y_true : array-like of shape (n_samples,) or (n_queries, n_docs)
        Non-negative relevance labels, one per document.
    y_score : array-like of the same shape as ``y_true``
        Predicted scores; a higher score ranks higher. ``-inf`` marks a judged
        document that was **not retrieved**: it takes no rank and earns
        nothing, but its label counts in the query's number of relevant
        documents and in its ideal ranking. NaN and ``+inf`` are errors.""",
    "qid": """qid : array-like of shape (n_samples,), default=None
        Query id of each row, of any comparable type (int of any width, str,
        bytes, tuples, dates, a pandas Series or Categorical); the rows of a
        query need not be contiguous. Missing ids (None, NaN, NaT, pandas' NA)
        are an error. None: a single query for 1-D inputs, one query per row
        for 2-D inputs (the layout of :func:`sklearn.metrics.ndcg_score`).""",
    "judgements_score": """y_true : array-like of shape (n_samples, n_subtopics)
        J(d, i) in [0, 1]: 1 when document d is relevant to subtopic (intent)
        i, 0 when not; values between mean a judged probability.
    y_score : array-like of shape (n_samples,)
        Predicted scores; a higher score ranks higher, and ``-inf`` marks a
        judged document that was not retrieved (it covers nothing, but counts
        in the ideal ranking and the query's subtopics).
    qid : array-like of shape (n_samples,), default=None
        Query id of each row, of any comparable type; the rows of a query
        need not be contiguous. None: a single query.""",
    "k": """k : int, default=None
        Only the top ``k`` documents of each query are examined; None: all.
        A query with fewer than ``k`` documents uses all of them. Any integer
        >= 1 is accepted.""",
    "gain": """gain : {"linear", "exponential"}, default="linear"
        Gain of a document with label ``rel``: ``"linear"``, ``rel`` itself (as
        sklearn and trec_eval); ``"exponential"``, ``2**rel - 1`` (as LightGBM
        and XGBoost), for labels up to 1023. NDCG is exact for any such label
        (gains are scaled by a power of two, which cancels in the ratio); a CG
        or DCG above the largest float64 raises a ``ValueError``.""",
    "discount": """discount : {"log2", "jarvelin"} or callable, default="log2"
        Weight of the document at 1-based rank :math:`i`: ``"log2"``,
        :math:`1/\\log_2(i+1)` at every rank; ``"jarvelin"``, the original
        Järvelin–Kekäläinen form, :math:`\\mathrm{rel}_1 + \\sum_{i \\geq 2}
        \\mathrm{rel}_i/\\log_2(i)` (ranks 1 and 2 undiscounted); or a callable
        mapping the array of ranks 1..n to an array of weights.""",
    "relevance_threshold": """relevance_threshold : float, default=1
        A document is relevant when its label is >= this positive threshold.""",
    "ties": """ties : {"average", "pessimistic", "optimistic", "stable"}, default="average"
        Order of documents with equal scores: ``"average"``, the exact mean of
        the metric over all orderings of each block of ties (McSherry & Najork
        2008); ``"pessimistic"``, worst label first; ``"optimistic"``, best
        label first; ``"stable"``, input order.""",
    "sample_weight": """sample_weight : array-like of shape (n_samples,) or (n_queries,), default=None
        Weight of each query in the mean: one value per row for 1-D inputs,
        constant within a query, or one per query (row) for 2-D inputs.""",
    "average": """average : bool, default=True
        Return the weighted mean over queries as a float; False: an array with
        one value per query, ordered like ``np.unique(qid)``.""",
    "zero_division": """zero_division : {0.0, 1.0, np.nan}, default=0.0
        Value of a query without any relevant document (no label >= the
        threshold for binary metrics, every label 0 for graded metrics), where
        the metric is undefined: 0.0 (as sklearn and trec_eval), 1.0 (as LightGBM and
        XGBoost), or ``np.nan`` to leave the query out of the mean (nan, with
        a warning, if every query is left out).""",
}


def doc_filler(descriptions):
    """A decorator that replaces ``%(name)s`` in a function's docstring by ``descriptions[name]``."""

    def fill(function):
        function.__doc__ = function.__doc__ % descriptions
        return function

    return fill


fill_doc = doc_filler(PARAMETERS)
fill_doc.__doc__ = """Replace ``%(name)s`` in the docstring of ``function`` by the shared description."""
