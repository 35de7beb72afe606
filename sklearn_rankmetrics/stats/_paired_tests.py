"""Paired tests on per-query differences, all pairs and metrics at once: randomization, t, Wilcoxon, bootstrap-t."""

import math
import warnings

import numpy as np
from scipy import stats

from .._core._parallel import sum_in_threads
from .._core._resampling import BLOCK, resample_blocks
from .._core._validation import plain
from .._core._warnings import warn

# With this many queries or fewer, the bootstrap test's p-value is at least the exact randomization test's, from
# all 2**n sign flips (8,192 at most): the bootstrap distribution of so few queries is too coarse to hold the level.
SMALL_BOOTSTRAP = 13


def effect_size(d):
    """Cohen's d_z: the mean paired difference over its standard deviation.

    0 when every difference is 0 (identical systems on these queries); nan
    otherwise on fewer than two queries, where no standard deviation exists;
    ``±inf`` for equal non-zero differences, whose standard deviation is 0:
    the limit of :math:`\\bar d / s_d` as the spread vanishes.
    """
    if len(d) and not d.any():
        return 0.0
    if len(d) < 2:
        return np.nan
    if np.all(d == d[0]):  # exactly: the float standard deviation of equal values may be rounding noise
        return float(np.sign(d[0]) * np.inf)
    return float(d.mean() / d.std(ddof=1))


def paired_pvalues(differences, test, n_resamples, rng, moments):
    """Two-sided p-values of a zero mean difference, one per column of paired differences.

    ``moments`` holds, for the bootstrap test, the bootstrap means of the
    centred differences and of their squares (one row per resample).
    """
    identical = np.all(differences == 0, axis=0)
    if test == "t-test":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # constant differences
            pvalues = stats.ttest_rel(differences, np.zeros_like(differences), axis=0).pvalue
    elif test == "wilcoxon":
        pvalues = np.array(
            [1.0 if same else stats.wilcoxon(d).pvalue for d, same in zip(differences.T, identical, strict=True)]
        )
    elif test == "bootstrap":
        pvalues = bootstrap_t_pvalues(differences, moments)
        if len(differences) <= SMALL_BOOTSTRAP:
            pvalues = np.maximum(pvalues, exact_randomization_counts(differences) / 2 ** len(differences))
    else:
        pvalues = randomization_pvalues(differences, n_resamples, rng)
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
    """
    means, squares = np.hsplit(moments, 2)
    mean = differences.mean(axis=0)
    variances = squares - means**2
    spread = variances > 1e-12 * squares  # zero up to rounding otherwise
    with np.errstate(divide="ignore", invalid="ignore"):  # no spread: an infinite (or undefined) statistic
        observed = np.abs(mean) / np.sqrt(np.mean((differences - mean) ** 2, axis=0))
        statistics = np.abs(means) / np.sqrt(np.where(spread, variances, 1.0))
    extreme = ~spread | (statistics >= observed * (1 - 1e-12))  # as large up to rounding
    return (1 + extreme.sum(axis=0)) / (1 + len(extreme))


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


def warn_if_powerless(differences, test, alpha, metrics, pairs, n_resamples, n_systems):
    """Warn where a test cannot give a meaningful p-value: one query, a p-value floor at alpha, no spread."""
    n_queries = len(differences)
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
    if test != "bootstrap":
        return
    constant = ~np.all(differences == 0, axis=0) & np.all(differences == differences[:1], axis=0)
    for column in np.flatnonzero(constant):
        metric, (a, b) = metrics[column // len(pairs)], pairs[column % len(pairs)]
        warn(
            f"{plain(b)!r} minus {plain(a)!r} on {plain(metric)!r} is {differences[0, column]:g} on every query: "
            "without spread the bootstrap-t statistic is undefined and its p-value is 1. The randomization test "
            "gives an exact p-value for such differences.",
            UserWarning,
        )


def at_least(statistics, observed, tolerance):
    """Whether each resampled |statistic| reaches the observed one, up to ``tolerance`` for rounding."""
    return np.abs(statistics) >= np.abs(observed) - tolerance


def sum_tolerance(differences):
    """How far apart two float sums of ``±d_i`` over the queries may fall when their exact values are equal.

    A float sum of n terms is off by at most ``n * eps / 2 * sum|d_i|``;
    a sign-flipped sum (``2 * b @ d - sum(d)``) by about three times that,
    and the observed sum by once that. ``4 * n * eps * sum|d_i|`` covers
    both, whatever the order of summation. A bound relative to the observed
    sum would not: when the exact mean difference is 0, the float one is
    rounding noise, and every sign vector must count.
    """
    return 4 * len(differences) * np.finfo(np.float64).eps * np.abs(differences).sum(axis=0)


def randomization_pvalues(differences, n_resamples, rng):
    """Sign-flip randomization: exact over all 2**n sign vectors when that many fit in ``n_resamples``.

    A sign vector counts when the |sum| of its flipped differences reaches
    the observed |sum| up to :func:`sum_tolerance`, so sums equal in exact
    arithmetic count whatever their rounding.
    """
    n_queries = len(differences)
    if 2**n_queries <= n_resamples:
        return exact_randomization_counts(differences) / 2**n_queries
    observed, tolerance = differences.sum(axis=0), sum_tolerance(differences)

    def block(size, generator):
        # Sum of s_i d_i with random signs s = 2 b - 1: 2 (b @ d) - sum(d), with bits b from random bytes.
        bits = np.unpackbits(generator.integers(0, 256, size=(size, (n_queries + 7) // 8), dtype=np.uint8), axis=1)
        flipped = 2.0 * (bits[:, :n_queries].astype(np.float64) @ differences) - observed
        return at_least(flipped, observed, tolerance)

    count = resample_blocks(n_resamples, rng, block).sum(axis=0)
    return (count + 1) / (n_resamples + 1)


def exact_randomization_counts(differences):
    """How many of the 2**n sign vectors give a sum at least as extreme as the observed one, per column.

    The vectors are enumerated in blocks of ``BLOCK`` (vector r flips the
    queries whose bit is set in r), a few blocks per thread at a time, their
    counts added as they come: memory stays small whatever n.
    """
    n_queries = len(differences)
    observed, tolerance = differences.sum(axis=0), sum_tolerance(differences)
    bits = np.arange(n_queries)

    def block(start):
        vectors = np.arange(start, min(start + BLOCK, 2**n_queries))
        signs = 1.0 - 2.0 * ((vectors[:, None] >> bits) & 1)
        return at_least(signs @ differences, observed, tolerance).sum(axis=0)

    return sum_in_threads(block, range(0, 2**n_queries, BLOCK))
