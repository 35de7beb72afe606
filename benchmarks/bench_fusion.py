"""Rank fusion against ranx: 1,000 queries x 1,000 documents x 5 runs, side by side, and the memory it takes.

    python benchmarks/bench_fusion.py [--queries 1000] [--docs 1000] [--runs 5] [--repeats 3] [--methods ...]

Five runs of each query draw their documents from a pool three times their
depth (so the runs overlap, as a lexical and dense retrievers' do), with
distinct random scores. Each tool fuses its own in-memory runs (ranx's
``Run``, ours :class:`~sklearn_rankmetrics.trec.Run`; building them is not
timed): ``ranx.fuse(runs, norm, method)`` against
:func:`sklearn_rankmetrics.fusion.fuse` with the same normalisation and
method. ranx compiles its numba functions on a first call (or loads them
from its cache): that first call, on two tiny runs, is timed apart and
reported. Every timing is the best of ``--repeats``, the tools taken in
turn, in wall-clock seconds and in CPU seconds (summed over threads: ours
sorts in several; on a shared, loaded machine the CPU ratio is the steadier
one); the load average is printed; the fused scores are checked to agree
(max abs difference).

Memory: the peak of numpy's allocations during one fusion (tracemalloc),
divided by the size of the input (ids, scores), at half and at full size
of the queries: a ratio that stays flat is memory linear in the input.

Target (issue 39): at least 10x faster than ranx at that size, for every
method timed. BordaFuse and Condorcet are opt-in (``--methods bordafuse``):
ranx takes minutes on them at this size.
"""

import argparse
import os
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np

from sklearn_rankmetrics.fusion import fuse
from sklearn_rankmetrics.trec import Run

sys.path.insert(0, str(Path(__file__).parent))
from timing import best_of

DEFAULT_METHODS = ("wsum", "rrf", "mnz", "med", "isr", "rbc", "posfuse")
PARAMS = {"wsum": {"weights": [0.2] * 5}, "rbc": {"phi": 0.8}}


def make_runs(n_queries, n_docs, n_runs, seed=0):
    """Our Run objects: per query and run, ``n_docs`` of a pool of 3 * n_docs documents, random scores.

    Listed as retrieval systems write runs (and read_run gives them): by
    query, then by descending score.
    """
    rng = np.random.default_rng(seed)
    query = np.repeat(np.array([f"q{q}" for q in range(n_queries)]), n_docs)
    runs = []
    for index in range(n_runs):
        picks = np.argsort(rng.random((n_queries, 3 * n_docs)), axis=1)[:, :n_docs]
        doc = np.char.add("d", picks.astype(str)).reshape(-1)
        doc = doc.astype(f"U{int(np.strings.str_len(doc).max())}")  # as wide as the longest, as read_run gives them
        score = -np.sort(-rng.random((n_queries, n_docs)), axis=1).reshape(-1)
        runs.append(Run(query, doc, score, f"run{index}"))
    return runs


def ranx_runs(runs):
    """The same runs as ranx Run objects."""
    import ranx

    converted = []
    for run in runs:
        nested = {}
        for query, doc, score in zip(run.query_id.tolist(), run.doc_id.tolist(), run.score.tolist(), strict=True):
            nested.setdefault(query, {})[doc] = score
        converted.append(ranx.Run(nested, name=run.name))
    return converted


def qrels_for(runs, seed=1):
    """Judgements of 10 documents per query, for PosFuse's training."""
    rng = np.random.default_rng(seed)
    queries = np.unique(runs[0].query_id)
    return {q: {f"d{d}": int(rng.integers(0, 2)) for d in rng.choice(100, 10, replace=False)} for q in queries}


def ranx_call(method, runs, qrels):
    import ranx
    from ranx import fusion

    params = dict(PARAMS.get(method, {}))
    if method == "posfuse":
        params["probs"] = fusion.posfuse_train(ranx.Qrels(qrels), runs)
    return ranx.fuse(runs, norm="min-max", method=method, params=params)


def our_call(method, runs, qrels):
    return fuse(
        runs,
        method=method,
        normalization="min-max",
        qrels=qrels if method == "posfuse" else None,
        **PARAMS.get(method, {}),
    )


def max_difference(ours, theirs):
    theirs = theirs.to_dict()
    worst = 0.0
    for query, doc, score in zip(ours.query_id.tolist(), ours.doc_id.tolist(), ours.score.tolist(), strict=True):
        worst = max(worst, abs(score - theirs[query][doc]))
    return worst


def peak_ratio(runs, method, qrels):
    """Peak bytes numpy allocates in one fusion, over the bytes of the input's arrays."""
    size = sum(run.query_id.nbytes + run.doc_id.nbytes + run.score.nbytes for run in runs)
    tracemalloc.start()
    our_call(method, runs, qrels)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / size


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--methods", nargs="+", default=DEFAULT_METHODS)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")  # numba's type-safety notices from ranx

    start = time.perf_counter()
    import ranx  # noqa: F401

    print(f"ranx import: {time.perf_counter() - start:.1f} s")
    runs = make_runs(args.queries, args.docs, args.runs)
    qrels = qrels_for(runs)
    start = time.perf_counter()
    theirs = ranx_runs(runs)
    print(
        f"{args.queries} queries x {args.docs} documents x {args.runs} runs; ranx Run objects built in "
        f"{time.perf_counter() - start:.1f} s (not timed below)"
    )
    tiny = make_runs(2, 5, args.runs)
    tiny_theirs, tiny_qrels = ranx_runs(tiny), qrels_for(tiny)
    print(f"load average {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores); CPU s: over all threads")
    print(
        f"\n{'method':<10} {'ranx 1st call':>14} {'ranx s':>9} {'ours s':>9} {'ranx/ours':>10} {'ranx CPU s':>11} "
        f"{'ours CPU s':>11} {'CPU ratio':>10} {'max |diff|':>11}"
    )
    for method in args.methods:
        start = time.perf_counter()
        ranx_call(method, tiny_theirs, tiny_qrels)
        compile_time = time.perf_counter() - start
        our_call(method, tiny, tiny_qrels)  # our own first-use imports
        ranx_time, ranx_cpu, expected = best_of(args.repeats, lambda m=method: ranx_call(m, theirs, qrels))
        our_time, our_cpu, fused = best_of(args.repeats, lambda m=method: our_call(m, runs, qrels))
        print(
            f"{method:<10} {compile_time:>13.1f}s {ranx_time:>9.2f} {our_time:>9.2f} {ranx_time / our_time:>9.1f}x "
            f"{ranx_cpu:>11.2f} {our_cpu:>11.2f} {ranx_cpu / our_cpu:>9.1f}x {max_difference(fused, expected):>11.1e}"
        )
    print(f"load average {os.getloadavg()[0]:.1f}")
    half = make_runs(args.queries // 2, args.docs, args.runs)
    print("\npeak memory of one fusion / input bytes (flat = linear in the input):")
    for method in args.methods:
        print(
            f"{method:<10} {args.queries // 2:>5} queries: {peak_ratio(half, method, qrels):5.1f}   "
            f"{args.queries} queries: {peak_ratio(runs, method, qrels):5.1f}"
        )


if __name__ == "__main__":
    main()
