"""Tie blocks of any size: the exact mean over the orderings stays exact past a thousand rows (issue 36, item 1).

The symmetric means of a block's continuation probabilities once ran through
factors j / (n - j + 1), up to n: past a thousand rows, a mean that had
underflowed came back amplified (ERR -4.3e21 for one block of 1,200 rows).
Two references: the exact mean of ERR over the orderings of a block of two
labels, summed over the hypergeometric law of the labels above each rank
(in log space, positive terms only); and the mean over sampled orderings.
"""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.special import gammaln

from sklearn_rankmetrics import (
    alpha_ndcg_score,
    expected_reciprocal_rank_score,
    normalized_err_score,
    normalized_intent_aware_err_score,
)


def exact_tied_err(counts, labels, max_grade, k=None):
    """ERR's mean over the orderings of one block of ``counts[i]`` rows of ``labels[i]`` (two labels).

    At rank r, a of the r - 1 rows above hold the first label with the
    hypergeometric probability C(c1, a) C(c2, r - 1 - a) / C(n, r - 1); the
    row at r holds label t with chance (c_t - above_t) / (n - r + 1).
    """
    (c1, c2), stop = counts, (2.0 ** np.asarray(labels, dtype=float) - 1.0) / 2.0**max_grade
    n = c1 + c2
    total = 0.0
    for r in range(1, (n if k is None else min(k, n)) + 1):
        a = np.arange(max(0, r - 1 - c2), min(c1, r - 1) + 1)
        b = r - 1 - a
        log_law = (
            gammaln(c1 + 1) - gammaln(a + 1) - gammaln(c1 - a + 1)
            + gammaln(c2 + 1) - gammaln(b + 1) - gammaln(c2 - b + 1)
            - (gammaln(n + 1) - gammaln(r) - gammaln(n - r + 2))
        )  # fmt: skip
        with np.errstate(divide="ignore"):
            log_reach = log_law + a * np.log1p(-stop[0]) + b * np.log1p(-stop[1])
        here = ((c1 - a) * stop[0] + (c2 - b) * stop[1]) / (n - r + 1)
        total += np.sum(np.exp(log_reach) * here) / r
    return total


def ideal_err(counts, labels, max_grade, k=None):
    """ERR of the block's rows sorted by label, best first (no ties in the ideal)."""
    rows = np.repeat(np.asarray(labels, dtype=float), counts)
    stops = (2.0 ** np.sort(rows)[::-1] - 1.0) / 2.0**max_grade
    stops = stops[:k]
    reach = np.concatenate(([1.0], np.cumprod(1.0 - stops)[:-1]))
    return float(np.sum(reach * stops / np.arange(1, len(stops) + 1)))


def sampled_err(labels, max_grade, n_orderings, seed, k=None, above=()):
    """ERR of ``n_orderings`` random orderings of ``labels`` below the rows ``above`` (in their order): the mean
    and its standard error."""
    rng = np.random.default_rng(seed)
    stops = (2.0 ** np.asarray(labels, dtype=float) - 1.0) / 2.0**max_grade
    fixed = (2.0 ** np.asarray(above, dtype=float) - 1.0) / 2.0**max_grade
    values = []
    for _ in range(0, n_orderings, 1000):
        block = stops[np.argsort(rng.random((1000, len(stops))), axis=1)]
        ordered = np.c_[np.broadcast_to(fixed, (1000, len(fixed))), block][:, :k]
        reach = np.cumprod(np.c_[np.ones(len(ordered)), 1.0 - ordered[:, :-1]], axis=1)
        values.append(np.sum(reach * ordered / np.arange(1, ordered.shape[1] + 1), axis=1))
    values = np.concatenate(values)[:n_orderings]
    return values.mean(), values.std(ddof=1) / np.sqrt(len(values))


def test_err_and_nerr_of_the_issues_block_of_1200_tied_rows():
    # 600 rows of label 1 and 600 of label 2, all tied, max_grade=10: ERR 0.0121486, nERR 0.713406.
    y_true, y_score = np.repeat([1.0, 2.0], 600), np.zeros(1200)
    err = expected_reciprocal_rank_score(y_true, y_score, max_grade=10)
    nerr = normalized_err_score(y_true, y_score, max_grade=10)
    exact = exact_tied_err((600, 600), (1, 2), 10)
    assert err == pytest.approx(exact, rel=1e-12)
    assert nerr == pytest.approx(exact / ideal_err((600, 600), (1, 2), 10), rel=1e-12)
    assert round(err, 7) == 0.0121486 and round(nerr, 6) == 0.713406
    mean, error = sampled_err(y_true, 10, 20_000, seed=0)
    assert abs(err - mean) < 5 * error


@pytest.mark.parametrize("size", [2, 100, 1000, 1001, 2000])
def test_err_of_a_tie_block_is_exact_at_every_size(size):
    half = size // 2
    y_true, y_score = np.repeat([1.0, 3.0], [half, size - half]), np.zeros(size)
    for max_grade, k in ((3, None), (10, None), (10, 50), (12, 2 * size)):
        exact = exact_tied_err((half, size - half), (1, 3), max_grade, k)
        value = expected_reciprocal_rank_score(y_true, y_score, max_grade=max_grade, k=k)
        assert value == pytest.approx(exact, rel=1e-11), (max_grade, k)


@pytest.mark.parametrize(
    ("counts", "max_grade", "k", "above"),
    [((600, 600), 10, 600, ()), ((699, 700), 8, 700, ()), ((697, 698), 12, 700, (2, 0))],
)
def test_err_of_a_tie_block_cut_at_its_most_frequent_labels_count_is_exact(counts, max_grade, k, above):
    # A cutoff at as many places as the block's most frequent label has rows: C(600, 600) / C(1200, 600), the
    # first hypergeometric law of the labels drawn above it, is 1e-360 and underflowed. ERR@600 came out above ERR
    # (0.012418 against 0.011885 exact); two documents above gave 0.00445 where every ordering averages 0.00333.
    y_true = np.repeat([1.0, 2.0], counts)
    if not above:
        value = expected_reciprocal_rank_score(y_true, np.zeros(len(y_true)), max_grade=max_grade, k=k)
        assert value == pytest.approx(exact_tied_err(counts, (1, 2), max_grade, k), rel=1e-11)
        assert value < expected_reciprocal_rank_score(y_true, np.zeros(len(y_true)), max_grade=max_grade)
        nerr = normalized_err_score(y_true, np.zeros(len(y_true)), max_grade=max_grade, k=k)
        assert nerr == pytest.approx(value / ideal_err(counts, (1, 2), max_grade, k), rel=1e-11)
        return
    scores = np.r_[2.0, 1.0, np.zeros(len(y_true))]
    value = expected_reciprocal_rank_score(np.r_[above, y_true], scores, max_grade=max_grade, k=k)
    mean, error = sampled_err(y_true, max_grade, 20_000, seed=0, k=k, above=above)
    assert abs(value - mean) < 5 * error


# derandomize: the same examples on every run (a run under load once drew the cutoff above, then wrong); the
# examples pin the cases that found it.
@settings(max_examples=4, deadline=None, derandomize=True)
@example(size=1399, share=0.5, labels=(1, 2), max_grade=8, k=700)
@example(size=1395, share=0.5, labels=(1, 2), max_grade=12, k=700)
@given(
    size=st.integers(1001, 2500),
    share=st.floats(0.05, 0.95),
    labels=st.sampled_from([(1, 2), (0, 1), (1, 4), (2, 3)]),
    max_grade=st.sampled_from([4, 8, 12]),
    k=st.sampled_from([None, 20, 700]),
)
def test_large_tie_blocks_agree_with_the_exact_mean_and_sampled_orderings(size, share, labels, max_grade, k):
    counts = (int(size * share), size - int(size * share))
    y_true = np.repeat(np.asarray(labels, dtype=float), counts)
    alone = expected_reciprocal_rank_score(y_true, np.zeros(size), max_grade=max_grade, k=k)
    assert alone == pytest.approx(exact_tied_err(counts, labels, max_grade, k), rel=1e-10, abs=1e-15)
    # The block below two distinct documents, as in a real ranking: against its orderings, sampled.
    above = (max(labels), 0.0)
    value = expected_reciprocal_rank_score(
        np.r_[above, y_true], np.r_[2.0, 1.0, np.zeros(size)], max_grade=max_grade, k=k
    )
    mean, error = sampled_err(y_true, max_grade, 4_000, seed=size, k=k, above=above)
    assert 0.0 <= value <= 1.0 and abs(value - mean) < 5 * error + 1e-12


@pytest.mark.parametrize("metric", [alpha_ndcg_score, normalized_intent_aware_err_score])
def test_diversity_measures_on_a_large_tie_block_agree_with_sampled_orderings(metric):
    rng = np.random.default_rng(0)
    n = 1300
    judgements = (rng.random((n, 3)) < 0.4).astype(float)
    value = metric(judgements, np.zeros(n), k=20, ties="average")
    samples = [metric(judgements, rng.permutation(n).astype(float), k=20) for _ in range(200)]
    assert 0.0 <= value <= 1.0
    assert abs(value - np.mean(samples)) < 5 * np.std(samples, ddof=1) / np.sqrt(len(samples))
