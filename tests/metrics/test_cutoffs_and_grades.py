"""Reciprocal rank at a cutoff on distinct scores, and fractional grades in the ideal DCG (issue 36, item 18).

The oracle tests draw tied and distinct scores, whole and fractional labels
(tests/naive.py's ``random_queries``, tests/strategies.py); these are the
boundary cases by hand.
"""

import math

import numpy as np
import pytest

from sklearn_rankmetrics import (
    dcg_score,
    get_ranking_scorer,
    mean_reciprocal_rank_score,
    ndcg_score,
    ranking_report,
)

import naive


def in_rank_order(labels):
    """Distinct scores that rank ``labels`` in the order given (first highest)."""
    return np.arange(len(labels), 0, -1, dtype=float)


@pytest.mark.parametrize(
    ("labels", "k", "expected"),
    [
        ([1, 0, 0], 1, 1.0),  # the first relevant document at rank 1, k = 1
        ([0, 1, 0], 1, 0.0),  # at rank 2, k = 1: past the cutoff
        ([0, 1, 0], 2, 1 / 2),  # at rank k exactly
        ([0, 0, 1], 2, 0.0),  # at rank k + 1
        ([0, 0, 1], 3, 1 / 3),  # at rank k, the last document
        ([0, 0, 1], 4, 1 / 3),  # k past the list
        ([0, 1, 1], 2, 1 / 2),  # only the first relevant document counts
        ([0, 0, 0, 0, 0, 1], 5, 0.0),
        ([0, 0, 0, 0, 0, 1], 6, 1 / 6),
        ([0, 0, 0, 0, 0, 1], None, 1 / 6),
    ],
)
def test_reciprocal_rank_at_k_on_distinct_scores_stops_at_rank_k(labels, k, expected):
    y_score = in_rank_order(labels)
    assert mean_reciprocal_rank_score(labels, y_score, k=k) == expected
    assert naive.reciprocal_rank(labels, k=k) == pytest.approx(expected, abs=0)
    name = "mrr" if k is None else f"mrr@{k}"
    assert ranking_report(labels, y_score, metrics=[name])[name] == expected  # the shared kernel's route
    assert get_ranking_scorer(name)._score_func(labels, y_score, **get_ranking_scorer(name)._kwargs) == expected


def test_reciprocal_rank_at_k_of_many_queries_at_once():
    # Each query's first relevant document at rank 1 .. 6, every k from 1 to 7: 1 / rank up to rank k, else 0.
    first = np.arange(1, 7)
    qid = np.repeat(first, 6)
    y_true = (np.tile(np.arange(1, 7), 6) >= qid).astype(float)  # relevant from rank qid on
    y_score = np.tile(np.arange(6, 0, -1), 6).astype(float)
    for k in range(1, 8):
        expected = np.where(first <= k, 1.0 / first, 0.0)
        np.testing.assert_array_equal(
            mean_reciprocal_rank_score(y_true, y_score, qid=qid, k=k, average=False), expected
        )


def test_reciprocal_rank_at_k_skips_a_relevant_document_not_retrieved():
    # The relevant document scored -inf has no rank: the first retrieved relevant one is at rank 3.
    y_true, y_score = [1, 0, 0, 1], [-np.inf, 3.0, 2.0, 1.0]
    assert mean_reciprocal_rank_score(y_true, y_score, k=2) == 0.0
    assert mean_reciprocal_rank_score(y_true, y_score, k=3) == 1 / 3


def test_ideal_dcg_sorts_fractional_grades():
    # Grades 0.5, 2.25, 0, 1.5 in rank order; the ideal ranking is 2.25, 1.5, 0.5, 0.
    labels = [0.5, 2.25, 0.0, 1.5]
    y_score = in_rank_order(labels)
    discount = 1.0 / np.log2(np.arange(2, 6))
    for k in (1, 2, 3, None):
        top = 4 if k is None else k
        dcg = float(np.dot(labels[:top], discount[:top]))
        ideal = float(np.dot([2.25, 1.5, 0.5, 0.0][:top], discount[:top]))
        assert dcg_score(labels, y_score, k=k) == pytest.approx(dcg, rel=1e-15)
        assert ndcg_score(labels, y_score, k=k) == pytest.approx(dcg / ideal, rel=1e-15)
    exponential = [2**0.5 - 1, 2**2.25 - 1, 0.0, 2**1.5 - 1]
    ideal = sorted(exponential, reverse=True)
    expected = sum(g / math.log2(r + 2) for r, g in enumerate(exponential[:2])) / sum(
        g / math.log2(r + 2) for r, g in enumerate(ideal[:2])
    )
    assert ndcg_score(labels, y_score, k=2, gain="exponential") == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("gain", ["linear", "exponential"])
def test_ndcg_of_fractional_grades_equals_the_oracle(seed, gain):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(6), rng.integers(1, 9, 6))
    y_true = rng.choice(naive.FRACTIONAL_GRADES, len(qid))
    y_score = rng.permutation(len(qid)).astype(float) if seed % 2 else rng.integers(0, 3, len(qid)).astype(float)
    y_score[rng.random(len(qid)) < 0.15] = -np.inf  # judged, not retrieved: in the ideal ranking only
    for k in (None, 1, 2, 4):
        ours = ndcg_score(y_true, y_score, qid=qid, k=k, gain=gain, average=False)
        expected = []
        for q in np.unique(qid):
            rows = qid == q
            labels, scores = y_true[rows], y_score[rows]
            retrieved = scores > -np.inf
            ideal = naive.dcg(sorted(labels, reverse=True), k, gain)
            if ideal == 0:
                expected.append(0.0)
                continue
            value = naive.tie_averaged(naive.dcg, list(labels[retrieved]), list(scores[retrieved]), k=k, gain_kind=gain)
            expected.append((value or 0.0) / ideal)
        np.testing.assert_allclose(ours, expected, rtol=1e-12, atol=1e-15, err_msg=f"k={k}")
