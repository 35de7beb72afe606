"""Is system B really better than A? Paired tests over queries, intervals and multiple-comparison corrections.

Per-query values come from one sort per system (:func:`ranking_report`); every
test then works on the matrix of paired per-query differences, all resamples
at once in blocks (sign flips and bootstrap counts are matrix products), never
a Python loop per resample.
"""

import itertools
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from .._core._parallel import sum_in_threads
from .._core._resampling import BLOCK, bootstrap_means, check_resampling, resample_blocks
from .._core._validation import check_option, plain
from .._core._warnings import warn
from ..metrics._report import ranking_report

TESTS = ("randomization", "t-test", "wilcoxon", "bootstrap")
CORRECTIONS = ("holm", "bonferroni", None)
COLUMNS = (
    "system",
    "metric",
    "mean",
    "ci_low",
    "ci_high",
    "baseline",
    "delta",
    "delta_ci_low",
    "delta_ci_high",
    "pvalue",
    "pvalue_adjusted",
    "effect_size",
    "wins",
    "ties",
    "losses",
)
# A system's row before (or without) a comparison with a baseline.
EMPTY_ROW = {**dict.fromkeys(COLUMNS, np.nan), "baseline": None}
# Options of compare_rankings that reach ranking_report.
REPORT_OPTIONS = ("ties", "zero_division")


@dataclass
class RankingComparison:
    """The result of :func:`compare_rankings`: one row per (system, metric), and per pair tested.

    Parameters
    ----------
    rows : list of dict
        One dict per row, with the keys of :meth:`to_frame`'s columns.
    test : str
        The test used.
    correction : str or None
        The correction used.
    confidence_level : float
        The level of every interval; a difference is marked significant when
        its adjusted p-value is below ``1 - confidence_level``.
    n_queries : int
        The number of queries compared.
    per_query : dict
        The per-query values compared: ``"qid"`` to the query ids, and each
        metric to a dict of system name to values (nan where a query is left
        out by ``zero_division=np.nan``).

    See Also
    --------
    compare_rankings : Builds it.

    Examples
    --------
    >>> from sklearn_rankmetrics import compare_rankings
    >>> result = compare_rankings([1, 0, 0, 1, 1, 0], {"a": [3, 2, 1, 3, 2, 1], "b": [1, 2, 3, 1, 2, 3]},
    ...                           qid=[1, 1, 1, 2, 2, 2], metrics=["mrr"], random_state=0)
    >>> round(result.rows[1]["delta"], 4)  # reciprocal ranks 1/3 and 1/2 against 1 and 1
    -0.5833
    """

    rows: list = field(default_factory=list)
    test: str = "randomization"
    correction: str = "holm"
    confidence_level: float = 0.95
    n_queries: int = 0
    per_query: dict = field(default_factory=dict, repr=False)

    def to_frame(self):
        """The rows as a long pandas DataFrame with the columns of :data:`COLUMNS`.

        Returns
        -------
        frame : pandas.DataFrame
            One row per (system, metric) and baseline.
        """
        try:
            import pandas as pd
        except ImportError as error:  # pragma: no cover - pandas is a test dependency
            raise ImportError("RankingComparison.to_frame needs pandas: pip install pandas.") from error
        return pd.DataFrame(self.rows, columns=list(COLUMNS))

    def __str__(self):
        metrics = list(dict.fromkeys(row["metric"] for row in self.rows))
        systems = list(dict.fromkeys(row["system"] for row in self.rows))
        alpha = 1 - self.confidence_level
        cells = {}
        for row in self.rows:
            text = f"{row['mean']:.4f}"
            if row["baseline"] is not None:
                marker = "*" if row["pvalue_adjusted"] < alpha else " "
                text += f" {row['delta']:+.4f}{marker}"
            cells.setdefault((row["system"], row["metric"]), text)
        width = max(len(text) for text in cells.values()) + 2
        name_width = max(len(str(system)) for system in systems) + 2
        lines = ["".ljust(name_width) + "".join(metric.rjust(width) for metric in metrics)]
        for system in systems:
            line = str(system).ljust(name_width)
            line += "".join(cells.get((system, metric), "").rjust(width) for metric in metrics)
            lines.append(line)
        correction = self.correction or "no correction"
        lines.append(
            f"mean, then the difference to the baseline; * p < {alpha:.2g} ({self.test} test, {correction}, "
            f"{self.n_queries} queries)"
        )
        return "\n".join(lines)

    def __repr__(self):
        return str(self)


def compare_rankings(
    y_true,
    y_scores,
    *,
    qid=None,
    metrics=("ndcg@10",),
    baseline=None,
    test="randomization",
    correction="holm",
    n_resamples=10_000,
    confidence_level=0.95,
    random_state=None,
    **options,
):
    """Compare ranking systems on the same queries with paired significance tests.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_queries, n_docs)
        Relevance labels, as for :func:`ranking_report`.
    y_scores : dict of str to array-like
        Each system's scores of the same rows, by system name (at least two).
    qid : array-like of shape (n_samples,), default=None
        Query id of each row, as for :func:`ranking_report`.
    metrics : sequence of str, default=("ndcg@10",)
        Metric names, as for :func:`get_ranking_scorer`.
    baseline : str, default=None
        The system every other one is compared with; None: every pair.
    test : {"randomization", "t-test", "wilcoxon", "bootstrap"}, default="randomization"
        The paired two-sided test of a zero mean difference over queries:
        sign-flip randomization (exact enumeration when ``2**n_queries <=
        n_resamples``), ``scipy.stats.ttest_rel``, ``scipy.stats.wilcoxon``,
        or the studentized bootstrap (bootstrap-t) of the differences [1]_ [2]_.
    correction : {"holm", "bonferroni", None}, default="holm"
        Adjusts the p-values for testing every (pair, metric) of the call.
    n_resamples : int, default=10_000
        Resamples of the randomization and bootstrap tests and of the
        bootstrap intervals.
    confidence_level : float, default=0.95
        Level of the percentile bootstrap intervals over queries.
    random_state : int, RandomState instance or None, default=None
        Seeds the resampling; an int makes results reproducible.
    **options : dict
        ``ties`` and ``zero_division``, as for :func:`ranking_report`.
        Queries undefined for a metric (``zero_division=np.nan``) are left
        out of its comparison.

    Returns
    -------
    comparison : RankingComparison
        Prints as a table (system x metric, significance marked) and
        converts with ``to_frame()`` to a long DataFrame.

    See Also
    --------
    ranking_report : The per-query values compared.

    Notes
    -----
    For each metric and system: the mean over queries and its percentile
    bootstrap interval. For each pair: the mean paired difference ``delta``
    (system minus baseline) with its interval, the test's p-value, the
    adjusted p-value, the effect size :math:`d_z = \\bar d / s_d` (mean
    difference over its standard deviation; 0 for identical systems) and the
    numbers of queries where the system wins, ties and loses. Randomization
    and bootstrap p-values count the observed statistic among the resamples,
    :math:`(1 + \\#\\{|T^*| \\geq |T|\\}) / (1 + B)`, as
    ``scipy.stats.permutation_test``; identical systems get p = 1 from every
    test, and so does a comparison on one query (with a warning).

    The bootstrap test is the paired bootstrap-t of Efron and Tibshirani [1]_
    (Algorithm 16.2, the one-sample test of a mean) that Sakai [2]_ applies to
    IR metrics: the statistic is :math:`T = \\bar d / (s_d / \\sqrt n)`, and
    each resample of the differences centred at their mean, :math:`w_i = d_i
    - \\bar d`, gives :math:`T^* = \\bar w^* / (s^*_w / \\sqrt n)`, its own
    mean over its own standard deviation. With many queries its p-value
    agrees with the t-test's. With few, studentizing keeps the test at or
    below its level for symmetric, discrete, bounded and heavy-tailed
    differences and those of IR metrics (simulated from 2 to 30 queries),
    where the percentile (shift) test of the mean alone rejects a true null
    up to ten times too often. It is not exact: for strongly skewed
    continuous differences of mean 0 and few queries it rejects too often
    (at 0.05, about 0.06-0.07 for exponential differences and 0.09-0.12 for
    lognormal ones at 8 to 30 queries), if less often than the t-test and
    the randomization test. The randomization test is exact at every number
    of queries for its own null, systems exchangeable on each query (each
    difference as likely positive as negative): with few queries, use it.
    A bootstrap resample without spread (one query drawn n times, or only
    equal differences) counts as extreme, so p does not fall below
    :math:`n^{1 - n}`, the chance of such a resample: with 2 or 3 queries
    the test cannot reach 0.05, and a warning says so. A difference equal on
    every query leaves no spread to studentize by: p = 1, with a warning (the
    randomization test is exact for it).

    References
    ----------
    .. [1] B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap",
       Chapman & Hall, 1993, chapter 16.
    .. [2] T. Sakai, "Evaluating evaluation metrics based on the bootstrap",
       SIGIR 2006.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics import compare_rankings
    >>> rng = np.random.default_rng(0)
    >>> qid = np.repeat(np.arange(30), 10)
    >>> y_true = rng.integers(0, 3, 300)
    >>> good = y_true + rng.normal(0, 1, 300)
    >>> noise = rng.normal(0, 1, 300)
    >>> result = compare_rankings(y_true, {"noise": noise, "good": good}, qid=qid,
    ...                           metrics=["ndcg@10", "mrr"], baseline="noise", random_state=0)
    >>> frame = result.to_frame()
    >>> bool(frame.query("system == 'good' and metric == 'ndcg@10'")["pvalue_adjusted"].iloc[0] < 0.05)
    True
    """
    systems = check_systems(y_scores, baseline)
    test = check_option("test", test, TESTS)
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of 'holm', 'bonferroni', None; got {plain(correction)!r}.")
    n_resamples, confidence_level, rng = check_resampling(n_resamples, confidence_level, random_state)
    unknown = sorted(set(options) - set(REPORT_OPTIONS))
    if unknown:
        raise TypeError(f"compare_rankings takes the options {', '.join(REPORT_OPTIONS)}; got {', '.join(unknown)}.")
    reports = {
        name: ranking_report(y_true, scores, qid=qid, metrics=metrics, average=False, **options)
        for name, scores in systems.items()
    }
    pairs = (
        [(baseline, name) for name in systems if name != baseline]
        if baseline is not None
        else list(itertools.combinations(systems, 2))
    )
    # One stream of resamples for every metric: the Generator seeded from random_state.
    rows = []
    # Metrics whose defined queries are the same share their resamples (all of them, unless zero_division=nan).
    groups = {}
    for metric in metrics:
        defined = np.all([~np.isnan(report[metric]) for report in reports.values()], axis=0)
        groups.setdefault(defined.tobytes(), (defined, []))[1].append(metric)
    for defined, group in groups.values():
        values = {metric: {name: report[metric][defined] for name, report in reports.items()} for metric in group}
        rows += group_rows(values, pairs, test, n_resamples, confidence_level, rng)
    order = {metric: i for i, metric in enumerate(metrics)}
    rows.sort(key=lambda row: order[row["metric"]])
    adjust(rows, correction)
    ids = next(iter(reports.values()))["qid"]
    per_query = {
        "qid": ids,
        **{metric: {name: report[metric] for name, report in reports.items()} for metric in metrics},
    }
    return RankingComparison(rows, test, correction, confidence_level, len(ids), per_query)


def check_systems(y_scores, baseline):
    if not hasattr(y_scores, "items"):
        raise TypeError(
            f"y_scores must map system names to score arrays, as {{'bm25': s1, 'model': s2}}; got "
            f"{type(y_scores).__name__}."
        )
    systems = dict(y_scores)
    if len(systems) < 2:
        raise ValueError(f"compare_rankings needs at least two systems in y_scores; got {len(systems)}.")
    if baseline is not None and baseline not in systems:
        raise ValueError(
            f"baseline={plain(baseline)!r} is not a system of y_scores; the systems are {plain(list(systems))}."
        )
    return systems


def group_rows(values, pairs, test, n_resamples, confidence_level, rng):
    """The rows of metrics on the same queries: each system's mean and interval, then each pair's comparison.

    ``values[metric][system]`` holds the per-query values. Every interval and
    test of the group comes from the same resamples, as matrix products.
    """
    metrics, names = list(values), list(next(iter(values.values())))
    columns = np.column_stack([values[metric][name] for metric in metrics for name in names])
    n_systems = columns.shape[1]
    # Each difference column is system b minus system a of the same metric: a matrix of +1 and -1.
    contrast = np.zeros((n_systems, len(metrics) * len(pairs)))
    for m, (j, (a, b)) in itertools.product(range(len(metrics)), enumerate(pairs)):
        contrast[m * len(names) + names.index(b), m * len(pairs) + j] = 1.0
        contrast[m * len(names) + names.index(a), m * len(pairs) + j] = -1.0
    differences = columns @ contrast
    # One set of bootstrap resamples: the means of the systems (and so of their differences) and, for the
    # bootstrap-t test, the moments of the differences it studentizes by.
    moments = [bootstrap_t_columns(differences)] if test == "bootstrap" else []
    resampled = bootstrap_means(np.column_stack([columns, *moments]), n_resamples, rng)
    moments = resampled[:, n_systems:]
    resampled = np.column_stack([resampled[:, :n_systems], resampled[:, :n_systems] @ contrast])
    tail = (1 - confidence_level) / 2
    low, high = np.quantile(resampled, [tail, 1 - tail], axis=0)
    pvalues = paired_pvalues(differences, test, n_resamples, rng, moments)
    warn_if_powerless(differences, test, 1 - confidence_level, metrics, pairs)
    rows = []
    for m, metric in enumerate(metrics):
        summary = {
            name: {
                "system": name,
                "metric": metric,
                "mean": float(values[metric][name].mean()),
                "ci_low": float(low[m * len(names) + i]),
                "ci_high": float(high[m * len(names) + i]),
            }
            for i, name in enumerate(names)
        }
        compared = {b for _, b in pairs}
        rows += [{**EMPTY_ROW, **summary[name]} for name in names if name not in compared]
        for j, (a, b) in enumerate(pairs):
            column = m * len(pairs) + j
            d = differences[:, column]
            rows.append(
                {
                    **EMPTY_ROW,
                    **summary[b],
                    "baseline": a,
                    "delta": float(d.mean()),
                    "delta_ci_low": float(low[n_systems + column]),
                    "delta_ci_high": float(high[n_systems + column]),
                    "pvalue": pvalues[column],
                    "effect_size": effect_size(d),
                    "wins": int(np.sum(d > 0)),
                    "ties": int(np.sum(d == 0)),
                    "losses": int(np.sum(d < 0)),
                }
            )
    return rows


def effect_size(d):
    """Cohen's d_z: the mean paired difference over its standard deviation (0 when both are 0)."""
    spread = d.std(ddof=1) if len(d) > 1 else 0.0
    if spread == 0:
        return 0.0 if d.mean() == 0 else float(np.sign(d.mean()) * np.inf)
    return float(d.mean() / spread)


def paired_pvalues(differences, test, n_resamples, rng, moments):
    """Two-sided p-values of a zero mean difference, one per column of paired differences.

    ``moments`` holds, for the bootstrap test, the bootstrap means of the
    centred differences and of their squares (one row per resample).
    """
    identical = np.all(differences == 0, axis=0)
    if test == "t-test":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # constant differences
            pvalues = stats.ttest_rel(differences, np.zeros_like(differences), axis=0).pvalue
    elif test == "wilcoxon":
        pvalues = np.array(
            [1.0 if same else stats.wilcoxon(d).pvalue for d, same in zip(differences.T, identical, strict=True)]
        )
    elif test == "bootstrap":
        pvalues = bootstrap_t_pvalues(differences, moments)
    else:
        pvalues = randomization_pvalues(differences, n_resamples, rng)
    return np.where(identical, 1.0, np.nan_to_num(pvalues, nan=1.0)).tolist()


def bootstrap_t_columns(differences):
    """The columns whose bootstrap means the bootstrap-t test needs: the centred differences and their squares."""
    centred = differences - differences.mean(axis=0)
    return np.column_stack([centred, centred**2])


def bootstrap_t_pvalues(differences, moments):
    """Studentized bootstrap p-values: how often a resample's t statistic about the observed mean is as extreme.

    ``moments`` holds each resample's means of :func:`bootstrap_t_columns`
    (one row per resample): of the centred differences ``w = d - mean(d)``,
    and of ``w**2``. The statistic is the mean over the plug-in standard
    deviation, the t statistic divided by the constant ``sqrt(n - 1)``. A
    resample without spread (one query drawn n times, or only equal values)
    has an infinite or undefined statistic and counts as extreme: that keeps
    the test conservative with few queries, where such resamples are frequent.
    """
    means, squares = np.hsplit(moments, 2)
    mean = differences.mean(axis=0)
    variances = squares - means**2
    spread = variances > 1e-12 * squares  # zero up to rounding otherwise
    with np.errstate(divide="ignore", invalid="ignore"):  # no spread: an infinite (or undefined) statistic
        observed = np.abs(mean) / np.sqrt(np.mean((differences - mean) ** 2, axis=0))
        statistics = np.abs(means) / np.sqrt(np.where(spread, variances, 1.0))
    extreme = ~spread | (statistics >= observed * (1 - 1e-12))  # as large up to rounding
    return (1 + extreme.sum(axis=0)) / (1 + len(extreme))


def warn_if_powerless(differences, test, alpha, metrics, pairs):
    """Warn where a test cannot give a meaningful p-value: one query, or a bootstrap-t test without spread."""
    n_queries = len(differences)
    names = ", ".join(map(repr, metrics))
    if n_queries < 2:
        warn(
            f"compare_rankings compared {names} on {n_queries} quer{'y' if n_queries else 'ies'}: a paired test "
            "needs at least two, so every p-value is 1. Compare on more queries.",
            UserWarning,
        )
        return
    if test != "bootstrap":
        return
    floor = float(n_queries) ** (1 - n_queries)
    if floor >= alpha:
        warn(
            f"With {n_queries} queries the bootstrap test of {names} cannot reach p < {alpha:.3g}: a resample "
            f"that draws one query {n_queries} times has no spread and counts as extreme, so p >= "
            f"{n_queries} ** (1 - {n_queries}) = {floor:.3g}, the chance of such a resample. Use the t-test or "
            "more queries.",
            UserWarning,
        )
    constant = ~np.all(differences == 0, axis=0) & np.all(differences == differences[:1], axis=0)
    for column in np.flatnonzero(constant):
        metric, (a, b) = metrics[column // len(pairs)], pairs[column % len(pairs)]
        warn(
            f"{plain(b)!r} minus {plain(a)!r} on {plain(metric)!r} is {differences[0, column]:g} on every query: "
            "without spread the bootstrap-t statistic is undefined and its p-value is 1. The randomization test "
            "gives an exact p-value for such differences.",
            UserWarning,
        )


def at_least(statistics, observed, tolerance):
    """Whether each resampled |statistic| reaches the observed one, up to ``tolerance`` for rounding."""
    return np.abs(statistics) >= np.abs(observed) - tolerance


def sum_tolerance(differences):
    """How far apart two float sums of ``±d_i`` over the queries may fall when their exact values are equal.

    A float sum of n terms is off by at most ``n * eps / 2 * sum|d_i|``;
    a sign-flipped sum (``2 * b @ d - sum(d)``) by about three times that,
    and the observed sum by once that. ``4 * n * eps * sum|d_i|`` covers
    both, whatever the order of summation. A bound relative to the observed
    sum would not: when the exact mean difference is 0, the float one is
    rounding noise, and every sign vector must count.
    """
    return 4 * len(differences) * np.finfo(np.float64).eps * np.abs(differences).sum(axis=0)


def randomization_pvalues(differences, n_resamples, rng):
    """Sign-flip randomization: exact over all 2**n sign vectors when that many fit in ``n_resamples``.

    A sign vector counts when the |sum| of its flipped differences reaches
    the observed |sum| up to :func:`sum_tolerance`, so sums equal in exact
    arithmetic count whatever their rounding.
    """
    n_queries = len(differences)
    if 2**n_queries <= n_resamples:
        return exact_randomization_counts(differences) / 2**n_queries
    observed, tolerance = differences.sum(axis=0), sum_tolerance(differences)

    def block(size, generator):
        # Sum of s_i d_i with random signs s = 2 b - 1: 2 (b @ d) - sum(d), with bits b from random bytes.
        bits = np.unpackbits(generator.integers(0, 256, size=(size, (n_queries + 7) // 8), dtype=np.uint8), axis=1)
        flipped = 2.0 * (bits[:, :n_queries].astype(np.float64) @ differences) - observed
        return at_least(flipped, observed, tolerance)

    count = resample_blocks(n_resamples, rng, block).sum(axis=0)
    return (count + 1) / (n_resamples + 1)


def exact_randomization_counts(differences):
    """How many of the 2**n sign vectors give a sum at least as extreme as the observed one, per column.

    The vectors are enumerated in blocks of ``BLOCK`` (vector r flips the
    queries whose bit is set in r), a few blocks per thread at a time, their
    counts added as they come: memory stays small whatever n.
    """
    n_queries = len(differences)
    observed, tolerance = differences.sum(axis=0), sum_tolerance(differences)
    bits = np.arange(n_queries)

    def block(start):
        vectors = np.arange(start, min(start + BLOCK, 2**n_queries))
        signs = 1.0 - 2.0 * ((vectors[:, None] >> bits) & 1)
        return at_least(signs @ differences, observed, tolerance).sum(axis=0)

    return sum_in_threads(block, range(0, 2**n_queries, BLOCK))


def adjust(rows, correction):
    """Set ``pvalue_adjusted`` of the rows of a pair, across all the (pair, metric) rows tested."""
    tested = [row for row in rows if row["baseline"] is not None]
    if tested:
        adjusted = holm_bonferroni(np.array([row["pvalue"] for row in tested]), correction)
        for row, value in zip(tested, adjusted, strict=True):
            row["pvalue_adjusted"] = float(value)


def holm_bonferroni(pvalues, correction):
    """Bonferroni (each p times the number of tests) or Holm's step-down adjustment, capped at 1."""
    m = len(pvalues)
    if correction is None:
        return pvalues
    if correction == "bonferroni":
        return np.minimum(pvalues * m, 1.0)
    order = np.argsort(pvalues, kind="stable")
    stepped = np.maximum.accumulate(pvalues[order] * (m - np.arange(m)))
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted
