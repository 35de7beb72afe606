"""Click models recover the parameters they simulated; their likelihoods equal direct formulas; propensities."""

import numpy as np
import pytest

from sklearn_rankmetrics.counterfactual import (
    CascadeModel,
    ClickChainModel,
    DependentClickModel,
    DynamicBayesianNetwork,
    PositionBasedModel,
    UserBrowsingModel,
    estimate_position_propensity,
)

N_SESSIONS, N_RANKS = 8000, 4
ALPHA = np.array([0.85, 0.6, 0.35, 0.15, 0.5, 0.25])


@pytest.fixture(scope="module")
def layout():
    """Sessions of 4 of 6 documents in random order; row order is the shown rank."""
    rng = np.random.default_rng(7)
    docs = np.concatenate([rng.permutation(len(ALPHA))[:N_RANKS] for _ in range(N_SESSIONS)])
    qid = np.repeat(np.arange(N_SESSIONS), N_RANKS)
    shown = -np.tile(np.arange(N_RANKS, dtype=float), N_SESSIONS)
    return docs, qid, shown


def simulate(model, layout, seed=0, **options):
    docs, qid, shown = layout
    return model.simulate(ALPHA[docs], shown, qid=qid, random_state=seed, **options)


def test_pbm_recovers_attention_and_attractiveness(layout):
    attention = np.array([0.95, 0.6, 0.4, 0.2])
    clicks = simulate(PositionBasedModel(attention=attention), layout)
    model = PositionBasedModel().fit(clicks, qid=layout[1], doc_id=layout[0])
    scale = model.attention_[0] / attention[0]  # only the products are identified
    np.testing.assert_allclose(model.attention_ / scale, attention, atol=0.04)
    np.testing.assert_allclose(model.attractiveness_ * scale, ALPHA, atol=0.04)


def test_ubm_recovers_attention(layout):
    attention = np.tril(np.full((N_RANKS, N_RANKS), 0.5)) + np.diag([0.45, 0.3, 0.2, 0.1])
    clicks = simulate(UserBrowsingModel(attention=attention), layout)
    model = UserBrowsingModel().fit(clicks, qid=layout[1], doc_id=layout[0])
    scale = model.attention_[0, 0] / attention[0, 0]
    used = np.tril(np.ones((N_RANKS, N_RANKS), dtype=bool))
    np.testing.assert_allclose((model.attention_ / scale)[used], attention[used], atol=0.06)
    np.testing.assert_allclose(model.attractiveness_ * scale, ALPHA, atol=0.05)


def test_cascade_recovers_attractiveness(layout):
    model = CascadeModel().fit(simulate(CascadeModel(), layout), qid=layout[1], doc_id=layout[0])
    np.testing.assert_allclose(model.attractiveness_, ALPHA, atol=0.04)


def test_dcm_recovers_continuation(layout):
    continuation = np.array([0.7, 0.5, 0.3, 0.5])
    clicks = simulate(DependentClickModel(continuation=continuation), layout)
    model = DependentClickModel().fit(clicks, qid=layout[1], doc_id=layout[0])
    np.testing.assert_allclose(model.attractiveness_, ALPHA, atol=0.04)
    np.testing.assert_allclose(model.continuation_[:-1], continuation[:-1], atol=0.05)  # the last is unobservable


def test_dbn_recovers_satisfaction(layout):
    satisfaction = np.array([0.8, 0.2, 0.6, 0.4, 0.3, 0.7])
    docs = layout[0]
    clicks = simulate(DynamicBayesianNetwork(), layout, satisfaction=satisfaction[docs])
    model = DynamicBayesianNetwork().fit(clicks, qid=layout[1], doc_id=docs)
    np.testing.assert_allclose(model.attractiveness_, ALPHA, atol=0.04)
    np.testing.assert_allclose(model.satisfaction_, satisfaction, atol=0.08)


def test_ccm_recovers_tau(layout):
    tau = np.array([0.75, 0.55, 0.2])
    clicks = simulate(ClickChainModel(tau=tau), layout)
    model = ClickChainModel().fit(clicks, qid=layout[1], doc_id=layout[0])
    np.testing.assert_allclose(model.attractiveness_, ALPHA, atol=0.05)
    np.testing.assert_allclose(model.tau_, tau, atol=0.06)


def session_probability(model, clicks, alpha):
    """P(clicks) of one session by summing over every path of the hidden variables (a direct enumeration)."""
    n = len(clicks)
    if isinstance(model, PositionBasedModel):
        q = model.attention_[:n] * alpha
        return np.prod(np.where(clicks, q, 1 - q))
    # Chain models: walk down, summing over where the user stops.
    after_click = {
        CascadeModel: lambda r: 0.0,
        DependentClickModel: lambda r: model.continuation_[r],
        ClickChainModel: lambda r: model.tau_[1] * (1 - alpha[r]) + model.tau_[2] * alpha[r],
    }[type(model)]
    without = model.tau_[0] if isinstance(model, ClickChainModel) else 1.0

    def from_rank(r):  # P(clicks[r:]) given rank r examined
        if r == n:
            return 1.0
        if clicks[r]:
            go = after_click(r)
            rest = 1.0 if r == n - 1 else go * from_rank(r + 1) + (1 - go) * (not clicks[r + 1 :].any())
            return alpha[r] * rest
        rest = 1.0 if r == n - 1 else without * from_rank(r + 1) + (1 - without) * (not clicks[r + 1 :].any())
        return (1 - alpha[r]) * rest

    return from_rank(0)


@pytest.mark.parametrize(
    "model",
    [PositionBasedModel(), CascadeModel(), DependentClickModel(), ClickChainModel()],
    ids=lambda model: type(model).__name__,
)
def test_log_likelihood_equals_the_enumerated_session_probabilities(model, layout):
    docs, qid, _ = layout
    # The cascade model allows one click per session (a second has probability 0): its own clicks for it.
    truth = (
        CascadeModel() if isinstance(model, CascadeModel) else DependentClickModel(continuation=[0.6, 0.5, 0.4, 0.3])
    )
    clicks = simulate(truth, layout)
    rows = slice(0, 400 * N_RANKS)
    model.fit(clicks, qid=qid, doc_id=docs)
    found = model.log_likelihood(clicks[rows], qid=qid[rows], doc_id=docs[rows])
    expected = 0.0
    for session in range(400):
        cells = slice(session * N_RANKS, (session + 1) * N_RANKS)
        probability = session_probability(model, clicks[cells] > 0, model.attractiveness_[docs[cells]])
        expected += np.log(max(probability, 1e-12))
    assert found == pytest.approx(expected, rel=1e-9)


def test_perplexity_of_the_true_model_beats_a_wrong_one(layout):
    docs, qid, _ = layout
    clicks = simulate(CascadeModel(), layout)
    cascade = CascadeModel().fit(clicks, qid=qid, doc_id=docs)
    pbm = PositionBasedModel().fit(clicks, qid=qid, doc_id=docs)
    by_rank = cascade.perplexity(clicks, qid=qid, doc_id=docs, by_rank=True)
    assert by_rank.shape == (N_RANKS,) and (by_rank >= 1).all()
    assert cascade.perplexity(clicks, qid=qid, doc_id=docs) <= pbm.perplexity(clicks, qid=qid, doc_id=docs) + 1e-3
    assert cascade.log_likelihood(clicks, qid=qid, doc_id=docs) > pbm.log_likelihood(clicks, qid=qid, doc_id=docs)


def test_simulate_follows_the_scores_within_each_session():
    # A PBM with attention only at rank 1: the clicked document is always the best-scored of its session.
    qid = np.array([3, 1, 3, 1, 3, 1])
    scores = np.array([0.1, 0.9, 0.8, 0.2, 0.5, 0.4])
    clicks = PositionBasedModel(attention=[1.0, 0.0, 0.0]).simulate(np.ones(6), scores, qid=qid, random_state=0)
    np.testing.assert_array_equal(clicks, [0, 1, 1, 0, 0, 0])


def test_propensity_em_and_swap_recover_the_attention():
    rng = np.random.default_rng(3)
    attention = np.array([1.0, 0.6, 0.4, 0.3])
    n = 20000
    docs = np.concatenate([rng.permutation(6)[:4] for _ in range(n)])
    qid = np.repeat(np.arange(n), 4)
    position = np.tile(np.arange(1, 5), n)
    clicks = PositionBasedModel(attention=attention).simulate(ALPHA[docs], -position, qid=qid, random_state=1)
    em = estimate_position_propensity(clicks, qid=qid, position=position, doc_id=docs)
    np.testing.assert_allclose(em, attention, atol=0.04)
    # A swap experiment: the production ranker puts the most attractive document first; each impression swaps
    # position 1 with a random k (k = 1: no swap).
    production = np.tile(ALPHA[:4], n)  # documents 0..3 in production order
    swapped_with = np.repeat(rng.integers(1, 5, n), 4)
    place = position.copy()
    place[(position == 1)] = swapped_with[position == 1]
    place[(position == swapped_with) & (position != 1)] = 1
    clicks = PositionBasedModel(attention=attention).simulate(production, -place, qid=qid, random_state=2)
    swap = estimate_position_propensity(clicks, qid=qid, position=place, method="swap", swapped_with=swapped_with)
    np.testing.assert_allclose(swap, attention, atol=0.05)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (
            lambda: PositionBasedModel().fit([0, 1, 3], qid=[1, 1, 1], doc_id=[1, 2, 3]),
            ValueError,
            "clicks must hold 0",
        ),
        (lambda: PositionBasedModel().fit([0, 1, 1], qid=[1, 1], doc_id=[1, 2, 3]), ValueError, "qid has 2 values"),
        (lambda: PositionBasedModel().fit([0, 1, 1], qid=[1, 1, 1], doc_id=None), TypeError, "doc_id is required"),
        (
            lambda: CascadeModel().fit([0, 1, 1], qid=[1, 1, 1], doc_id=[1, 2, 3], position=[1, 3, 4]),
            ValueError,
            r"position must number the rows of each impression 1, 2, ..., n",
        ),
        (
            lambda: PositionBasedModel().simulate([0.5, 2.0], [1, 2], qid=[1, 1]),
            ValueError,
            r"attractiveness must lie in \[0, 1\]; got 2.0",
        ),
        (lambda: PositionBasedModel().simulate([0.5, 0.5], [1, 2], qid=[1, 1]), ValueError, "needs attention="),
        (lambda: CascadeModel().log_likelihood([0, 1], qid=[1, 1], doc_id=[1, 2]), AttributeError, "not fitted yet"),
        (lambda: PositionBasedModel(max_iter=0).fit([0, 1], qid=[1, 1], doc_id=[1, 2]), ValueError, "max_iter must be"),
        (lambda: ClickChainModel(tau=[0.5, 0.5]).simulate([0.5], [1], qid=[1]), ValueError, "tau must hold three"),
        (
            lambda: estimate_position_propensity([0, 1], qid=[1, 1], position=[1, 2], method="swap"),
            TypeError,
            "needs swapped_with",
        ),
        (
            lambda: estimate_position_propensity([0, 1], qid=[1, 1], position=[0, 1]),
            ValueError,
            r"position must hold 1-based ranks",
        ),
    ],
)
def test_bad_inputs_name_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()
