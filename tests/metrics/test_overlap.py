"""Rank-biased overlap between two rankings, and compatibility with large tie blocks: exact tie expectations."""

import itertools
from collections import Counter

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_rankmetrics.metrics._overlap import compatibility_score, rank_biased_overlap

import naive


def listed_orderings(scores):
    """Every list a system's scores can give: retrieved rows (score above -inf) by descending score, ties permuted."""
    blocks = {}
    for row, score in enumerate(scores):
        if score > -np.inf:
            blocks.setdefault(score, []).append(row)
    per_block = [list(itertools.permutations(blocks[score])) for score in sorted(blocks, reverse=True)]
    for combination in itertools.product(*per_block):
        yield [row for block in combination for row in block]


def extrapolated_rbo(first, second, p):
    """Webber et al.'s eq. 32, straight from its definition (two empty lists 1, one empty list 0)."""
    if not first or not second:
        return float(not first and not second)
    short, long = sorted((first, second), key=len)
    s, length = len(short), len(long)
    overlap = [len(set(short[:d]) & set(long[:d])) for d in range(length + 1)]
    total = sum(overlap[d] / d * p**d for d in range(1, length + 1))
    total += sum(overlap[s] * (d - s) / (s * d) * p**d for d in range(s + 1, length + 1))
    return (1 - p) / p * total + ((overlap[length] - overlap[s]) / length + overlap[s] / s) * p**length


@pytest.mark.parametrize("seed", range(60))
def test_rbo_with_ties_averaged_is_the_mean_over_both_lists_orderings(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 7))
    qid = rng.integers(0, 2, n)
    a, b = rng.integers(0, 3, n).astype(float), rng.integers(0, 4, n).astype(float)
    a[rng.random(n) < 0.2] = -np.inf
    b[rng.random(n) < 0.2] = -np.inf
    p, k = [0.9, 0.5, 0.98][seed % 3], [None, 1, 2, 4][seed % 4]
    expected = []
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        values = [
            extrapolated_rbo(first[:k], second[:k], p)
            for first in listed_orderings(a[rows])
            for second in listed_orderings(b[rows])
        ]
        expected.append(np.mean(values))
    ours = rank_biased_overlap(a, b, qid=qid, p=p, k=k, average=False)
    np.testing.assert_allclose(ours, expected, rtol=1e-12, atol=1e-15)


def test_rbo_is_symmetric_and_one_for_equal_lists():
    rng = np.random.default_rng(0)
    qid = rng.integers(0, 10, 500)
    a, b = rng.integers(0, 20, 500).astype(float), rng.integers(0, 20, 500).astype(float)
    np.testing.assert_allclose(
        rank_biased_overlap(a, b, qid=qid, average=False), rank_biased_overlap(b, a, qid=qid, average=False), rtol=1e-13
    )
    # Each system orders its own ties: equal rankings with ties agree only where they break them alike.
    assert rank_biased_overlap(a, a, qid=qid, ties="stable") == pytest.approx(1.0, rel=1e-14)
    assert rank_biased_overlap(a, a, qid=qid) < 1.0
    distinct = rng.permutation(500).astype(float)
    assert rank_biased_overlap(distinct, distinct, qid=qid) == pytest.approx(1.0, rel=1e-14)


def test_rbo_of_empty_lists():
    # Two empty lists agree (1); an empty and a non-empty one do not (0), as the rbo package.
    minus = -np.inf
    values = rank_biased_overlap([minus, minus, 1, 2], [minus, minus, minus, 1], qid=[0, 0, 1, 1], average=False)
    assert values[0] == 1.0
    assert values[1] == pytest.approx(extrapolated_rbo([3, 2], [3], 0.9), rel=1e-14)
    assert rank_biased_overlap([1.0, minus], [minus, minus]) == 0.0


def test_rbo_layouts_weights_and_evaluation_depth():
    rng = np.random.default_rng(1)
    a, b = rng.random((4, 6)), rng.random((4, 6))
    qid = np.repeat(np.arange(4), 6)
    per_query = rank_biased_overlap(a, b, average=False)
    np.testing.assert_allclose(per_query, rank_biased_overlap(a.ravel(), b.ravel(), qid=qid, average=False))
    weight = np.array([1.0, 2.0, 0.0, 3.0])
    assert rank_biased_overlap(a, b, sample_weight=weight) == pytest.approx(np.average(per_query, weights=weight))
    # k compares the top k of each list: the same as lists cut at k.
    cut_a, cut_b = np.where(a >= np.sort(a)[:, -2:-1], a, -np.inf), np.where(b >= np.sort(b)[:, -2:-1], b, -np.inf)
    np.testing.assert_allclose(
        rank_biased_overlap(a, b, k=2, average=False), rank_biased_overlap(cut_a, cut_b, average=False)
    )


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        ({"y_score_b": [0.1, 0.2]}, ValueError, r"y_score_a and y_score_b must have the same shape.*\(3,\) and \(2,\)"),
        ({"y_score_b": [0.1, np.nan, 0.2]}, ValueError, "y_score_b contains NaN"),
        (
            {"y_score_a": [0.1, np.inf, 0.2]},
            ValueError,
            r"y_score_a contains \+inf.*-inf for a document that the system",
        ),
        ({"p": 1.0}, ValueError, "p must be below 1"),
        ({"p": 0.0}, ValueError, r"p must be in \(0, 1\)"),
        ({"k": 0}, ValueError, "k must be None or an integer >= 1; got 0"),
        ({"ties": "random"}, ValueError, "ties must be one of"),
        ({"average": "no"}, TypeError, "average must be True or False"),
        ({"qid": [1, 1]}, ValueError, "qid has 2 values but y_true has 3 rows"),
    ],
)
def test_rbo_bad_input_raises_a_clear_error(arguments, error, message):
    options = {"y_score_a": [0.3, 0.2, 0.1], "y_score_b": [0.1, 0.2, 0.3], **arguments}
    with pytest.raises(error, match=message):
        rank_biased_overlap(options.pop("y_score_a"), options.pop("y_score_b"), **options)


def multiset_orderings(labels):
    """The distinct orderings of a multiset of labels (each stands for the same number of permutations)."""
    counts = Counter(labels)
    ordering = []

    def extend():
        if len(ordering) == len(labels):
            yield list(ordering)
            return
        for label in sorted(counts):
            if counts[label]:
                counts[label] -= 1
                ordering.append(label)
                yield from extend()
                ordering.pop()
                counts[label] += 1

    yield from extend()


def test_compatibility_of_a_large_tie_block_is_the_mean_over_its_orderings(p=0.8):
    # A block of 11 tied rows with labels of three kinds (27,720 distinct orderings) between two distinct rows,
    # so that the hypergeometric laws of the block's places matter at many depths.
    block = [2, 2, 2, 1, 1, 1, 1, 0, 0, 0, 3]
    y_true = np.array([1.0, *block, 2.0])
    y_score = np.array([3.0, *[2.0] * len(block), 1.0])
    values = [naive.compatibility([1.0, *ordering, 2.0], p=p) for ordering in multiset_orderings(block)]
    assert compatibility_score(y_true, y_score, p=p) == pytest.approx(np.mean(values), rel=1e-12)
    unnormalised = [
        naive.compatibility([1.0, *ordering, 2.0], p=p, normalize=False) for ordering in multiset_orderings(block)
    ]
    assert compatibility_score(y_true, y_score, p=p, normalize=False) == pytest.approx(np.mean(unnormalised), rel=1e-12)


def test_compatibility_counts_relevant_documents_that_were_not_retrieved():
    # The ranking d0 (label 2), d1 (0), d2 (1); the ideal d0, then the retrieved d2, then d3 (1, not retrieved).
    # Overlaps at depths 1 to 3: 1, 1, 2; the ideal ranking's own: 1, 2, 3.
    y_true, y_score = [2.0, 0.0, 1.0, 1.0], [3.0, 2.0, 1.0, -np.inf]
    overlaps, ideal_overlaps = [1, 1, 2], [1, 2, 3]
    weights = 0.5 ** np.arange(3)
    expected = np.sum(weights * np.divide(overlaps, [1, 2, 3])) / np.sum(weights * np.divide(ideal_overlaps, [1, 2, 3]))
    assert compatibility_score(y_true, y_score, p=0.5) == pytest.approx(expected, rel=1e-15)


def test_rbo_with_every_weight_zero_warns_of_the_weights_not_of_zero_division():
    # RBO has no undefined query and no zero_division: only the weights can leave the mean undefined.
    a, b = np.array([4, 3, 2, 1.0]), np.array([1, 2, 3, 4.0])
    with pytest.warns(UndefinedMetricWarning, match="sample_weight gives every query a weight of 0") as record:
        assert np.isnan(rank_biased_overlap(np.r_[a, a], np.r_[b, a], qid=[1] * 4 + [2] * 4, sample_weight=[0] * 8))
    assert not any("zero_division" in str(warning.message) for warning in record)
    values = rank_biased_overlap(np.r_[a, a], np.r_[b, a], qid=[1] * 4 + [2] * 4, sample_weight=[0] * 8, average=False)
    np.testing.assert_allclose(values, [rank_biased_overlap(a, b), 1.0])
