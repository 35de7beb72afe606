"""recommender_report: the accuracy metrics and the metrics of the lists of one recommender, from one extraction."""

import inspect
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse
from sklearn.exceptions import UndefinedMetricWarning

from .._core._parallel import map_in_threads
from .._core._ranking import numpy_mean_without_nan, reported_means
from .._core._sparse import canonical_csr
from .._core._validation import check_k, check_zero_division, plain
from .._core._warnings import warn
from ..recommenders._accuracy import ACCURACY_METRICS
from ..recommenders._candidate_options import candidate_rows, check_without_candidates
from ..recommenders._lists import mean_over_users
from ..recommenders._report import LIST_INPUTS, LIST_METRICS, ReportLists, kernel_inputs
from ._grammar import check_cutoff, matched, parse_options
from ._names import metric_info, shared_kernel
from ._registry import BY_FUNCTION
from ._report import SET_BY_THE_REPORT, CorrectedEstimates

WHO = "recommender_report"
# What the report sets once for every metric; the other options of the metrics go in their names.
SET_FOR_THE_ACCURACY = {
    name: f"the report sets once for every metric: pass {name}= to {WHO}" for name in SET_BY_THE_REPORT
}
SET_FOR_THE_LISTS = {
    **{name: f"the report takes once for every metric: pass {name}= to {WHO}" for name in LIST_INPUTS},
    **{
        name: f"the report sets once for every metric: pass {name}= to {WHO}"
        for name in ("k", "ties", "item_id", "qid", "catalog", "average")
    },
}


class RecommenderReport(dict):
    """What :func:`recommender_report` returns: a dict from each metric's name to its value, and more.

    Attributes
    ----------
    per_user : dict
        ``"qid"``: the users (the rows of a matrix, or ``np.unique(qid)``),
        and for each metric with a value per user its array of them, as
        the metric's ``average=False`` gives it (``zero_division`` where
        undefined). The metrics of the whole catalogue (coverage, Gini
        index, entropy) have none.
    left_out : dict
        With ``metrics=None``, each metric that was not computed and why
        (an input not given, or not fit for it).
    k : int
        The length of the users' lists.
    """

    def __init__(self, values, *, per_user, left_out, k):
        super().__init__(values)
        self.per_user, self.left_out, self.k = per_user, left_out, k


@dataclass
class Request:
    """One metric asked for: its report name, function, kernel and the options that its name sets."""

    name: str
    function: object
    kernel: object
    options: dict
    zero_division: float = float("nan")
    chosen: bool = False  # whether the caller chose zero_division (in the name, or for the report)
    inputs: dict = field(default_factory=dict)

    @property
    def accuracy(self):
        return self.function not in LIST_METRICS


def recommender_report(
    y_true,
    y_score,
    *,
    k=10,
    metrics=None,
    item_id=None,
    qid=None,
    catalog=None,
    item_popularity=None,
    long_tail=None,
    item_features=None,
    baseline_score=None,
    item_groups=None,
    ties="average",
    sample_weight=None,
    zero_division=None,
    candidates=None,
    sampled_correction=None,
    n_items=None,
):
    """Every accuracy metric and every metric of the lists of a recommender, from one top-k extraction.

    The accuracy metrics (precision, recall, NDCG, ...) and the metrics
    beyond accuracy (coverage, Gini index, entropy, novelty, popularity,
    long tail, user coverage, intra-list diversity, serendipity, expected
    exposure) of the same users x items scores. Their functions each read
    the users' top k again; the report reads the score matrix once (one
    ``np.partition`` per row, at the deepest cutoff any metric asks for)
    and applies every metric to what it read, so that ten metrics beyond
    accuracy cost about as much as the accuracy report alone. Each value
    equals that of the metric's own function with the same inputs.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_users, n_items), or (n_samples,), or None
        Relevance labels (held-out interactions), in the layout of
        ``y_score``; a scipy sparse matrix is read without densifying it.
        None: the metrics that need labels (the accuracy metrics,
        serendipity, expected exposure) are left out.
    y_score : array-like or sparse matrix of shape (n_users, n_items), or (n_samples,)
        Predicted scores: a users x items matrix (column ``j`` is item
        ``j``), dense or scipy sparse (its stored entries are the
        candidates; an entry not stored is never shown), or with
        ``item_id`` and ``qid`` one score per (user, item) pair. ``-inf``
        marks an item not to recommend (already seen).
    k : int, default=10
        The length of each user's list: the cutoff of every metric of the
        lists and of the accuracy metrics that ``metrics=None`` computes.
    metrics : sequence of str, default=None
        Metric names (``metric_info`` names): the metrics of the lists by
        their registered names or aliases (``"catalog_coverage"``,
        ``"gini_index"``, ``"shannon_entropy"``, ``"novelty"``, ``"arp"``,
        ``"aplt"``, ``"user_coverage"``, ``"ild"``, ``"serendipity"``,
        ``"expected_exposure"``, ``"ItemCoverage"``, ``"EE-L"``, ...), with
        their options in brackets (``"ild(metric='euclidean')"``,
        ``"aplt(head_share=0.9)"``, ``"expected_exposure(component=
        'disparity')"``); and any ranking metric name as
        :func:`ranking_report` takes it (``"ndcg@10"``,
        ``"recall@20(denominator='capped')"``). None: every metric that
        the inputs given allow, the accuracy metrics at ``k``; the others
        are listed in ``left_out`` with the reason. A metric named here
        whose inputs are missing is an error.
    item_id : array-like of shape (n_samples,), default=None
        The item of each (user, item) pair; None: ``y_score`` is a matrix.
    qid : array-like of shape (n_samples,), default=None
        The user of each pair; None for a matrix.
    catalog : array-like, default=None
        With ``item_id``: every item of the catalogue (for the coverage and
        the Gini index, items never scored count as never shown).
    item_popularity : array-like of shape (n_items,) or mapping, default=None
        Each item's popularity, for ARP, APLT's short head and novelty
        (:func:`average_popularity_score`, :func:`long_tail_share_score`,
        :func:`novelty_score`). Novelty reads shares of the training users
        in (0, 1]: with counts (a value above 1) it is left out, with the
        reason, and the other two read the counts.
    long_tail : array-like of bool of shape (n_items,) or mapping, default=None
        Whether each item is in the long tail: APLT reads it instead of
        ``item_popularity``'s short head.
    item_features : array-like or sparse matrix of shape (n_items, n_features), or mapping, default=None
        The items' features, for intra-list diversity.
    baseline_score : array-like or sparse matrix of the layout of ``y_score``, default=None
        A primitive recommender's scores, for serendipity.
    item_groups : array-like of shape (n_items,) or mapping, default=None
        The items' groups (providers), for expected exposure; None: each
        item is its own group.
    ties : {"average", "pessimistic", "optimistic", "stable"}, default="average"
        Order of equal scores, for every metric as its function takes it
        (the metrics of the lists, which have no labels, read
        ``"pessimistic"`` and ``"optimistic"`` as ``"stable"``).
    sample_weight : array-like of shape (n_users,) or (n_samples,), default=None
        The users' weights in the accuracy metrics' means (one per matrix
        row, or per pair, constant within a user). The metrics of the lists
        take no weights, as their functions: a warning says so.
    zero_division : {np.nan, 0.0, 1.0}, default=None
        Value of a user for whom a metric is undefined (an accuracy metric
        without a relevant item, a list metric without a list). None: each
        metric's own default (0.0 for the accuracy metrics, np.nan, left
        out of the mean, for the metrics of the lists). A name may set its
        own.
    candidates : array-like of bool or sparse matrix, default=None
        Sampled candidates for the accuracy metrics (:func:`sample_candidates`),
        as their ``candidates=`` takes them: they are ranked among the
        candidates, or estimated over the full catalogue with
        ``sampled_correction``. The metrics of the lists always describe
        the lists drawn from the whole catalogue: with a ``y_score`` that
        scores only the candidates (NaN elsewhere) they are left out.
    sampled_correction : {"bv", "cls"}, default=None
        With ``candidates``: the accuracy metrics' corrected estimates of
        their full-catalogue values (uniformly drawn candidates only).
    n_items : int or array-like of shape (n_users,), default=None
        With ``sampled_correction`` in the long format: each user's
        catalogue size when the rows hold only the candidates.

    Returns
    -------
    report : RecommenderReport
        A dict from each metric's name to its value (the mean over users, or
        the catalogue's value), with the attributes ``per_user`` (each
        user's values, and their ids under ``"qid"``), ``left_out`` (the
        metrics not computed, and why) and ``k``.

    Warns
    -----
    UndefinedMetricWarning
        Once, with every metric for which some users are undefined: how
        many, and whether they entered the mean as ``zero_division`` or
        were left out of it.

    See Also
    --------
    ranking_report : The accuracy metrics alone, on any ranking.
    sample_candidates : Candidates for sampled evaluation.

    Notes
    -----
    The score matrix is read once, at the deepest cutoff ``d`` of the
    metrics asked for (``k``, or an accuracy metric's larger cutoff): each
    user's entries at or above its d-th largest score, the whole tie block
    at that score included. The metrics of the lists read each user's top k
    from them (ties averaged exactly by default: an item of the block that
    straddles rank k, with v of its m places above k, is shown with chance
    v/m), exactly as their functions do, so their values are the
    functions' to the last bit. The accuracy metrics rank those entries and
    every item with a positive label (an item below the cutoff earns
    nothing, but counts in R and the ideal ranking), as a sparse ``y_true``
    makes every accuracy metric do, so their values equal the functions'
    up to rounding. An accuracy metric without cutoff (``"map"``,
    ``"bpref"``) makes the report rank every item, as its function does. A
    sparse ``y_score`` gives the accuracy metrics the values of the dense
    matrix with ``-inf`` where nothing is stored (their functions take
    dense scores only).

    The serendipity baseline is a second score matrix, read once more.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics import recommender_report
    >>> y_true = np.array([[1, 0, 0, 1], [0, 0, 1, 0], [0, 1, 0, 0]])
    >>> y_score = np.array([[0.9, 0.8, 0.1, 0.3], [0.2, -np.inf, 0.7, 0.5], [0.9, 0.8, 0.7, 0.6]])
    >>> popularity = np.array([30, 20, 10, 5])
    >>> report = recommender_report(y_true, y_score, k=2, item_popularity=popularity)
    >>> round(report["ndcg@2"], 4), round(report["catalog_coverage"], 4), round(report["arp"], 4)
    (0.748, 1.0, 19.1667)
    >>> report.per_user["recall@2"]
    array([0.5, 1. , 1. ])
    >>> report.left_out["ild"]
    'needs item_features'
    """
    k = check_k(k, allow_none=False)
    if k >= 2**63:  # the names of the accuracy metrics carry it
        raise ValueError(f"k must be below 2**63; got {k}. Any k at least the number of items lists them all.")
    if zero_division is not None:
        zero_division = check_zero_division(zero_division)
    if candidates is None:
        check_without_candidates(sampled_correction, n_items)
    inputs = {
        "y_true": y_true,
        "item_popularity": item_popularity,
        "long_tail": long_tail,
        "item_features": item_features,
        "baseline_score": baseline_score,
        "item_groups": item_groups,
    }
    lists_known = candidates is None or scored_everywhere(y_score)
    requests, left_out = requested(metrics, k, zero_division, inputs, lists_known, sampled_correction)
    accuracy = [request for request in requests if request.accuracy]
    lists = [request for request in requests if not request.accuracy]
    cutoffs = [request.options.get("k") for request in accuracy]
    shared = ReportLists(
        y_score,
        k=k,
        depth=None if None in cutoffs else max(cutoffs, default=k),
        accuracy=bool(accuracy) and candidates is None,
        lists=bool(lists),
        item_id=item_id,
        qid=qid,
        catalog=catalog,
        ties=ties,
        who=WHO,
    )
    found = {}
    if accuracy:
        found.update(accuracy_values(accuracy, shared, y_true, y_score, ties, sample_weight,
                                     candidates, sampled_correction, n_items))  # fmt: skip
    for request in lists:
        found[request.name] = request.kernel.kernel(shared.lists, **request.inputs, **request.options)
    if sample_weight is not None and any(not LIST_METRICS[request.function].catalogue for request in lists):
        warn(
            "sample_weight weighs the users in the accuracy metrics' means only: the metrics of the lists take no "
            "weights, as their functions; weigh report.per_user yourself for them.",
            UserWarning,
        )
    return assembled(requests, found, shared.user_ids(), left_out, k)


def scored_everywhere(y_score):
    """Whether every score is known (no NaN): the lists drawn from the whole catalogue can be read."""
    values = canonical_csr(y_score).data if sparse.issparse(y_score) else np.asarray(y_score, dtype=np.float64)
    return not np.isnan(values).any()


def requested(metrics, k, zero_division, inputs, lists_known, sampled_correction):
    """The :class:`Request` of each metric to compute, and the metrics left out (``metrics=None``) with why."""
    if metrics is None:
        return default_requests(k, zero_division, inputs, lists_known, sampled_correction)
    if isinstance(metrics, str):
        raise TypeError(f"metrics must be a sequence of metric names, such as [{plain(metrics)!r}]; got a string.")
    requests = [resolve(name, k, zero_division) for name in metrics]
    if not requests:
        raise ValueError("metrics names no metric: pass at least one metric name, or None for every metric.")
    for request in requests:
        reason = why_not(request, inputs, lists_known)
        if reason is not None:
            raise ValueError(f"{request.name!r} cannot be computed: it {reason}.")
    return requests, {}


def default_requests(k, zero_division, inputs, lists_known, sampled_correction):
    """Every metric that the inputs allow: the accuracy metrics at ``k``, then the metrics of the lists."""
    requests, left_out = [], {}
    for function in ACCURACY_METRICS.values():
        canonical = BY_FUNCTION[function].canonical
        if "k" not in inspect.signature(function).parameters:
            left_out[canonical] = "has no cutoff: it ranks every item (name it in metrics= to compute it)"
            continue
        request = resolve(f"{canonical}@{k}", k, zero_division)
        reason = why_not(request, inputs, lists_known)
        if reason is None and sampled_correction is not None and not correctable(request):
            reason = "has no corrected estimator (sampled_correction)"
        if reason is None:
            requests.append(request)
        else:
            left_out[request.name] = reason
    for function in LIST_METRICS:
        request = resolve(BY_FUNCTION[function].canonical, k, zero_division)
        reason = why_not(request, inputs, lists_known)
        if reason is None:
            requests.append(request)
        else:
            left_out[request.name] = reason
    return requests, left_out


def correctable(request):
    from ..recommenders._sampled import forms  # the sampled evaluation's work, imported when it is asked for

    return forms(request.function.__name__, request.options) is not None


def why_not(request, inputs, lists_known):
    """Why ``request`` cannot be computed from ``inputs`` (a phrase after "it"), or None; fills its inputs."""
    if request.accuracy:
        return "needs y_true" if inputs["y_true"] is None else None
    if not lists_known:
        return (
            "describes the lists drawn from the whole catalogue, but y_score scores only the candidates (NaN elsewhere)"
        )
    passed = kernel_inputs(LIST_METRICS[request.function], inputs)
    if isinstance(passed, str):
        return passed
    request.inputs = passed
    return None


def resolve(name, k, zero_division):
    """The :class:`Request` of a metric name: one of the lists' (a ``metric_info`` name), or a ranking metric's."""
    found = list_metric(name, k)
    if found is not None:
        function, options = found
        kernel = LIST_METRICS[function]
    else:
        function, kernel, options = ranking_kernel(name)
    chosen = "zero_division" in options or zero_division is not None
    default = own_default(function) if zero_division is None else zero_division
    return Request(name, function, kernel, options, options.pop("zero_division", default), chosen)


def ranking_kernel(name):
    """The function, kernel and options of a ranking metric's name, as ranking_report reads it."""
    try:
        function, kernel, options = shared_kernel(name, caller=WHO, set_by_caller=SET_FOR_THE_ACCURACY)
    except ValueError as error:
        if "is not a ranking metric name" not in str(error):
            raise
        names = ", ".join(BY_FUNCTION[function].canonical for function in LIST_METRICS)
        raise ValueError(f"{WHO} computes the metrics of the lists ({names}) and ranking metrics; {error}") from None
    return function, kernel, options


def own_default(function):
    parameter = inspect.signature(function).parameters.get("zero_division")
    return float("nan") if parameter is None else parameter.default


def list_metric(name, k):
    """The function and options of a metric of the lists that ``name`` names (its options in brackets), or None."""
    match = matched(name) if isinstance(name, str) else None
    if match is None:
        return None
    try:
        record = metric_info(name) if match["options"] is None and match["k"] is None else metric_info(match["base"])
    except (ValueError, TypeError):
        return None
    if record.function not in LIST_METRICS:
        return None
    if match["k"] is not None and check_cutoff(name, match["k"], None) != k:
        raise ValueError(
            f"{name!r} sets a cutoff, but the metrics of the lists share the report's k={k}, read once; pass "
            f"k={match['k']} to {WHO}, or call {record.function.__name__} on its own."
        )
    options = parse_options(match["options"], name) if match["options"] is not None else {}
    takes = set(inspect.signature(LIST_METRICS[record.function].kernel).parameters) - {"lists", *LIST_INPUTS}
    if "zero_division" in inspect.signature(record.function).parameters:
        takes.add("zero_division")
    for option in options:
        if option in SET_FOR_THE_LISTS:
            raise ValueError(f"{name!r} sets {option}, which {SET_FOR_THE_LISTS[option]}.")
        if option not in takes:
            raise ValueError(
                f"{name!r} sets {option}, which is not an option of {record.function.__name__} in a report; its "
                f"options are {', '.join(sorted(takes)) or 'none'}."
            )
    if "zero_division" in options:
        options["zero_division"] = check_zero_division(options["zero_division"])
    return record.function, options


def accuracy_values(requests, shared, y_true, y_score, ties, sample_weight, candidates, correction, n_items):
    """Each accuracy metric as :class:`Measured`: its per-user values (its zero_division where undefined) and mean."""
    if candidates is not None:
        rows = candidate_rows(y_true, y_score, candidates, qid=shared.qid, n_items=n_items,
                              sampled_correction=correction)  # fmt: skip
        if correction is not None:
            estimates = CorrectedEstimates(rows, correction, ties=ties, sample_weight=sample_weight)
            found = [estimates.of(request.function, request.options) for request in requests]
            filled = [
                np.where(defined, values, zero) for (values, defined), zero in zip(found, zeros(requests), strict=True)
            ]
            means = reported_means([numpy_mean_without_nan(values, estimates.weights) for values in filled])
            return per_metric(requests, found, filled, means)
        ranking = shared.ranking(y_true, sample_weight=sample_weight, scores=rows.restricted_scores())
    else:
        ranking = shared.ranking(y_true, sample_weight=sample_weight)
    _ = ranking.positions  # computed once here rather than by several threads at once
    found = map_in_threads(lambda request: request.kernel(ranking, **request.options), requests)
    filled = [
        ranking.fill_undefined(values, defined, zero)
        for (values, defined), zero in zip(found, zeros(requests), strict=True)
    ]
    return per_metric(requests, found, filled, ranking.means(filled))


def zeros(requests):
    return [request.zero_division for request in requests]


def per_metric(requests, found, filled, means):
    return {
        request.name: Measured(mean, values, int(np.count_nonzero(~np.asarray(defined))), request)
        for request, (_, defined), values, mean in zip(requests, found, filled, means, strict=True)
    }


@dataclass
class Measured:
    """An accuracy metric as measured: its mean, per-user values, how many users are undefined, its request."""

    mean: float
    values: np.ndarray
    n_undefined: int
    request: Request


def assembled(requests, found, user_ids, left_out, k):
    """The :class:`RecommenderReport`, in the order of the requests; one warning for the undefined users."""
    values, per_user, undefined = {}, {"qid": user_ids}, {}
    for request in requests:
        result = found[request.name]
        if isinstance(result, Measured):
            values[request.name], per_user[request.name] = result.mean, result.values
            count, reason = result.n_undefined, BY_FUNCTION[request.function].undefined
        elif LIST_METRICS[request.function].catalogue:
            values[request.name] = float(result)
            if np.isnan(result):
                undefined.setdefault("nan, as no user shows any item", []).append(request.name)
            continue
        else:
            filled = np.where(result.defined, result.values, request.zero_division)
            values[request.name], per_user[request.name] = mean_over_users(filled), filled
            count, reason = int(np.count_nonzero(~result.defined)), f"with {result.undefined}"
        # Undefined users are said where they silently move a mean (a number) or leave it by default (nan).
        if count and not (request.chosen and np.isnan(request.zero_division)):
            undefined.setdefault(said(count, reason, request.zero_division), []).append(request.name)
    if undefined:
        groups = "; ".join(f"{', '.join(names)}: {what}" for what, names in undefined.items())
        warn(
            f"Of {len(user_ids)} users: {groups}. "
            "Pass zero_division= (or set it in a metric's name) to choose their value; report.per_user shows them.",
            UndefinedMetricWarning,
        )
    return RecommenderReport(values, per_user=per_user, left_out=left_out, k=k)


def said(count, reason, zero_division):
    where = "left out of the mean" if np.isnan(zero_division) else f"scored {zero_division:g}"
    return f"{count} user{'' if count == 1 else 's'} {reason}, {where}"
