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
where the scale is the largest magnitude among the values compared together
(all systems' values of one metric). Genuine differences between metric
values are many orders of magnitude larger (one swap of two documents at ranks
1,000 and 1,001 changes DCG by about 1e-5 of its value).
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


def without_rounding(differences, *, scale):
    """A copy of ``differences`` (of values of magnitude up to ``scale``) with the rounding ones made exactly 0."""
    differences = np.array(differences, dtype=np.float64)
    differences[np.abs(differences) <= rounding_tolerance(scale)] = 0.0
    return differences
