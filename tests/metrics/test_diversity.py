"""alpha-nDCG, ERR-IA and S-recall against the paper, ndeval's conventions and brute force."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sklearn_rankmetrics import (
    alpha_ndcg_score,
    get_ranking_scorer,
    intent_aware_err_score,
    ndcg_score,
    subtopic_recall_score,
)

import naive

# Clarke et al. 2008, section 4: ten documents in rank order and their subtopics.
PAPER = [{1, 2}, {1}, {1}, set(), {3, 4}, {3}, {5}, {3}, set(), set()]
PAPER_J = np.array([[1.0 if t in topics else 0.0 for t in range(1, 6)] for topics in PAPER])
PAPER_SCORES = np.arange(10, 0, -1)


def ndeval_alpha_ndcg(judgements, ranking, k, alpha=0.5):
    """ndeval's computeDCG and idealResult, transcribed as loops: binary judgements, ties to the later row."""
    judgements = (np.asarray(judgements) > 0).astype(float)

    def dcg(order):
        factor, total = np.ones(judgements.shape[1]), 0.0
        for rank, row in enumerate(order[:k]):
            total += (judgements[row] * factor).sum() * math.log(2) / math.log(rank + 2)
            factor *= np.where(judgements[row] > 0, 1 - alpha, 1.0)
        return total

    factor, ideal, free = np.ones(judgements.shape[1]), [], list(range(len(judgements)))
    for _ in range(len(judgements)):
        where, best = None, -np.inf
        for row in free:
            gain = (judgements[row] * factor).sum()
            if gain >= best:  # equal gains: the later document, as ndeval's larger docno
                where, best = row, gain
        free.remove(where)
        ideal.append(where)
        factor *= np.where(judgements[where] > 0, 1 - alpha, 1.0)
    best_dcg = dcg(ideal)
    return dcg(list(ranking)) / best_dcg if best_dcg > 0 else 0.0


def test_paper_worked_example_at_every_rank():
    expected_first = [1.0, 0.710, 0.649]
    for k, value in enumerate(expected_first, start=1):
        assert alpha_ndcg_score(PAPER_J, PAPER_SCORES, k=k) == pytest.approx(value, abs=5e-4)
    for k in range(1, 11):
        expected = ndeval_alpha_ndcg(PAPER_J, range(10), k)
        assert alpha_ndcg_score(PAPER_J, PAPER_SCORES, k=k) == pytest.approx(expected, rel=1e-12)


def test_paper_gain_dcg_and_ideal_vectors():
    # gain <2, 1/2, 1/4, 0, 2, 1/2, 1, 1/4, 0, 0>; DCG <2, 2.315, 2.440>; ideal DCG <2, 3.262, 3.762>
    dcg = [alpha_ndcg_score(PAPER_J, PAPER_SCORES, k=k) for k in (1, 2, 3)]
    ideal = np.array([2, 2 + 2 / np.log2(3), 2 + 2 / np.log2(3) + 1 / 2])
    actual = np.array([2, 2 + 0.5 / np.log2(3), 2 + 0.5 / np.log2(3) + 0.25 / 2])
    np.testing.assert_allclose(dcg, actual / ideal, rtol=1e-12)
    np.testing.assert_allclose(ideal, [2, 3.262, 3.762], atol=5e-4)
    np.testing.assert_allclose(actual, [2, 2.315, 2.440], atol=5e-4)


def test_greedy_ideal_is_not_optimal_and_exact_is():
    y_true = [[0, 1, 0, 1], [1, 0, 1, 0], [0, 0, 0, 1], [1, 0, 0, 1], [0, 0, 0, 0]]
    y_score = [5, 4, 1, 3, 0]
    # 1.0177: ndeval's greedy ideal (ndeval_alpha_ndcg above transcribes it) has less DCG@3 than the ranking
    # [0, 1, 3, 2, 4] of these scores, so the ratio exceeds 1.
    assert alpha_ndcg_score(y_true, y_score, k=3) == pytest.approx(ndeval_alpha_ndcg(y_true, [0, 1, 3, 2, 4], 3))
    assert round(alpha_ndcg_score(y_true, y_score, k=3), 4) == 1.0177
    assert alpha_ndcg_score(y_true, y_score, k=3, ideal="exact") == pytest.approx(1.0)


@pytest.mark.parametrize("seed", range(40))
def test_agrees_with_ndeval_conventions_on_tie_free_scores(seed):
    rng = np.random.default_rng(seed)
    n_rows, n_queries = rng.integers(1, 40), rng.integers(1, 4)
    qid = rng.integers(0, n_queries, n_rows)
    y_true = (rng.random((n_rows, rng.integers(1, 6))) < 0.3).astype(float)
    y_score = rng.permutation(n_rows).astype(float)
    k = [None, 1, 5, 10, 20][seed % 5]
    ours = alpha_ndcg_score(y_true, y_score, qid=qid, k=k, average=False)
    expected = []
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        ranked = np.argsort(-y_score[rows], kind="stable")
        expected.append(ndeval_alpha_ndcg(y_true[rows], ranked, k or len(rows)))
    np.testing.assert_allclose(ours, expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("seed", range(10))
def test_alpha_zero_is_ndcg_with_gain_the_number_of_subtopics(seed):
    rng = np.random.default_rng(seed)
    qid = rng.integers(0, 3, 30)
    y_true = (rng.random((30, 4)) < 0.4).astype(float)
    y_score = rng.permutation(30).astype(float)
    for k in (None, 3, 10):
        expected = ndcg_score(y_true.sum(axis=1), y_score, qid=qid, k=k, ties="stable")
        assert alpha_ndcg_score(y_true, y_score, qid=qid, k=k, alpha=0.0) == pytest.approx(expected, rel=1e-12)


def brute_force_ideal(judgements, k, alpha=0.5):
    weights = 1 / np.log2(np.arange(2, k + 2))
    best = 0.0
    for order in itertools.permutations(range(len(judgements)), min(k, len(judgements))):
        factor, total = np.ones(judgements.shape[1]), 0.0
        for rank, row in enumerate(order):
            total += (judgements[row] * factor).sum() * weights[rank]
            factor *= (1 - alpha) ** judgements[row]
        best = max(best, total)
    return best


@pytest.mark.parametrize("seed", range(15))
def test_exact_ideal_equals_brute_force_and_bounds_greedy(seed):
    rng = np.random.default_rng(seed)
    n_rows, k = rng.integers(2, 7), rng.integers(1, 5)
    y_true = (rng.random((n_rows, 4)) < 0.5).astype(float)
    y_score = rng.permutation(n_rows).astype(float)
    greedy = alpha_ndcg_score(y_true, y_score, k=int(k))
    exact = alpha_ndcg_score(y_true, y_score, k=int(k), ideal="exact")
    assert exact <= greedy + 1e-12
    assert exact <= 1 + 1e-12
    if y_true.any():
        order = np.argsort(-y_score, kind="stable")
        assert exact == pytest.approx(ndeval_dcg(y_true, order, int(k)) / brute_force_ideal(y_true, int(k)), rel=1e-12)


def ndeval_dcg(judgements, order, k, alpha=0.5):
    factor, total = np.ones(judgements.shape[1]), 0.0
    for rank, row in enumerate(order[:k]):
        total += (judgements[row] * factor).sum() / np.log2(rank + 2)
        factor *= (1 - alpha) ** judgements[row]
    return total


@st.composite
def diversity_inputs(draw):
    n_rows = draw(st.integers(1, 8))
    n_subtopics = draw(st.integers(1, 4))
    cells = st.lists(st.sampled_from([0.0, 1.0]), min_size=n_subtopics, max_size=n_subtopics)
    y_true = np.array(draw(st.lists(cells, min_size=n_rows, max_size=n_rows)))
    y_score = np.array(draw(st.permutations(range(n_rows))), dtype=float)
    qid = np.array(draw(st.lists(st.integers(0, 2), min_size=n_rows, max_size=n_rows)))
    return y_true, y_score, qid, draw(st.none() | st.integers(1, 4))


@given(data=diversity_inputs(), seed=st.integers(0, 2**32 - 1))
def test_exact_alpha_ndcg_bounds_and_invariances(data, seed):
    y_true, y_score, qid, k = data
    values = alpha_ndcg_score(y_true, y_score, qid=qid, k=k, ideal="exact", average=False)
    assert np.all((values >= 0) & (values <= 1 + 1e-12))
    rows = np.random.default_rng(seed).permutation(len(y_score))
    shuffled = alpha_ndcg_score(y_true[rows], y_score[rows], qid=qid[rows], k=k, ideal="exact", average=False)
    np.testing.assert_allclose(shuffled, values, rtol=1e-12, atol=1e-15)
    relabelled = alpha_ndcg_score(y_true, y_score, qid=qid * -3 + 10, k=k, ideal="exact", average=False)
    np.testing.assert_allclose(relabelled, values[::-1], rtol=1e-12, atol=1e-15)


@given(data=diversity_inputs())
def test_greedy_tie_orders_stay_in_range_and_equal_stable_without_ties(data):
    # The greedy orders pick, rank by rank, the tied document adding the least (most) gain: a heuristic, not the
    # worst (best) of all orderings, so they need not bracket the stable order (see the next test).
    y_true, y_score, qid, k = data
    distinct = np.argsort(np.argsort(y_score, kind="stable")).astype(float)
    for scores, tied in ((np.floor(y_score / 3), True), (distinct, False)):
        for metric in (alpha_ndcg_score, subtopic_recall_score):
            values = {
                ties: metric(y_true, scores, qid=qid, k=k, ties=ties, average=False)
                for ties in ("pessimistic", "stable", "optimistic")
            }
            for found in values.values():
                assert np.all((found >= 0) & (found <= (1 + 1e-12 if metric is subtopic_recall_score else np.inf)))
            if not tied:
                np.testing.assert_array_equal(values["pessimistic"], values["stable"])
                np.testing.assert_array_equal(values["optimistic"], values["stable"])


def test_greedy_pessimistic_order_is_not_the_worst_ordering():
    # Three tied documents, k=2: the greedy order takes the one adding a single subtopic first, then one adding
    # three (S-recall 1); the input order shows the two that cover the same three subtopics (0.75).
    y_true = np.array([[1, 1, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [1, 1, 0, 1], [0, 0, 1, 0]])
    y_score = np.array([1, 0, 0, 0, 1, 1])
    assert subtopic_recall_score(y_true, y_score, k=2, ties="stable") == 0.75
    assert subtopic_recall_score(y_true, y_score, k=2, ties="pessimistic") == 1.0


def test_pessimistic_ties_put_the_lowest_gain_first():
    y_true = [[1, 1], [1, 0], [0, 1]]  # all tied: worst first is a single-subtopic document
    pessimistic = alpha_ndcg_score(y_true, [1, 1, 1], ties="pessimistic")
    order = [1, 2, 0]  # lowest gain first: {1} (1 vs 2), then {2} (1 vs 1.5), then {1, 2} (1)
    expected = ndeval_dcg(np.array(y_true, float), order, 3) / ndeval_dcg(np.array(y_true, float), [0, 1, 2], 3)
    assert pessimistic == pytest.approx(expected, rel=1e-12)
    assert alpha_ndcg_score(y_true, [1, 1, 1], ties="optimistic") == pytest.approx(1.0)


def naive_err_ia(y_true, order, k=None, weights=None):
    weights = np.ones(y_true.shape[1]) if weights is None else np.asarray(weights, float)
    relevant = y_true.max(axis=0) > 0
    if not relevant.any():
        return None
    per_intent = [naive.err(list(y_true[order, i]), k=k, max_grade=1) or 0.0 for i in range(y_true.shape[1])]
    return float(np.sum(weights[relevant] * np.array(per_intent)[relevant]) / weights[relevant].sum())


@pytest.mark.parametrize("seed", range(20))
def test_err_ia_is_the_weighted_mean_of_per_intent_err(seed):
    rng = np.random.default_rng(seed)
    n_rows = rng.integers(1, 10)
    y_true = (rng.random((n_rows, 3)) < 0.4).astype(float)
    y_score = rng.permutation(n_rows).astype(float)
    weights = rng.uniform(0.1, 1, 3)
    k = [None, 1, 3][seed % 3]
    order = np.argsort(-y_score, kind="stable")
    expected = naive_err_ia(y_true, order, k, weights)
    ours = intent_aware_err_score(y_true, y_score, k=k, intent_weights=weights)
    assert ours == pytest.approx(0.0 if expected is None else expected, rel=1e-12)


@pytest.mark.parametrize("seed", range(20))
def test_err_ia_and_s_recall_tie_average_equal_the_mean_over_orderings(seed):
    rng = np.random.default_rng(seed)
    n_rows = rng.integers(1, 7)
    y_true = (rng.random((n_rows, 3)) < 0.5).astype(float)
    y_score = rng.integers(0, 2, n_rows).astype(float)
    k = [None, 1, 2, 4][seed % 4]
    blocks = [np.flatnonzero(y_score == s) for s in sorted(set(y_score), reverse=True)]
    orders = [np.concatenate(p) for p in itertools.product(*(itertools.permutations(b) for b in blocks))]
    if not y_true.any():
        return
    expected_err = np.mean([naive_err_ia(y_true, list(order), k) for order in orders])
    assert intent_aware_err_score(y_true, y_score, k=k, ties="average") == pytest.approx(expected_err, rel=1e-12)
    present = y_true.max(axis=0) > 0
    recalls = [(y_true[list(order)[: k or n_rows]].max(axis=0) > 0)[present].mean() for order in orders]
    assert subtopic_recall_score(y_true, y_score, k=k, ties="average") == pytest.approx(np.mean(recalls), rel=1e-12)


def test_s_recall_counts_only_subtopics_present_in_the_query():
    y_true = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0]])  # subtopics 3 and 4 never relevant
    assert subtopic_recall_score(y_true, [3, 2, 1], k=1) == 0.5
    assert subtopic_recall_score(y_true, [3, 2, 1], k=2) == 1.0
    assert subtopic_recall_score(PAPER_J, PAPER_SCORES, k=5) == pytest.approx(4 / 5)


def test_queries_without_relevant_subtopics_score_zero_division():
    y_true = np.array([[0, 0], [0, 0], [1, 0], [0, 1]])
    qid = [1, 1, 2, 2]
    for metric in (alpha_ndcg_score, intent_aware_err_score, subtopic_recall_score):
        values = metric(y_true, [2, 1, 2, 1], qid=qid, average=False, zero_division=np.nan)
        assert np.isnan(values[0]) and values[1] > 0


def test_named_diversity_scorers_take_the_subtopic_matrix():
    class Fixed:
        def predict(self, X):
            return np.asarray(X, dtype=float)[:, 0]

    X = PAPER_SCORES.reshape(-1, 1)
    qid = np.zeros(10)
    assert get_ranking_scorer("alpha_ndcg@3")(Fixed(), X, PAPER_J, qid=qid) == pytest.approx(0.649, abs=5e-4)
    assert get_ranking_scorer("s_recall@5")(Fixed(), X, PAPER_J, qid=qid) == pytest.approx(0.8)
    assert get_ranking_scorer("err_ia@20")(Fixed(), X, PAPER_J, qid=qid) == intent_aware_err_score(
        PAPER_J, PAPER_SCORES, k=20
    )


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"y_true": [1, 0, 1]}, ValueError, r"y_true must be 2-D of shape \(n_samples, n_subtopics\)"),
        ({"y_true": [[2, 0], [0, 1], [1, 1]]}, ValueError, r"y_true must hold subtopic judgements in \[0, 1\]"),
        ({"y_true": [[-1, 0], [0, 1], [1, 1]]}, ValueError, r"in \[0, 1\]; got values from -1"),
        ({"alpha": 1.5}, ValueError, r"alpha must be in \[0, 1\]; got 1.5"),
        ({"y_score": [1, np.nan, 2]}, ValueError, "y_score contains NaN"),
        ({"y_score": [1, 2]}, ValueError, "y_true has 3 rows but y_score has 2"),
        ({"ties": "random"}, ValueError, "ties must be one of 'stable', 'average', 'pessimistic', 'optimistic'"),
        ({"ideal": "optimal"}, ValueError, "ideal must be one of 'greedy', 'exact'"),
    ],
)
def test_alpha_ndcg_bad_input(kwargs, error, message):
    arguments = {"y_true": [[1, 0], [0, 1], [1, 1]], "y_score": [3, 2, 1], **kwargs}
    with pytest.raises(error, match=message):
        alpha_ndcg_score(arguments.pop("y_true"), arguments.pop("y_score"), **arguments)


def test_exact_ideal_refuses_infeasible_sizes():
    rng = np.random.default_rng(0)
    y_true = (rng.random((60, 8)) < 0.5).astype(float)
    with pytest.raises(
        ValueError, match=r"ideal='exact' could enumerate .* orderings .* Lower k or use ideal='greedy'"
    ):
        alpha_ndcg_score(y_true, rng.random(60), k=10, ideal="exact")


def test_err_ia_rejects_bad_weights():
    with pytest.raises(ValueError, match="intent_weights must hold 2 finite non-negative weights"):
        intent_aware_err_score([[1, 0], [0, 1]], [2, 1], intent_weights=[1, -1])
