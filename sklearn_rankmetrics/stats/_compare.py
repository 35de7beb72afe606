"""Is system B really better than A? Paired tests over queries, intervals and multiple-comparison corrections.

Per-query values come from one sort per system (:func:`ranking_report`); every
test then works on the matrix of paired per-query differences, all resamples
at once in blocks (sign flips and bootstrap counts are matrix products), never
a Python loop per resample.
"""

import itertools

import numpy as np

from .._core._resampling import check_resampling
from .._core._validation import plain
from .._core._warnings import warn
from ..registry._names import metric_info
from ..registry._report import ranking_report
from ._anova import TUKEY_TESTS
from ._caveats import warn_if_negligible, warn_if_wilcoxon_at_scale
from ._comparison import RankingComparison
from ._multiplicity import adjust, adjust_maxt
from ._pair_rows import group_rows
from ._power import check_alpha
from ._runs import average_runs, run_spread, split_runs, warn_if_runs_disagree
from ._vocabulary import resolve_correction, resolve_test

# Options of compare_rankings that reach ranking_report.
REPORT_OPTIONS = ("ties", "zero_division")


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
    alpha=0.05,
    random_state=None,
    **options,
):
    """Compare ranking systems on the same queries with paired significance tests.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_queries, n_docs)
        Relevance labels, as for :func:`ranking_report`.
    y_scores : dict of str to array-like, or to a list of array-likes
        Each system's scores of the same rows, by system name (at least two).
        A list of score arrays (or an array of shape ``(n_runs, *y_true.shape)``,
        one run per row, a pandas DataFrame's rows too) gives a system's runs:
        seeds, folds, shards (see Notes).
    qid : array-like of shape (n_samples,), default=None
        Query id of each row, as for :func:`ranking_report`.
    metrics : sequence of str, default=("ndcg@10",)
        Metric names, as for :func:`get_ranking_scorer`: at least one, each
        metric once (two spellings of one metric, as ``"ndcg@10"`` and
        ``"nDCG@10"``, are refused: it would count twice in the corrections).
    baseline : str, default=None
        The system every other one is compared with; None: every pair.
    test : {"randomization", "t-test", "wilcoxon", "bootstrap", "tukey-hsd", \
"randomized-tukey-hsd"}, default="randomization"
        The two-sided test of a zero mean difference over queries:
        sign-flip randomization (exact enumeration when ``2**n_queries <=
        n_resamples``), ``scipy.stats.ttest_rel``, ``scipy.stats.wilcoxon``,
        the studentized bootstrap (bootstrap-t) of the differences [1]_ [2]_,
        or one test of all the systems at once: Tukey's honestly significant
        difference, or Sakai's randomised version of it [3]_ (see Notes).
        Peers' names are accepted too (ranx's ``"fisher"``, ``"student"``,
        ``"tukey"``; PyTerrier's ``"t"``: see :func:`compare_per_query`).
    correction : {"holm", "bonferroni", "fdr_bh", "maxT", None}, default="holm"
        Adjusts the p-values for testing every (pair, metric) of the call:
        Holm's step-down, Bonferroni, Benjamini-Hochberg's false discovery
        rate (``multipletests(method="fdr_bh")`` of statsmodels), or
        Westfall and Young's step-down resampling adjustment from the
        randomization test's own sign flips [4]_ [5]_ (``test="randomization"``
        only; see Notes); statsmodels' spellings too (``"bh"``, ``"b"``,
        ``"h"``). With a Tukey
        test, which already adjusts over the pairs, it adjusts each pair's
        p-values across the metrics of the call only (one metric: none).
    n_resamples : int, default=10_000
        Resamples of the randomization, bootstrap and randomised Tukey tests
        and of the bootstrap intervals.
    confidence_level : float, default=0.95
        Level of the intervals: the percentile bootstrap intervals over
        queries of every mean and (but with a Tukey test) difference, and the
        simultaneous intervals of a Tukey test.
    alpha : float, default=0.05
        A difference is marked significant (in the printed table, the paper
        tables and the warnings) when its adjusted p-value is below it.
    random_state : int, RandomState instance, numpy Generator or None, default=None
        Seeds the resampling; an int (or a new ``np.random.default_rng(seed)``)
        makes results reproducible. One number is drawn from a Generator or
        RandomState passed, so passing the same one again gives new resamples.
    **options : dict
        ``ties`` and ``zero_division``, as for :func:`ranking_report`.
        Queries undefined for a metric (``zero_division=np.nan``) are left
        out of its comparison; each row's ``n_queries`` says how many it
        compared, and a warning says when no query is left.

    Returns
    -------
    comparison : RankingComparison
        Prints as a table (means, then every pair's difference, significance
        marked) and converts with ``to_frame()`` to a long DataFrame (one
        row per system and metric; ``to_frame(kind="pairs")``: one per pair
        tested), with
        ``to_markdown()``/``to_latex()`` to a paper table and with
        ``to_json()`` to text.

    Warns
    -----
    UserWarning
        Where a result would mislead: a comparison on one query, or on none
        (every query undefined); a randomization, bootstrap or randomised
        Tukey test that cannot reach ``alpha`` (too few queries or
        resamples); the Wilcoxon test on 1,000 queries
        or more [6]_; a significant difference whose effect size is below 0.2
        (negligible); a pair significant over the queries whose systems' runs
        do not differ (Welch's t-test over the run means); a Tukey test
        without residual variance.

    See Also
    --------
    ranking_report : The per-query values compared.
    RankingComparison.anova : The system x query ANOVA of a metric.
    topic_set_size : How many queries a difference needs.

    Notes
    -----
    For each metric and system: the mean over queries (the values summed in
    query order, as trec_eval sums them, over their number) and its
    percentile bootstrap interval. For each pair: the mean paired difference
    ``delta`` (system minus baseline) with its interval, the test's p-value, the
    adjusted p-value, the effect size :math:`d_z = \\bar d / s_d` (mean
    difference over its standard deviation: 0 where every difference is 0,
    nan otherwise on one query, where no standard deviation exists, and
    :math:`\\pm\\infty` where every difference is the same non-zero number,
    its limit as the spread vanishes; ``to_json`` writes it as ``"inf"``)
    and the numbers of queries where the system wins, ties and loses. Every
    row has ``n_queries``, the number of queries compared (those every
    system defines for its metric). Randomization and bootstrap p-values
    count the observed statistic among the resamples,
    :math:`(1 + \\#\\{|T^*| \\geq |T|\\}) / (1 + B)`, as
    ``scipy.stats.permutation_test``; identical systems get p = 1 from every
    test, and so does a comparison on one query or none (with a warning).

    The bootstrap test is the paired bootstrap-t of Efron and Tibshirani [1]_
    (Algorithm 16.2, the one-sample test of a mean) that Sakai [2]_ applies to
    IR metrics: the statistic is :math:`T = \\bar d / (s_d / \\sqrt n)`, and
    each resample of the differences centred at their mean, :math:`w_i = d_i
    - \\bar d`, gives :math:`T^* = \\bar w^* / (s^*_w / \\sqrt n)`, its own
    mean over its own standard deviation. With many queries its p-value
    agrees with the t-test's; studentizing keeps the test near its level
    where the percentile (shift) test of the mean alone rejects a true null
    up to ten times too often. With 13 queries or fewer, the bootstrap
    distribution of so few values is too coarse: for differences taking few
    values the bootstrap-t alone rejects a true null too often (at 0.05,
    with infinitely many resamples: 0.078 with 6 queries and 0.10 with 7
    for differences in {-1, 0, 1}, half of them 0; 0.070 with 13 queries
    for differences of ±1, the t-test 0.092), so there the p-value is
    the larger of the bootstrap-t's and the exact randomization test's (all
    :math:`2^n` sign flips). A test that rejects only where both do holds
    the randomization test's level, exact whenever the differences are
    symmetric about 0, and never exceeds the bootstrap-t's own; it cannot
    fall below :math:`2 / 2^n`, so with 5 queries or fewer the test cannot
    reach 0.05 (a warning says so). It is not exact for every null of a
    mean difference of 0: for strongly skewed continuous differences and
    few queries it rejects too often (at 0.05, about 0.06-0.07 for
    exponential differences and 0.09-0.12 for lognormal ones at 8 to 30
    queries), if less often than the t-test and the randomization test;
    and with more than 13 queries, for differences of a few values, its
    rejection rate moves about the level with the lattice of their
    possible means, as the t-test's does (differences of ±1 with 50
    queries: 0.065 for both). The randomization test is exact at every
    number of queries for its own null, systems exchangeable on each query
    (each difference as likely positive as negative): with few queries, use
    it. A bootstrap resample without spread (one query drawn n times, or
    only equal differences) counts as extreme. A difference equal on every
    query leaves no spread to studentize by: p = 1, with a warning (the
    randomization test is exact for it).

    The Tukey tests compare all k systems of ``y_scores`` at once, metric by
    metric (with a ``baseline``, only its pairs are reported, their p-values
    still those of the k systems). With n queries, the residual mean square
    MSE of the two-way ANOVA without replication (system x query, df
    :math:`(k-1)(n-1)`) measures the noise: ``"tukey-hsd"`` refers
    :math:`q = |\\bar x_b - \\bar x_a| / \\sqrt{MSE/n}` to the studentized
    range distribution of k means (``scipy.stats.studentized_range``), and
    its ``delta_ci_low``/``delta_ci_high`` are the simultaneous intervals
    :math:`\\delta \\pm q_{crit} \\sqrt{MSE/n}`. ``"randomized-tukey-hsd"``
    permutes each query's values across the systems in every resample, and
    :math:`p = (1 + \\#\\{\\max_{i,j} |\\bar x^*_i - \\bar x^*_j| \\geq
    |\\delta|\\}) / (1 + B)`, or, when the :math:`(k!)^n` permutations fit
    in ``n_resamples``, the share of all of them as extreme (enumerated, as
    the randomization test enumerates its sign flips: with two systems the
    two tests are then equal); its intervals are :math:`\\delta \\pm c`, where
    the critical range c is the permuted range (an order statistic, never a
    quantile interpolated between two of them) beyond which a difference's
    p-value falls below ``1 - confidence_level``: the interval excludes 0
    exactly when p < 1 - confidence_level. Both report Sakai's effect
    size :math:`\\delta / \\sqrt{MSE}` (as :math:`d_z`: 0 for no
    difference, nan on one query, :math:`\\pm\\infty` where MSE is 0). With
    two systems, Tukey's HSD is the paired t-test (:math:`q = \\sqrt 2\\,
    |t|`).

    A system of several runs is compared through its per-query values
    averaged over its runs: the tests ask whether the systems differ on the
    queries, on average over these runs, so the runs act as fixed. Their
    spread is not averaged away: each row has ``n_runs`` and ``run_std``,
    the standard deviation over the runs of the system's mean; the printed
    table shows it; :meth:`RankingComparison.anova` adds the run, nested in
    the system, as a factor; and a warning names the pairs significant over
    the queries whose run means do not differ by Welch's t-test, the
    question whether other runs would reproduce the difference. One run per
    system gives the result of single score arrays. Tukey's MSE is then the
    residual of the two-way ANOVA of the run-averaged values, which is the
    system x query interaction mean square of the runs' model ``value ~
    C(system) * C(query) + C(system):C(run)`` divided by the number of runs,
    not the residual of :meth:`RankingComparison.anova`'s run model (its
    Notes say why).

    ``correction="maxT"`` is Westfall and Young's step-down resampling
    adjustment [4]_ from the randomization test's own sign flips, which flip
    the same queries in every (pair, metric): it knows that the tests are
    correlated (the pairs share systems, the metrics share queries), where
    Holm and Bonferroni assume the worst. In each flip, every column's
    statistic is standardized by its own randomization distribution (its
    p-value among the flips), the form Westfall and Young call minP: the
    per-query differences of IR metrics are often tied at 0 on most queries
    for one pair and continuous for another, and on the raw t statistic of
    maxT proper (as in Boytsov et al. [5]_) such unlike columns made the
    adjustment exceed Bonferroni's. With the same ``random_state`` the raw
    p-values equal those of the other corrections (when every metric is
    defined on the same queries); every adjusted p-value lies between its
    raw p-value and Holm's (so Bonferroni's) adjustment. Memory: two
    ``n_resamples x n_tests`` arrays.

    Values equal up to rounding are equal. Two rankings that differ only in
    the order of documents of equal label have equal metrics, which floats
    (tie-averaged against tie-free sums) leave a few units in the last place
    apart. A pair's difference on a query within 256 ulps of the query's
    scale (the larger of its two values: about ``5.7e-14`` for values near
    1) of 0 is 0, and differences as close to each other are equal; a mean
    difference whose sum is 0 up to its rounding is 0. So such systems tie on
    every query, their delta, effect size and interval are 0 and every
    p-value is 1, differences equal up to rounding are ties of the Wilcoxon
    test, and a difference equal on every query up to rounding has no spread.
    ANOVA's effects and residual, Tukey's residual and the tables' best mean
    follow the same rule (``sklearn_rankmetrics._core._tolerance``).

    Many systems: the pairs are computed in blocks of at most 2**21 resampled
    numbers, from the systems' resampled means (``n_resamples x n_systems``),
    so memory grows with the systems, not with their pairs, and the results
    do not depend on the blocks.

    References
    ----------
    .. [1] B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap",
       Chapman & Hall, 1993, chapter 16.
    .. [2] T. Sakai, "Evaluating evaluation metrics based on the bootstrap",
       SIGIR 2006.
    .. [3] T. Sakai, "Laboratory Experiments in Information Retrieval",
       Springer, 2018, chapter 4; B. Carterette, "Multiple testing in
       statistical analysis of systems-based information retrieval
       experiments", ACM TOIS 30(1), 2012.
    .. [4] P. H. Westfall and S. S. Young, "Resampling-Based Multiple
       Testing", Wiley, 1993, section 2.6 and Algorithm 2.8.
    .. [5] L. Boytsov, A. Belova and P. Westfall, "Deciding on an adjustment
       for multiplicity in IR experiments", SIGIR 2013.
    .. [6] N. Ihemelandu and M. D. Ekstrand, "Inference at scale:
       significance testing for large search and recommendation
       experiments", SIGIR 2023.

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
    >>> pairs = result.to_frame(kind="pairs")
    >>> bool(pairs.query("system == 'good' and metric == 'ndcg@10'")["significant"].iloc[0])
    True

    Three systems at once, with Tukey's HSD:

    >>> better = y_true + rng.normal(0, 0.5, 300)
    >>> result = compare_rankings(y_true, {"noise": noise, "good": good, "better": better}, qid=qid,
    ...                           test="tukey-hsd")
    >>> print(result)  # doctest: +NORMALIZE_WHITESPACE
                       ndcg@10
    noise               0.8026
    good                0.9474
    better              0.9911
    <BLANKLINE>
    good - noise      +0.1447*
    better - noise    +0.1884*
    better - good     +0.0437
    means over 30 queries, then each pair's difference; * p < 0.05 (tukey-hsd test, holm)
    """
    systems = check_systems(y_scores, baseline)
    metrics = check_metrics(metrics)
    settings = check_settings(test, correction, alpha, n_resamples, confidence_level, random_state)
    unknown = sorted(set(options) - set(REPORT_OPTIONS))
    if unknown:
        raise TypeError(f"compare_rankings takes the options {', '.join(REPORT_OPTIONS)}; got {', '.join(unknown)}.")
    run_reports = {
        name: [
            system_report(name, index, len(runs), y_true, scores, qid, metrics, options)
            for index, scores in enumerate(runs)
        ]
        for name, runs in split_runs(systems, y_true).items()
    }
    return comparison_of(run_reports, metrics, baseline, **settings)


# ---- the comparison of per-query values, whatever computed them (compare_per_query, compare_runs too) ----


def check_settings(test, correction, alpha, n_resamples, confidence_level, random_state):
    """The checked settings of a comparison (test and correction in any accepted vocabulary), as keywords of
    :func:`comparison_of`."""
    test = resolve_test(test)
    correction = check_correction(correction, test)
    alpha = check_alpha(alpha)
    n_resamples, confidence_level, rng = check_resampling(n_resamples, confidence_level, random_state)
    return {
        "test": test,
        "correction": correction,
        "alpha": alpha,
        "n_resamples": n_resamples,
        "confidence_level": confidence_level,
        "rng": rng,
    }


def comparison_of(run_reports, metrics, baseline, *, test, correction, alpha, n_resamples, confidence_level, rng):
    """The RankingComparison of per-query values: ``run_reports[system]`` lists the reports of its runs.

    Each report is ``{"qid": ids, metric: values, ...}``, the values of every
    report on the same queries in the same order (NaN: undefined, left out of
    the metric's comparison); the settings are those :func:`check_settings`
    returns.
    """
    systems = list(run_reports)
    reports = {name: average_runs(runs) for name, runs in run_reports.items()}
    pairs = (
        [(baseline, name) for name in systems if name != baseline]
        if baseline is not None
        else list(itertools.combinations(systems, 2))
    )
    # One stream of resamples for every metric: the Generator seeded from random_state.
    rows = []
    # Metrics whose defined queries are the same share their resamples (all of them, unless zero_division=nan).
    groups, defined_queries = {}, {}
    for metric in metrics:
        defined = np.all([~np.isnan(report[metric]) for report in reports.values()], axis=0)
        groups.setdefault(defined.tobytes(), (defined, []))[1].append(metric)
        defined_queries[metric] = defined
    for defined, group in groups.values():
        values = {metric: {name: report[metric][defined] for name, report in reports.items()} for metric in group}
        if not defined.any():
            warn_if_no_query(group, len(defined))
        # maxT draws the sign flips of every group at once, after the intervals.
        rows += group_rows(
            values, pairs, test, n_resamples, confidence_level, alpha, rng, compute_pvalues=correction != "maxT"
        )
    order = {metric: i for i, metric in enumerate(metrics)}
    rows.sort(key=lambda row: order[row["metric"]])
    run_values = {
        metric: {name: np.array([report[metric] for report in runs]) for name, runs in run_reports.items()}
        for metric in metrics
    }
    for row in rows:
        row["n_runs"], row["run_std"] = run_spread(
            run_values[row["metric"]][row["system"]], defined_queries[row["metric"]]
        )
    if correction == "maxT":
        adjust_maxt(rows, reports, defined_queries, n_resamples, rng)
    else:
        adjust(rows, correction, by_pair=test in TUKEY_TESTS)
    ids = next(iter(reports.values()))["qid"]
    warn_if_wilcoxon_at_scale(test, max((int(defined.sum()) for defined in defined_queries.values()), default=0))
    warn_if_negligible(rows, alpha)
    warn_if_runs_disagree(rows, run_values, defined_queries, alpha)
    per_query = {
        "qid": ids,
        **{metric: {name: report[metric] for name, report in reports.items()} for metric in metrics},
    }
    several = any(len(runs) > 1 for runs in run_reports.values())
    compared = int(np.any(list(defined_queries.values()), axis=0).sum())  # by at least one metric
    return RankingComparison(
        rows, test, correction, confidence_level, compared, per_query, alpha, run_values if several else {}
    )


def system_report(name, index, n_runs, y_true, scores, qid, metrics, options):
    """The per-query values of a system's run; an error in its scores names the system (and the run)."""
    try:
        return ranking_report(y_true, scores, qid=qid, metrics=metrics, average=False, **options)
    except (ValueError, TypeError) as error:
        if "y_score" not in str(error):
            raise
        where = f"y_scores[{plain(name)!r}]" + (f"[{index}] (run {index + 1} of {n_runs})" if n_runs > 1 else "")
        raise type(error)(f"{where}: {error}") from error


def check_metrics(metrics):
    """The metric names as a list: at least one, and no metric twice under two spellings."""
    if isinstance(metrics, str):
        raise TypeError(f"metrics must be a sequence of metric names, such as [{plain(metrics)!r}]; got a string.")
    metrics = list(metrics)
    if not metrics:
        raise ValueError("metrics is empty: compare_rankings needs at least one metric name, such as ['ndcg@10'].")
    first = {}
    for name in metrics:
        try:
            info = metric_info(name)
        except (TypeError, ValueError):
            continue  # ranking_report names what is wrong with it
        if first.setdefault(info, name) is not name:
            raise ValueError(
                f"metrics names the same metric twice: {plain(first[info])!r} and {plain(name)!r} compute the same "
                "values (metric_info of both is the same). Each would count as a hypothesis of the corrections and "
                "a column of the tables: give each metric once."
            )
    return metrics


def warn_if_no_query(metrics, n_queries):
    """Warn where no query defines a group of metrics for every system: nothing is compared."""
    names = ", ".join(repr(plain(metric)) for metric in metrics)
    warn(
        f"No query defines {names} for every system: zero_division=np.nan leaves out the queries without a "
        f"relevant document, and none of the {n_queries} queries has one. Nothing is compared: the means and "
        "differences are nan and the p-values 1. Check y_true (its relevant documents), or pass zero_division=0.",
        UserWarning,
    )


def check_correction(correction, test):
    """The canonical correction (see :mod:`._vocabulary`); maxT only with the randomization test, whose resamples
    it needs."""
    correction = resolve_correction(correction)
    if correction == "maxT" and test != "randomization":
        raise ValueError(
            f"correction='maxT' needs test='randomization': it adjusts from that test's own sign flips, which "
            f"test={test!r} does not draw. Use correction='holm' or 'fdr_bh' with it"
            + (", or no correction: a Tukey test already adjusts over the pairs." if test in TUKEY_TESTS else ".")
        )
    return correction


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
