"""The accumulator's cost per batch against one metric call on the same batch (target: within 1.5x).

    python benchmarks/bench_streaming.py [--batches 200] [--queries 256] [--docs 30]

A training loop's validation: batches of whole queries (``--queries`` per
batch, ``--docs`` documents each, graded labels, scores with ties). For each
batch it times ``ndcg_score(..., k=10)`` and ``RankingAccumulator(["ndcg@10"]).update``
(the two run back to back, 7 times; the best time of each and the median ratio,
which a busy machine moves least), the same for a three-metric
``ranking_report`` against a three-metric accumulator, and a batch split
across two updates (``open_queries="last"``); then ``compute()`` and
``merge`` over all batches, and checks the accumulated means against the
report on the concatenated batches (to the last bit).

A batch split in two costs two measurements (the metrics' own fixed cost,
about 0.6 ms a call here, twice): the split line shows the ratio to one
metric call on the whole batch (the target's reading) and to two metric
calls on the same halves (the accumulator's own overhead).
"""

import argparse
import time
import warnings

import numpy as np

from sklearn_rankmetrics import RankingAccumulator, ndcg_score, ranking_report


def batches(n_batches, n_queries, n_docs, seed=0):
    rng = np.random.default_rng(seed)
    for index in range(n_batches):
        qid = np.repeat(np.arange(index * n_queries, (index + 1) * n_queries), n_docs)
        yield rng.integers(0, 5, qid.size).astype(float), rng.integers(0, 50, qid.size).astype(float), qid


def best(function, repeat=5):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def paired(baseline, candidate, repeat=7):
    """The best time of each, run back to back ``repeat`` times, and the median of their ratios."""
    pairs = [(best(baseline, 1), best(candidate, 1)) for _ in range(repeat)]
    return min(b for b, _ in pairs), min(c for _, c in pairs), float(np.median([c / b for b, c in pairs]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=200)
    parser.add_argument("--queries", type=int, default=256)
    parser.add_argument("--docs", type=int, default=30)
    arguments = parser.parse_args()
    data = list(batches(arguments.batches, arguments.queries, arguments.docs))
    metrics = ["ndcg@10", "map", "mrr@10"]
    print(f"{arguments.batches} batches of {arguments.queries} queries x {arguments.docs} documents")

    def metric_calls(split=False):
        for y_true, y_score, qid in data:
            if split:
                cut = qid.size // 2 + 3
                ndcg_score(y_true[:cut], y_score[:cut], qid=qid[:cut], k=10)
                ndcg_score(y_true[cut:], y_score[cut:], qid=qid[cut:], k=10)
            else:
                ndcg_score(y_true, y_score, qid=qid, k=10)

    def updates(names, split=False):
        accumulator = RankingAccumulator(names)
        for y_true, y_score, qid in data:
            if split:  # the batch cut in the middle of a query: held, then joined with the rest
                cut = qid.size // 2 + 3
                accumulator.update(y_true[:cut], y_score[:cut], qid[:cut], open_queries="last")
                accumulator.update(y_true[cut:], y_score[cut:], qid[cut:], open_queries="last")
            else:
                accumulator.update(y_true, y_score, qid)
        return accumulator

    def reports():
        for y_true, y_score, qid in data:
            ranking_report(y_true, y_score, qid=qid, metrics=metrics)

    one, update, ratio = paired(metric_calls, lambda: updates(["ndcg@10"]))
    three, update_three, ratio_three = paired(reports, lambda: updates(metrics))
    _, split, ratio_split = paired(metric_calls, lambda: updates(["ndcg@10"], split=True))
    _, _, ratio_halves = paired(lambda: metric_calls(split=True), lambda: updates(["ndcg@10"], split=True))
    per_batch = 1e3 / arguments.batches
    print(f"ndcg_score per batch           {one * per_batch:8.3f} ms")
    print(f"update (ndcg@10) per batch     {update * per_batch:8.3f} ms   {ratio:5.2f}x  (target <= 1.5x)")
    print(f"ranking_report of 3 per batch  {three * per_batch:8.3f} ms")
    print(f"update (3 metrics) per batch   {update_three * per_batch:8.3f} ms   {ratio_three:5.2f}x the report")
    print(f"update, batch split in two     {split * per_batch:8.3f} ms   {ratio_split:5.2f}x  (two updates, one held)")
    print(f"                                          {ratio_halves:5.2f}x  two ndcg_score calls on the same halves")
    accumulator = updates(metrics)
    halves = [updates(metrics), updates(metrics)]  # two workers' states (the same queries: merge cost only)
    print(f"compute() over {accumulator.n_queries} queries   {best(accumulator.compute) * 1e3:8.3f} ms")
    print(f"merge of two such states       {best(lambda: RankingAccumulator(metrics).merge(halves[0])) * 1e3:8.3f} ms")
    y_true, y_score, qid = (np.concatenate(column) for column in zip(*data, strict=True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert accumulator.compute() == ranking_report(y_true, y_score, qid=qid, metrics=metrics)
    print("accumulated means == ranking_report of the concatenated batches (to the last bit)")


if __name__ == "__main__":
    main()
