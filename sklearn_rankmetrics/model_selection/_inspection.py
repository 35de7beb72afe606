"""Permutation importance over query groups: the query ids stay put, and features may move only within queries."""

import numbers

import numpy as np
from sklearn.utils import Bunch, check_array, check_random_state
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.random import sample_without_replacement

from .._core._frames import column_labels, frame_library
from .._core._query_ids import encode_qid
from .._core._validation import check_flag, check_integer, check_same_length, plain
from ._guards import column_holding
from ._qid_column import column_position, resolve_qid, scored_ranker, take_rows
from ._scorer import RankingScorer, get_ranking_scorer, ranking_scores


def permutation_importance(
    estimator,
    X,
    y,
    *,
    qid=None,
    scoring=None,
    n_repeats=5,
    n_jobs=None,
    random_state=None,
    sample_weight=None,
    max_samples=1.0,
    within_queries=False,
):
    """Permutation importance of each feature for a ranking metric, with the query ids held fixed.

    As :func:`sklearn.inspection.permutation_importance`: the importance of a
    feature is the drop of the score when its column is permuted, over
    ``n_repeats`` permutations. Here the scorer sees each row's query id
    whatever is permuted: the query id column is never permuted, and
    ``within_queries=True`` moves a feature's values only between the
    documents of one query, which keeps the query-level part of the feature
    (such as a query length) and measures only how the feature orders the
    documents of a query.

    Parameters
    ----------
    estimator : estimator object
        A fitted estimator, such as a :class:`GroupedRanker`.
    X : ndarray or DataFrame of shape (n_samples, n_features)
        The rows to score, with the query id column if the estimator or the
        scorer reads one.
    y : array-like of shape (n_samples,)
        Relevance labels.
    qid : array-like of shape (n_samples,), default=None
        Query id of each row. None: read from the column that ``scoring``
        (``qid_column=``) or the estimator (``GroupedRanker(qid_column=...)``)
        names; for a Pipeline that ends in a ``GroupedRanker(qid_column=...)``,
        from that column of the pipeline's transformed ``X`` (such as
        ``"remainder__qid"`` of a ColumnTransformer), and the column of ``X``
        that holds the same ids is not permuted. Where ``qid`` and such a
        column are both given, they must make the same queries.
    scoring : str, callable, list, tuple or dict, default=None
        A name of :func:`get_ranking_scorer` (``"ndcg@10"``) or a scorer; a
        list or tuple of names, or a dict of names or scorers, for several
        metrics at once (the predictions are shared). A callable is called as
        ``scorer(estimator, X, y, qid=qid)``, with ``sample_weight=`` when it
        is given. None: ``"ndcg@10"``, the score of :class:`GroupedRanker`.
    n_repeats : int, default=5
        Number of permutations of each feature.
    n_jobs : int, default=None
        Number of jobs over the features, as in scikit-learn (None: 1).
    random_state : int, RandomState instance or None, default=None
        Draws the permutations (and the subsample); an int makes them
        reproducible.
    sample_weight : array-like of shape (n_samples,), default=None
        Query weights for the metric (constant within each query).
    max_samples : int or float, default=1.0
        The queries to compute the importances on, drawn without replacement
        once (the same for every feature and for the baseline score): an int
        is a number of queries, a float in (0, 1] a share of them. Whole
        queries, since a metric on part of a query's documents is not that
        query's metric.
    within_queries : bool, default=False
        Permute each feature only within each query (one sort by query and
        random keys per permutation), instead of across all rows.

    Returns
    -------
    result : :class:`~sklearn.utils.Bunch` or dict of them
        ``importances_mean`` and ``importances_std`` of shape (n_features,)
        and ``importances`` of shape (n_features, n_repeats): the baseline
        score minus the score of each permutation. The query id column is
        never permuted: its importances are exactly 0 (as for a feature the
        model ignores; NaN would sort first in ``argsort()[::-1]``). A dict of
        such results, by metric name, for several metrics.

    See Also
    --------
    sklearn.inspection.permutation_importance : Permutes every column, the query id column too.
    GroupedRanker : Drops its ``qid_column`` before the inner estimator sees ``X``.

    Notes
    -----
    The query id column is ``qid_column`` of the estimator or of the scorers,
    and any column of ``X`` equal to ``qid``. With ``within_queries=False``,
    ``max_samples=1.0`` and the same ``random_state``, the permutations are
    those of :func:`sklearn.inspection.permutation_importance`, so the other
    columns' importances equal its importances for a scorer given the same
    query ids.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn_rankmetrics import GroupedRanker, make_ranking, permutation_importance
    >>> X, y, qid = make_ranking(n_queries=40, n_features=3, random_state=0)
    >>> frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(qid=qid)
    >>> model = GroupedRanker(Ridge(), qid_column="qid").fit(frame, y)
    >>> result = permutation_importance(model, frame, y, scoring="ndcg@10", n_repeats=3, random_state=0)
    >>> result.importances_mean.round(3)  # a, b, c, and the qid column: never permuted
    array([0.009, 0.236, 0.157, 0.   ])
    >>> within = permutation_importance(model, frame, y, n_repeats=3, random_state=0, within_queries=True)
    >>> within.importances_mean.round(3)
    array([0.018, 0.236, 0.118, 0.   ])
    """
    if frame_library(X) in ("polars", "pyarrow"):
        X = X.to_pandas()  # permuted column by column, as a pandas frame is: the column labels are kept
    if not hasattr(X, "iloc"):
        X = check_array(X, ensure_all_finite="allow-nan", dtype=None)
    scorers, several = check_scoring(scoring)
    check_same_length("permutation_importance", X=X, y=y, qid=qid, sample_weight=sample_weight)
    n_repeats = check_integer("n_repeats", n_repeats)
    within_queries = check_flag("within_queries", within_queries)
    qid = query_ids(estimator, scorers, X, qid)
    fixed = qid_column_positions(estimator, scorers, X, qid)
    codes = encode_qid(qid, len(qid))
    random_state = check_random_state(random_state)
    random_seed = random_state.randint(np.iinfo(np.int32).max + 1)  # each column's permutations, as scikit-learn's
    rows = subsample(codes, check_max_samples(max_samples, codes), random_state)
    if rows is not None:
        X, y, qid, codes = (take_rows(value, rows) for value in (X, y, np.asarray(qid), codes))
        sample_weight = None if sample_weight is None else np.asarray(sample_weight)[rows]

    baseline = {name: scorer(estimator, X, y, qid=qid, **weights(sample_weight)) for name, scorer in scorers.items()}
    permuted = [j for j in range(X.shape[1]) if j not in fixed]
    scores = Parallel(n_jobs=n_jobs)(
        delayed(permuted_scores)(
            estimator, X, y, qid, codes, sample_weight, j, scorers, n_repeats, random_seed, within_queries
        )
        for j in permuted
    )
    results = {}
    for name in scorers:
        importances = np.zeros((X.shape[1], n_repeats))
        if permuted:
            importances[permuted] = baseline[name] - np.array([column[name] for column in scores])
        results[name] = Bunch(
            importances_mean=importances.mean(axis=1), importances_std=importances.std(axis=1), importances=importances
        )
    return results if several else results[next(iter(results))]


def check_scoring(scoring):
    """The scorers of ``scoring`` by name, and whether it names several."""
    if scoring is None or isinstance(scoring, str):
        name = "ndcg@10" if scoring is None else scoring
        return {name: get_ranking_scorer(name)}, False
    if callable(scoring):
        return {"score": scoring}, False
    if isinstance(scoring, list | tuple) and scoring and all(isinstance(name, str) for name in scoring):
        if len(set(scoring)) != len(scoring):
            raise ValueError(f"scoring names a metric twice: {plain(list(scoring))!r}.")
        return {name: get_ranking_scorer(name) for name in scoring}, True
    if (
        isinstance(scoring, dict)
        and scoring
        and all(isinstance(scorer, str) or callable(scorer) for scorer in scoring.values())
    ):
        return {name: get_ranking_scorer(s) if isinstance(s, str) else s for name, s in scoring.items()}, True
    raise TypeError(
        "scoring must be None, a metric name such as 'ndcg@10', a scorer, a non-empty list or tuple of names, or a "
        f"non-empty dict of names or scorers; got {plain(scoring)!r}."
    )


def query_ids(estimator, scorers, X, qid):
    """The query ids of the rows: ``qid``, the scorers' columns, the estimator's GroupedRanker's: all must agree."""
    columns = [("the scorer", scorer._qid_column) for scorer in scorers.values() if isinstance(scorer, RankingScorer)]
    found, _ = resolve_qid("permutation_importance", X=X, qid=qid, columns=columns, estimator=estimator)
    if found is None:
        raise ValueError(
            "permutation_importance needs the query id of each row: pass qid=, or give the GroupedRanker (or the "
            "scorer) qid_column=<the column of X that holds the query ids>."
        )
    return found


def qid_column_positions(estimator, scorers, X, qid):
    """Positions of the columns of ``X`` that hold the query ids, those named first (never permuted)."""
    named = [scorer._qid_column for scorer in scorers.values() if isinstance(scorer, RankingScorer)]
    found = scored_ranker(estimator)
    if found is not None and found[1] is None:  # a GroupedRanker that receives X itself
        named.append(found[0].qid_column)
    if qid is not None:
        named.append(column_holding(X, qid))
    labels = column_labels(X)
    positions = []
    for column in named:
        position = None if column is None else column_position(column, labels, X.shape[1])
        if position is not None and position not in positions:
            positions.append(position)
    return positions


def check_max_samples(max_samples, codes):
    """The number of queries that ``max_samples`` stands for."""
    n_queries = len(np.unique(codes))
    if isinstance(max_samples, numbers.Integral) and not isinstance(max_samples, bool):
        if not 1 <= max_samples <= n_queries:
            raise ValueError(
                f"max_samples, as a number of queries, must be in [1, {n_queries}]; got {plain(max_samples)!r}."
            )
        return int(max_samples)
    if isinstance(max_samples, numbers.Real) and not isinstance(max_samples, bool) and 0 < max_samples <= 1:
        return max(1, int(max_samples * n_queries))
    raise ValueError(f"max_samples must be an integer >= 1 or a number in (0, 1]; got {plain(max_samples)!r}.")


def subsample(codes, n_drawn, random_state):
    """The rows of ``n_drawn`` queries drawn without replacement (in their order in ``X``); None for all of them."""
    queries = np.unique(codes)
    if n_drawn == len(queries):
        return None
    drawn = queries[sample_without_replacement(len(queries), n_drawn, random_state=random_state)]
    return np.flatnonzero(np.isin(codes, drawn))


def permuted_scores(
    estimator, X, y, qid, codes, sample_weight, column, scorers, n_repeats, random_seed, within_queries
):
    """The scores of each metric over ``n_repeats`` successive permutations of one column, by metric name."""
    random_state = check_random_state(random_seed)
    X = X.copy()  # writable, whatever joblib handed over (a read-only memory map)
    index, by_query = np.arange(X.shape[0]), np.argsort(codes, kind="stable")
    scores = []
    for _ in range(n_repeats):
        if within_queries:
            index = np.empty_like(by_query)
            index[by_query] = np.lexsort((random_state.permutation(len(codes)), codes))
        else:
            random_state.shuffle(index)  # as scikit-learn's permutation_importance, to draw the same permutations
        if hasattr(X, "iloc"):
            values = X.iloc[index, column]
            values.index = X.index
            X.isetitem(column, values)
        else:
            X[:, column] = X[index, column]
        scores.append(score_all(scorers, estimator, X, y, qid, sample_weight))
    return {name: np.array([score[name] for score in scores]) for name in scorers}


def score_all(scorers, estimator, X, y, qid, sample_weight):
    """Every scorer's score, with one prediction per response method for this library's scorers."""
    predictions, scores = {}, {}
    for name, scorer in scorers.items():
        if isinstance(scorer, RankingScorer):
            if scorer._response not in predictions:
                predictions[scorer._response] = ranking_scores(estimator, X, scorer._response, qid)
            scores[name] = scorer._score_predictions(y, predictions[scorer._response], qid, sample_weight)
        else:
            scores[name] = scorer(estimator, X, y, qid=qid, **weights(sample_weight))
    return scores


def weights(sample_weight):
    return {} if sample_weight is None else {"sample_weight": sample_weight}
