"""What goes in: qrels and runs named in every error, scores aligned by their ids, options refused where they mean
nothing, and the small promises of the results (frames, printing without stray warnings)."""

import warnings

import numpy as np
import pytest

from sklearn_rankmetrics import compare_rankings
from sklearn_rankmetrics.meta import (
    CorrelationResult,
    discriminative_power,
    effect_ratio,
    judge_agreement,
    kendall_tau,
    kendall_tau_union,
    krippendorff_alpha,
    leaderboard_agreement,
    qpp_evaluation,
    rank_biased_overlap_runs,
    root_mean_squared_error,
    spearman_rho,
    standardize_scores,
    swap_rate,
)
from sklearn_rankmetrics.trec._sources import InputError

pd = pytest.importorskip("pandas")

HUMAN = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d4": 1, "d5": 0}}
RUNS = {"a": {"q1": {"d1": 2.0, "d2": 1.0}}, "b": {"q1": {"d2": 2.0, "d1": 1.0}}}


# ---- D1: errors in reading qrels and runs, and fractional judgements ------------------------------------


def test_a_rejected_qrels_or_run_keeps_its_message_prefixed_by_whose_it_is():
    with pytest.raises(InputError, match=r"^the qrels of judge 'llm': the qrels hold no judgement"):
        judge_agreement({"human": HUMAN, "llm": {}})
    with pytest.raises(InputError, match=r"^other: the qrels hold no judgement"):
        leaderboard_agreement(HUMAN, {}, RUNS, measure="P.1")
    with pytest.raises(InputError, match=r"^run 'b': run scores must be numbers"):
        leaderboard_agreement(HUMAN, HUMAN, {"a": RUNS["a"], "b": {"q1": {"d1": "high"}}}, measure="P.1")
    with pytest.raises(InputError, match=r"^reproduced: the run scores document 'd1' of query 'q1' NaN"):
        kendall_tau_union({"q1": {"d1": 1.0, "d2": 0.5}}, {"q1": {"d1": np.nan, "d2": 0.5}})
    with pytest.raises(InputError, match=r"^reproduced: run scores must be numbers"):
        rank_biased_overlap_runs({"q1": {"d1": 1.0}}, {"q1": {"d1": "high"}})
    with pytest.raises(TypeError, match=r"^original: "):
        kendall_tau_union(42, {"q1": {"d1": 1.0}})


def test_a_bad_line_of_a_judges_qrels_file_is_named_with_the_judge_the_file_and_the_line(tmp_path):
    path = tmp_path / "llm.qrels"
    path.write_text("q1 0 d1 1.5\nq1 0 d2 high\n")
    with pytest.raises(ValueError, match=r"^the qrels of judge 'llm': .*llm.qrels, line 2: the relevance column"):
        judge_agreement({"human": HUMAN, "llm": str(path)}, level="interval")
    path.write_text("q1 0 d1 nan\n")
    with pytest.raises(ValueError, match=r"llm.qrels, line 1: the relevance is NaN"):
        judge_agreement({"human": HUMAN, "llm": str(path)}, level="interval")
    with pytest.raises(InputError, match=r"document 'd1' of query 'q1' inf: a judgement is a finite number"):
        judge_agreement({"human": HUMAN, "llm": {"q1": {"d1": np.inf}}}, level="interval")


def test_fractional_judgements_are_accepted_at_the_numeric_levels(tmp_path):
    krippendorff = pytest.importorskip("krippendorff")
    llm = {"q1": {"d1": 1.5, "d2": 0.25, "d3": 1.0}, "q2": {"d4": 0.75, "d5": 0.0}}
    path = tmp_path / "llm.qrels"
    path.write_text("".join(f"{q} 0 {d} {r}\n" for q, docs in llm.items() for d, r in docs.items()))
    ratings = np.array([[2, 0, 1, 1, 0], [1.5, 0.25, 1.0, 0.75, 0.0]])  # d1 .. d5
    for level in ("ordinal", "interval", "ratio"):
        expected = krippendorff.alpha(reliability_data=ratings, level_of_measurement=level)
        assert krippendorff_alpha(ratings, level=level) == pytest.approx(expected, abs=1e-12)
        for source in (
            llm,
            str(path),
            pd.DataFrame(
                [(q, d, r) for q, ds in llm.items() for d, r in ds.items()], columns=["query_id", "doc_id", "relevance"]
            ),
        ):
            result = judge_agreement({"human": HUMAN, "llm": source}, level=level)
            assert result.statistic == pytest.approx(expected, abs=1e-12)
            assert result.method == f"krippendorff-{level}"


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({}, "krippendorff level='nominal'"),
        ({"statistic": "cohen"}, "statistic='cohen'"),
        ({"statistic": "cohen", "weights": "linear"}, "statistic='cohen'"),
        ({"statistic": "fleiss"}, "statistic='fleiss'"),
    ],
)
def test_fractional_judgements_are_refused_where_judgements_are_categories(options, named):
    llm = {"q1": {"d1": 2, "d2": 0.5, "d3": 1}}
    with pytest.raises(
        ValueError,
        match=rf"judge 'llm' on document 'd2' of query 'q1' gives the fractional judgement "
        rf"0.5, but {named} treats judgements as categories.*level='interval'",
    ):
        judge_agreement({"human": HUMAN, "llm": llm}, **options)


# ---- D6: per-query values aligned by their query ids ----------------------------------------------------


def shuffled_series():
    queries = ["q1", "q2", "q3", "q4", "q5", "q6"]
    a = pd.Series([0.10, 0.30, 0.50, 0.20, 0.60, 0.40], index=queries)
    b = a + 0.05
    return a, b, b.iloc[::-1]


def test_per_query_series_are_aligned_by_their_index():
    a, b, b_shuffled = shuffled_series()
    aligned, shuffled = ({"a": a, "b": other, "c": a + 0.1} for other in (b, b_shuffled))
    assert discriminative_power(aligned, test="t-test").pvalues == pytest.approx(
        discriminative_power(shuffled, test="t-test").pvalues, abs=0
    )
    assert discriminative_power(shuffled, test="t-test").pvalues[0] == 0.0  # b beats a by 0.05 on every query
    rates = [swap_rate(scores, subset_size=2, n_trials=50, random_state=0) for scores in (aligned, shuffled)]
    assert (rates[0].swaps == rates[1].swaps).all() and (rates[0].comparisons == rates[1].comparisons).all()
    z_aligned, z_shuffled = (standardize_scores(scores, transform=None) for scores in (aligned, shuffled))
    for name in "abc":
        assert list(z_shuffled[name].index) == list(a.index)  # the first Series' order
        assert z_shuffled[name].to_numpy() == pytest.approx(z_aligned[name].to_numpy(), abs=1e-15)
    assert z_shuffled["a"].to_numpy() == pytest.approx([-1.0] * 6, abs=1e-12)


def test_a_reference_table_is_aligned_on_the_queries_of_the_scores():
    a, b, _ = shuffled_series()
    frame = pd.DataFrame({"a": a, "b": b, "c": a + 0.1})
    expected = standardize_scores(frame, reference=frame[["a", "c"]])
    assert standardize_scores(frame, reference=frame.iloc[::-1][["a", "c"]]).equals(expected)
    with pytest.raises(ValueError, match=r"scores and reference must score the same queries; only in scores: \['q6'\]"):
        standardize_scores(frame, reference=frame.iloc[:5][["a", "c"]])


def test_mismatched_or_mixed_per_query_series_are_refused():
    a, b, _ = shuffled_series()
    with pytest.raises(ValueError, match=r"only in the first Series of scores: \['q6'\], only in scores\['b'\]: \[\]"):
        discriminative_power({"a": a, "b": b.iloc[:5]})
    with pytest.raises(TypeError, match=r"mixes pandas Series .* and arrays"):
        discriminative_power({"a": a, "b": b.to_numpy()})
    with pytest.raises(ValueError, match=r"scores\['b'\] names a query twice"):
        discriminative_power({"a": a, "b": pd.Series([0.1] * 6, index=["q1"] * 6)})


# ---- D7: comparisons compared metric by metric ------------------------------------------------------------


def test_comparisons_are_correlated_metric_by_metric():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, (15, 30))
    scores = {f"s{i}": y * 0.05 * i + rng.normal(0, 1, (15, 30)) for i in range(5)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = compare_rankings(y, scores, metrics=("ndcg@10", "ap"), test="t-test")
        second = compare_rankings(y, scores, metrics=("ap", "ndcg@10"), test="t-test")
        ndcg = compare_rankings(y, scores, metrics=("ndcg@10",), test="t-test")
        ap = compare_rankings(y, scores, metrics=("ap",), test="t-test")
    with pytest.raises(ValueError, match=r"x compares 2 metrics \['ndcg@10', 'ap'\]: pass metric="):
        kendall_tau(first, second)
    for metric in ("ndcg@10", "ap"):
        assert kendall_tau(first, second, metric=metric).statistic == pytest.approx(1.0)
    assert kendall_tau(ndcg, first, metric="ndcg@10").statistic == pytest.approx(1.0)
    with pytest.raises(ValueError, match=r"x holds the metric 'ndcg@10' and y 'ap'"):
        kendall_tau(ndcg, ap)
    with pytest.raises(ValueError, match=r"scores compares 2 metrics"):
        discriminative_power(first)


# ---- D12: clear errors, no option ignored, no stray warning ------------------------------------------------


def test_empty_leaderboards_and_score_tables_are_refused_as_empty():
    for x, y in (([], []), ({}, {}), (pd.Series(dtype=float), pd.Series(dtype=float))):
        with pytest.raises(ValueError, match=r"x is empty: give the score of every system"):
            kendall_tau(x, y)
    with pytest.raises(ValueError, match=r"original is empty: give the per-query scores of at least one query"):
        root_mean_squared_error({}, {})
    with pytest.raises(ValueError, match=r"scores is empty: give the per-query scores of at least two systems"):
        discriminative_power({})
    with pytest.raises(ValueError, match=r"original is empty"):
        root_mean_squared_error(np.empty((0, 2)), np.empty((0, 2)))
    # the check of emptiness converts nothing: a ragged table is still named in the error
    with pytest.raises(ValueError, match=r"^original must be an array-like of numbers"):
        root_mean_squared_error([[0.1, 0.2], [0.3]], [[0.1, 0.2], [0.3, 0.4]])
    with pytest.raises(ValueError, match=r"^x must be an array-like of numbers"):
        kendall_tau([[1, 2], [3]], [1, 2])


def test_keys_of_different_types_are_named_as_such():
    with pytest.raises(ValueError, match=r"keys of different types \(str in x, int in y\): '1', '2' and 1, 2 print"):
        kendall_tau({"1": 0.1, "2": 0.2}, {1: 0.1, 2: 0.2})


def test_reference_names_may_be_numpy_integers():
    scores = np.random.default_rng(0).random((4, 5))
    names = list(np.flatnonzero([1, 1, 0, 1, 0]))
    assert standardize_scores(scores, reference=names) == pytest.approx(
        standardize_scores(scores, reference=[0, 1, 3]), abs=0
    )
    assert standardize_scores(scores, reference=np.array([0, 1, 3])) == pytest.approx(
        standardize_scores(scores, reference=[0, 1, 3]), abs=0
    )


def test_a_tiny_bin_width_is_refused_before_allocating():
    scores = np.random.default_rng(0).random((4, 5))
    with pytest.raises(ValueError, match=r"bin_width=1e-10 cuts .* into [\d,]+ bins; at most 1,000,000"):
        swap_rate(scores, subset_size=2, n_trials=5, bin_width=1e-10)


def test_the_option_of_another_statistic_is_refused():
    llm = {"q1": {"d1": 2, "d2": 1, "d3": 1}}
    with pytest.raises(
        ValueError, match=r"weights='quadratic' are Cohen's disagreement weights; statistic='krippendorff'"
    ):
        judge_agreement([HUMAN, llm], weights="quadratic")
    with pytest.raises(ValueError, match=r"weights='linear' are Cohen's .* statistic='fleiss' has none"):
        judge_agreement([HUMAN, llm], statistic="fleiss", weights="linear")
    with pytest.raises(ValueError, match=r"level='ordinal' is Krippendorff's level .* statistic='cohen' has none"):
        judge_agreement([HUMAN, llm], statistic="cohen", level="ordinal")
    with pytest.raises(ValueError, match=r"level='nominal' is Krippendorff's .* statistic='fleiss' has none"):
        judge_agreement([HUMAN, llm], statistic="fleiss", level="nominal")
    assert judge_agreement([HUMAN, llm], statistic="cohen", weights="linear").method == "cohen-linear"
    assert judge_agreement([HUMAN, llm]).method == "krippendorff-nominal"


def test_printing_a_judge_agreement_undefined_on_every_query_warns_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = judge_agreement([{"q1": {"d1": 1}, "q2": {"d2": 1}}, {"q1": {"d1": 1}, "q2": {"d3": 0}}])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        text = str(result)
    assert "over 2 queries: undefined on every one" in text


def test_qpp_evaluation_names_predicted_and_is_all_nan_on_rounding_noise():
    with pytest.warns(UserWarning, match=r"^predicted holds 4 scores that are all the same") as caught:
        result = qpp_evaluation([0.3, 0.1 + 0.2, 0.3, 0.3], [0.1, 0.2, 0.3, 0.4])
    assert len(caught) == 1
    assert np.isnan([result.pearson.statistic, result.spearman.statistic, result.kendall.statistic]).all()
    with pytest.warns(UserWarning, match=r"^actual holds"):
        qpp_evaluation([0.1, 0.2, 0.3], [0.5, 0.5, 0.5])


def test_effect_ratio_judges_a_zero_improvement_at_the_scale_of_the_scores():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert effect_ratio([2e-15, 4e-15], [3e-15, 5e-15], [2e-15, 4e-15], [2.5e-15, 4.5e-15]) == pytest.approx(0.5)
        assert effect_ratio([2e6, 4e6], [3e6, 5e6], [2e6, 4e6], [2.5e6, 4.5e6]) == pytest.approx(0.5)
    # 0.1 + 0.2 against 0.3: an improvement of 5.6e-17, rounding noise, not 1/18 of a point
    with pytest.warns(UserWarning, match=r"improves on its baseline by 0 on average"):
        assert np.isinf(effect_ratio([0.3, 0.5], [0.1 + 0.2, 0.5], [0.2, 0.4], [0.25, 0.45]))


def test_a_single_topic_is_standardized():
    assert standardize_scores([[0.2, 0.4, 0.6]], transform=None)[0] == pytest.approx([-1.0, 0.0, 1.0], abs=1e-12)


def test_judge_agreement_and_correlation_results_convert_to_frames():
    llm = {"q1": {"d1": 2, "d2": 0, "d3": 2}, "q2": {"d4": 1, "d5": 0, "d6": 1}}
    result = judge_agreement({"human": HUMAN, "llm": llm}, level="ordinal")
    frame = result.to_frame()
    assert frame.index.name == "query_id" and list(frame.index) == ["q1", "q2"]
    assert list(frame.columns) == ["n_items", "statistic"]
    assert frame["n_items"].tolist() == [3, 2] and frame["n_items"].sum() == result.n_items
    assert frame["statistic"].tolist() == pytest.approx([result.per_query["q1"], result.per_query["q2"]], nan_ok=True)
    tau = kendall_tau([0.1, 0.4, 0.2, 0.3, 0.5, 0.7], [0.2, 0.3, 0.1, 0.5, 0.4, 0.6])
    frame = tau.to_frame(confidence_level=0.9)
    assert list(frame.index) == ["kendall_tau_b"] and list(frame.columns) == [
        "statistic",
        "pvalue",
        "ci_low",
        "ci_high",
        "n",
    ]
    assert tuple(frame.iloc[0]) == pytest.approx((tau.statistic, tau.pvalue, *tau.confidence_interval(0.9), 6))
    assert isinstance(spearman_rho([1, 2, 3, 4], [1, 3, 2, 4]), CorrelationResult)
    assert list(spearman_rho([1, 2, 3, 4], [1, 3, 2, 4]).to_frame().index) == ["spearman_rho"]
