"""Multiple comparisons: Benjamini-Hochberg's false discovery rate, and Westfall-Young's step-down maxT.

maxT adjusts from the randomization test's own sign flips: every resample
flips the same queries in every (pair, metric) column, so the adjustment
carries the dependence between the columns (the pairs share systems, the
metrics share queries), which Bonferroni and Holm ignore.
"""

import numpy as np

from ._parallel import sum_in_threads
from ._resampling import BLOCK, resample_blocks

# Two studentized statistics closer than this, relative to the observed one, count as equal (rounding).
RELATIVE_TOLERANCE = 1e-12


def benjamini_hochberg(pvalues):
    """Benjamini-Hochberg's step-up adjustment (``fdr_bh``), capped at 1.

    The i-th smallest of m p-values becomes :math:`\\min_{j \\geq i}
    \\min(1, m\\, p_{(j)} / j)`, as statsmodels' ``multipletests(pvalues,
    method="fdr_bh")``: rejecting where it is below q keeps the expected share
    of false rejections among the rejections at most q, for independent or
    positively dependent tests.
    """
    pvalues = np.asarray(pvalues, dtype=np.float64)
    m = len(pvalues)
    order = np.argsort(pvalues, kind="stable")
    scaled = pvalues[order] * m / np.arange(1, m + 1)
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(np.minimum.accumulate(scaled[::-1])[::-1], 1.0)
    return adjusted


def studentized(sums, squares, counts):
    """|t| of the paired differences whose sum, sum of squares and number are given, for every sign flip.

    A flip keeps the sum of squares, so the t statistic of the flipped
    differences depends on their sum alone: :math:`|t| = |S| \\sqrt{n - 1} /
    \\sqrt{n\\,SS - S^2}`, increasing in :math:`|S|`. A column without
    spread (all its differences of one size and sign) has an infinite
    statistic; one of zeros, or of fewer than two queries, a statistic of 0.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        statistic = (
            np.abs(sums) * np.sqrt(np.maximum(counts - 1, 0)) / np.sqrt(np.maximum(counts * squares - sums**2, 0))
        )
    return np.where(np.isnan(statistic) | (counts < 2), 0.0, statistic)


def maxt_randomization(differences, counts, n_resamples, rng):
    """The sign-flip randomization p-values of each column, and their Westfall-Young step-down maxT adjustment.

    Parameters
    ----------
    differences : ndarray of shape (n_queries, n_columns)
        Paired per-query differences, 0 where a query is left out of a column.
    counts : ndarray of shape (n_columns,)
        The number of queries of each column.
    n_resamples : int
        Sign vectors drawn; all 2**n_queries of them when that many fit.
    rng : numpy Generator
        Draws the sign vectors exactly as :func:`randomization_pvalues` does,
        so that the raw p-values equal its own for the same generator.

    Returns
    -------
    raw, adjusted : ndarray of shape (n_columns,)

    Notes
    -----
    Westfall and Young's Algorithm 4.1 (1993), with the paired t statistic of
    each column as in Boytsov, Belova and Westfall (SIGIR 2013). The columns
    sorted by decreasing observed :math:`|t|`, column (i) counts the sign
    vectors where its own flipped sum is as extreme as the observed one (the
    raw test's event) or where the largest flipped :math:`|t|` among the
    columns after it reaches its observed :math:`|t|`; then the adjusted
    p-values are made non-decreasing in that order. Each count includes the
    raw one, so an adjusted p-value is never below the raw p-value.
    """
    from ._compare import at_least, sum_tolerance

    n_queries = len(differences)
    observed, tolerance = differences.sum(axis=0), sum_tolerance(differences)
    squares = (differences**2).sum(axis=0)
    order = np.argsort(-studentized(observed, squares, counts), kind="stable")
    threshold = studentized(observed, squares, counts)[order] * (1 - RELATIVE_TOLERANCE)

    def counts_of(flipped):
        """Per column: the sign vectors as extreme for the raw test, and for the step-down maxT."""
        own = at_least(flipped, observed, tolerance)
        statistics = studentized(flipped, squares, counts)[:, order]
        # The largest statistic among the columns after each one (in decreasing observed |t|), -1 after the last.
        after = np.maximum.accumulate(statistics[:, ::-1], axis=1)[:, ::-1]
        after = np.column_stack([after[:, 1:], np.full(len(after), -1.0)])
        stepped = own[:, order] | (after >= threshold)
        return np.stack([own.sum(axis=0), stepped.sum(axis=0)])

    if 2**n_queries <= n_resamples:
        bits = np.arange(n_queries)

        def block(start):
            vectors = np.arange(start, min(start + BLOCK, 2**n_queries))
            signs = 1.0 - 2.0 * ((vectors[:, None] >> bits) & 1)
            return counts_of(signs @ differences)

        own, stepped = sum_in_threads(block, range(0, 2**n_queries, BLOCK))
        raw, step = own / 2**n_queries, stepped / 2**n_queries
    else:

        def block(size, generator):
            # The draws of randomization_pvalues: sum of s_i d_i with signs s = 2 b - 1 from random bits b.
            bits = np.unpackbits(generator.integers(0, 256, size=(size, (n_queries + 7) // 8), dtype=np.uint8), axis=1)
            return counts_of(2.0 * (bits[:, :n_queries].astype(np.float64) @ differences) - observed)[None]

        own, stepped = resample_blocks(n_resamples, rng, block).sum(axis=0)
        raw, step = (own + 1) / (n_resamples + 1), (stepped + 1) / (n_resamples + 1)
    adjusted = np.empty_like(raw)
    adjusted[order] = np.maximum.accumulate(step)
    return raw, adjusted
