"""The survival function of the studentized range, for every pair of a Tukey test at once.

``scipy.stats.studentized_range.sf`` integrates adaptively, one value at a
time (about 50 ms a value for 60 systems: the 1,770 pairs of 60 runs took
90 s). Here the same double integral is one fixed quadrature for all the
values:

.. math::

    P(Q > q) = \\int h(t)\\, R(q e^t)\\, dt, \\qquad
    R(x) = k \\int \\phi(z) \\left[\\Phi(z)^{k-1} - (\\Phi(z) - \\Phi(z - x))^{k-1}\\right] dz

with :math:`h` the density of :math:`t = \\log S`, :math:`S^2 = \\chi^2_\\nu / \\nu`, and :math:`R(x)` the chance
that the range of k standard normals exceeds x, written as its difference from :math:`k\\int\\phi\\Phi^{k-1} = 1`
so that small values keep their digits. Both integrals are Gauss-Legendre sums: z over [-10, 12], t over the
central :math:`1 - 10^{-15}` of :math:`\\log S` in panels. From 100,000 degrees of freedom S = 1, as scipy takes
it. The values equal scipy's to its own accuracy (absolute 1e-11; tests/stats/test_compare_stats.py compares them
over k, df and q, and with k = 2 against Student's t, which the studentized range of two means is).
"""

import numpy as np
from scipy import special, stats

Z_NODES, Z_RANGE = 192, (-10.0, 12.0)
PANEL, PANEL_NODES = 1.0, 16  # the widest panel of t, and its nodes
TAIL = 1e-15  # the chance of S left out, below and above the range of t
ASYMPTOTIC_DF = 100_000
CELLS_PER_BLOCK = 1 << 21  # (value, t, z) cells computed at a time


def gauss_legendre(n, low, high):
    """Gauss-Legendre nodes and weights of ``n`` points on [low, high]."""
    nodes, weights = np.polynomial.legendre.leggauss(n)
    half = (high - low) / 2
    return low + half * (nodes + 1), half * weights


def studentized_range_sf(q, k, df):
    """P(Q > q) of the studentized range of ``k`` means with ``df`` degrees of freedom, for an array ``q`` >= 0."""
    q = np.asarray(q, dtype=np.float64)
    z, z_weights = gauss_legendre(Z_NODES, *Z_RANGE)
    cdf_z = special.ndtr(z)
    weight_z = k * z_weights * np.exp(-(z**2) / 2) / np.sqrt(2 * np.pi) * cdf_z ** (k - 1)
    t, t_weights = log_scale_nodes(df)
    flat = q.reshape(-1)
    sf = np.empty(len(flat))
    rows = max(1, CELLS_PER_BLOCK // (len(t) * len(z)))
    for start in range(0, len(flat), rows):
        x = flat[start : start + rows, None, None] * np.exp(t)[None, :, None]
        below = np.minimum(special.ndtr(z - x) / cdf_z, 1.0)  # Phi(z - x) / Phi(z)
        with np.errstate(divide="ignore"):
            gap = -np.expm1((k - 1) * np.log1p(-below))  # 1 - (1 - below)^(k - 1)
        # Sums, not BLAS products, whose order of additions can depend on how many values share a block.
        sf[start : start + rows] = ((gap * weight_z).sum(axis=2) * t_weights).sum(axis=1)
    return np.clip(sf, 0.0, 1.0).reshape(q.shape)


def log_scale_nodes(df):
    """Nodes and weights (the density of t = log S included) over the central 1 - TAIL of t.

    Gauss-Legendre panels at most PANEL wide (R changes over about 1 in t,
    however far the range of a small ``df`` stretches) and at most three
    standard deviations of t, about :math:`1/\\sqrt{2 df}` (its density,
    for a large ``df``).
    """
    if df >= ASYMPTOTIC_DF:
        return np.zeros(1), np.ones(1)
    low, high = 0.5 * np.log(stats.chi2.ppf(TAIL / 2, df) / df), 0.5 * np.log(stats.chi2.isf(TAIL / 2, df) / df)
    width = min(PANEL, 3 / np.sqrt(2 * df))
    edges = np.linspace(low, high, int(np.ceil((high - low) / width)) + 1)
    nodes, weights = gauss_legendre(PANEL_NODES, 0.0, edges[1] - edges[0])  # one panel, moved to each start
    t = (edges[:-1, None] + nodes).ravel()
    weights = np.tile(weights, len(edges) - 1)
    half = df / 2
    log_density = np.log(2.0) + half * np.log(half) - special.gammaln(half) + df * t - half * np.exp(2 * t)
    return t, weights * np.exp(log_density)
