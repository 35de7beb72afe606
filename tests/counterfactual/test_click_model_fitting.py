"""EM of the click models: finite, equal to a row-by-row EM, warns when it stops early; estimators of sklearn;
simulation without state on the model; the ranks a model can score; propensities where nothing is identified."""

import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from sklearn_rankmetrics.counterfactual import (
    CascadeModel,
    ClickChainModel,
    DependentClickModel,
    DynamicBayesianNetwork,
    PositionBasedModel,
    UserBrowsingModel,
    estimate_position_propensity,
)

MODELS = [PositionBasedModel, CascadeModel, DependentClickModel, DynamicBayesianNetwork, UserBrowsingModel]
MODELS.append(ClickChainModel)


def long_tail_log(seed=0, n=1500, k=5):
    """PBM clicks where half the shown documents are long-tail (shown once): EM cells whose gamma * alpha -> 1."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n), k)
    docs = np.where(rng.random(n * k) < 0.5, rng.integers(0, 20, n * k), 1000 + np.arange(n * k))
    alpha = np.where(docs < 1000, (docs % 10) / 10, 0.5)
    position = np.tile(np.arange(1, k + 1), n)
    truth = PositionBasedModel(attention=[1.0, 0.7, 0.5, 0.4, 0.3])
    return truth.simulate(alpha, -position, qid=qid, random_state=seed), qid, docs, position


def naive_pbm_em(clicks, docs, position, n_iter):
    """Row-by-row EM of the position-based model (Chuklin et al. 2015, 4.2), the reference for the cell table."""
    alpha, gamma = np.full(docs.max() + 1, 0.5), np.full(position.max(), 0.5)
    for _ in range(n_iter):
        new_alpha, new_gamma = np.zeros_like(alpha), np.zeros_like(gamma)
        for c, d, p in zip(clicks, docs, position - 1, strict=True):
            a, g = min(alpha[d], 1 - 1e-12), gamma[p]
            new_alpha[d] += c + (1 - c) * a * (1 - g) / (1 - a * g)
            new_gamma[p] += c + (1 - c) * g * (1 - a) / (1 - a * g)
        alpha = new_alpha / np.maximum(np.bincount(docs, minlength=len(alpha)), 1)
        gamma = new_gamma / np.bincount(position - 1, minlength=len(gamma))
    return alpha, gamma


def test_pbm_em_on_the_cell_table_reaches_the_row_by_row_em_optimum():
    clicks, qid, docs, position = long_tail_log(n=300, k=4)
    docs = np.where(docs < 1000, docs, docs % 7 + 20)  # every document shown several times: one optimum
    clicks = clicks[: 300 * 4]
    alpha, gamma = naive_pbm_em(clicks, docs, position, 300)
    model = PositionBasedModel(max_iter=2000, tol=1e-10).fit(clicks, qid=qid, doc_id=docs)
    expected = alpha[np.unique(docs)][:, None] * gamma
    found = model.attractiveness_[:, None] * model.attention_
    # The row EM creeps towards a document clicked at every showing (alpha -> 1): equal up to its slow tail,
    # and never a better fit than the accelerated EM on the cells.
    interior = found.max(axis=1) < 0.99
    np.testing.assert_allclose(found[interior], expected[interior], atol=1e-3)
    p = expected[np.searchsorted(np.unique(docs), docs), position - 1]
    naive_likelihood = np.sum(clicks * np.log(p) + (1 - clicks) * np.log1p(-np.minimum(p, 1 - 1e-12)))
    assert model.log_likelihood(clicks, qid=qid, doc_id=docs) >= naive_likelihood - 1e-6


@pytest.mark.parametrize("model", [PositionBasedModel, UserBrowsingModel], ids=lambda m: m.__name__)
def test_examination_em_stays_finite_when_a_cell_is_certain(model):
    # Two sessions of two documents: the clicked long-tail document's gamma * alpha reaches 1 (hostile D2).
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        fitted = model().fit([0, 1, 0, 0], qid=[0, 0, 1, 1], doc_id=[3, 2, 0, 3])
    attention = fitted.attention_ if model is PositionBasedModel else fitted.attention_[:, 0]  # reached cells
    assert np.isfinite(fitted.attractiveness_).all() and np.isfinite(attention).all()


def test_em_propensities_of_a_long_tail_log_are_finite_and_close():
    clicks, qid, docs, position = long_tail_log()
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        found = estimate_position_propensity(clicks, qid=qid, position=position, doc_id=docs)
    np.testing.assert_allclose(found, [1.0, 0.7, 0.5, 0.4, 0.3], atol=0.08)


def test_em_propensity_of_a_log_without_clicks_is_nan_with_a_warning():
    arguments = {"qid": [1, 1, 1, 2, 2, 2], "position": [1, 2, 3, 1, 2, 3], "doc_id": [1, 2, 3, 2, 3, 1]}
    with pytest.warns(RuntimeWarning, match=r"positions \[2, 3\] is not identified \(the log has no click"):
        found = estimate_position_propensity([0] * 6, **arguments)
    np.testing.assert_array_equal(found, [1.0, np.nan, np.nan])


def test_swap_partner_beyond_the_impression_is_refused():
    arguments = {"qid": [1, 1, 1, 2, 2, 2], "position": [1, 2, 3, 1, 2, 3], "method": "swap"}
    with pytest.raises(ValueError, match=r"swapped_with=9 but the impression of row 0 shows 3 positions"):
        estimate_position_propensity([1, 0, 0, 1, 1, 0], swapped_with=[9, 9, 9, 1, 1, 1], **arguments)


# The cascade model is fitted in closed form: no EM to stop.
@pytest.mark.parametrize("model", [m for m in MODELS if m is not CascadeModel], ids=lambda m: m.__name__)
def test_em_that_stops_at_max_iter_warns(model):
    clicks, qid, docs, _ = long_tail_log(n=200)
    with pytest.warns(ConvergenceWarning, match=r"EM stopped at max_iter=2 steps"):
        fitted = model(max_iter=2).fit(clicks, qid=qid, doc_id=docs % 30)
    assert fitted.n_iter_ == 2


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_click_models_are_scikit_learn_estimators(model):
    estimator = model(max_iter=50) if model is not CascadeModel else model()
    copy = clone(estimator)
    assert copy.get_params() == estimator.get_params() and copy is not estimator
    assert repr(estimator).startswith(f"{model.__name__}(")
    clicks, qid, docs, _ = long_tail_log(n=100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fitted = estimator.fit(clicks, qid=qid, doc_id=docs % 30)
    stored = set(vars(fitted))
    assert stored - set(fitted.get_params()) == {name for name in stored if name.endswith("_")}


def test_dbn_simulates_in_many_threads_at_once():
    # Satisfaction travels in arguments, not on the model (hostile D5): each thread gets its own clicks.
    n, k = 2000, 5
    qid, score, attractiveness = np.repeat(np.arange(n), k), -np.tile(np.arange(k), n), np.full(n * k, 0.9)
    model = DynamicBayesianNetwork()

    def run(satisfaction):
        return model.simulate(attractiveness, score, qid=qid, satisfaction=np.full(n * k, satisfaction), random_state=0)

    serial = {s: run(s).sum() for s in (0.0, 1.0)}
    with ThreadPoolExecutor(4) as pool:
        found = [(s, pool.submit(run, s)) for _ in range(10) for s in (0.0, 1.0)]
        assert all(future.result().sum() == serial[s] for s, future in found)
    assert serial[1.0] == n * 1.0 and not hasattr(model, "_satisfaction_rows")


def test_dbn_simulate_names_the_attractiveness_when_it_is_bad():
    with pytest.raises(ValueError, match=r"attractiveness must lie in \[0, 1\]; got 1.5 at row 0"):
        DynamicBayesianNetwork().simulate([1.5, 0.2], [2, 1], qid=[1, 1], random_state=0)


@pytest.mark.parametrize("model", [CascadeModel, DynamicBayesianNetwork, ClickChainModel], ids=lambda m: m.__name__)
def test_models_without_rank_parameters_score_longer_sessions(model):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fitted = model().fit([1, 0, 0, 1], qid=[1, 1, 2, 2], doc_id=["a", "b", "b", "a"])
    assert np.isfinite(fitted.log_likelihood([0, 1, 0], qid=[1, 1, 1], doc_id=["a", "b", "c"]))


@pytest.mark.parametrize("model", [PositionBasedModel, UserBrowsingModel, DependentClickModel])
def test_models_with_rank_parameters_refuse_longer_sessions_saying_why(model):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fitted = model().fit([1, 0, 0, 1], qid=[1, 1, 2, 2], doc_id=["a", "b", "b", "a"])
    with pytest.raises(ValueError, match=r"one parameter per rank and was fitted on sessions of at most 2: rank 3"):
        fitted.log_likelihood([0, 1, 0], qid=[1, 1, 1], doc_id=["a", "b", "c"])
