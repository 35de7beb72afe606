"""The public fusion functions: :func:`fuse` for runs, :func:`fuse_scores` for score columns, :func:`normalize`."""

import numpy as np

from .._core._validation import check_integer
from ..trec._io import Run, text
from ..trec._judging import trec_order
from ..trec._sources import InputError, as_qrels, shown
from ._engine import fuse_lists, fuse_table, fusion_spec, learned, prepare
from ._judgements import judged_candidates
from ._lists import (
    RunsTable,
    check_table,
    descending_spans,
    id_word,
    key_bits,
    read_runs,
    sorted_by_query_and_key,
    table_of,
)
from ._pieces import in_pieces, joined_run, piece_tables, query_pieces, training_in_pieces


def fuse(
    runs,
    *,
    method="rrf",
    normalization=None,
    weights=None,
    k=None,
    phi=None,
    sigma=None,
    gamma=None,
    w=None,
    n_segments=None,
    ties="average",
    missing=None,
    qrels=None,
    train_runs=None,
    depth=None,
    name=None,
):
    """Fuse two or more runs into one: every method of ranx, with ties handled exactly.

    Parameters
    ----------
    runs : list or dict of runs
        Two or more runs, in a list or in a dict name -> run, each as
        :func:`~sklearn_rankmetrics.trec.evaluate_run` takes a run: a path
        to a TREC run file (plain or gzip), a dict ``{query_id: {doc_id:
        score}}``, a DataFrame with columns ``query_id``, ``doc_id``,
        ``score``, or a :class:`~sklearn_rankmetrics.trec.Run`. A query that
        a run lacks is one it retrieved nothing for.
    method : str or callable, default="rrf"
        The fusion method, spelled as ranx spells it (see :data:`METHODS`):
        ``"sum"``, ``"mnz"``, ``"anz"``, ``"max"``, ``"min"``, ``"med"``,
        ``"gmnz"``, ``"wsum"``, ``"wmnz"``, ``"mixed"``, ``"isr"``,
        ``"log_isr"``, ``"logn_isr"``, ``"rrf"``, ``"rbc"``,
        ``"bordafuse"``, ``"w_bordafuse"``, ``"condorcet"``,
        ``"w_condorcet"``, ``"mapfuse"``, ``"posfuse"``, ``"probfuse"``,
        ``"segfuse"``, ``"slidefuse"``, ``"bayesfuse"``; case, spaces,
        hyphens and underscores aside, with the usual other spellings
        (``"CombSUM"``, ``"comb_mnz"``, ``"W-Sum"``, ``"BordaFuse"``). A
        callable is called as ``method(scores, ranks)`` with two arrays of
        shape (n_documents, n_runs), the (normalised) scores and the ranks
        of every document of every query in every run, NaN where a run did
        not retrieve it, and returns the fused score of each document.
    normalization : str, default=None
        How each run's scores of each query are normalised before a
        score-based method combines them (ranx's ``norm``): ``"min-max"``,
        ``"min-max-inverted"``, ``"max"``, ``"sum"``, ``"zmuv"`` (z-score),
        ``"rank"``, ``"borda"``; None: the raw scores. See Notes.
    weights : array-like of shape (n_runs,) or dict, default=None
        Each run's weight (a dict name -> weight for runs given as a dict);
        None: 1 each. It multiplies the run's contribution in every method
        (its score in the Comb family, compared weighted in CombMAX, CombMIN
        and CombMED; its rank-based score; its Borda points; its Condorcet
        vote), but W-MNZ, which multiplies the sum of the scores by the sum
        of the weights of the runs that retrieved the document.
    k : float, default=None
        RRF's constant (60 when None, Cormack et al.'s).
    phi : float, default=None
        RBC's persistence, in (0, 1) (0.8 when None).
    sigma : float, default=None
        LogN_ISR's offset (0.01 when None, ranx's).
    gamma : float, default=None
        CombGMNZ's exponent of the number of runs (1 when None: CombMNZ).
    w : int, default=None
        SlideFuse's half window (5 when None).
    n_segments : int, default=None
        ProbFuse's number of segments per list (25 when None).
    ties : {"average", "trec_eval", "ranx"}, default="average"
        How documents of equal score in a run are ranked. ``"average"``:
        they share the average of the ranks they span (the result never
        depends on the input order); ``"trec_eval"``: by descending document
        id; ``"ranx"``: as ranx 0.3 orders them (numba's quicksort from the
        input order; needs numba, the ``ranx`` extra), to reproduce its runs.
    missing : {"min"}, float or None, default=None
        The score a run gives a document of the query that it did not
        retrieve, for the score-based methods: None, each method's own
        convention (ranx's: nothing); ``"min"``, the run's lowest normalised
        score of the query (the "default minimum" of Ma et al. 2021); a
        number, that score. A filled document counts as retrieved by the run.
    qrels : path, dict, DataFrame or Qrels, default=None
        Training judgements, for the methods that learn (MAPFuse, PosFuse,
        ProbFuse, SegFuse, SlideFuse, BayesFuse): what they learn comes
        from the queries these judge, on ``train_runs``.
    train_runs : list or dict of runs, default=None
        The runs on the training queries, in the order of ``runs``; None:
        ``runs`` themselves (then evaluate the fused run on other queries).
    depth : int, default=None
        Keep the top ``depth`` documents of each query of the fused run.
    name : str, default=None
        The fused run's tag; None: the method's name.

    Returns
    -------
    run : Run
        The fused run: every document that any run retrieves for a query,
        by query id, then by descending fused score, then by descending
        document id (trec_eval's order), ready to write as a TREC run.

    Raises
    ------
    ValueError
        For fewer than two runs, a run that retrieves a document twice for a
        query (naming both), an unknown method or normalisation (naming the
        nearest), a parameter given to a method that does not take it, a
        supervised method without ``qrels`` or with ``qrels`` that judge
        none of its training queries, a score that is not finite.
    TypeError
        For a run of a kind that none of the readers takes (naming its
        place in ``runs``), weights that are not numbers.

    See Also
    --------
    fuse_scores : The same fusion of score columns of one grouped table.
    FusionRanker : Fusion as a scikit-learn estimator, to tune by grouped cross-validation.
    optimize_fusion : Tune a fusion's parameters on held-out queries.

    Notes
    -----
    Each run's scores of a query are normalised on its own, as ranx does
    (``1e-9`` floors every denominator): min-max
    :math:`(s - \\min) / (\\max - \\min)`; inverted min-max
    :math:`(\\max - s) / (\\max - \\min)`, which also reverses the ranking;
    max :math:`s / \\max`; sum :math:`(s - \\min) / (\\sum s - n \\min)`;
    zmuv :math:`(s - \\mu) / \\sigma` (population standard deviation); rank
    :math:`1 - (r - 1) / n`; Borda :math:`1 - (r - 1) / N` for the query's
    :math:`N` candidates, and :math:`0.5 - (n - 1) / (2N)` for each
    candidate the run did not retrieve (which then counts as retrieved).

    With :math:`r_i(d)` the (1-based) rank of document :math:`d` in run
    :math:`i`, :math:`s_i(d)` its normalised score, :math:`w_i` the weight
    and :math:`R(d)` the runs that retrieved :math:`d`:
    CombSUM :math:`\\sum_{R(d)} w_i s_i`, CombMNZ
    :math:`|R(d)| \\sum w_i s_i`, CombANZ :math:`\\sum w_i s_i / |R(d)|`,
    CombGMNZ :math:`|R(d)|^\\gamma \\sum w_i s_i`, Mixed
    :math:`\\sqrt{|R(d)|} \\sum w_i s_i`, W-MNZ
    :math:`\\sum s_i \\cdot \\sum_{R(d)} w_i`; RRF
    :math:`\\sum w_i / (k + r_i)`; ISR :math:`|R(d)| \\sum w_i / r_i^2`,
    Log_ISR :math:`\\log|R(d)| \\sum w_i / r_i^2`, LogN_ISR
    :math:`\\log(|R(d)| + \\sigma) \\sum w_i / r_i^2`; RBC
    :math:`\\sum w_i (1 - \\phi) \\phi^{r_i - 1}`; MAPFuse
    :math:`\\sum w_i \\mathrm{MAP}_i / r_i`; BordaFuse
    :math:`\\sum w_i (N - r_i + 1)`, a run giving :math:`(N - n_i + 1)/2`
    to each of the query's :math:`N` candidates it did not retrieve; PosFuse,
    ProbFuse, SlideFuse, SegFuse and BayesFuse sum a value learned per
    position (ranx's definitions; SegFuse times :math:`s_i + 1`; BayesFuse's
    log-odds, with :math:`\\log(0.001/0.999)` for a run that did not
    retrieve the document and for a position past 1,000, where ranx reads
    past its table). Condorcet counts pairwise majority votes (see
    :mod:`sklearn_rankmetrics.fusion`'s user guide): it equals ranx's
    wherever the majority relation is an order, and is defined, without
    depending on input order, where ranx's sort is not.

    Runs of more than about 250,000 rows in all are fused a piece of the
    queries at a time, the pieces side by side on the library's threads
    (``RANKMETRICS_NUM_THREADS``): the same fused run, bit for bit.

    Under ``ties="average"`` a tie block's documents share the average of
    the ranks they span (RRF gives two documents tied at ranks 1 and 2
    :math:`1 / (k + 1.5)` each); a value learned per position is averaged
    over the positions the block spans. Each method equals ranx 0.3.21's to
    1e-12 on runs without ties, and with ``ties="ranx"`` on runs with ties
    (Condorcet where its majority relation is an order).

    References
    ----------
    .. [1] G. V. Cormack, C. L. A. Clarke and S. Büttcher, "Reciprocal rank
       fusion outperforms Condorcet and individual rank learning methods",
       SIGIR 2009.
    .. [2] E. A. Fox and J. A. Shaw, "Combination of multiple searches",
       TREC-2, 1993.
    .. [3] J. A. Aslam and M. Montague, "Models for metasearch", SIGIR 2001.
    .. [4] M. Montague and J. A. Aslam, "Condorcet fusion for improved
       retrieval", CIKM 2002.
    .. [5] X. Ma, K. Sun, R. Pradeep and J. Lin, "A replication study of
       dense passage retriever", arXiv:2104.05740, 2021.
    .. [6] E. Bassani and L. Romelli, "ranx.fuse: a Python library for
       metasearch", CIKM 2022.

    Examples
    --------
    >>> from sklearn_rankmetrics.fusion import fuse
    >>> bm25 = {"q1": {"d1": 12.0, "d2": 9.5, "d3": 7.0}}
    >>> dense = {"q1": {"d2": 0.91, "d4": 0.85, "d1": 0.40}}
    >>> fused = fuse([bm25, dense], method="rrf", k=60)
    >>> fused.doc_id
    array(['d2', 'd1', 'd4', 'd3'], dtype='<U2')
    >>> round(float(fused.score[0]), 6)
    0.032522
    """
    spec = fusion_spec(
        method,
        normalization,
        weights,
        ties,
        missing,
        {"k": k, "phi": phi, "sigma": sigma, "gamma": gamma, "w": w, "n_segments": n_segments},
    )
    depth = check_integer("depth", depth, allow_none=True)
    read, names = read_runs(runs)
    check_finite_scores(read, names)
    weight_array = spec.weight_array(len(read), names if isinstance(runs, dict) else None)
    if spec.trained is None and (qrels is not None or train_runs is not None):
        raise ValueError(
            f"method {spec.method if isinstance(spec.method, str) else 'callable'!r} learns nothing: qrels and "
            "train_runs are for MAPFuse, PosFuse, ProbFuse, SegFuse, SlideFuse and BayesFuse."
        )
    # A callable method is called once, on every document of every query, as documented.
    pieces = [read] if callable(spec.method) else query_pieces(read)
    trained = None
    if spec.trained is not None and qrels is not None:
        qrels = as_qrels(qrels)
        if train_runs is None:  # the pieces' tables serve the training, then the fusion
            pieces = piece_tables(read, names, pieces)
            trained = trained_on(spec, pieces, lambda: table_of(read, names), qrels, "runs")
        else:
            train_read, train_names = read_runs(train_runs, "train_runs")
            if len(train_read) != len(read):
                raise ValueError(
                    f"train_runs holds {len(train_read)} runs and runs {len(read)}: give the same systems' runs on "
                    "the training queries, in the same order."
                )
            tables = piece_tables(train_read, train_names, query_pieces(train_read))
            trained = trained_on(spec, tables, lambda: table_of(train_read, train_names), qrels, "train_runs")
    name = name or (spec.method if isinstance(spec.method, str) else "fused")

    def fused_piece(piece):
        table = piece if isinstance(piece, RunsTable) else table_of(piece, names)
        return fused_rows(table, fuse_lists(table.lists, spec, weight_array, trained), depth)

    return joined_run(in_pieces(fused_piece, pieces, lambda: table_of(read, names)), name)


def trained_on(spec, tables, whole_table, qrels, what):
    """What the spec's method learns from the qrels on the training runs' pieces (tables; ``whole_table()`` the
    training runs as one, ``what`` their name in errors)."""
    rows, n_relevant = training_in_pieces(spec, tables, qrels, lambda: judged_candidates(whole_table(), qrels))
    if not (n_relevant >= 0).any():
        raise ValueError(
            f"the qrels judge none of the queries of {what}: {spec.method!r} would learn from no query. Check that "
            "both use the same query ids."
        )
    return learned(spec, rows, n_relevant)


def check_finite_scores(read, names):
    """Refuse a score of a run (as :func:`~._lists.read_runs` gives them) that is not finite, naming its row."""
    for run, run_name in zip(read, names, strict=True):
        finite = np.isfinite(run.score)
        if not finite.all():
            row = int(np.flatnonzero(~finite)[0])
            raise InputError(
                "run",
                f"run {run_name!r} gives document {shown(run.doc_id[row])} of query {shown(run.query_id[row])} the "
                f"score {float(run.score[row])!r}; fusion normalises and adds scores: give finite ones.",
            )


def fused_rows(table, fused, depth):
    """The fused scores of the candidates in trec_eval's order, cut at ``depth``: the query ids, the rows' document
    ids and scores, and the number of rows of each query (as :func:`~._pieces.joined_run` takes them)."""
    lists = table.lists
    order = np.zeros(0, dtype=np.intp)
    if lists.n_candidates:
        order = fused_order(lists.candidate_query, fused, sortable_ids(table.candidate_doc))
    codes = lists.candidate_query[order]
    if depth is not None and len(order):
        starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
        position = np.arange(len(order)) - np.repeat(starts, np.diff(starts, append=len(order)))
        order, codes = order[position < depth], codes[position < depth]
    doc_id = np.take(table.candidate_doc, order)  # take: twice as fast as indexing for byte strings
    return table.query_ids, doc_id, fused[order], np.bincount(codes, minlength=len(table.query_ids))


def fused_order(query, score, doc):
    """The candidates in trec_eval's order: by query, descending score, then descending document id.

    One packed sort (:func:`sorted_by_query_and_key`) by query and the
    leading bits of the descending score's order-preserving integer. Only
    the rows whose leading bits tie (tied scores, mostly) are re-sorted
    exactly; where each query's candidates are numbered by descending id
    (:func:`~._lists.candidate_codes` numbers short ids so), the sort's last
    key, the candidate, has put those of equal scores in that order already.
    ``doc`` as :func:`sortable_ids` gives it; other ids (or billions of rows)
    take :func:`~sklearn_rankmetrics.trec._judging.trec_order`.
    """
    n = len(score)
    if doc.dtype != np.uint64 or key_bits(query) < 16:
        return trec_order(query, score, doc)[0]
    descending = (score + 0.0).view(np.uint64)  # + 0.0: -0.0 becomes 0.0, its equal
    flip = descending >> np.uint64(63)  # a positive score's low 63 bits flipped: a higher score, a lower word
    flip -= np.uint64(1)
    flip >>= np.uint64(1)
    descending ^= flip
    del flip
    order, packed = sorted_by_query_and_key(query, descending)
    same = packed[1:] == packed[:-1]
    del packed
    if same.any():  # each run of equal leading bits, re-sorted by descending score, then descending document id
        in_run = np.zeros(n, dtype=bool)
        in_run[1:] = same
        in_run[:-1] |= same
        spots = np.flatnonzero(in_run)
        run_id = np.cumsum(~np.concatenate(([False], same))[spots])
        moved = order[spots]
        same_query = query[1:] == query[:-1]
        numbered = np.all(np.where(same_query, doc[1:] < doc[:-1], query[1:] > query[:-1]))  # by query, descending id
        order[spots] = moved[tied_order(run_id, score[moved], doc[moved], by_doc=not numbered)]
    return order


def tied_order(run_id, score, doc, *, by_doc=True):
    """The order of rows grouped in runs (``run_id``, non-decreasing) by descending score, then descending document
    id within each run (the documents of a run distinct).

    Nearly every run holds equal scores only: the rows are sorted by
    descending document id (:func:`by_descending_id`; ``by_doc=False``: the
    rows of each run are in that order already), then stably by run in one
    ``np.sort`` of the run in the high bits and the place in the low. The
    runs whose scores differ are then re-sorted exactly.
    """
    order = np.arange(len(run_id))
    if by_doc:
        order = by_descending_id(doc)
        place_bits = max((len(run_id) - 1).bit_length(), 1)
        key = run_id[order].astype(np.uint64) << np.uint64(place_bits)
        key |= np.arange(len(run_id), dtype=np.uint64)
        key.sort()
        key &= np.uint64(2**place_bits - 1)
        order = order[key.astype(np.intp)]
    mixed = np.zeros(int(run_id[-1]) + 1, dtype=bool)
    mixed[run_id[1:][(run_id[1:] == run_id[:-1]) & (score[1:] != score[:-1])]] = True
    if mixed.any():
        rows = np.flatnonzero(mixed[run_id])  # the runs are contiguous: their rows keep their places
        order[rows] = rows[np.lexsort((~doc[rows], -score[rows], run_id[rows]))]
    return order


def by_descending_id(doc):
    """The rows by descending id, ``doc`` as :func:`sortable_ids` gives it (integers).

    One ``np.sort`` of the ids' :func:`~._lists.descending_spans` beside the
    row (3 times faster than an argsort) where they fit (short ids, or ids
    that differ in their last few bytes only). An argsort otherwise.
    """
    row_bits = max((len(doc) - 1).bit_length(), 1)
    spans = descending_spans(doc, 64 - row_bits)
    if spans is None:
        return np.argsort(~doc)
    spans <<= np.uint64(row_bits)
    spans |= np.arange(len(doc), dtype=np.uint64)
    spans.sort()
    return (spans & np.uint64(2**row_bits - 1)).astype(np.intp)


def sortable_ids(ids):
    """Byte-string ids as integers in the same order where they fit in 8 bytes (sorting integers is many times faster
    than sorting strings); other ids as they are."""
    word = id_word(ids)
    return ids if word is None else word


def fuse_scores(
    scores,
    qid,
    *,
    method="rrf",
    normalization=None,
    weights=None,
    k=None,
    phi=None,
    sigma=None,
    gamma=None,
    w=None,
    ties="average",
    missing=None,
):
    """Fuse the score columns of one grouped table: a row per (query, document), a column per run.

    For rerankers, where each candidate document of a query already has one
    row and each ranker's score is a column. The fusion is :func:`fuse`'s.

    Parameters
    ----------
    scores : array-like of shape (n_rows, n_runs)
        Each run's score of each row's document, NaN where the run did not
        retrieve it; a DataFrame's columns are the runs.
    qid : array-like of shape (n_rows,) or None
        The query of each row; None: the rows are one query (as
        :class:`FusionRanker` takes a table without query ids).
    method : str or callable, default="rrf"
        As in :func:`fuse`, but for the methods that learn from judgements
        (fit a :class:`FusionRanker` on labelled rows for those).
    normalization : str, default=None
        As in :func:`fuse`.
    weights : array-like of shape (n_runs,), default=None
        As in :func:`fuse`.
    k, phi, sigma, gamma, w : float, default=None
        The methods' parameters, as in :func:`fuse`.
    ties : {"average", "ranx"}, default="average"
        As in :func:`fuse`; ``"ranx"`` takes the rows' order as the input
        order. ``"trec_eval"`` needs document ids, which a table lacks.
    missing : {"min"}, float or None, default=None
        As in :func:`fuse`.

    Returns
    -------
    fused : ndarray of shape (n_rows,)
        Each row's fused score; ``-inf`` for a row that no run scored.

    See Also
    --------
    fuse : The same fusion of runs.
    FusionRanker : This fusion as a scikit-learn estimator.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics.fusion import fuse_scores
    >>> scores = np.array([[12.0, 0.40], [9.5, 0.91], [7.0, np.nan], [np.nan, 0.85]])
    >>> fused = fuse_scores(scores, ["q1"] * 4, method="rrf")
    >>> np.round(fused, 6)
    array([0.032266, 0.032522, 0.015873, 0.016129])
    """
    spec = fusion_spec(
        method, normalization, weights, ties, missing, {"k": k, "phi": phi, "sigma": sigma, "gamma": gamma, "w": w}
    )
    scores = check_table(scores, "scores")
    qid = None if qid is None else np.asarray(qid)
    if qid is not None and qid.shape != (scores.shape[0],):
        raise ValueError(
            f"qid must hold one query id per row of scores ({scores.shape[0]}), or be None for one query; got shape "
            f"{qid.shape}."
        )
    return fuse_table(scores, qid, spec, spec.weight_array(scores.shape[1]), None)


def normalize(run, normalization="min-max", *, ties="average"):
    """Normalise a run's scores, each query on its own (ranx's ``normalize``).

    Parameters
    ----------
    run : path, dict, DataFrame or Run
        One run, as :func:`fuse` takes each.
    normalization : str, default="min-max"
        ``"min-max"``, ``"min-max-inverted"``, ``"max"``, ``"sum"``,
        ``"zmuv"``, ``"rank"`` or ``"borda"`` (over the run's own documents:
        ``"rank"``), as in :func:`fuse`.
    ties : {"average", "trec_eval", "ranx"}, default="average"
        How ``"rank"`` and ``"borda"`` rank equal scores, as in :func:`fuse`.

    Returns
    -------
    run : Run
        The same rows, in the same order, with normalised scores.

    See Also
    --------
    fuse : Normalises, then fuses.

    Examples
    --------
    >>> from sklearn_rankmetrics.fusion import normalize
    >>> normalize({"q1": {"d1": 4.0, "d2": 2.0, "d3": 1.0}}).score
    array([1.        , 0.33333333, 0.        ])
    """
    spec = fusion_spec("sum", normalization, None, ties, None, {})
    if spec.normalization is None:
        raise ValueError("normalization must name a normalisation, such as 'min-max'; got None.")
    read, names = read_runs([run], "run", min_runs=1)
    check_finite_scores(read, names)
    table = table_of(read, names)
    rows = prepare(table.lists, spec)
    score = np.empty(len(rows.score))
    score[rows.lists.candidate] = rows.score  # one run: a candidate per row, in the order of the input's rows
    read = table.lists
    return Run(
        text(table.query_ids[read.query]),
        text(table.candidate_doc[read.candidate]),
        score[read.candidate],
        table.names[0],
    )
