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
    get_ranking_scorer,
    hit_rate_score,
    mean_average_precision_score,
    mean_reciprocal_rank_score,
    ndcg_score,
    precision_at_k_score,
    ranking_report,
    recall_at_k_score,
)

import naive

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
    assert catalog_coverage([3, 2, 1, 1, 3, 2], item_id=item_id, qid=[1, 1, 1, 2, 2, 2], k=1) == pytest.approx(2 / 3)
    assert catalog_coverage([3, 2, 1, 1, 3, 2], item_id=item_id, qid=[1, 1, 1, 2, 2, 2], k=2) == 1.0
    qid = [1, 1, 1, 2, 2, 2]
    with_catalog = catalog_coverage([3, 2, 1, 1, 3, 2], item_id=item_id, qid=qid, k=1, catalog=list("abcd"))
    assert with_catalog == 0.5


def test_coverage_averages_ties_and_never_shows_unrecommended_items():
    # Two users, three tied items each, k=1: each item is shown by a user with chance 1/3.
    item_id, qid = ["a", "b", "c"] * 2, [1, 1, 1, 2, 2, 2]
    assert catalog_coverage(np.zeros(6), item_id=item_id, qid=qid, k=1) == pytest.approx(1 - (2 / 3) ** 2, rel=1e-15)
    assert catalog_coverage(np.zeros(6), item_id=item_id, qid=qid, k=1, ties="stable") == pytest.approx(1 / 3)
    assert catalog_coverage([1, -np.inf, 1], item_id=["a", "b", "c"], k=3) == pytest.approx(2 / 3)


def test_coverage_errors():
    with pytest.raises(ValueError, match="'z', which is not in the catalog"):
        catalog_coverage([1, 2], item_id=["a", "z"], catalog=["a", "b"])
    with pytest.raises(ValueError, match="k must be an integer >= 1"):
        catalog_coverage([1], item_id=["a"], k=None)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            {"item_id": [0, 1, 2], "y_score": [1.0, 2.0, 3.0], "qid": [0, 0]},
            "catalog_coverage got inconsistent numbers of rows: item_id has 3, y_score has 3, qid has 2. Give one "
            "item id, one score and one user id (qid) per (user, item) pair.",
        ),
        (
            {"item_id": [0, 1], "y_score": [1.0, 2.0, 3.0]},
            "catalog_coverage got inconsistent numbers of rows: item_id has 2, y_score has 3. Give one item id, one "
            "score and one user id (qid) per (user, item) pair.",
        ),
        (
            {"item_id": [0, None], "y_score": [1.0, 2.0], "qid": [0, 0]},
            "item_id has 1 missing value (None, NaN, NaT or NA), at row 1; every row needs an item id. Drop those "
            "rows or give them their item's id.",
        ),
        ({"y_score": [[3.0, 2.0]], "k": 0}, "k must be an integer >= 1; got 0."),
        ({"y_score": [[3.0, 2.0]], "k": None}, "k must be an integer >= 1; got None."),
        ({"y_score": [[3.0, 2.0]], "k": np.int64(0)}, "k must be an integer >= 1; got 0."),
        (
            {"y_score": [[np.nan, 2.0]]},
            "y_score contains NaN; every score must be finite, or -inf for an item not to recommend (already seen, "
            "filtered out). Drop or impute those rows first.",
        ),
        (
            {"item_id": [0, 1], "y_score": [np.nan, 2.0], "qid": [0, 0]},
            "y_score contains NaN; every score must be finite, or -inf for an item not to recommend (already seen, "
            "filtered out). Drop or impute those rows first.",
        ),
        (
            {"y_score": sp.csr_matrix(np.array([[np.inf, 2.0]]))},
            "y_score contains +inf; every score must be finite, or -inf for an item not to recommend (already seen, "
            "filtered out). Drop or impute those rows first.",
        ),
    ],
)
def test_coverage_errors_name_its_own_arguments(arguments, message):
    with pytest.raises(ValueError) as raised:
        catalog_coverage(**arguments)
    assert str(raised.value) == message


def naive_coverage(y_score, k, ties):
    """Coverage of a users x items matrix, user by user: each item's chance to be in the user's top k."""
    never = np.ones(y_score.shape[1])
    for row in y_score:
        chance = np.zeros(len(row))
        if ties == "average":
            kth = np.sort(row)[::-1][min(k, len(row)) - 1]
            above, tied = row > kth, row == kth
            chance[above] = 1.0
            if kth > -np.inf:
                chance[tied] = (min(k, len(row)) - above.sum()) / tied.sum()
        else:  # input order within ties: columns
            top = np.argsort(-row, kind="stable")[:k]
            chance[top[row[top] > -np.inf]] = 1.0
        never *= 1.0 - chance
    return np.mean(1.0 - never)


def score_matrix(seed, n_users=60, n_items=40):
    """Integer scores with many ties, -inf for items already seen, and a user with nothing to recommend."""
    y_score = implicit_feedback(seed, n_users, n_items)[1] - np.arange(n_items) % 5  # some items less popular
    y_score[3] = -np.inf
    return y_score


@pytest.mark.parametrize("k", [1, 3, 7, 39, 40, 100])
@pytest.mark.parametrize("ties", ["average", "stable"])
def test_coverage_of_a_score_matrix_matches_a_naive_loop(k, ties):
    y_score = score_matrix(k)
    expected = naive_coverage(y_score, k, ties)
    assert catalog_coverage(y_score=y_score, k=k, ties=ties) == pytest.approx(expected, rel=1e-12)
    # The same scores as (user, item) pairs, the long route.
    n_users, n_items = y_score.shape
    item_id, qid = np.tile(np.arange(n_items), n_users), np.repeat(np.arange(n_users), n_items)
    pairs = catalog_coverage(y_score.ravel(), item_id=item_id, qid=qid, k=k, ties=ties)
    assert pairs == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("form", [sp.csr_matrix, sp.csr_array, sp.csc_matrix, sp.coo_array])
@pytest.mark.parametrize("k", [1, 4, 12])
@pytest.mark.parametrize("ties", ["average", "stable"])
def test_a_sparse_score_matrix_shows_only_its_stored_entries(form, k, ties):
    rng = np.random.default_rng(k)
    stored = sp.random(50, 30, density=0.25, random_state=k, format="coo")
    stored.data = rng.integers(-3, 4, stored.nnz).astype(float)  # ties, negative scores, explicit zeros
    stored.data[::9] = -np.inf
    dense = np.full(stored.shape, -np.inf)
    dense[stored.row, stored.col] = stored.data
    expected = naive_coverage(dense, k, ties)
    assert catalog_coverage(y_score=form(stored), k=k, ties=ties) == pytest.approx(expected, rel=1e-12)


def test_a_sparse_score_matrix_is_read_as_scipy_reads_it_and_left_unchanged():
    # Unsorted columns and a duplicate entry (scipy sums duplicates): the stable order is the column order.
    indptr, indices, data = np.array([0, 3, 5]), np.array([2, 0, 1, 1, 1]), np.array([1.0, 1.0, 1.0, 0.5, 0.75])
    matrix = sp.csr_matrix((data, indices, indptr), shape=(2, 4))
    assert not matrix.has_canonical_format
    assert catalog_coverage(y_score=matrix, k=1, ties="stable") == 0.5  # items 0 and 1 of 4
    assert catalog_coverage(y_score=matrix, k=1) == pytest.approx((1 / 3 + 1 + 1 / 3) / 4, rel=1e-15)
    np.testing.assert_array_equal(matrix.indices, indices)
    np.testing.assert_array_equal(matrix.data, data)
    assert catalog_coverage(y_score=sp.csr_array((3, 5)), k=2) == 0.0  # nothing stored: nothing shown


def test_a_score_matrix_leaves_the_input_unchanged():
    y_score = score_matrix(0)
    copy = y_score.copy()
    catalog_coverage(y_score=y_score, k=5)
    np.testing.assert_array_equal(y_score, copy)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"y_score": np.zeros((2, 3)), "qid": [0, 1]}, ValueError, r"give qid=None and catalog=None \(got qid\)"),
        ({"y_score": np.zeros((2, 3)), "catalog": [0, 1, 2]}, ValueError, r"catalog=None \(got catalog\)"),
        ({"item_id": [0, 1], "y_score": np.zeros((2, 3))}, ValueError, "so item_id must be None"),
        ({"item_id": [0, 1], "y_score": sp.csr_array((2, 3))}, ValueError, "so item_id must be None"),
        ({"y_score": [1.0, 2.0]}, ValueError, r"y_score must be a users x items score matrix.*shape \(2,\)"),
        ({}, TypeError, "missing 1 required positional argument: 'y_score'"),
        ({"y_score": [[1.0, np.nan]]}, ValueError, "y_score contains NaN"),
        ({"y_score": sp.csr_array(np.array([[1.0, np.nan]]))}, ValueError, "y_score contains NaN"),
        ({"y_score": np.zeros((2, 0))}, ValueError, "y_score is empty"),
        ({"y_score": sp.csr_array((0, 3))}, ValueError, "y_score is empty"),
    ],
)
def test_score_matrix_errors(kwargs, error, message):
    with pytest.raises(error, match=message):
        catalog_coverage(**kwargs, k=2)


def test_capped_recall_divides_by_at_most_k():
    # User 1 has 5 relevant items and finds 2 in its top 3; user 2 has 1 and finds it; user 3 has none.
    y_true = [1, 0, 1, 1, 1, 1, 0, 1, 0, 0, 0, 0]
    y_score = [9, 8, 7, 6, 5, 4, 3, 2, 1, 3, 2, 1]
    qid = [1] * 6 + [2] * 3 + [3] * 3
    capped = recall_at_k_score(y_true, y_score, qid=qid, k=3, denominator="capped", average=False)
    np.testing.assert_allclose(capped, [2 / 3, 1.0, 0.0], rtol=1e-15)
    relevant = recall_at_k_score(y_true, y_score, qid=qid, k=3, average=False)
    np.testing.assert_allclose(relevant, [2 / 5, 1.0, 0.0], rtol=1e-15)
    for k in (None, 6):  # at or past every query's R: the two agree
        np.testing.assert_array_equal(
            recall_at_k_score(y_true, y_score, qid=qid, k=k, denominator="capped", average=False),
            recall_at_k_score(y_true, y_score, qid=qid, k=k, average=False),
        )
    with pytest.raises(ValueError, match="denominator must be one of 'relevant', 'capped'; got 'min'"):
        recall_at_k_score(y_true, y_score, qid=qid, k=3, denominator="min")


@pytest.mark.parametrize("k", [None, 1, 2, 3, 5])
@pytest.mark.parametrize("seed", range(10))
def test_capped_recall_equals_the_mean_over_all_orderings_of_ties(k, seed):
    rng = np.random.default_rng(seed)
    qid = rng.integers(0, 3, 9)
    y_true = rng.integers(0, 3, 9).astype(float)
    y_score = rng.integers(0, 3, 9).astype(float)
    expected = naive.grouped(naive.recall, y_true, y_score, qid, k=k, denominator="capped")
    ours = recall_at_k_score(y_true, y_score, qid=qid, k=k, denominator="capped", average=False)
    np.testing.assert_allclose(ours, expected, rtol=1e-12, atol=1e-14)


def test_capped_recall_by_name_in_scorers_reports_and_sparse_labels():
    scorer = get_ranking_scorer("recall@10(denominator='capped')")
    assert repr(scorer) == "recall@10(denominator='capped')"
    assert get_ranking_scorer(repr(scorer)) == scorer
    y_true, y_score = implicit_feedback(5)
    expected = recall_at_k_score(y_true.toarray(), y_score, k=10, denominator="capped", average=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        report = ranking_report(y_true, y_score, metrics=["recall@10(denominator='capped')"], average=False)
    np.testing.assert_allclose(report["recall@10(denominator='capped')"], expected, rtol=1e-12)
    np.testing.assert_allclose(
        recall_at_k_score(y_true, y_score, k=10, denominator="capped", average=False), expected, rtol=1e-12
    )


def test_report_warns_how_many_queries_had_no_relevant_document():
    y_true = np.array([0, 0, 1, 0, 0, 0, 2, 1.0])
    qid = [1, 1, 2, 2, 3, 3, 4, 4]
    with pytest.warns(UndefinedMetricWarning, match=r"out of 4, scored zero_division.*ndcg@10: 2 \(scored 0\)"):
        ranking_report(y_true, np.arange(8.0), qid=qid, metrics=["ndcg@10", "map"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ranking_report(y_true, np.arange(8.0), qid=qid, metrics=["ndcg@10"], zero_division=np.nan)
        ranking_report(y_true, np.arange(8.0), qid=qid, metrics=["ndcg@10"], average=False)
