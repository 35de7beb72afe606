"""Interleaving's fidelity: a ranker better by the definition wins in expectation, a random clicker favours none."""

import numpy as np
import pytest

from sklearn_rankmetrics.counterfactual import InterleavingOutcome, credit, interleave, multileave

METHODS = ["team_draft", "balanced", "probabilistic", "optimized"]


def dominating_pair(rng, n_queries, n_docs=6):
    """Per query: ranking b, and ranking a that is b with one relevant document moved above a non-relevant one
    (a is better by every rank-based metric: Pareto dominance); the relevance of every document."""
    b = np.array([rng.permutation(n_docs) for _ in range(n_queries)])
    relevant = rng.random((n_queries, n_docs)) < 0.3
    a = b.copy()
    rows = np.arange(n_queries)
    rank_relevant = relevant[rows[:, None], b]
    for q in rows:  # build the pair (test set-up, not the code under test)
        good = np.flatnonzero(rank_relevant[q])
        bad = np.flatnonzero(~rank_relevant[q])
        lower_good = [g for g in good if (bad < g).any()]
        if lower_good:
            g = rng.choice(lower_good)
            h = bad[bad < g].min()
            a[q, [h, g]] = a[q, [g, h]]
    return a, b, relevant


def users(rng, shown, relevant, noise=0.05):
    """Clicks of users who examine rank r with probability 1/r and click relevant documents (and some others)."""
    examined = rng.random(shown.shape) < 1 / np.arange(1, shown.shape[1] + 1)
    attractive = np.where(relevant[np.arange(len(shown))[:, None], np.maximum(shown, 0)], 0.9, noise)
    return (examined & (rng.random(shown.shape) < attractive) & (shown >= 0)).astype(int)


@pytest.mark.parametrize("method", METHODS)
def test_the_better_ranker_wins(method):
    rng = np.random.default_rng(11)
    a, b, relevant = dominating_pair(rng, 1500)
    shown = interleave(a, b, method=method, random_state=1)
    outcome = credit(shown, users(rng, shown.ranking_, relevant))
    assert outcome.wins > outcome.losses and outcome.delta > 0 and outcome.pvalue < 1e-3
    swapped = credit(interleave(b, a, method=method, random_state=2), users(rng, shown.ranking_, relevant) * 0)
    assert swapped.wins == swapped.losses == swapped.ties == 0  # no click, no information


@pytest.mark.parametrize("method", ["team_draft", "probabilistic", "optimized"])
def test_a_random_clicker_prefers_neither(method):
    rng = np.random.default_rng(5)
    n = 800 if method == "optimized" else 3000  # optimized solves a linear programme per pattern of ranks
    a = np.array([rng.permutation(8)[:6] for _ in range(n)])
    b = np.array([rng.permutation(8)[:6] for _ in range(n)])
    shown = interleave(a, b, method=method, random_state=3)
    clicks = ((rng.random(shown.ranking_.shape) < 0.3) & (shown.ranking_ >= 0)).astype(int)
    outcome = credit(shown, clicks)
    assert abs(outcome.delta) < 0.05 and outcome.pvalue > 0.001


@pytest.mark.parametrize("method", METHODS)
def test_lists_show_each_document_once_from_the_rankings(method):
    rng = np.random.default_rng(0)
    a = np.array([rng.permutation(9)[:5] for _ in range(50)])
    b = np.array([rng.permutation(9)[:5] for _ in range(50)])
    shown = interleave(a, b, method=method, random_state=0).ranking_
    for q in range(50):
        documents = shown[q][shown[q] >= 0]
        assert len(set(documents.tolist())) == len(documents)
        assert set(documents.tolist()) <= set(a[q].tolist()) | set(b[q].tolist())
        if method != "probabilistic":  # which draws its first document
            assert documents[0] in (a[q, 0], b[q, 0])


def test_team_draft_teams_stay_balanced():
    rng = np.random.default_rng(1)
    a = np.array([rng.permutation(6) for _ in range(200)])
    b = np.array([rng.permutation(6) for _ in range(200)])
    teams = interleave(a, b, method="team_draft", random_state=0).teams_
    assert (np.abs((teams == 0).sum(axis=1) - (teams == 1).sum(axis=1)) <= 1).all()


def test_balanced_credit_by_hand():
    # a = 1 2 3, b = 2 3 1; a leads: the list is 1 2 3 (a's 1, b's 2, a's 2 shown, b's 3, ...).
    # A click on 3 (lowest click, rank 3 in a, rank 2 in b): k = 2; clicked in a's top 2: none; in b's: 3 -> b wins.
    shown = interleave([1, 2, 3], [2, 3, 1], method="balanced", random_state=0)
    order = shown.ranking_[0].tolist()
    outcome = credit(shown, [[int(doc == 3) for doc in order]])
    assert outcome.losses == 1 and outcome.wins == 0


def test_multileaving_finds_the_best_of_three():
    rng = np.random.default_rng(2)
    best, worse, relevant = dominating_pair(rng, 3000)
    worst = np.array([rng.permutation(6) for _ in range(3000)])
    for method in ("team_draft", "probabilistic"):
        shown = multileave([best, worse, worst], method=method, random_state=0)
        outcome = shown.credit(users(rng, shown.ranking_, relevant))
        assert isinstance(outcome, InterleavingOutcome) and outcome.outcome.shape == (3000, 3, 3)
        assert outcome.delta[0, 1] > 0 and outcome.delta[0, 2] > 0  # the best beats the two others
        assert outcome.pvalue[0, 1] < 1e-3 and outcome.pvalue[0, 2] < 1e-3
        np.testing.assert_allclose(outcome.delta, -outcome.delta.T)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: interleave([1, 1, 2], [1, 2, 3]), ValueError, "ranking_a lists a document twice"),
        (lambda: interleave([1, -1, 2], [1, 2, 3]), ValueError, "ranking_a has a document after a -1"),
        (lambda: interleave([1.5, 2], [1, 2]), ValueError, "integer document ids"),
        (lambda: interleave([[1, 2]], [[1, 2], [2, 1]]), ValueError, "same number of queries"),
        (lambda: interleave([1, 2], [2, 1], method="team-draft"), ValueError, "Did you mean 'team_draft'"),
        (lambda: interleave(list(range(13)), list(range(13)), method="optimized"), ValueError, "length must be <= 12"),
        (lambda: interleave([1, 2], [2, 1]).credit([[1, 0, 0]]), ValueError, "clicks must have the shape"),
        (lambda: interleave([1, 2], [2, 1]).credit([[2, 0]]), ValueError, "clicks must hold 0"),
        (lambda: credit("list", [[1, 0]]), TypeError, "interleaving must be what interleave"),
        (lambda: multileave([[1, 2]], method="balanced"), ValueError, "method must be one of 'team_draft'"),
    ],
)
def test_bad_inputs(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_interleaving_and_click_simulation_take_a_numpy_generator_as_random_state():
    from sklearn_rankmetrics.counterfactual import PositionBasedModel

    a, b = np.array([[1, 2, 3, 4]]), np.array([[4, 3, 2, 1]])
    shown = [interleave(a, b, random_state=np.random.default_rng(5)).ranking_ for _ in range(2)]
    np.testing.assert_array_equal(*shown)
    model, qid = PositionBasedModel(attention=[0.9, 0.5, 0.2]), np.repeat([0, 1], 3)
    attraction, scores = np.full(6, 0.7), -np.arange(6.0)
    clicks = [model.simulate(attraction, scores, qid=qid, random_state=np.random.default_rng(1)) for _ in range(2)]
    np.testing.assert_array_equal(*clicks)
