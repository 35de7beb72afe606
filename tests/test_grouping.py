"""The one-sort machinery: query codes, rank order, segments and the cascade kernels."""

import itertools
import math

import numpy as np
import pytest

from sklearn_rankmetrics import mean_average_precision_score, ndcg_score
from sklearn_rankmetrics._cascade import symmetric_means
from sklearn_rankmetrics._grouping import NUMPY, encode_qid, group_by_query, positions_in_segments, rank_order


def reference_order(codes, y_score):
    return np.lexsort((-y_score, codes))


@pytest.mark.parametrize(
    "qid",
    [
        np.array([5, 3, 5, 9, 3]),
        np.array([2**62, -(2**62), 0, 2**62, 7]),  # too sparse for the lookup table
        np.array(["b", "a", "b", "c", "a"]),
        np.array([1.5, -2.0, 1.5, 3.0, -2.0]),
        np.array([True, False, True, True, False]),
    ],
)
def test_codes_sort_like_the_query_ids(qid):
    codes = encode_qid(qid, len(qid))
    dense = np.unique(qid, return_inverse=True)[1]
    assert np.all(codes >= 0)
    np.testing.assert_array_equal(np.unique(codes, return_inverse=True)[1], dense)


@pytest.mark.parametrize(
    "n_queries, spread",
    [(50, 1), (50, 10_000), (70_000, 1), (70_000, 3)],  # one 16-bit pass, ranks of sparse codes, two passes
)
def test_group_by_query_is_a_stable_sort_of_the_codes(n_queries, spread):
    rng = np.random.default_rng(0)
    codes = (rng.integers(0, n_queries, 200_000) * spread).astype(np.int32)
    np.testing.assert_array_equal(group_by_query(codes), np.argsort(codes, kind="stable"))


def test_rank_order_falls_back_to_lexsort_when_the_combined_key_merges_scores():
    # Scores 1 ulp apart are merged by the single float key of a wide query range.
    rng = np.random.default_rng(0)
    codes = np.repeat(np.arange(1000), 4)
    y_score = 1.0 + rng.integers(0, 4, codes.size) * np.finfo(float).eps
    y_score[::97] = 1e6  # a wide span makes the merged key coarse
    order = rank_order(codes, y_score)[0]
    np.testing.assert_array_equal(order, reference_order(codes, y_score))


@pytest.mark.parametrize("seed", range(5))
def test_rank_order_is_stable_within_ties(seed):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 20, 500)
    y_score = rng.integers(0, 5, 500) / 7
    np.testing.assert_array_equal(rank_order(codes, y_score, ties="stable")[0], reference_order(codes, y_score))


def test_rank_order_puts_worst_or_best_label_first():
    codes = np.zeros(4, dtype=int)
    y_score = np.ones(4)
    y_true = np.array([1.0, 3.0, 0.0, 2.0])
    assert list(y_true[rank_order(codes, y_score, ties="pessimistic", y_true=y_true)[0]]) == [0, 1, 2, 3]
    assert list(y_true[rank_order(codes, y_score, ties="optimistic", y_true=y_true)[0]]) == [3, 2, 1, 0]


def test_metrics_are_exact_when_scores_differ_by_one_ulp():
    y_true = np.array([0, 1, 2, 0, 1.0])
    y_score = 1.0 + np.array([4, 3, 2, 1, 0]) * np.finfo(float).eps
    qid = np.array([0, 0, 0, 10**9, 10**9])
    expected_first = (0 + 1 / np.log2(3) + 2 / np.log2(4)) / (2 + 1 / np.log2(3))
    expected_second = (1 / np.log2(3)) / 1
    per_query = ndcg_score(y_true, y_score, qid=qid, average=False)
    np.testing.assert_allclose(per_query, [expected_first, expected_second], rtol=1e-15)


def test_positions_restart_at_each_segment():
    np.testing.assert_array_equal(positions_in_segments(np.array([0, 3, 4]), 7), [0, 1, 2, 0, 0, 1, 2])


def test_exclusive_cumprod_within_segments():
    rng = np.random.default_rng(1)
    sizes = rng.integers(1, 40, 30)
    starts = np.cumsum(sizes) - sizes
    values = rng.uniform(0, 1, sizes.sum())
    expected = np.concatenate(
        [np.cumprod(np.r_[1.0, values[s : s + n - 1]]) for s, n in zip(starts, sizes, strict=True)]
    )
    np.testing.assert_allclose(NUMPY.segment_exclusive_cumprod(values, starts), expected, rtol=1e-14)


def brute_symmetric_means(values, degree):
    return [
        np.mean([math.prod(subset) for subset in itertools.combinations(values, j)]) if j else 1.0
        for j in range(degree + 1)
    ]


def test_symmetric_means_equal_the_mean_over_subsets():
    rng = np.random.default_rng(2)
    sizes = np.array([3, 1, 7, 5, 7, 2])
    degrees = np.array([3, 1, 4, 5, 7, 0])
    values = rng.uniform(0, 1, sizes.sum())
    starts = np.cumsum(sizes) - sizes
    means = symmetric_means(values, starts, sizes, degrees.max() + 1)
    for row, start, size, degree in zip(means, starts, sizes, degrees, strict=True):
        expected = brute_symmetric_means(values[start : start + size], degree)
        np.testing.assert_allclose(row[: degree + 1], expected, rtol=1e-13)
        assert not row[size + 1 :].any()  # no subset above the block's size


def test_a_large_tie_block_is_exact_and_stable():
    # One query, 2000 tied documents, 10 of them relevant: AP is the mean over orderings.
    y_true = np.zeros(2000)
    y_true[:10] = 1
    ap = mean_average_precision_score(y_true, np.zeros(2000))
    # Expected AP of r relevant documents among m shuffled ones (Bestgen 2015):
    # (r - 1) / (m - 1) + (m - r) / (m - 1) * H_m / m
    m, r = 2000, 10
    harmonic = sum(1 / i for i in range(1, m + 1))
    assert ap == pytest.approx((r - 1) / (m - 1) + (m - r) / (m - 1) * harmonic / m, rel=1e-12)


@pytest.mark.parametrize("shuffled", [False, True])
@pytest.mark.parametrize("seed", range(5))
def test_sorting_in_parallel_chunks_of_queries_is_exact(monkeypatch, seed, shuffled):
    from sklearn_rankmetrics import _grouping

    monkeypatch.setattr(_grouping, "CHUNK_ROWS", 100)
    monkeypatch.setenv("RANKMETRICS_NUM_THREADS", "3")
    rng = np.random.default_rng(seed)
    codes = np.sort(rng.integers(0, 40, 400))
    y_score = rng.integers(0, 6, 400) / 7 + 1.0 + rng.integers(0, 3, 400) * np.finfo(float).eps
    y_score[::97] = 1e6  # scores 1 ulp apart then share a key and need the exact repair
    assert len(_grouping.query_chunks(codes)) - 1 >= 3  # several chunks of whole queries
    if shuffled:
        rows = rng.permutation(400)
        codes, y_score = codes[rows], y_score[rows]
    order, sorted_codes, changes = rank_order(codes, y_score, ties="stable")
    expected = reference_order(codes, y_score)
    np.testing.assert_array_equal(order, expected)
    np.testing.assert_array_equal(sorted_codes, codes[expected])
    ranked = y_score[expected]
    query_start = np.r_[True, sorted_codes[1:] != sorted_codes[:-1]]
    np.testing.assert_array_equal((changes | query_start)[1:], (ranked[1:] != ranked[:-1]) | query_start[1:])


@pytest.mark.parametrize(
    "labels",
    [[0.0, 3.0, 1.0, 3.0, 0.0], [0.5, 2.0], [-1.0, 2.0], [1023.0, 0.0], [2.0**60, 1.0], []],
)
def test_functions_of_labels_through_a_table_give_the_same_values(labels):
    from sklearn_rankmetrics._dcg import of_labels

    labels = np.array(labels)
    with np.errstate(over="ignore"):
        expected = np.exp2(labels) - 1.0
        np.testing.assert_array_equal(of_labels(lambda grade: np.exp2(grade) - 1.0, labels), expected)
