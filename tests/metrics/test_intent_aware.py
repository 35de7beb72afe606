"""P-IA, AP-IA, nERR-IA and NRBP beside alpha-nDCG: textbook loops, tie averaging by enumeration, options."""

import itertools

import numpy as np
import pytest

from sklearn_rankmetrics import get_ranking_scorer, make_ranking
from sklearn_rankmetrics.metrics._intent_aware import (
    intent_aware_average_precision_score,
    intent_aware_precision_score,
    normalized_intent_aware_err_score,
    novelty_rank_biased_precision_score,
)
from sklearn_rankmetrics.registry._names import parse_metric_name

import naive

IA_METRICS = [
    intent_aware_precision_score,
    intent_aware_average_precision_score,
    normalized_intent_aware_err_score,
    novelty_rank_biased_precision_score,
]


def precision_ia(judgements, k):
    """Mean over the present intents of P@k with relevance J > 0 (judgements: rows in rank order)."""
    present = [i for i in range(len(judgements[0])) if any(row[i] > 0 for row in judgements)]
    if not present:
        return None
    k = k or len(judgements)
    return float(np.mean([sum(row[i] > 0 for row in judgements[:k]) / k for i in present]))


def average_precision_ia(judgements, k):
    present = [i for i in range(len(judgements[0])) if any(row[i] > 0 for row in judgements)]
    if not present:
        return None
    values = [naive.average_precision([float(row[i] > 0) for row in judgements], k) for i in present]
    return float(np.mean(values))


def alpha_gains(judgements, alpha):
    seen = np.zeros(len(judgements[0]))
    gains = []
    for row in judgements:
        gains.append(float(np.sum(np.asarray(row) * (1 - alpha) ** seen)))
        seen += row
    return gains


def ndeval_ideal(judgements, alpha):
    """ndeval's greedy ideal: at each rank the highest alpha-gain, equal gains to the later row."""
    seen = np.zeros(len(judgements[0]))
    free, order = list(range(len(judgements))), []
    while free:
        gains = [float(np.sum(np.asarray(judgements[row]) * (1 - alpha) ** seen)) for row in free]
        best = max(range(len(free)), key=lambda i: (gains[i], free[i]))
        order.append(free.pop(best))
        seen += judgements[order[-1]]
    return [judgements[row] for row in order]


def nerr_ia(judgements, k, alpha, ideal):
    k = k or len(judgements)
    best = sum(g / r for r, g in enumerate(alpha_gains(ideal, alpha)[:k], start=1))
    return sum(g / r for r, g in enumerate(alpha_gains(judgements, alpha)[:k], start=1)) / best if best else None


def nrbp(judgements, alpha, beta, n_intents):
    if not n_intents:
        return None
    total = sum(g * beta ** (r - 1) for r, g in enumerate(alpha_gains(judgements, alpha), start=1))
    return (1 - (1 - alpha) * beta) / n_intents * total


def subtopic_queries(seed, n_rows=8, n_queries=2, n_subtopics=3, n_scores=3):
    rng = np.random.default_rng(seed)
    qid = rng.integers(0, n_queries, n_rows)
    judgements = (rng.random((n_rows, n_subtopics)) < 0.35).astype(float)
    y_score = rng.integers(0, n_scores, n_rows).astype(float)
    return judgements, y_score, qid


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("k", [None, 1, 3])
def test_p_ia_and_ap_ia_average_ties_over_every_ordering(seed, k):
    judgements, y_score, qid = subtopic_queries(seed)
    for metric, textbook in (
        (intent_aware_precision_score, precision_ia),
        (intent_aware_average_precision_score, average_precision_ia),
    ):
        expected = []
        for q in np.unique(qid):
            rows = np.flatnonzero(qid == q)
            blocks = [rows[y_score[rows] == score] for score in sorted(set(y_score[rows]), reverse=True)]
            values = [
                textbook([judgements[row] for block in ordering for row in block], k)
                for ordering in itertools.product(*(itertools.permutations(block) for block in blocks))
            ]
            expected.append(0.0 if values[0] is None else np.mean(values))
        ours = metric(judgements, y_score, qid=qid, k=k, ties="average", average=False)
        np.testing.assert_allclose(ours, expected, rtol=1e-12, atol=1e-15, err_msg=metric.__name__)


def discounted_sum(judgements, alpha, weight, k=None):
    """The sum over the top k ranks r of weight(r) times the alpha-gain at r (rows in rank order)."""
    gains = alpha_gains(judgements, alpha)[:k] if judgements else []
    return sum(weight(r) * g for r, g in enumerate(gains, start=1))


def novelty_textbooks(alpha, beta, k):
    """Each novelty measure's textbook value of the judgements of a ranking, given the query's ideal ranking."""
    log_weight, rr_weight, rbp_weight = (lambda r: 1 / np.log2(r + 1)), (lambda r: 1 / r), (lambda r: beta ** (r - 1))

    def normalised(weight):
        def value(ranked, ideal, n_intents):
            best = discounted_sum(ideal, alpha, weight, k)
            return discounted_sum(ranked, alpha, weight, k) / best if best else 0.0

        return value

    def rbp(ranked, ideal, n_intents):
        return (1 - (1 - alpha) * beta) / n_intents * discounted_sum(ranked, alpha, rbp_weight, k) if n_intents else 0

    return {
        "alpha_ndcg": normalised(log_weight),
        "nerr_ia": normalised(rr_weight),
        "nrbp": rbp,
        "nnrbp": normalised(rbp_weight),
    }


@pytest.mark.parametrize("seed", range(40))
def test_novelty_measures_average_ties_over_every_ordering(seed):
    # nERR-IA, NRBP, nNRBP and alpha-nDCG with ties="average": the mean over every ordering of the tie blocks
    # (scores -inf not retrieved), by enumeration, against the textbook loops.
    from sklearn_rankmetrics import alpha_ndcg_score

    judgements, y_score, qid = subtopic_queries(seed, n_rows=9, n_scores=[2, 3][seed % 2])
    judgements[::3] *= [0.5, 1.0, 0.3][seed % 3]  # fractional judgements
    y_score[np.random.default_rng(seed).random(len(y_score)) < 0.2] = -np.inf
    alpha, beta, k = [0.5, 0.2, 1.0, 0.0][seed % 4], [0.5, 0.8][seed % 2], [None, 1, 2, 4, 10][seed % 5]
    textbooks = novelty_textbooks(alpha, beta, k)
    expected = {name: [] for name in textbooks}
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        ideal = ndeval_ideal([judgements[row] for row in rows], alpha)
        n_intents = int(np.sum(judgements[rows].max(axis=0) > 0))
        retrieved = rows[y_score[rows] > -np.inf]
        blocks = [retrieved[y_score[retrieved] == score] for score in sorted(set(y_score[retrieved]), reverse=True)]
        orderings = [
            [judgements[row] for block in ordering for row in block]
            for ordering in itertools.product(*(itertools.permutations(block) for block in blocks))
        ]
        for name, textbook in textbooks.items():
            expected[name].append(np.mean([textbook(ranked, ideal, n_intents) for ranked in orderings]))
    options = {"qid": qid, "k": k, "alpha": alpha, "ties": "average", "average": False}
    ours = {
        "alpha_ndcg": alpha_ndcg_score(judgements, y_score, **options),
        "nerr_ia": normalized_intent_aware_err_score(judgements, y_score, **options),
        "nrbp": novelty_rank_biased_precision_score(judgements, y_score, beta=beta, **options),
        "nnrbp": novelty_rank_biased_precision_score(judgements, y_score, beta=beta, normalize=True, **options),
    }
    for name, values in ours.items():
        np.testing.assert_allclose(values, expected[name], rtol=1e-12, atol=1e-15, err_msg=name)


@pytest.mark.parametrize("seed", range(20))
def test_novelty_measures_match_their_textbook_loops(seed):
    judgements, y_score, qid = subtopic_queries(seed, n_rows=12, n_scores=20)
    judgements[::3] *= 0.5  # fractional judgements weigh the gains, as in alpha-nDCG
    alpha, beta, k = [0.5, 0.2, 0.9][seed % 3], [0.5, 0.8][seed % 2], [None, 2, 5][seed % 3]
    expected = {"nerr_ia": [], "nrbp": []}
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        ranked = [judgements[row] for row in rows[np.argsort(-y_score[rows], kind="stable")]]
        value = nerr_ia(ranked, k, alpha, ndeval_ideal([judgements[row] for row in rows], alpha))
        expected["nerr_ia"].append(0.0 if value is None else value)
        value = nrbp(ranked, alpha, beta, int(np.sum(judgements[rows].max(axis=0) > 0)))
        expected["nrbp"].append(0.0 if value is None else value)
    ours = normalized_intent_aware_err_score(judgements, y_score, qid=qid, k=k, alpha=alpha, average=False)
    np.testing.assert_allclose(ours, expected["nerr_ia"], rtol=1e-12, atol=1e-15)
    ours = novelty_rank_biased_precision_score(judgements, y_score, qid=qid, alpha=alpha, beta=beta, average=False)
    np.testing.assert_allclose(ours, expected["nrbp"], rtol=1e-12, atol=1e-15)


def test_intent_weights_weigh_the_per_intent_values():
    judgements = np.array([[1, 0, 0], [0, 1, 0], [1, 1, 0]], dtype=float)
    y_score = [3.0, 2.0, 1.0]
    per_intent_p = np.array([1 / 2, 1 / 2])  # P@2 of intents 0 and 1; intent 2 has no relevant document
    per_intent_ap = np.array([(1 + 2 / 3) / 2, (1 / 2 + 2 / 3) / 2])
    weights = [3.0, 1.0, 100.0]  # the absent intent's weight does not count
    p_ia = intent_aware_precision_score(judgements, y_score, k=2, intent_weights=weights)
    assert p_ia == pytest.approx(np.average(per_intent_p, weights=weights[:2]), rel=1e-15)
    ap_ia = intent_aware_average_precision_score(judgements, y_score, intent_weights=weights)
    assert ap_ia == pytest.approx(np.average(per_intent_ap, weights=weights[:2]), rel=1e-15)


def test_exact_ideal_bounds_the_normalised_novelty_measures_by_one():
    # The greedy ideal is not always best (see alpha_ndcg_score): the exact one never lets a score pass 1.
    judgements = np.array([[0, 1, 0, 1], [1, 0, 1, 0], [0, 0, 0, 1], [1, 0, 0, 1], [0, 0, 0, 0]], dtype=float)
    y_score = [5, 4, 1, 3, 0]
    assert normalized_intent_aware_err_score(judgements, y_score, k=3, ideal="exact") <= 1.0
    assert novelty_rank_biased_precision_score(judgements, y_score, k=3, normalize=True, ideal="exact") <= 1.0
    assert normalized_intent_aware_err_score(judgements, y_score, k=3) >= normalized_intent_aware_err_score(
        judgements, y_score, k=3, ideal="exact"
    )


@pytest.mark.parametrize("metric", IA_METRICS, ids=lambda metric: metric.__name__)
def test_a_query_without_relevant_intents_scores_zero_division(metric):
    judgements = np.array([[0, 0], [0, 0], [1, 0], [0, 1]], dtype=float)
    values = metric(judgements, [2.0, 1.0, 2.0, 1.0], qid=[0, 0, 1, 1], average=False, zero_division=np.nan)
    assert np.isnan(values[0]) and values[1] > 0


@pytest.mark.parametrize(
    ("metric", "options", "error", "message"),
    [
        (intent_aware_precision_score, {"ties": "pessimistic"}, ValueError, "ties must be one of 'stable', 'average'"),
        (intent_aware_average_precision_score, {"intent_weights": [1.0]}, ValueError, "intent_weights must hold 2"),
        (intent_aware_precision_score, {"intent_weights": [1.0, -1.0]}, ValueError, "finite non-negative weights"),
        (normalized_intent_aware_err_score, {"ties": "random"}, ValueError, "ties must be one of .stable., .average."),
        (normalized_intent_aware_err_score, {"alpha": 1.5}, ValueError, r"alpha must be in \[0, 1\]; got 1.5"),
        (novelty_rank_biased_precision_score, {"beta": 1.0}, ValueError, "beta must be below 1"),
        (novelty_rank_biased_precision_score, {"normalize": 1}, TypeError, "normalize must be True or False"),
        (novelty_rank_biased_precision_score, {"ideal": "best"}, ValueError, "ideal must be one of 'greedy', 'exact'"),
        (intent_aware_average_precision_score, {"k": 0}, ValueError, "k must be None or an integer >= 1; got 0"),
    ],
)
def test_bad_options_raise_a_clear_error(metric, options, error, message):
    with pytest.raises(error, match=message):
        metric([[1, 0], [0, 1]], [0.5, 0.2], **options)


@pytest.mark.parametrize("metric", IA_METRICS, ids=lambda metric: metric.__name__)
def test_judgements_must_be_a_matrix_in_the_unit_interval(metric):
    with pytest.raises(ValueError, match="y_true must be 2-D of shape"):
        metric([1, 0], [0.5, 0.2])
    with pytest.raises(ValueError, match=r"y_true must hold subtopic judgements in \[0, 1\]"):
        metric([[2, 0], [0, 1]], [0.5, 0.2])


@pytest.mark.parametrize("name", ["p_ia@5", "ap_ia", "nerr_ia@5", "nrbp", "nnrbp"])
def test_scorers_of_the_intent_aware_measures(name):
    X, _, qid = make_ranking(n_queries=6, n_docs=8, random_state=0)
    judgements = (np.random.default_rng(0).random((len(qid), 3)) < 0.3).astype(float)

    class Scores:
        def predict(self, X):
            return X[:, 0]

    scorer = get_ranking_scorer(name)
    metric, options = parse_metric_name(name)
    assert scorer(Scores(), X, judgements, qid=qid) == pytest.approx(metric(judgements, X[:, 0], qid=qid, **options))
