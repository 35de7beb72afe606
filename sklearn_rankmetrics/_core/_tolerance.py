"""Equal up to rounding is equal: the one tolerance that decides when two computed values are the same number.

Two systems whose rankings differ only in the order of equally labelled
documents have mathematically equal metrics, yet summing the same numbers in
another order leaves them a few units in the last place (ulps) apart:
0.5400000000000001 and 0.5399999999999999. Whatever compares computed
values (ties between system scores, the sign of a difference, "the best")
asks this module, so that one documented rule holds everywhere.
"""

import numpy as np

# Values closer than this many ulps of their scale are equal: the roundings of a sum or a mean taken in another
# order (numpy sums pairwise: a few ulps for any length), with room to spare.
TIE_ULPS = 16
EPSILON = np.finfo(np.float64).eps


def rounding_tolerance(scale):
    """The largest gap between two values of magnitude up to ``scale`` that is rounding: ``TIE_ULPS * eps * scale``.

    ``eps`` is float64's machine epsilon (2.2e-16), the gap between 1.0 and
    the next float: 16 ulps of values of scale 1 is about 3.6e-15.
    """
    return TIE_ULPS * EPSILON * np.abs(np.asarray(scale, dtype=np.float64))


def values_scale(values):
    """The scale of an array of values: its largest finite magnitude (0.0 for none)."""
    values = np.asarray(values, dtype=np.float64)
    finite = np.abs(values[np.isfinite(values)])
    return float(finite.max()) if finite.size else 0.0


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
        True where :math:`|a - b| \\leq 16\\,\\varepsilon\\,\\mathrm{scale}`;
        NaN is equal to nothing, and infinities only to themselves.
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if scale is None:
        scale = np.maximum(np.abs(a), np.abs(b))
    with np.errstate(invalid="ignore"):
        gap = np.abs(a - b)
        return (a == b) | (np.isfinite(gap) & (gap <= rounding_tolerance(scale)))


def round_ties(values, *, scale=None):
    """A copy of ``values`` where values equal up to rounding are made exactly equal.

    The values are sorted; a gap between neighbours of at most the tolerance
    (:func:`rounding_tolerance` of ``scale``, by default the largest finite
    magnitude of ``values``) joins them into one block, and every value of a
    block becomes the block's smallest. Order between blocks is kept, so
    ranks computed afterwards treat rounding noise as a tie. NaN stays NaN.

    Parameters
    ----------
    values : array-like of float, 1-D
    scale : float, default=None

    Returns
    -------
    rounded : ndarray of float64
    """
    values = np.array(values, dtype=np.float64)  # a copy: the input is never modified
    if values.size < 2:
        return values
    tolerance = rounding_tolerance(values_scale(values) if scale is None else scale)
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    with np.errstate(invalid="ignore"):
        starts = np.concatenate(([True], ~(np.diff(ordered) <= tolerance)))
    first = np.maximum.accumulate(np.where(starts, np.arange(len(ordered)), 0))
    values[order] = ordered[first]
    return values
