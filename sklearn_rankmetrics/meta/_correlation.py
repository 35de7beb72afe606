"""Correlations of two sets of scores of the same systems (or queries): Kendall, Spearman, Pearson and tau_AP.

Scores equal up to rounding are tied (:func:`round_ties`): two means that
differ by a few ulps are one score, not an ordering. The statistics and
p-values of Kendall, Spearman and Pearson are scipy.stats' own, on the
scores so rounded.
"""

import numpy as np
from scipy import stats

from .._core._tolerance import round_ties
from .._core._validation import check_option
from .._core._warnings import warn
from ._inputs import paired_scores
from ._results import CorrelationResult

VARIANTS = ("a", "b", "c")
# Cells of the (systems x systems) comparisons of tau_AP held at a time.
CHUNK = 2**22


def warn_if_constant(x, y, names):
    """Warn, and say so, when either set of scores is constant: the correlation is then undefined (nan)."""
    for name, values in zip(names, (x, y), strict=True):
        if np.all(values == values[0]):
            warn(
                f"{name} holds {len(values)} scores that are all the same (up to rounding): scores that all tie have "
                "no ordering to correlate, so the correlation is nan.",
                UserWarning,
            )
            return True
    return False


def kendall_tau(x, y, *, variant="b", metric=None):
    """Compute Kendall's rank correlation of two sets of scores of the same systems.

    Parameters
    ----------
    x, y : array-like of shape (n_systems,), mapping, Series, DataFrame or RankingComparison
        The scores of the same systems by two evaluations (a higher score
        ranks first): two arrays in the same order of systems, or two
        mappings ``{system: score}`` (pandas Series indexed by system; a
        DataFrame of one row per system; a :class:`RankingComparison`, its
        systems' means), aligned by system name.
    variant : {"a", "b", "c"}, default="b"
        Kendall's tau-a, which ignores ties (:math:`(C - D) / \\binom{n}{2}`),
        tau-b, which corrects for them (scipy's default), or Stuart's tau-c.
    metric : str, default=None
        The column of a DataFrame, or the metric of a RankingComparison,
        whose scores to correlate; None: the only (or first) one.

    Returns
    -------
    result : CorrelationResult
        ``statistic`` (tau, in [-1, 1]; nan when either set of scores is
        constant, with a warning), ``pvalue`` (two-sided, of no
        association) and ``confidence_interval()``.

    See Also
    --------
    ordering_agreement : Tau with tau_AP, Spearman, RBO and the pairs that swap.
    tau_ap : The top-weighted correlation.
    scipy.stats.kendalltau : The same statistic and p-value.

    Notes
    -----
    With C concordant and D discordant pairs of systems, and :math:`n_x`,
    :math:`n_y` the pairs tied in x and in y, of :math:`n_0 = \\binom{n}{2}`,

    .. math:: \\tau_a = \\frac{C - D}{n_0}, \\qquad
              \\tau_b = \\frac{C - D}{\\sqrt{(n_0 - n_x)(n_0 - n_y)}}.

    Scores equal up to rounding (256 ulps of the largest score, the library's one tolerance) are tied
    before counting. tau-b, tau-c and the p-value are those of
    ``scipy.stats.kendalltau`` on the scores so rounded (exact for small n
    without ties, else the normal approximation with the tie-corrected
    variance). The p-value tests :math:`C - D = 0`, so it is the same for
    every variant.

    Examples
    --------
    >>> from sklearn_rankmetrics.meta import kendall_tau
    >>> human = {"bm25": 0.31, "dense": 0.40, "splade": 0.43, "rm3": 0.33}
    >>> llm = {"bm25": 0.52, "dense": 0.61, "splade": 0.60, "rm3": 0.55}
    >>> round(kendall_tau(human, llm).statistic, 4)  # one of the 6 pairs swaps: (5 - 1) / 6
    0.6667
    """
    variant = check_option("variant", variant, VARIANTS)
    _, x, y = paired_scores(x, y, metric=metric)
    x, y = round_ties(x), round_ties(y)
    if warn_if_constant(x, y, ("x", "y")):
        return CorrelationResult(np.nan, np.nan, "kendall", len(x), variant)
    result = stats.kendalltau(x, y, variant="c" if variant == "c" else "b")
    statistic = float(result.statistic)
    if variant == "a":
        pairs = len(x) * (len(x) - 1) / 2
        statistic *= np.sqrt((pairs - tied_pairs(x)) * (pairs - tied_pairs(y))) / pairs
    return CorrelationResult(statistic, float(result.pvalue), "kendall", len(x), variant)


def tied_pairs(values):
    """The number of pairs of equal values."""
    counts = np.unique(values, return_counts=True)[1].astype(np.float64)
    return float((counts * (counts - 1) / 2).sum())


def spearman_rho(x, y, *, metric=None):
    """Compute Spearman's rank correlation of two sets of scores of the same systems (or queries).

    Parameters
    ----------
    x, y : array-like of shape (n_systems,), mapping, Series, DataFrame or RankingComparison
        The scores of the same systems, as for :func:`kendall_tau`.
    metric : str, default=None
        The column of a DataFrame, or the metric of a RankingComparison; None:
        the only (or first) one.

    Returns
    -------
    result : CorrelationResult
        ``statistic`` (rho, in [-1, 1]; nan for constant scores, with a
        warning), ``pvalue`` and ``confidence_interval()``.

    See Also
    --------
    kendall_tau : The rank correlation that counts pairs.
    scipy.stats.spearmanr : The same statistic and p-value.

    Notes
    -----
    Pearson's correlation of the ranks, ties given their average rank,
    after scores equal up to rounding are tied; statistic and p-value (the
    t distribution with n - 2 degrees of freedom) are
    ``scipy.stats.spearmanr``'s.

    Examples
    --------
    >>> from sklearn_rankmetrics.meta import spearman_rho
    >>> round(spearman_rho([0.31, 0.40, 0.43, 0.33], [0.52, 0.61, 0.60, 0.55]).statistic, 4)
    0.8
    """
    _, x, y = paired_scores(x, y, metric=metric)
    x, y = round_ties(x), round_ties(y)
    if warn_if_constant(x, y, ("x", "y")):
        return CorrelationResult(np.nan, np.nan, "spearman", len(x))
    result = stats.spearmanr(x, y)
    return CorrelationResult(float(result.statistic), float(result.pvalue), "spearman", len(x))


def pearson_r(x, y, *, metric=None):
    """Compute Pearson's linear correlation of two sets of scores of the same systems (or queries).

    Parameters
    ----------
    x, y : array-like of shape (n_systems,), mapping, Series, DataFrame or RankingComparison
        The scores, as for :func:`kendall_tau`.
    metric : str, default=None
        The column of a DataFrame, or the metric of a RankingComparison; None:
        the only (or first) one.

    Returns
    -------
    result : CorrelationResult
        ``statistic`` (r, in [-1, 1]; nan for constant scores, with a
        warning), ``pvalue`` and ``confidence_interval()``, those of
        ``scipy.stats.pearsonr``.

    See Also
    --------
    spearman_rho : The correlation of the ranks.
    scipy.stats.pearsonr : The same statistic, p-value and interval.

    Notes
    -----
    Pearson's r of the values themselves (no rounding of ties: it does not
    rank), with the p-value of the t distribution with n - 2 degrees of
    freedom and Fisher's z interval, as ``scipy.stats.pearsonr``.

    Examples
    --------
    >>> from sklearn_rankmetrics.meta import pearson_r
    >>> round(pearson_r([1, 2, 3, 4], [2, 4, 5, 9]).statistic, 4)
    0.9648
    """
    _, x, y = paired_scores(x, y, metric=metric)
    if warn_if_constant(x, y, ("x", "y")):
        return CorrelationResult(np.nan, np.nan, "pearson", len(x))
    result = stats.pearsonr(x, y)
    return CorrelationResult(float(result.statistic), float(result.pvalue), "pearson", len(x))


def tau_ap(reference, estimate, *, metric=None):
    """Compute the AP correlation tau_AP (Yilmaz et al. 2008): ``estimate``'s ordering judged by ``reference``'s.

    Like Kendall's tau, but a swap near the top of the ``estimate``
    ordering costs more than one near the bottom.

    Parameters
    ----------
    reference : array-like of shape (n_systems,), mapping, Series, DataFrame or RankingComparison
        The scores that give the true ordering (a higher score ranks first),
        as for :func:`kendall_tau`.
    estimate : same as ``reference``
        The scores of the same systems whose ordering is judged.
    metric : str, default=None
        The column of a DataFrame, or the metric of a RankingComparison; None:
        the only (or first) one.

    Returns
    -------
    tau_ap : float
        In [-1, 1]: 1 when ``estimate`` orders the systems as ``reference``,
        -1 when it reverses them. Not symmetric in its arguments.

    See Also
    --------
    kendall_tau : Every swap weighs the same.
    ordering_agreement : The tau_AP with the other statistics and the swaps.

    Notes
    -----
    With the systems in the order of ``estimate`` (rank 1 first) and
    :math:`C(i)` the number of the :math:`i - 1` systems above rank i that
    ``reference`` also ranks above the system at rank i [1]_,

    .. math:: \\tau_{AP} = \\frac{2}{n - 1} \\sum_{i=2}^{n} \\frac{C(i)}{i - 1} - 1.

    Ties, which the definition leaves out, are averaged: the value is the
    exact mean of :math:`\\tau_{AP}` over every ordering that breaks the
    ties of both ``reference`` and ``estimate`` (each ordering equally
    likely), so a pair tied in ``reference`` counts 1/2, and a tie block of
    ``estimate`` spreads each of its systems evenly over the ranks it
    occupies. Scores equal up to rounding are tied first. Computed in
    closed form, without enumerating orderings; memory grows as
    :math:`n^2` in chunks.

    References
    ----------
    .. [1] E. Yilmaz, J. A. Aslam and S. Robertson, "A new rank correlation
       coefficient for information retrieval", SIGIR 2008.

    Examples
    --------
    >>> from sklearn_rankmetrics.meta import tau_ap
    >>> reference = [4, 3, 2, 1]  # systems a > b > c > d
    >>> # estimate a > b > d > c: C = 1, 2, 2 at ranks 2 to 4, so 2/3 (1 + 1 + 2/3) - 1
    >>> round(tau_ap(reference, [4, 3, 1, 2]), 4)
    0.7778
    >>> # estimate b > a > c > d: C = 0, 2, 3, so 2/3 (0 + 1 + 1) - 1
    >>> round(tau_ap(reference, [3, 4, 2, 1]), 4)
    0.3333
    """
    _, reference, estimate = paired_scores(reference, estimate, names=("reference", "estimate"), metric=metric)
    return expected_tau_ap(round_ties(reference), round_ties(estimate))


def expected_tau_ap(reference, estimate):
    """tau_AP averaged over the orderings that break the ties of both scores (see :func:`tau_ap`'s Notes).

    A system x in the tie block of ``estimate`` that starts at rank s + 1
    and has m systems takes each of its ranks s + 1 + p (p = 0 .. m - 1)
    with chance 1/m; above it then sit every system of the earlier blocks
    and p of its m - 1 block mates, a uniform random choice. So
    :math:`E[C/(i-1)] = \\frac{1}{m} \\sum_p \\frac{A + p B/(m - 1)}{s + p}`,
    with A the systems of earlier blocks that ``reference`` ranks above x
    and B its block mates that ``reference`` ranks above x (a tie in
    ``reference`` counting 1/2); rank 1 adds nothing.
    """
    n = len(reference)
    order = np.argsort(-estimate, kind="stable")
    reference, estimate = reference[order], estimate[order]
    block = np.concatenate(([0], np.cumsum(estimate[1:] != estimate[:-1])))
    starts = np.flatnonzero(np.concatenate(([True], block[1:] != block[:-1])))
    sizes = np.diff(np.append(starts, n))
    s, m = starts[block].astype(np.float64), sizes[block].astype(np.float64)
    above, mates = above_counts(reference, block)
    harmonic = np.concatenate(([0.0], np.cumsum(1.0 / np.arange(1, n + 1))))
    # h1 = sum over the ranks of the block (rank 1 excluded) of 1 / (rank - 1); h2 of p / (rank - 1).
    h1 = harmonic[(s + m - 1).astype(np.intp)] - harmonic[np.maximum(s - 1, 0).astype(np.intp)]
    h2 = (m - (s == 0)) - s * h1
    with np.errstate(divide="ignore", invalid="ignore"):
        mate_share = np.where(m > 1, mates / (m - 1), 0.0)
    expected = (above * h1 + mate_share * h2) / m
    return float(2.0 / (n - 1) * expected.sum() - 1.0)


def above_counts(reference, block):
    """For each system: how many systems of earlier blocks, and of its own block, ``reference`` ranks above it.

    A tie in ``reference`` counts 1/2. Rows in chunks of about ``CHUNK``
    comparisons.
    """
    n = len(reference)
    above, mates = np.empty(n), np.empty(n)
    step = max(1, CHUNK // n)
    for start in range(0, n, step):
        rows = slice(start, min(start + step, n))
        higher = (reference[None, :] > reference[rows, None]) + 0.5 * (reference[None, :] == reference[rows, None])
        higher[np.arange(rows.stop - rows.start), np.arange(rows.start, rows.stop)] = 0.0  # not itself
        earlier = block[None, :] < block[rows, None]
        same = block[None, :] == block[rows, None]
        above[rows] = (higher * earlier).sum(axis=1)
        mates[rows] = (higher * same).sum(axis=1)
    return above, mates


def swapped_pairs(systems, x, y):
    """The pairs of systems that the two sets of (rounded) scores order oppositely.

    Each pair ``(a, b)`` is ranked a above b by ``x`` and b above a by
    ``y``; pairs come in the order of ``systems``. Ties are no swap.
    """
    sign = np.sign(x[:, None] - x[None, :]) * np.sign(y[:, None] - y[None, :])
    first, second = np.nonzero(np.triu(sign < 0, k=1))
    pairs = []
    for i, j in zip(first.tolist(), second.tolist(), strict=True):
        pairs.append((systems[i], systems[j]) if x[i] > x[j] else (systems[j], systems[i]))
    return pairs
