"""Several metrics of the same rankings from one sort."""

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from .._core._array_api import array_api_support, is_foreign, namespace_of
from .._core._docs import fill_doc
from .._core._inputs import measure_in_namespace, rank_queries
from .._core._namespace_ops import ArrayApiOps
from .._core._parallel import map_in_threads
from .._core._query_ids import query_ids_of_rows
from .._core._ranking import numpy_mean_without_nan, reported_means
from .._core._resampling import bootstrap_interval, check_resampling
from .._core._validation import TIES, check_flag, check_option, check_zero_division, plain
from .._core._warnings import warn
from ..recommenders._candidate_options import candidate_rows, check_without_candidates, corrected_values
from ._names import parse_metric_name, shared_kernel
from ._registry import BY_FUNCTION

# Options that belong to the whole report: one sort serves every metric.
SET_BY_THE_REPORT = {
    option: f"the report sets once for every metric: pass {option}= to ranking_report"
    # A name never sets qid, sample_weight or candidates: they carry data (the grammar refuses them).
    for option in ("ties", "average", "sampled_correction", "n_items")
}


def computes_in_namespace(*, metrics, confidence_level, candidates, **arguments):
    """Whether a report runs in its arrays' namespace: each metric's kernel can, and no interval nor candidates are
    asked for."""
    if candidates is not None:
        return False  # sampled evaluation runs with numpy, on the host
    try:
        if iter(metrics) is metrics:  # an iterator, which only the report may read
            return False
        return confidence_level is None and all(parse_metric_name(name)[0].in_namespace is True for name in metrics)
    except (TypeError, ValueError):
        return False  # the host path raises the error that names the fix


@array_api_support(in_namespace=computes_in_namespace)
@fill_doc
def ranking_report(
    y_true,
    y_score,
    *,
    qid=None,
    metrics=("ndcg@10", "map", "mrr"),
    ties="average",
    sample_weight=None,
    average=True,
    zero_division=0.0,
    confidence_level=None,
    n_resamples=10_000,
    random_state=None,
    candidates=None,
    sampled_correction=None,
    n_items=None,
):
    """Compute several ranking metrics of the same inputs, sharing one sort.

    Sorting dominates the cost of every metric, so a report of five metrics
    costs far less than five separate calls; the metrics then run side by side
    on the available cores.

    Parameters
    ----------
    %(y_true_y_score)s
    %(qid)s
    metrics : sequence of str, default=("ndcg@10", "map", "mrr")
        Metric names as for :func:`get_ranking_scorer`, such as ``"ndcg@10"``,
        ``"ndcg_exp@10"``, ``"map@100(denominator='capped')"`` or
        ``"err@20(max_grade=4)"``. A name may set its own ``zero_division``.
    %(ties)s
    %(sample_weight)s
    average : bool, default=True
        Return each metric's weighted mean over queries; False: a per-query
        table, a dict of arrays whose ``"qid"`` entry holds the query ids
        (``np.unique(qid)``; 0, 1, ... for 2-D inputs).
    %(zero_division)s
    confidence_level : float, default=None
        With a level such as 0.95 (and ``average=True``), each metric comes
        with the percentile bootstrap interval of its mean over queries.
    n_resamples : int, default=10_000
        Bootstrap resamples of the queries for the intervals.
    random_state : int, RandomState instance, numpy Generator or None, default=None
        Seed of the resampling, for reproducible intervals.
    candidates : array-like of bool or sparse matrix, default=None
        Restrict each ranking to these items, as the accuracy metrics'
        ``candidates=`` does (:func:`sample_candidates` draws them): a mask of
        the shape of ``y_true`` (a sparse matrix's stored entries), or one
        value per row for 1-D inputs; the scores outside it are not read.
        Every metric is then computed on the candidates, from one sort.
    sampled_correction : {"bv", "cls"}, default=None
        With ``candidates``, each metric is Krichene & Rendle's corrected
        estimate of its full-catalogue value, as the metric's own
        ``sampled_correction=`` gives it (the metrics that sum a function of
        each relevant item's rank: precision, recall, F1, hit rate, MRR,
        MAP, CG, DCG, NDCG). They assume uniformly drawn negatives: the
        candidates of ``sample_candidates(strategy="popularity")`` are
        refused.
    n_items : int or array-like of shape (n_queries,), default=None
        Long format with ``sampled_correction`` only: each user's catalogue
        size when the rows hold only the candidates (see
        :func:`recall_at_k_score`).

    Returns
    -------
    report : dict
        Metric name to float, or to an array of per-query values; with
        ``confidence_level``, to a tuple ``(mean, ci_low, ci_high)``.

    Warns
    -----
    UndefinedMetricWarning
        When some queries are undefined for a metric (no relevant document,
        for its threshold; no pair of different labels, for OPA) and entered
        its mean as ``zero_division``: how many, per metric. A silent 0
        (or 1) would otherwise move the mean unnoticed, as happens with
        recommender users who interacted with nothing.

    See Also
    --------
    get_ranking_scorer_names : The base names of the metrics.

    Examples
    --------
    >>> from sklearn_rankmetrics import ranking_report
    >>> y_true = [3, 2, 0, 1, 0, 2]
    >>> y_score = [0.9, 0.3, 0.5, 0.1, 0.8, 0.4]
    >>> report = ranking_report(y_true, y_score, qid=[1, 1, 1, 2, 2, 2], metrics=["ndcg@10", "mrr"])
    >>> {name: round(value, 4) for name, value in report.items()}
    {'ndcg@10': 0.8041, 'mrr': 0.75}
    >>> ranking_report(y_true, y_score, qid=["a", "a", "a", "b", "b", "b"], metrics=["mrr"], average=False)
    {'qid': array(['a', 'b'], dtype='<U1'), 'mrr': array([1. , 0.5])}
    >>> report = ranking_report(y_true, y_score, qid=[1, 1, 1, 2, 2, 2], metrics=["mrr"], confidence_level=0.9,
    ...                         random_state=0)
    >>> report["mrr"]  # mean, then the interval: with two queries it spans their values
    (0.75, 0.5, 1.0)
    """
    check_zero_division(zero_division)
    resampling = interval_request(average, confidence_level, n_resamples, random_state)
    names, requests, functions = metric_requests(metrics, zero_division, caller="ranking_report")
    zero_divisions = [name_zero_division for _, _, name_zero_division in requests]
    if candidates is None:
        check_without_candidates(sampled_correction, n_items)
    else:
        rows = candidate_rows(
            y_true, y_score, candidates, qid=qid, n_items=n_items, sampled_correction=sampled_correction
        )
        if sampled_correction is not None:
            estimates = CorrectedEstimates(rows, sampled_correction, ties=ties, sample_weight=sample_weight)
            found = [estimates.of(function, request[1]) for function, request in zip(functions, requests, strict=True)]
            n_resamples, confidence_level, rng = resampling or (n_resamples, None, None)
            return estimates.report(names, found, zero_divisions, average, confidence_level, n_resamples, rng)
        y_score = rows.restricted_scores()  # the metrics on the candidates: the other items are not ranked
    inputs = (y_true, y_score, qid, sample_weight)
    found = namespace_of(inputs)
    if found is not None:  # arrays of another namespace, measured on their device
        return report_in_namespace(names, requests, inputs, ties=ties, average=average, namespace=found)
    # The per-query table takes its ids from the rows in rank order (which a sparse y_true, without qid, skips).
    with_ids = not average and qid is not None
    ranked = rank_queries(
        y_true,
        y_score,
        qid=qid,
        ties=ties,
        sample_weight=sample_weight,
        depth=report_depth(requests),
        return_order=with_ids,
    )
    ranking, order = ranked if with_ids else (ranked, None)
    results = measure_ranking(ranking, requests)
    filled = [
        ranking.fill_undefined(values, defined, name_zero_division)
        for (values, defined), name_zero_division in zip(results, zero_divisions, strict=True)
    ]
    if not average:
        first_rows = None if order is None else ranking.ops.take(order, ranking.query_starts)
        return {
            "qid": query_ids(qid, first_rows, ranking.n_queries, ranking.ops),
            **dict(zip(names, filled, strict=True)),
        }
    defined = [defined for _, defined in results]
    return report_of_values(names, filled, defined, zero_divisions, ranking.query_weights, resampling=resampling)


def interval_request(average, confidence_level, n_resamples, random_state):
    """The checked ``average``, and the resampling of the intervals (n_resamples, confidence_level, rng) or None."""
    check_flag("average", average)
    if confidence_level is None:
        return None
    if not average:
        raise ValueError("confidence_level needs average=True: an interval is about the mean over queries.")
    return check_resampling(n_resamples, confidence_level, random_state)


def metric_requests(metrics, zero_division, *, caller):
    """The metric names; each one's kernel, options and zero_division (its name's, or ``zero_division``); and each
    one's metric function."""
    if isinstance(metrics, str):
        raise TypeError(f"metrics must be a sequence of metric names, such as [{plain(metrics)!r}]; got a string.")
    names, requests, functions = list(metrics), [], []
    if not names:
        raise ValueError("metrics names no metric: pass at least one metric name, such as ['ndcg@10'].")
    for name in names:
        function, kernel, options = shared_kernel(name, caller=caller, set_by_caller=SET_BY_THE_REPORT)
        requests.append((kernel, options, options.pop("zero_division", zero_division)))
        functions.append(function)
    return names, requests, functions


def report_depth(requests):
    """How deep any metric looks (None: to the end); a sparse y_true needs no more."""
    cutoffs = [options.get("k") for _, options, _ in requests]
    return None if None in cutoffs else max(cutoffs)


def measure_ranking(ranking, requests):
    """Each metric's per-query ``(values, defined)`` on one ranking, the metrics side by side on the cores.

    A query's values depend on its own rows alone (segment reductions), so
    they are the same, to the bit, whatever other queries share the ranking:
    the accumulators rest on it.
    """
    _ = ranking.positions  # computed once here rather than by several threads at once
    # The metrics only read the shared ranking, and numpy releases the GIL in its loops.
    return map_in_threads(lambda request: request[0](ranking, **request[1]), requests)


def report_of_values(names, filled, defined, zero_divisions, weights, *, resampling=None):
    """The report of per-query values in the order of the query ids: each metric's (weighted) mean over the
    queries that enter it, its bootstrap interval (``resampling``: n_resamples, confidence_level, rng), and the
    warning about undefined queries.

    ``filled``: each metric's values with its zero_division where the metric is
    undefined (``defined`` False). In-memory reports and accumulators alike end
    here, so that equal per-query values in the same order give equal reports.
    """
    means = reported_means([numpy_mean_without_nan(values, weights) for values in filled])
    intervals = [() if resampling is None else mean_interval(values, weights, *resampling) for values in filled]
    n_undefined = [int(np.count_nonzero(~mask)) for mask in defined]
    n_queries = len(filled[0]) if filled else 0
    return reported(names, means, intervals, n_undefined, zero_divisions, n_queries)


class CorrectedEstimates:
    """The report's corrected estimates of the full-catalogue metrics from candidates: each user's, and their means.

    Each metric's per-user estimates are those of its own
    ``sampled_correction=`` (:func:`corrected_values`); the means, the
    intervals and the warnings are the report's, as for the other metrics.
    """

    def __init__(self, rows, sampled_correction, *, ties, sample_weight):
        self.rows, self.correction = rows, sampled_correction
        self.shared = {"ties": ties, "sample_weight": sample_weight}
        self.weights = rows.user_weights(sample_weight)

    def of(self, function, options):
        """Each user's estimate of one metric with the ``options`` its name sets, and where it is defined."""
        values = corrected_values(function, self.rows, self.correction, {**options, **self.shared})
        return values, ~np.isnan(values)

    def report(self, names, found, zero_divisions, average, confidence_level, n_resamples, rng):
        filled = [
            np.where(defined, values, zero) for (values, defined), zero in zip(found, zero_divisions, strict=True)
        ]
        if not average:
            ids = np.arange(self.rows.n_users)
            if self.rows.qid is not None:
                ids = query_ids_of_rows(self.rows.qid, self.rows.first_rows)
            return {"qid": ids, **dict(zip(names, filled, strict=True))}
        means = reported_means([numpy_mean_without_nan(values, self.weights) for values in filled])
        intervals = [
            () if confidence_level is None else self.interval(values, n_resamples, confidence_level, rng)
            for values in filled
        ]
        n_undefined = [int(np.count_nonzero(~defined)) for _, defined in found]
        return reported(names, means, intervals, n_undefined, zero_divisions, self.rows.n_users)

    def interval(self, values, n_resamples, confidence_level, rng):
        kept = ~np.isnan(values)
        if not kept.any():
            return float("nan"), float("nan")
        weights = None if self.weights is None else self.weights[kept]
        return bootstrap_interval(values[kept], n_resamples, confidence_level, rng, weights)


def report_in_namespace(names, requests, inputs, *, ties, average, namespace):
    """The report of arrays of another ``namespace``, on their device: one sort, then a measure of each metric,
    before one read of their means (:func:`~sklearn_rankmetrics._core._inputs.measure_in_namespace`)."""
    ties = check_option("ties", ties, TIES)
    measured = measure_in_namespace(requests, inputs, ties=ties, namespace=namespace, average=average, for_report=True)
    if not average:
        ids = query_ids(inputs[2], measured.first_rows, measured.n_queries, ArrayApiOps(*namespace))
        return {"qid": ids, **dict(zip(names, measured.values, strict=True))}
    zero_divisions = [zero_division for _, _, zero_division in requests]
    return reported(names, measured.means, [()] * len(names), measured.n_undefined, zero_divisions, measured.n_queries)


def reported(names, means, intervals, n_undefined, zero_divisions, n_queries):
    """The report of the means (each followed by its interval, if any), saying how many queries of each entered
    it undefined as zero_division."""
    report, undefined = {}, {}
    for name, mean, interval, count, name_zero_division in zip(
        names, means, intervals, n_undefined, zero_divisions, strict=True
    ):
        report[name] = (mean, *interval) if interval else mean
        if count and not np.isnan(name_zero_division):
            undefined[name] = (count, name_zero_division)
    if undefined:
        warn_undefined_queries(undefined, n_queries)
    return report


def query_ids(qid, first_rows, n_queries, ops):
    """The distinct query ids, sorted (``np.unique(qid)``), in ``ops``' namespace where they are numbers.

    The queries are ranked in the order of their ids, so each one's id is
    that of its first row in rank order (``first_rows``): no second pass
    over the ids.
    """
    if qid is None:
        return ops.arange(n_queries)
    if is_foreign(qid):
        return ops.xp.take(qid, first_rows)  # the distinct ids, sorted with the rows
    ids = query_ids_of_rows(qid, ops.to_host(first_rows))
    return ops.asarray(ids) if ids.dtype.kind in "biuf" else ids


def mean_interval(values, weights, n_resamples, confidence_level, rng):
    """The bootstrap interval of a metric's (weighted) mean over the queries that enter it (``values`` not nan)."""
    kept = ~np.isnan(values)
    if not kept.any():
        return float("nan"), float("nan")
    weights = None if weights is None else weights[kept]
    return bootstrap_interval(values[kept], n_resamples, confidence_level, rng, weights)


def warn_undefined_queries(undefined, n_queries):
    """Say how many undefined queries entered each mean as zero_division, by what makes them undefined.

    ``undefined`` maps each metric name to its count of such queries and their
    value. A query is undefined for a metric as its record says (without a
    relevant document; OPA: without a pair of different labels).
    """
    by_reason = {}
    for name, (count, value) in undefined.items():
        reason = BY_FUNCTION[parse_metric_name(name)[0]].undefined
        by_reason.setdefault(reason, []).append(f"{name}: {count} (scored {value:g})")
    said = " ".join(
        f"Queries {reason}, out of {n_queries}, scored zero_division in the means: {'; '.join(counts)}."
        for reason, counts in by_reason.items()
    )
    warn(
        f"{said} Pass zero_division=np.nan to leave them out of the means, or average=False to see them.",
        UndefinedMetricWarning,
    )
