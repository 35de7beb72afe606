"""Recommender evaluation at 10,000 users x 1,000 items (10M scores): catalogue coverage and a report.

    python benchmarks/bench_recommenders.py

catalog_coverage on the users x items score matrix (dense, and sparse with 10M stored entries) against
the same scores unfolded into 10M (user, item) pairs, and against plain numpy on tie-free scores (the
items of each row's np.argpartition top k); beside them, the time of a four-metric ranking_report on
the same matrix, which coverage should not dwarf (issue #25). Medians of 3 runs.
"""

import time

import numpy as np
import scipy.sparse as sp

import sklearn_rankmetrics as rm

N_USERS, N_ITEMS, K = 10_000, 1_000, 10


def timed(function, *args, repeat=3, **kwargs):
    """The value of ``function(*args, **kwargs)`` and the median of ``repeat`` timings of it."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        value = function(*args, **kwargs)
        times.append(time.perf_counter() - start)
    return value, float(np.median(times))


def numpy_coverage(scores, k):
    """Tie-free scores: the share of the items in some row's top k (-inf never shown)."""
    top = np.argpartition(-scores, k - 1, axis=1)[:, :k]
    shown = top[np.take_along_axis(scores, top, axis=1) > -np.inf]
    return np.unique(shown).size / scores.shape[1]


def main():
    rng = np.random.default_rng(0)
    popularity = np.linspace(3, -3, N_ITEMS)  # a long tail: not every item reaches a top 10
    scores = rng.normal(size=(N_USERS, N_ITEMS)) + popularity
    seen = rng.random(scores.shape) < 0.05
    scores[seen] = -np.inf  # already seen: never recommended
    held_out = sp.csr_array(rng.random(scores.shape) < 0.01)

    matrix, matrix_time = timed(rm.catalog_coverage, y_score=scores, k=K)
    print(f"{N_USERS} users x {N_ITEMS} items, coverage@{K} = {matrix:.4f}")
    print(f"  score matrix (dense):    {matrix_time:6.3f} s")
    every_column = np.tile(np.arange(N_ITEMS), N_USERS)
    stored = sp.csr_array((scores.ravel(), every_column, np.arange(0, scores.size + 1, N_ITEMS)), shape=scores.shape)
    value, sparse_time = timed(rm.catalog_coverage, y_score=stored, k=K)
    assert value == matrix, (value, matrix)
    print(f"  score matrix (sparse):   {sparse_time:6.3f} s   ({stored.nnz:,} stored entries)")
    user_id = np.repeat(np.arange(N_USERS), N_ITEMS)
    value, pairs_time = timed(rm.catalog_coverage, every_column, scores.ravel(), qid=user_id, k=K)
    assert value == matrix, (value, matrix)
    print(f"  (user, item) pairs:      {pairs_time:6.3f} s   {pairs_time / matrix_time:5.1f}x the matrix")
    value, numpy_time = timed(numpy_coverage, scores, K)
    assert value == matrix, (value, matrix)
    print(f"  numpy argpartition:      {numpy_time:6.3f} s   {numpy_time / matrix_time:5.1f}x the matrix")
    metrics = ["ndcg@10", "recall@10(denominator='capped')", "map@10", "hit_rate@10"]
    _, report_time = timed(rm.ranking_report, held_out, scores, metrics=metrics, zero_division=np.nan)
    share = matrix_time / report_time
    print(f"  ranking_report, {len(metrics)} metrics: {report_time:6.3f} s   (coverage takes {share:.2f}x its time)")


if __name__ == "__main__":
    main()
