"""The rows of a comparison: each system's mean and interval, then each pair's test, pairs streamed in blocks.

With k systems there are k (k - 1) / 2 pairs: the bootstrap resamples of
every pair's difference, held at once, took 1.8 GB for 150 systems. Here the
systems' bootstrap means are computed once (resamples x systems), and the
pairs follow in blocks of at most ``PAIR_CHUNK`` resampled numbers: a
block's differences, intervals and tests are computed from the same
resamples (replayed from their seeds) and turned into rows before the next
block starts. Every number of a pair is computed from that pair's columns
alone (its differences reduced along their own contiguous axis, its
resampled differences the difference of two systems' resampled means, its
sign-flipped and bootstrap sums compared up to their rounding), so the
results do not depend on the size of the blocks (tests/stats checks it bit
for bit). maxT still holds every (pair, metric)'s sign flips at once: its
step-down compares all of them in each flip.
"""

import numpy as np

from .._core._numpy_ops import running_sum
from .._core._resampling import Resamples, bootstrap_means
from ._anova import TUKEY_TESTS, TukeyNull
from ._comparison import COLUMNS
from ._paired_tests import (
    bootstrap_t_columns,
    effect_sizes,
    mean_difference,
    pair_differences,
    paired_pvalues,
    warn_if_constant,
    warn_if_powerless,
)

# A system's row before (or without) a comparison with a baseline.
EMPTY_ROW = {**dict.fromkeys(COLUMNS, np.nan), "baseline": None, **dict.fromkeys(("wins", "ties", "losses"))}
# The most resampled numbers a block of pairs holds in one array (resamples x pairs): 16 MB.
PAIR_CHUNK = 2**21


def group_rows(values, pairs, test, n_resamples, confidence_level, alpha, rng, *, compute_pvalues=True):
    """The rows of metrics on the same queries: each system's mean and interval, then each pair's comparison.

    ``values[metric][system]`` holds the per-query values. Every interval and
    test of the group comes from the same resamples. ``compute_pvalues=False``
    leaves the p-values nan, for a correction that computes them with its own
    (maxT).
    """
    metrics, names = list(values), list(next(iter(values.values())))
    matrices = [np.column_stack([values[metric][name] for name in names]) for metric in metrics]
    n_queries, n_systems = matrices[0].shape
    if not n_queries:  # nothing to compare (compare_rankings warns): no mean, no interval, no evidence of a difference
        nothing = {"pvalue": 1.0 if compute_pvalues else np.nan, "wins": 0, "ties": 0, "losses": 0}
        return [row for metric in metrics for row in metric_rows(metric, names, pairs, {}, [nothing] * len(pairs))]
    tests = GroupTests(matrices, test, n_resamples, confidence_level, rng, metrics, compute_pvalues)
    warn_if_powerless(n_queries, test, alpha, metrics, n_resamples, n_systems)
    index = {name: i for i, name in enumerate(names)}
    width = max(1, PAIR_CHUNK // n_resamples)
    rows = []
    for m, metric in enumerate(metrics):
        systems = {
            name: {
                "mean": running_sum(matrices[m][:, i]) / n_queries,
                **tests.system_interval(m, i),
                "n_queries": n_queries,
            }
            for i, name in enumerate(names)
        }
        compared = []
        for start in range(0, len(pairs), width):
            block = pairs[start : start + width]
            first, second = (np.array([index[pair[side]] for pair in block]) for side in (0, 1))
            compared += tests.pairs(m, metric, first, second, block)
        rows += metric_rows(metric, names, pairs, systems, compared)
    return rows


class GroupTests:
    """The resamples and tests of a group of metrics (the same queries), for its systems and blocks of pairs.

    The bootstrap resamples give the systems' means (resamples x systems, for
    every metric) once; a pair's resampled difference is the difference of
    its systems' columns, and the bootstrap test's moments replay the same
    resamples for each block. The randomization test's sign flips, sampled,
    are drawn once too and replayed for every block.
    """

    def __init__(self, matrices, test, n_resamples, confidence_level, rng, metrics, compute_pvalues):
        self.matrices, self.test, self.compute_pvalues = matrices, test, compute_pvalues
        self.n_systems = matrices[0].shape[1]
        self.bootstrap = Resamples(n_resamples, rng)
        # Metrics x systems, resamples: each system's resampled means contiguous, as a pair's difference of them.
        self.means = np.ascontiguousarray(bootstrap_means(np.column_stack(matrices), self.bootstrap).T)
        self.tails = [(1 - confidence_level) / 2, (1 + confidence_level) / 2]
        self.low, self.high = np.quantile(self.means, self.tails, axis=1)
        tukey = test in TUKEY_TESTS
        self.null = TukeyNull(matrices, test, n_resamples, confidence_level, rng, metrics) if tukey else None
        sampled = test == "randomization" and compute_pvalues and 2 ** len(matrices[0]) > n_resamples
        # maxT (compute_pvalues=False) draws its own sign flips after every group.
        self.flips = Resamples(n_resamples, rng) if sampled else None

    def system_interval(self, m, i):
        column = m * self.n_systems + i
        return {"ci_low": float(self.low[column]), "ci_high": float(self.high[column])}

    def pairs(self, m, metric, first, second, block):
        """The statistics of a block of pairs of metric m (systems ``second`` minus ``first``), a dict per pair."""
        matrix = self.matrices[m]
        differences = pair_differences(matrix[:, second].T, matrix[:, first].T)  # pairs x queries, rows contiguous
        deltas = mean_difference(differences)
        means = self.means[m * self.n_systems : (m + 1) * self.n_systems]
        resampled = means[second] - means[first]  # pairs, resamples
        resampled[~differences.any(axis=1)] = 0.0  # equal up to rounding on every query: the point 0
        low, high = np.quantile(resampled, self.tails, axis=1)
        if self.null is not None:  # a test of all the systems at once, with its own (simultaneous) intervals
            tukey = self.null.pairs(m, deltas)
            low, high = tukey["delta_ci_low"], tukey["delta_ci_high"]
            pvalues, effects = tukey["pvalue"].tolist(), tukey["effect_size"].tolist()
        else:
            pvalues = self.pvalues(differences.T, metric, block)
            effects = effect_sizes(differences, deltas).tolist()
        counts = zip(*((np.sign(differences) == sign).sum(axis=1).tolist() for sign in (1, 0, -1)), strict=True)
        return [
            {
                "delta": delta,
                "delta_ci_low": ci_low,
                "delta_ci_high": ci_high,
                "pvalue": pvalue,
                "effect_size": effect,
                "wins": wins,
                "ties": ties,
                "losses": losses,
            }
            for delta, ci_low, ci_high, pvalue, effect, (wins, ties, losses) in zip(
                deltas.tolist(), low.tolist(), high.tolist(), pvalues, effects, counts, strict=True
            )
        ]

    def pvalues(self, columns, metric, block):
        """The paired test's p-values of a block's difference columns (queries x pairs, each column contiguous)."""
        if self.test == "bootstrap":
            warn_if_constant(columns, metric, block)
        if not self.compute_pvalues:
            return [np.nan] * len(block)
        if self.test == "bootstrap":
            return paired_pvalues(
                columns, self.test, moments=bootstrap_means(bootstrap_t_columns(columns), self.bootstrap)
            )
        return paired_pvalues(columns, self.test, flips=self.flips)


def metric_rows(metric, names, pairs, systems, compared):
    """The rows of a metric: the systems not compared with a baseline, then each pair's (``compared``, in order).

    ``systems`` maps each system to its mean, interval and ``n_queries``
    (empty where no query is compared), ``compared`` holds each pair's
    statistics.
    """
    summary = {
        name: {**EMPTY_ROW, "system": name, "metric": metric, "n_queries": 0, **systems.get(name, {})} for name in names
    }
    tested = {b for _, b in pairs}
    rows = [summary[name] for name in names if name not in tested]
    rows += [{**summary[b], "baseline": a, **statistics} for (a, b), statistics in zip(pairs, compared, strict=True)]
    return rows
