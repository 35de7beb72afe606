"""The result of compare_rankings: a table of pairs, and what it turns into (ANOVA, topic-set size, reports)."""

from dataclasses import dataclass, field

from . import _comparison_report, _frames
from ._anova import anova_frame
from ._power import queries_needed

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
    "n_queries",
    "n_runs",
    "run_std",
)


@dataclass
class RankingComparison:
    """A comparison of systems: one row per (system, metric), and per pair tested.

    The result of :func:`compare_rankings`, :func:`compare_runs` and
    :func:`compare_per_query`.

    Parameters
    ----------
    rows : list of dict
        One dict per row, with the keys of :meth:`to_frame`'s columns.
    test : str
        The test used.
    correction : str or None
        The correction used.
    confidence_level : float
        The level of every interval.
    n_queries : int
        The number of queries compared: those that every system defines for
        at least one metric (all the queries, unless ``zero_division=np.nan``
        leaves some out). Each row's ``n_queries`` is its own metric's.
    per_query : dict
        The per-query values compared: ``"qid"`` to the query ids, and each
        metric to a dict of system name to values (nan where a query is left
        out by ``zero_division=np.nan``); for a system of several runs, the
        mean over its runs.
    alpha : float, default=0.05
        A difference is significant when its adjusted p-value is below it.
    run_values : dict, default={}
        Where a system has several runs: each metric to a dict of system name
        to an (n_runs, n_queries) array of its runs' per-query values; empty
        when every system has one run.

    See Also
    --------
    compare_rankings : Builds it from labels and scores.
    compare_runs : Builds it from TREC runs and qrels.
    compare_per_query : Builds it from per-query values computed anywhere.

    Examples
    --------
    >>> from sklearn_rankmetrics import compare_rankings
    >>> result = compare_rankings([1, 0, 0, 1, 1, 0], {"a": [3, 2, 1, 3, 2, 1], "b": [1, 2, 3, 1, 2, 3]},
    ...                           qid=[1, 1, 1, 2, 2, 2], metrics=["mrr"], random_state=0)
    >>> round(result.rows[1]["delta"], 4)  # reciprocal ranks 1/3 and 1/2 against 1 and 1
    -0.5833
    >>> print(result)
            mrr
    a    1.0000
    b    0.4167
    <BLANKLINE>
    b - a  -0.5833
    means over 2 queries, then each pair's difference; * p < 0.05 (randomization test, holm)
    note: interval and * disagree for b - a (mrr): 95% interval [-0.6667, -0.5000], adjusted p = 0.5.
          The interval is a bootstrap interval of that difference alone, unadjusted; * is the adjusted p-value (holm
          over 1 test). Report significance from *, the size of a difference from its interval.

    Two queries cannot make a difference significant (the randomization
    test's smallest p-value is 0.5), yet the bootstrap interval of their two
    differences excludes 0: the note under the table says so.
    """

    rows: list = field(default_factory=list)
    test: str = "randomization"
    correction: str = "holm"
    confidence_level: float = 0.95
    n_queries: int = 0
    per_query: dict = field(default_factory=dict, repr=False)
    alpha: float = 0.05
    run_values: dict = field(default_factory=dict, repr=False)

    def to_frame(self, *, kind="systems"):
        """The comparison as a tidy long pandas DataFrame: the systems' means, or the pairs' tests.

        Parameters
        ----------
        kind : {"systems", "pairs", "rows"}, default="systems"
            ``"systems"``: one row per (system, metric), with the columns
            ``system``, ``metric``, ``mean``, ``ci_low``, ``ci_high``,
            ``n_queries``, ``n_runs`` and ``run_std`` (index it by system:
            ``frame.set_index(["system", "metric"])``). ``"pairs"``: one row
            per tested (pair, metric), with ``baseline``, ``system``,
            ``metric``, ``delta`` (system minus baseline), ``delta_ci_low``,
            ``delta_ci_high``, ``pvalue``, ``pvalue_adjusted``,
            ``significant`` (``pvalue_adjusted < alpha``: the mark of the
            printed table), ``effect_size``, ``wins``, ``ties``, ``losses``
            and ``n_queries``. ``"rows"``: the comparison's own rows, with
            every column of :data:`COLUMNS` (a system's own row, then each
            pair on the row of its system; the layout of ``to_frame()``
            before version 0.1).

        Returns
        -------
        frame : pandas.DataFrame
            ``n_queries`` is the number of queries its metric compared;
            ``wins``, ``ties``, ``losses`` and ``n_queries`` are integers,
            ``n_runs`` pandas' nullable ``Int64`` (and, with
            ``kind="rows"``, ``wins``, ``ties`` and ``losses`` too: missing
            on a system's own row, which has no pair).

        Notes
        -----
        A pair's interval (``delta_ci_low``, ``delta_ci_high``) can exclude 0
        while the pair is not significant, or the reverse: the interval is
        the percentile bootstrap interval of that difference alone (with a
        Tukey test, the simultaneous interval over the pairs of its
        metric), at ``confidence_level``, where ``significant`` reads the
        test's p-value adjusted over every (pair, metric) tested, at
        ``alpha``. Report significance from ``pvalue_adjusted`` and the size
        of the difference from the interval; the printed table says where
        the two disagree.

        Examples
        --------
        >>> from sklearn_rankmetrics import compare_rankings
        >>> result = compare_rankings([1, 0, 0, 1, 1, 0], {"a": [3, 2, 1, 3, 2, 1], "b": [1, 2, 3, 1, 2, 3]},
        ...                           qid=[1, 1, 1, 2, 2, 2], metrics=["mrr"], random_state=0)
        >>> result.to_frame().set_index("system").loc["b", "mean"].round(4)
        np.float64(0.4167)
        >>> result.to_frame(kind="pairs")[["baseline", "system", "delta", "significant"]].round(4)
          baseline system   delta  significant
        0        a      b -0.5833        False
        """
        return _frames.comparison_frame(self, COLUMNS, kind)

    def anova(self, metric=None):
        """The two-way ANOVA of a metric's per-query values: system x query, without replication.

        Parameters
        ----------
        metric : str, default=None
            One of the comparison's metrics; None: the first.

        Returns
        -------
        table : pandas.DataFrame
            Indexed ``"system"``, ``"query"`` and ``"residual"``, with the
            columns ``sum_sq``, ``df``, ``mean_sq``, ``F`` and ``pvalue``:
            equal to statsmodels' ``anova_lm(ols("value ~ C(system) +
            C(query)", data).fit(), typ=2)`` of the values in long format
            (the residual's ``F`` and ``pvalue`` are nan). Queries a system
            leaves undefined (``zero_division=np.nan``) are left out. Where
            the systems have several runs (the same number each), a ``"run"``
            row, the run nested in the system, follows ``"query"``: the model
            ``value ~ C(system) + C(query) + C(system):C(run)`` of every
            run's per-query values, every F against the residual (the runs as
            fixed effects, as statsmodels computes it).

        See Also
        --------
        compare_rankings : Its ``test="tukey-hsd"`` measures differences against the residual of one run per system.

        Notes
        -----
        With one run per system, Tukey's HSD (``test="tukey-hsd"``) measures
        every difference against this table's residual mean square. With
        several runs, the tests work on each system's per-query values
        averaged over its runs (the runs as fixed), and Tukey's HSD against
        the residual of this ANOVA of those averages, with
        :math:`(k - 1)(n - 1)` degrees of freedom: the system x query
        interaction of the runs' model ``value ~ C(system) * C(query) +
        C(system):C(run)``, whose mean square is r times it for r runs. The
        residual of this table's run model is another quantity: it pools
        that interaction with the run x query variation, which does not
        enter a difference of system means averaged over the same runs, and
        its degrees of freedom count every run as a replicate; measuring
        differences against it would mix two sources of noise. The ``"run"``
        row shows the run factor's own term.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_rankmetrics import compare_rankings
        >>> rng = np.random.default_rng(0)
        >>> qid, y_true = np.repeat(np.arange(20), 10), rng.integers(0, 3, 200)
        >>> scores = {"noise": rng.normal(size=200), "good": y_true + rng.normal(size=200)}
        >>> table = compare_rankings(y_true, scores, qid=qid, test="tukey-hsd").anova("ndcg@10")
        >>> table.index.tolist(), table.columns.tolist()
        (['system', 'query', 'residual'], ['sum_sq', 'df', 'mean_sq', 'F', 'pvalue'])
        >>> table["df"].tolist()
        [1.0, 19.0, 19.0]
        """
        return anova_frame(self, metric)

    def queries_needed(self, metric=None, *, power=0.8, alpha=None):
        """The number of queries that would make each tested difference significant, with a given power.

        The paired t-test's topic set size (:func:`topic_set_size`) for the
        pair's observed standardized difference :math:`d_z = \\bar d / s_d`,
        the mean of its per-query differences over their standard deviation,
        both estimated from this comparison: the smallest number of queries
        on which a difference as large, with per-query differences as
        variable, is detected with probability ``power``.

        Parameters
        ----------
        metric : str, default=None
            One of the comparison's metrics; None: the first.
        power : float, default=0.8
            The power to reach.
        alpha : float, default=None
            Significance level; None: the comparison's ``alpha``.

        Returns
        -------
        queries : dict
            ``(baseline, system)`` of each tested pair to the number of
            queries (None where the observed difference is 0: no number of
            queries detects it).

        Warns
        -----
        UserWarning
            Where a pair is not significant and needs more queries than were
            compared: too few queries for the requested power, so the
            comparison cannot tell whether a difference of that size exists.

        See Also
        --------
        topic_set_size : The same design for a difference chosen in advance.
        paired_t_power : The power at a given number of queries.

        Notes
        -----
        The observed effect is an estimate: with few queries it is noisy,
        and a planned study should use the smallest difference worth
        detecting instead (:func:`topic_set_size` with it). The number is for
        one paired t-test, before any correction for testing several pairs.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_rankmetrics import compare_rankings
        >>> rng = np.random.default_rng(0)
        >>> qid, y_true = np.repeat(np.arange(30), 10), rng.integers(0, 3, 300)
        >>> scores = {"a": y_true + rng.normal(0, 2, 300), "b": y_true + rng.normal(0, 1, 300)}
        >>> result = compare_rankings(y_true, scores, qid=qid, metrics=["ndcg@10"], test="t-test")
        >>> result.queries_needed(power=0.8)
        {('a', 'b'): 24}
        """
        return queries_needed(self, metric, power=power, alpha=alpha)

    def to_markdown(self, *, ci=True, effect_sizes=False, digits=4):
        """A Markdown table for a paper or a README: means, intervals and significance marks.

        One row per system, one column per metric. Each system gets a
        letter; a mean carries as superscripts the letters of the systems it
        is significantly better than (adjusted p below ``alpha``), as ranx's
        tables do. The best mean of each metric is bold, and so is every mean
        equal to it up to rounding (within 256 ulps of the metric's values:
        two systems that differ only in the order of tied documents). Names
        are escaped for GitHub's Markdown: ``\\ ` * _ { } [ ] < > | & ~ $ : #``,
        and ``@`` but in a metric's cutoff (``ndcg@10``).

        Parameters
        ----------
        ci : bool, default=True
            Show each mean's bootstrap interval in brackets.
        effect_sizes : bool, default=False
            Show, after each letter, the pair's effect size (absolute).
        digits : int, default=4
            Decimals of the means and intervals.

        Returns
        -------
        table : str
            The table, then a line that says what its marks mean.

        See Also
        --------
        RankingComparison.to_latex : The same table for LaTeX.

        Examples
        --------
        >>> from sklearn_rankmetrics import compare_rankings
        >>> result = compare_rankings([1, 0, 0, 1, 1, 0], {"a": [3, 2, 1, 3, 2, 1], "b": [1, 2, 3, 1, 2, 3]},
        ...                           qid=[1, 1, 1, 2, 2, 2], metrics=["mrr"], random_state=0)
        >>> print(result.to_markdown(ci=False))  # doctest: +ELLIPSIS
        | system | mrr |
        |---|---:|
        | (a) a | **1.0000** |
        | (b) b | 0.4167 |
        <BLANKLINE>
        Superscripts: significantly better than the system of that letter, adjusted p < 0.05 (...). Bold: the best mean.
        <BLANKLINE>
        """
        return _comparison_report.to_markdown(self, ci=ci, effect_sizes=effect_sizes, digits=digits)

    def to_latex(self, *, ci=True, effect_sizes=False, digits=4):
        """A LaTeX table (``tabular``, booktabs rules) for a paper: the layout of :meth:`to_markdown`.

        The best mean of each metric is bold, with every mean equal to it up
        to rounding, as in :meth:`to_markdown`.

        Parameters
        ----------
        ci : bool, default=True
            Show each mean's bootstrap interval in brackets.
        effect_sizes : bool, default=False
            Show, after each letter, the pair's effect size (absolute).
        digits : int, default=4
            Decimals of the means and intervals.

        Returns
        -------
        table : str
            A ``tabular`` environment (needs ``\\usepackage{booktabs}``),
            its last row the legend of its marks.

        See Also
        --------
        RankingComparison.to_markdown : The same table in Markdown.

        Examples
        --------
        >>> from sklearn_rankmetrics import compare_rankings
        >>> result = compare_rankings([1, 0, 0, 1, 1, 0], {"a": [3, 2, 1, 3, 2, 1], "b": [1, 2, 3, 1, 2, 3]},
        ...                           qid=[1, 1, 1, 2, 2, 2], metrics=["mrr"], random_state=0)
        >>> print(result.to_latex(ci=False).splitlines()[4])
        (a) a & \\textbf{1.0000} \\\\
        """
        return _comparison_report.to_latex(self, ci=ci, effect_sizes=effect_sizes, digits=digits)

    def to_json(self):
        """The whole comparison as JSON text, for :meth:`from_json`: settings, rows and per-query values.

        Returns
        -------
        text : str
            Standard JSON (nan written as null, an infinite effect size as
            the string "inf" or "-inf"). Query ids and system names
            must be strings or numbers.

        See Also
        --------
        RankingComparison.from_json : Reads it back.

        Examples
        --------
        >>> from sklearn_rankmetrics import RankingComparison, compare_rankings
        >>> result = compare_rankings([1, 0, 0, 1, 1, 0], {"a": [3, 2, 1, 3, 2, 1], "b": [1, 2, 3, 1, 2, 3]},
        ...                           qid=[1, 1, 1, 2, 2, 2], metrics=["mrr"], random_state=0)
        >>> str(RankingComparison.from_json(result.to_json())) == str(result)
        True
        """
        return _comparison_report.to_json(self)

    @classmethod
    def from_json(cls, text):
        """The comparison that :meth:`to_json` wrote.

        Parameters
        ----------
        text : str
            The JSON text.

        Returns
        -------
        comparison : RankingComparison
            Equal to the one written: the same rows (nan where they had nan)
            and per-query values.

        See Also
        --------
        RankingComparison.to_json : Writes it.

        Examples
        --------
        >>> from sklearn_rankmetrics import RankingComparison, compare_rankings
        >>> result = compare_rankings([1, 0, 0, 1, 1, 0], {"a": [3, 2, 1, 3, 2, 1], "b": [1, 2, 3, 1, 2, 3]},
        ...                           qid=[1, 1, 1, 2, 2, 2], metrics=["mrr"], random_state=0)
        >>> RankingComparison.from_json(result.to_json()).rows[1]["wins"]
        0
        """
        return _comparison_report.from_json(cls, text)

    def __str__(self):
        return _comparison_report.format_text(self)

    def __repr__(self):
        return str(self)
