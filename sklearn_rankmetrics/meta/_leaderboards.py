"""Do two evaluations order the systems alike? Kendall, tau_AP, Spearman, RBO and the pairs that swap."""

import warnings
from dataclasses import dataclass, field

import numpy as np

from .._core._tolerance import round_ties
from .._core._validation import check_real
from ..stats._comparison_report import import_pandas
from ._correlation import kendall_of_rounded, spearman_of_rounded, swapped_pairs, tau_ap_of_rounded, tie_blocks
from ._inputs import paired_scores
from ._results import CorrelationResult


@dataclass(frozen=True)
class OrderingAgreement:
    """How alike two evaluations order the same systems: the result of :func:`ordering_agreement`.

    Parameters
    ----------
    systems : list
        The systems, in the order of ``x`` (positions 0, 1, ... for arrays).
    x, y : ndarray of shape (n_systems,)
        Each system's score in the two evaluations.
    kendall_tau : CorrelationResult
        Kendall's tau-b, with its p-value and interval.
    tau_a : float
        Kendall's tau-a.
    tau_ap : float
        The tau_AP of the ordering by ``y`` judged against the one by ``x``:
        tau_AP,a where ``x`` has no tie, else tau_AP,b (:func:`tau_ap`).
    spearman : CorrelationResult
        Spearman's rho, with its p-value and interval.
    rbo : float
        Rank-biased overlap of the two orderings (extrapolated; a tie block
        enters at the depth where it starts, as Webber et al.) with
        persistence ``p``.
    swaps : list of tuple
        The pairs ``(a, b)`` that ``x`` ranks a above b and ``y`` b above a.
    p : float, default=0.9
        RBO's persistence.
    tau_ap_variant : {"a", "b"}, default="a"
        The variant of ``tau_ap``: ``"a"`` (accuracy) or ``"b"`` (agreement).

    See Also
    --------
    ordering_agreement : Builds it.

    Examples
    --------
    >>> from sklearn_rankmetrics.meta import ordering_agreement
    >>> result = ordering_agreement({"a": 0.5, "b": 0.4, "c": 0.3}, {"a": 0.6, "b": 0.7, "c": 0.2})
    >>> result.swaps, result.n_swaps
    ([('a', 'b')], 1)
    """

    systems: list
    x: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)
    kendall_tau: CorrelationResult
    tau_a: float
    tau_ap: float
    spearman: CorrelationResult
    rbo: float
    swaps: list
    p: float = 0.9
    tau_ap_variant: str = "a"

    @property
    def n_swaps(self):
        """The number of pairs of systems ordered oppositely (Kendall's discordant pairs)."""
        return len(self.swaps)

    @property
    def n_pairs(self):
        """The number of pairs of systems."""
        return len(self.systems) * (len(self.systems) - 1) // 2

    def to_frame(self, *, confidence_level=0.95):
        """The statistics as a pandas DataFrame: one row each, with p-values and intervals where they exist.

        Parameters
        ----------
        confidence_level : float, default=0.95
            Level of the intervals of Kendall's tau-b and Spearman's rho.

        Returns
        -------
        frame : pandas.DataFrame
            Indexed ``"kendall_tau_b"``, ``"kendall_tau_a"``, ``"tau_ap"``,
            ``"spearman_rho"``, ``"rbo"``, with the columns ``statistic``,
            ``pvalue``, ``ci_low`` and ``ci_high`` (nan where the statistic
            has none).
        """
        pd = import_pandas("OrderingAgreement.to_frame")
        rows = {}
        for name, result in (("kendall_tau_b", self.kendall_tau), ("spearman_rho", self.spearman)):
            low, high = result.confidence_interval(confidence_level)
            rows[name] = (result.statistic, result.pvalue, low, high)
        rows["kendall_tau_a"] = (self.tau_a, np.nan, np.nan, np.nan)
        rows["tau_ap"] = (self.tau_ap, np.nan, np.nan, np.nan)
        rows["rbo"] = (self.rbo, np.nan, np.nan, np.nan)
        order = ["kendall_tau_b", "kendall_tau_a", "tau_ap", "spearman_rho", "rbo"]
        return pd.DataFrame.from_dict(
            {name: rows[name] for name in order}, orient="index", columns=["statistic", "pvalue", "ci_low", "ci_high"]
        )

    def __str__(self):
        lines = [
            f"ordering agreement of {len(self.systems)} systems",
            f"  Kendall's tau_b  {self.kendall_tau.statistic:+.4f}  (p = {self.kendall_tau.pvalue:.3g})",
            f"  Kendall's tau_a  {self.tau_a:+.4f}",
            f"  tau_AP,{self.tau_ap_variant}         {self.tau_ap:+.4f}",
            f"  Spearman's rho   {self.spearman.statistic:+.4f}  (p = {self.spearman.pvalue:.3g})",
            f"  RBO (p={self.p:g})      {self.rbo:.4f}",
            f"  swaps            {self.n_swaps} of {self.n_pairs} pairs",
        ]
        shown = ", ".join(f"{a} > {b}" for a, b in self.swaps[:10])
        if self.swaps:
            more = f", and {self.n_swaps - 10} more" if self.n_swaps > 10 else ""
            lines.append(f"  swapped pairs, as x orders them: {shown}{more}")
        return "\n".join(lines)


def ordering_agreement(x, y, *, metric=None, p=0.9):
    """How alike two evaluations order the same systems: rank correlations, RBO and the pairs that swap.

    Parameters
    ----------
    x, y : array-like of shape (n_systems,), mapping, Series, DataFrame or RankingComparison
        The scores of the same systems by two evaluations (a higher score
        ranks first): two arrays in the same order of systems, or two
        mappings ``{system: score}`` (pandas Series indexed by system; a
        DataFrame of one row per system and one column per metric; a
        :class:`RankingComparison`, its systems' means), aligned by system.
        ``x`` is the reference (tau_AP judges ``y`` against it).
    metric : str, default=None
        The column of a DataFrame, or the metric of a RankingComparison, to
        compare; None: the only one.
    p : float, default=0.9
        RBO's persistence, in (0, 1).

    Returns
    -------
    agreement : OrderingAgreement
        Kendall's tau-b (with p-value and interval) and tau-a, tau_AP,
        Spearman's rho, RBO, and the list of swapped pairs; prints as a
        summary and converts with ``to_frame()``.

    See Also
    --------
    kendall_tau, tau_ap, spearman_rho : One statistic each.
    leaderboard_agreement : The orderings of the same runs by two sets of judgements.

    Notes
    -----
    Scores equal up to rounding (256 ulps of the larger of the two, the
    library's one tolerance) are tied in every statistic: rounding noise is
    no ordering, and a tie is no swap. Ties are the evaluations' own
    uncertainty, so an ordering compared with itself scores 1 in every
    statistic but Kendall's tau-a, which counts a tied pair as neither
    concordant nor discordant over all pairs (its definition, kept).
    tau_AP is :func:`tau_ap` with its default variant: tau_AP,a (``y``'s
    ties averaged) where ``x`` has no tie, tau_AP,b (agreement, symmetric)
    where it has. RBO compares the two complete orderings, extrapolated
    (Webber et al., eq. 32, with l = s = n) with their tie handling: a tie
    block enters the top d at the depth where it starts, and the agreement
    at depth d is :math:`A_d = 2 X_d / (|S_{:d}| + |L_{:d}|)`, the
    documents of both prefixes over their mean size [1]_ [2]_, so

    .. math:: \\mathrm{RBO} = \\frac{1 - p}{p} \\sum_{d=1}^{n} A_d\\, p^d + p^n.

    Without ties it is :func:`rank_biased_overlap` of the two orderings.

    References
    ----------
    .. [1] W. Webber, A. Moffat and J. Zobel, "A similarity measure for
       indefinite rankings", ACM TOIS 28(4), 2010, section 4.
    .. [2] M. Corsi and J. Urbano, "The treatment of ties in rank-biased
       overlap", SIGIR 2024 (RBO^w).

    Examples
    --------
    >>> from sklearn_rankmetrics.meta import ordering_agreement
    >>> human = {"bm25": 0.31, "dense": 0.40, "splade": 0.43, "rm3": 0.33}
    >>> llm = {"bm25": 0.52, "dense": 0.61, "splade": 0.60, "rm3": 0.55}
    >>> result = ordering_agreement(human, llm)
    >>> result.swaps
    [('splade', 'dense')]
    >>> round(result.tau_ap, 4)
    0.3333
    """
    p = check_real("p", p, low=0, high=1, low_open=True, high_open=True)
    systems, x, y = paired_scores(x, y, metric=metric)
    rounded_x, rounded_y = round_ties(x), round_ties(y)
    tau_b = kendall_of_rounded(rounded_x, rounded_y, "b")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # constant scores: tau_b warned already
        tau_a = kendall_of_rounded(rounded_x, rounded_y, "a").statistic
        spearman = spearman_of_rounded(rounded_x, rounded_y)
        tau_ap, variant = tau_ap_of_rounded(rounded_x, rounded_y, None)
    return OrderingAgreement(
        systems=systems,
        x=x,
        y=y,
        kendall_tau=tau_b,
        tau_a=tau_a,
        tau_ap=tau_ap,
        spearman=spearman,
        rbo=webber_rbo(rounded_x, rounded_y, p),
        swaps=swapped_pairs(systems, rounded_x, rounded_y),
        p=p,
        tau_ap_variant=variant,
    )


def webber_rbo(x, y, p):
    """The extrapolated RBO of two complete orderings of the same systems, tie blocks entering where they start.

    See :func:`ordering_agreement`'s Notes. A system enters the top d of an
    ordering at its block's first rank; counting the systems by the depth at
    which they enter one ordering, and both, gives every prefix size and
    overlap at once.
    """
    n = len(x)
    entry_x, entry_y = (first_ranks(values) for values in (x, y))
    in_x, in_y, in_both = (
        np.cumsum(np.bincount(entry, minlength=n)) for entry in (entry_x, entry_y, np.maximum(entry_x, entry_y))
    )
    depths = np.arange(1, n + 1)
    agreement = 2.0 * in_both / (in_x + in_y)
    return float((1 - p) / p * np.sum(agreement * p**depths) + p**n)


def first_ranks(values):
    """Each system's 0-based rank where its tie block starts, ordering by ``values`` (higher first)."""
    order, _, start, _ = tie_blocks(values)
    ranks = np.empty(len(values), dtype=np.intp)
    ranks[order] = start.astype(np.intp)
    return ranks
