"""Many systems at once: the system x query ANOVA, Tukey's HSD and Sakai's randomised Tukey HSD.

The per-query values of one metric form a matrix X of n queries by k
systems. The two-way ANOVA without replication splits its variation into a
system effect, a query effect and a residual (the system x query
interaction); the residual mean square is the noise every pairwise
difference of means is measured against, with (k - 1)(n - 1) degrees of
freedom.
"""

import itertools
import warnings

import numpy as np
from scipy import integrate, stats

from .._core._parallel import map_in_threads
from .._core._resampling import BLOCK, resample_blocks
from .._core._validation import plain
from .._core._warnings import warn
from ._comparison_report import defined_values, import_pandas, metric_name
from ._paired_tests import exact_permutations

TUKEY_TESTS = ("tukey-hsd", "randomized-tukey-hsd")
# The numbers a block of the randomised Tukey HSD holds at a time: resamples x queries x systems.
CHUNK = 2**21


def residual_mean_square(matrix):
    """The residual mean square of the two-way ANOVA without replication of an (n, k) matrix, and its df."""
    n, k = matrix.shape
    residuals = matrix - matrix.mean(axis=0) - matrix.mean(axis=1, keepdims=True) + matrix.mean()
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
    sums = {
        "system": n * r * ((system_means - grand) ** 2).sum(),
        "query": k * r * ((query_means - grand) ** 2).sum(),
    }
    df = {"system": k - 1, "query": n - 1}
    if r > 1:
        sums["run"] = n * ((run_means - system_means[:, None]) ** 2).sum()
        df["run"] = k * (r - 1)
    residuals = cube - run_means[None] - query_means[:, None, None] + grand
    sums["residual"], df["residual"] = (residuals**2).sum(), (k * r - 1) * (n - 1)
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


def studentized_range_sf(q, k, df):
    """``scipy.stats.studentized_range.sf``, quiet where its integral of a negligible tail warns."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        return np.asarray(stats.studentized_range.sf(q, k, df), dtype=np.float64)


def tukey_columns(values, pairs, test, n_resamples, confidence_level, rng):
    """Tukey's HSD (or Sakai's randomised version) of every pair of every metric of a group of metrics.

    ``values[metric][system]`` holds the per-query values; the k systems are
    all those of ``values``, whichever ``pairs`` are reported. Returns the
    arrays ``pvalue``, ``delta_ci_low``, ``delta_ci_high`` and
    ``effect_size``, one value per (metric, pair) column, metric by metric.
    The randomised test enumerates every permutation when all (k!) ** n of
    them fit in ``n_resamples`` (:func:`enumerated_ranges`), and samples
    ``n_resamples`` of them otherwise (:func:`randomized_ranges`).
    """
    metrics, names = list(values), list(next(iter(values.values())))
    cube = np.stack([np.column_stack([values[metric][name] for name in names]) for metric in metrics])  # m, n, k
    n, k = cube.shape[1:]
    index = {name: i for i, name in enumerate(names)}
    first = np.array([index[a] for a, _ in pairs], dtype=np.intp)
    second = np.array([index[b] for _, b in pairs], dtype=np.intp)
    means = cube.mean(axis=1)  # m, k
    deltas = means[:, second] - means[:, first]  # m, pairs
    variances = np.array([residual_mean_square(matrix)[0] for matrix in cube])  # m
    # A residual of rounding errors alone (each system a constant shift of the others) is no residual.
    variances[variances <= 1e-24 * (cube**2).mean(axis=(1, 2))] = 0.0
    df = (n - 1) * (k - 1)
    spread = np.sqrt(variances)[:, None]  # nan on one query: no residual at all
    with np.errstate(divide="ignore", invalid="ignore"):
        # delta / sqrt(MSE), as effect_size: nan without a residual (one query), ±inf where the residual is 0.
        effect = np.where(spread > 0, deltas / spread, np.sign(deltas) * np.where(np.isnan(spread), np.nan, np.inf))
        statistic = np.abs(deltas) / (spread / np.sqrt(n))
    if test == "tukey-hsd":
        pvalues = studentized_range_sf(np.where(deltas == 0, 0.0, statistic), k, max(df, 1))
        margin = stats.studentized_range.ppf(confidence_level, k, max(df, 1)) * np.sqrt(variances / n)[:, None]
        warn_if_no_residual(variances, deltas, metrics, n)
    else:
        exact = exact_permutations(n, k, n_resamples)
        ranges = enumerated_ranges(cube) if exact else randomized_ranges(cube, n_resamples, rng)  # resamples, m
        tolerance = 4 * n * np.finfo(np.float64).eps * np.abs(cube).mean(axis=1).max(axis=1)  # rounding of means
        count = (ranges[:, :, None] >= np.abs(deltas)[None] - tolerance[None, :, None]).sum(axis=0)
        # Enumerated, the observed permutation is among the ranges; sampled, it is added to them.
        pvalues = count / len(ranges) if exact else (1 + count) / (1 + n_resamples)
        margin = np.broadcast_to(np.quantile(ranges, confidence_level, axis=0)[:, None], deltas.shape)
    if n < 2:  # no residual to measure a difference against: every p-value is 1 (compare_rankings warns)
        pvalues, margin = np.ones_like(deltas), np.full_like(deltas, np.nan)
    pvalues = np.where(deltas == 0, 1.0, pvalues)
    return {
        "pvalue": pvalues.ravel(),
        "delta_ci_low": (deltas - margin).ravel(),
        "delta_ci_high": (deltas + margin).ravel(),
        "effect_size": np.where(deltas == 0, 0.0, effect).ravel(),  # no difference: no effect, as d_z
    }


def warn_if_no_residual(variances, deltas, metrics, n):
    """Warn where a metric's residual variance is 0: its studentized ranges are infinite, its p-values 0."""
    for m in np.flatnonzero((variances == 0) & (deltas != 0).any(axis=1) & (n > 1)):
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

    return resample_blocks(n_resamples, rng, block)


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
