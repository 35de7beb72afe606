"""Agreement of system orderings: each statistic against scipy or a direct implementation from its paper."""

import warnings

import naive_meta
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from sklearn_rankmetrics import compare_rankings, rank_biased_overlap
from sklearn_rankmetrics._core._tolerance import round_ties
from sklearn_rankmetrics.meta import (
    CorrelationResult,
    kendall_tau,
    ordering_agreement,
    pearson_r,
    smare,
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


@pytest.mark.parametrize("seed", range(30))
def test_tau_ap_without_ties_equals_the_papers_formula(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 40))
    reference, estimate = rng.random(n), rng.random(n)
    assert tau_ap(reference, estimate) == pytest.approx(naive_meta.tau_ap(reference, estimate), abs=1e-12)
    assert tau_ap(reference, estimate, variant="a") == tau_ap(reference, estimate)


@pytest.mark.parametrize("seed", range(30))
def test_tau_ap_a_is_the_mean_over_the_orderings_of_the_estimates_ties(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 8))
    reference, estimate = rng.permutation(n).astype(float), rng.integers(0, 3, n).astype(float)
    expected = naive_meta.tau_ap_over_estimate_tie_orders(reference, estimate)
    assert tau_ap(reference, estimate, variant="a") == pytest.approx(expected, abs=1e-12)
    assert tau_ap(reference, estimate) == tau_ap(reference, estimate, variant="a")  # no tie in reference: a


@pytest.mark.parametrize("seed", range(30))
def test_tau_ap_b_equals_its_definition_and_is_symmetric(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 12))
    x, y = rng.integers(0, 4, n).astype(float), rng.integers(0, 4, n).astype(float)
    if len(set(x)) < 2 or len(set(y)) < 2:
        with pytest.warns(UserWarning, match="all the same"):
            assert np.isnan(tau_ap(x, y, variant="b"))
        return
    assert tau_ap(x, y, variant="b") == pytest.approx(naive_meta.tau_ap_b(x, y), abs=1e-12)
    assert tau_ap(x, y, variant="b") == pytest.approx(tau_ap(y, x, variant="b"), abs=1e-12)
    if len(set(x)) < n:  # a reference with ties: the default is b
        assert tau_ap(x, y) == tau_ap(x, y, variant="b")


# ircor 1.0 (J. Urbano's R package of the paper), tests/testthat/helper_data.R and test_tauAP.R: its three sets, and
# the values it checks to 4 decimals (tauAP, tauAP_a with ties in y, tauAP_b without ties and with ties in both).
IRCOR_SETS = [
    (
        [0.897, 0.372, 0.908, 0.898, 0.661, 0.062, 0.177, 0.384, 0.498, 0.992],
        [0.82, 0.406, 0.817, 0.953, 0.673, 0.073, 0.364, 0.547, 0.589, 0.988],
        [0.9, 0.4, 0.9, 0.9, 0.7, 0.1, 0.2, 0.4, 0.5, 1],
        [0.8, 0.4, 0.8, 1, 0.7, 0.1, 0.4, 0.5, 0.6, 1],
        (0.8519, 0.7454, 0.8333, 0.7321),
    ),
    (
        [0.266, 0.573, 0.202, 0.945, 0.629, 0.206, 0.687, 0.77, 0.718, 0.38],
        [0.263, 0.843, 0.728, 0.928, 0.08, 0.114, 0.467, 0.641, 0.973, 0.644],
        [0.3, 0.6, 0.2, 0.9, 0.6, 0.2, 0.7, 0.8, 0.7, 0.4],
        [0.3, 0.8, 0.7, 0.9, 0.1, 0.1, 0.5, 0.6, 1, 0.6],
        (0.2504, 0.2692, 0.2880, 0.297),
    ),
    (
        [0.185, 0.573, 0.944, 0.129, 0.468, 0.553, 0.761, 0.405, 0.976, 0.445],
        [0.845, 0.272, 0.275, 0.924, 0.605, 0.334, 0.162, 0.872, 0.018, 0.25],
        [0.2, 0.6, 0.9, 0.1, 0.5, 0.6, 0.8, 0.4, 1, 0.4],
        [0.8, 0.3, 0.3, 0.9, 0.6, 0.3, 0.2, 0.9, 0, 0.2],
        (-0.6971, -0.5558, -0.668, -0.7047),
    ),
]


@pytest.mark.parametrize(("x", "y", "x_ties", "y_ties", "expected"), IRCOR_SETS)
def test_tau_ap_variants_equal_the_ircor_packages_checks(x, y, x_ties, y_ties, expected):
    assert tau_ap(x, y) == pytest.approx(expected[0], abs=5e-5)
    assert tau_ap(x, y_ties, variant="a") == pytest.approx(expected[1], abs=5e-5)
    assert tau_ap(x, y, variant="b") == pytest.approx(expected[2], abs=5e-5)
    assert tau_ap(x_ties, y_ties, variant="b") == pytest.approx(expected[3], abs=5e-5)
    assert tau_ap(y_ties, x_ties) == pytest.approx(expected[3], abs=5e-5)  # ties in the reference: b, symmetric


def test_tau_ap_variants_equal_ircors_documented_examples():
    # ircor's README (7 decimals): x, y; then y rounded to fifths (ties in the estimate), then x too.
    x = np.array([0.06, 0.2, 0.27, 0.37, 0.57, 0.63, 0.66, 0.9, 0.91, 0.94])
    y = np.array([0.37, 0.06, 0.2, 0.27, 0.57, 0.66, 0.63, 0.91, 0.9, 0.94])
    assert tau_ap(x, y) == pytest.approx(0.7491182, abs=5e-8)
    y_ties = np.array([2, 0, 1, 1, 3, 3, 3, 5, 4, 5]) / 5  # R's round(y * 5) / 5
    assert tau_ap(x, y_ties) == pytest.approx(0.6074515, abs=5e-8)
    x_ties = np.array([0, 1, 1, 2, 3, 3, 3, 4, 5, 5]) / 5
    assert tau_ap(x_ties, y_ties) == pytest.approx(0.6269841, abs=5e-8)
    # ircor's tauAP manual page: its inputs, round(y, 1), then round(x, 1) (the page prints no values: the naive
    # definitions give them)
    x = np.array([0.67, 0.45, 0.29, 0.12, 0.57, 0.24, 0.94, 0.75, 0.08, 0.54])
    y = np.array([0.48, 0.68, 0.32, 0.09, 0.06, 0.61, 0.87, 0.22, 0.44, 0.84])
    x_ties, y_ties = np.round(x, 1), np.round(y, 1)
    assert tau_ap(x, y) == pytest.approx(naive_meta.tau_ap(x, y), abs=1e-12)
    assert tau_ap(x, y_ties) == pytest.approx(naive_meta.tau_ap_over_estimate_tie_orders(x, y_ties), abs=1e-12)
    assert tau_ap(x, y_ties, variant="b") == pytest.approx(naive_meta.tau_ap_b(x, y_ties), abs=1e-12)
    assert tau_ap(x_ties, y_ties) == pytest.approx(naive_meta.tau_ap_b(x_ties, y_ties), abs=1e-12)


def test_tau_ap_b_hand_worked_example():
    # x ranks a > b = c > d, y ranks a = b > c > d.
    # x|y (y's blocks {a, b}, {c}, {d}): c has a, b above, x ranks a (not its tie b) above c: 1/2;
    #   d has a, b, c above, all above in x: 3/3. 2/2 (1/2 + 1) - 1 = 1/2.
    # y|x (x's blocks {a}, {b, c}, {d}): b has a above, tied in y: 0/1; c has a above: 1/1; d: 3/3. 2/3 (2) - 1 = 1/3.
    x, y = [4, 3, 3, 1], [4, 4, 2, 1]
    assert tau_ap(x, y, variant="b") == pytest.approx((1 / 2 + 1 / 3) / 2, abs=1e-15)


def test_identical_orderings_with_ties_agree_perfectly():
    # A leaderboard compared with itself: ties (exact, or up to rounding as 0.1 + 0.2 and 0.3) are no disagreement.
    board = {"a": 0.1 + 0.2, "b": 0.3, "c": 0.2, "d": 0.1}
    result = ordering_agreement(board, board)
    assert result.tau_ap == 1.0 and result.tau_ap_variant == "b"
    assert result.rbo == pytest.approx(1.0, abs=1e-15)
    assert result.kendall_tau.statistic == pytest.approx(1.0) and result.spearman.statistic == pytest.approx(1.0)
    assert result.tau_a == pytest.approx(5 / 6)  # tau-a counts the tied pair as neither: its definition
    assert tau_ap([2, 2, 1], [2, 2, 1]) == 1.0
    with pytest.raises(ValueError, match=r"reference ties some systems .* pass variant='b'"):
        tau_ap([2, 2, 1], [2, 2, 1], variant="a")


def test_rbo_of_orderings_with_ties_is_webbers():
    # x ties a and b, y orders a > b > c: at depth 1, x's prefix {a, b} (the block enters whole) and y's {a}, so
    # A_1 = 2 * 1 / (2 + 1) = 2/3; A_2 = A_3 = 1. RBO = (1 - p)/p (2/3 p + p^2 + p^3) + p^3 = 1 - (1 - p)/3.
    assert ordering_agreement([2, 2, 1], [3, 2, 1], p=0.9).rbo == pytest.approx(1 - 0.1 / 3, abs=1e-15)
    rng = np.random.default_rng(8)
    for _ in range(30):
        n = int(rng.integers(2, 12))
        x, y = rng.integers(0, 4, n).astype(float), rng.integers(0, 4, n).astype(float)
        p = float(rng.uniform(0.5, 0.99))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours = ordering_agreement(x, y, p=p).rbo
        assert ours == pytest.approx(naive_meta.webber_rbo(x, y, p), abs=1e-12)
        x, y = rng.random(n), rng.random(n)  # without ties: the library's rank_biased_overlap
        assert ordering_agreement(x, y, p=p).rbo == pytest.approx(rank_biased_overlap(x, y, p=p), abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=2, max_size=12), st.randoms())
def test_tau_ap_is_in_bounds_and_invariant_to_the_order_of_systems(pairs, random):
    reference, estimate = (np.array(side, dtype=float) for side in zip(*pairs, strict=True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tau_AP,b of scores that all tie: nan, with a warning
        value = tau_ap(reference, estimate)
    if np.isnan(value):
        return
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
        assert result.tau_ap == tau_ap(x, y) or np.isnan(result.tau_ap)
        assert result.tau_ap_variant == ("b" if len(set(x)) < len(x) else "a")
        assert result.rbo == pytest.approx(naive_meta.webber_rbo(x, y, 0.9), abs=1e-12)
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


# ---- equal up to rounding at each pair's own scale ------------------------------------------------------


def test_round_ties_judges_each_pair_of_values_at_their_own_scale():
    # One large value does not tie distinct small ones: 1e-16 and 2e-16 are 100% apart, not 256 ulps of 1e15.
    values = np.array([1e15, 4e-16, 3e-16, 2e-16, 1e-16, 0.0])
    assert round_ties(values).tolist() == values.tolist()
    assert round_ties([0.1 + 0.2, 0.3, 1e15]).tolist() == [0.3, 0.3, 1e15]  # rounding noise still ties
    assert round_ties([1e15, 1e15 + 0.125, 1.0]).tolist() == [1e15, 1e15, 1.0]  # 1 ulp of 1e15 is rounding there


@pytest.mark.parametrize("seed", range(20))
def test_correlations_of_values_spanning_many_magnitudes_equal_scipy(seed):
    # QPP predictors output likelihoods and raw statistics: distinct values across 30 orders of magnitude.
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 30))
    x = rng.random(n) * 10.0 ** rng.integers(-16, 15, n)
    y = rng.random(n) * 10.0 ** rng.integers(-16, 15, n)
    assert kendall_tau(x, y).statistic == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)
    assert spearman_rho(x, y).statistic == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
    assert tau_ap(x, x) == pytest.approx(1.0, abs=1e-12) and smare(x, x) == 0.0
    assert tau_ap(x, y) == pytest.approx(naive_meta.tau_ap(x, y), abs=1e-12)


def test_the_reviewers_qpp_and_outlier_cases_equal_scipy():
    predicted, actual = np.array([3e-2, 4e-16, 3e-16, 2e-16, 1e-16]), np.array([0.5, 0.4, 0.3, 0.2, 0.1])
    assert kendall_tau(predicted, actual).statistic == pytest.approx(1.0, abs=1e-12)
    assert spearman_rho(predicted, actual).statistic == pytest.approx(1.0, abs=1e-12)
    assert smare(predicted, actual) == 0.0 and tau_ap(actual, predicted) == pytest.approx(1.0, abs=1e-12)
    assert kendall_tau([1e15, 1, 2, 3], [4, 1, 2, 3]).statistic == pytest.approx(1.0, abs=1e-12)


def test_rank_correlation_interval_at_plus_or_minus_one_is_nan_with_a_warning():
    for function in (kendall_tau, spearman_rho):
        result = function([0.1, 0.2, 0.3, 0.4, 0.5], [0.2, 0.3, 0.4, 0.5, 0.6])
        with pytest.warns(UserWarning, match="Fisher's z is infinite there"):
            low, high = result.confidence_interval()
        assert np.isnan(low) and np.isnan(high)
        with pytest.warns(UserWarning, match="is -1 on 5 pairs"):
            assert np.isnan(function([1, 2, 3, 4, 5], [5, 4, 3, 2, 1]).confidence_interval().low)
    # Pearson's r of exactly 1 keeps scipy's interval, the point (the sampling distribution collapses there)
    exact = pearson_r([1, 2, 3, 4, 5], [2, 3, 4, 5, 6])
    assert exact.confidence_interval() == pytest.approx(
        tuple(stats.pearsonr([1, 2, 3, 4, 5], [2, 3, 4, 5, 6]).confidence_interval()), abs=1e-12
    )
    assert kendall_tau([1, 2, 3], [1, 2, 3]).confidence_interval() == (-1.0, 1.0)  # too few pairs: no warning
