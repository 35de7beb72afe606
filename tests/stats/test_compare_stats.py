"""Issue #27: many systems at once, corrections, power and topic-set size, several runs, reports.

Each statistic against statsmodels, scipy or a direct implementation; the randomised procedures for
reproducibility and for their size under the null (small simulations).
"""

import itertools
import json
import math
import sys

import numpy as np
import pytest
from scipy import stats

from sklearn_rankmetrics import (
    RankingComparison,
    compare_rankings,
    paired_t_power,
    topic_set_size,
    topic_set_size_anova,
    topic_set_size_ci,
)
from sklearn_rankmetrics._core._resampling import Resamples
from sklearn_rankmetrics.stats._anova import randomized_ranges, tukey_columns
from sklearn_rankmetrics.stats._multiplicity import benjamini_hochberg, maxt_randomization
from sklearn_rankmetrics.stats._paired_tests import exact_permutations
from sklearn_rankmetrics.stats._power import expected_ci_width
from sklearn_rankmetrics.stats._studentized_range import studentized_range_sf

pd = pytest.importorskip("pandas")
statsmodels = pytest.importorskip("statsmodels")
from statsmodels.formula.api import ols  # noqa: E402
from statsmodels.stats.anova import anova_lm  # noqa: E402
from statsmodels.stats.multitest import multipletests  # noqa: E402
from statsmodels.stats.power import FTestAnovaPower, TTestPower  # noqa: E402

METRICS = ["ndcg@10", "mrr"]


def data(n_queries=30, n_systems=4, seed=0, docs=6, strength=0.25):
    """Systems of increasing quality (system i adds i * strength of the labels to noise)."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), docs)
    y_true = rng.integers(0, 3, qid.size)
    scores = {f"s{i}": strength * i * y_true + rng.normal(0, 1, qid.size) for i in range(n_systems)}
    return y_true, scores, qid


def pair_rows(result):
    return result.to_frame(kind="rows").dropna(subset=["baseline"]).reset_index(drop=True)


def long_format(values):
    """Per-query values (dict of system to array) as the rows of a statsmodels formula."""
    return pd.DataFrame(
        [(system, query, value) for system, column in values.items() for query, value in enumerate(column)],
        columns=["system", "query", "value"],
    )


# --- Benjamini-Hochberg ------------------------------------------------------------------------------------


def test_fdr_bh_equals_statsmodels_over_every_pair_and_metric():
    y_true, scores, qid = data()
    result = compare_rankings(y_true, scores, qid=qid, metrics=METRICS, correction="fdr_bh", random_state=0)
    frame = pair_rows(result)
    assert len(frame) == 6 * 2
    expected = multipletests(frame.pvalue.to_numpy(), method="fdr_bh")[1]
    np.testing.assert_allclose(frame.pvalue_adjusted, expected, rtol=1e-12)


def test_benjamini_hochberg_equals_statsmodels_with_ties_and_extremes():
    rng = np.random.default_rng(0)
    for size in (1, 2, 7, 50):
        pvalues = np.round(rng.uniform(0, 1, size) ** 3, 2)  # ties, zeros
        pvalues[: size // 3] = 1.0
        np.testing.assert_allclose(
            benjamini_hochberg(pvalues), multipletests(pvalues, method="fdr_bh")[1], rtol=1e-12, atol=0
        )


# --- Westfall-Young step-down maxT ---------------------------------------------------------------------------


def naive_step_down(differences):
    """Westfall and Young's step-down adjustment by enumerating every sign vector, one loop at a time.

    Each vector's statistic in each column is standardized to that column's randomization p-value; the
    columns sorted by raw p-value, column (i) counts the vectors where its own flip is as extreme as observed
    or where the smallest standardized p-value among the later columns reaches its raw p-value.
    """
    n, m = differences.shape
    vectors = [np.array(signs) for signs in itertools.product([1.0, -1.0], repeat=n)]
    sums = np.array([signs @ differences for signs in vectors])  # vectors x columns
    observed = differences.sum(axis=0)

    def pvalue(column, value):
        return np.mean(np.abs(sums[:, column]) >= abs(value) - 1e-12)

    raw = np.array([pvalue(j, observed[j]) for j in range(m)])
    order = sorted(range(m), key=lambda j: raw[j])
    step = np.zeros(m)
    for flipped in sums:
        for rank, column in enumerate(order):
            own = abs(flipped[column]) >= abs(observed[column]) - 1e-12
            later = [pvalue(j, flipped[j]) for j in order[rank + 1 :]]
            step[rank] += own or (len(later) > 0 and min(later) <= raw[column])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(step / len(sums))
    return raw, adjusted


def test_maxt_enumerated_equals_a_naive_step_down():
    rng = np.random.default_rng(1)
    for n_queries in (3, 6, 8):
        differences = np.round(rng.normal(0.3, 1, (n_queries, 5)), 1)
        differences[:, 4] = differences[:, 0]  # a duplicated column: tied p-values
        differences[: n_queries - 2, 3] = 0.0  # a sparse column: two queries differ
        raw, adjusted = maxt_randomization(differences)
        expected_raw, expected_adjusted = naive_step_down(differences)
        np.testing.assert_allclose(raw, expected_raw, rtol=1e-12)
        np.testing.assert_allclose(adjusted, expected_adjusted, rtol=1e-12)


def test_maxt_stays_between_the_raw_p_values_and_holm_whatever_the_columns():
    # Continuous, discrete, sparse (mostly tied at 0) and constant columns side by side: the raw |t| of the
    # sign flips has a different distribution in each, and a step-down on it exceeded Bonferroni's adjustment in
    # 3 of these 60 sets (Holm's in 5); standardized to each column's own p-value, the adjustment cannot.
    rng = np.random.default_rng(8)
    for trial in range(60):
        n, m = int(rng.integers(4, 40)), int(rng.integers(2, 10))
        differences = np.column_stack(
            [
                [rng.normal(0.3, 1, n), rng.integers(-2, 3, n) / 5, (rng.random(n) < 0.2) * rng.normal(0.5, 1, n)][
                    j % 3
                ]
                for j in range(m)
            ]
        )
        if trial % 4 == 0:
            differences[:, 0] = 0.25
        raw, adjusted = maxt_randomization(differences, Resamples(499, rng) if 2**n > 499 else None)
        holm = multipletests(raw, method="holm")[1]
        assert (adjusted >= raw).all() and (adjusted <= holm + 1e-12).all(), trial


def test_maxt_keeps_the_raw_p_values_and_lies_between_raw_and_bonferroni():
    y_true, scores, qid = data(n_queries=40, n_systems=5)
    arguments = {"qid": qid, "metrics": METRICS, "random_state": 3, "n_resamples": 4000}
    maxt = pair_rows(compare_rankings(y_true, scores, correction="maxT", **arguments))
    holm = pair_rows(compare_rankings(y_true, scores, correction="holm", **arguments))
    bonferroni = pair_rows(compare_rankings(y_true, scores, correction="bonferroni", **arguments))
    # The same sign flips as the randomization test of any other correction.
    np.testing.assert_array_equal(maxt.pvalue, holm.pvalue)
    assert (maxt.pvalue_adjusted >= maxt.pvalue).all()
    assert (maxt.pvalue_adjusted <= bonferroni.pvalue_adjusted + 1e-12).all()
    # Correlated tests (pairs sharing systems, metrics sharing queries): maxT is below Holm somewhere.
    assert (maxt.pvalue_adjusted < holm.pvalue_adjusted - 1e-9).any()
    # Step-down: the adjusted p-values keep the order of the raw ones.
    order = np.argsort(maxt.pvalue.to_numpy(), kind="stable")
    assert np.all(np.diff(maxt.pvalue_adjusted.to_numpy()[order]) >= 0)


def test_maxt_by_sampling_agrees_with_the_enumeration():
    rng = np.random.default_rng(4)
    differences = rng.normal(0.4, 1, (12, 6))
    exact = maxt_randomization(differences)[1]
    sampled = maxt_randomization(differences, Resamples(2**12 - 1, np.random.default_rng(0)))[1]
    np.testing.assert_allclose(sampled, exact, atol=4 * np.sqrt(0.25 / 4095) + 1e-3)


def test_maxt_controls_the_familywise_error_under_the_null():
    # 400 data sets of 4 exchangeable systems on 15 queries, 6 pairs each, 199 sign flips: the share of data sets
    # with any adjusted p <= 0.05 stays below 0.05 + 3 standard errors (Holm's and Bonferroni's would too).
    rng = np.random.default_rng(5)
    n_sets, alpha, rejected = 400, 0.05, 0
    pairs = list(itertools.combinations(range(4), 2))
    for _ in range(n_sets):
        values = rng.normal(0, 1, (15, 4)) + rng.normal(0, 1, (15, 1))  # a query effect, no system effect
        differences = np.column_stack([values[:, b] - values[:, a] for a, b in pairs])
        adjusted = maxt_randomization(differences, Resamples(199, rng))[1]
        rejected += adjusted.min() <= alpha
    assert rejected / n_sets <= alpha + 3 * np.sqrt(alpha * (1 - alpha) / n_sets)


def test_maxt_with_metrics_on_different_queries():
    # zero_division=nan leaves queries without a relevant document out of MRR but not of P@3 (they score 0).
    y_true, scores, qid = data(n_queries=30, n_systems=3, seed=2)
    y_true[qid < 4] = 0
    result = compare_rankings(
        y_true, scores, qid=qid, metrics=["precision@3", "mrr"], correction="maxT", zero_division=np.nan, random_state=0
    )
    frame = pair_rows(result)
    assert frame.pvalue.notna().all()
    assert (frame.pvalue_adjusted >= frame.pvalue).all()
    assert (frame.pvalue_adjusted <= np.minimum(frame.pvalue * len(frame), 1) + 1e-12).all()


@pytest.mark.parametrize("test", ["t-test", "wilcoxon", "bootstrap", "tukey-hsd", "randomized-tukey-hsd"])
def test_maxt_needs_the_randomization_test(test):
    y_true, scores, qid = data()
    with pytest.raises(ValueError, match=r"correction='maxT' needs test='randomization': it adjusts from that test"):
        compare_rankings(y_true, scores, qid=qid, test=test, correction="maxT")


def test_a_misspelt_correction_names_the_near_one():
    y_true, scores, qid = data()
    with pytest.raises(ValueError, match=r"got 'fdr'. Did you mean 'fdr_bh'\?"):
        compare_rankings(y_true, scores, qid=qid, correction="fdr")


# --- Tukey HSD ------------------------------------------------------------------------------------------------


def test_tukey_hsd_equals_the_studentized_range_of_the_two_way_anova_residual():
    y_true, scores, qid = data(n_queries=25, n_systems=4)
    result = compare_rankings(y_true, scores, qid=qid, metrics=["ndcg@10"], test="tukey-hsd", confidence_level=0.9)
    values = result.per_query["ndcg@10"]
    mse = anova_lm(ols("value ~ C(system) + C(query)", long_format(values)).fit(), typ=2).loc["Residual"]
    mse = mse["sum_sq"] / mse["df"]
    n, k, df = 25, 4, 3 * 24
    critical = stats.studentized_range.ppf(0.9, k, df)
    for row in pair_rows(result).itertuples():
        delta = values[row.system].mean() - values[row.baseline].mean()
        assert row.delta == pytest.approx(delta, rel=1e-12)
        q = abs(delta) / np.sqrt(mse / n)
        assert row.pvalue == pytest.approx(stats.studentized_range.sf(q, k, df), rel=1e-6)
        assert row.pvalue_adjusted == row.pvalue  # one metric: nothing to adjust across
        assert row.delta_ci_low == pytest.approx(delta - critical * np.sqrt(mse / n), rel=1e-9)
        assert row.delta_ci_high == pytest.approx(delta + critical * np.sqrt(mse / n), rel=1e-9)
        assert row.effect_size == pytest.approx(delta / np.sqrt(mse), rel=1e-12)


def test_tukey_hsd_of_two_systems_is_the_paired_t_test():
    y_true, scores, qid = data(n_queries=30, n_systems=2)
    result = compare_rankings(y_true, scores, qid=qid, metrics=METRICS, test="tukey-hsd", correction=None)
    for row in pair_rows(result).itertuples():
        values = result.per_query[row.metric]
        expected = stats.ttest_rel(values[row.system], values[row.baseline]).pvalue
        assert row.pvalue == pytest.approx(expected, rel=1e-6)


def test_tukey_correction_adjusts_across_the_metrics_of_each_pair_only():
    y_true, scores, qid = data(n_queries=20, n_systems=3, strength=0.15)
    frame = pair_rows(compare_rankings(y_true, scores, qid=qid, metrics=METRICS, test="tukey-hsd", correction="holm"))
    for _, pair in frame.groupby(["baseline", "system"]):
        expected = multipletests(pair.pvalue.to_numpy(), method="holm")[1]
        np.testing.assert_allclose(pair.pvalue_adjusted, expected, rtol=1e-12)


def test_tukey_with_a_baseline_reports_its_pairs_with_the_p_values_of_all_systems():
    y_true, scores, qid = data(n_queries=20, n_systems=4)
    every = pair_rows(compare_rankings(y_true, scores, qid=qid, test="tukey-hsd"))
    baseline = pair_rows(compare_rankings(y_true, scores, qid=qid, test="tukey-hsd", baseline="s0"))
    assert set(baseline.baseline) == {"s0"} and len(baseline) == 3
    merged = baseline.merge(every, on=["system", "baseline"], suffixes=("", "_every"))
    np.testing.assert_allclose(merged.pvalue, merged.pvalue_every, rtol=1e-12)


def exact_randomized_tukey(matrix):
    """Sakai's randomised Tukey HSD p-values by enumerating every permutation of every query's values."""
    n, k = matrix.shape
    means = matrix.mean(axis=0)
    ranges = []
    for permutations in itertools.product(itertools.permutations(range(k)), repeat=n):
        permuted = np.array([matrix[q, list(p)] for q, p in enumerate(permutations)]).mean(axis=0)
        ranges.append(permuted.max() - permuted.min())
    ranges = np.array(ranges)
    return {(a, b): np.mean(ranges >= abs(means[b] - means[a]) - 1e-12) for a, b in itertools.combinations(range(k), 2)}


def test_randomized_tukey_agrees_with_the_enumeration_of_every_permutation():
    # 6 queries of 3 systems: 6**6 = 46,656 permutations, more than the 20,000 resamples, so the test samples
    # (the former 4 queries had 1,296, which the resamples enumerated). The reference enumerates all 46,656.
    matrix = np.round(np.random.default_rng(3).random((6, 3)), 2)
    names = ["a", "b", "c"]
    values = {"m": {name: matrix[:, i] for i, name in enumerate(names)}}
    pairs = list(itertools.combinations(names, 2))
    b = 20_000
    assert not exact_permutations(6, 3, b)
    result = tukey_columns(values, pairs, "randomized-tukey-hsd", b, 0.95, np.random.default_rng(0))
    counts = result["pvalue"] * (b + 1)
    np.testing.assert_allclose(counts, np.round(counts), atol=1e-6)  # sampled: (1 + count) / (1 + B)
    expected = exact_randomized_tukey(matrix)
    for column, (a, c) in enumerate(pairs):
        p = expected[(names.index(a), names.index(c))]
        assert 0.01 < p < 0.99, p  # a p-value the Monte Carlo error can be measured on
        # Within 4 binomial standard errors of B resamples (and the observed permutation added to them).
        assert abs(result["pvalue"][column] - p) <= 4 * np.sqrt(p * (1 - p) / b) + 1 / b, (a, c)


@pytest.mark.parametrize("exact", [True, False], ids=["enumerated", "sampled"])
def test_randomized_tukey_interval_excludes_zero_exactly_when_p_is_below_alpha(exact):
    # Many small random data sets (2-3 systems, 2-5 queries, continuous and tied values) at several levels: the
    # interval delta +/- the critical range at confidence 1 - alpha excludes 0 exactly when p < alpha. A linearly
    # interpolated quantile of the discrete null broke this for 35 of 834 pairs enumerated, 48 of 782 sampled.
    rng = np.random.default_rng(0)
    disagreements, compared = 0, 0
    for trial in range(400):
        k, n = int(rng.integers(2, 4)), int(rng.integers(2, 6))
        matrix = rng.random((n, k))
        if trial % 2:
            matrix = np.round(matrix * 4) / 4
        names = [f"s{i}" for i in range(k)]
        values = {"m": {name: matrix[:, i] for i, name in enumerate(names)}}
        pairs = list(itertools.combinations(names, 2))
        alpha = [0.05, 0.1, 0.2, 0.25][trial % 4]
        permutations = math.factorial(k) ** n
        b = 10**5 if exact else int(rng.integers(max(2, permutations // 8), permutations))
        assert exact_permutations(n, k, b) == exact
        result = tukey_columns(values, pairs, "randomized-tukey-hsd", b, 1 - alpha, rng)
        excludes = (result["delta_ci_low"] > 0) | (result["delta_ci_high"] < 0)
        disagreements += int(((result["pvalue"] < alpha) != excludes).sum())
        compared += len(pairs)
    assert disagreements == 0 and compared > 750


def test_randomized_tukey_with_exact_p_of_one_sixteenth_has_a_95_percent_interval_around_zero():
    # Filed: two systems on five queries, the exact p = 2/32 = 0.0625 by enumeration (the observed signs and their
    # mirror image), yet the "95%" interval was [-0.693, -0.015]: the interpolated quantile lay between two ranges.
    matrix = np.array([[0.82, 0.58], [0.48, 0.26], [0.07, 0.02], [0.58, 0.19], [0.98, 0.11]])
    values = {"m": {"a": matrix[:, 0], "b": matrix[:, 1]}}
    result = tukey_columns(values, [("a", "b")], "randomized-tukey-hsd", 10_000, 0.95, np.random.default_rng(0))
    assert result["pvalue"][0] == 0.0625
    assert result["delta_ci_low"][0] <= 0 <= result["delta_ci_high"][0]


def test_randomized_tukey_of_two_systems_agrees_with_the_randomization_test():
    y_true, scores, qid = data(n_queries=40, n_systems=2, strength=0.1)
    arguments = {"qid": qid, "metrics": METRICS, "correction": None, "n_resamples": 20_000}
    tukey = pair_rows(compare_rankings(y_true, scores, test="randomized-tukey-hsd", random_state=0, **arguments))
    flips = pair_rows(compare_rankings(y_true, scores, test="randomization", random_state=1, **arguments))
    error = 4 * np.sqrt(flips.pvalue * (1 - flips.pvalue) / 20_000) + 1e-3
    assert (np.abs(tukey.pvalue - flips.pvalue) < 2 * error).all()


def test_randomized_tukey_is_reproducible_and_its_intervals_simultaneous():
    y_true, scores, qid = data(n_queries=20)
    arguments = {"qid": qid, "metrics": METRICS, "test": "randomized-tukey-hsd", "n_resamples": 999}
    first = compare_rankings(y_true, scores, random_state=11, **arguments).to_frame(kind="rows")
    assert first.equals(compare_rankings(y_true, scores, random_state=11, **arguments).to_frame(kind="rows"))
    assert not first.equals(compare_rankings(y_true, scores, random_state=12, **arguments).to_frame(kind="rows"))
    pairs = first.dropna(subset=["baseline"])
    # delta +/- the 95% quantile of the permuted range: the same half-width for every pair of a metric.
    widths = (pairs.delta_ci_high - pairs.delta_ci_low).round(12).groupby(pairs.metric).nunique()
    assert (widths == 1).all()
    assert ((pairs.pvalue < 0.05) == ((pairs.delta_ci_low > 0) | (pairs.delta_ci_high < 0))).all()


def test_tukey_tests_hold_their_familywise_level_under_the_null():
    # 300 data sets of 4 exchangeable systems on 12 queries (normal values and precision@5-like discrete ones):
    # the share with any pair significant stays below 0.05 + 3 standard errors.
    rng = np.random.default_rng(6)
    n_sets, alpha = 300, 0.05
    names = ["a", "b", "c", "d"]
    pairs = list(itertools.combinations(names, 2))
    for draw in (lambda size: rng.normal(0, 1, size), lambda size: rng.binomial(5, 0.3, size) / 5):
        cube = draw((n_sets, 12, 4)) + draw((n_sets, 12, 1))
        values = {f"m{i}": dict(zip(names, cube[i].T, strict=True)) for i in range(n_sets)}
        result = tukey_columns(values, pairs, "randomized-tukey-hsd", 199, 0.95, rng)
        rejected = (result["pvalue"].reshape(n_sets, len(pairs)).min(axis=1) <= alpha).mean()
        assert rejected <= alpha + 3 * np.sqrt(alpha * (1 - alpha) / n_sets)
    # Tukey's HSD, from the studentized range: exact for normal values (60 sets: it is slow to evaluate).
    cube = rng.normal(0, 1, (60, 12, 4))
    values = {f"m{i}": dict(zip(names, cube[i].T, strict=True)) for i in range(60)}
    result = tukey_columns(values, pairs, "tukey-hsd", 1, 0.95, rng)
    assert (result["pvalue"].reshape(60, len(pairs)).min(axis=1) <= alpha).mean() <= alpha + 3 * np.sqrt(
        alpha * (1 - alpha) / 60
    )


def test_randomized_ranges_in_chunks_equal_one_chunk(monkeypatch):
    import sklearn_rankmetrics.stats._anova as anova

    cube = np.random.default_rng(7).normal(size=(2, 50, 3))
    whole = randomized_ranges(cube, 300, np.random.default_rng(0))
    monkeypatch.setattr(anova, "CHUNK", 256 * 3 * 7)  # 7 queries a chunk
    chunked = randomized_ranges(cube, 300, np.random.default_rng(0))
    assert chunked.shape == whole.shape == (300, 2)
    # Other chunks draw other permutations: the same distribution, not the same numbers.
    assert abs(np.median(chunked) - np.median(whole)) < 0.1


@pytest.mark.parametrize("test", ["tukey-hsd", "randomized-tukey-hsd"])
def test_tukey_edge_cases(test):
    y_true, scores, qid = data(n_queries=20, n_systems=3)
    same = compare_rankings(
        y_true, {"a": scores["s1"], "b": scores["s1"].copy(), "c": scores["s2"]}, qid=qid, test=test
    )
    row = pair_rows(same).iloc[0]
    assert (row.pvalue, row.delta, row.effect_size) == (1.0, 0.0, 0.0)
    with pytest.warns(UserWarning, match="on 1 query: a paired test needs at least two"):
        one = compare_rankings(y_true[:6], {k: v[:6] for k, v in scores.items()}, qid=qid[:6], test=test)
    assert (pair_rows(one).pvalue == 1.0).all()


def test_tukey_hsd_without_residual_variance_warns():
    labels, qid = np.tile([1, 0, 0], 10), np.repeat(np.arange(10), 3)
    # Reciprocal ranks 1, 1/2 and 1/3 on every query: each difference is the same on every query.
    scores = {"a": np.tile([3.0, 2, 1], 10), "b": np.tile([2.0, 3, 1], 10), "c": np.tile([1.0, 2, 3], 10)}
    with pytest.warns(UserWarning, match="The residual variance of 'mrr' is 0"):
        result = compare_rankings(labels, scores, qid=qid, metrics=["mrr"], test="tukey-hsd")
    assert (pair_rows(result).pvalue == 0).all()


# --- ANOVA --------------------------------------------------------------------------------------------------


def test_anova_equals_statsmodels():
    y_true, scores, qid = data(n_queries=25, n_systems=4)
    result = compare_rankings(y_true, scores, qid=qid, metrics=METRICS, random_state=0)
    for metric in METRICS:
        table = result.anova(metric)
        assert table.index.tolist() == ["system", "query", "residual"]
        assert table.columns.tolist() == ["sum_sq", "df", "mean_sq", "F", "pvalue"]
        expected = anova_lm(ols("value ~ C(system) + C(query)", long_format(result.per_query[metric])).fit(), typ=2)
        np.testing.assert_allclose(table["sum_sq"], expected["sum_sq"], rtol=1e-10)
        np.testing.assert_allclose(table["df"], expected["df"], rtol=0)
        np.testing.assert_allclose(table["mean_sq"], expected["sum_sq"] / expected["df"], rtol=1e-10)
        np.testing.assert_allclose(table["F"], expected["F"], rtol=1e-9)
        np.testing.assert_allclose(table["pvalue"], expected["PR(>F)"], rtol=1e-7)
        assert table.loc["residual", ["F", "pvalue"]].isna().all()


def test_anova_leaves_out_the_queries_a_metric_does_not_define():
    y_true, scores, qid = data(n_queries=20, n_systems=3, seed=4)
    y_true[qid < 5] = 0
    result = compare_rankings(y_true, scores, qid=qid, metrics=["mrr"], zero_division=np.nan, random_state=0)
    table = result.anova("mrr")
    assert table.loc["query", "df"] == 14
    defined = {name: v[~np.isnan(v)] for name, v in result.per_query["mrr"].items()}
    expected = anova_lm(ols("value ~ C(system) + C(query)", long_format(defined)).fit(), typ=2)
    np.testing.assert_allclose(table["sum_sq"], expected["sum_sq"], rtol=1e-10)


def test_anova_needs_pandas_and_names_the_extra(monkeypatch):
    y_true, scores, qid = data(n_queries=5, n_systems=2)
    result = compare_rankings(y_true, scores, qid=qid, random_state=0)
    with pytest.raises(ValueError, match=r"metric='map' is not in the comparison; it has \['ndcg@10'\]"):
        result.anova("map")
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(
        ImportError, match=r"RankingComparison.anova needs pandas: pip install 'sklearn-rankmetrics\[pandas\]'"
    ):
        result.anova()


# --- power and topic-set size ------------------------------------------------------------------------------


def test_paired_t_power_equals_statsmodels():
    effects = np.array([-0.8, -0.1, 0.0, 0.05, 0.3, 1.2])
    for n in (2, 3, 10, 50, 1000):
        for alpha in (0.01, 0.05, 0.2):
            expected = TTestPower().power(effects, n, alpha, alternative="two-sided")
            ours = paired_t_power(effects, n, alpha=alpha)
            known = ~np.isnan(expected)  # scipy's private noncentral t gives nan far in its tail; ours is 1
            np.testing.assert_allclose(ours[known], expected[known], rtol=1e-10, atol=1e-15)
            np.testing.assert_allclose(ours[~known], 1.0)
    assert paired_t_power(0.0, 20) == pytest.approx(0.05, rel=1e-12)
    assert isinstance(paired_t_power(0.3, 20), float)


def test_topic_set_size_is_the_ceiling_of_statsmodels_solve_power():
    for effect in (0.05, 0.1, 0.25, 0.5, -0.5, 0.9, 1.4):
        for power in (0.5, 0.8, 0.95):
            for alpha in (0.01, 0.05):
                solved = TTestPower().solve_power(abs(effect), alpha=alpha, power=power)
                n = topic_set_size(effect, alpha=alpha, power=power)
                assert n == max(math.ceil(solved), 2), (effect, power, alpha)
                assert (
                    paired_t_power(effect, n, alpha=alpha) >= power > paired_t_power(effect, max(n - 1, 2), alpha=alpha)
                    or n == 2
                )


def test_topic_set_size_anova_equals_statsmodels_one_way_power():
    for min_range, variance, m in [(0.1, 0.05, 10), (0.05, 0.02, 3), (0.2, 0.1, 2), (0.02, 0.01, 30)]:
        for power in (0.7, 0.9):
            f = min_range / np.sqrt(2 * m * variance)  # Cohen's f of the least favourable means
            total = FTestAnovaPower().solve_power(f, alpha=0.05, power=power, k_groups=m)
            n = topic_set_size_anova(min_range, variance=variance, n_systems=m, power=power)
            assert n == math.ceil(total / m - 1e-9)


def test_topic_set_size_ci_equals_a_direct_search_and_nagatas_approximation():
    for width, variance, level in [(0.1, 0.1, 0.95), (0.05, 0.04, 0.95), (0.2, 0.05, 0.9), (1.0, 0.01, 0.99)]:
        n = topic_set_size_ci(width, variance=variance, confidence_level=level)
        direct = next(m for m in range(2, 100_000) if expected_ci_width_direct(m, variance, level) <= width)
        assert n == direct
        # Nagata's starting point 4 z^2 sigma^2 / delta^2 is the large-n limit: within a few queries of it.
        start = 4 * stats.norm.isf((1 - level) / 2) ** 2 * variance / width**2
        assert abs(n - start) <= 5 or n == 2


def expected_ci_width_direct(n, variance, level):
    """E[2 t s / sqrt(n)] for n normal differences, E[s] by numerical integration of the chi distribution."""
    mean_s = stats.chi.mean(n - 1) * np.sqrt(variance / (n - 1))
    return 2 * stats.t.isf((1 - level) / 2, n - 1) * mean_s / np.sqrt(n)


def test_expected_ci_width_uses_the_mean_of_the_sample_standard_deviation():
    for n in (2, 5, 40):
        assert expected_ci_width(float(n), 0.3, 0.95) == pytest.approx(
            expected_ci_width_direct(n, 0.3, 0.95), rel=1e-10
        )


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: topic_set_size(0.0), "effect_size must be non-zero"),
        (lambda: topic_set_size(0.3, power=0.04), r"power must be in \(0.05, 1\): above alpha=0.05"),
        (lambda: topic_set_size(0.3, power=1.0), r"power must be in \(0.05, 1\): .* and below 1; got 1.0"),
        (lambda: topic_set_size(0.3, alpha=1.0), r"alpha must be in \(0, 1\); got 1.0"),
        (lambda: topic_set_size(1e-7), "topic_set_size needs more than"),
        (lambda: paired_t_power(0.3, 1), r"n_queries must be integers >= 2; got 1"),
        (lambda: paired_t_power(0.3, 10.5), r"n_queries must be integers >= 2"),
        (lambda: paired_t_power(np.nan, 10), "effect_size must be finite"),
        (lambda: topic_set_size_anova(0.1, variance=0.0, n_systems=5), r"variance must be in \(0, inf\); got 0.0"),
        (lambda: topic_set_size_anova(0.1, variance=0.05, n_systems=1), "n_systems must be an integer >= 2"),
        (lambda: topic_set_size_ci(-0.1, variance=0.05), r"max_width must be in \(0, inf\); got -0.1"),
    ],
)
def test_power_functions_reject_bad_arguments(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_queries_needed_is_the_topic_set_size_of_each_pairs_own_effect():
    y_true, scores, qid = data(n_queries=30, n_systems=3, strength=0.1)
    result = compare_rankings(y_true, scores, qid=qid, metrics=METRICS, test="t-test")
    with pytest.warns(UserWarning, match=r"Too few queries for power 0.9 on 'mrr': these differences are not"):
        needed = result.queries_needed("mrr", power=0.9, alpha=0.01)
    values = result.per_query["mrr"]
    assert list(needed) == [("s0", "s1"), ("s0", "s2"), ("s1", "s2")]
    for (a, b), n in needed.items():
        d = values[b] - values[a]
        assert n == topic_set_size(d.mean() / d.std(ddof=1), alpha=0.01, power=0.9)
    same = compare_rankings(y_true, {"a": scores["s0"], "b": scores["s0"]}, qid=qid, random_state=0)
    assert same.queries_needed() == {("a", "b"): None}


# --- several runs per system -------------------------------------------------------------------------------


def runs_of(scores, n_runs, seed=0, spread=0.5):
    rng = np.random.default_rng(seed)
    return {name: [s + rng.normal(0, spread, s.size) for _ in range(n_runs)] for name, s in scores.items()}


@pytest.mark.parametrize("test", ["randomization", "bootstrap", "tukey-hsd"])
def test_one_run_per_system_gives_the_result_of_single_arrays(test):
    y_true, scores, qid = data(n_queries=20, n_systems=3)
    arguments = {"qid": qid, "metrics": METRICS, "test": test, "random_state": 0, "n_resamples": 999}
    single = compare_rankings(y_true, scores, **arguments)
    listed = compare_rankings(y_true, {name: [s] for name, s in scores.items()}, **arguments)
    assert single.to_frame(kind="rows").equals(listed.to_frame(kind="rows"))
    assert listed.run_values == {} and (single.to_frame(kind="rows").n_runs == 1).all()
    assert single.to_frame(kind="rows").run_std.isna().all()


def test_several_runs_are_compared_through_their_mean_and_their_spread_is_reported():
    y_true, scores, qid = data(n_queries=20, n_systems=3)
    runs = runs_of(scores, 3)
    result = compare_rankings(y_true, runs, qid=qid, metrics=METRICS, test="t-test")
    for metric in METRICS:
        per_run = {
            name: np.array(
                [
                    compare_rankings(y_true, {"x": r, "y": r}, qid=qid, metrics=[metric], test="t-test").per_query[
                        metric
                    ]["x"]
                    for r in system_runs
                ]
            )
            for name, system_runs in runs.items()
        }
        for name, values in per_run.items():
            np.testing.assert_array_equal(result.run_values[metric][name], values)
            np.testing.assert_allclose(result.per_query[metric][name], values.mean(axis=0), rtol=1e-15)
            row = result.to_frame(kind="rows").query("system == @name and metric == @metric").iloc[0]
            assert row.n_runs == 3
            assert row.run_std == pytest.approx(values.mean(axis=1).std(ddof=1), rel=1e-12)
        for row in pair_rows(result).query("metric == @metric").itertuples():
            expected = stats.ttest_rel(per_run[row.system].mean(axis=0), per_run[row.baseline].mean(axis=0)).pvalue
            assert row.pvalue == pytest.approx(expected, rel=1e-10)
    assert "±" in str(result) and "runs: s0 3, s1 3, s2 3" in str(result)


def test_runs_as_a_stacked_array_equal_runs_as_a_list():
    y_true, scores, qid = data(n_queries=10, n_systems=2)
    runs = runs_of(scores, 2)
    listed = compare_rankings(y_true, runs, qid=qid, random_state=0)
    stacked = compare_rankings(y_true, {k: np.stack(v) for k, v in runs.items()}, qid=qid, random_state=0)
    assert listed.to_frame(kind="rows").equals(stacked.to_frame(kind="rows"))
    with pytest.raises(ValueError, match=r"y_scores\['s0'\] is an empty list: give each system one or more runs"):
        compare_rankings(y_true, {"s0": [], "s1": scores["s1"]}, qid=qid)


def test_anova_with_runs_nests_the_run_in_the_system_as_statsmodels():
    y_true, scores, qid = data(n_queries=15, n_systems=3)
    result = compare_rankings(y_true, runs_of(scores, 3), qid=qid, metrics=["ndcg@10"], random_state=0)
    table = result.anova()
    assert table.index.tolist() == ["system", "query", "run", "residual"]
    long = pd.DataFrame(
        [
            (system, query, run, value)
            for system, runs in result.run_values["ndcg@10"].items()
            for run, values in enumerate(runs)
            for query, value in enumerate(values)
        ],
        columns=["system", "query", "run", "value"],
    )
    expected = anova_lm(ols("value ~ C(system) + C(query) + C(system):C(run)", long).fit(), typ=1)
    np.testing.assert_allclose(table["sum_sq"], expected["sum_sq"], rtol=1e-10)
    np.testing.assert_allclose(table["df"], expected["df"], rtol=0)
    np.testing.assert_allclose(table["F"].iloc[:3], expected["F"].iloc[:3], rtol=1e-9)
    unequal = compare_rankings(y_true, {"a": runs_of(scores, 2)["s0"], "b": scores["s1"]}, qid=qid, random_state=0)
    with pytest.raises(ValueError, match=r"needs the same number of runs for every system; got \{'a': 2, 'b': 1\}"):
        unequal.anova()


def test_a_difference_within_the_run_spread_warns():
    # Each run of a system is as good as its seed's luck (its weight of the labels): over the queries, b's averaged
    # runs beat a's; over the run means, whose spread is larger than the difference, they do not.
    y_true, scores, qid = data(n_queries=100, n_systems=1)
    weights = {"a": [0.0, 0.6, 0.3], "b": [0.5, 0.1, 0.65]}
    runs = {name: [scores["s0"] + weight * y_true for weight in run_weights] for name, run_weights in weights.items()}
    with pytest.warns(
        UserWarning, match=r"Significant over the queries, but not over the runs: 'b' - 'a' on 'ndcg@10'"
    ):
        result = compare_rankings(y_true, runs, qid=qid, test="t-test")
    assert pair_rows(result).pvalue_adjusted.iloc[0] < 0.05


# --- reports ------------------------------------------------------------------------------------------------


def test_str_shows_every_pair_without_a_baseline():
    y_true, scores, qid = data(n_queries=20, n_systems=3)
    text = str(compare_rankings(y_true, scores, qid=qid, metrics=METRICS, random_state=0))
    for pair in ("s1 - s0", "s2 - s0", "s2 - s1"):
        assert pair in text
    assert "baseline" not in text
    assert "* p < 0.05 (randomization test, holm)" in text


def test_alpha_is_independent_of_the_confidence_level():
    y_true, scores, qid = data(n_queries=30, n_systems=3)
    arguments = {"qid": qid, "metrics": METRICS, "random_state": 0}
    loose = compare_rankings(y_true, scores, alpha=0.2, confidence_level=0.9, **arguments)
    strict = compare_rankings(y_true, scores, alpha=1e-4, confidence_level=0.9, **arguments)
    assert loose.to_frame(kind="rows").equals(strict.to_frame(kind="rows"))  # alpha changes no number
    assert str(loose).count("*") > str(strict).count("*")
    assert "p < 0.2" in str(loose) and strict.alpha == 1e-4
    with pytest.raises(ValueError, match=r"alpha must be in \(0, 1\); got 1.0"):
        compare_rankings(y_true, scores, alpha=1.0, **arguments)


def test_markdown_and_latex_mark_the_systems_each_row_beats():
    y_true, scores, qid = data(n_queries=40, n_systems=3, strength=0.5)
    result = compare_rankings(y_true, scores, qid=qid, metrics=METRICS, random_state=0)
    frame = pair_rows(result)
    markdown = result.to_markdown()
    lines = markdown.splitlines()
    assert lines[0] == "| system | ndcg@10 | mrr |"
    rows = {line.split(" | ")[0].split(") ")[1]: line for line in lines[2:5]}
    for metric_column, metric in enumerate(METRICS, start=1):
        for system, line in rows.items():
            cell = line.split(" | ")[metric_column]
            beaten = frame[
                (frame.metric == metric)
                & (frame.pvalue_adjusted < 0.05)
                & (((frame.system == system) & (frame.delta > 0)) | ((frame.baseline == system) & (frame.delta < 0)))
            ]
            losers = sorted(set(beaten.baseline.where(beaten.system == system, beaten.system)))
            expected = ", ".join("abc"[int(name[1])] for name in losers)
            assert (f"<sup>{expected}</sup>" in cell) if losers else ("<sup>" not in cell), (system, metric, cell)
            mean = result.to_frame(kind="rows").query("system == @system and metric == @metric").iloc[0]
            assert f"{mean['mean']:.4f} [{mean.ci_low:.4f}, {mean.ci_high:.4f}]" in cell.replace("**", "")
    assert "**" in rows["s2"]  # the best system is bold
    assert "Superscripts: significantly better than the system of that letter, adjusted p < 0.05" in markdown
    latex = result.to_latex(effect_sizes=True)
    assert latex.startswith("\\begin{tabular}{lrr}\n\\toprule\n") and latex.endswith("\\end{tabular}\n")
    assert "\\textsuperscript{a (" in latex and "\\textbf{" in latex
    assert result.to_latex(ci=False).count("[") == 0


def test_latex_escapes_names():
    y_true, scores, qid = data(n_queries=10, n_systems=2)
    result = compare_rankings(y_true, {"bm25_rm3 & co": scores["s0"], "50%": scores["s1"]}, qid=qid, random_state=0)
    latex = result.to_latex()
    assert "bm25\\_rm3 \\& co" in latex and "50\\%" in latex


def frames_equal(first, second):
    return first.to_frame(kind="rows").equals(second.to_frame(kind="rows"))


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"test": "tukey-hsd", "baseline": "s0", "alpha": 0.01},
        {"zero_division": np.nan, "correction": "fdr_bh"},
    ],
)
def test_json_round_trip(kwargs):
    y_true, scores, qid = data(n_queries=12, n_systems=3)
    y_true[qid == 3] = 0  # a query without relevant documents: nan under zero_division=nan
    result = compare_rankings(y_true, scores, qid=qid.astype(str), metrics=METRICS, random_state=0, **kwargs)
    text = result.to_json()
    json.loads(text)  # standard JSON: no NaN literal
    assert "NaN" not in text
    restored = RankingComparison.from_json(text)
    assert frames_equal(result, restored) and str(result) == str(restored)
    assert (restored.test, restored.correction, restored.alpha, restored.n_queries) == (
        result.test,
        result.correction,
        result.alpha,
        result.n_queries,
    )
    np.testing.assert_array_equal(restored.per_query["qid"], result.per_query["qid"])
    for metric in METRICS:
        for name in scores:
            np.testing.assert_array_equal(restored.per_query[metric][name], result.per_query[metric][name])
    for row in restored.rows:
        assert row["wins"] is None or type(row["wins"]) is int


def test_json_round_trip_with_runs_and_integer_names():
    y_true, scores, qid = data(n_queries=8, n_systems=2)
    runs = runs_of(scores, 2)
    result = compare_rankings(y_true, {0: runs["s0"], 1: runs["s1"]}, qid=qid, random_state=0)
    restored = RankingComparison.from_json(result.to_json())
    assert frames_equal(result, restored)
    np.testing.assert_array_equal(restored.run_values["ndcg@10"][1], result.run_values["ndcg@10"][1])
    pd.testing.assert_frame_equal(restored.anova(), result.anova())


def test_json_errors_name_the_fix():
    with pytest.raises(ValueError, match=r"needs the text that RankingComparison\.to_json wrote"):
        RankingComparison.from_json('{"rows": []}')
    with pytest.raises(ValueError, match="needs the text that to_json wrote"):
        RankingComparison.from_json("not json")
    y_true, scores, qid = data(n_queries=4, n_systems=2)
    result = compare_rankings(y_true, {("a", 1): scores["s0"], "b": scores["s1"]}, qid=qid, random_state=0)
    with pytest.raises(TypeError, match=r"writes system names as JSON strings or numbers; got \('a', 1\)"):
        result.to_json()


def test_wins_ties_and_losses_are_integers():
    y_true, scores, qid = data(n_queries=10, n_systems=3)
    frame = compare_rankings(y_true, scores, qid=qid, random_state=0).to_frame(kind="rows")
    for column in ("wins", "ties", "losses", "n_runs"):
        assert str(frame[column].dtype) == "Int64"
    assert frame.wins.isna().sum() == 1  # the first system's own row


# --- warnings -----------------------------------------------------------------------------------------------


def test_wilcoxon_with_thousands_of_queries_warns():
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(1000), 2)
    y_true = np.tile([1, 0], 1000)
    scores = {"a": rng.normal(size=2000), "b": rng.normal(size=2000)}
    with pytest.warns(UserWarning, match="test='wilcoxon' on 1000 queries: with thousands of queries"):
        compare_rankings(y_true, scores, qid=qid, metrics=["mrr"], test="wilcoxon")


def test_a_significant_but_negligible_difference_warns():
    rng = np.random.default_rng(1)
    n = 3000
    qid = np.repeat(np.arange(n), 2)
    y_true = np.tile([1, 0], n)
    # b ranks the relevant document first a little more often than a: a tiny, significant effect.
    a = rng.normal(size=2 * n) + 0.3 * y_true
    b = a + (rng.random(2 * n) < 0.04) * y_true
    with pytest.warns(
        UserWarning, match=r"Significant, but the effect is negligible \(\|effect size\| < 0.2\): 'b' - 'a'"
    ):
        result = compare_rankings(y_true, {"a": a, "b": b}, qid=qid, metrics=["mrr"], test="t-test")
    row = pair_rows(result).iloc[0]
    assert row.pvalue_adjusted < 0.05 and abs(row.effect_size) < 0.2


# --- bad input ----------------------------------------------------------------------------------------------


def test_bad_scores_name_their_system_and_run():
    y_true, scores, qid = data(n_queries=10, n_systems=2)
    bad = scores["s1"].copy()
    bad[3] = np.nan
    with pytest.raises(ValueError, match=r"^y_scores\['s1'\]: y_score contains NaN"):
        compare_rankings(y_true, {"s0": scores["s0"], "s1": bad}, qid=qid)
    with pytest.raises(ValueError, match=r"^y_scores\['s1'\]\[1\] \(run 2 of 2\): y_score contains NaN"):
        compare_rankings(y_true, {"s0": scores["s0"], "s1": [scores["s1"], bad]}, qid=qid)
    with pytest.raises(
        ValueError,
        match=r"y_scores\['s1'\] is a list of 2 runs, but y_scores\['s1'\]\[1\] has shape \(30,\); every run",
    ):
        compare_rankings(y_true, {"s0": scores["s0"], "s1": [scores["s1"], scores["s1"][:30]]}, qid=qid)


def test_a_metric_no_query_defines():
    y_true, scores, qid = data(n_queries=10, n_systems=2)
    with pytest.warns(UserWarning, match="No query defines 'mrr' for every system"):
        result = compare_rankings(np.zeros_like(y_true), scores, qid=qid, metrics=["mrr"], zero_division=np.nan)
    with pytest.raises(
        ValueError, match=r"RankingComparison\.anova needs at least two queries that every system defines"
    ):
        result.anova()
    assert result.queries_needed() == {("s0", "s1"): None}


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"digits": -1}, ValueError, "digits must be an integer >= 0; got -1"),
        ({"ci": "yes"}, TypeError, "ci must be True or False; got 'yes'"),
        ({"effect_sizes": 1}, TypeError, "effect_sizes must be True or False; got 1"),
    ],
)
def test_table_options_are_checked(kwargs, error, message):
    y_true, scores, qid = data(n_queries=5, n_systems=2)
    result = compare_rankings(y_true, scores, qid=qid, random_state=0)
    for method in (result.to_markdown, result.to_latex):
        with pytest.raises(error, match=message):
            method(**kwargs)


def test_json_from_a_newer_version_is_refused():
    y_true, scores, qid = data(n_queries=5, n_systems=2)
    document = json.loads(compare_rankings(y_true, scores, qid=qid, random_state=0).to_json())
    document["version"] = 99
    with pytest.raises(ValueError, match=r"written by a newer sklearn-rankmetrics \(format version 99"):
        RankingComparison.from_json(json.dumps(document))


@pytest.mark.parametrize("k", [2, 3, 10, 40])
@pytest.mark.parametrize("df", [1, 4, 29, 2891, 200_000])
def test_studentized_range_sf_of_every_pair_at_once_is_scipys_to_its_accuracy(k, df):
    critical = stats.studentized_range.ppf(0.95, k, df)
    q = np.append(np.linspace(0.0, 3 * critical, 13), [critical, np.inf])
    ours = studentized_range_sf(q, k, df)
    np.testing.assert_allclose(ours, stats.studentized_range.sf(q, k, df), rtol=0, atol=2e-11)  # scipy's accuracy
    assert ours[0] == pytest.approx(1.0, abs=1e-12) and ours[-1] == 0.0
    assert ours[-2] == pytest.approx(0.05, rel=1e-8)
    # Each value is computed alone, whichever values share its block: the same bits.
    assert [studentized_range_sf(value, k, df) for value in q] == ours.tolist()


@pytest.mark.parametrize("df", [1, 9, 120, 2891])
def test_studentized_range_of_two_means_is_studentized_t(df):
    q = np.array([0.05, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0])
    exact = 2 * stats.t.sf(q / np.sqrt(2), df)  # the range of two means is sqrt(2) |t|
    ours = studentized_range_sf(q, 2, df)
    np.testing.assert_allclose(ours, exact, rtol=0, atol=1e-12)
    defined = exact > 1e-8
    np.testing.assert_allclose(ours[defined], exact[defined], rtol=1e-7)
