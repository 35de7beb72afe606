"""Large tie blocks: every metric with ties averaged, as a multiple of ndcg_score (issue #14).

    python benchmarks/bench_ties.py            # the three inputs of the issue
    python benchmarks/bench_ties.py --limit 20 # skip a metric's later inputs once one call took 20 s
    python benchmarks/bench_ties.py --shapes   # a million rows in tie blocks of 10, 120, 1,000 or 100,000

Ties this large are ordinary: a constant baseline in a search (every score
equal), trees that give many documents one leaf value, recommenders whose
unseen items all score 0. Each metric should stay within 3x of ndcg_score.
"""

import argparse
import inspect
import time
import warnings

import numpy as np

import sklearn_rankmetrics as rm

METRICS = {
    "ndcg": rm.ndcg_score,
    "dcg": rm.dcg_score,
    "cg": rm.cumulative_gain_score,
    "map": rm.mean_average_precision_score,
    "mrr": rm.mean_reciprocal_rank_score,
    "precision": rm.precision_at_k_score,
    "recall": rm.recall_at_k_score,
    "r_precision": rm.r_precision_score,
    "err": rm.expected_reciprocal_rank_score,
    "hit_rate": rm.hit_rate_score,
    "f1": rm.f1_at_k_score,
    "bpref": rm.bpref_score,
    "rbp": rm.rank_biased_precision_score,
}


def inputs():
    """The issue's three inputs: name, (y_true, y_score, options), and the metric options to apply."""
    rng = np.random.default_rng(0)
    labels = rng.choice(5, 200_000, p=[0.515, 0.32, 0.13, 0.025, 0.01]).astype(float)
    one_query = (labels, np.zeros(200_000))
    users, items = 3_000, 1_500
    y_true = (rng.random((users, items)) < 0.02).astype(float)
    y_score = np.where(rng.random((users, items)) < 0.7, 0.0, rng.random((users, items)))
    return [
        ("one query, 200,000 tied documents, k=None", one_query, {}),
        ("the same, @10 (ERR @20)", one_query, {"k": 10}),
        ("users x items 3,000 x 1,500, 70% of scores 0, k=None", (y_true, y_score), {}),
    ]


def shapes():
    """A million tied rows (a constant model) cut into blocks of several sizes, graded labels 0-4."""
    rng = np.random.default_rng(1)
    grades = [0.515, 0.32, 0.13, 0.025, 0.01]
    for size in (10, 120, 1_000, 100_000):
        qid = np.repeat(np.arange(1_000_000 // size), size)
        labels = rng.choice(5, len(qid), p=grades).astype(float)
        yield f"1,000,000 rows in tie blocks of {size:,}", (labels, np.zeros(len(qid))), {"qid": qid}
    qid = np.repeat(np.arange(500), 2_000)
    labels = rng.choice(5, len(qid), p=[0.1, 0.88, 0.01, 0.005, 0.005]).astype(float)
    yield "500 blocks of 2,000, 88% of label 1", (labels, np.zeros(len(qid))), {"qid": qid}


def time_best(metric, arrays, options, repeats=3):
    """Seconds of the fastest of a few calls (one call when it takes over a second): warm caches, no noise."""
    times = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        while len(times) < repeats and sum(times) < 1.0:
            start = time.perf_counter()
            metric(*arrays, **options)
            times.append(time.perf_counter() - start)
    return min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=float, default=float("inf"), help="seconds after which a metric is skipped")
    parser.add_argument("--shapes", action="store_true", help="blocks of several sizes instead of the three inputs")
    args = parser.parse_args()
    slow = set()
    print("| input | " + " | ".join(METRICS) + " |")
    print("| --- |" + " --- |" * len(METRICS))
    for name, arrays, options in shapes() if args.shapes else inputs():
        times = {}
        for metric_name, metric in METRICS.items():
            if metric_name in slow:
                continue
            metric_options = dict(options)
            if metric_name == "err" and "k" in options:
                metric_options["k"] = 20
            if "k" not in inspect.signature(metric).parameters:  # bpref has no cutoff
                metric_options.pop("k", None)
            times[metric_name] = time_best(metric, arrays, metric_options)
            if times[metric_name] > args.limit:
                slow.add(metric_name)
        reference = times["ndcg"]
        cells = [f"{times[m]:.3f} s ({times[m] / reference:.1f}x)" if m in times else "skipped" for m in METRICS]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
