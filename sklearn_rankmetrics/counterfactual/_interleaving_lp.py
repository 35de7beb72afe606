"""Optimized interleaving (Radlinski and Craswell 2013): the candidate lists and their distribution, by linear
programmes solved many queries at once.

Queries whose two rankings place their documents alike (the same pattern)
share one programme. The distinct patterns are taken in chunks: every
chunk's candidate lists are built together, each query's duplicates are
dropped, and the chunk's programmes, independent blocks of one sparse
programme, go to HiGHS in one call.
"""

import numpy as np
from scipy.optimize import linprog
from scipy.sparse import csr_matrix

from .._core._warnings import warn

# Patterns whose candidate lists are built together (patterns x 2**length x length: a few tens of MB), and per
# linear programme: HiGHS's cost per call is shared by a few, and grows faster than the size past a few tens
# (measured: 23 ms per pattern of length 10 alone, 5 ms by 16, 11 ms by 256).
CHUNK, LP_CHUNK = 256, 16


def candidate_lists(a, b, length):
    """For each query (rows of ``a`` and ``b``, its rankings with documents named 0, 1, ... by their place in
    the union, ``-1`` padded), the 2**length lists made by choosing, at each rank, the top document of ``a`` or
    of ``b`` not yet shown: every list whose prefixes are unions of prefixes of the rankings (with repeats)."""
    n_queries, width = a.shape
    n_lists = 2**length
    choices = ((np.arange(n_lists)[:, None] >> np.arange(length)) & 1).astype(bool)  # True takes from b
    lists = np.full((n_queries, n_lists, length), -1)
    queries = np.arange(n_queries)[:, None]
    sides, places, shown = (a, b), [], []
    for ranking in sides:
        place = np.full((n_queries, 2 * width + 1), width)  # each name's place in the ranking; width: absent
        cells = np.nonzero(ranking >= 0)
        place[cells[0], ranking[cells]] = cells[1]
        places.append(place)
        shown.append(np.broadcast_to(ranking < 0, (n_lists, n_queries, width)).transpose(1, 0, 2).copy())
    for rank in range(length):
        tops, has = [], []
        for ranking, taken in zip(sides, shown, strict=True):  # each ranking's top document not yet shown
            free = ~taken
            has.append(free.any(axis=2))
            tops.append(ranking[queries, np.argmax(free, axis=2)])
        from_b = (choices[:, rank] & has[1]) | ~has[0]
        document = np.where(from_b, tops[1], tops[0])
        document = np.where(has[0] | has[1], document, 2 * width)
        lists[:, :, rank] = np.where(document < 2 * width, document, -1)
        for place, taken in zip(places, shown, strict=True):  # the document is shown: in both rankings
            column = place[queries, document]
            marked = np.nonzero(column < width)
            taken[marked[0], marked[1], column[marked]] = True
    return lists


def distinct_lists(lists, names):
    """Each query's distinct candidate lists, flattened: the lists, the query of each, and the start of each
    query's lists."""
    n_queries, n_lists, length = lists.shape
    keys = np.zeros((n_queries, n_lists), dtype=np.int64)
    for rank in range(length):  # base names + 1 digits: below 25**12 < 2**63
        keys = keys * (names + 1) + lists[:, :, rank] + 1
    order = np.argsort(keys, axis=1, kind="stable")
    ordered = np.take_along_axis(keys, order, 1)
    first = np.ones(ordered.shape, dtype=bool)
    first[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    query, place = np.nonzero(first)
    kept = lists[query, order[query, place]]
    starts = np.searchsorted(query, np.arange(n_queries))
    return kept, query, starts


def rank_credits(lists, query, a):
    """1/rank in ``a`` (a row per query) of each listed document, one past the ranking's end where it lacks it,
    0 for an empty cell."""
    width = a.shape[1]
    ranks = np.repeat(((a >= 0).sum(axis=1) + 1)[:, None], 2 * width + 1, axis=1).astype(np.float64)
    cells = np.nonzero(a >= 0)
    ranks[cells[0], a[cells]] = cells[1] + 1
    found = ranks[query[:, None], np.where(lists >= 0, lists, 2 * width)]
    return np.where(lists >= 0, 1.0 / found, 0.0)


def list_distributions(lists, query, starts, a, b):
    """The probabilities of the candidate ``lists`` (flattened, ``query`` the row of each) that solve each
    query's linear programme, all in one sparse programme of independent blocks.

    Constraints: for every depth k, a user who clicks one of the top k at
    random gives the two rankers the same expected credit (1/rank), and the
    probabilities of a query's lists sum to 1. Objective: the least expected
    squared difference of the rankers' credits under a user who clicks rank
    i with probability proportional to 1/i.
    """
    n_queries = len(a)
    length = lists.shape[1]
    delta = rank_credits(lists, query, a) - rank_credits(lists, query, b)
    clicker = 1.0 / np.arange(1, length + 1)
    objective = (delta @ (clicker / clicker.sum())) ** 2
    depth = np.cumsum(delta, axis=1)
    columns = np.arange(len(lists))
    rows = np.concatenate([query * (length + 1)] + [query * (length + 1) + 1 + k for k in range(length)])
    values = np.concatenate([np.ones(len(lists))] + [depth[:, k] for k in range(length)])
    shape = (n_queries * (length + 1), len(lists))
    equalities = csr_matrix((values, (rows, np.tile(columns, length + 1))), shape=shape)
    targets = np.zeros(n_queries * (length + 1))
    targets[:: length + 1] = 1.0
    solved = linprog(objective, A_eq=equalities, b_eq=targets, bounds=(0, 1), method="highs")
    if solved.success:
        probabilities = np.clip(solved.x, 0.0, None)
    elif n_queries > 1:  # some query has no unbiased distribution: solve them one by one
        return np.concatenate(
            [
                list_distributions(lists[start:stop], query[start:stop] * 0, np.zeros(1, int), a[[q]], b[[q]])
                for q, (start, stop) in enumerate(zip(starts, np.append(starts[1:], len(lists)), strict=True))
            ]
        )
    else:
        warn(
            "optimized interleaving found no distribution that is unbiased at every depth for a query; it shows that "
            "query's candidate lists uniformly.",
            RuntimeWarning,
        )
        probabilities = np.ones(len(lists))
    return probabilities / np.bincount(query, weights=probabilities, minlength=n_queries)[query]


def optimized_lists(a, b, length, rng):
    """One list drawn per query from its optimized distribution; queries whose rankings match in pattern (the
    place in the union of each document) share one linear programme."""
    n_queries, width = a.shape
    # Each query's pattern: its rankings with documents renamed by their first place in a, then in b.
    union = np.concatenate([a, b], axis=1)
    first = (union[:, :, None] == union[:, None, :]).argmax(axis=2)
    pattern = np.where(union >= 0, first, -1)
    keys, which = np.unique(pattern, axis=0, return_inverse=True)
    which = which.reshape(-1)
    order = np.argsort(which, kind="stable")
    grouped = which[order]
    chosen = np.full((n_queries, length), -1)
    for start in range(0, len(keys), CHUNK):
        stop = min(start + CHUNK, len(keys))
        chunk_a, chunk_b = keys[start:stop, :width], keys[start:stop, width:]
        lists, query, starts = distinct_lists(candidate_lists(chunk_a, chunk_b, length), 2 * width)
        probabilities = np.concatenate(
            [
                list_distributions(lists[low:high], query[low:high] - first, starts[group] - low, *sides)
                for first, low, high, group, sides in programmes(starts, len(lists), chunk_a, chunk_b)
            ]
        )
        members = order[np.searchsorted(grouped, start) : np.searchsorted(grouped, stop)]
        named = lists[draw(probabilities, starts, which[members] - start, rng)]
        # Back from the pattern's names (places in the union) to the query's documents.
        chosen[members] = np.where(named >= 0, np.take_along_axis(union[members], np.maximum(named, 0), 1), -1)
    return chosen


def programmes(starts, n_lists, a, b):
    """The linear programmes of a chunk: for each ``LP_CHUNK`` patterns, the first, the range of their lists,
    their slice and their rankings."""
    for first in range(0, len(starts), LP_CHUNK):
        group = slice(first, first + LP_CHUNK)
        high = starts[first + LP_CHUNK] if first + LP_CHUNK < len(starts) else n_lists
        yield first, starts[first], high, group, (a[group], b[group])


def draw(probabilities, starts, local, rng):
    """For each query of a chunk (``local``: its pattern), the index of a list drawn from its pattern's
    probabilities (flattened, each pattern's from ``starts`` and summing to 1): one uniform draw per query."""
    cumulative = np.cumsum(probabilities)
    before = np.append(0.0, cumulative)[starts]
    ends = np.append(starts[1:], len(probabilities))
    picked = np.searchsorted(cumulative, before[local] + rng.random_sample(len(local)), side="right")
    return np.clip(picked, starts[local], ends[local] - 1)
