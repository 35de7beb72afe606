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
(all systems' values of one metric): the tolerance is
``ULPS * eps * scale`` with ``eps = 2**-52``, about ``5.7e-14 * scale``.
Genuine differences between metric values are many orders of magnitude larger
(one swap of two documents at ranks 1,000 and 1,001 changes DCG by about 1e-5
of its value).
"""

import numpy as np

# Units in the last place of the values' scale under which two values are equal: 14 times the largest rounding
# difference measured (18 ulps, tie-averaged against tie-free sums over 3,000 documents).
ULPS = 256


def rounding_tolerance(values):
    """The tolerance of ``values`` (any shape): ULPS ulps of their largest finite absolute value; 0 if none."""
    values = np.abs(np.asarray(values, dtype=np.float64))
    finite = values[np.isfinite(values)]
    return float(ULPS * np.finfo(np.float64).eps * finite.max()) if finite.size else 0.0


def without_rounding(differences, tolerance):
    """``differences`` with those within ``tolerance`` of zero made exactly zero (a new array; NaN kept)."""
    differences = np.array(differences, dtype=np.float64)
    differences[np.abs(differences) <= tolerance] = 0.0
    return differences


def equal_up_to_rounding(a, b, *, tolerance=None):
    """Whether ``a`` and ``b`` (broadcast) are equal up to rounding: within ``tolerance``, by default theirs."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if tolerance is None:
        tolerance = rounding_tolerance(np.concatenate([np.ravel(a), np.ravel(b)]))
    with np.errstate(invalid="ignore"):
        return (a == b) | (np.abs(a - b) <= tolerance)
