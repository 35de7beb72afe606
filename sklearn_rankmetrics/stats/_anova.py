"""Many systems at once: the system x query ANOVA, Tukey's HSD and Sakai's randomised Tukey HSD.

The per-query values of one metric form a matrix X of n queries by k
systems. The two-way ANOVA without replication splits its variation into a
system effect, a query effect and a residual (the system x query
interaction); the residual mean square is the noise every pairwise
difference of means is measured against, with (k - 1)(n - 1) degrees of
freedom. Effects and residuals equal to 0 up to rounding (the tolerance of
the values, :mod:`~sklearn_rankmetrics._core._tolerance`) are 0: systems that
differ only by rounding have no system effect, and systems that differ by
the same amount on every query leave no residual.
"""

import itertools

import numpy as np
from scipy import stats

from .._core._parallel import map_in_threads
from .._core._resampling import BLOCK, Resamples
from .._core._tolerance import rounding_tolerance, sum_tolerance, values_scale, without_rounding
from .._core._validation import plain
from .._core._warnings import warn
from ._comparison_report import defined_values, import_pandas, metric_name
from ._paired_tests import exact_permutations, mean_difference, pair_differences
from ._studentized_range import studentized_range_sf

TUKEY_TESTS = ("tukey-hsd", "randomized-tukey-hsd")
# The numbers a block of the randomised Tukey HSD holds at a time: resamples x queries x systems.
CHUNK = 2**21


def residual_mean_square(matrix):
    """The residual mean square of the two-way ANOVA without replication of an (n, k) matrix, and its df."""
    n, k = matrix.shape
    residuals = matrix - matrix.mean(axis=0) - matrix.mean(axis=1, keepdims=True) + matrix.mean()
    residuals = without_rounding(residuals.ravel(), scale=values_scale(matrix))
    df = (n - 1) * (k - 1)
    return (float((residuals**2).sum() / df) if df else np.nan), df


def anova_table(values, runs=None):
    """The ANOVA of one metric's per-query values: rows and their sum_sq, df, mean_sq, F and pvalue.

    ``values`` maps each system to its per-query values (the queries every
    system defines); ``runs``, where systems have several runs, maps each
    system to an (n_runs, n_queries) array of them, the same number for all.
    Returns a dict of row name to a dict of those columns.
    """
    if runs is None:
        cube = np.column_stack(list(values.values()))[:, :, None]  # queries x systems x one run
    else:
        sizes = {name: len(run) for name, run in runs.items()}
        if len(set(sizes.values())) > 1:
            raise ValueError(
                f"RankingComparison.anova needs the same number of runs for every system; got {plain(sizes)}. "
                "Compare the same number of runs (seeds, folds) of each system."
            )
        cube = np.stack([np.asarray(run).T for run in runs.values()], axis=1)
    n, k, r = cube.shape
    if n < 2:
        raise ValueError(
            f"RankingComparison.anova needs at least two queries that every system defines; got {n}. With "
            "zero_division=np.nan, queries without a relevant document are left out."
        )
    grand = cube.mean()
    system_means = cube.mean(axis=(0, 2))
    query_means = cube.mean(axis=(1, 2))
    run_means = cube.mean(axis=0)  # systems x runs

    def squares(effects):  # the sum of squares of effects, those equal to 0 up to rounding left out
        return (without_rounding(np.ravel(effects), scale=values_scale(cube)) ** 2).sum()

    sums = {"system": n * r * squares(system_means - grand), "query": k * r * squares(query_means - grand)}
    df = {"system": k - 1, "query": n - 1}
    if r > 1:
        sums["run"] = n * squares(run_means - system_means[:, None])
        df["run"] = k * (r - 1)
    residuals = cube - run_means[None] - query_means[:, None, None] + grand
    sums["residual"], df["residual"] = squares(residuals), (k * r - 1) * (n - 1)
    table = {}
    for name in sums:
        mean_sq = sums[name] / df[name] if df[name] else np.nan
        table[name] = {"sum_sq": float(sums[name]), "df": float(df[name]), "mean_sq": float(mean_sq)}
    error = table["residual"]["mean_sq"]
    for name in table:
        if name == "residual":
            table[name].update(F=np.nan, pvalue=np.nan)
            continue
        with np.errstate(divide="ignore", invalid="ignore"):
            f = np.float64(table[name]["mean_sq"]) / error
        table[name].update(F=float(f), pvalue=float(stats.f.sf(f, df[name], df["residual"])))
    return table


def anova_frame(comparison, metric):
    """:meth:`RankingComparison.anova`: the table of :func:`anova_table` as a DataFrame."""
    pd = import_pandas("RankingComparison.anova")
    metric = metric_name(comparison, metric)
    values, defined = defined_values(comparison, metric)
    runs = comparison.run_values.get(metric)
    if runs is not None:
        runs = {name: run[:, defined] for name, run in runs.items()}
    table = anova_table(values, runs)
    return pd.DataFrame.from_dict(table, orient="index")[["sum_sq", "df", "mean_sq", "F", "pvalue"]]


def tukey_columns(values, pairs, test, n_resamples, confidence_level, rng):
    """Tukey's HSD (or Sakai's randomised version) of every pair of every metric of a group of metrics.

    ``values[metric][system]`` holds the per-query values; the k systems are
    all those of ``values``, whichever ``pairs`` are reported. Returns the
    arrays ``pvalue``, ``delta_ci_low``, ``delta_ci_high`` and
    ``effect_size``, one value per (metric, pair) column, metric by metric:
    :class:`TukeyNull` of the metrics, then its :meth:`TukeyNull.pairs`.
    """
    names = list(next(iter(values.values())))
    null = TukeyNull(
        [np.column_stack([values[metric][name] for name in names]) for metric in values],
        test,
        n_resamples,
        confidence_level,
        rng,
        list(values),
    )
    first, second = ([names.index(pair[side]) for pair in pairs] for side in (0, 1))
    columns = [
        null.pairs(m, mean_difference(pair_differences(matrix[:, second].T, matrix[:, first].T)))
        for m, matrix in enumerate(null.cube)
    ]
    return {key: np.concatenate([column[key] for column in columns]) for key in columns[0]}


class TukeyNull:
    """What every pair of a Tukey test needs, metric by metric: the residual, and the critical range.

    Parameters
    ----------
    matrices : list of ndarray of shape (n_queries, n_systems)
        Each metric's per-query values of all the k systems.
    test : {"tukey-hsd", "randomized-tukey-hsd"}
    n_resamples, confidence_level, rng
        As for :func:`compare_rankings`.
    metrics : list of str
        The metrics' names, for the warning of a residual of 0.

    Notes
    -----
    ``"tukey-hsd"``: the critical range is the ``confidence_level`` quantile
    of the studentized range times :math:`\\sqrt{MSE / n}`. The randomised
    test refers each pair's :math:`|\\delta|` to the ranges of the permuted
    means (every permutation when they fit in ``n_resamples``), shifted up
    by the rounding of means (:func:`range_tolerance`): the p-value counts
    the shifted ranges that reach :math:`|\\delta|`, and the critical range
    is the order statistic of the shifted ranges at which that count makes
    the p-value reach ``1 - confidence_level``. So the interval
    :math:`\\delta \\pm c` excludes 0 exactly when p < 1 - confidence_level,
    by construction: no quantile is interpolated between two ranges of a
    discrete distribution.
    """

    def __init__(self, matrices, test, n_resamples, confidence_level, rng, metrics):
        self.cube = cube = np.stack(matrices)  # metrics, queries, systems
        n_metrics, n, k = cube.shape
        self.n, self.k = n, k
        self.test = test
        self.variances = np.array([residual_mean_square(matrix)[0] for matrix in cube])
        df = max((n - 1) * (k - 1), 1)
        if test == "tukey-hsd":
            self.critical = stats.studentized_range.ppf(confidence_level, k, df) * np.sqrt(self.variances / n)
            self.df = df
            means = cube.mean(axis=1)
            effects = without_rounding(
                means - means.mean(axis=1, keepdims=True), scale=values_scale(cube, axis=(1, 2))[:, None]
            )
            warn_if_no_residual(self.variances, effects.any(axis=1), metrics, n)
        else:
            exact = exact_permutations(n, k, n_resamples)
            ranges = enumerated_ranges(cube) if exact else randomized_ranges(cube, n_resamples, rng)  # resamples, m
            # Enumerated, the observed permutation is among the ranges; sampled, it is added to them.
            self.extra, self.total = (0, len(ranges)) if exact else (1, n_resamples + 1)
            self.shifted = np.sort(ranges + range_tolerance(cube), axis=0)
            self.critical = np.array([self.critical_range(m, 1 - confidence_level) for m in range(n_metrics)])

    def critical_range(self, m, level):
        """The shifted range c of metric m above which a difference has p < ``level``: p < level iff |delta| > c."""
        # The largest count of shifted ranges reaching |delta| that still gives p < level (as the float division).
        count = int(np.ceil(level * self.total)) - self.extra
        while count >= 0 and (self.extra + count) / self.total >= level:
            count -= 1
        while (self.extra + count + 1) / self.total < level:
            count += 1
        if count < 0:
            return np.inf  # no difference reaches p < level: no interval excludes 0
        # At most `count` shifted ranges reach |delta| exactly when the (count + 1)-th largest is below it.
        return float(self.shifted[len(self.shifted) - count - 1, m])

    def pairs(self, m, deltas):
        """The p-values, interval ends and effect sizes of pairs of metric m, from their mean differences.

        ``deltas``: the mean of each pair's :func:`pair_differences`, 0 where
        the systems are equal up to rounding.
        """
        spread = np.sqrt(self.variances[m])  # nan on one query: no residual at all
        with np.errstate(divide="ignore", invalid="ignore"):
            # delta / sqrt(MSE), as effect_size: nan without a residual (one query), ±inf where the residual is 0.
            effect = deltas / spread if spread > 0 else np.sign(deltas) * (np.nan if np.isnan(spread) else np.inf)
            statistic = np.abs(deltas) / (spread / np.sqrt(self.n))
        if self.test == "tukey-hsd":
            pvalues = studentized_range_sf(np.where(deltas == 0, 0.0, statistic), self.k, self.df)
        else:
            reaching = len(self.shifted) - np.searchsorted(self.shifted[:, m], np.abs(deltas), side="left")
            pvalues = (self.extra + reaching) / self.total
        margin = np.full_like(deltas, self.critical[m])
        if self.n < 2:  # no residual to measure a difference against: every p-value is 1 (compare_rankings warns)
            pvalues, margin = np.ones_like(deltas), np.full_like(deltas, np.nan)
        return {
            "pvalue": np.where(deltas == 0, 1.0, pvalues),
            "delta_ci_low": deltas - margin,
            "delta_ci_high": deltas + margin,
            "effect_size": np.where(deltas == 0, 0.0, effect),  # no difference: no effect, as d_z
        }


def range_tolerance(cube):
    """The rounding of a range of permuted means against a pair's mean difference, per metric of ``cube``.

    A permuted system's mean sums n values, at most the largest of each
    query's in magnitude (:func:`sum_tolerance` of those, over n); the
    pair's differences are the values' own, equal up to their tolerance.
    """
    n = cube.shape[1]
    largest = np.abs(cube).max(axis=2).sum(axis=1)
    return sum_tolerance(n, largest) / max(n, 1) + rounding_tolerance(values_scale(cube, axis=(1, 2)))


def warn_if_no_residual(variances, differs, metrics, n):
    """Warn where a metric's residual variance is 0: its studentized ranges are infinite, its p-values 0."""
    for m in np.flatnonzero((variances == 0) & differs & (n > 1)):
        warn(
            f"The residual variance of {plain(metrics[m])!r} is 0: every system differs from every other by the "
            "same amount on every query, so every studentized range is infinite and every p-value of a difference "
            "is 0. test='randomized-tukey-hsd' gives p-values that count the queries.",
            UserWarning,
        )


def randomized_ranges(cube, n_resamples, rng):
    """Sakai's randomised Tukey HSD: the range of the k system means after permuting each query's values.

    ``cube`` holds (metrics, queries, systems). Every resample draws one
    permutation of the systems per query, shared by the metrics, and
    returns, per metric, the largest minus the smallest permuted system mean.
    Resamples run in blocks (:func:`resample_blocks`), the queries of a block
    in chunks that keep it near ``CHUNK`` numbers.
    """
    n_metrics, n, k = cube.shape
    step = max(1, CHUNK // (BLOCK * k))  # queries per chunk

    def block(size, generator):
        sums = np.zeros((size, n_metrics, k))
        for start in range(0, n, step):
            stop = min(start + step, n)
            order = generator.permuted(np.broadcast_to(np.arange(k), (size, stop - start, k)), axis=-1)
            add_permuted(sums, cube, order, start)
        return permuted_range(sums / n)

    return Resamples(n_resamples, rng).concatenate(block)


def enumerated_ranges(cube):
    """The range of the system means under every permutation of the queries' values, up to relabelling systems.

    The first query keeps its order: permuting every query alike relabels
    the systems and leaves the range unchanged, so the (k!) ** (n - 1)
    assignments of the other queries give each distinct range as often as
    the (k!) ** n of all queries do. Assignment r gives query q the
    permutation of digit q - 1 of r in base k!. Blocks of ``BLOCK``.
    """
    n_metrics, n, k = cube.shape
    permutations = np.array(list(itertools.permutations(range(k))))
    powers = len(permutations) ** np.arange(n - 1)
    total = len(permutations) ** (n - 1)

    def block(start):
        assignments = np.arange(start, min(start + BLOCK, total))
        order = permutations[(assignments[:, None] // powers) % len(permutations)]  # assignment, query, system
        sums = np.broadcast_to(cube[:, 0], (len(assignments), n_metrics, k)).copy()
        add_permuted(sums, cube[:, 1:], order, 0)
        return permuted_range(sums / n)

    return np.concatenate(map_in_threads(block, range(0, total, BLOCK)))


def add_permuted(sums, cube, order, start):
    """Add to ``sums`` (resamples, metrics, systems) the values of queries ``start...`` permuted by ``order``.

    ``order[r, q]`` is the permutation of query ``start + q`` in resample r:
    system j receives that query's value of system ``order[r, q, j]``.
    """
    n_metrics, _, k = cube.shape
    flat = cube.reshape(n_metrics, -1)
    cells = order + (np.arange(start, start + order.shape[1]) * k)[:, None]  # resample, query, system -> flat cell
    for m in range(n_metrics):
        sums[:, m] += flat[m][cells].sum(axis=1)


def permuted_range(means):
    """The largest minus the smallest of the systems' means (last axis)."""
    return means.max(axis=-1) - means.min(axis=-1)
