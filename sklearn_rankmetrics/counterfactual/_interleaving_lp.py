"""Optimized interleaving (Radlinski and Craswell 2013): the candidate lists and their distribution, by a linear
programme per distinct pattern of ranks."""

import numpy as np
from scipy.optimize import linprog

from .._core._warnings import warn


def candidate_lists(a, b, length):
    """Every list of ``length`` whose prefixes are unions of prefixes of ``a`` and ``b`` (one query's rankings,
    ``-1`` padded), each once: the lists made by choosing, at each rank, the top document of ``a`` or of ``b`` not
    yet shown."""
    choices = (np.arange(2**length)[:, None] >> np.arange(length)) & 1  # (candidates, length): 0 takes from a
    lists = np.full(choices.shape, -1)
    both = np.stack([a, b])
    for rank in range(length):
        shown = lists[:, :rank]
        taken = (both[None, :, :, None] == shown[:, None, None, :]).any(axis=3) | (both[None] < 0)
        top = np.where(taken, np.inf, np.arange(both.shape[1]))  # (candidates, 2, width)
        first = top.argmin(axis=2)
        has = np.isfinite(top.min(axis=2))
        side = np.where(has[np.arange(len(choices)), choices[:, rank]], choices[:, rank], 1 - choices[:, rank])
        cell = first[np.arange(len(choices)), side]
        found = has.any(axis=1)
        lists[:, rank] = np.where(found, both[side, cell], -1)
    return np.unique(lists, axis=0)


def rank_credits(lists, ranking):
    """1/rank of each listed document in ``ranking`` (one past its end for a document not in it)."""
    match = (ranking[None, None, :] == lists[:, :, None]) & (lists[:, :, None] >= 0)
    ranks = np.where(match.any(axis=2), match.argmax(axis=2) + 1, (ranking >= 0).sum() + 1)
    return np.where(lists >= 0, 1.0 / ranks, 0.0)


def list_distribution(lists, a, b):
    """The probabilities of the candidate ``lists`` that solve the linear programme.

    Constraints: for every depth k, a user who clicks one of the top k at
    random gives the two rankers the same expected credit (1/rank). Objective:
    the least expected squared difference of the rankers' credits under a user
    who clicks rank i with probability proportional to 1/i.
    """
    delta = rank_credits(lists, a) - rank_credits(lists, b)
    depth = np.cumsum(delta, axis=1).T  # (length, candidates)
    clicker = 1.0 / np.arange(1, lists.shape[1] + 1)
    objective = (delta @ (clicker / clicker.sum())) ** 2
    equalities = np.vstack([np.ones(len(lists)), depth])
    solved = linprog(objective, A_eq=equalities, b_eq=np.r_[1.0, np.zeros(len(depth))], bounds=(0, 1), method="highs")
    if not solved.success:
        warn(
            "optimized interleaving found no distribution that is unbiased at every depth for a query; it shows that "
            "query's candidate lists uniformly.",
            RuntimeWarning,
        )
        return np.full(len(lists), 1.0 / len(lists))
    probabilities = np.clip(solved.x, 0.0, None)
    return probabilities / probabilities.sum()


def optimized_lists(a, b, length, rng):
    """One list drawn per query from its optimized distribution; queries whose rankings match in pattern (the
    rank of each document in the other ranking) share one linear programme."""
    a, b = (np.pad(r, ((0, 0), (0, max(a.shape[1], b.shape[1]) - r.shape[1])), constant_values=-1) for r in (a, b))
    n_queries = len(a)
    # Each query's pattern: its rankings with documents renamed by their first place in a, then in b.
    union = np.concatenate([a, b], axis=1)
    first = (union[:, :, None] == union[:, None, :]).argmax(axis=2)
    pattern = np.where(union >= 0, first, -1)
    keys, which = np.unique(pattern, axis=0, return_inverse=True)
    chosen = np.full((n_queries, length), -1)
    width = a.shape[1]
    for index, key in enumerate(keys):
        lists = candidate_lists(key[:width], key[width:], length)
        probabilities = list_distribution(lists, key[:width], key[width:])
        members = np.flatnonzero(which.reshape(-1) == index)
        picks = rng.choice(len(lists), size=len(members), p=probabilities)
        # Back from the pattern's names (places in the union) to the query's documents.
        named = lists[picks]
        chosen[members] = np.where(named >= 0, union[members[:, None], np.maximum(named, 0)], -1)
    return chosen, None
