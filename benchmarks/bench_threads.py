"""Threads inside joblib workers: GridSearchCV(n_jobs=2) with a ranking scorer, pool free vs capped (issue #12).

    python benchmarks/bench_threads.py

Each setting runs in a fresh process: the library's thread pool as it sizes
itself (joblib's workers set OMP_NUM_THREADS to their share of the cores,
which the pool obeys), and capped to one thread with RANKMETRICS_NUM_THREADS=1.
The scoring sets are large (about 300,000 rows per fold), so scoring, not
fitting, dominates. The free pool should not be slower than the capped one.
"""

import os
import subprocess
import sys

THREAD_VARIABLES = ("RANKMETRICS_NUM_THREADS", "OMP_NUM_THREADS")
PROGRAM = """
import time
import sklearn
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, GroupKFold
from sklearn_rankmetrics import get_ranking_scorer, make_ranking

sklearn.set_config(enable_metadata_routing=True)
X, y, qid = make_ranking(n_queries=20_000, n_docs=(10, 50), n_features=5, random_state=0)
search = GridSearchCV(Ridge(), {"alpha": [0.1, 1.0, 10.0, 100.0]}, cv=GroupKFold(n_splits=2), n_jobs=2,
                      scoring={"ndcg": get_ranking_scorer("ndcg@10"), "map": get_ranking_scorer("map"),
                               "err": get_ranking_scorer("err@20")}, refit=False)
start = time.perf_counter()
search.fit(X, y, groups=qid)
print(time.perf_counter() - start, len(y))
"""


def run(environment):
    # Neither thread setting of the calling shell: the pool sizes itself, unless the caller caps it.
    inherited = {key: value for key, value in os.environ.items() if key not in THREAD_VARIABLES}
    result = subprocess.run(
        [sys.executable, "-c", PROGRAM], env={**inherited, **environment}, capture_output=True, text=True, check=True
    )
    elapsed, rows = result.stdout.split()
    return float(elapsed), int(rows)


def main():
    free, rows = run({})
    capped, _ = run({"RANKMETRICS_NUM_THREADS": "1"})
    print(f"GridSearchCV(n_jobs=2), 4 candidates x 2 folds, 3 ranking scorers, {rows} rows:")
    print(f"  pool sized by the library: {free:.2f} s")
    print(f"  pool capped to 1 thread:   {capped:.2f} s")
    print(f"  free / capped: {free / capped:.2f}x the time")


if __name__ == "__main__":
    main()
