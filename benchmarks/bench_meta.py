"""Meta-evaluation at the scale of a large track: swap rates against a plain per-trial loop, and the memory of
discriminative power.

    python benchmarks/bench_meta.py [--systems 300] [--topics 50] [--trials 1000] [--resamples 1000] [--repeats 2]

Scores: ``--systems`` systems on ``--topics`` topics, means spread over [0.2, 0.5]
with per-topic noise (sd 0.15), clipped to [0, 1].

- :func:`~sklearn_rankmetrics.meta.swap_rate` with subset sizes 10 and 25 against
  the loop a user would write: per trial, one permutation, the two subsets' means,
  the differences of every pair and two ``bincount`` calls. Best of
  ``--repeats``; the two swap rates are printed side by side (they count the
  same comparisons; the loop bins raw floats, we bin up to rounding). swap_rate
  runs its blocks of trials on the library's threads (``RANKMETRICS_NUM_THREADS``),
  the loop on one.
- :func:`~sklearn_rankmetrics.meta.discriminative_power` with Sakai's bootstrap:
  the time, and the peak of numpy's allocations (tracemalloc) beside the one
  (B, n_pairs) array that testing all pairs at once would need.

Targets (issue 40, D9): swap_rate at least as fast as the loop; discriminative
power's memory bounded whatever the number of systems (1,000 systems: 7.4 GiB
before the pairs were streamed).
"""

import argparse
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np

from sklearn_rankmetrics.meta import discriminative_power, swap_rate

sys.path.insert(0, str(Path(__file__).parent))
from timing import best_of

SIZES = (10, 25)


def make_scores(n_topics, n_systems, seed=0):
    """A topics x systems matrix of scores in [0, 1]."""
    rng = np.random.default_rng(seed)
    return np.clip(np.linspace(0.2, 0.5, n_systems) + rng.normal(0, 0.15, (n_topics, n_systems)), 0, 1)


def loop_swap_rate(scores, sizes, n_trials, bin_width, rng):
    """The swap rate of each subset size by a Python loop over the trials (numpy inside each)."""
    n_topics, n_systems = scores.shape
    first, second = np.triu_indices(n_systems, 1)
    n_bins = int(np.floor((scores.max() - scores.min()) / bin_width)) + 1
    rates = []
    for size in sizes:
        comparisons, swaps = np.zeros(n_bins), np.zeros(n_bins)
        for _ in range(n_trials):
            order = rng.permutation(n_topics)
            means_1, means_2 = scores[order[:size]].mean(axis=0), scores[order[size : 2 * size]].mean(axis=0)
            d1, d2 = means_1[second] - means_1[first], means_2[second] - means_2[first]
            bins = np.minimum((np.abs(d1) / bin_width).astype(np.intp), n_bins - 1)
            comparisons += np.bincount(bins, minlength=n_bins)
            swaps += np.bincount(bins, weights=d1 * d2 < 0, minlength=n_bins)
        rates.append(swaps.sum() / comparisons.sum())
    return np.array(rates)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--systems", type=int, default=300)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    scores = make_scores(args.topics, args.systems)
    n_pairs = args.systems * (args.systems - 1) // 2
    print(f"{args.systems} systems x {args.topics} topics ({n_pairs:,} pairs)")

    ours_time, _, ours = best_of(
        args.repeats, lambda: swap_rate(scores, subset_size=list(SIZES), n_trials=args.trials, random_state=0)
    )
    loop_time, _, loop = best_of(
        args.repeats, lambda: loop_swap_rate(scores, SIZES, args.trials, 0.01, np.random.default_rng(0))
    )
    print(f"swap_rate, sizes {SIZES}, {args.trials} trials: {ours_time:.2f} s; per-trial loop {loop_time:.2f} s")
    print(f"  loop / swap_rate = {loop_time / ours_time:.2f}x; rates {np.round(ours.rate, 4)} vs {np.round(loop, 4)}")

    tracemalloc.start()
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        power = discriminative_power(scores, test="bootstrap", n_resamples=args.resamples, random_state=0)
    elapsed = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    whole = args.resamples * n_pairs * 8
    print(f"discriminative_power(bootstrap, B={args.resamples}): {elapsed:.2f} s, power {power.power:.4f}")
    print(f"  peak allocations {peak / 2**20:,.0f} MiB; one (B, n_pairs) array: {whole / 2**20:,.0f} MiB")


if __name__ == "__main__":
    main()
