"""Multiple comparisons: Benjamini-Hochberg's false discovery rate, and Westfall-Young's step-down adjustment.

The Westfall-Young adjustment (``correction="maxT"``) uses the randomization
test's own sign flips: every resample flips the same queries in every
(pair, metric) column, so the adjustment carries the dependence between the
columns (the pairs share systems, the metrics share queries), which
Bonferroni and Holm ignore.
"""

import numpy as np

from .._core._parallel import map_in_threads
from .._core._resampling import BLOCK, Resamples
from ._paired_tests import at_least, enumerated_flips, flip_tolerance, pair_differences, sampled_flips


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


def maxt_randomization(differences, flips=None):
    """The sign-flip randomization p-values of each column, and their Westfall-Young step-down adjustment.

    Parameters
    ----------
    differences : ndarray of shape (n_queries, n_columns)
        Paired per-query differences, 0 where a query is left out of a column
        (no flip changes a 0).
    flips : Resamples, default=None
        The sign vectors to sample, drawn as :func:`randomization_pvalues`
        draws them, so that the raw p-values equal its own for the same
        resamples; None: all 2**n_queries of them.

    Returns
    -------
    raw, adjusted : ndarray of shape (n_columns,)

    Notes
    -----
    The reference set is the observed sign vector and the resampled ones
    (every vector when enumerated). In it, each vector's flipped sum gets its
    own column's p-value, the share of the set as extreme: the statistic
    standardized by its column's randomization distribution, so that columns
    of unlike distributions (differences tied at 0 on most queries beside
    continuous ones) meet on one scale. With the columns sorted by raw
    p-value, column (i) counts the vectors of the set where its own flipped
    sum is as extreme as observed (the raw test's event) or where the
    smallest standardized p-value among the columns after it reaches its raw
    p-value (Westfall and Young's successive extremes, their Algorithm 2.8);
    the adjusted p-values are then made non-decreasing in that order. Each
    count includes the raw one, and the columns after (i) add at most the
    raw count each, so ``raw <= adjusted <= Holm's <= Bonferroni's``.
    Memory: two (vectors x columns) arrays.
    """
    n_queries = len(differences)
    observed, tolerance = differences.sum(axis=0), flip_tolerance(differences)
    if flips is None:
        starts = range(0, 2**n_queries, BLOCK)
        reference = np.concatenate(
            map_in_threads(lambda start: enumerated_flips(start, n_queries) @ differences, starts)
        )
    else:

        def block(size, generator):
            return sampled_flips(size, generator, differences, observed)

        reference = np.vstack([observed, flips.concatenate(block)])
    own = at_least(reference, observed, tolerance)  # as extreme as observed: the raw test's count
    raw_counts = own.sum(axis=0)
    # Each vector's count in its column: how many vectors of the set are as extreme as it is.
    magnitudes = np.abs(reference)
    ranked = np.sort(magnitudes, axis=0)
    counts = np.column_stack(
        [
            len(reference) - np.searchsorted(ranked[:, j], magnitudes[:, j] - tolerance[j], side="left")
            for j in range(reference.shape[1])
        ]
    )
    order = np.argsort(raw_counts, kind="stable")
    successive = np.minimum.accumulate(counts[:, order][:, ::-1], axis=1)[:, ::-1]
    after = np.column_stack([successive[:, 1:], np.full(len(reference), len(reference) + 1)])
    stepped = (own[:, order] | (after <= raw_counts[order])).sum(axis=0)
    adjusted = np.empty(len(observed))
    adjusted[order] = np.maximum.accumulate(stepped / len(reference))
    return raw_counts / len(reference), adjusted


def adjust(rows, correction, *, by_pair=False):
    """Set ``pvalue_adjusted`` of the rows of a pair, across all the (pair, metric) rows tested.

    ``by_pair``: across the metrics of each pair only (a Tukey test has
    already adjusted over the pairs).
    """
    families = {}
    for row in rows:
        if row["baseline"] is not None:
            families.setdefault((row["baseline"], row["system"]) if by_pair else None, []).append(row)
    for tested in families.values():
        pvalues = np.array([row["pvalue"] for row in tested])
        adjusted = benjamini_hochberg(pvalues) if correction == "fdr_bh" else holm_bonferroni(pvalues, correction)
        for row, value in zip(tested, adjusted, strict=True):
            row["pvalue_adjusted"] = float(value)


def adjust_maxt(rows, reports, defined_queries, n_resamples, rng):
    """Set both p-values of the tested rows from one randomization of every (pair, metric) with maxT.

    The sign vectors flip the queries any metric defines; a query a metric
    leaves out has a difference of 0 in its columns, which no flip changes.
    The differences are :func:`pair_differences` (equal up to rounding is
    equal), as the other tests see them.
    """
    tested = [row for row in rows if row["baseline"] is not None]
    if not tested:
        return
    queries = np.any(list(defined_queries.values()), axis=0)
    columns = []
    for row in tested:
        defined = defined_queries[row["metric"]]
        d = np.zeros(len(defined))
        d[defined] = pair_differences(
            reports[row["system"]][row["metric"]][defined], reports[row["baseline"]][row["metric"]][defined]
        )
        columns.append(d[queries])
    flips = Resamples(n_resamples, rng) if 2 ** int(queries.sum()) > n_resamples else None
    raw, adjusted = maxt_randomization(np.column_stack(columns), flips)
    for row, pvalue, value in zip(tested, raw, adjusted, strict=True):
        row["pvalue"], row["pvalue_adjusted"] = float(pvalue), float(value)


def holm_bonferroni(pvalues, correction):
    """Bonferroni (each p times the number of tests) or Holm's step-down adjustment, capped at 1."""
    m = len(pvalues)
    if correction is None:
        return pvalues
    if correction == "bonferroni":
        return np.minimum(pvalues * m, 1.0)
    order = np.argsort(pvalues, kind="stable")
    stepped = np.maximum.accumulate(pvalues[order] * (m - np.arange(m)))
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted
