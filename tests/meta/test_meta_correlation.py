"""Agreement of system orderings: each statistic against scipy or a direct implementation from its paper."""

import warnings

import naive_meta
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from sklearn_rankmetrics import compare_rankings, rank_biased_overlap
from sklearn_rankmetrics.meta import (
    CorrelationResult,
    kendall_tau,
    ordering_agreement,
    pearson_r,
    spearman_rho,
    tau_ap,
)

RNG = np.random.default_rng(40)
# Leaderboards of 2 to 30 systems, with and without ties (scores rounded to 1 or 2 decimals).
CASES = [
    (np.round(RNG.random(n), decimals), np.round(RNG.random(n), decimals))
    for n in (2, 3, 5, 8, 13, 30)
    for decimals in (1, 2, 16)
]


@pytest.mark.parametrize(("x", "y"), CASES)
def test_kendall_tau_b_and_c_equal_scipy(x, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for variant in ("b", "c"):
            ours, theirs = kendall_tau(x, y, variant=variant), stats.kendalltau(x, y, variant=variant)
            if np.isnan(theirs.statistic):
                assert np.isnan(ours.statistic)
                continue
            assert ours.statistic == pytest.approx(theirs.statistic, abs=1e-12)
            assert ours.pvalue == pytest.approx(theirs.pvalue, abs=1e-12)


@pytest.mark.parametrize(("x", "y"), CASES)
def test_kendall_tau_a_is_concordant_minus_discordant_over_all_pairs(x, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = kendall_tau(x, y, variant="a")
    if len(set(x)) > 1 and len(set(y)) > 1:
        assert ours.statistic == pytest.approx(naive_meta.kendall_tau_a(x, y), abs=1e-12)
        assert ours.pvalue == pytest.approx(stats.kendalltau(x, y).pvalue, abs=1e-12)


@pytest.mark.parametrize(("x", "y"), CASES)
def test_spearman_and_pearson_equal_scipy_with_pearsons_interval(x, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if len(x) < 3 or len(set(x)) < 2 or len(set(y)) < 2:
            return
        ours, theirs = spearman_rho(x, y), stats.spearmanr(x, y)
        assert ours.statistic == pytest.approx(theirs.statistic, abs=1e-12)
        assert ours.pvalue == pytest.approx(theirs.pvalue, abs=1e-12)
        ours, theirs = pearson_r(x, y), stats.pearsonr(x, y)
        assert ours.statistic == pytest.approx(theirs.statistic, abs=1e-12)
        assert ours.pvalue == pytest.approx(theirs.pvalue, abs=1e-12)
        for level in (0.9, 0.95):
            assert ours.confidence_interval(level) == pytest.approx(tuple(theirs.confidence_interval(level)), abs=1e-12)


def test_fisher_intervals_of_spearman_and_kendall_follow_their_variances():
    rng = np.random.default_rng(0)
    x = rng.random(20)
    y = x + rng.normal(0, 0.3, 20)
    for result, variance in (
        (spearman_rho(x, y), lambda r: (1 + r**2 / 2) / 17),
        (kendall_tau(x, y), lambda r: 0.437 / 16),
    ):
        r = result.statistic
        margin = stats.norm.ppf(0.975) * np.sqrt(variance(r))
        expected = (np.tanh(np.arctanh(r) - margin), np.tanh(np.arctanh(r) + margin))
        assert result.confidence_interval() == pytest.approx(expected, abs=1e-12)
    assert kendall_tau([1, 2, 3, 4], [1, 3, 2, 4]).confidence_interval() == (-1.0, 1.0)  # n - 4 = 0


def test_the_result_unpacks_as_scipys():
    tau, pvalue = kendall_tau([1, 2, 3], [1, 3, 2])
    assert isinstance(kendall_tau([1, 2, 3], [1, 3, 2]), CorrelationResult)
    assert (tau, pvalue) == pytest.approx(tuple(stats.kendalltau([1, 2, 3], [1, 3, 2])))


def test_scores_equal_up_to_rounding_are_tied():
    # Two means that print alike, 2 ulps apart: no ordering, so every pair involving them is a tie.
    x = [0.5400000000000001, 0.5399999999999999, 0.3]
    y = [0.1, 0.2, 0.0]
    assert kendall_tau(x, y).statistic == pytest.approx(stats.kendalltau([0.54, 0.54, 0.3], y).statistic, abs=1e-12)
    assert ordering_agreement(x, y).swaps == []
    assert tau_ap([0.2, 0.1, 0.3], x) == tau_ap([0.2, 0.1, 0.3], [0.54, 0.54, 0.3])


# ---- tau_AP -------------------------------------------------------------------------------------------


def test_tau_ap_hand_worked_examples():
    # reference a > b > c > d.
    # estimate a > b > d > c: C(2) = 1 (a above b), C(3) = 2 (a, b above d), C(4) = 2 (a, b above c, not d)
    assert tau_ap([4, 3, 2, 1], [4, 3, 1, 2]) == pytest.approx(2 / 3 * (1 + 1 + 2 / 3) - 1, abs=1e-15)
    # estimate b > a > c > d: C(2) = 0, C(3) = 2, C(4) = 3
    assert tau_ap([4, 3, 2, 1], [3, 4, 2, 1]) == pytest.approx(2 / 3 * (0 + 1 + 1) - 1, abs=1e-15)
    # a swap at the bottom costs less than one at the top; Kendall's tau weighs both alike
    assert tau_ap([4, 3, 2, 1], [4, 3, 1, 2]) > tau_ap([4, 3, 2, 1], [3, 4, 2, 1])
    assert tau_ap([1, 2, 3], [1, 2, 3]) == 1.0
    assert tau_ap([1, 2, 3], [3, 2, 1]) == -1.0
    # all tied in reference: every pair counts 1/2, so tau_AP = 0
    assert tau_ap([1, 1, 1, 1], [4, 3, 2, 1]) == pytest.approx(0.0, abs=1e-15)


@pytest.mark.parametrize("seed", range(30))
def test_tau_ap_without_ties_equals_the_papers_formula(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 40))
    reference, estimate = rng.random(n), rng.random(n)
    assert tau_ap(reference, estimate) == pytest.approx(naive_meta.tau_ap(reference, estimate), abs=1e-12)


@pytest.mark.parametrize("seed", range(30))
def test_tau_ap_with_ties_is_the_mean_over_the_orderings_of_the_ties(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 7))
    reference, estimate = rng.integers(0, 3, n).astype(float), rng.integers(0, 3, n).astype(float)
    expected = naive_meta.tau_ap_over_tie_orders(reference, estimate)
    assert tau_ap(reference, estimate) == pytest.approx(expected, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=2, max_size=12), st.randoms())
def test_tau_ap_is_in_bounds_and_invariant_to_the_order_of_systems(pairs, random):
    reference, estimate = (np.array(side, dtype=float) for side in zip(*pairs, strict=True))
    value = tau_ap(reference, estimate)
    assert -1 - 1e-12 <= value <= 1 + 1e-12
    order = list(range(len(pairs)))
    random.shuffle(order)
    assert tau_ap(reference[order], estimate[order]) == pytest.approx(value, abs=1e-12)
    names = [f"s{i}" for i in range(len(pairs))]
    mapped = tau_ap(dict(zip(names, reference, strict=True)), dict(zip(names[::-1], estimate[::-1], strict=True)))
    assert mapped == pytest.approx(value, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=2, max_size=10))
def test_kendall_and_spearman_are_symmetric_and_bounded(pairs):
    x, y = (np.array(side, dtype=float) for side in zip(*pairs, strict=True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for function in (kendall_tau, spearman_rho):
            forward, backward = function(x, y).statistic, function(y, x).statistic
            if np.isnan(forward):
                assert np.isnan(backward)
                continue
            assert forward == pytest.approx(backward, abs=1e-12)
            assert -1 - 1e-12 <= forward <= 1 + 1e-12


# ---- ordering agreement --------------------------------------------------------------------------------


@pytest.mark.parametrize(("x", "y"), CASES[3:])
def test_ordering_agreement_swaps_and_statistics(x, y):
    systems = [f"run{i}" for i in range(len(x))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = ordering_agreement(dict(zip(systems, x, strict=True)), dict(zip(systems, y, strict=True)))
        assert result.swaps == naive_meta.swaps(systems, x, y)
        assert result.n_swaps == sum(
            1 for i in range(len(x)) for j in range(i + 1, len(x)) if (x[i] - x[j]) * (y[i] - y[j]) < 0
        )
        assert result.tau_ap == tau_ap(x, y)
        assert result.rbo == rank_biased_overlap(x, y, p=0.9)
        assert result.kendall_tau.statistic == kendall_tau(x, y).statistic or np.isnan(result.kendall_tau.statistic)
    assert result.n_pairs == len(x) * (len(x) - 1) // 2


def test_ordering_agreement_from_tables_and_comparisons():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(10), 8)
    y_true = rng.integers(0, 3, 80)
    scores = {name: y_true + rng.normal(0, noise, 80) for name, noise in (("a", 0.3), ("b", 1), ("c", 3))}
    human = compare_rankings(y_true, scores, qid=qid, metrics=["ndcg@10", "mrr"], n_resamples=100, random_state=0)
    llm = compare_rankings(
        (y_true > 0).astype(int), scores, qid=qid, metrics=["ndcg@10", "mrr"], n_resamples=100, random_state=0
    )
    means = {name: human.to_frame().query("metric == 'mrr'").groupby("system")["mean"].first() for name in [0]}[0]
    result = ordering_agreement(human, llm, metric="mrr")
    table = pd.DataFrame({"mrr": means})
    assert ordering_agreement(table, llm, metric="mrr").kendall_tau == result.kendall_tau
    frame = result.to_frame()
    assert list(frame.index) == ["kendall_tau_b", "kendall_tau_a", "tau_ap", "spearman_rho", "rbo"]
    assert "ordering agreement of 3 systems" in str(result)


def test_bad_inputs_are_refused_with_the_fix():
    with pytest.raises(ValueError, match="variant must be one of 'a', 'b', 'c'"):
        kendall_tau([1, 2], [1, 2], variant="d")
    with pytest.raises(ValueError, match=r"must score the same systems \(or queries\); got 3 and 2"):
        kendall_tau([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match=r"only in x: \['c'\], only in y: \['d'\]"):
        kendall_tau({"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 2, "d": 3})
    with pytest.raises(TypeError, match="reference names its systems but estimate is an array"):
        tau_ap({"a": 1, "b": 2}, [1, 2])
    with pytest.raises(ValueError, match="need at least 2 scores each"):
        tau_ap([1], [1])
    with pytest.raises(ValueError, match="contains NaN"):
        spearman_rho([1, np.nan, 3], [1, 2, 3])
    with pytest.raises(ValueError, match="p must be in"):
        ordering_agreement([1, 2, 3], [3, 2, 1], p=1.5)
    with pytest.raises(ValueError, match="confidence_level must be in"):
        kendall_tau([1, 2, 3], [1, 2, 3]).confidence_interval(1.0)
    with pytest.warns(UserWarning, match="all the same"):
        assert np.isnan(kendall_tau([1, 1, 1], [1, 2, 3]).statistic)
