"""Issue #36, item 13: many systems. The pairs are streamed in blocks, so memory stays bounded as systems grow
(a t-test of 150 systems on 30 queries held every pair's 10,000 bootstrap resamples at once: 1.8 GB), and the
blocks change no number."""

import tracemalloc
import warnings

import numpy as np
import pytest

from sklearn_rankmetrics import compare_rankings
from sklearn_rankmetrics.stats import _pair_rows

pytest.importorskip("pandas")


def systems(n_systems, n_queries=30, docs=6, seed=0):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), docs)
    y_true = rng.integers(0, 3, qid.size)
    scores = {f"s{i}": 0.05 * i * y_true + rng.normal(size=qid.size) for i in range(n_systems)}
    return y_true, scores, qid


def quietly(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def working_memory(n_systems, n_resamples):
    """Peak traced memory of a comparison, less what its result still holds afterwards, in bytes."""
    y_true, scores, qid = systems(n_systems)
    tracemalloc.start()
    try:
        result = quietly(compare_rankings, y_true, scores, qid=qid, test="t-test", n_resamples=n_resamples)
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(result.rows) == 1 + n_systems * (n_systems - 1) // 2
    return peak - held


def test_memory_stays_bounded_as_systems_grow(monkeypatch):
    # Blocks of at most 2**16 resampled numbers (512 kB): what remains grows with the systems (their resampled
    # means, 2,000 x k), not with the pairs. One array of every pair's resamples would take 2,000 x 4,950 x 8 bytes
    # = 79 MB at 100 systems; the former code peaked at 170 MB there.
    monkeypatch.setattr(_pair_rows, "PAIR_CHUNK", 2**16)
    n_resamples = 2000
    small, large = working_memory(25, n_resamples), working_memory(100, n_resamples)
    every_pair = n_resamples * (100 * 99 // 2) * 8
    assert large < 12 * 2**20 and large < every_pair / 6, (small, large)
    assert large < 4 * small, (small, large)  # 16.5 times the pairs, 4 times the systems


TESTS = [
    {"test": "randomization"},  # 2**30 sign vectors: sampled
    {"test": "randomization", "n_queries": 8},  # 256 <= 499: enumerated
    {"test": "randomization", "correction": "maxT"},
    {"test": "t-test"},
    {"test": "wilcoxon"},
    {"test": "bootstrap"},
    {"test": "bootstrap", "n_queries": 10},  # with the exact randomization floor
    {"test": "tukey-hsd", "n_systems": 5},  # scipy's studentized range takes 30 ms a p-value
    {"test": "randomized-tukey-hsd"},
]


@pytest.mark.parametrize("case", TESTS, ids=lambda case: "-".join(map(str, case.values())))
def test_results_are_bit_identical_whatever_the_blocks_of_pairs(monkeypatch, case):
    # One pair per block, four, and every pair in one block (the unblocked computation): the same frame, bit for
    # bit, for the same random_state.
    case = dict(case)
    n_systems = case.pop("n_systems", 12)
    y_true, scores, qid = systems(n_systems, n_queries=case.pop("n_queries", 30))
    arguments = {"qid": qid, "metrics": ["ndcg@5", "mrr"], "random_state": 3, "n_resamples": 499, **case}
    frames = []
    for width in (1, 4, 10**6):
        monkeypatch.setattr(_pair_rows, "PAIR_CHUNK", 499 * width)
        frames.append(quietly(compare_rankings, y_true, scores, **arguments).to_frame(kind="rows"))
    assert len(frames[0]) == 2 * (1 + n_systems * (n_systems - 1) // 2)
    assert frames[0].equals(frames[2]) and frames[1].equals(frames[2])
