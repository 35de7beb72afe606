"""Unbiased offline metrics from logged clicks: inverse-propensity-scored (IPS) and self-normalised (SNIPS) values."""

import numbers
import re

import numpy as np
from scipy.special import comb

from .._core._numpy_ops import NUMPY
from .._core._ranking import build_ranking, numpy_mean_without_nan, reported_means
from .._core._resampling import Resamples, check_resampling
from .._core._validation import as_float_array, check_flag, check_option, check_real, check_scores, plain
from ._log import check_binary, check_length, check_probabilities, impression_codes

ESTIMATORS = ("ips", "snips")
# Above this many impressions, ips_interval resamples this many random groups of impressions: the cost of a
# resample stays bounded, and the groups' sums carry the spread of the impressions' values.
BOOTSTRAP_UNITS = 2**15
# name -> (needs a cutoff, takes a cutoff, a ratio per impression)
METRICS = {
    "dcg": (False, True, False),
    "ndcg": (False, True, True),
    "precision": (True, True, False),
    "recall": (True, True, True),
    "mrr": (False, True, False),
    "arp": (False, False, False),
    "psp": (True, True, True),
}
SPELLINGS = {"p": "precision"}
METRIC_NAME = re.compile(r"^(?P<base>[a-z]+)(@(?P<k>[0-9]+))?$")


def parse_ips_metric(metric):
    """The base of a metric name such as ``"dcg@10"`` and its cutoff (None: none)."""
    names = "dcg@k, ndcg@k, precision@k (or p@k), recall@k, mrr (or mrr@k), arp, psp@k"
    match = METRIC_NAME.match(metric.lower()) if isinstance(metric, str) else None
    base = SPELLINGS.get(match["base"], match["base"]) if match else None
    if base not in METRICS:
        raise ValueError(f"metric must be one of {names}; got {plain(metric)!r}.")
    needs_k, takes_k, _ = METRICS[base]
    k = None if match["k"] is None else int(match["k"])
    if k is not None and (k < 1 or not takes_k):
        reason = "k must be >= 1" if takes_k else f"{base} looks at every rank: it takes no cutoff"
        raise ValueError(f"metric {metric!r} is not valid: {reason}. Valid names: {names}.")
    if needs_k and k is None:
        raise ValueError(f"metric {metric!r} needs a cutoff, as in {base}@10.")
    return base, k


def rank_weights(base, positions, k):
    """The weight of each 0-based rank in the metric ``base`` (a linear function of the relevance)."""
    visible = np.ones(len(positions), dtype=bool) if k is None else positions < k
    if base in ("dcg", "ndcg"):
        return np.where(visible, 1.0 / np.log2(positions + 2.0), 0.0)
    if base in ("precision", "psp"):
        return visible / float(k)
    if base == "recall":
        return visible.astype(np.float64)
    return positions + 1.0  # arp: the rank itself


def expected_weights(ranking, base, k):
    """Each row's rank weight, averaged over the orderings of its tie block (the mean over the block's ranks)."""
    weights = rank_weights(base, ranking.positions, k)
    if not ranking.has_ties:
        return weights
    return np.repeat(ranking.block_mean(weights), ranking.block_sizes)


def first_clicked_rr(ranking, weighted, clicked, k):
    """Per impression: the inverse propensity of the first clicked document times its expected reciprocal rank.

    Over the orderings of the tie block that holds the first clicked document
    (``m`` clicked among ``s`` rows from 0-based rank ``f``), the first clicked
    of them lies at place ``j`` with probability C(s-1-j, m-1) / C(s, m), and
    which of them it is does not depend on ``j``: the mean inverse propensity
    of the block's clicked rows multiplies the expected reciprocal rank.
    """
    if ranking.has_ties:
        starts, sizes = ranking.block_starts, ranking.block_sizes
        first, query_blocks = ranking.block_first, ranking.query_block_starts
    else:  # every row its own block
        starts, sizes = np.arange(ranking.n_rows), np.ones(ranking.n_rows, dtype=np.int64)
        first, query_blocks = ranking.positions, ranking.query_starts
    n_clicked = NUMPY.segment_sum(clicked, starts)
    weight_sum = NUMPY.segment_sum(weighted, starts)
    block = NUMPY.first_true_from(n_clicked > 0, query_blocks)  # any block where the impression has none
    ends = np.append(query_blocks[1:], len(starts))
    found = (block >= query_blocks) & (block < ends) & (n_clicked[np.clip(block, 0, len(starts) - 1)] > 0)
    block = np.where(found, block, 0)
    s, m, f = sizes[block].astype(np.float64), np.maximum(n_clicked[block], 1.0), first[block].astype(np.float64)
    expected = np.zeros(len(block))
    for j in range(int((s - m).max(initial=0)) + 1):
        rank = f + j + 1
        share = np.where(j <= s - m, comb(s - 1 - j, m - 1) / comb(s, m), 0.0)
        expected += share / rank * (True if k is None else rank <= k)
    return np.where(found, weight_sum[block] / m * expected, 0.0)


def ideal_sums(codes, weighted, clicked, base, k, query_codes):
    """Per impression (of codes ``query_codes``): the metric's sum over the clicked documents ranked by inverse
    propensity, the most first.

    The largest IPS value any ranking of the impression's documents can get:
    the normaliser of NDCG and of Jain et al.'s propensity-scored precision.
    """
    sums = np.zeros(len(query_codes))
    rows = np.flatnonzero(clicked)
    if len(rows):
        ranking, order = build_ranking(weighted[rows], weighted[rows], codes[rows], ties="stable")
        per_query = ranking.query_sum(ranking.labels * rank_weights(base, ranking.positions, k))
        sums[np.searchsorted(query_codes, codes[rows][order[ranking.query_starts]])] = per_query
    return sums


def inverse_propensities(propensity, clip):
    """``1 / propensity``, cut to ``clip`` (None or inf: not cut); an inverse that overflows is refused unclipped."""
    if clip is not None and not (isinstance(clip, numbers.Real) and float(clip) == np.inf):
        clip = check_real("clip", clip, low=1.0)
    with np.errstate(over="ignore", divide="ignore"):
        weights = 1.0 / propensity
    if clip is not None:
        return np.minimum(weights, float(clip))
    overflows = np.isinf(weights)
    if overflows.any():
        row = int(np.flatnonzero(overflows)[0])
        raise ValueError(
            f"propensity {plain(propensity[row])!r} at row {row} is so small that its inverse overflows float64; give "
            "a larger propensity or a finite clip= (the largest inverse propensity)."
        )
    return weights


def ips_terms(clicks, y_score, qid, propensity, metric, clip, ties):
    """Per impression: the IPS numerator, the metric's normaliser (None: 1) and the sum of the clicks' weights."""
    base, k = parse_ips_metric(metric)
    clicks = check_binary(clicks, "clicks")
    n_rows = len(clicks)
    y_score = as_float_array(y_score, "y_score")
    check_length(y_score, "y_score", n_rows)
    check_scores(y_score, minus_inf="a document the new ranker would not show")
    propensity = check_probabilities(propensity, "propensity", n_rows)
    ties = check_option("ties", ties, ("average", "stable"))
    codes = impression_codes(qid, n_rows)
    weights = inverse_propensities(propensity, clip)
    ranking, order = build_ranking(clicks, y_score, codes, ties=ties)
    clicked, weighted = clicks[order], (clicks * weights)[order]
    hidden = None
    if ranking.retrieved is not None:  # not shown by the new ranker: no rank, no weight (arp: the worst rank)
        hidden = ranking.query_sum(weighted * ~ranking.retrieved)
        clicked, weighted = clicked * ranking.retrieved, weighted * ranking.retrieved
    if base == "mrr":
        numerator = first_clicked_rr(ranking, weighted, clicked, k)
    else:
        numerator = ranking.query_sum(weighted * expected_weights(ranking, base, k))
    if base == "arp" and hidden is not None:
        numerator = numerator + hidden * (np.diff(ranking.query_starts, append=n_rows) + 1)
    total = ranking.query_sum(clicks[order] * weights[order])
    normaliser = None
    if base == "recall":
        normaliser = total
    elif base in ("ndcg", "psp"):
        query_codes = codes[order[ranking.query_starts]]
        normaliser = ideal_sums(codes, clicks * weights, clicks > 0, base, k, query_codes)
    return base, numerator, normaliser, total


def impression_values(base, numerator, normaliser, total, estimator):
    """Each impression's value (nan where undefined) and its weight in the mean."""
    estimator = check_option("estimator", estimator, ESTIMATORS)
    if base == "psp" and estimator == "snips":
        raise ValueError("psp@k is already self-normalised (Jain et al.'s ratio of sums); use estimator='ips' with it.")
    with np.errstate(invalid="ignore", divide="ignore"):
        if normaliser is not None:
            values = np.where(normaliser > 0, numerator / normaliser, np.nan)
        elif estimator == "snips":
            values = np.where(total > 0, numerator / total, np.nan)
        else:
            values = numerator
    if base == "psp":
        return values, normaliser
    return values, (total if estimator == "snips" else None)


def ips_score(
    clicks, y_score, *, qid, propensity, metric="dcg@10", estimator="ips", clip=None, average=True, ties="average"
):
    """Metric of a new ranker estimated from logged clicks by inverse propensity scoring (IPS or SNIPS).

    One row per shown document of a click log, ``qid`` naming its impression
    (a result page shown once). The IPS value of an impression is the sum,
    over its clicked documents, of the metric's weight at the rank the new
    ranker (``y_score``) gives the document among the impression's
    documents, divided by the document's propensity: the probability that
    the user examined the position where it was *logged* (Joachims et al.
    2017). Under the position-based click model (a click is examination
    times relevance, examination depends on the logged position alone, and
    every propensity is right and above 0) its mean is unbiased for the
    metric of the new ranking over the shown documents, each with its
    probability of being relevant as its gain.

    Parameters
    ----------
    clicks : array-like of shape (n_rows,)
        1 where the logged document was clicked, else 0.
    y_score : array-like of shape (n_rows,)
        The new ranker's scores; a higher score ranks higher within the
        impression. ``-inf`` marks a document the new ranker would not show
        (it takes no rank and earns nothing; for ``"arp"``, lower is better,
        a clicked such document counts at rank :math:`n + 1` of its
        impression of :math:`n` rows, below every ranked one, so hiding a
        relevant document never improves ARP).
    qid : array-like of shape (n_rows,)
        Impression of each row, of any comparable type; the rows of an
        impression need not be contiguous.
    propensity : array-like of shape (n_rows,)
        Examination probability of each row's logged position, in (0, 1];
        :func:`estimate_position_propensity` estimates them. Relative
        propensities (the first position's 1) scale every IPS value by
        the first position's propensity and leave SNIPS unchanged.
    metric : str, default="dcg@10"
        ``"dcg@k"`` (weight :math:`1/\\log_2(1+r)` up to rank k),
        ``"ndcg@k"`` (the IPS DCG over the largest IPS DCG any ranking of the
        impression's documents can get), ``"precision@k"`` or ``"p@k"``
        (:math:`1/k` up to k), ``"recall@k"`` (the IPS count of clicked
        documents in the top k over the IPS count of all clicked ones),
        ``"mrr"`` or ``"mrr@k"`` (the reciprocal rank of the first clicked
        document, times its inverse propensity), ``"arp"`` (Joachims et al.'s
        average relevant position: the sum of the ranks of the relevant
        documents, lower is better) and ``"psp@k"`` (Jain et al.'s
        propensity-scored precision, as pyxclib: the IPS precision@k over
        that of the best ranking, a ratio of sums over impressions).
    estimator : {"ips", "snips"}, default="ips"
        ``"ips"``: the mean of the impressions' IPS values. ``"snips"``: the
        self-normalised form, the sum of the IPS values over the sum of the
        clicks' inverse propensities (the IPS number of relevant documents):
        the metric per relevant document (Wang et al. 2016's weighted mean),
        consistent but not unbiased, and unchanged by any scaling of the
        propensities. For ndcg and recall, the mean of the impressions'
        ratios weighted by that IPS number.
    clip : float, default=None
        Largest inverse propensity (>= 1): weights above it are cut to it
        (Strehl et al. 2010), which trades a bias down for less variance.
        None or ``np.inf``: no clipping; then a propensity so small that its
        inverse overflows float64 (below about 5.6e-309) is refused.
    average : bool, default=True
        The mean over impressions; False: each impression's value, in the
        order of the sorted distinct ``qid`` (nan where undefined). With
        ``estimator="snips"`` that value is the impression's own ratio (its
        IPS value over its clicks' inverse propensities); the estimate is
        their mean weighted by those sums, not their plain mean.
    ties : {"average", "stable"}, default="average"
        ``"average"``: tied scores share the mean of the weights of the ranks
        their block occupies, the expectation over the orderings of the tie
        (for mrr, the exact expectation of the first clicked document's
        reciprocal rank); ``"stable"``: ties keep their input order.

    Returns
    -------
    score : float or ndarray of shape (n_impressions,)
        The estimate, or the per-impression values.

    See Also
    --------
    ips_interval : A bootstrap interval of the same estimate.
    estimate_position_propensity : The propensities from the clicks.
    off_policy_value : Slate estimators of a stochastic logging policy.

    Notes
    -----
    With :math:`c_d` the click, :math:`p_d` the propensity of the logged
    position of document :math:`d` (clipped: :math:`w_d = \\min(1/p_d,
    \\mathrm{clip})`) and :math:`\\lambda(r)` the metric's weight at the rank
    :math:`r` the new ranker gives :math:`d`, impression :math:`i` has

    .. math::

        \\hat\\Delta_i = \\sum_{d \\in i} c_d \\, w_d \\, \\lambda(r_d),
        \\qquad \\widehat{V}_{IPS} = \\frac{1}{n} \\sum_i \\hat\\Delta_i,
        \\qquad \\widehat{V}_{SNIPS} = \\frac{\\sum_i \\hat\\Delta_i}{\\sum_i \\sum_{d \\in i} c_d w_d}.

    Assumptions: the clicks follow the position-based model (a click needs an
    examination, which depends only on the logged position, and relevance,
    which does not); the propensities are those examination probabilities
    and none is 0 where a relevant document was shown (else its relevance is
    never seen and the estimate is biased down); the new ranker only reorders
    the impression's documents (documents never shown cannot be credited).
    DCG, precision, recall's numerator and ARP are linear in the relevance:
    their IPS values are unbiased. NDCG, recall, psP@k and SNIPS are ratios:
    consistent, not unbiased. MRR is not linear in the relevance: its value
    here is unbiased only where an impression has at most one relevant
    document. A clicked document's relevance counts as 1 (binary gain).
    Impressions without a click are 0 for the linear metrics and undefined
    (left out of the mean) for the ratios.

    References
    ----------
    .. [1] T. Joachims, A. Swaminathan and T. Schnabel, "Unbiased
       Learning-to-Rank with Biased Feedback", WSDM 2017.
    .. [2] X. Wang, M. Bendersky, D. Metzler and M. Najork, "Learning to
       Rank with Selection Bias in Personal Search", SIGIR 2016.
    .. [3] H. Jain, Y. Prabhu and M. Varma, "Extreme Multi-label Loss
       Functions for Recommendation, Tagging, Ranking & Other Missing Label
       Applications", KDD 2016.

    Examples
    --------
    >>> from sklearn_rankmetrics.counterfactual import ips_score
    >>> clicks = [1, 0, 0, 0, 1, 0]
    >>> qid = [1, 1, 1, 2, 2, 2]
    >>> propensity = [1.0, 0.5, 0.25, 1.0, 0.5, 0.25]  # of the logged positions 1, 2, 3
    >>> new_scores = [1, 3, 2, 3, 2, 1]
    >>> round(ips_score(clicks, new_scores, qid=qid, propensity=propensity, metric="dcg@3"), 4)
    0.8809
    """
    check_flag("average", average)
    base, numerator, normaliser, total = ips_terms(clicks, y_score, qid, propensity, metric, clip, ties)
    values, weights = impression_values(base, numerator, normaliser, total, estimator)
    if not average:
        return values
    return reported_means([numpy_mean_without_nan(values, weights)])[0]


def ips_interval(
    clicks,
    y_score,
    *,
    qid,
    propensity,
    metric="dcg@10",
    estimator="ips",
    clip=None,
    ties="average",
    confidence_level=0.95,
    n_resamples=2000,
    random_state=None,
):
    """Percentile bootstrap interval of :func:`ips_score`, resampling impressions.

    Parameters
    ----------
    clicks, y_score, qid, propensity, metric, estimator, clip, ties : see ips_score
        As in :func:`ips_score`.
    confidence_level : float, default=0.95
        Coverage of the interval, in (0, 1).
    n_resamples : int, default=2000
        Bootstrap resamples of the impressions.
    random_state : int, RandomState instance, numpy Generator or None, default=None
        Seeds the resampling.

    Returns
    -------
    low, high : float
        The interval's ends.

    See Also
    --------
    ips_score : The estimate itself.

    Notes
    -----
    Each resample draws as many impressions as the log defines the metric on,
    with replacement, and recomputes the estimate: the mean of their values
    for IPS, the ratio of their sums for SNIPS and psP@k (so the
    normaliser's own variability is in the interval). The interval is the
    resampled estimates' ``(1 - confidence_level) / 2`` and
    ``(1 + confidence_level) / 2`` quantiles (numpy's linear interpolation).
    Impressions are assumed independent and identically distributed; the
    propensities are taken as known (their estimation error is not in the
    interval).

    A log of more than 32,768 (:math:`2^{15}`) impressions is first split at
    random (by the seed) into 32,768 groups of equal size (within one), and
    the groups are resampled, each with the sums of its impressions' values
    and weights: a resample then costs the same whatever the log's size, so
    1M impressions take seconds in bounded memory. The groups' sums have the
    impressions' mean and variance (scaled), so the interval is the
    impressions' bootstrap up to the noise of estimating the spread from
    32,768 groups, small beside the noise of 2,000 resamples (the tests
    check a grouped interval against the plain one); at most 32,768
    impressions are resampled one by one. The same ``random_state`` gives
    the same interval.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics.counterfactual import ips_interval
    >>> rng = np.random.default_rng(0)
    >>> qid = np.repeat(np.arange(200), 3)
    >>> clicks = rng.random(600) < 0.3
    >>> propensity = np.tile([1.0, 0.5, 0.25], 200)
    >>> low, high = ips_interval(clicks, rng.random(600), qid=qid, propensity=propensity, metric="dcg@3",
    ...                          random_state=0)
    >>> bool(low < high)
    True
    """
    base, numerator, normaliser, total = ips_terms(clicks, y_score, qid, propensity, metric, clip, ties)
    values, weights = impression_values(base, numerator, normaliser, total, estimator)
    n_resamples, confidence_level, rng = check_resampling(n_resamples, confidence_level, random_state)
    kept = ~np.isnan(values)
    if not kept.any():
        raise ValueError(f"no impression defines {metric!r} (none has a click); no interval exists.")
    weights = np.ones(int(kept.sum())) if weights is None else weights[kept]
    sums, totals = bootstrap_units(values[kept] * weights, weights, rng)
    estimates = Resamples(n_resamples, rng).concatenate(
        lambda size, generator: resampled_ratios(sums, totals, size, generator)
    )
    tail = (1 - confidence_level) / 2
    low, high = np.quantile(estimates, [tail, 1 - tail])
    return float(low), float(high)


def bootstrap_units(sums, totals, rng):
    """What ips_interval resamples: the impressions' (weighted value, weight), or, beyond ``BOOTSTRAP_UNITS``
    impressions, the sums of ``BOOTSTRAP_UNITS`` groups that split the impressions at random (sizes within one)."""
    if len(sums) <= BOOTSTRAP_UNITS:
        return sums, totals
    group = np.empty(len(sums), dtype=np.int64)
    group[rng.permutation(len(sums))] = np.arange(len(sums)) % BOOTSTRAP_UNITS
    return (np.bincount(group, weights=values, minlength=BOOTSTRAP_UNITS) for values in (sums, totals))


def resampled_ratios(sums, totals, size, generator):
    """``size`` bootstrap resamples of the units: each the sum of the drawn ``sums`` over that of their ``totals``."""
    n_units, estimates = len(sums), np.empty(size)
    for start in range(0, size, 32):  # 32 resamples at a time: a few MB whatever the log
        drawn = generator.integers(0, n_units, size=(min(32, size - start), n_units))
        estimates[start : start + len(drawn)] = np.take(sums, drawn).sum(axis=1) / np.take(totals, drawn).sum(axis=1)
    return estimates
