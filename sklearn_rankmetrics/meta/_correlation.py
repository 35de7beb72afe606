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
TAU_AP_VARIANTS = ("a", "b")
# Cells of the (systems x systems) comparisons of tau_AP held at a time.
CHUNK = 2**22


def warn_if_constant(x, y, names):
    """Warn, and say so, when either set of (rounded) scores is constant: the correlation is then undefined (nan)."""
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
        whose scores to correlate; None: the only one (a table or comparison
        of several metrics, or two comparisons of different metrics, are
        refused: say which).

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

    Scores equal up to rounding (256 ulps of the larger of the two, the
    library's one tolerance) are tied before counting. tau-b, tau-c and the p-value are those of
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
    return kendall_of_rounded(round_ties(x), round_ties(y), variant)


def kendall_of_rounded(x, y, variant, names=("x", "y")):
    """Kendall's tau of scores whose ties up to rounding are already exact ties (see :func:`kendall_tau`)."""
    if warn_if_constant(x, y, names):
        return CorrelationResult(np.nan, np.nan, "kendall", len(x), variant)
    result = stats.kendalltau(x, y, variant="c" if variant == "c" else "b")
    statistic = float(result.statistic)
    if variant == "a":
        pairs = len(x) * (len(x) - 1) / 2
        statistic *= np.sqrt((pairs - tied_pairs(x)) * (pairs - tied_pairs(y))) / pairs
    return CorrelationResult(float(statistic), float(result.pvalue), "kendall", len(x), variant)


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
        the only one.

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
    return spearman_of_rounded(round_ties(x), round_ties(y))


def spearman_of_rounded(x, y, names=("x", "y")):
    """Spearman's rho of scores whose ties up to rounding are already exact ties (see :func:`spearman_rho`)."""
    if warn_if_constant(x, y, names):
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
        the only one.

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
    Pearson's r of the values themselves (it does not rank: values are
    never rounded), with the p-value of the t distribution with n - 2
    degrees of freedom and Fisher's z interval, as ``scipy.stats.pearsonr``.
    Scores that are all equal up to rounding (differing by rounding noise
    only, such as 0.3 and 0.1 + 0.2) are constant: r is nan with a warning,
    as for Spearman and Kendall, rather than a correlation of noise.

    Examples
    --------
    >>> from sklearn_rankmetrics.meta import pearson_r
    >>> round(pearson_r([1, 2, 3, 4], [2, 4, 5, 9]).statistic, 4)
    0.9648
    """
    _, x, y = paired_scores(x, y, metric=metric)
    return pearson_of(x, y)


def pearson_of(x, y, names=("x", "y")):
    """Pearson's r of the scores, nan (with a warning) where either is constant up to rounding."""
    if warn_if_constant(round_ties(x), round_ties(y), names):
        return CorrelationResult(np.nan, np.nan, "pearson", len(x))
    result = stats.pearsonr(x, y)
    return CorrelationResult(float(result.statistic), float(result.pvalue), "pearson", len(x))


def tau_ap(reference, estimate, *, variant=None, metric=None):
    """Compute the AP correlation tau_AP (Yilmaz et al. 2008): ``estimate``'s ordering judged by ``reference``'s.

    Like Kendall's tau, but a swap near the top of the ``estimate``
    ordering costs more than one near the bottom. Ties are treated as
    Urbano and Marrero (2017) define it, in their two scenarios.

    Parameters
    ----------
    reference : array-like of shape (n_systems,), mapping, Series, DataFrame or RankingComparison
        The scores that give the true ordering (a higher score ranks first),
        as for :func:`kendall_tau`.
    estimate : same as ``reference``
        The scores of the same systems whose ordering is judged.
    variant : {None, "a", "b"}, default=None
        ``"a"``, tau_AP,a (accuracy): ``reference`` is a true ordering
        without ties, and ``estimate``'s ties are averaged over their
        orderings; a ``reference`` with ties is refused. ``"b"``, tau_AP,b
        (agreement): two orderings that may both tie, neither the truth;
        symmetric, and 1 for identical orderings. None: ``"a"`` where
        ``reference`` has no tie, ``"b"`` where it has.
    metric : str, default=None
        The column of a DataFrame, or the metric of a RankingComparison; None:
        the only one.

    Returns
    -------
    tau_ap : float
        In [-1, 1]: 1 when ``estimate`` orders the systems as ``reference``
        (ties alike, for tau_AP,b), -1 when it reverses them; nan (with a
        warning) for tau_AP,b where either ties every system.

    Raises
    ------
    ValueError
        With ``variant="a"``, when ``reference`` ties two systems.

    See Also
    --------
    kendall_tau : Every swap weighs the same.
    ordering_agreement : The tau_AP with the other statistics and the swaps.

    Notes
    -----
    With the systems in the order of ``estimate`` (rank 1 first) and
    :math:`C(i)` the number of the :math:`i - 1` systems above rank i that
    ``reference`` also ranks above the system at rank i [1]_,

    .. math:: \\tau_{AP} = \\frac{2}{n - 1} \\sum_{i=2}^{n} \\frac{C(i)}{i - 1} - 1,

    which is not symmetric. Ties, which this definition leaves out, as
    Urbano and Marrero [2]_:

    - tau_AP,a (accuracy) is the exact mean of :math:`\\tau_{AP}` over
      the orderings that break the ties of ``estimate``, each equally
      likely: a system of a tie block of m systems that starts below s
      others takes each of the ranks s + 1 .. s + m with chance 1/m, with a
      uniform share of its block mates above it. Without ties in
      ``estimate`` it is :math:`\\tau_{AP}`.
    - tau_AP,b (agreement) is the mean of the two directions
      :math:`(\\tau_{AP,b}(x|y) + \\tau_{AP,b}(y|x)) / 2`, where
      :math:`\\tau_{AP,b}(x|y) = \\frac{2}{|T|} \\sum_{i \\in T}
      \\frac{C(i)}{p(i)} - 1` traverses the tie blocks of y: T holds the
      systems below y's first block, :math:`p(i)` counts the systems of
      the blocks above i's, and :math:`C(i)` those of them that x ranks
      strictly above i (a tie in x is no agreement). Identical orderings,
      ties included, score 1; without ties it is the mean of
      :math:`\\tau_{AP}` both ways.

    The default chooses by the paper's rule: a reference with ties is no
    true ordering, so two such orderings are compared for agreement.
    Scores equal up to rounding are tied first. Computed in closed form,
    without enumerating orderings; memory grows as :math:`n^2` in chunks.
    Equal to the values that the ``ircor`` R package (the paper's authors')
    checks for its ``tauAP``, ``tauAP_a`` and ``tauAP_b`` in its tests and
    README (tests/meta; R itself is not run).

    References
    ----------
    .. [1] E. Yilmaz, J. A. Aslam and S. Robertson, "A new rank correlation
       coefficient for information retrieval", SIGIR 2008.
    .. [2] J. Urbano and M. Marrero, "The treatment of ties in AP
       correlation", ICTIR 2017.

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
    >>> tau_ap([2, 2, 1], [2, 2, 1])  # a reference with ties: tau_AP,b, 1 for identical orderings
    1.0
    """
    variant = check_option("variant", variant, TAU_AP_VARIANTS) if variant is not None else None
    _, reference, estimate = paired_scores(reference, estimate, names=("reference", "estimate"), metric=metric)
    return tau_ap_of_rounded(round_ties(reference), round_ties(estimate), variant)[0]


def tau_ap_of_rounded(reference, estimate, variant):
    """tau_AP of scores whose ties up to rounding are exact ties, and the variant used: (value, "a" or "b")."""
    tied = has_ties(reference)
    if variant is None:
        variant = "b" if tied else "a"
    if variant == "a":
        if tied:
            raise ValueError(
                "reference ties some systems (equal up to rounding), but tau_AP,a (variant='a') judges an "
                "estimate against a true ordering without ties (Urbano & Marrero 2017). To compare two orderings "
                "that may both tie, pass variant='b' (tau_AP,b: 1 for identical orderings)."
            )
        return expected_tau_ap(reference, estimate), "a"
    if warn_if_constant(reference, estimate, ("reference", "estimate")):
        return np.nan, "b"
    return (agreement_tau_ap(reference, estimate) + agreement_tau_ap(estimate, reference)) / 2.0, "b"


def has_ties(values):
    """Whether two of the values are equal."""
    return len(np.unique(values)) < len(values)


def tie_blocks(estimate):
    """The systems in the order of ``estimate``: (order, each one's block, its block's start s and size m)."""
    n = len(estimate)
    order = np.argsort(-estimate, kind="stable")
    ordered = estimate[order]
    block = np.concatenate(([0], np.cumsum(ordered[1:] != ordered[:-1])))
    starts = np.flatnonzero(np.concatenate(([True], block[1:] != block[:-1])))
    sizes = np.diff(np.append(starts, n))
    return order, block, starts[block].astype(np.float64), sizes[block].astype(np.float64)


def expected_tau_ap(reference, estimate):
    """tau_AP,a: tau_AP averaged over the orderings that break the ties of ``estimate`` (see :func:`tau_ap`).

    ``reference`` has no ties. A system x in the tie block of ``estimate``
    that starts at rank s + 1 and has m systems takes each of its ranks
    s + 1 + p (p = 0 .. m - 1) with chance 1/m; above it then sit every
    system of the earlier blocks and p of its m - 1 block mates, a uniform
    random choice. So :math:`E[C/(i-1)] = \\frac{1}{m} \\sum_p \\frac{A + p
    B/(m - 1)}{s + p}`, with A the systems of earlier blocks that
    ``reference`` ranks above x and B its block mates that ``reference``
    ranks above x; rank 1 adds nothing.
    """
    n = len(reference)
    order, block, s, m = tie_blocks(estimate)
    above, mates = above_counts(reference[order], block)
    harmonic = np.concatenate(([0.0], np.cumsum(1.0 / np.arange(1, n + 1))))
    # h1 = sum over the ranks of the block (rank 1 excluded) of 1 / (rank - 1); h2 of p / (rank - 1).
    h1 = harmonic[(s + m - 1).astype(np.intp)] - harmonic[np.maximum(s - 1, 0).astype(np.intp)]
    h2 = (m - (s == 0)) - s * h1
    with np.errstate(divide="ignore", invalid="ignore"):
        mate_share = np.where(m > 1, mates / (m - 1), 0.0)
    expected = (above * h1 + mate_share * h2) / m
    return float(2.0 / (n - 1) * expected.sum() - 1.0)


def agreement_tau_ap(reference, estimate):
    """One direction of tau_AP,b: ``estimate``'s tie blocks traversed, ``reference``'s strict order as the judge."""
    order, block, s, _ = tie_blocks(estimate)
    above, _ = above_counts(reference[order], block)
    below_top = s > 0
    return float(2.0 * np.mean(above[below_top] / s[below_top]) - 1.0)


def above_counts(reference, block):
    """For each system: how many systems of earlier blocks, and of its own block, ``reference`` ranks strictly above it.

    Rows in chunks of about ``CHUNK`` comparisons.
    """
    n = len(reference)
    above, mates = np.empty(n), np.empty(n)
    step = max(1, CHUNK // n)
    for start in range(0, n, step):
        rows = slice(start, min(start + step, n))
        higher = reference[None, :] > reference[rows, None]
        earlier = block[None, :] < block[rows, None]
        same = block[None, :] == block[rows, None]
        above[rows] = (higher & earlier).sum(axis=1)
        mates[rows] = (higher & same).sum(axis=1)
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
