"""Condorcet fusion: pairwise majority votes between a query's candidates, for many queries at once.

Montague and Aslam (2002) rank the candidates by sorting them with the
majority vote of the runs as the comparison. Where that majority relation is
an order (transitive, without tied votes), every correct sort gives one
ranking, and a document's place in it is the number of documents that beat
it; ranx's score is then ``N - place``. Where votes tie or cycle, a sort's
result depends on the sort and on the input order (ranx's comparison also
orders two documents that a run lacks by the order of its arguments, and its
input order is that of a Python set). This module counts instead, the same
order where there is one and a defined one everywhere:

.. math:: \\mathrm{score}(d) = N - \\#\\{e : e \\text{ beats } d\\} - \\tfrac12\\,\\#\\{e \\ne d : \\text{tie}\\}

A run votes for ``d`` over ``e`` with its weight when it ranks ``d`` above
``e`` (a document it did not retrieve ranks below all it did; two it did not
retrieve, or two tied in score, get no vote); ``d`` beats ``e`` when its
votes exceed ``e``'s (equal up to rounding: a tie).
"""

import numpy as np

from .._core._numpy_ops import segment_rows, size_classes

# Cells of the (queries x N x N) vote matrices computed at a time: a query's N**2 pairs are the work itself,
# and chunks of queries keep the memory bounded whatever the number of queries.
CHUNK_CELLS = 2**22


def condorcet_scores(lists, rank, weights):
    """The Condorcet score of every candidate; ``rank``: each row's (average) rank in its run's list."""
    n_queries = max(lists.n_queries, 1)
    candidates = np.argsort(lists.candidate_query, kind="stable")
    sizes = np.bincount(lists.candidate_query, minlength=n_queries)
    starts = np.cumsum(sizes) - sizes
    place = np.empty(lists.n_candidates, dtype=np.intp)  # each candidate's place among its query's
    place[candidates] = np.arange(lists.n_candidates) - np.repeat(starts, sizes)
    by_query = np.argsort(lists.query, kind="stable")  # the rows of each query together
    row_counts = np.bincount(lists.query, minlength=n_queries)
    grouping = (by_query, np.cumsum(row_counts) - row_counts, row_counts, candidates, starts, sizes)
    scores = np.zeros(lists.n_candidates)
    tolerance = 1e-12 * np.abs(weights).sum()
    integral = np.array_equal(weights, np.round(weights)) and np.abs(weights).sum() < 2**15
    for members in size_classes(sizes):
        members = members[sizes[members] > 0]
        if not len(members):
            continue
        width = int(sizes[members].max())
        per_chunk = max(CHUNK_CELLS // (width * width), 1)
        for first in range(0, len(members), per_chunk):  # a chunk of queries per pass, not a query
            chunk = members[first : first + per_chunk]
            scores_of_chunk(lists, rank, weights, chunk, width, (place, *grouping), scores, tolerance, integral)
    return scores


def scores_of_chunk(lists, rank, weights, queries, width, grouping, scores, tolerance, integral):
    """Condorcet scores of the candidates of ``queries`` (each at most ``width``), written into ``scores``."""
    place, by_query, row_starts, row_counts, candidates, starts, sizes = grouping
    rows = by_query[segment_rows(row_starts[queries], row_counts[queries])[0]]
    slot = np.full(max(lists.n_queries, 1), -1, dtype=np.intp)  # the chunk's queries: 0, 1, ...
    slot[queries] = np.arange(len(queries))
    # Each run's ranks as a (queries x width) matrix: inf where the run lacks the candidate (and in padding).
    kind = np.int16 if integral else np.float64
    margin = np.zeros((len(queries), width, width), dtype=kind)
    for run in range(lists.n_runs):  # a pass per run, each over the chunk's pairs
        ranks = np.full((len(queries), width), np.inf)
        mine = rows[lists.run[rows] == run]
        ranks[slot[lists.query[mine]], place[lists.candidate[mine]]] = rank[mine]
        above = ranks[:, :, None] < ranks[:, None, :]
        vote = (above.astype(kind) - np.swapaxes(above, 1, 2).astype(kind)) * kind(weights[run])
        margin += vote  # margin[q, d, e] > 0: d beats e
    sizes = sizes[queries]
    real = np.arange(width) < sizes[:, None]
    pair = real[:, :, None] & real[:, None, :]
    beaten = ((margin < -tolerance) & pair).sum(axis=2)  # d loses to e
    tied = ((np.abs(margin) <= tolerance) & pair).sum(axis=2) - 1  # d ties with itself
    score = sizes[:, None] - beaten - 0.5 * tied
    candidate = candidates[segment_rows(starts[queries], sizes)[0]]
    scores[candidate] = score[slot[lists.candidate_query[candidate]], place[candidate]]
