"""Sampled evaluation: shared candidates, metrics restricted to them, and Krichene & Rendle's corrected estimators.

The corrected estimators are checked against a direct implementation of their formulas (scipy's hypergeometric
law, numpy's solver, scipy's bounded least squares on the full system), ties against the mean over every ordering.
"""

import itertools
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import lsq_linear
from scipy.stats import hypergeom
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_rankmetrics import (
    bpref_score,
    hit_rate_score,
    mean_average_precision_score,
    mean_reciprocal_rank_score,
    ndcg_score,
    precision_at_k_score,
    recall_at_k_score,
    sample_candidates,
)


def leave_one_out(seed, n_users=40, n_items=60, n_relevant=1):
    """Scores with -inf for seen items, and n_relevant held-out items per user among the others."""
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(n_users, n_items))
    seen = rng.random(scores.shape) < 0.2
    scores[seen] = -np.inf
    y_true = np.zeros(scores.shape)
    for user in range(n_users):
        free = np.flatnonzero(~seen[user])
        y_true[user, rng.choice(free, n_relevant, replace=False)] = 1.0
    return sp.csr_array(y_true), scores, sp.csr_array(seen)


def test_candidates_hold_every_relevant_item_and_n_negatives_outside_exclude():
    y_true, _scores, seen = leave_one_out(0, n_relevant=2)
    candidates = sample_candidates(y_true, n_negatives=10, exclude=seen, random_state=0)
    assert candidates.dtype == bool and candidates.shape == y_true.shape
    np.testing.assert_array_equal(candidates.sum(axis=1), 12)
    assert (candidates.multiply(y_true) != 0).sum() == y_true.nnz
    assert candidates.multiply(seen).nnz == 0
    again = sample_candidates(y_true, n_negatives=10, exclude=seen, random_state=0)
    assert (again != candidates).nnz == 0
    # Fewer eligible items than asked: all of them.
    few = sample_candidates(y_true, n_negatives=1000, exclude=seen, random_state=0)
    np.testing.assert_array_equal(few.sum(axis=1), (~seen.toarray()).sum(axis=1))


def test_uniform_draws_are_uniform_and_popularity_draws_follow_the_weights():
    y_true = np.zeros((4000, 6))
    y_true[:, 0] = 1
    uniform = sample_candidates(y_true, n_negatives=1, random_state=1).toarray()[:, 1:].mean(axis=0)
    np.testing.assert_allclose(uniform, 0.2, atol=0.03)
    weights = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 0.0])
    drawn = sample_candidates(y_true, n_negatives=1, strategy="popularity", item_popularity=weights, random_state=2)
    share = drawn.toarray()[:, 1:].mean(axis=0)
    np.testing.assert_allclose(share, [0.1, 0.2, 0.3, 0.4, 0.0], atol=0.03)
    assert share[-1] == 0.0  # weight 0: never drawn


def test_candidate_errors():
    y_true, scores, _seen = leave_one_out(1)
    with pytest.raises(ValueError, match="strategy must be one of 'uniform', 'popularity'"):
        sample_candidates(y_true, strategy="random")
    with pytest.raises(ValueError, match="n_negatives must be an integer >= 0"):
        sample_candidates(y_true, n_negatives=-1)
    with pytest.raises(ValueError, match="exclude must have the shape of y_true"):
        sample_candidates(y_true, exclude=np.zeros((2, 2), dtype=bool))
    with pytest.raises(ValueError, match="pass candidates= as well"):
        recall_at_k_score(y_true, scores, k=10, sampled_correction="bv")
    candidates = sample_candidates(y_true, n_negatives=5, random_state=0)
    with pytest.raises(ValueError, match="sampled_correction must be one of 'bv', 'cls'"):
        recall_at_k_score(y_true, scores, k=10, candidates=candidates, sampled_correction="exact")
    with pytest.raises(ValueError, match="sampled_correction is not available for bpref_score"):
        bpref_score(y_true.toarray(), scores, candidates=candidates, sampled_correction="bv")
    missing = candidates.toarray() & ~(y_true.toarray() > 0)
    with pytest.raises(ValueError, match="needs every relevant item among the candidates"):
        recall_at_k_score(y_true, scores, k=10, candidates=missing, sampled_correction="bv")


@pytest.mark.parametrize(
    "metric", [ndcg_score, recall_at_k_score, hit_rate_score, mean_average_precision_score, bpref_score]
)
def test_candidates_restrict_the_ranking_as_minus_inf_does(metric):
    y_true, scores, seen = leave_one_out(2, n_relevant=3)
    candidates = sample_candidates(y_true, n_negatives=8, exclude=seen, random_state=0)
    restricted = np.where(candidates.toarray(), scores, -np.inf)
    labels = y_true.toarray()
    options = {} if metric is bpref_score else {"k": 5}
    expected = metric(labels, restricted, average=False, **options)
    unread = np.where(candidates.toarray(), scores, np.nan)  # scores outside the candidates are never read
    np.testing.assert_array_equal(metric(labels, unread, candidates=candidates, average=False, **options), expected)
    # The 1-D layout: one bool per row.
    qid = np.repeat(np.arange(labels.shape[0]), labels.shape[1])
    ours = metric(
        labels.ravel(), scores.ravel(), qid=qid, candidates=candidates.toarray().ravel(), average=False, **options
    )
    np.testing.assert_array_equal(ours, expected)


def direct_table(f, n, m, correction, gamma=0.01):
    """The corrected table M^(x~) from its definition, with scipy's hypergeometric law and the full system."""
    full = np.arange(n + 1)
    law = hypergeom.pmf(np.arange(m + 1)[None, :], n, full[:, None], m)  # A[x, x~]
    prior = np.full(n + 1, 1 / (n + 1))
    target = f(full + 1.0)
    if correction == "bv":
        gram = law.T @ np.diag(prior) @ law
        return np.linalg.solve((1 - gamma) * gram + gamma * np.diag(law.T @ prior), law.T @ (prior * target))
    weighted = np.sqrt(prior)[:, None] * law
    return lsq_linear(weighted, np.sqrt(prior) * target, bounds=(target.min(), target.max()), method="bvls").x


@pytest.mark.parametrize("correction", ["bv", "cls"])
@pytest.mark.parametrize("metric", ["recall", "ndcg", "mrr"])
def test_corrected_estimate_is_the_table_of_its_definition(correction, metric):
    # One relevant item per user, no ties: each user's estimate is the table's value at its sampled rank.
    y_true, scores, seen = leave_one_out(3)
    candidates = sample_candidates(y_true, n_negatives=7, exclude=seen, random_state=0)
    k = 5
    functions = {
        "recall": (recall_at_k_score, lambda r: (r <= k).astype(float)),
        "ndcg": (ndcg_score, lambda r: np.where(r <= k, 1 / np.log2(r + 1), 0.0)),
        "mrr": (mean_reciprocal_rank_score, lambda r: np.where(r <= k, 1 / r, 0.0)),
    }
    score_function, f = functions[metric]
    ours = score_function(y_true, scores, k=k, candidates=candidates, sampled_correction=correction, average=False)
    labels, mask = y_true.toarray(), candidates.toarray()
    for user in range(labels.shape[0]):
        relevant = np.flatnonzero(labels[user])[0]
        others = (scores[user] > -np.inf) & (labels[user] == 0)
        n, m = others.sum(), (others & mask[user]).sum()
        sampled_rank = ((scores[user] > scores[user, relevant]) & others & mask[user]).sum()
        expected = direct_table(f, n, m, correction)[sampled_rank]
        assert ours[user] == pytest.approx(expected, rel=1e-7, abs=1e-9), user


@pytest.mark.parametrize("correction", ["bv", "cls"])
@pytest.mark.parametrize(
    "metric",
    [
        ndcg_score,
        recall_at_k_score,
        precision_at_k_score,
        hit_rate_score,
        mean_average_precision_score,
        mean_reciprocal_rank_score,
    ],
)
def test_with_every_item_a_candidate_the_correction_is_the_full_metric(correction, metric):
    y_true, scores, _seen = leave_one_out(4, n_relevant=3)
    everything = sp.csr_array(scores > -np.inf)
    expected = metric(y_true, scores, k=10, average=False)
    ours = metric(y_true, scores, k=10, candidates=everything, sampled_correction=correction, average=False)
    np.testing.assert_allclose(ours, expected, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("metric", [ndcg_score, recall_at_k_score, mean_average_precision_score, hit_rate_score])
@pytest.mark.parametrize("seed", range(3))
def test_tied_candidates_average_the_estimator_over_every_ordering(metric, seed):
    rng = np.random.default_rng(seed)
    n_users, n_items = 3, 9
    scores = rng.integers(0, 3, (n_users, n_items)).astype(float)
    y_true = (rng.random((n_users, n_items)) < 0.3).astype(float) * rng.integers(1, 3, (n_users, n_items))
    y_true[:, 0] = 1
    candidates = (y_true > 0) | (rng.random((n_users, n_items)) < 0.5)
    ours = metric(y_true, scores, k=3, candidates=candidates, sampled_correction="bv", average=False)
    for user in range(n_users):
        shown = np.flatnonzero(candidates[user])
        blocks = [shown[scores[user, shown] == value] for value in np.unique(scores[user, shown])[::-1]]
        values = []
        for combo in itertools.product(*(itertools.permutations(block) for block in blocks)):
            order = [item for block in combo for item in block]
            broken = scores[user].copy()
            broken[order] = np.arange(len(order), 0, -1) + 100.0  # the ordering, above every other score
            row = np.where(candidates[user], broken, scores[user] - 100.0)
            values.append(
                metric(
                    y_true[user : user + 1],
                    row[None, :],
                    k=3,
                    candidates=candidates[user : user + 1],
                    sampled_correction="bv",
                    ties="stable",
                    average=False,
                )[0]
            )
        assert ours[user] == pytest.approx(np.mean(values), rel=1e-9, abs=1e-12), user


def test_corrected_values_are_close_to_the_full_ones_where_the_naive_ones_are_far():
    rng = np.random.default_rng(5)
    n_users, n_items = 2000, 500
    affinity = rng.normal(size=(n_users, 4)) @ rng.normal(size=(n_items, 4)).T + np.linspace(1.5, -1.5, n_items)
    seen = rng.random(affinity.shape) < 0.1
    y_true = np.zeros(affinity.shape)
    for user in range(n_users):
        weights = np.where(seen[user], 0, np.exp(affinity[user]))
        y_true[user, rng.choice(n_items, p=weights / weights.sum())] = 1
    scores = np.where(seen, -np.inf, affinity + rng.normal(0, 1, affinity.shape))
    candidates = sample_candidates(y_true, n_negatives=100, exclude=seen, random_state=0)
    for metric in (recall_at_k_score, ndcg_score):
        full = metric(y_true, scores, k=10)
        naive = metric(y_true, scores, k=10, candidates=candidates)
        for correction in ("bv", "cls"):
            corrected = metric(y_true, scores, k=10, candidates=candidates, sampled_correction=correction)
            assert abs(corrected - full) < 0.02 < abs(naive - full), (metric.__name__, correction)


def test_users_without_a_relevant_item_take_zero_division():
    y_true, scores, seen = leave_one_out(6)
    labels = y_true.toarray()
    labels[:5] = 0
    candidates = sample_candidates(labels, n_negatives=10, exclude=seen, random_state=0)
    values = recall_at_k_score(
        labels, scores, k=5, candidates=candidates, sampled_correction="bv", average=False, zero_division=np.nan
    )
    assert np.isnan(values[:5]).all() and not np.isnan(values[5:]).any()
    with warnings.catch_warnings():
        warnings.simplefilter("error", UndefinedMetricWarning)
        mean = recall_at_k_score(
            labels, scores, k=5, candidates=candidates, sampled_correction="bv", zero_division=np.nan
        )
    assert mean == pytest.approx(np.mean(values[5:]), rel=1e-12)
