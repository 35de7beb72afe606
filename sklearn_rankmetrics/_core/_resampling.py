"""Resampling in blocks on the library's threads: bootstrap means over queries, and any test's resamples."""

import numbers

import numpy as np
from sklearn.utils import check_random_state

from ._parallel import map_in_threads, sum_in_threads
from ._validation import check_integer, check_real, plain

# Resamples drawn at a time: a block of (BLOCK, n_queries) numbers stays small.
BLOCK = 256


def check_resampling(n_resamples, confidence_level, random_state):
    """The validated ``n_resamples`` and ``confidence_level``, and a numpy Generator seeded from ``random_state``."""
    n_resamples = check_integer("n_resamples", n_resamples)
    # A 100% bootstrap interval is not defined: the level lies strictly between 0 and 1.
    confidence_level = check_real("confidence_level", confidence_level, low=0, high=1, low_open=True, high_open=True)
    return n_resamples, confidence_level, generator_from(random_state)


def generator_from(random_state):
    """A numpy Generator seeded from ``random_state``: None, an int, a RandomState or a Generator.

    One number is drawn from ``random_state`` (scikit-learn's
    ``check_random_state`` of it, or the Generator itself) to seed it, so an
    int or a new ``np.random.default_rng(seed)`` gives the same results on
    every call, and a RandomState or Generator passed again moves on.
    """
    if isinstance(random_state, np.random.Generator):
        return np.random.default_rng(int(random_state.integers(2**31)))
    return np.random.default_rng(random_state_from(random_state).randint(2**31))


def random_state_from(random_state):
    """A numpy RandomState from ``random_state``: None, an int, a RandomState or a Generator.

    scikit-learn's ``check_random_state`` of it (the RandomState itself, one
    seeded by the int, numpy's global one for None), or for a Generator a new
    RandomState seeded by one number drawn from it: a new
    ``np.random.default_rng(seed)`` gives the same draws on every call, and a
    Generator passed again moves on. Anything else is a TypeError naming
    ``random_state`` (numpy's own message names neither it nor the fix).
    """
    if isinstance(random_state, np.random.Generator):
        return np.random.RandomState(int(random_state.integers(2**32)))
    integer = isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool | np.bool_)
    if not (random_state is None or integer or isinstance(random_state, np.random.RandomState)):
        raise TypeError(
            "random_state must be None, an integer, a numpy Generator (np.random.default_rng(seed)) or a "
            f"RandomState; got {plain(random_state)!r} of type {type(random_state).__name__}."
        )
    if integer and not 0 <= random_state < 2**32:
        raise ValueError(f"random_state must be an integer in [0, 2**32 - 1]; got {plain(random_state)!r}.")
    return check_random_state(random_state)


class Resamples:
    """``n_resamples`` resamples in blocks of ``BLOCK``, each block drawn from its own generator seeded from ``rng``.

    The seeds are drawn once, so the same resamples can be replayed: every
    block of columns (pairs of systems) of a test sees the same draws, and
    the results do not depend on how many threads run the blocks.
    """

    def __init__(self, n_resamples, rng):
        self.n_resamples = n_resamples
        self.sizes = [min(BLOCK, n_resamples - start) for start in range(0, n_resamples, BLOCK)]
        self.seeds = rng.integers(2**63, size=len(self.sizes))

    def generators(self):
        return [np.random.default_rng(seed) for seed in self.seeds]

    def concatenate(self, function):
        """``function(size, generator)`` of every block, concatenated along the first axis."""
        return np.concatenate(map_in_threads(function, self.sizes, self.generators()))

    def sum(self, function):
        """The sum of ``function(size, generator)`` over the blocks, a few blocks in memory at a time."""
        return sum_in_threads(lambda block: function(*block), zip(self.sizes, self.generators(), strict=True))


def bootstrap_means(columns, resamples, weights=None):
    """The (weighted) mean of each column over bootstrap ``resamples`` of the rows (queries).

    ``resamples`` is a :class:`Resamples`: the same one gives the same draws
    of rows whatever the columns.
    """
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

    return resamples.concatenate(block)


def bootstrap_interval(values, n_resamples, confidence_level, rng, weights=None):
    """The percentile bootstrap interval of the (weighted) mean of ``values`` over queries."""
    means = bootstrap_means(values[:, None], Resamples(n_resamples, rng), weights)[:, 0]
    tail = (1 - confidence_level) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return float(low), float(high)
