"""How often do two topic subsets disagree on which system is better? Swap rates (Voorhees & Buckley 2002).

Every trial splits the topics into two random disjoint subsets; the means of
all systems on each subset are one matrix product, and the pairs of systems
are then reduced in blocks (a block of trials x a block of pairs at a
time), so memory stays bounded and the work is that of a loop over trials
without its Python overhead.
"""

from dataclasses import dataclass, field

import numpy as np
from threadpoolctl import threadpool_limits

from .._core._resampling import Resamples, check_resampling
from .._core._tolerance import rounding_tolerance, sum_tolerance, values_scale
from .._core._validation import check_integer, check_real, plain
from ..stats._comparison_report import import_pandas
from ._inputs import per_query_scores

# The (trial, pair) differences held at a time: small enough to stay in the processor's cache (measured fastest).
CELLS = 2**16
# More bins than this is a bin width far below any difference of means that matters: refused, not allocated.
MAX_BINS = 10**6


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
        means on the first subset; at most a million bins over the range of
        the scores.
    random_state : int, RandomState instance, numpy Generator or None, default=None
        Seeds the splits.
    metric : str, default=None
        The metric of a RankingComparison; None: its only one.

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
    Each bin's rate estimates how often a difference of that size on c
    topics is reversed by another c topics.

    Differences are judged up to rounding, at the pair's own scale s (the
    larger magnitude of the two systems' scores): a mean of c values may
    be off by :math:`4 c \\varepsilon s`, and each value by the library's
    tolerance :math:`256 \\varepsilon s`; their sum t is the tolerance of
    a difference. A difference within t of 0 is a tie, never a swap (it
    falls in the first bin), and a difference within t below a bin's lower
    edge falls in that bin: 0.2 - 0.1 and 0.7 - 0.6 (0.09999999999999998)
    are both 0.1, in [0.10, 0.11). So the bin is
    :math:`\\lfloor (|d_1| + t) / w \\rfloor` for the bin width w.

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
    _, matrix, _ = per_query_scores(scores, "scores", metric=metric)
    sizes = check_subset_sizes(subset_size, len(matrix))
    n_trials = check_integer("n_trials", n_trials)
    bin_width = check_real("bin_width", bin_width, low=0, low_open=True)
    n_bins = bin_count(matrix, bin_width)
    rng = check_resampling(n_trials, 0.95, random_state)[2]
    comparisons, swaps = np.zeros((len(sizes), n_bins)), np.zeros((len(sizes), n_bins))
    for s, size in enumerate(sizes):
        pairs = PairBins(values_scale(matrix, axis=0), size, bin_width, n_bins)

        def block(count, generator, size=size, pairs=pairs):
            # A random permutation of the topics per trial: its first c and next c are the two subsets.
            order = generator.permuted(np.broadcast_to(np.arange(len(matrix)), (count, len(matrix))), axis=1)
            means = [subset_means(matrix, order[:, part]) for part in (slice(0, size), slice(size, 2 * size))]
            return pairs.counts(*means)

        # The products of subset_means are small: BLAS threads would only contend with the blocks' threads.
        with threadpool_limits(limits=1, user_api="blas"):
            comparisons[s], swaps[s] = Resamples(n_trials, rng).sum(block)
    return SwapRate(
        subset_sizes=sizes,
        bin_edges=np.arange(n_bins + 1) * bin_width,
        comparisons=comparisons,
        swaps=swaps,
        n_trials=n_trials,
    )


class PairBins:
    """Comparisons and swaps by bin, over every pair of systems of a block of trials, pairs in blocks of rows.

    The pairs (i, j > i) of the systems i of a block of rows form a
    rectangle of the differences of every trial's means (trials x rows x
    systems after i's first): one broadcast subtraction, no index arrays.
    The rectangle's pairs with j <= i go to a bin that is dropped.
    """

    def __init__(self, scale, size, bin_width, n_bins):
        self.scale, self.size, self.bin_width, self.n_bins = scale, size, bin_width, n_bins

    def tolerance(self, rows, columns):
        """The rounding of a difference of two means of ``size`` values, at each pair's scale (see swap_rate)."""
        scale = np.maximum(self.scale[rows, None], self.scale[None, columns])
        return rounding_tolerance(scale) + sum_tolerance(self.size, scale)

    def counts(self, means_1, means_2):
        """(comparisons, swaps) per bin over the trials of ``means_1`` and ``means_2`` (trials x systems)."""
        n_trials, n_systems = means_1.shape
        dropped = 2 * self.n_bins
        totals = np.zeros(dropped + 1)
        start = 0
        while start < n_systems - 1:
            columns = slice(start + 1, n_systems)
            stop = min(n_systems - 1, start + max(1, CELLS // (n_trials * (n_systems - start - 1))))
            rows = slice(start, stop)
            tolerance = self.tolerance(rows, columns)
            d1 = means_1[:, None, columns] - means_1[:, rows, None]  # trials, rows, columns
            d2 = means_2[:, None, columns] - means_2[:, rows, None]
            magnitude = np.abs(d1)
            swapped = (d1 * d2 < 0) & (magnitude > tolerance) & (np.abs(d2) > tolerance)
            magnitude += tolerance
            magnitude /= self.bin_width
            cells = magnitude.astype(np.intp)
            np.minimum(cells, self.n_bins - 1, out=cells)
            cells <<= 1  # cell 2b: a comparison in bin b; 2b + 1: a swap in bin b
            cells += swapped
            if stop - start > 1:
                cells[:, np.arange(start, stop)[:, None] >= np.arange(start + 1, n_systems)[None, :]] = dropped
            totals += np.bincount(cells.ravel(), minlength=dropped + 1)
            start = stop
        by_bin = totals[:dropped].reshape(self.n_bins, 2)
        return np.stack([by_bin.sum(axis=1), by_bin[:, 1]])


def subset_means(matrix, subsets):
    """Each trial's mean score of every system over its subset of topics: (trials, systems)."""
    n_trials, size = subsets.shape
    indicator = np.zeros((n_trials, len(matrix)))
    np.put_along_axis(indicator, subsets, 1.0 / size, axis=1)
    return indicator @ matrix


def bin_count(matrix, bin_width):
    """The number of bins of width ``bin_width`` that the differences of means can fall in (at most MAX_BINS)."""
    spread = float(matrix.max() - matrix.min())
    n_bins = np.floor(spread / bin_width) + 1
    if n_bins > MAX_BINS:
        raise ValueError(
            f"bin_width={plain(bin_width)!r} cuts the range of the differences of means, [0, {spread:.4g}], into "
            f"{n_bins:,.0f} bins; at most {MAX_BINS:,} are kept. Give a bin_width of at least "
            f"{spread / (MAX_BINS - 1):.3g}."
        )
    return int(n_bins)


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
