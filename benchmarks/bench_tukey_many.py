"""Tukey's HSD of many runs (issue #38): 60 systems x 50 queries, all 1,770 pairs.

    python benchmarks/bench_tukey_many.py [--systems 60] [--queries 50]

Times compare_per_query(test="tukey-hsd") of every pair, whose p-values come from one fixed quadrature of the
studentized range for all the pairs (stats/_studentized_range.py), against scipy's
``studentized_range.sf``, which integrates each pair alone (timed on 60 pairs and scaled to all of them), and
prints the ratio and the largest difference of the p-values from scipy's on those pairs (scipy's own accuracy is
1e-11).
"""

import argparse
import time
import warnings

import numpy as np
from scipy import stats

from sklearn_rankmetrics import compare_per_query


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=60)
    parser.add_argument("--queries", type=int, default=50)
    args = parser.parse_args()
    k, n = args.systems, args.queries
    rng = np.random.default_rng(0)
    values = {f"run{i}": {"map": rng.beta(2, 5, n) + 0.002 * i} for i in range(k)}
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pairs = compare_per_query(values, test="tukey-hsd", correction=None, random_state=0).to_frame(kind="pairs")
    ours = time.perf_counter() - start
    matrix = np.column_stack([entry["map"] for entry in values.values()])
    residual = matrix - matrix.mean(0) - matrix.mean(1, keepdims=True) + matrix.mean()
    q = np.abs(pairs["delta"].to_numpy()) / np.sqrt((residual**2).sum() / ((n - 1) * (k - 1)) / n)
    sample = rng.choice(len(q), min(60, len(q)), replace=False)
    start = time.perf_counter()
    reference = stats.studentized_range.sf(q[sample], k, (n - 1) * (k - 1))
    scipy_all = (time.perf_counter() - start) / len(sample) * len(q)
    print(f"{k} systems x {n} queries, tukey-hsd, {len(q)} pairs")
    print(f"  compare_per_query, everything included:   {ours:6.1f} s")
    print(f"  scipy's studentized_range.sf of the pairs: {scipy_all:6.1f} s (scaled from {len(sample)} pairs)")
    print(f"  ratio: {scipy_all / ours:.1f}x")
    largest = np.abs(pairs["pvalue"].to_numpy()[sample] - reference).max()
    print(f"  largest |p - scipy's p| on those pairs: {largest:.1e}")


if __name__ == "__main__":
    main()
