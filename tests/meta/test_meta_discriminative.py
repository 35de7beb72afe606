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
    assert list(result.asl_curve) == pytest.approx(sorted(expected), abs=1e-12)


def test_the_bootstrap_asl_agrees_with_a_per_pair_bootstrap_t():
    rng = np.random.default_rng(0)
    matrix = rng.random((30, 4)) + np.array([0, 0.02, 0.1, 0.3])
    result = discriminative_power(matrix, n_resamples=4000, random_state=0)
    for (i, j), pvalue in zip(result.pairs, result.pvalues, strict=True):
        d = matrix[:, j] - matrix[:, i]
        centred, t = d - d.mean(), abs(d.mean()) / d.std(ddof=1)
        draws = rng.integers(0, 30, (4000, 30))
        resampled = centred[draws]
        t_star = np.abs(resampled.mean(axis=1)) / resampled.std(axis=1, ddof=1)
        assert pvalue == pytest.approx(np.mean(t_star >= t), abs=0.03)  # Sakai's ASL: the share of B


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
    with pytest.raises(ValueError, match="needs at least 2 queries; got 1"):
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


# ---- Sakai's bootstrap ASL, the same resamples as compare_rankings, pairs streamed -------------------------


def sakai_asl(d, n_resamples, rng):
    """Sakai (SIGIR 2006), Fig. 1: t = mean / (sd / sqrt n); w = d - mean; ASL = #{|t(w*)| >= |t(d)|} / B."""
    n = len(d)
    t = d.mean() / (d.std(ddof=1) / np.sqrt(n))
    resampled = (d - d.mean())[rng.integers(0, n, (n_resamples, n))]
    with np.errstate(divide="ignore", invalid="ignore"):
        t_star = resampled.mean(axis=1) / (resampled.std(axis=1, ddof=1) / np.sqrt(n))
    return np.mean(np.abs(np.nan_to_num(t_star, nan=np.inf)) >= abs(t))


def test_bootstrap_asl_is_sakais_on_few_queries_too():
    # 8 topics x 3 systems (the reviewer's case): compare_rankings' guard for small samples (at least the exact
    # randomization test's p-value) made the power 0; Sakai's ASL separates the pair (0, 2).
    scores = np.array([[0.4, 0.4, 0.4], [0.6, 0.0, 0.8], [0.2, 0.3, 0.2], [0.3, 0.3, 0.3],
                       [0.1, 0.3, 0.4], [0.3, 0.4, 0.5], [0.3, 0.5, 0.5], [0.0, 0.5, 0.5]])  # fmt: skip
    result = discriminative_power(scores, test="bootstrap", n_resamples=40000, random_state=0)
    rng = np.random.default_rng(1)
    for (i, j), asl in zip(result.pairs, result.pvalues, strict=True):
        assert asl == pytest.approx(sakai_asl(scores[:, j] - scores[:, i], 40000, rng), abs=0.01)
    assert result.power == pytest.approx(1 / 3)


@pytest.mark.parametrize("n_queries", [6, 14, 30])
def test_bootstrap_asl_counts_the_resamples_of_compare_rankings(n_queries):
    # The same resamples: compare_rankings' p = (1 + count) / (1 + B) (above 13 queries), Sakai's ASL = count / B.
    y_true, scores, qid = systems_on_queries(3, n_queries=n_queries, n_systems=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comparison = compare_rankings(
            y_true, scores, qid=qid, metrics=["ndcg@10"], test="bootstrap", correction=None, n_resamples=999,
            random_state=5,
        )  # fmt: skip
        result = discriminative_power(comparison, n_resamples=999, random_state=5)
    theirs = {(row["baseline"], row["system"]): row["pvalue"] for row in comparison.rows if row["baseline"]}
    counts = np.array([theirs[pair] for pair in result.pairs]) * 1000 - 1
    if n_queries > 13:
        assert result.pvalues * 999 == pytest.approx(counts, abs=1e-9)
    else:  # compare_rankings floors its p-value at the exact randomization test's; the ASL does not
        assert (result.pvalues * 999 <= counts + 1e-9).all()


@pytest.mark.parametrize("test", ["randomization", "randomized-tukey-hsd", "bootstrap", "t-test"])
def test_resampled_pvalues_equal_compare_rankings_with_the_same_random_state(test):
    rng = np.random.default_rng(11)
    y = rng.integers(0, 3, (30, 20))
    scores = {f"s{i}": y * (0.3 * i) + rng.normal(0, 1, (30, 20)) for i in range(5)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comparison = compare_rankings(
            y, scores, metrics=("ndcg@10",), test=test, correction=None, n_resamples=2000, random_state=0
        )
        result = discriminative_power(comparison, test=test, n_resamples=2000, random_state=0)
    theirs = np.array([row["pvalue"] for row in comparison.rows if row["baseline"] is not None])
    assert result.pairs == [(row["baseline"], row["system"]) for row in comparison.rows if row["baseline"]]
    if test == "bootstrap":
        theirs = (theirs * 2001 - 1) / 2000  # the same count of extreme resamples, over B
    assert result.pvalues == pytest.approx(theirs, abs=1e-12)


@pytest.mark.parametrize("test", ["bootstrap", "randomization", "randomized-tukey-hsd", "wilcoxon"])
def test_pairs_streamed_in_small_blocks_give_the_same_pvalues(test, monkeypatch):
    from sklearn_rankmetrics.meta import _discriminative

    rng = np.random.default_rng(4)
    matrix = rng.random((16, 7)) + np.linspace(0, 0.3, 7)
    whole = discriminative_power(matrix, test=test, n_resamples=300, random_state=2)
    monkeypatch.setattr(_discriminative, "PAIR_CHUNK", 300 * 2)  # blocks of 2 pairs
    blocks = discriminative_power(matrix, test=test, n_resamples=300, random_state=2)
    assert blocks.pvalues == pytest.approx(whole.pvalues, abs=1e-15)
    assert blocks.deltas == pytest.approx(whole.deltas, abs=1e-15)


# ---- swap rates: differences binned as their exact values, counted as a loop over the trials --------------


def test_swap_rate_bins_differences_equal_up_to_rounding_alike():
    # topic 1: 0.2 - 0.1 = 0.1; topic 2: 0.7 - 0.6 = 0.09999999999999998. Both are 0.1: bin [0.10, 0.11).
    result = swap_rate([[0.1, 0.2], [0.6, 0.7]], subset_size=1, n_trials=200, random_state=0)
    frame = result.to_frame()
    assert len(frame) == 1 and frame["comparisons"].iloc[0] == 200
    assert frame["delta_low"].iloc[0] == pytest.approx(0.1) and frame["delta_high"].iloc[0] == pytest.approx(0.11)


def trial_splits(n_queries, sizes, n_trials, random_state):
    """The topic splits swap_rate draws: per size, the permutations of its Resamples' blocks, in order."""
    from sklearn_rankmetrics._core._resampling import Resamples, generator_from

    rng = generator_from(random_state)
    for size in sizes:
        resamples = Resamples(n_trials, rng)
        orders = [
            generator.permuted(np.broadcast_to(np.arange(n_queries), (count, n_queries)), axis=1)
            for count, generator in zip(resamples.sizes, resamples.generators(), strict=True)
        ]
        yield size, np.concatenate(orders)


def test_swap_rate_counts_equal_exact_arithmetic_over_the_same_splits():
    # P@10-like scores (tenths): every difference of means is a fraction, binned exactly, floor(|d1| / w).
    from fractions import Fraction

    rng = np.random.default_rng(5)
    tenths = rng.integers(0, 11, (20, 6))
    matrix = tenths / 10
    sizes, n_trials, width = [1, 3, 10], 60, Fraction(1, 100)
    result = swap_rate(matrix, subset_size=sizes, n_trials=n_trials, random_state=7)
    pairs = list(itertools.combinations(range(6), 2))
    for s, (size, orders) in enumerate(trial_splits(20, sizes, n_trials, 7)):
        comparisons, swaps = np.zeros(result.comparisons.shape[1]), np.zeros(result.comparisons.shape[1])
        for order in orders:
            means = [
                [Fraction(int(tenths[part, j].sum()), 10 * size) for j in range(6)]
                for part in (order[:size], order[size : 2 * size])
            ]
            for i, j in pairs:
                d1, d2 = means[0][j] - means[0][i], means[1][j] - means[1][i]
                b = min(int(abs(d1) / width), len(comparisons) - 1)
                comparisons[b] += 1
                swaps[b] += d1 * d2 < 0
        assert (result.comparisons[s] == comparisons).all() and (result.swaps[s] == swaps).all()


def test_swap_rate_streamed_in_small_blocks_counts_the_same(monkeypatch):
    from sklearn_rankmetrics.meta import _swap_rate

    rng = np.random.default_rng(6)
    matrix = np.clip(np.linspace(0.2, 0.5, 9) + rng.normal(0, 0.15, (30, 9)), 0, 1)
    whole = swap_rate(matrix, subset_size=[5, 15], n_trials=300, random_state=1)
    monkeypatch.setattr(_swap_rate, "CELLS", 7)  # one row of pairs per block
    rows = swap_rate(matrix, subset_size=[5, 15], n_trials=300, random_state=1)
    monkeypatch.setattr(_swap_rate, "CELLS", 10**6)  # every pair at once
    square = swap_rate(matrix, subset_size=[5, 15], n_trials=300, random_state=1)
    for other in (rows, square):
        assert (other.comparisons == whole.comparisons).all() and (other.swaps == whole.swaps).all()
