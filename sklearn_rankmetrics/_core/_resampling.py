"""Bootstrap resampling over queries, in blocks on the library's threads."""

import numpy as np
from sklearn.utils import check_random_state

from ._parallel import map_in_threads
from ._validation import check_integer, check_real

# Resamples drawn at a time: a block of (BLOCK, n_queries) numbers stays small.
BLOCK = 256


def check_resampling(n_resamples, confidence_level, random_state):
    """The validated ``n_resamples`` and ``confidence_level``, and a numpy Generator seeded from ``random_state``."""
    n_resamples = check_integer("n_resamples", n_resamples)
    # A 100% bootstrap interval is not defined: the level lies strictly between 0 and 1.
    confidence_level = check_real("confidence_level", confidence_level, low=0, high=1, low_open=True, high_open=True)
    return n_resamples, confidence_level, np.random.default_rng(check_random_state(random_state).randint(2**31))


def resample_blocks(n_resamples, rng, function):
    """``function(size, generator)`` over blocks of resamples on the library's threads, concatenated.

    Each block draws from its own generator, seeded from ``rng`` in block
    order, so the result does not depend on how many threads run the blocks.
    """
    sizes = [min(BLOCK, n_resamples - start) for start in range(0, n_resamples, BLOCK)]
    generators = [np.random.default_rng(seed) for seed in rng.integers(2**63, size=len(sizes))]
    return np.concatenate(map_in_threads(function, sizes, generators))


def bootstrap_means(columns, n_resamples, rng, weights=None):
    """The (weighted) mean of each column over ``n_resamples`` bootstrap resamples of the rows (queries)."""
    n_queries = len(columns)
    if weights is not None:
        weighted = np.column_stack([columns * weights[:, None], weights])

    def block(size, generator):
        # Row r of counts says how often each query is drawn in resample r.
        draws = generator.integers(0, n_queries, size=(size, n_queries), dtype=np.int64)
        draws += (np.arange(size) * n_queries)[:, None]
        counts = np.bincount(draws.ravel(), minlength=size * n_queries).reshape(size, n_queries).astype(np.float64)
        if weights is None:
            return counts @ columns / n_queries
        sums = counts @ weighted
        return sums[:, :-1] / sums[:, -1:]

    return resample_blocks(n_resamples, rng, block)


def bootstrap_interval(values, n_resamples, confidence_level, rng, weights=None):
    """The percentile bootstrap interval of the (weighted) mean of ``values`` over queries."""
    means = bootstrap_means(values[:, None], n_resamples, rng, weights)[:, 0]
    tail = (1 - confidence_level) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return float(low), float(high)
