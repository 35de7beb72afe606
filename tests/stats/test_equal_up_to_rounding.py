"""Issue #36, class A: values equal up to rounding are equal in every comparison of computed values.

Two systems whose rankings differ only in the order of documents of equal label have mathematically equal
metrics per query; tie-averaged and tie-free sums leave differences of a few ulps, which every test used to call
significant. The mechanism: ``_core/_tolerance.py`` (``TIE_ULPS`` ulps of the values' scale), applied to the paired
differences (``pair_differences``), to ANOVA's effects and residual, and to "best" in the tables.
"""

import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats

from sklearn_rankmetrics import QueryComparisonDisplay, RankingComparison, compare_rankings, ranking_report
from sklearn_rankmetrics._core._tolerance import TIE_ULPS, rounding_tolerance, values_scale, without_rounding
from sklearn_rankmetrics.stats._anova import anova_table, residual_mean_square
from sklearn_rankmetrics.stats._comparison import COLUMNS
from sklearn_rankmetrics.stats._paired_tests import effect_sizes, mean_difference, pair_differences, paired_pvalues

pd = pytest.importorskip("pandas")

TESTS = ["randomization", "t-test", "wilcoxon", "bootstrap", "tukey-hsd", "randomized-tukey-hsd"]
# Metrics whose tie-averaged and tie-free values differ by rounding on the data of tie_orders (ndcg@10 on 18 of
# its 20 queries, by up to 3.3e-16); map and mrr are exactly equal.
METRICS = ["ndcg@10", "dcg@10", "ndcg", "err", "rbp", "map"]


def tie_orders(n_queries=20, docs=20, seed=0):
    """Labels, the labels as scores (ties averaged) and a tie-free order of them: equal metrics per query."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), docs)
    y_true = rng.integers(0, 4, qid.size)
    return y_true, y_true.astype(float), y_true + 0.5 * rng.random(qid.size), qid


def quietly(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def pair_row(result, metric):
    frame = result.to_frame(kind="rows")
    return frame[(frame.metric == metric) & frame.baseline.notna()].iloc[0]


def test_the_tie_orders_differ_by_rounding_and_fool_tests_on_the_raw_values():
    # The trap the mechanism closes: on the raw per-query values the t-test calls the rounding significant.
    y_true, tied, free, qid = tie_orders()
    raw_tied = ranking_report(y_true, tied, qid=qid, metrics=["ndcg@10", "dcg@10"], average=False)
    raw_free = ranking_report(y_true, free, qid=qid, metrics=["ndcg@10", "dcg@10"], average=False)
    d = raw_free["ndcg@10"] - raw_tied["ndcg@10"]
    assert 0 < np.abs(d).max() <= 4e-16 and np.count_nonzero(d) == 18
    assert stats.ttest_rel(raw_free["ndcg@10"], raw_tied["ndcg@10"]).pvalue < 1e-5  # about 1e-6, as filed
    assert np.mean(d) / np.std(d, ddof=1) < -0.9  # the filed effect size, -0.91
    assert (raw_free["dcg@10"] - raw_tied["dcg@10"] != 0).any()


@pytest.mark.parametrize("test", TESTS)
def test_systems_differing_only_in_the_order_of_equal_labels_are_equal_in_every_test(test):
    # Filed: t-test p about 1e-6, randomization p = 0.0001, effect size -0.91 printed +0.0000*; Tukey HSD p = 0
    # with an infinite effect. Now: p = 1, delta and effect 0, every query a tie, the interval the point 0.
    y_true, tied, free, qid = tie_orders()
    result = quietly(compare_rankings, y_true, {"tied": tied, "free": free}, qid=qid, metrics=METRICS, test=test)
    for metric in METRICS:
        row = pair_row(result, metric)
        assert (row.pvalue, row.pvalue_adjusted, row.delta, row.effect_size) == (1.0, 1.0, 0.0, 0.0), metric
        assert (row.wins, row.ties, row.losses) == (0, 20, 0), metric
        if test not in ("tukey-hsd", "randomized-tukey-hsd"):  # a Tukey interval is delta +/- the critical range
            assert row.delta_ci_low == row.delta_ci_high == 0.0, metric
    assert "*" not in str(result).splitlines()[-2]


@pytest.mark.parametrize("test", TESTS)
def test_a_tie_order_compares_as_the_identical_system_does(test):
    # Every number of the pair, and of the third system's pairs with either, as if the two were the same array.
    y_true, tied, free, qid = tie_orders()
    third = tied + np.random.default_rng(1).normal(0, 1, tied.size)
    arguments = {"qid": qid, "metrics": METRICS, "test": test, "random_state": 0, "n_resamples": 999}
    clone = quietly(compare_rankings, y_true, {"tied": tied, "free": free, "third": third}, **arguments).to_frame(
        kind="rows"
    )
    same = quietly(compare_rankings, y_true, {"tied": tied, "free": tied, "third": third}, **arguments).to_frame(
        kind="rows"
    )
    pairs = ["delta", "delta_ci_low", "delta_ci_high", "pvalue", "pvalue_adjusted", "effect_size"]
    tested = clone.baseline.notna()
    counts = ["wins", "ties", "losses"]
    assert clone.loc[tested, counts].equals(same.loc[tested, counts])
    np.testing.assert_allclose(clone.loc[tested, pairs], same.loc[tested, pairs], rtol=1e-12, atol=1e-12)
    assert (clone.loc[tested & (clone.system == "free") & (clone.baseline == "tied"), "pvalue"] == 1).all()


def test_tukey_without_residual_but_rounding_keeps_p_one_and_no_effect():
    # dcg@10 of the two tie orders: the means differ by 5e-15 and the residual is rounding noise (was: p = 0, -inf).
    y_true, tied, free, qid = tie_orders()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "residual variance is 0" warning: nothing differs
        result = compare_rankings(y_true, {"tied": tied, "free": free}, qid=qid, metrics=["dcg@10"], test="tukey-hsd")
    row = pair_row(result, "dcg@10")
    assert (row.pvalue, row.effect_size, row.delta) == (1.0, 0.0, 0.0)
    assert row.delta_ci_low == row.delta_ci_high == 0.0  # no residual: the simultaneous interval is the point 0


def test_anova_of_systems_equal_up_to_rounding_has_no_system_effect():
    y_true, tied, free, qid = tie_orders()
    result = compare_rankings(y_true, {"tied": tied, "free": free}, qid=qid, metrics=["dcg@10"], test="t-test")
    table = result.anova()
    assert table.loc["system", "sum_sq"] == 0.0 and table.loc["residual", "sum_sq"] == 0.0
    values = result.per_query["dcg@10"]
    assert residual_mean_square(np.column_stack([values["tied"], values["free"]]))[0] == 0.0
    # Each system a constant shift of the others: the residual of rounding alone is none (F infinite).
    rng = np.random.default_rng(0)
    base = rng.random(12)
    shifted = anova_table({"a": base, "b": base + 0.1, "c": base + 0.3})
    assert shifted["residual"]["sum_sq"] == 0.0 and shifted["system"]["F"] == np.inf
    effects = np.array([0.0, 0.1, 0.3]) - 0.4 / 3
    assert shifted["system"]["sum_sq"] == pytest.approx(12 * (effects**2).sum())


def test_a_constant_difference_up_to_rounding_has_no_spread():
    # b = a + 0.1 as floats: the differences are 0.1 up to rounding, so d_z is infinite and the t-test's p is 0,
    # as for an exactly constant difference (was: a spread of rounding noise, d_z about 1e16).
    a = np.random.default_rng(0).random(9)
    raw = (a + 0.1) - a
    assert np.ptp(raw) > 0
    d = pair_differences(a + 0.1, a)
    assert np.ptp(d) == 0
    assert effect_sizes(d, [mean_difference(d)])[0] == np.inf
    assert paired_pvalues(d[:, None], "t-test") == [0.0]


def test_wilcoxon_ranks_differences_equal_up_to_rounding_as_ties():
    # Two queries of the 'strong' system below differ from the baseline by the same amount in exact arithmetic
    # and by 1 ulp in floats: scipy ranks them apart and takes its exact null distribution (p = 7.8e-9); as
    # ties, they take its normal approximation with the tie correction, as any tied differences do.
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(40), 8)
    y_true = rng.integers(0, 3, len(qid))
    noise, _, strong = rng.normal(0, 1, len(qid)), rng.normal(0, 2.5, len(qid)), y_true + rng.normal(0, 1, len(qid))
    result = compare_rankings(y_true, {"noise": noise, "strong": strong}, qid=qid, test="wilcoxon", correction=None)
    values = result.per_query["ndcg@10"]
    raw = values["strong"] - values["noise"]
    assert len(np.unique(np.abs(raw))) == 40 and len(np.unique(np.abs(np.round(raw, 12)))) == 39
    expected = stats.wilcoxon(np.round(raw, 12)).pvalue
    assert pair_row(result, "ndcg@10").pvalue == pytest.approx(expected, rel=1e-12)
    assert stats.wilcoxon(raw).pvalue < expected / 10


def test_a_mean_difference_of_zero_in_exact_arithmetic_is_zero():
    # MRR differences (1 - 1/4) + (1/3 - 1) + (1/9 - 1/4) + (1/6 - 1/9) = 0 exactly, -2e-17 in floats.
    d = np.array([[1 - 1 / 4, 1 / 3 - 1, 1 / 9 - 1 / 4, 1 / 6 - 1 / 9]])
    assert d.sum() != 0 and mean_difference(d)[0] == 0.0
    assert effect_sizes(d, mean_difference(d))[0] == 0.0
    assert paired_pvalues(d.T, "t-test") == [1.0]


def paper_comparison(means):
    """A comparison of systems with the given means on one metric ("m"), no pair tested."""
    rows = [{**dict.fromkeys(COLUMNS), "system": name, "metric": "m", "mean": mean, "ci_low": mean,
             "ci_high": mean, "n_queries": 1, "n_runs": 1} for name, mean in means.items()]  # fmt: skip
    per_query = {"qid": np.array([0]), "m": {name: np.array([mean]) for name, mean in means.items()}}
    return RankingComparison(rows=rows, n_queries=1, per_query=per_query)


def test_tables_bold_every_mean_equal_to_the_best_up_to_rounding():
    # Filed: of two means that print equal, 0.5400000000000001 and 0.5399999999999999, only the first was bold.
    comparison = paper_comparison({"a": 0.5400000000000001, "b": 0.5399999999999999, "c": 0.5399})
    markdown = comparison.to_markdown(ci=False)
    assert "| (a) a | **0.5400** |" in markdown and "| (b) b | **0.5400** |" in markdown
    assert "| (c) c | 0.5399 |" in markdown
    latex = comparison.to_latex(ci=False)
    assert latex.count(r"\textbf{0.5400}") == 2 and r"(c) c & 0.5399 \\" in latex
    # A genuine difference below the printed digits is not equal: only the best is bold.
    assert paper_comparison({"a": 0.54001, "b": 0.54004}).to_markdown(ci=False, digits=4).count("**") == 2


def test_tables_of_tie_orders_bold_both():
    y_true, tied, free, qid = tie_orders()
    result = compare_rankings(y_true, {"tied": tied, "free": free}, qid=qid, metrics=["ndcg@10"], test="t-test")
    means = result.to_frame(kind="rows").drop_duplicates("system")["mean"].tolist()
    assert abs(means[0] - means[1]) <= 4e-16  # equal up to rounding (1.0 and 0.9999999999999998 when summed pairwise)
    assert result.to_markdown(ci=False).count("**1.0000**") == 2
    assert result.to_latex(ci=False).count(r"\textbf{1.0000}") == 2


def test_the_display_and_queries_needed_see_a_tie_order_as_a_tie():
    y_true, tied, free, qid = tie_orders()
    result = compare_rankings(y_true, {"tied": tied, "free": free}, qid=qid, metrics=["ndcg@10"], test="t-test")
    assert result.queries_needed() == {("tied", "free"): None}  # no number of queries detects no difference
    display = QueryComparisonDisplay(
        baseline_values=result.per_query["ndcg@10"]["tied"],
        system_values=result.per_query["ndcg@10"]["free"],
        baseline="tied",
        system="free",
        metric="ndcg@10",
    )
    assert (display.differences == 0).all()


# --- the tolerance itself ------------------------------------------------------------------------------------


def test_values_scale_along_an_axis_is_the_largest_finite_magnitude_of_each_row():
    assert values_scale([0.5, -2.0, np.nan, np.inf]) == 2.0 and values_scale([]) == 0.0
    np.testing.assert_array_equal(values_scale([[1.0, 3.0], [-4.0, np.nan]], axis=1), [3.0, 4.0])
    assert rounding_tolerance(values_scale([[1.0, -4.0]])) == TIE_ULPS * np.finfo(float).eps * 4


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.floats(-10, 10, allow_nan=False), min_size=1, max_size=30),
    nudges=st.lists(st.integers(-20, 20), min_size=30, max_size=30),
)
def test_without_rounding_merges_values_a_few_ulps_apart_and_keeps_the_others(values, nudges):
    values = np.array(values)
    assume(np.abs(values).max() > 1e-100)
    tolerance = rounding_tolerance(values_scale(values))
    nudged = values + np.array(nudges[: len(values)]) * np.spacing(np.abs(values).max())  # ulps of the scale
    cleaned = without_rounding(nudged, scale=values_scale(nudged))
    # Each value moves by less than the tolerance per value it is chained to, and keeps its sign (or becomes 0).
    assert (np.abs(cleaned - nudged) <= len(values) * rounding_tolerance(values_scale(nudged))).all()
    assert ((np.sign(cleaned) == np.sign(nudged)) | (cleaned == 0)).all()
    # The nudged copies of one value become one value; magnitudes farther apart than the tolerance stay apart.
    magnitudes = np.abs(values)
    for i, j in zip(*np.triu_indices(len(values), 1), strict=True):
        if magnitudes[i] == magnitudes[j]:
            assert abs(cleaned[i]) == abs(cleaned[j])
        elif abs(magnitudes[i] - magnitudes[j]) > 4 * len(values) * tolerance + 1e-300:
            assert abs(cleaned[i]) != abs(cleaned[j])
    assert np.array_equal(without_rounding(cleaned, scale=values_scale(cleaned)), cleaned)  # idempotent


def test_without_rounding_zeroes_keeps_nan_and_works_per_row():
    cleaned = without_rounding([0.1, -0.09999999999999998, 1e-17, -1e-17, np.nan, 0.3], scale=1.0)
    np.testing.assert_array_equal(cleaned, [0.09999999999999998, -0.09999999999999998, 0, 0, np.nan, 0.3])
    assert not np.signbit(cleaned[3])  # a zero is +0
    rows = without_rounding(np.array([[1e-17, 0.5], [1e-17, 0.5]]), scale=[[1.0], [1e-10]])
    np.testing.assert_array_equal(rows, [[0.0, 0.5], [1e-17, 0.5]])
    # One scale per value: two join only within both their tolerances (a value known to the last bit joins none).
    each = without_rounding([1e-17, 2e-17, 2.0, 2.0 + 4e-16, 3.0, 3.0 + 4e-16], scale=[1, 1e-10, 2, 2, 3, 0])
    np.testing.assert_array_equal(each, [0.0, 2e-17, 2.0, 2.0, 3.0, 3.0 + 4e-16])


def test_each_query_difference_is_judged_at_the_scale_of_its_own_values():
    # Exponential DCG of one query with labels up to 40 is about 1e12; the other queries' values are about 10, and
    # a swap at ranks 61 and 62 changes them by 6e-4: a real loss on every such query, which one tolerance at the
    # scale of the largest value (0.06) would have called a tie.
    rng = np.random.default_rng(0)
    n_queries, docs = 12, 100
    qid = np.repeat(np.arange(n_queries), docs)
    y_true = rng.integers(0, 2, qid.size)
    y_true[:docs] = rng.integers(0, 41, docs)
    first = -np.tile(np.arange(docs, dtype=float), n_queries)
    second = first.copy()
    for start in range(docs, n_queries * docs, docs):
        y_true[start + 60], y_true[start + 61] = 1, 0
        second[start + 60], second[start + 61] = first[start + 61], first[start + 60]
    result = compare_rankings(y_true, {"a": first, "b": second}, qid=qid, metrics=["dcg_exp"], test="t-test")
    values = result.per_query["dcg_exp"]
    assert values["a"][0] > 5e11 and rounding_tolerance(values_scale(values["a"])) > 0.05
    row = pair_row(result, "dcg_exp")
    assert (row.wins, row.ties, row.losses) == (0, 1, 11) and row.pvalue < 1e-6
    assert pair_differences([1e12, 10.0], [1e12, 10.0 - 6e-4])[1] == pytest.approx(6e-4)
