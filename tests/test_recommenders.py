"""Recommender evaluation: sparse users x items relevance, hit rate, F1, coverage, undefined users."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_rankmetrics import (
    catalog_coverage,
    expected_reciprocal_rank_score,
    f1_at_k_score,
    hit_rate_score,
    mean_average_precision_score,
    mean_reciprocal_rank_score,
    ndcg_score,
    precision_at_k_score,
    ranking_report,
    recall_at_k_score,
)

TOP_K_METRICS = [
    ndcg_score,
    mean_average_precision_score,
    mean_reciprocal_rank_score,
    precision_at_k_score,
    recall_at_k_score,
    hit_rate_score,
    f1_at_k_score,
    expected_reciprocal_rank_score,
]


def implicit_feedback(seed, n_users=120, n_items=300):
    """Sparse graded interactions, integer scores with many ties, and -inf for items already seen."""
    rng = np.random.default_rng(seed)
    y_true = sp.random(n_users, n_items, density=0.03, random_state=seed, format="csr")
    y_true.data = np.ceil(y_true.data * 3)
    y_score = rng.integers(0, 15, (n_users, n_items)).astype(float)
    y_score[rng.random((n_users, n_items)) < 0.2] = -np.inf
    return y_true, y_score


@pytest.mark.parametrize("metric", TOP_K_METRICS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("k", [1, 5, 50, 1000, None])
@pytest.mark.parametrize("ties", ["average", "stable", "pessimistic"])
@pytest.mark.parametrize("form", [sp.csr_matrix, sp.csc_array, sp.coo_matrix])
def test_sparse_y_true_equals_the_dense_matrix(metric, k, ties, form):
    y_true, y_score = implicit_feedback(k or 0)
    weight = np.random.default_rng(1).uniform(0.5, 2, y_true.shape[0])
    expected = metric(y_true.toarray(), y_score, k=k, ties=ties, average=False)
    np.testing.assert_allclose(metric(form(y_true), y_score, k=k, ties=ties, average=False), expected, rtol=1e-12)
    assert metric(form(y_true), y_score, k=k, ties=ties, sample_weight=weight) == pytest.approx(
        metric(y_true.toarray(), y_score, k=k, ties=ties, sample_weight=weight), rel=1e-12
    )


def test_sparse_report_ranks_only_what_the_cutoffs_see():
    y_true, y_score = implicit_feedback(3, n_users=50, n_items=20_000)
    names = ["ndcg@10", "map@10", "recall@20", "hit_rate@5"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        sparse_report = ranking_report(y_true, y_score, metrics=names, average=False)
        dense_report = ranking_report(y_true.toarray(), y_score, metrics=names, average=False)
    for name in names:
        np.testing.assert_allclose(sparse_report[name], dense_report[name], rtol=1e-12, err_msg=name)


def test_sparse_y_true_errors():
    y_true, y_score = implicit_feedback(0, n_users=5, n_items=6)
    with pytest.raises(ValueError, match="a sparse y_true is a users x items matrix"):
        ndcg_score(y_true, y_score[:, :5], k=3)
    negative = y_true.copy()
    negative.data[:] = -1
    with pytest.raises(ValueError, match="non-negative relevance labels"):
        ndcg_score(negative, y_score, k=3)


def test_hit_rate_with_a_tie_block_straddling_k_is_hypergeometric():
    # 2 relevant among 6 tied documents, 3 places: misses both with C(4, 3) / C(6, 3) = 4 / 20.
    assert hit_rate_score([1, 1, 0, 0, 0, 0], np.zeros(6), k=3) == pytest.approx(1 - 4 / 20, rel=1e-15)


def test_coverage_counts_items_shown_anywhere():
    item_id = ["a", "b", "c", "a", "b", "c"]
    assert catalog_coverage(item_id, [3, 2, 1, 1, 3, 2], qid=[1, 1, 1, 2, 2, 2], k=1) == pytest.approx(2 / 3)
    assert catalog_coverage(item_id, [3, 2, 1, 1, 3, 2], qid=[1, 1, 1, 2, 2, 2], k=2) == 1.0
    with_catalog = catalog_coverage(item_id, [3, 2, 1, 1, 3, 2], qid=[1, 1, 1, 2, 2, 2], k=1, catalog=list("abcd"))
    assert with_catalog == 0.5


def test_coverage_averages_ties_and_never_shows_unrecommended_items():
    # Two users, three tied items each, k=1: each item is shown by a user with chance 1/3.
    item_id, qid = ["a", "b", "c"] * 2, [1, 1, 1, 2, 2, 2]
    assert catalog_coverage(item_id, np.zeros(6), qid=qid, k=1) == pytest.approx(1 - (2 / 3) ** 2, rel=1e-15)
    assert catalog_coverage(item_id, np.zeros(6), qid=qid, k=1, ties="stable") == pytest.approx(1 / 3)
    assert catalog_coverage(["a", "b", "c"], [1, -np.inf, 1], k=3) == pytest.approx(2 / 3)


def test_coverage_errors():
    with pytest.raises(ValueError, match="'z', which is not in the catalog"):
        catalog_coverage(["a", "z"], [1, 2], catalog=["a", "b"])
    with pytest.raises(ValueError, match="k must be an integer >= 1"):
        catalog_coverage(["a"], [1], k=None)


def test_report_warns_how_many_queries_had_no_relevant_document():
    y_true = np.array([0, 0, 1, 0, 0, 0, 2, 1.0])
    qid = [1, 1, 2, 2, 3, 3, 4, 4]
    with pytest.warns(UndefinedMetricWarning, match=r"out of 4, scored zero_division.*ndcg@10: 2 \(scored 0\)"):
        ranking_report(y_true, np.arange(8.0), qid=qid, metrics=["ndcg@10", "map"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ranking_report(y_true, np.arange(8.0), qid=qid, metrics=["ndcg@10"], zero_division=np.nan)
        ranking_report(y_true, np.arange(8.0), qid=qid, metrics=["ndcg@10"], average=False)
