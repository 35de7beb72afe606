"""Interleaving's fidelity: a ranker better by the definition wins in expectation, a random clicker favours none."""

import numpy as np
import pytest
from scipy import stats

from sklearn_rankmetrics.counterfactual import InterleavingOutcome, _interleaving_lp, credit, interleave, multileave

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


def chapelle_balanced(a, b, a_first):
    """Balanced interleaving's list (Chapelle et al. 2012, Algorithm 1), going on with the ranking left."""
    shown, ka, kb = [], 0, 0
    while ka < len(a) or kb < len(b):
        if kb >= len(b) or (ka < len(a) and (ka < kb or (ka == kb and a_first))):
            shown += [a[ka]] if a[ka] not in shown else []
            ka += 1
        else:
            shown += [b[kb]] if b[kb] not in shown else []
            kb += 1
    return shown


def chapelle_credit(shown, clicks, a, b):
    """Clicked documents within each ranking's top k, k the better rank of the lowest click (absent: no rank)."""
    clicked = [d for d, c in zip(shown, clicks, strict=False) if c]
    if not clicked:
        return 0, 0
    k = min(r.index(clicked[-1]) + 1 if clicked[-1] in r else np.inf for r in (a, b))
    return tuple(sum(d in r[: int(k)] for d in clicked) for r in (a, b))


def test_balanced_equals_chapelle_algorithm_1_on_rankings_of_different_lengths():
    # A ranking lacking the lowest clicked document must not be credited for it (hostile D4: A=[5] got 2).
    rng = np.random.default_rng(4)
    pairs = [(rng.permutation(8)[: rng.integers(1, 6)].tolist(), rng.permutation(8)[: rng.integers(1, 6)].tolist())]
    pairs += [(rng.permutation(8)[: rng.integers(1, 6)].tolist(), rng.permutation(8)[: rng.integers(1, 6)].tolist())
              for _ in range(400)]  # fmt: skip
    pairs[0] = ([5], [2, 1, 3, 5])
    a = np.array([x + [-1] * (5 - len(x)) for x, _ in pairs])
    b = np.array([y + [-1] * (5 - len(y)) for _, y in pairs])
    shown = interleave(a, b, method="balanced", random_state=0)
    clicks = (rng.random(shown.ranking_.shape) < 0.4) & (shown.ranking_ >= 0)
    clicks[0] = np.isin(shown.ranking_[0], [5, 3])
    credits = shown.credit(clicks.astype(int)).credits
    for q, (x, y) in enumerate(pairs):
        listed = [d for d in shown.ranking_[q].tolist() if d >= 0]
        width = shown.ranking_.shape[1]  # the lists stop at the longest ranking's length
        assert listed in (chapelle_balanced(x, y, True)[:width], chapelle_balanced(x, y, False)[:width])
        assert tuple(credits[q]) == chapelle_credit(listed, clicks[q].tolist(), x, y)
    assert tuple(credits[0]) == (1, 1)


@pytest.mark.parametrize("method", METHODS)
def test_every_method_accepts_rankings_of_different_lengths(method):
    shown = interleave([[5]], [[2, 1, 3, 5]], method=method, random_state=0)
    documents = shown.ranking_[0][shown.ranking_[0] >= 0].tolist()
    assert set(documents) <= {1, 2, 3, 5} and len(set(documents)) == len(documents)
    if method != "optimized":  # which stops at the shorter ranking's length
        assert sorted(documents) == [1, 2, 3, 5]
    multileaved = multileave([[[5]], [[2, 1, 3, 5]], [[1, 2]]], method="probabilistic", random_state=0)
    assert sorted(multileaved.ranking_[0].tolist()) == [1, 2, 3, 5]


def test_optimized_interleaving_tests_the_mean_credit_that_random_clicks_leave_at_zero():
    # One uniform click on four documents rotated between the rankings: B wins about 3 queries in 4, but A's wins
    # are worth more; the optimized distribution makes the expected credit difference 0 (hostile D3).
    n = 4000
    a, b = np.tile([1, 2, 3, 4], (n, 1)), np.tile([2, 3, 4, 1], (n, 1))
    shown = interleave(a, b, method="optimized", random_state=0)
    clicks = np.zeros((n, 4), dtype=int)
    clicks[np.arange(n), np.random.default_rng(0).integers(0, 4, n)] = 1
    outcome = shown.credit(clicks)
    assert outcome.losses > 2 * outcome.wins  # the signs alone would prefer B
    differences = outcome.credits[:, 0] - outcome.credits[:, 1]
    assert outcome.delta == pytest.approx(differences.mean()) and abs(outcome.delta) < 0.02
    assert outcome.pvalue == pytest.approx(stats.ttest_1samp(differences, 0.0).pvalue) and outcome.pvalue > 0.01


def test_balanced_interleaving_is_biased_under_random_clicks_as_documented():
    # The user guide's numbers: a = 1 2 3 4, b = 2 3 4 1, one click uniformly at random: the exact mean outcome.
    a, b = [1, 2, 3, 4], [2, 3, 4, 1]
    exact = []
    for a_first in (True, False):
        listed = chapelle_balanced(a, b, a_first)
        for place in range(4):
            credit_a, credit_b = chapelle_credit(listed, [int(i == place) for i in range(4)], a, b)
            exact.append(np.sign(credit_a - credit_b))
    assert np.mean(exact) == -0.5
    shown = interleave(np.tile(a, (4000, 1)), np.tile(b, (4000, 1)), method="balanced", random_state=0)
    clicks = np.zeros((4000, 4), dtype=int)
    clicks[np.arange(4000), np.random.default_rng(1).integers(0, 4, 4000)] = 1
    assert shown.credit(clicks).outcome.mean() == pytest.approx(-0.5, abs=0.05)


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


def test_optimized_distributions_solved_together_equal_those_solved_alone():
    # Many queries' programmes in one sparse block programme (hostile D6): each block meets its constraints
    # (zero expected credit difference at every depth, probabilities summing to 1) with the optimum it has alone.
    rng = np.random.default_rng(6)
    a = np.array([rng.permutation(7)[:5] for _ in range(20)])
    b = np.array([rng.permutation(7)[:5] for _ in range(20)])
    union = np.concatenate([a, b], axis=1)
    pattern = (union[:, :, None] == union[:, None, :]).argmax(axis=2)
    a, b = pattern[:, :5], pattern[:, 5:]
    lists, query, starts = _interleaving_lp.distinct_lists(_interleaving_lp.candidate_lists(a, b, 5), 10)
    together = _interleaving_lp.list_distributions(lists, query, starts, a, b)
    delta = _interleaving_lp.rank_credits(lists, query, a) - _interleaving_lp.rank_credits(lists, query, b)
    clicker = 1 / np.arange(1, 6)
    cost = (delta @ (clicker / clicker.sum())) ** 2
    np.testing.assert_allclose(np.bincount(query, weights=together), 1.0)
    for q in range(20):
        rows = query == q
        np.testing.assert_allclose(together[rows] @ np.cumsum(delta[rows], axis=1), 0.0, atol=1e-9)
        alone = _interleaving_lp.list_distributions(lists[rows], query[rows] * 0, np.zeros(1, int), a[[q]], b[[q]])
        assert together[rows] @ cost[rows] == pytest.approx(alone @ cost[rows], rel=1e-7, abs=1e-12)
        # Every candidate's prefixes are unions of the rankings' prefixes.
        for listed in lists[rows]:
            for depth in range(1, 6):
                prefix = set(listed[:depth].tolist())
                assert any(prefix == set(a[q, :i]) | set(b[q, :j]) for i in range(6) for j in range(6))


def test_the_mean_credit_test_of_too_few_queries_says_nothing():
    shown = interleave([[1, 2, 3]], [[3, 2, 1]], method="optimized", random_state=0)
    one = shown.credit([[1, 0, 0]])
    assert one.delta != 0 and one.pvalue == 1.0
    none = shown.credit([[0, 0, 0]])
    assert (none.delta, none.pvalue) == (0.0, 1.0)


def test_interleaving_and_click_simulation_take_a_numpy_generator_as_random_state():
    from sklearn_rankmetrics.counterfactual import PositionBasedModel

    a, b = np.array([[1, 2, 3, 4]]), np.array([[4, 3, 2, 1]])
    shown = [interleave(a, b, random_state=np.random.default_rng(5)).ranking_ for _ in range(2)]
    np.testing.assert_array_equal(*shown)
    model, qid = PositionBasedModel(attention=[0.9, 0.5, 0.2]), np.repeat([0, 1], 3)
    attraction, scores = np.full(6, 0.7), -np.arange(6.0)
    clicks = [model.simulate(attraction, scores, qid=qid, random_state=np.random.default_rng(1)) for _ in range(2)]
    np.testing.assert_array_equal(*clicks)
