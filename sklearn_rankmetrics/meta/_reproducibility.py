"""Were the original scores reproduced? RMSE, effect ratio, delta relative improvement and t-tests (Breuer et al. 2020).

Every function takes per-query scores in the layouts that evaluations give:
repro_eval's and pytrec_eval's ``{query: {measure: value}}``,
:func:`evaluate_run`'s per-query result ``{"qid": ids, measure: values}``, a
DataFrame of one row per query and one column per measure, a mapping
``{query: value}`` or an array (one measure). Queries are aligned by id.
"""

import numbers
import warnings

import numpy as np
from scipy import stats

from .._core._tolerance import equal_up_to_rounding
from .._core._validation import as_float_array, check_flag, plain
from .._core._warnings import warn
from ..stats._paired_tests import mean_difference, pair_differences
from ._inputs import is_empty, is_frame, is_series, key_of

# trec_eval's counts and strings, which repro_eval leaves out of every reproduction measure.
EXCLUDED = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "relstring")


class QueryTable:
    """Per-query scores: query ids (None for an array), measure names (None for one unnamed measure), values.

    ``values`` has shape (n_queries, n_measures).
    """

    def __init__(self, scores, name):
        self.name = name
        self.queries, self.measures, self.values = query_table(scores, name)

    def column(self, measure):
        return self.values[:, 0 if measure is None else self.measures.index(measure)]

    def aligned(self, other, other_name):
        """This table's values and ``other``'s on this table's queries and measures, row for row."""
        if (self.queries is None) != (other.queries is None):
            raise TypeError(
                f"{self.name} and {other_name} must both give query ids (mappings, tables) or both be arrays of "
                "per-query values in the same order of queries."
            )
        check_same_measures(self, other, other_name)
        columns = [other.column(measure) for measure in self.measure_list]
        values = np.column_stack(columns)
        if self.queries is None:
            if len(self.values) != len(values):
                raise ValueError(
                    f"{self.name} and {other_name} must score the same queries; got {len(self.values)} and "
                    f"{len(values)} values."
                )
            return self.values, values
        position = {query: i for i, query in enumerate(other.queries)}
        missing = [query for query in self.queries if query not in position]
        if missing:
            raise ValueError(
                f"{other_name} has no score for {len(missing)} of the queries of {self.name} (such as "
                f"{plain(missing[0])!r}): every query of {self.name} needs one."
            )
        extra = len(other.queries) - len(self.queries)
        if extra:
            warn(
                f"{other_name} scores {extra} quer{'y' if extra == 1 else 'ies'} that {self.name} does not; they are "
                f"left out, as repro_eval leaves them out: the comparison is over the queries of {self.name}.",
                UserWarning,
            )
        return self.values, values[[position[query] for query in self.queries]]

    @property
    def measure_list(self):
        return [None] if self.measures is None else self.measures


def check_same_measures(first, second, second_name):
    if (first.measures is None) != (second.measures is None):
        raise TypeError(
            f"{first.name} and {second_name} must both name their measures, or both hold a single measure's values."
        )
    if first.measures is not None:
        missing = [measure for measure in first.measures if measure not in second.measures]
        if missing:
            raise ValueError(f"{second_name} has no values of the measures {plain(missing)} of {first.name}.")


def query_table(scores, name):
    """(query ids or None, measure names or None, float64 values of shape (n_queries, n_measures))."""
    if is_empty(scores):
        raise ValueError(f"{name} is empty: give the per-query scores of at least one query.")
    if is_frame(scores):
        measures = [column for column in scores.columns if column not in EXCLUDED]
        values = as_float_array(scores[measures].to_numpy(dtype=np.float64), name, ndim=(2,))
        return list(map(key_of, scores.index)), list(map(key_of, measures)), values
    if is_series(scores):
        values = as_float_array(scores.to_numpy(dtype=np.float64), name)
        return list(map(key_of, scores.index)), None, values[:, None]
    if hasattr(scores, "items") and "qid" in scores and not hasattr(scores["qid"], "items"):
        # evaluate_run(..., average=False): {"qid": ids, measure: per-query values}
        measures = [measure for measure in scores if measure != "qid" and measure not in EXCLUDED]
        values = np.column_stack([as_float_array(scores[measure], f"{name}[{measure!r}]") for measure in measures])
        return list(map(key_of, scores["qid"])), measures, values
    if hasattr(scores, "items"):
        queries = list(map(key_of, scores.keys()))
        rows = list(scores.values())
        if rows and all(hasattr(row, "items") for row in rows):  # repro_eval's {query: {measure: value}}
            measures = [measure for measure in rows[0] if measure not in EXCLUDED]
            values = [[row.get(measure, np.nan) for measure in measures] for row in rows]
            values = as_float_array(
                np.array(values, dtype=np.float64).reshape(len(rows), len(measures)), name, ndim=(2,)
            )
            return queries, measures, values
        if not all(isinstance(row, numbers.Real) for row in rows):
            raise TypeError(
                f"{name} must map each query to a number, or to a dict of measure values; got {type(rows[0]).__name__}."
            )
        return queries, None, as_float_array(np.array(rows, dtype=np.float64), name)[:, None]
    return None, None, as_float_array(scores, name)[:, None]


def check_values(table):
    """Refuse NaN and infinity in a table of scores, naming the measure."""
    for j, measure in enumerate(table.measure_list):
        column = table.values[:, j]
        if not np.isfinite(column).all():
            label = table.name if measure is None else f"{table.name}'s {measure!r}"
            raise ValueError(
                f"{label} holds NaN or infinity (a query without this measure?); every query needs a finite score."
            )
    return table


def column_means(values):
    """The mean of each column, summed as numpy sums a 1-D array (pairwise), as repro_eval's means are."""
    return np.ascontiguousarray(values.T).mean(axis=1)


def by_measure(table, values):
    """A float for a single unnamed measure, else a dict of measure to value."""
    if table.measures is None:
        return float(values[0])
    return {measure: float(value) for measure, value in zip(table.measures, values, strict=True)}


def root_mean_squared_error(original, reproduced, *, normalize=False):
    """Root mean squared error of reproduced per-query scores against the original ones (RMSE, nRMSE).

    Parameters
    ----------
    original, reproduced : mapping, DataFrame, Series or array-like
        Per-query scores of the original run and of its reproduction:
        ``{query: {measure: value}}`` (repro_eval's and pytrec_eval's
        layout), :func:`evaluate_run`'s ``average=False`` result, a DataFrame
        of one row per query and one column per measure, a mapping
        ``{query: value}``, or an array of per-query values (one measure,
        queries in the same order). trec_eval's counts (``num_ret``, ...)
        and ``runid``, ``relstring`` are left out, as repro_eval does.
    normalize : bool, default=False
        Divide by the largest RMSE the original scores allow (nRMSE).

    Returns
    -------
    rmse : float or dict
        0 for a perfect reproduction; a dict of measure to value when the
        scores name their measures.

    See Also
    --------
    effect_ratio : Whether the improvement over a baseline was reproduced.
    kendall_tau_union : Whether the documents were reproduced.

    Notes
    -----
    Over the n queries of ``original`` (``reproduced`` must score each;
    its other queries are left out, with a warning),

    .. math:: \\mathrm{RMSE} = \\sqrt{\\frac{1}{n} \\sum_q (o_q - r_q)^2}, \\qquad
              \\mathrm{nRMSE} = \\frac{\\mathrm{RMSE}}{\\sqrt{\\frac{1}{n} \\sum_q \\max(o_q, 1 - o_q)^2}},

    the denominator the RMSE of the worst reproduction of scores in [0, 1],
    as repro_eval 0.5 computes them (``RMSE`` and ``nRMSE``) [1]_.

    References
    ----------
    .. [1] T. Breuer, N. Ferro, N. Fuhr, M. Maistro, T. Sakai, P. Schaer
       and I. Soboroff, "How to measure the reproducibility of
       system-oriented IR experiments", SIGIR 2020.

    Examples
    --------
    >>> from sklearn_rankmetrics.meta import root_mean_squared_error
    >>> original = {"q1": {"map": 0.5, "P_10": 0.6}, "q2": {"map": 0.3, "P_10": 0.2}}
    >>> reproduced = {"q1": {"map": 0.4, "P_10": 0.6}, "q2": {"map": 0.5, "P_10": 0.2}}
    >>> {name: round(value, 4) for name, value in root_mean_squared_error(original, reproduced).items()}
    {'map': 0.1581, 'P_10': 0.0}
    """
    normalize = check_flag("normalize", normalize)
    table = check_values(QueryTable(original, "original"))
    first, second = table.aligned(check_values(QueryTable(reproduced, "reproduced")), "reproduced")
    rmse = np.sqrt(np.mean((first - second) ** 2, axis=0))
    if normalize:
        rmse = rmse / np.sqrt(np.mean(np.maximum(first, 1.0 - first) ** 2, axis=0))
    return by_measure(table, rmse)


def mean_improvement(baseline, advanced, experiment):
    """The mean over the advanced run's queries of (advanced - baseline) per measure, and whether it is 0.

    0 up to rounding, that is: each query's difference judged at the scale
    of its two values (:func:`pair_differences`), their mean at the
    rounding of a sum (:func:`mean_difference`), as compare_rankings judges
    a mean difference.
    """
    advanced_table = check_values(QueryTable(advanced, f"{experiment}_advanced"))
    baseline_table = check_values(QueryTable(baseline, f"{experiment}_baseline"))
    better, base = advanced_table.aligned(baseline_table, f"{experiment}_baseline")
    zero = mean_difference(pair_differences(better.T, base.T)) == 0
    return advanced_table, column_means(better - base), zero


def in_order_of(original_table, reproduced_table, values):
    """The reproduced experiment's values per measure, in the order of the original's measures (the same ones)."""
    check_same_measures(original_table, reproduced_table, reproduced_table.name)
    return np.array([values[reproduced_table.measure_list.index(m)] for m in original_table.measure_list])


def effect_ratio(original_baseline, original_advanced, reproduced_baseline, reproduced_advanced):
    """Effect ratio (ER): the reproduced improvement of an advanced run over a baseline, as a share of the original one.

    Parameters
    ----------
    original_baseline, original_advanced : mapping, DataFrame, Series or array-like
        Per-query scores of the original baseline and advanced runs, in any
        layout of :func:`root_mean_squared_error`.
    reproduced_baseline, reproduced_advanced : same as above
        Per-query scores of their reproductions (on the same queries, or, for
        a replication, on another collection's).

    Returns
    -------
    er : float or dict
        1: the improvement was reproduced exactly; between 0 and 1: a smaller
        one; above 1: a larger one; negative: the baseline won. A dict of
        measure to value when the scores name their measures; nan or
        infinity (with a warning) where the original improvement is 0.

    See Also
    --------
    delta_relative_improvement : The difference of the relative improvements.

    Notes
    -----
    With :math:`\\Delta_q = a_q - b_q` the advanced run's per-query
    improvement over the baseline, averaged over the advanced run's queries
    (each of which the baseline must score),

    .. math:: \\mathrm{ER} = \\frac{\\overline{\\Delta}^{\\,reproduced}}{\\overline{\\Delta}^{\\,original}},

    as repro_eval 0.5 computes it (``ER``). A mean improvement that is 0
    up to rounding, at the scale of the scores themselves (each query's
    two values, then the rounding of their sum, as
    :func:`compare_rankings` judges a mean difference), is 0: an original
    one gives an infinite or nan ratio, with a warning; scores of any
    magnitude (1e-15 or 1e6) are judged alike.

    Examples
    --------
    >>> from sklearn_rankmetrics.meta import effect_ratio
    >>> # original: +0.1 on average; reproduced: +0.05
    >>> effect_ratio([0.2, 0.4], [0.3, 0.5], [0.2, 0.4], [0.25, 0.45])
    0.5
    """
    original_table, original, original_zero = mean_improvement(original_baseline, original_advanced, "original")
    reproduced_table, reproduced, reproduced_zero = mean_improvement(
        reproduced_baseline, reproduced_advanced, "reproduced"
    )
    reproduced = in_order_of(original_table, reproduced_table, reproduced)
    reproduced_zero = in_order_of(original_table, reproduced_table, reproduced_zero)
    zero = np.array(original_zero)
    warn_if_zero(zero, original_table, "the original advanced run improves on its baseline by 0 on average")
    with np.errstate(divide="ignore", invalid="ignore"):
        return by_measure(original_table, np.where(reproduced_zero, 0.0, reproduced) / np.where(zero, 0.0, original))


def warn_if_zero(zero, table, why):
    if zero.any():
        names = [measure for measure, flag in zip(table.measure_list, zero, strict=True) if flag]
        shown = "" if names == [None] else f" ({', '.join(map(str, names))})"
        warn(f"{why}{shown}: the ratio divides by 0, so it is infinite or nan.", UserWarning)


def relative_improvement(baseline, advanced, experiment):
    """(mean advanced - mean baseline) / mean baseline per measure, each mean over its own run's queries."""
    advanced_table = check_values(QueryTable(advanced, f"{experiment}_advanced"))
    baseline_table = check_values(QueryTable(baseline, f"{experiment}_baseline"))
    check_same_measures(advanced_table, baseline_table, baseline_table.name)
    if advanced_table.queries is not None and baseline_table.queries is not None:
        if set(advanced_table.queries) != set(baseline_table.queries):
            warn(
                f"{experiment}_baseline and {experiment}_advanced score different queries; each mean is over its own "
                "run's queries, as repro_eval computes it.",
                UserWarning,
            )
    advanced_means = column_means(advanced_table.values)
    baseline_means = column_means(np.column_stack([baseline_table.column(m) for m in advanced_table.measure_list]))
    zero = baseline_means == 0
    warn_if_zero(zero, advanced_table, f"the {experiment} baseline's mean score is 0")
    with np.errstate(divide="ignore", invalid="ignore"):
        return advanced_table, (advanced_means - baseline_means) / baseline_means


def delta_relative_improvement(original_baseline, original_advanced, reproduced_baseline, reproduced_advanced):
    """Delta relative improvement (DeltaRI): the original relative improvement minus the reproduced one.

    Parameters
    ----------
    original_baseline, original_advanced : mapping, DataFrame, Series or array-like
        Per-query scores of the original baseline and advanced runs, in any
        layout of :func:`root_mean_squared_error`.
    reproduced_baseline, reproduced_advanced : same as above
        Per-query scores of their reproductions.

    Returns
    -------
    delta_ri : float or dict
        0: the relative improvement was reproduced; positive: the
        reproduction improves less. A dict of measure to value when the
        scores name their measures.

    See Also
    --------
    effect_ratio : The ratio of the mean per-query improvements.

    Notes
    -----
    With :math:`\\mathrm{RI} = (\\bar a - \\bar b) / \\bar b`, the means each
    over its own run's queries,
    :math:`\\Delta\\mathrm{RI} = \\mathrm{RI}^{original} - \\mathrm{RI}^{reproduced}`,
    as repro_eval 0.5 computes it (``DRI``).

    Examples
    --------
    >>> from sklearn_rankmetrics.meta import delta_relative_improvement
    >>> # original: 0.4 over 0.3 is +1/3; reproduced: 0.36 over 0.3 is +0.2
    >>> round(delta_relative_improvement([0.2, 0.4], [0.3, 0.5], [0.2, 0.4], [0.26, 0.46]), 4)
    0.1333
    """
    original_table, original = relative_improvement(original_baseline, original_advanced, "original")
    reproduced_table, reproduced = relative_improvement(reproduced_baseline, reproduced_advanced, "reproduced")
    reproduced = in_order_of(original_table, reproduced_table, reproduced)
    return by_measure(original_table, original - reproduced)


def reproduction_ttest(original, reproduced, *, paired=True):
    """The t-test that repro_eval runs between original and reproduced per-query scores: its p-values.

    Parameters
    ----------
    original, reproduced : mapping, DataFrame, Series or array-like
        Per-query scores, in any layout of :func:`root_mean_squared_error`.
    paired : bool, default=True
        True: a reproduction on the same queries, the paired t-test
        (``scipy.stats.ttest_rel``) over the original's queries; False: a
        replication on other queries, Student's unpaired t-test
        (``scipy.stats.ttest_ind``, equal variances) of the two samples.

    Returns
    -------
    pvalue : float or dict
        The two-sided p-value of equal means: a small one says the scores
        were not reproduced. A dict of measure to p-value when the scores
        name their measures.

    See Also
    --------
    root_mean_squared_error : How far the per-query scores are apart.
    compare_rankings : Paired tests of systems, with intervals and corrections.

    Notes
    -----
    As repro_eval 0.5 (``ttest``): scipy's p-values, but where the two
    samples are equal (up to rounding) the p-value is 1, where scipy's is
    nan (repro_eval gives 1 only when every measure is equal, nan for each
    equal measure otherwise).

    Examples
    --------
    >>> from sklearn_rankmetrics.meta import reproduction_ttest
    >>> round(reproduction_ttest([0.2, 0.4, 0.3, 0.5], [0.25, 0.41, 0.33, 0.52]), 4)
    0.0486
    """
    paired = check_flag("paired", paired)
    first_table = check_values(QueryTable(original, "original"))
    second_table = check_values(QueryTable(reproduced, "reproduced"))
    if min(len(first_table.values), len(second_table.values)) < 2:
        warn("A t-test needs at least two queries on each side; with one, its p-value is nan.", UserWarning)
    if paired:
        first, second = first_table.aligned(second_table, "reproduced")
        same = np.all(equal_up_to_rounding(first, second), axis=0)  # each query's two values at their own scale
        test = stats.ttest_rel
    else:
        check_same_measures(first_table, second_table, "reproduced")
        first = first_table.values
        second = np.column_stack([second_table.column(m) for m in first_table.measure_list])
        same = np.array([np.array_equal(np.sort(first[:, j]), np.sort(second[:, j])) for j in range(first.shape[1])])
        test = stats.ttest_ind
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # constant samples: p = 1 where equal, scipy's value elsewhere
        pvalues = np.asarray(test(first, second, axis=0).pvalue, dtype=np.float64)
    return by_measure(first_table, np.where(same, 1.0, pvalues))
