"""Can a test collection tell systems apart? Discriminative power (Sakai 2006): the share of pairs a test separates.

It takes the per-query scores of many systems, a queries x systems matrix,
and tests every pair of systems with the tests of :func:`compare_rankings`,
the pairs streamed in blocks: each block's paired differences, resampled
statistics and p-values are computed from the same resamples (replayed from
their seeds) and reduced before the next block starts, so memory stays
bounded whatever the number of systems.
"""

import itertools
from dataclasses import dataclass, field

import numpy as np

from .._core._resampling import Resamples, bootstrap_means, check_resampling
from .._core._validation import check_option, check_real
from ..stats._anova import TUKEY_TESTS, TukeyNull
from ..stats._comparison_report import import_pandas
from ..stats._pair_rows import PAIR_CHUNK
from ..stats._paired_tests import (
    bootstrap_t_columns,
    bootstrap_t_pvalues,
    mean_difference,
    pair_differences,
    paired_pvalues,
    warn_if_constant,
    warn_if_powerless,
)
from ._inputs import per_query_scores

TESTS = ("bootstrap", "randomized-tukey-hsd", "randomization", "t-test", "tukey-hsd", "wilcoxon")


@dataclass(frozen=True)
class DiscriminativePower:
    """The share of system pairs that a test finds significantly different: the result of :func:`discriminative_power`.

    Parameters
    ----------
    power : float
        The discriminative power: the share of pairs with p-value (achieved
        significance level, ASL) below ``alpha``.
    pairs : list of tuple
        Every pair of systems ``(a, b)``, in the order of the systems.
    pvalues : ndarray of shape (n_pairs,)
        Each pair's ASL.
    deltas : ndarray of shape (n_pairs,)
        Each pair's mean difference over queries, b minus a.
    alpha : float
        The significance level.
    test : str
        The test.
    n_queries : int
        The number of queries.

    See Also
    --------
    discriminative_power : Builds it.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics.meta import discriminative_power
    >>> rng = np.random.default_rng(0)
    >>> scores = rng.random((25, 1)) + np.array([0.0, 0.0, 0.3]) + rng.normal(0, 0.1, (25, 3))
    >>> result = discriminative_power(scores, test="t-test")
    >>> result.n_significant, len(result.pairs)
    (2, 3)
    """

    power: float
    pairs: list
    pvalues: np.ndarray = field(repr=False)
    deltas: np.ndarray = field(repr=False)
    alpha: float
    test: str
    n_queries: int

    @property
    def n_significant(self):
        """The number of pairs with p-value below ``alpha``."""
        return int((self.pvalues < self.alpha).sum())

    @property
    def asl_curve(self):
        """The achieved significance levels of all pairs, sorted ascending: Sakai's ASL curve (pair rank -> ASL)."""
        return np.sort(self.pvalues)

    def to_frame(self):
        """One row per pair of systems: ``system_a``, ``system_b``, ``delta``, ``pvalue``, ``significant``.

        Returns
        -------
        frame : pandas.DataFrame
        """
        pd = import_pandas("DiscriminativePower.to_frame")
        return pd.DataFrame(
            {
                "system_a": [a for a, _ in self.pairs],
                "system_b": [b for _, b in self.pairs],
                "delta": self.deltas,
                "pvalue": self.pvalues,
                "significant": self.pvalues < self.alpha,
            }
        )

    def __str__(self):
        return (
            f"discriminative power {self.power:.4f}: {self.n_significant} of {len(self.pairs)} pairs significant at "
            f"alpha = {self.alpha:g} ({self.test} test, {self.n_queries} queries)"
        )


def system_pairs(names):
    """Every pair of systems as two index arrays (first, second) and as name pairs."""
    first, second = (
        np.array(side, dtype=np.intp) for side in zip(*itertools.combinations(range(len(names)), 2), strict=True)
    )
    return first, second, [(names[i], names[j]) for i, j in zip(first.tolist(), second.tolist(), strict=True)]


def discriminative_power(scores, *, test="bootstrap", alpha=0.05, n_resamples=1000, random_state=None, metric=None):
    """Discriminative power (Sakai 2006): the share of system pairs that a significance test separates.

    Parameters
    ----------
    scores : array-like of shape (n_queries, n_systems), mapping, DataFrame or RankingComparison
        The per-query scores of the systems on one metric: a matrix of one
        row per query and one column per system, a mapping ``{system:
        per-query values}`` (arrays in the same order of queries, or pandas
        Series aligned by their index), a DataFrame of one column per
        system, or a :class:`RankingComparison` (the per-query values of
        ``metric`` on the queries every system defines).
    test : {"bootstrap", "randomized-tukey-hsd", "randomization", "t-test", \
"tukey-hsd", "wilcoxon"}, default="bootstrap"
        The test of each pair: Sakai's paired bootstrap test, or his
        randomised Tukey HSD, which tests all pairs at once and so controls
        the familywise error; or another test of :func:`compare_rankings`.
    alpha : float, default=0.05
        The significance level.
    n_resamples : int, default=1000
        Bootstrap resamples (or randomisations) of the resampling tests.
    random_state : int, RandomState instance, numpy Generator or None, default=None
        Seeds the resampling.
    metric : str, default=None
        The metric of a RankingComparison; None: its only one.

    Returns
    -------
    result : DiscriminativePower
        ``power`` (the share of significant pairs), every pair's p-value
        (``pvalues``) and its ASL curve (``asl_curve``).

    See Also
    --------
    swap_rate : How often topic subsets disagree on which system is better.
    compare_rankings : The same tests, with intervals and corrections.

    Notes
    -----
    For each of the :math:`k(k - 1)/2` pairs of k systems, the test's
    two-sided p-value of a zero mean difference over queries (the achieved
    significance level, ASL); the power is the share below ``alpha`` [1]_.
    The ASL curve plots the pairs' ASLs sorted, against their rank: a
    metric whose curve lies lower separates more pairs at every level.

    The bootstrap ASL is Sakai's, whatever the number of queries: with the
    paired differences d of n queries, :math:`t(z) = \\bar z / (s_z /
    \\sqrt n)`, the centred differences :math:`w = d - \\bar d` resampled
    B times with replacement,

    .. math:: \\mathrm{ASL} = \\#\\{b : |t(w^{*b})| \\geq |t(d)|\\} / B,

    a resample without spread (infinite or undefined t) counting as
    extreme, and "as extreme" judged up to rounding. Every pair is
    resampled with the same queries.

    The other tests give each pair the p-value that
    :func:`compare_rankings` gives it for this metric alone (with
    ``correction=None``, the same ``n_resamples`` and ``random_state``: the
    resamples are drawn in the same order): the t-test, the Wilcoxon
    test and Tukey's HSD exactly; the randomization test and the
    randomised Tukey HSD (which adjusts over the pairs by itself [2]_) from
    the same sign flips or permutations. compare_rankings' bootstrap
    p-value counts the same extreme resamples as :math:`(1 + \\#) / (1 +
    B)`, and on 13 queries or fewer it is also at least the exact
    randomization test's, a guard for small samples that Sakai's ASL does
    not have.

    Pairs are tested in blocks of at most about two million resampled
    numbers, whatever the number of systems.

    References
    ----------
    .. [1] T. Sakai, "Evaluating evaluation metrics based on the bootstrap",
       SIGIR 2006.
    .. [2] T. Sakai, "Laboratory Experiments in Information Retrieval",
       Springer, 2018, chapter 5.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics.meta import discriminative_power
    >>> rng = np.random.default_rng(0)
    >>> quality = np.linspace(0.2, 0.5, 6)  # six systems, apart by 0.06
    >>> scores = np.clip(quality + rng.normal(0, 0.15, (50, 6)), 0, 1)
    >>> result = discriminative_power(scores, random_state=0)
    >>> print(result)
    discriminative power 0.7333: 11 of 15 pairs significant at alpha = 0.05 (bootstrap test, 50 queries)
    """
    test = check_option("test", test, TESTS)
    alpha = check_real("alpha", alpha, low=0, high=1, low_open=True, high_open=True)
    n_resamples, _, rng = check_resampling(n_resamples, 0.95, random_state)
    names, matrix, _ = per_query_scores(scores, "scores", metric=metric)
    first, second, pairs = system_pairs(names)
    label = metric or "scores"
    tester = PairTester(matrix, test, n_resamples, rng, label)
    if test != "bootstrap":  # Sakai's ASL has no floor but its resolution 1 / B
        warn_if_powerless(len(matrix), test, alpha, [label], n_resamples, len(names))
    pvalues, deltas = np.empty(len(pairs)), np.empty(len(pairs))
    width = max(1, PAIR_CHUNK // max(n_resamples, len(matrix)))
    for start in range(0, len(pairs), width):
        block = slice(start, start + width)
        deltas[block], pvalues[block] = tester.pvalues(first[block], second[block], pairs[block])
    return DiscriminativePower(
        power=float((pvalues < alpha).mean()),
        pairs=pairs,
        pvalues=pvalues,
        deltas=deltas,
        alpha=alpha,
        test=test,
        n_queries=len(matrix),
    )


class PairTester:
    """The resamples of a test, drawn once in :func:`compare_rankings`' order, and the p-values of blocks of pairs.

    compare_rankings draws its bootstrap resamples first, then the
    randomised Tukey HSD's permutations, then the sampled sign flips: drawn
    here in that order from the same generator, the same ``random_state``
    gives the same resamples. Every block of pairs replays them.
    """

    def __init__(self, matrix, test, n_resamples, rng, label):
        self.matrix, self.test, self.label = matrix, test, label
        self.bootstrap = Resamples(n_resamples, rng)
        self.null = TukeyNull([matrix], test, n_resamples, 0.95, rng, [label]) if test in TUKEY_TESTS else None
        sampled = test == "randomization" and 2 ** len(matrix) > n_resamples
        self.flips = Resamples(n_resamples, rng) if sampled else None

    def pvalues(self, first, second, pairs):
        """The mean differences and p-values of the pairs (``second`` minus ``first``)."""
        differences = pair_differences(self.matrix[:, second].T, self.matrix[:, first].T)  # pairs x queries
        deltas = mean_difference(differences)
        columns = np.ascontiguousarray(differences.T)  # queries x pairs
        if self.null is not None:
            return deltas, self.null.pairs(0, deltas)["pvalue"]
        if self.test == "bootstrap":
            warn_if_constant(columns, self.label, pairs)
            return deltas, sakai_asl(columns, self.bootstrap)
        return deltas, np.asarray(paired_pvalues(columns, self.test, flips=self.flips), dtype=np.float64)


def sakai_asl(differences, resamples):
    """Sakai's bootstrap ASL of each column of paired differences: extreme resamples over B (see the Notes).

    The count is that of the studentized bootstrap p-value of
    :func:`compare_rankings`, ``(1 + count) / (1 + B)``, from the same
    resamples: recovered exactly from it, then divided by B. Systems equal
    up to rounding on every query have ASL 1.
    """
    n_resamples = resamples.n_resamples
    moments = bootstrap_means(bootstrap_t_columns(differences), resamples)
    extreme = np.rint(bootstrap_t_pvalues(differences, moments) * (1 + n_resamples)) - 1
    return np.where(np.all(differences == 0, axis=0), 1.0, extreme / n_resamples)
