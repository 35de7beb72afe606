"""Large fusions a piece of the queries at a time, the pieces side by side on the library's threads.

Every method, normalisation and tie rule works within one query, so runs cut
between queries fuse piece by piece to the same fused run, bit for bit: a
piece keeps each run's rows in their order, so every sum adds the same
numbers in the same order. Pieces of about :data:`PIECE_ROWS` rows are
faster even on one core: a piece's arrays stay in the cache, and in malloc's
heap (an array freed there is reused at once, where the arrays of a whole
large fusion are returned to the system and fault in again, page by page,
each time one is made). The pieces run on
:func:`~sklearn_rankmetrics._core._parallel.map_in_threads` (numpy releases
the GIL in its sorts and loops). A callable method is not cut: it is called
once, on every document of every query, as :func:`~._fuse.fuse` documents.
"""

import itertools

import numpy as np

from .._core._parallel import map_in_threads
from ..trec._general_reader import text
from ..trec._io import Run
from ._lists import joined_ids, query_blocks

# Rows of a piece: a few MB per array at most, and twenty pieces to share among the threads at 5 million rows
# (2**17 to 2**19 time alike at 1,000 queries x 1,000 documents x 5 runs; 2**20 and more fault in more memory).
PIECE_ROWS = 2**18


def query_pieces(runs, piece_rows=None):
    """The runs (checked Run objects, byte-string ids) cut into pieces of whole queries.

    Returns a list of pieces, each a list with one Run per run (perhaps
    empty) holding the rows of the piece's queries in their order. One
    piece (the runs themselves) where
    they hold at most ``piece_rows`` rows (:data:`PIECE_ROWS` when None).
    The queries are dealt into pieces in the order the runs list them, so
    that each piece of a run is a slice of it where the runs list their
    queries alike (as runs of one collection do, whatever that order); a
    run that lists them otherwise has its rows gathered, in order. A run
    lists a query's rows together (a query listed in several places keeps
    them all): only the first row of each block of a query is looked up.
    """
    piece_rows = PIECE_ROWS if piece_rows is None else piece_rows
    n_rows = sum(len(run.score) for run in runs)
    if n_rows <= piece_rows:
        return [runs]
    vocabulary, head_codes, head_sizes = query_blocks([run.query_id for run in runs])
    codes, sizes = np.concatenate(head_codes), np.concatenate(head_sizes)
    query_rows = np.bincount(codes, sizes, len(vocabulary))
    listed = np.unique(codes, return_index=True)[1]  # each query's first block among the runs' blocks
    by_listing = np.argsort(listed)  # the queries in the order the runs list them
    rows_before = np.cumsum(query_rows[by_listing]) - query_rows[by_listing]
    n_pieces = -(-n_rows // piece_rows)
    piece_of_query = np.empty(len(vocabulary), dtype=np.intp)
    piece_of_query[by_listing] = rows_before * n_pieces // n_rows
    cut = [
        run_pieces(run, piece_of_query[head_code], head_size, n_pieces)
        for run, head_code, head_size in zip(runs, head_codes, head_sizes, strict=True)
    ]
    kept = np.unique(piece_of_query)
    return [[run_piece[piece] for run_piece in cut] for piece in kept]


def run_pieces(run, piece_of_head, head_sizes, n_pieces):
    """One run's rows of each piece, as ``n_pieces`` Run objects: slices where the run lists the pieces' queries
    piece after piece, else the rows gathered, in order, piece by piece."""
    if np.all(piece_of_head[1:] >= piece_of_head[:-1]):
        bounds = np.searchsorted(piece_of_head, np.arange(n_pieces + 1))
        row_bounds = np.concatenate(([0], np.cumsum(head_sizes)))[bounds]
        pieces = [slice(start, stop) for start, stop in itertools.pairwise(row_bounds)]
    else:
        piece_of_row = np.repeat(piece_of_head, head_sizes)
        order = np.argsort(piece_of_row, kind="stable")
        bounds = np.searchsorted(piece_of_row[order], np.arange(n_pieces + 1))
        pieces = [order[start:stop] for start, stop in itertools.pairwise(bounds)]
    return [Run(run.query_id[rows], run.doc_id[rows], run.score[rows], run.name) for rows in pieces]


def joined_run(fused, name):
    """The fused rows of the pieces as one Run, by query id.

    ``fused`` holds, for each piece, its query ids (sorted byte strings), its
    fused rows' document ids and scores (by query, each query in trec_eval's
    order) and its number of rows of each query. The pieces hold queries in
    the order the runs list them: their blocks of queries are dealt into the
    order of query id, and the ids become str, a part of the rows per task
    on the library's threads, written into the Run's arrays (no whole-size
    temporary: fresh memory is slow to fault in).
    """
    query_ids = joined_ids([piece[0] for piece in fused])
    sizes = np.concatenate([piece[3] for piece in fused])
    doc_id = joined_ids([piece[1] for piece in fused])
    score = np.concatenate([piece[2] for piece in fused])
    order = np.argsort(query_ids, kind="stable")  # each query in one piece: distinct ids
    query_text, sizes, starts = text(query_ids[order]), sizes[order], (np.cumsum(sizes) - sizes)[order]
    if doc_id.dtype.kind != "S" or (len(doc_id) and doc_id.view(np.uint8).max() >= 128):
        rows = np.repeat(starts - (np.cumsum(sizes) - sizes), sizes) + np.arange(len(doc_id))
        return Run(np.repeat(query_text, sizes), text(doc_id[rows]), score[rows], name)
    out = Run(np.empty(len(doc_id), query_text.dtype), np.empty(len(doc_id), f"U{doc_id.itemsize}"), score.copy(), name)
    ends = np.cumsum(sizes)
    bounds = np.unique(np.searchsorted(ends, np.arange(0, len(doc_id), max(PIECE_ROWS // 2, 1)), side="right"))

    def deal(first, last):  # the blocks first..last-1 of the output
        low, high = int(ends[first] - sizes[first]), int(ends[last - 1])
        block_sizes = sizes[first:last]
        rows = np.repeat(starts[first:last] - (ends[first:last] - block_sizes - low), block_sizes)
        rows += np.arange(high - low, dtype=rows.dtype)
        out.query_id[low:high] = np.repeat(query_text[first:last], block_sizes)
        out.doc_id[low:high] = text(doc_id[rows])
        out.score[low:high] = score[rows]

    map_in_threads(deal, bounds, np.append(bounds[1:], len(sizes)))
    return out
