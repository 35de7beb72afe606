"""Equal up to rounding is equal: the one tolerance that decides when two computed values are the same number.

Two systems whose rankings differ only in the order of equally labelled
documents have mathematically equal metrics, yet a tie-averaged and a tie-free
summation leave them a few units in the last place (ulps) apart:
0.5400000000000001 and 0.5399999999999999. Measured: up to 18 ulps of the
values' scale on queries of 3,000 documents (NDCG, DCG, AP; ERR, nERR and RBP
less), and a few ulps for a mean taken in another order. Whatever compares
computed values (significance tests, effect sizes, wins, ties and losses, the
residual of ANOVA and Tukey's HSD, "best" in tables, ties between system
scores, orderings of systems) asks this module, so that one documented rule
holds everywhere and rounding never decides.

The rule: two values are equal when they differ by at most
``TIE_ULPS * eps * scale`` (``eps = 2**-52``), about ``5.7e-14 * scale``,
where the scale is that of the two values compared: their own larger
magnitude (two systems' means; for a paired difference on a query, the two
values of that query). One huge value elsewhere in a vector changes nothing:
1e-16 and 2e-16 are distinct next to 1e15. Genuine differences between
metric values are many orders of magnitude larger (one swap of two documents
at ranks 1,000 and 1,001 changes DCG by about 1e-5 of its value).

A sum of n values carries more rounding than the values themselves:
:func:`sum_tolerance` bounds it, for the statistics that compare sums (the
sign flips of the randomization test, the permuted means of the randomised
Tukey HSD, the bootstrap's moments, a mean difference of 0).
"""

import numpy as np

# Values closer than this many ulps of their scale are equal: 14 times the largest rounding difference measured
# (18 ulps, tie-averaged against tie-free sums over 3,000 documents).
TIE_ULPS = 256
EPSILON = np.finfo(np.float64).eps


def rounding_tolerance(scale):
    """The largest gap between two values of magnitude up to ``scale`` that is rounding: ``TIE_ULPS * eps * scale``.

    ``eps`` is float64's machine epsilon (2.2e-16), the gap between 1.0 and
    the next float: 256 ulps of values of scale 1 is about 5.7e-14.
    """
    return TIE_ULPS * EPSILON * np.abs(np.asarray(scale, dtype=np.float64))


def values_scale(values, axis=None):
    """The scale of an array of values: its largest finite magnitude (0.0 for none), along ``axis`` if given."""
    values = np.abs(np.asarray(values, dtype=np.float64))
    largest = np.max(np.where(np.isfinite(values), values, 0.0), axis=axis, initial=0.0)
    return float(largest) if axis is None else largest


def sum_tolerance(n_terms, magnitude):
    """How far apart two float sums of ``n_terms`` terms may fall when their exact values are equal.

    ``magnitude`` is the sum of the terms' absolute values. A float sum of n
    terms is off by at most ``n * eps / 2 * magnitude`` whatever the order of
    summation; a sign-flipped or reweighted sum (a matrix product) by about
    three times that: ``4 * n * eps * magnitude`` covers two such sums. A
    bound relative to the sum itself would not: when the exact sum is 0, the
    float one is rounding noise.
    """
    return 4 * n_terms * EPSILON * np.asarray(magnitude, dtype=np.float64)


def equal_up_to_rounding(a, b, *, scale=None):
    """Whether ``a`` and ``b`` are equal up to rounding, elementwise.

    Parameters
    ----------
    a, b : array-like of float
        Values to compare (broadcast together).
    scale : float, default=None
        The scale of the values compared; None: the larger magnitude of
        ``a`` and ``b``, elementwise. Pass the scale of the whole set of
        values (:func:`values_scale`) when comparing differences of them.

    Returns
    -------
    equal : ndarray of bool
        True where :math:`|a - b| \\leq 256\\,\\varepsilon\\,\\mathrm{scale}`;
        NaN is equal to nothing, and infinities only to themselves.
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if scale is None:
        scale = np.maximum(np.abs(a), np.abs(b))
    with np.errstate(invalid="ignore"):
        gap = np.abs(a - b)
        return (a == b) | (np.isfinite(gap) & (gap <= rounding_tolerance(scale)))


def round_ties(values, *, scale=None):
    """A copy of ``values`` where values equal up to rounding are made exactly equal, along the last axis.

    The values are sorted; two neighbours join one block when their gap is
    within both their tolerances (:func:`rounding_tolerance` of their
    scales), and every value of a block becomes the block's smallest. Order
    between blocks is kept, so ranks computed afterwards treat rounding noise
    as a tie. NaN stays NaN.

    Parameters
    ----------
    values : array-like of float
        1-D, or rows of values (each row on its own).
    scale : float or array-like, default=None
        Broadcast to ``values``: one scale for all, one per row (shape
        ``(..., 1)``) or one per value. None: each value's own magnitude, so
        that two neighbours are judged at their own scale (equal up to
        rounding as :func:`equal_up_to_rounding` of the two), whatever the
        other values.

    Returns
    -------
    rounded : ndarray of float64
    """
    values = np.array(values, dtype=np.float64)  # a copy: the input is never modified
    if values.shape[-1:] in ((), (0,), (1,)):
        return values
    scale = np.abs(values) if scale is None else scale
    tolerance = np.broadcast_to(rounding_tolerance(scale), values.shape)
    order = np.argsort(values, axis=-1, kind="stable")  # NaN last
    ordered = np.take_along_axis(values, order, axis=-1)
    tolerance = np.take_along_axis(tolerance, order, axis=-1)
    starts = np.ones(ordered.shape, dtype=bool)
    with np.errstate(invalid="ignore"):
        starts[..., 1:] = ~(np.diff(ordered, axis=-1) <= np.minimum(tolerance[..., 1:], tolerance[..., :-1]))
    positions = np.broadcast_to(np.arange(ordered.shape[-1]), ordered.shape)
    first = np.maximum.accumulate(np.where(starts, positions, 0), axis=-1)
    np.put_along_axis(values, order, np.take_along_axis(ordered, first, axis=-1), axis=-1)
    return values


def without_rounding(differences, *, scale):
    """A copy of ``differences`` (of values of magnitude up to ``scale``) without the differences of rounding.

    Along the last axis, magnitudes equal up to rounding become equal
    (:func:`round_ties` of the magnitudes: each takes its block's smallest)
    and those of a block that reaches 0 within the tolerance become 0; signs
    are kept. So paired differences of 0 up to rounding are 0 (ties), equal
    ones are equal (the same on every query: no spread; ranked as ties by
    the Wilcoxon test) and opposite ones cancel exactly. ``scale``
    broadcasts as in :func:`round_ties`: each paired difference may take the
    scale of its own query's two values. NaN stays NaN.
    """
    differences = np.array(differences, dtype=np.float64)
    if differences.size == 0:
        return differences
    magnitudes = round_ties(np.abs(differences), scale=scale)
    with np.errstate(invalid="ignore"):
        magnitudes[magnitudes <= rounding_tolerance(np.broadcast_to(scale, magnitudes.shape))] = 0.0
    return np.where(magnitudes == 0, 0.0, np.copysign(magnitudes, differences))
