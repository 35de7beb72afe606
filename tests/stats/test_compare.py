"""compare_rankings: p-values equal scipy's, exact randomization, corrections, intervals, reproducibility."""

import itertools
import tracemalloc
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from sklearn_rankmetrics import compare_rankings, ndcg_score
from sklearn_rankmetrics._core._resampling import Resamples, bootstrap_means
from sklearn_rankmetrics.stats._comparison import COLUMNS
from sklearn_rankmetrics.stats._multiplicity import holm_bonferroni
from sklearn_rankmetrics.stats._paired_tests import (
    at_least,
    bootstrap_t_columns,
    flip_tolerance,
    paired_pvalues,
    randomization_pvalues,
)


def systems(n_queries=40, seed=0, docs=8):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), docs)
    y_true = rng.integers(0, 3, len(qid))
    scores = {
        "noise": rng.normal(0, 1, len(qid)),
        "weak": y_true + rng.normal(0, 2.5, len(qid)),
        "strong": y_true + rng.normal(0, 1, len(qid)),
    }
    return y_true, scores, qid


def differences(y_true, scores, qid, a, b, k=10):
    per_query = {name: ndcg_score(y_true, s, qid=qid, k=k, average=False) for name, s in scores.items()}
    return per_query[b] - per_query[a]


def row(result, system, metric="ndcg@10", baseline="noise"):
    frame = result.to_frame(kind="rows")
    return frame[(frame.system == system) & (frame.metric == metric) & (frame.baseline == baseline)].iloc[0]


@pytest.mark.parametrize(
    ("test", "reference"),
    [
        ("t-test", lambda d: stats.ttest_rel(d, np.zeros_like(d)).pvalue),
        ("wilcoxon", lambda d: stats.wilcoxon(d).pvalue),
    ],
)
def test_pvalues_equal_scipy(test, reference):
    y_true, scores, qid = systems()
    result = compare_rankings(y_true, scores, qid=qid, baseline="noise", test=test, correction=None)
    for system in ("weak", "strong"):
        # Differences equal up to rounding are ties (two of 'strong' differ by 1 ulp): rounded to 12 decimals.
        d = np.round(differences(y_true, scores, qid, "noise", system), 12)
        assert row(result, system).pvalue == pytest.approx(reference(d), rel=1e-12)
        assert row(result, system).pvalue_adjusted == row(result, system).pvalue
        assert row(result, system).delta == pytest.approx(d.mean(), rel=1e-12)
        assert row(result, system).effect_size == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
        assert (row(result, system).wins, row(result, system).ties, row(result, system).losses) == (
            np.sum(d > 0),
            np.sum(d == 0),
            np.sum(d < 0),
        )


def test_randomization_enumerates_small_inputs_exactly():
    y_true, scores, qid = systems(n_queries=10)
    result = compare_rankings(y_true, scores, qid=qid, baseline="noise", n_resamples=2**10, correction=None)
    d = differences(y_true, scores, qid, "noise", "weak")
    flips = np.array(list(itertools.product([1.0, -1.0], repeat=10)))
    expected = np.mean(np.abs(flips @ d) >= np.abs(d.sum()) * (1 - 1e-12))
    assert row(result, "weak").pvalue == expected


def test_randomization_agrees_with_scipy_permutation_test():
    y_true, scores, qid = systems(n_queries=60, seed=3)
    result = compare_rankings(
        y_true, scores, qid=qid, baseline="noise", n_resamples=20_000, correction=None, random_state=0
    )
    per_query = {name: ndcg_score(y_true, s, qid=qid, k=10, average=False) for name, s in scores.items()}
    reference = stats.permutation_test(
        (per_query["weak"], per_query["noise"]),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        n_resamples=20_000,
        vectorized=True,
        random_state=1,
    ).pvalue
    ours = row(result, "weak").pvalue
    error = 4 * np.sqrt(reference * (1 - reference) / 20_000) + 1e-4  # Monte-Carlo error of both
    assert abs(ours - reference) < 2 * error


def test_holm_and_bonferroni_equal_a_hand_written_reference():
    pvalues = np.array([0.01, 0.04, 0.03, 0.20, 0.004, 0.04])
    m = len(pvalues)
    np.testing.assert_allclose(holm_bonferroni(pvalues, "bonferroni"), np.minimum(pvalues * m, 1))
    expected, running = np.empty(m), 0.0
    for rank, index in enumerate(sorted(range(m), key=lambda i: pvalues[i])):
        running = max(running, min(1.0, (m - rank) * pvalues[index]))
        expected[index] = running
    np.testing.assert_allclose(holm_bonferroni(pvalues, "holm"), expected)
    y_true, scores, qid = systems()
    result = compare_rankings(y_true, scores, qid=qid, metrics=["ndcg@10", "mrr"], baseline="noise")
    tested = result.to_frame(kind="rows").dropna(subset=["baseline"])
    np.testing.assert_allclose(tested.pvalue_adjusted, holm_bonferroni(tested.pvalue.to_numpy(), "holm"))


def test_bootstrap_intervals_cover_the_mean_at_about_the_nominal_rate():
    rng = np.random.default_rng(0)
    covered = 0
    for _ in range(300):
        values = rng.exponential(1.0, size=(60, 1))  # skewed per-query values, true mean 1
        low, high = np.quantile(bootstrap_means(values, Resamples(2000, rng)), [0.05, 0.95])
        covered += low <= 1.0 <= high
    assert 0.84 <= covered / 300 <= 0.95


@pytest.mark.parametrize("test", ["randomization", "t-test", "wilcoxon", "bootstrap"])
def test_identical_systems_give_p_one_and_delta_zero(test):
    y_true, scores, qid = systems()
    result = compare_rankings(y_true, {"a": scores["weak"], "b": scores["weak"].copy()}, qid=qid, test=test)
    compared = row(result, "b", baseline="a")
    assert (compared.pvalue, compared.pvalue_adjusted, compared.delta, compared.effect_size) == (1.0, 1.0, 0.0, 0.0)
    assert compared.ties == 40


def test_results_are_reproducible_and_cover_every_pair():
    y_true, scores, qid = systems()
    first = compare_rankings(y_true, scores, qid=qid, metrics=["ndcg@10", "map"], test="bootstrap", random_state=7)
    second = compare_rankings(y_true, scores, qid=qid, metrics=["ndcg@10", "map"], test="bootstrap", random_state=7)
    frame = first.to_frame(kind="rows")
    assert list(frame.columns) == list(COLUMNS)
    assert frame.equals(second.to_frame(kind="rows"))
    pairs = set(zip(frame.dropna(subset=["baseline"]).baseline, frame.dropna(subset=["baseline"]).system, strict=True))
    assert pairs == {("noise", "weak"), ("noise", "strong"), ("weak", "strong")}
    strong = row(first, "strong")
    assert strong.ci_low <= strong["mean"] <= strong.ci_high
    assert strong.delta_ci_low <= strong.delta <= strong.delta_ci_high
    assert "* p < 0.05 (bootstrap test, holm)" in str(first)


@pytest.mark.parametrize(
    "arguments",
    [{"test": "randomization"}, {"test": "bootstrap"}, {"test": "randomized-tukey-hsd"}, {"correction": "maxT"}],
    ids=["randomization", "bootstrap", "randomized-tukey-hsd", "maxT"],
)
def test_random_state_accepts_numpy_generators_reproducibly(arguments):
    # Filed: random_state=np.random.default_rng(0) failed with numpy's RandomState message.
    y_true, scores, qid = systems(n_queries=20)

    def frame(random_state):
        return compare_rankings(y_true, scores, qid=qid, n_resamples=499, random_state=random_state, **arguments)

    first = frame(np.random.default_rng(0)).to_frame(kind="rows")
    assert first.equals(
        frame(np.random.default_rng(0)).to_frame(kind="rows")
    )  # a new Generator of the same seed: the same
    assert not first.equals(frame(np.random.default_rng(1)).to_frame(kind="rows"))
    generator = np.random.default_rng(0)
    assert frame(generator).to_frame(kind="rows").equals(first) and not frame(generator).to_frame(kind="rows").equals(
        first
    )  # moves on
    # int and RandomState as before: an int seeds a RandomState, as scikit-learn's check_random_state does.
    assert frame(5).to_frame(kind="rows").equals(frame(np.random.RandomState(5)).to_frame(kind="rows"))
    assert frame(np.int64(5)).to_frame(kind="rows").equals(frame(5).to_frame(kind="rows"))


@pytest.mark.parametrize(
    ("random_state", "error", "message"),
    [
        ("0", TypeError, r"random_state must be None, an integer, a numpy Generator \(np.random.default_rng\(seed\)\)"),
        (1.5, TypeError, "random_state must be None, an integer.*got 1.5 of type float"),
        (True, TypeError, "got True of type bool"),
        (-1, ValueError, r"random_state must be an integer in \[0, 2\*\*32 - 1\]; got -1"),
        (2**32, ValueError, r"random_state must be an integer in \[0, 2\*\*32 - 1\]; got 4294967296"),
    ],
)
def test_a_bad_random_state_is_refused_with_the_accepted_kinds(random_state, error, message):
    y_true, scores, qid = systems()
    with pytest.raises(error, match=message):
        compare_rankings(y_true, scores, qid=qid, random_state=random_state)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"y_scores": [1, 2]}, TypeError, "y_scores must map system names to score arrays"),
        ({"y_scores": {"a": np.zeros(320)}}, ValueError, "needs at least two systems"),
        ({"baseline": "bm25"}, ValueError, "baseline='bm25' is not a system of y_scores"),
        ({"test": "anova"}, ValueError, "test must be one of"),
        ({"correction": "fdr"}, ValueError, "correction must be one of 'holm', 'bonferroni', 'fdr_bh', 'maxT', None"),
        ({"n_resamples": 0}, ValueError, "n_resamples must be an integer >= 1"),
        ({"confidence_level": 1.5}, ValueError, r"confidence_level must be in \(0, 1\)"),
        ({"sample_weight": np.ones(320)}, TypeError, "compare_rankings takes the options ties, zero_division"),
    ],
)
def test_bad_arguments(kwargs, error, message):
    y_true, scores, qid = systems()
    arguments = {"y_scores": scores, **kwargs}
    with pytest.raises(error, match=message):
        compare_rankings(y_true, arguments.pop("y_scores"), qid=qid, **arguments)


def bootstrap_pvalues(differences, n_resamples, rng):
    """The bootstrap test's p-value of each column of paired differences, through compare_rankings' own steps."""
    moments = bootstrap_means(bootstrap_t_columns(differences), Resamples(n_resamples, rng))
    return np.array(paired_pvalues(differences, "bootstrap", moments=moments))


@pytest.mark.parametrize(
    "null",
    [
        lambda rng, size: rng.normal(0, 1, size),
        # Differences of two exchangeable precision@5 values: discrete, symmetric, often tied at 0.
        lambda rng, size: (rng.binomial(5, 0.3, size) - rng.binomial(5, 0.3, size)) / 5,
    ],
    ids=["normal", "precision@5"],
)
def test_bootstrap_test_holds_its_level_under_the_null_at_every_number_of_queries(null):
    # 2,000 data sets per size (the columns), each tested with 999 resamples: the rejection rate of a test at its
    # level 0.05 lies below 0.05 + 3 standard errors. The shift method rejected 0.48, 0.33, 0.18 and 0.10 of them
    # with 2, 3, 5 and 10 queries.
    rng = np.random.default_rng(0)
    n_sets, alpha = 2000, 0.05
    for n_queries in (2, 3, 5, 10, 30):
        pvalues = bootstrap_pvalues(null(rng, (n_queries, n_sets)), 999, rng)
        rejected = np.mean(pvalues <= alpha)
        assert rejected <= alpha + 3 * np.sqrt(alpha * (1 - alpha) / n_sets), (n_queries, rejected)


def test_bootstrap_test_agrees_with_the_t_test_with_many_queries():
    # Normal differences on 100 queries, standardized and shifted so that the t-test's p-values are exactly 0.5 down
    # to 5e-4: the bootstrap-t p-value of 40,000 resamples lies within 4 binomial standard errors of each, plus 5%
    # of it for the O(1/n) difference of the two tails, so small p-values are checked too (an absolute tolerance
    # of 0.019 let a p-value of 5e-4 be off forty-fold).
    rng = np.random.default_rng(1)
    n_queries, n_resamples = 100, 40_000
    targets = np.array([0.5, 0.05, 5e-3, 5e-4])
    noise = rng.normal(0, 1, (n_queries, len(targets)))
    noise = (noise - noise.mean(axis=0)) / noise.std(axis=0, ddof=1)
    differences = noise + stats.t.isf(targets / 2, n_queries - 1) / np.sqrt(n_queries)
    expected = stats.ttest_1samp(differences, 0.0).pvalue
    np.testing.assert_allclose(expected, targets, rtol=1e-9)
    pvalues = bootstrap_pvalues(differences, n_resamples, rng)
    tolerance = 4 * np.sqrt(expected * (1 - expected) / n_resamples) + 0.05 * expected
    assert (np.abs(pvalues - expected) <= tolerance).all(), (pvalues, expected)
    assert (np.abs(np.log(pvalues / expected)) < 0.7).all()  # within a factor of 2 at every size


def test_bootstrap_test_warns_where_it_cannot_reject():
    y_true, scores, qid = systems(n_queries=3)
    with pytest.warns(UserWarning, match=r"With 3 queries the bootstrap test of 'ndcg@10' cannot reach p < 0.05"):
        result = compare_rankings(y_true, scores, qid=qid, baseline="noise", test="bootstrap", random_state=0)
    assert (result.to_frame(kind="rows").pvalue.dropna() > 0.05).all()
    # One query: no paired test at all, whichever; p = 1 as the other tests give (was 1 / (B + 1)).
    for test in ("randomization", "t-test", "wilcoxon", "bootstrap"):
        with pytest.warns(UserWarning, match="on 1 query: a paired test needs at least two, so every p-value is 1"):
            result = compare_rankings(
                y_true[:8],
                {"a": scores["noise"][:8], "b": scores["strong"][:8]},
                qid=qid[:8],
                test=test,
                random_state=0,
            )
        assert row(result, "b", baseline="a").pvalue == 1.0
    # The same difference on every query: no spread to studentize by.
    labels, qid = np.tile([1, 0], 12), np.repeat(np.arange(12), 2)
    first_wins, second_wins = np.tile([1.0, 0.0], 12), np.tile([0.0, 1.0], 12)
    with pytest.warns(UserWarning, match=r"'b' minus 'a' on 'mrr' is 0.5 on every query: without spread"):
        result = compare_rankings(
            labels, {"a": second_wins, "b": first_wins}, qid=qid, metrics=["mrr"], test="bootstrap", random_state=0
        )
    assert row(result, "b", metric="mrr", baseline="a").pvalue == 1.0


def dense_randomization_pvalues(differences):
    """The former exact randomization: every sign vector at once, as one dense matrix."""
    n_queries = len(differences)
    signs = 1.0 - 2.0 * ((np.arange(2**n_queries)[:, None] >> np.arange(n_queries)) & 1)
    return at_least(signs @ differences, differences.sum(axis=0), flip_tolerance(differences)).mean(axis=0)


def test_exact_randomization_in_blocks_equals_the_dense_enumeration():
    rng = np.random.default_rng(2)
    for n_queries in (1, 2, 5, 8, 9, 12):
        differences = np.round(rng.normal(0.1, 1, (n_queries, 4)), 1)  # ties and sums on the boundary too
        differences[:, 3] = 0.5
        expected = dense_randomization_pvalues(differences)
        np.testing.assert_array_equal(randomization_pvalues(differences), expected)


def test_exact_randomization_memory_stays_bounded_whatever_the_number_of_queries():
    # The dense matrix of the 2**20 sign vectors took 574 MB; then every block's future and count, all submitted
    # at once, took 30 MB at 22 queries (O(2**n)). A few blocks per thread at a time take a few hundred kB.
    differences = np.random.default_rng(3).integers(-5, 6, (22, 1)).astype(float)  # integer sums: exact
    tracemalloc.start()
    try:
        pvalue = randomization_pvalues(differences)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * 2**20, peak
    # Meet in the middle: the signed sums of the first and last eleven queries, added in every pair.
    halves = [np.array(list(itertools.product([1, -1], repeat=11))) @ half for half in np.split(differences, 2)]
    flipped = halves[0] + halves[1].T
    assert pvalue[0] == np.mean(np.abs(flipped) >= abs(differences.sum()))


def test_exact_randomization_counts_sums_equal_to_the_observed_one_in_exact_arithmetic():
    # MRR of b minus a on four queries: (1 - 1/4) + (1/3 - 1) + (1/9 - 1/4) + (1/6 - 1/9) = 0 exactly, -2e-17 in
    # floats, so all 16 sign vectors are as extreme: p = 1. A tolerance relative to the observed mean (1e-17)
    # missed the sums that round differently: p was 0.875.
    ranks_a, ranks_b, n_docs = [4, 1, 4, 9], [1, 3, 9, 6], 10
    qid = np.repeat(np.arange(4), n_docs)
    y_true = (np.arange(4 * n_docs) % n_docs == 0).astype(int)  # the first document of each query is relevant

    def scores(ranks):  # each query's relevant document at the given rank: it swaps scores with that rank's
        blocks = np.tile(np.arange(n_docs, 0, -1.0), (len(ranks), 1))
        rows = np.arange(len(ranks))
        blocks[rows, 0], blocks[rows, np.subtract(ranks, 1)] = blocks[rows, np.subtract(ranks, 1)], blocks[rows, 0]
        return blocks.ravel()

    result = compare_rankings(
        y_true, {"a": scores(ranks_a), "b": scores(ranks_b)}, qid=qid, metrics=["mrr"], random_state=0
    )
    np.testing.assert_allclose(result.per_query["mrr"]["b"], 1 / np.array(ranks_b))
    assert sum(Fraction(1, b) - Fraction(1, a) for a, b in zip(ranks_a, ranks_b, strict=True)) == 0
    assert row(result, "b", metric="mrr", baseline="a").pvalue == 1.0


def exact_sign_flip_pvalue(values):
    """The exact randomization p-value in rational arithmetic: the share of sign vectors as extreme as no flip."""
    observed = abs(sum(values))
    flips = itertools.product([1, -1], repeat=len(values))
    extreme = sum(abs(sum(s * v for s, v in zip(signs, values, strict=True))) >= observed for signs in flips)
    return Fraction(extreme, 2 ** len(values))


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.fractions(-3, 3, max_denominator=12), min_size=1, max_size=9),
    balanced=st.booleans(),
)
def test_exact_randomization_equals_an_enumeration_in_exact_arithmetic(values, balanced):
    if balanced:  # a mean difference of exactly 0, rounding noise in floats
        values = [*values, -sum(values)]
    differences = np.array([float(value) for value in values])[:, None]
    pvalue = randomization_pvalues(differences)[0]
    assert pvalue == exact_sign_flip_pvalue(values)
