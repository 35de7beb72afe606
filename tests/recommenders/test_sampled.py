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
    f1_at_k_score,
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


# Issue #30, second round: each test below failed before its fix.


def test_the_catalogue_size_comes_from_the_columns_not_from_finite_scores_outside_the_candidates():
    y_true, scores, seen = leave_one_out(7, n_users=60, n_items=200)
    candidates = sample_candidates(y_true, n_negatives=20, exclude=seen, random_state=0)
    mask = candidates.toarray()
    unscored = np.where(mask | np.isneginf(scores), scores, np.nan)  # NaN: not scored (the docs: not read)
    stored = sp.csr_array(np.where(mask, scores, 0.0))  # a sparse y_score storing the candidates' scores
    stored.data[stored.data == 0] = 0.0
    for correction in ("bv", "cls"):
        for metric in (recall_at_k_score, ndcg_score):
            expected = metric(y_true, scores, k=5, candidates=candidates, sampled_correction=correction, average=False)
            naive = metric(y_true, scores, k=5, candidates=candidates, average=False)
            assert not np.allclose(expected, naive)
            for other in (unscored, stored):
                ours = metric(y_true, other, k=5, candidates=candidates, sampled_correction=correction, average=False)
                if other is stored:  # the seen items are not stored, so not -inf: each user's N grows by them
                    n_items = np.full(60, 200)
                    users, items = np.nonzero(mask)
                    np.testing.assert_allclose(
                        ours,
                        metric(
                            y_true.toarray()[users, items],
                            scores[users, items],
                            qid=users,
                            k=5,
                            candidates=np.ones(len(users), bool),
                            sampled_correction=correction,
                            n_items=n_items,
                            average=False,
                        ),
                        rtol=1e-12,
                    )
                else:
                    np.testing.assert_allclose(ours, expected, rtol=1e-12)
    with pytest.raises(ValueError, match=r"candidates holds \(user 0, item \d+\), which the sparse y_score"):
        recall_at_k_score(y_true, sp.csr_array(np.where(mask, 1.0, 0.0)[:, ::-1]), k=5, candidates=candidates)


def test_the_long_format_with_only_candidate_rows_needs_n_items():
    y_true, scores, seen = leave_one_out(8, n_users=30, n_items=80)
    candidates = sample_candidates(y_true, n_negatives=10, exclude=seen, random_state=0)
    expected = recall_at_k_score(y_true, scores, k=5, candidates=candidates, sampled_correction="bv", average=False)
    users, items = candidates.nonzero()
    rows = {"qid": users * 7 + 3, "k": 5, "candidates": np.ones(len(users), bool), "sampled_correction": "bv"}
    labels, row_scores = y_true.toarray()[users, items], scores[users, items]
    with pytest.raises(ValueError, match="every row is a candidate, so the rows do not show"):
        recall_at_k_score(labels, row_scores, **rows)
    per_user = 80 - seen.toarray().sum(axis=1)  # the catalogue less the items already seen
    np.testing.assert_allclose(
        recall_at_k_score(labels, row_scores, n_items=per_user, average=False, **rows), expected, rtol=1e-12
    )
    # The items seen may come as -inf rows instead, with one n_items for all.
    seen_users, seen_items = seen.nonzero()
    both = np.concatenate((users, seen_users)), np.concatenate((items, seen_items))
    with_seen = recall_at_k_score(
        y_true.toarray()[both],
        np.concatenate((row_scores, np.full(len(seen_users), -np.inf))),
        qid=both[0],
        k=5,
        candidates=np.concatenate((np.ones(len(users), bool), np.zeros(len(seen_users), bool))),
        sampled_correction="bv",
        n_items=80,
        average=False,
    )
    np.testing.assert_allclose(with_seen, expected, rtol=1e-12)
    with pytest.raises(ValueError, match="user 0 has 11 rows but n_items 3"):
        recall_at_k_score(labels, row_scores, n_items=3, **rows)
    with pytest.raises(ValueError, match="n_items is for the long format"):
        recall_at_k_score(y_true, scores, k=5, candidates=candidates, sampled_correction="bv", n_items=80)


def test_corrected_values_follow_the_users_of_qid_and_their_weights():
    y_true, scores, _seen = leave_one_out(9, n_users=8, n_items=12, n_relevant=2)
    labels = y_true.toarray()
    mask = sample_candidates(y_true, n_negatives=4, random_state=0).toarray()
    everything = np.ones_like(mask)
    weight = np.arange(1.0, 9.0)
    qid = np.repeat(np.arange(8) * 10, 12)  # ids with gaps: still 8 users
    for candidates in (mask, everything):
        expected = recall_at_k_score(
            labels, scores, k=3, candidates=candidates, sampled_correction="cls", average=False
        )
        pairs = {"qid": qid, "k": 3, "candidates": candidates.ravel(), "sampled_correction": "cls", "n_items": 12}
        ours = recall_at_k_score(labels.ravel(), scores.ravel(), average=False, **pairs)
        np.testing.assert_allclose(ours, expected, rtol=1e-12)
        weighted = recall_at_k_score(labels.ravel(), scores.ravel(), sample_weight=np.repeat(weight, 12), **pairs)
        assert weighted == pytest.approx(np.average(expected, weights=weight), rel=1e-12)


def test_precision_and_f1_without_k_examine_only_the_recommendable_items():
    scores = np.array([[3.0, 2.0, 1.0, -np.inf]])
    y_true = np.array([[1.0, 0.0, 0.0, 1.0]])  # relevant item 3 already seen: counts in R, never examined
    everything = np.ones_like(scores, dtype=bool)
    for metric in (precision_at_k_score, f1_at_k_score):
        full = metric(y_true, scores)
        for correction in ("bv", "cls"):
            assert metric(y_true, scores, candidates=everything, sampled_correction=correction) == pytest.approx(full)
    assert precision_at_k_score(y_true, scores) == pytest.approx(1 / 3)
    assert f1_at_k_score(y_true, scores) == pytest.approx(2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2))


def test_corrections_follow_zero_division_when_no_user_has_a_recommendable_relevant_item():
    scores = np.array([[3.0, 2.0, 1.0, -np.inf], [1.0, 2.0, 3.0, 4.0]])
    only_seen = np.array([[0.0, 0, 0, 1], [0, 0, 0, 0]])  # user 0's relevant item is -inf; user 1 has none
    everything = np.ones_like(scores, dtype=bool)
    for metric in (recall_at_k_score, ndcg_score, mean_reciprocal_rank_score, precision_at_k_score):
        for zero_division in (0.0, 1.0):
            full = metric(only_seen, scores, k=2, zero_division=zero_division, average=False)
            ours = metric(
                only_seen,
                scores,
                k=2,
                candidates=everything,
                sampled_correction="bv",
                zero_division=zero_division,
                average=False,
            )
            np.testing.assert_array_equal(ours, full)
    nothing = np.zeros((2, 4))
    with pytest.warns(UndefinedMetricWarning, match="Every query is undefined"):
        assert np.isnan(
            ndcg_score(nothing, scores, k=2, candidates=everything, sampled_correction="cls", zero_division=np.nan)
        )
    assert ndcg_score(nothing, scores, k=2, candidates=everything, sampled_correction="cls") == ndcg_score(
        nothing, scores, k=2
    )


def test_duplicate_label_entries_are_summed_as_scipy_defines_them():
    scores = np.array([[4.0, 3, 2, 1]])
    # Item 3 stored twice (0.5 + 0.5 = 1), outside the top 2, and item 1 once.
    duplicated = sp.csr_array((np.array([0.5, 0.5, 1.0]), np.array([3, 3, 1]), np.array([0, 3])), shape=(1, 4))
    summed = duplicated.toarray()
    assert recall_at_k_score(duplicated, scores, k=2) == recall_at_k_score(summed, scores, k=2) == 0.5
    candidates = sample_candidates(duplicated, n_negatives=1, random_state=0)
    assert candidates.nnz == 3 and candidates[0, 3] and candidates[0, 1]
    ours = recall_at_k_score(duplicated, scores, k=2, candidates=np.ones((1, 4), bool), sampled_correction="bv")
    assert ours == pytest.approx(0.5)
    assert duplicated.nnz == 3  # the input is left as it was


def test_zero_one_candidates_are_a_mask_in_both_layouts_and_other_values_are_refused():
    y_true, scores, _seen = leave_one_out(10, n_users=5, n_items=8)
    mask = sample_candidates(y_true, n_negatives=3, random_state=0).toarray()
    labels = y_true.toarray()
    qid = np.repeat(np.arange(5), 8)
    expected = recall_at_k_score(labels, scores, k=2, candidates=mask)
    assert recall_at_k_score(labels, scores, k=2, candidates=mask.astype(int)) == expected
    assert recall_at_k_score(labels.ravel(), scores.ravel(), qid=qid, k=2, candidates=mask.ravel().astype(int)) == (
        expected
    )
    for layout in ((labels, scores, None, mask * 2), (labels.ravel(), scores.ravel(), qid, mask.ravel() * 2)):
        with pytest.raises(
            ValueError, match=r"candidates must be a boolean mask \(True/False, or 0/1\); got the value 2"
        ):
            recall_at_k_score(layout[0], layout[1], qid=layout[2], k=2, candidates=layout[3])


def test_sample_candidates_takes_a_popularity_mapping_and_names_a_bad_weight():
    y_true = np.zeros((3000, 4))
    y_true[:, 0] = 1
    weights = {0: 1.0, 1: 0.0, 2: 1.0, 3: 3.0}
    drawn = sample_candidates(y_true, n_negatives=1, strategy="popularity", item_popularity=weights, random_state=0)
    np.testing.assert_allclose(drawn.toarray()[:, 1:].mean(axis=0), [0.0, 0.25, 0.75], atol=0.03)
    with pytest.raises(ValueError, match=r"got -0\.5 for item 2"):
        sample_candidates(y_true, strategy="popularity", item_popularity=[1, 1, -0.5, 1])
    with pytest.raises(ValueError, match="item_popularity has no value for item 3, which may be drawn"):
        sample_candidates(y_true, strategy="popularity", item_popularity={0: 1, 1: 1, 2: 1})
    with pytest.raises(ValueError, match="item_popularity has 3 values, but y_true has 4 items"):
        sample_candidates(y_true, strategy="popularity", item_popularity=[1, 1, 1])


def test_sample_candidates_takes_a_numpy_generator_as_random_state():
    # Issue 36, item 15: numpy's "cannot be used to seed a numpy.random.RandomState instance" before.
    y_true = sp.csr_matrix(np.eye(3, 40))
    drawn = [sample_candidates(y_true, n_negatives=5, random_state=np.random.default_rng(7)) for _ in range(2)]
    assert (drawn[0] != drawn[1]).nnz == 0 and np.all(np.asarray(drawn[0].sum(axis=1)).ravel() == 6)
    with pytest.raises(TypeError, match="random_state must be None, an integer, a numpy Generator"):
        sample_candidates(y_true, n_negatives=5, random_state=1.5)
