"""compare_rankings at MSLR-WEB30K size: 3 systems x 5 metrics x 31,500 queries, 10,000 resamples.

    python benchmarks/bench_compare.py

The target (issue #11): well under 10 s on 2 cores, per test.
"""

import sys
import time
from pathlib import Path

import numpy as np

import sklearn_rankmetrics as rm

sys.path.insert(0, str(Path(__file__).parent))
from bench_metrics import make_data

METRICS = ["ndcg@10", "map", "mrr", "err@20", "precision@10"]


def main():
    y_true, base, qid = make_data(31_500, "grouped")
    rng = np.random.default_rng(0)
    systems = {"base": base, "better": base + 0.3 * y_true, "noisy": base + rng.normal(0, 1, len(base))}
    for test in ("randomization", "bootstrap", "t-test", "wilcoxon"):
        start = time.perf_counter()
        rm.compare_rankings(y_true, systems, qid=qid, metrics=METRICS, baseline="base", test=test, random_state=0)
        print(f"{test:>13}: {time.perf_counter() - start:.2f} s (3 systems x 5 metrics x 31,500 queries)")


if __name__ == "__main__":
    main()
