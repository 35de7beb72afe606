"""Can a test collection tell systems apart? Discriminative power (Sakai 2006) and swap rates (Voorhees & Buckley 2002).

Both take the per-query scores of many systems, a queries x systems matrix,
and work on every pair of systems at once: the paired differences of all
pairs form one matrix, and every resample or topic split is a matrix product
(the tests are those of :func:`compare_rankings`).
"""

import itertools
from dataclasses import dataclass, field

import numpy as np

from .._core._resampling import bootstrap_means, check_resampling, resample_blocks
from .._core._tolerance import rounding_tolerance, values_scale
from .._core._validation import check_integer, check_option, check_real, plain
from ..stats._anova import tukey_columns
from ..stats._comparison_report import import_pandas
from ..stats._paired_tests import bootstrap_t_columns, paired_pvalues, warn_if_powerless
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
        per-query values}`` (the same queries in the same order), a
        DataFrame of one column per system, or a :class:`RankingComparison`
        (the per-query values of ``metric`` on the queries every system
        defines).
    test : {"bootstrap", "randomized-tukey-hsd", "randomization", "t-test", \
"tukey-hsd", "wilcoxon"}, default="bootstrap"
        The test of each pair: Sakai's paired bootstrap test (the
        studentized bootstrap of :func:`compare_rankings`), or his
        randomised Tukey HSD, which tests all pairs at once and so controls
        the familywise error; or another test of :func:`compare_rankings`.
    alpha : float, default=0.05
        The significance level.
    n_resamples : int, default=1000
        Bootstrap resamples (or randomisations) of the resampling tests.
    random_state : int, RandomState instance or None, default=None
        Seeds the resampling.
    metric : str, default=None
        The metric of a RankingComparison; None: its first.

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
    metric whose curve lies lower separates more pairs at every level. The
    p-values are exactly those :func:`compare_rankings` gives each pair
    with the same test and no correction (the randomised Tukey HSD adjusts
    over the pairs by itself) [2]_. Every pair's differences form one matrix;
    every bootstrap resample draws the same queries for every pair. Memory:
    ``n_resamples`` x twice the number of pairs for the bootstrap test.

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
    names, matrix = per_query_scores(scores, "scores", metric=metric)
    first, second, pairs = system_pairs(names)
    differences = matrix[:, second] - matrix[:, first]
    warn_if_powerless(differences, test, alpha, [metric or "scores"], pairs, n_resamples, len(names))
    if test in ("tukey-hsd", "randomized-tukey-hsd"):
        values = {"scores": dict(zip(names, matrix.T, strict=True))}
        pvalues = tukey_columns(values, pairs, test, n_resamples, 0.95, rng)["pvalue"]
    else:
        moments = bootstrap_means(bootstrap_t_columns(differences), n_resamples, rng) if test == "bootstrap" else None
        pvalues = np.asarray(paired_pvalues(differences, test, n_resamples, rng, moments))
    pvalues = np.asarray(pvalues, dtype=np.float64)
    return DiscriminativePower(
        power=float((pvalues < alpha).mean()),
        pairs=pairs,
        pvalues=pvalues,
        deltas=differences.mean(axis=0),
        alpha=alpha,
        test=test,
        n_queries=len(matrix),
    )


@dataclass(frozen=True)
class SwapRate:
    """How often two disjoint topic subsets disagree on which of two systems is better: :func:`swap_rate`'s result.

    Parameters
    ----------
    subset_sizes : list of int
        The topic subset sizes c.
    bin_edges : ndarray of shape (n_bins + 1,)
        The bins of the absolute difference of means on the first subset.
    comparisons : ndarray of shape (n_sizes, n_bins)
        The (trial, pair) comparisons whose difference falls in each bin.
    swaps : ndarray of shape (n_sizes, n_bins)
        Those of them where the second subset orders the pair the other way.
    n_trials : int
        Trials (random splits) per subset size.

    See Also
    --------
    swap_rate : Builds it.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics.meta import swap_rate
    >>> rng = np.random.default_rng(0)
    >>> scores = np.clip(np.linspace(0.2, 0.5, 6) + rng.normal(0, 0.15, (50, 6)), 0, 1)
    >>> result = swap_rate(scores, subset_size=[10, 25], n_trials=200, random_state=0)
    >>> bool(result.rate[1] < result.rate[0])  # more topics, fewer swaps
    True
    """

    subset_sizes: list
    bin_edges: np.ndarray = field(repr=False)
    comparisons: np.ndarray = field(repr=False)
    swaps: np.ndarray = field(repr=False)
    n_trials: int

    @property
    def rate(self):
        """The swap rate of each subset size over all bins: swaps / comparisons."""
        return self.swaps.sum(axis=1) / np.maximum(self.comparisons.sum(axis=1), 1)

    @property
    def rate_by_bin(self):
        """The swap rate of each (subset size, bin): nan where a bin has no comparison."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.comparisons > 0, self.swaps / self.comparisons, np.nan)

    def to_frame(self):
        """One row per (subset size, bin) with comparisons.

        Returns
        -------
        frame : pandas.DataFrame
            Columns ``subset_size``, ``delta_low``, ``delta_high`` (the bin),
            ``comparisons``, ``swaps`` and ``swap_rate``.
        """
        pd = import_pandas("SwapRate.to_frame")
        rows = []
        for s, size in enumerate(self.subset_sizes):
            for b in np.flatnonzero(self.comparisons[s]):
                rows.append(
                    {
                        "subset_size": size,
                        "delta_low": self.bin_edges[b],
                        "delta_high": self.bin_edges[b + 1],
                        "comparisons": int(self.comparisons[s, b]),
                        "swaps": int(self.swaps[s, b]),
                        "swap_rate": self.swaps[s, b] / self.comparisons[s, b],
                    }
                )
        return pd.DataFrame(rows)

    def __str__(self):
        rates = ", ".join(f"{size}: {rate:.4f}" for size, rate in zip(self.subset_sizes, self.rate, strict=True))
        return f"swap rate by topic subset size ({self.n_trials} trials each): {rates}"


def swap_rate(scores, *, subset_size=None, n_trials=1000, bin_width=0.01, random_state=None, metric=None):
    """The swap rate (Voorhees & Buckley 2002): how often two disjoint topic subsets order a pair of systems oppositely.

    Parameters
    ----------
    scores : array-like of shape (n_queries, n_systems), mapping, DataFrame or RankingComparison
        The per-query scores of the systems on one metric, as for
        :func:`discriminative_power`.
    subset_size : int or sequence of int, default=None
        The number c of topics in each of the two subsets, at most
        ``n_queries // 2``; several sizes give one rate each. None:
        ``n_queries // 2``.
    n_trials : int, default=1000
        Random splits per subset size.
    bin_width : float, default=0.01
        Width of the bins of the absolute difference of the two systems'
        means on the first subset.
    random_state : int, RandomState instance or None, default=None
        Seeds the splits.
    metric : str, default=None
        The metric of a RankingComparison; None: its first.

    Returns
    -------
    result : SwapRate
        Comparisons and swaps per subset size and bin; ``rate`` and
        ``rate_by_bin`` give the rates.

    See Also
    --------
    discriminative_power : The share of pairs a significance test separates.

    Notes
    -----
    Each trial draws two disjoint subsets of c topics, without replacement.
    For every pair of systems, :math:`d_1` and :math:`d_2` are the
    differences of their mean scores on the two subsets; the comparison
    falls in the bin of :math:`|d_1|`, and it is a swap when :math:`d_1
    d_2 < 0`, the subsets disagreeing on which system is better [1]_.
    Differences equal to 0 up to rounding are ties, never swaps. Each
    bin's rate estimates how often a difference of that size on c topics
    is reversed by another c topics. All pairs and the trials of a block
    are computed as matrix products.

    References
    ----------
    .. [1] E. M. Voorhees and C. Buckley, "The effect of topic set size on
       retrieval experiment error", SIGIR 2002.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics.meta import swap_rate
    >>> scores = [[0.1, 0.2], [0.3, 0.5], [0.2, 0.4], [0.6, 0.5]]  # system 1 wins 3 of 4 topics
    >>> result = swap_rate(scores, subset_size=1, n_trials=500, random_state=0)
    >>> round(float(result.rate[0]), 1)  # a swap when one of the two topics drawn is the last: 1/2 of the time
    0.5
    """
    names, matrix = per_query_scores(scores, "scores", metric=metric)
    n_queries = len(matrix)
    sizes = check_subset_sizes(subset_size, n_queries)
    n_trials = check_integer("n_trials", n_trials)
    bin_width = check_real("bin_width", bin_width, low=0, low_open=True)
    rng = check_resampling(n_trials, 0.95, random_state)[2]
    first, second, _ = system_pairs(names)
    n_bins = int(np.floor((matrix.max() - matrix.min()) / bin_width)) + 1
    tolerance = rounding_tolerance(values_scale(matrix))
    comparisons, swaps = np.zeros((len(sizes), n_bins)), np.zeros((len(sizes), n_bins))
    for s, size in enumerate(sizes):

        def block(count, generator, size=size):
            # A random permutation of the topics per trial: its first c and next c are the two subsets.
            order = generator.permuted(np.broadcast_to(np.arange(n_queries), (count, n_queries)), axis=1)
            d1, d2 = (
                subset_differences(matrix, order[:, part], first, second)
                for part in (slice(0, size), slice(size, 2 * size))
            )
            d1, d2 = np.where(np.abs(d1) <= tolerance, 0.0, d1), np.where(np.abs(d2) <= tolerance, 0.0, d2)
            bins = np.minimum((np.abs(d1) / bin_width).astype(np.intp), n_bins - 1).ravel()
            counted = np.bincount(bins, minlength=n_bins)
            swapped = np.bincount(bins, weights=(d1 * d2 < 0).ravel(), minlength=n_bins)
            return np.stack([counted, swapped])[None]

        totals = resample_blocks(n_trials, rng, block).sum(axis=0)
        comparisons[s], swaps[s] = totals
    return SwapRate(
        subset_sizes=sizes,
        bin_edges=np.arange(n_bins + 1) * bin_width,
        comparisons=comparisons,
        swaps=swaps,
        n_trials=n_trials,
    )


def subset_differences(matrix, subsets, first, second):
    """Each trial's differences of means (second minus first system) over its subset of topics: (trials, pairs)."""
    n_trials, size = subsets.shape
    indicator = np.zeros((n_trials, len(matrix)))
    np.put_along_axis(indicator, subsets, 1.0 / size, axis=1)
    means = indicator @ matrix
    return means[:, second] - means[:, first]


def check_subset_sizes(subset_size, n_queries):
    """The topic subset sizes as a list of ints in [1, n_queries // 2]."""
    if n_queries < 2:
        raise ValueError(f"swap_rate needs at least two topics; got {n_queries}.")
    if subset_size is None:
        return [n_queries // 2]
    sizes = [subset_size] if np.ndim(subset_size) == 0 else list(subset_size)
    if not sizes:
        raise ValueError("subset_size is empty: give one topic subset size or more.")
    checked = []
    for size in sizes:
        size = check_integer("subset_size", size)
        if 2 * size > n_queries:
            raise ValueError(
                f"subset_size={plain(size)!r} needs {2 * size} topics for two disjoint subsets; there are "
                f"{n_queries}. Give at most {n_queries // 2}."
            )
        checked.append(size)
    return checked
