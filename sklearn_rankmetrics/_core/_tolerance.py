"""Equal up to rounding: the one tolerance that decides whether two computed values are the same.

Two systems whose rankings differ only in the order of documents of equal label
have mathematically equal metrics per query, yet a tie-averaged and a tie-free
summation leave differences of a few units in the last place (ulps): up to 18
ulps of the values' scale on queries of 3,000 documents (NDCG, DCG, AP; ERR,
nERR and RBP less). Every comparison of computed values (significance tests,
effect sizes, wins, ties and losses, the residual of ANOVA and Tukey's HSD,
"best" in tables, orderings of systems) treats values closer than
:data:`ULPS` ulps of their scale as equal, so that rounding never decides.

The scale is the largest absolute value among the values compared together
(the two systems' values of a query, for a paired difference; all the
systems' values of a metric, for a table's best mean or the residual of
Tukey's HSD): the tolerance is ``ULPS * eps * scale`` with ``eps = 2**-52``,
about ``5.7e-14 * scale``. Genuine differences between metric values are many
orders of magnitude larger (one swap of two documents at ranks 1,000 and 1,001
changes DCG by about 1e-5 of its value).

A sum of n values carries more rounding than the values themselves:
:func:`sum_tolerance` bounds it, for the statistics that compare sums (the
sign flips of the randomization test, the permuted means of the randomised
Tukey HSD, the bootstrap's moments).
"""

import numpy as np

# Units in the last place of the values' scale under which two values are equal: 14 times the largest rounding
# difference measured (18 ulps, tie-averaged against tie-free sums over 3,000 documents).
ULPS = 256
EPS = np.finfo(np.float64).eps


def rounding_tolerance(values, axis=None):
    """The tolerance of ``values``: ULPS ulps of their largest finite absolute value (along ``axis``); 0 if none."""
    values = np.abs(np.asarray(values, dtype=np.float64))
    largest = np.max(np.where(np.isfinite(values), values, 0.0), axis=axis, initial=0.0)
    return ULPS * EPS * (float(largest) if axis is None else largest)


def sum_tolerance(n_terms, magnitude):
    """How far apart two float sums of ``n_terms`` terms may fall when their exact values are equal.

    ``magnitude`` is the sum of the terms' absolute values. A float sum of n
    terms is off by at most ``n * eps / 2 * magnitude`` whatever the order of
    summation; a sign-flipped or reweighted sum (a matrix product) by about
    three times that: ``4 * n * eps * magnitude`` covers two such sums. A
    bound relative to the sum itself would not: when the exact sum is 0, the
    float one is rounding noise.
    """
    return 4 * n_terms * EPS * np.asarray(magnitude, dtype=np.float64)


def without_rounding(values, tolerance):
    """``values`` with the differences of rounding removed, along the last axis (a new array; NaN kept).

    Magnitudes within tolerance of each other become equal: sorted, a gap to
    the next of at most both their tolerances joins its group, and each
    group takes its smallest magnitude, or 0 where that is within its
    tolerance of 0; signs are kept. So paired differences of 0 up to
    rounding are 0 (ties), equal ones are equal (the same on every query: no
    spread; ranked as ties by the Wilcoxon test) and opposite ones cancel
    exactly. ``tolerance`` broadcasts to ``values``: a number, one per row
    (shape ``(..., 1)``) or one per value (each paired difference at its own
    query's scale).
    """
    values = np.array(values, dtype=np.float64)
    if values.size == 0:
        return values
    magnitudes = np.abs(values)
    order = np.argsort(magnitudes, axis=-1, kind="stable")  # NaN last
    ranked = np.take_along_axis(magnitudes, order, axis=-1)
    tolerance = np.take_along_axis(np.broadcast_to(np.asarray(tolerance, dtype=np.float64), values.shape), order, -1)
    starts = np.ones(ranked.shape, dtype=bool)
    starts[..., 1:] = ~(np.diff(ranked, axis=-1) <= np.minimum(tolerance[..., 1:], tolerance[..., :-1]))
    positions = np.broadcast_to(np.arange(ranked.shape[-1]), ranked.shape)
    first = np.maximum.accumulate(np.where(starts, positions, 0), axis=-1)
    grouped = np.take_along_axis(ranked, first, axis=-1)
    grouped[np.take_along_axis(ranked <= tolerance, first, axis=-1)] = 0.0
    np.put_along_axis(magnitudes, order, grouped, axis=-1)
    return np.where(magnitudes == 0, 0.0, np.copysign(magnitudes, values))


def equal_up_to_rounding(a, b, *, tolerance=None):
    """Whether ``a`` and ``b`` (broadcast) are equal up to rounding: within ``tolerance``, by default theirs."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if tolerance is None:
        tolerance = rounding_tolerance(np.concatenate([np.ravel(a), np.ravel(b)]))
    with np.errstate(invalid="ignore"):
        return (a == b) | (np.abs(a - b) <= tolerance)
