"""Discriminative power, swap rates and standardisation: the comparison's tests, exact counts and direct formulas."""

import itertools
import warnings

import naive_meta
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from sklearn_rankmetrics import compare_rankings
from sklearn_rankmetrics.meta import discriminative_power, standardize_scores, swap_rate


def systems_on_queries(seed, n_queries=12, n_systems=4):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), 6)
    y_true = rng.integers(0, 3, 6 * n_queries)
    scores = {f"s{i}": y_true + rng.normal(0, 0.5 + i, 6 * n_queries) for i in range(n_systems)}
    return y_true, scores, qid


@pytest.mark.parametrize("test", ["t-test", "tukey-hsd", "randomization", "wilcoxon"])
def test_pvalues_are_those_of_compare_rankings(test):
    y_true, scores, qid = systems_on_queries(1)
    # 12 queries: the randomization test enumerates all 4,096 sign flips, so it is exact and seed-free.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        resamples = 4096 if test == "randomization" else 100
        comparison = compare_rankings(y_true, scores, qid=qid, test=test, correction=None, n_resamples=resamples)
        result = discriminative_power(comparison, test=test, n_resamples=resamples)
    rows = {(row["baseline"], row["system"]): row["pvalue"] for row in comparison.rows if row["baseline"]}
    assert result.pairs == list(rows)
    assert result.pvalues == pytest.approx(list(rows.values()), abs=1e-12)
    assert result.power == np.mean(np.array(list(rows.values())) < 0.05)


def test_the_t_test_pvalues_equal_scipys_pair_by_pair():
    rng = np.random.default_rng(0)
    matrix = rng.random((20, 5)) + np.linspace(0, 0.3, 5)
    result = discriminative_power(matrix, test="t-test")
    expected = [stats.ttest_rel(matrix[:, j], matrix[:, i]).pvalue for i, j in itertools.combinations(range(5), 2)]
    assert result.pvalues == pytest.approx(expected, abs=1e-12)
    assert result.deltas == pytest.approx([matrix[:, j].mean() - matrix[:, i].mean() for i, j in result.pairs])
    assert list(result.asl_curve) == sorted(expected)


def test_the_bootstrap_test_agrees_with_a_per_pair_bootstrap_t():
    rng = np.random.default_rng(0)
    matrix = rng.random((30, 4)) + np.array([0, 0.02, 0.1, 0.3])
    result = discriminative_power(matrix, n_resamples=4000, random_state=0)
    for (i, j), pvalue in zip(result.pairs, result.pvalues, strict=True):
        d = matrix[:, j] - matrix[:, i]
        centred, t = d - d.mean(), abs(d.mean()) / d.std(ddof=1)
        draws = rng.integers(0, 30, (4000, 30))
        resampled = centred[draws]
        t_star = np.abs(resampled.mean(axis=1)) / resampled.std(axis=1, ddof=1)
        assert pvalue == pytest.approx((1 + np.sum(t_star >= t)) / 4001, abs=0.03)


def test_randomized_tukey_hsd_separates_fewer_pairs_than_separate_tests():
    y_true, scores, qid = systems_on_queries(2, n_queries=40, n_systems=6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comparison = compare_rankings(y_true, scores, qid=qid, metrics=["ndcg@10"], n_resamples=100, random_state=0)
    tukey = discriminative_power(comparison, test="randomized-tukey-hsd", n_resamples=500, random_state=0)
    separate = discriminative_power(comparison, test="randomization", n_resamples=500, random_state=0)
    assert tukey.n_significant <= separate.n_significant
    assert 0 <= tukey.power <= 1
    frame = tukey.to_frame()
    assert list(frame.columns) == ["system_a", "system_b", "delta", "pvalue", "significant"]
    assert "of 15 pairs significant" in str(tukey)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10**6), st.randoms())
def test_discriminative_power_is_invariant_to_the_order_of_systems(seed, random):
    rng = np.random.default_rng(seed)
    matrix = rng.random((15, 5))
    order = list(range(5))
    random.shuffle(order)
    names = [f"s{i}" for i in range(5)]
    first = discriminative_power(dict(zip(names, matrix.T, strict=True)), test="t-test")
    second = discriminative_power({names[i]: matrix[:, i] for i in order}, test="t-test")
    assert first.power == second.power
    by_pair = {frozenset(pair): p for pair, p in zip(second.pairs, second.pvalues, strict=True)}
    assert [by_pair[frozenset(pair)] for pair in first.pairs] == pytest.approx(list(first.pvalues), abs=1e-12)


def test_swap_rate_on_two_topics_is_exact():
    # Two topics, subsets of one: every trial compares topic 1 with topic 2, so the swaps are those pairs whose
    # difference changes sign between the two topics, in every trial.
    scores = np.array([[0.1, 0.5, 0.3, 0.3], [0.2, 0.4, 0.6, 0.3]])
    result = swap_rate(scores, n_trials=50, random_state=0)
    pairs = list(itertools.combinations(range(4), 2))
    swapped = sum(
        (scores[0, j] - scores[0, i]) * (scores[1, j] - scores[1, i]) < 0 for i, j in pairs
    )  # (0, 1): +0.4 / +0.2 no; (0, 2): +0.2/+0.4 no; (1, 2): -0.2/+0.2 yes; (1, 3): -0.2/-0.1 no; ...
    assert result.swaps.sum() == 50 * swapped
    assert result.comparisons.sum() == 50 * len(pairs)
    assert result.rate[0] == pytest.approx(swapped / len(pairs))


def test_swap_rate_converges_to_its_expectation_and_falls_with_more_topics():
    scores = [[0.1, 0.2], [0.3, 0.5], [0.2, 0.4], [0.6, 0.5]]  # a swap iff the 4th topic is one of the two drawn
    assert swap_rate(scores, subset_size=1, n_trials=4000, random_state=0).rate[0] == pytest.approx(0.5, abs=0.03)
    rng = np.random.default_rng(0)
    matrix = np.clip(np.linspace(0.2, 0.4, 5) + rng.normal(0, 0.2, (60, 5)), 0, 1)
    result = swap_rate(matrix, subset_size=[5, 15, 30], n_trials=300, random_state=0)
    assert result.rate[0] > result.rate[1] > result.rate[2]
    frame = result.to_frame()
    assert frame["comparisons"].sum() == 3 * 300 * 10
    assert (frame.groupby("subset_size")["swaps"].sum().to_numpy() == result.swaps.sum(axis=1)).all()


def test_standardize_scores_is_webbers_z_score():
    rng = np.random.default_rng(0)
    matrix = rng.random((8, 5))
    z = standardize_scores(matrix, transform=None)
    assert z == pytest.approx(naive_meta.standardize(matrix, matrix), abs=1e-12)
    assert standardize_scores(matrix) == pytest.approx(stats.norm.cdf(z), abs=1e-12)
    assert standardize_scores(matrix, transform="linear") == pytest.approx(0.15 * z + 0.5, abs=1e-12)
    reference = rng.random((8, 10))
    expected = naive_meta.standardize(matrix, reference)
    assert standardize_scores(matrix, reference=reference, transform=None) == pytest.approx(expected, abs=1e-12)
    expected = naive_meta.standardize(matrix, matrix[:, [0, 2, 3]])
    assert standardize_scores(matrix, reference=[0, 2, 3], transform=None) == pytest.approx(expected, abs=1e-12)
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(matrix, columns=list("abcde"), index=[f"q{i}" for i in range(8)])
    out = standardize_scores(frame, reference=["a", "c", "d"], transform=None)
    assert list(out.columns) == list("abcde") and list(out.index) == list(frame.index)
    assert out.to_numpy() == pytest.approx(expected, abs=1e-12)
    mapped = standardize_scores({name: frame[name].to_numpy() for name in frame})
    assert mapped["b"] == pytest.approx(stats.norm.cdf(naive_meta.standardize(matrix, matrix))[:, 1], abs=1e-12)


def test_a_topic_without_spread_is_nan_with_a_warning():
    with pytest.warns(UserWarning, match=r"same on 1 topic\(s\) \(rows 1\)"):
        z = standardize_scores([[0.1, 0.2, 0.4], [0.3, 0.3, 0.3]])
    assert np.isnan(z[1]).all() and not np.isnan(z[0]).any()


def test_bad_inputs_are_refused_with_the_fix():
    matrix = np.random.default_rng(0).random((6, 3))
    with pytest.raises(ValueError, match="test must be one of"):
        discriminative_power(matrix, test="sign")
    with pytest.raises(ValueError, match="alpha must be in"):
        discriminative_power(matrix, alpha=1.5)
    with pytest.raises(ValueError, match="needs at least 2 systems; got 1"):
        discriminative_power(matrix[:, :1])
    with pytest.raises(ValueError, match="must be 2-D"):
        discriminative_power(matrix[0])
    with pytest.raises(ValueError, match="needs at least two queries"):
        swap_rate(matrix[:1])
    with pytest.raises(ValueError, match="needs 8 topics for two disjoint subsets; there are 6"):
        swap_rate(matrix, subset_size=4)
    with pytest.raises(ValueError, match="bin_width must be in"):
        swap_rate(matrix, bin_width=0)
    with pytest.raises(ValueError, match="reference names systems that scores does not have"):
        standardize_scores({"a": [1, 2], "b": [2, 3]}, reference=["c"])
    with pytest.raises(ValueError, match="transform must be one of"):
        standardize_scores(matrix, transform="log")
    with pytest.raises(ValueError, match="same queries as scores; got 5 and 6"):
        standardize_scores(matrix, reference=matrix[:5])
