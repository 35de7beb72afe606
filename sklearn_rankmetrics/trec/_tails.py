"""Leaving out the unjudged tails of the rankings: the documents below each query's last judged one.

A run retrieves far more documents than anyone judged (1,000 per query
against one or two judged passages in MS MARCO), and every measure of
:data:`~._measures.TAIL_FREE` gets nothing from a document absent from the
qrels but its place, which only the documents above a judged one need, and
its count, num_ret. When only such measures are asked for, the evaluation
counts each query's retrieved documents and then ranks only those down to its
last judged one (and at least its first, so that the query keeps a ranking):
the rest of the work runs on a small part of the run.
"""

import numpy as np

from .._core._numpy_ops import differs_from_previous
from ._measures import NONPOOL


def kept_rows(starts, last, n_rows):
    """The rows from each segment's start (``starts``) down to its ``last`` row, in order."""
    # +1 at each segment's first row, -1 after its last kept one: the running sum marks the rows kept.
    steps = np.zeros(n_rows + 1, dtype=np.int8)
    steps[starts] = 1
    steps[last + 1] -= 1
    return np.flatnonzero(np.cumsum(steps[:-1], dtype=np.int8))


def last_judged(starts, judged_rows):
    """Each segment's last row among ``judged_rows`` (increasing), or its first row where it has none."""
    last = starts.copy()
    segment = np.searchsorted(starts, judged_rows, "right") - 1
    is_last = np.append(segment[1:] != segment[:-1], True)[: len(segment)]
    last[segment[is_last]] = judged_rows[is_last]
    return last


def down_to_last_judged(code, raw):
    """The rows (in rank order, grouped by query ``code``) down to each query's last judged one, and its first.

    ``raw`` holds each row's judgement, or NONPOOL for a document absent from
    the qrels: those are the rows left out below.
    """
    starts = np.flatnonzero(differs_from_previous(code))
    return kept_rows(starts, last_judged(starts, np.flatnonzero(raw != NONPOOL)), len(code))


def down_to_last_judged_tie(code, score, judged_rows):
    """For a run listed query by query, each by non-increasing score: the rows down to each query's last judged
    one with the rest of its tie (and at least its first); None for a run listed otherwise.

    The rows below rank below every row kept, whatever breaks the ties
    (trec_eval: descending document id), so the run is left in file order:
    the rows kept are ranked afterwards, far fewer. ``code`` is each row's
    query and ``judged_rows`` the rows found in the qrels, increasing.
    """
    if not len(code):
        return None
    is_start = differs_from_previous(code)
    starts = np.flatnonzero(is_start)
    if len(np.unique(code[starts])) != len(starts):
        return None  # a query's rows apart
    same_query = np.logical_not(is_start[1:], out=is_start[1:])  # in place: is_start is done with
    step = np.empty(len(code) - 1, dtype=bool)
    if np.any(np.greater(score[1:], score[:-1], out=step) & same_query):
        return None  # a score above the one before it
    last = last_judged(starts, judged_rows)
    # Each last row's tie: the rows after it of equal score in its query, a streak of tied rows.
    tied = np.flatnonzero(np.equal(score[1:], score[:-1], out=step) & same_query) + 1  # rows tied with the one above
    if len(tied):
        streak_ends = tied[np.append(np.flatnonzero(np.diff(tied) != 1), len(tied) - 1)]
        place = np.minimum(np.searchsorted(tied, last + 1), len(tied) - 1)
        in_streak = tied[place] == last + 1
        last[in_streak] = streak_ends[np.searchsorted(streak_ends, last[in_streak] + 1)]
    return kept_rows(starts, last, len(code))
