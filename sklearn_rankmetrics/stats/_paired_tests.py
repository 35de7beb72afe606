"""Paired tests on per-query differences, all pairs and metrics at once: randomization, t, Wilcoxon, bootstrap-t."""

import math
import warnings

import numpy as np
from scipy import stats

from .._core._parallel import sum_in_threads
from .._core._resampling import BLOCK
from .._core._tolerance import sum_tolerance, values_scale, without_rounding
from .._core._validation import plain
from .._core._warnings import warn

# With this many queries or fewer, the bootstrap test's p-value is at least the exact randomization test's, from
# all 2**n sign flips (8,192 at most): the bootstrap distribution of so few queries is too coarse to hold the level.
SMALL_BOOTSTRAP = 13


def pair_differences(system, baseline):
    """``system - baseline`` per query (along the last axis; rows are pairs), without the differences of rounding.

    Values equal up to rounding (:mod:`~sklearn_rankmetrics._core._tolerance`,
    at the scale of the two values of the query) give a difference of exactly
    0, and differences equal up to rounding are equal, so that every test,
    effect size and count of ties sees them as the same.
    """
    system, baseline = np.asarray(system, dtype=np.float64), np.asarray(baseline, dtype=np.float64)
    return without_rounding(system - baseline, scale=values_scale(np.stack([system, baseline]), axis=0))


def mean_difference(differences):
    """The mean of the differences along the last axis: exactly 0 where their sum is 0 up to its rounding."""
    n_queries = differences.shape[-1]
    sums = differences.sum(axis=-1)
    zero = np.abs(sums) <= sum_tolerance(n_queries, np.abs(differences).sum(axis=-1))
    return np.where(zero, 0.0, sums / max(n_queries, 1))


def effect_sizes(differences, deltas):
    """Cohen's d_z of each row of differences: its mean difference ``delta`` over its standard deviation.

    0 where the mean difference is 0 (identical systems on these queries, up
    to rounding); nan otherwise on fewer than two queries, where no standard
    deviation exists; ``±inf`` for equal non-zero differences (equal after
    :func:`pair_differences`, which makes differences equal up to rounding
    equal), whose standard deviation is 0: the limit of :math:`\\bar d / s_d`
    as the spread vanishes.
    """
    differences, deltas = np.atleast_2d(differences), np.asarray(deltas, dtype=np.float64)
    n_queries = differences.shape[-1]
    if n_queries < 2:
        return np.where(deltas == 0, 0.0, np.nan)
    constant = np.all(differences == differences[:, :1], axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):  # no spread: the infinite limit, set below
        effects = deltas / differences.std(axis=1, ddof=1)
        effects = np.where(constant, np.sign(differences[:, 0]) * np.inf, effects)
    return np.where(deltas == 0, 0.0, effects)


def paired_pvalues(differences, test, *, flips=None, moments=None):
    """Two-sided p-values of a zero mean difference, one per column of paired differences.

    ``differences`` come from :func:`pair_differences` (one column per pair).
    ``flips``: the sampled sign vectors of the randomization test (a
    ``Resamples``), None to enumerate them all. ``moments`` holds, for the
    bootstrap test, the bootstrap means of :func:`bootstrap_t_columns` (one
    row per resample). A mean difference of 0 (up to rounding: t = 0) gives
    p = 1 in the t-test, as it does in the resampling tests.
    """
    identical = np.all(differences == 0, axis=0)
    if test == "t-test":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # constant differences
            pvalues = stats.ttest_rel(differences, np.zeros_like(differences), axis=0).pvalue
        identical |= mean_difference(differences.T) == 0
    elif test == "wilcoxon":
        pvalues = np.array(
            [1.0 if same else stats.wilcoxon(d).pvalue for d, same in zip(differences.T, identical, strict=True)]
        )
    elif test == "bootstrap":
        pvalues = bootstrap_t_pvalues(differences, moments)
        if len(differences) <= SMALL_BOOTSTRAP:
            pvalues = np.maximum(pvalues, exact_randomization_counts(differences) / 2 ** len(differences))
    else:
        pvalues = randomization_pvalues(differences, flips)
    return np.where(identical, 1.0, np.nan_to_num(pvalues, nan=1.0)).tolist()


def bootstrap_t_columns(differences):
    """The columns whose bootstrap means the bootstrap-t test needs: the centred differences and their squares."""
    centred = differences - differences.mean(axis=0)
    return np.column_stack([centred, centred**2])


def bootstrap_t_pvalues(differences, moments):
    """Studentized bootstrap p-values: how often a resample's t statistic about the observed mean is as extreme.

    ``moments`` holds each resample's means of :func:`bootstrap_t_columns`
    (one row per resample): of the centred differences ``w = d - mean(d)``,
    and of ``w**2``. The statistic is the mean over the plug-in standard
    deviation, the t statistic divided by the constant ``sqrt(n - 1)``. A
    resample without spread (one query drawn n times, or only equal values)
    has an infinite or undefined statistic and counts as extreme: that keeps
    the test conservative with few queries, where such resamples are frequent.
    "Without spread" and "as extreme" are judged up to the rounding of the
    means of n terms (:func:`statistic_tolerance`).
    """
    n_queries = len(differences)
    means, squares = np.hsplit(moments, 2)
    mean = differences.mean(axis=0)
    variances = squares - means**2
    spread = variances > sum_tolerance(n_queries, squares)  # zero up to the rounding of the two means otherwise
    with np.errstate(divide="ignore", invalid="ignore"):  # no spread: an infinite (or undefined) statistic
        observed = np.abs(mean) / np.sqrt(np.mean((differences - mean) ** 2, axis=0))
        statistics = np.abs(means) / np.sqrt(np.where(spread, variances, 1.0))
    extreme = ~spread | at_least(statistics, observed, statistic_tolerance(n_queries, observed))
    return (1 + extreme.sum(axis=0)) / (1 + len(extreme))


def statistic_tolerance(n_queries, statistic):
    """How far the computed ``|mean| / spread`` of n values may fall from its exact value ``statistic`` (T).

    The mean carries :func:`sum_tolerance` of its terms, at most
    ``4 n eps * sqrt(mean of squares)``, and the variance, the mean of the
    squares less the squared mean, ``4 n eps`` times the mean of the squares,
    which is ``variance * (1 + T**2)``: together about ``4 n eps (1 + T)
    (1 + T**2)`` of the statistic's unit.
    """
    statistic = np.where(np.isfinite(statistic), statistic, 0.0)  # an infinite T: no rounding to allow for
    return sum_tolerance(n_queries, (1 + statistic) * (1 + statistic**2))


def smallest_pvalue(test, n_queries, n_resamples, n_systems):
    """The smallest p-value ``test`` can give on ``n_queries`` queries, why, and the fix; (0, None, None) if none.

    An enumerating test counts the observed outcome and those equivalent to
    it among all outcomes (a sign flip and its mirror image; a permutation
    of every query's values and its relabellings of the systems); a sampling
    one gives at least ``1 / (1 + n_resamples)``.
    """
    more_queries = "Compare on more queries, or use the t-test (or Tukey's HSD), which has no such floor."
    flips = 2**n_queries
    if test == "randomization" and flips <= n_resamples:
        reason = f"the observed signs and their mirror image are 2 of the 2 ** {n_queries} sign flips"
        return 2 / flips, reason, more_queries
    if test == "bootstrap" and n_queries <= SMALL_BOOTSTRAP:
        reason = (
            f"with {SMALL_BOOTSTRAP} queries or fewer it is at least the exact randomization test's, which counts 2 "
            f"of the 2 ** {n_queries} sign flips"
        )
        return 2 / flips, reason, more_queries
    if test == "randomized-tukey-hsd" and exact_permutations(n_queries, n_systems, n_resamples):
        count = math.factorial(n_systems) ** (n_queries - 1)
        reason = f"the observed values are 1 of the {count} distinct permutations of {n_systems} systems"
        return 1 / count, reason, more_queries
    if test in ("randomization", "bootstrap", "randomized-tukey-hsd"):
        reason = f"1 / (1 + n_resamples) with n_resamples={n_resamples}"
        return 1 / (1 + n_resamples), reason, "Use more resamples (n_resamples)."
    return 0.0, None, None


def exact_permutations(n_queries, n_systems, n_resamples):
    """Whether the randomised Tukey HSD enumerates every permutation: (k!) ** n of them fit in ``n_resamples``."""
    count = math.factorial(n_systems)
    return n_queries * math.log2(count) <= math.log2(n_resamples) + 1 and count**n_queries <= n_resamples


def warn_if_powerless(n_queries, test, alpha, metrics, n_resamples, n_systems):
    """Warn where a test cannot give a meaningful p-value: one query, or a p-value floor at alpha."""
    names = ", ".join(map(repr, metrics))
    if n_queries < 2:
        warn(
            f"compare_rankings compared {names} on {n_queries} quer{'y' if n_queries else 'ies'}: a paired test "
            "needs at least two, so every p-value is 1. Compare on more queries.",
            UserWarning,
        )
        return
    floor, reason, fix = smallest_pvalue(test, n_queries, n_resamples, n_systems)
    if floor >= alpha:
        warn(
            f"With {n_queries} queries the {test} test of {names} cannot reach p < {alpha!r}: its smallest p-value "
            f"is {floor:.3g} ({reason}). {fix}",
            UserWarning,
        )


def warn_if_constant(differences, metric, pairs):
    """Warn where the bootstrap test meets a difference without spread: equal and non-zero on every query.

    ``differences`` holds one column per pair of ``pairs`` (from
    :func:`pair_differences`: equal up to rounding is equal).
    """
    if len(differences) < 2:
        return
    constant = ~np.all(differences == 0, axis=0) & np.all(differences == differences[:1], axis=0)
    for column in np.flatnonzero(constant):
        a, b = pairs[column]
        warn(
            f"{plain(b)!r} minus {plain(a)!r} on {plain(metric)!r} is {differences[0, column]:g} on every query: "
            "without spread the bootstrap-t statistic is undefined and its p-value is 1. The randomization test "
            "gives an exact p-value for such differences.",
            UserWarning,
        )


def at_least(statistics, observed, tolerance):
    """Whether each resampled |statistic| reaches the observed one, up to ``tolerance`` for rounding."""
    return np.abs(statistics) >= np.abs(observed) - tolerance


def flip_tolerance(differences):
    """The rounding of the sums of sign-flipped ``differences`` (one column per pair): :func:`sum_tolerance`."""
    return sum_tolerance(len(differences), np.abs(differences).sum(axis=0))


def randomization_pvalues(differences, flips=None):
    """Sign-flip randomization: exact over all 2**n sign vectors (``flips=None``), or over ``flips`` sampled.

    A sign vector counts when the |sum| of its flipped differences reaches
    the observed |sum| up to :func:`flip_tolerance`, so sums equal in exact
    arithmetic count whatever their rounding. ``flips`` is a ``Resamples``:
    every block of columns given the same one is flipped by the same sign
    vectors.
    """
    n_queries = len(differences)
    if flips is None:
        return exact_randomization_counts(differences) / 2**n_queries
    observed, tolerance = differences.sum(axis=0), flip_tolerance(differences)

    def block(size, generator):
        return at_least(sampled_flips(size, generator, differences, observed), observed, tolerance).sum(axis=0)

    return (flips.sum(block) + 1) / (flips.n_resamples + 1)


def sampled_flips(size, generator, differences, observed):
    """The flipped sums of ``size`` random sign vectors: sum of s_i d_i with s = 2 b - 1, bits b from random bytes."""
    n_queries = len(differences)
    bits = np.unpackbits(generator.integers(0, 256, size=(size, (n_queries + 7) // 8), dtype=np.uint8), axis=1)
    return 2.0 * (bits[:, :n_queries].astype(np.float64) @ differences) - observed


def exact_randomization_counts(differences):
    """How many of the 2**n sign vectors give a sum at least as extreme as the observed one, per column.

    The vectors are enumerated in blocks of ``BLOCK`` (vector r flips the
    queries whose bit is set in r), a few blocks per thread at a time, their
    counts added as they come: memory stays small whatever n.
    """
    n_queries = len(differences)
    observed, tolerance = differences.sum(axis=0), flip_tolerance(differences)

    def block(start):
        return at_least(enumerated_flips(start, n_queries) @ differences, observed, tolerance).sum(axis=0)

    return sum_in_threads(block, range(0, 2**n_queries, BLOCK))


def enumerated_flips(start, n_queries):
    """Sign vectors ``start`` to ``start + BLOCK`` of the 2**n: vector r flips the queries whose bit is set in r."""
    vectors = np.arange(start, min(start + BLOCK, 2**n_queries))
    return 1.0 - 2.0 * ((vectors[:, None] >> np.arange(n_queries)) & 1)
