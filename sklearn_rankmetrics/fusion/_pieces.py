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
The supervised methods learn from the same pieces: their training rows are
written back in the whole's order (:meth:`~._training.TrainingRows.joined`)
before any sum over queries, so they learn the same, bit for bit.
"""

import itertools

import numpy as np

from .._core._parallel import map_in_threads
from ..trec._general_reader import text
from ..trec._io import Run
from ._engine import training_rows
from ._judgements import judged_candidates
from ._lists import joined_ids, query_blocks, table_of
from ._training import TrainingRows

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


def in_pieces(function, pieces, whole):
    """``function`` of each piece, on the library's threads.

    Where a piece raises a ValueError (a run or the qrels naming a document
    twice), ``whole()`` raises the error the whole runs give, whatever piece
    failed first, so that the message never depends on the runs' size.
    """
    try:
        return map_in_threads(function, pieces)
    except ValueError:
        if len(pieces) > 1:
            try:
                whole()
            except ValueError as error:
                raise error from None
        raise


def piece_tables(read, names, pieces):
    """The :class:`~._lists.RunsTable` of each piece of the runs ``read`` (named ``names``)."""
    return in_pieces(lambda piece: table_of(piece, names), pieces, lambda: table_of(read, names))


def training_in_pieces(spec, tables, qrels, whole):
    """The :class:`~._training.TrainingRows` of the pieces' tables, joined in the whole's order (queries coded as
    the whole codes them, by sorted id), and each query's number of relevant documents (-1: no training query).

    The whole's order makes every learned statistic the same, bit for bit,
    as learned from the runs uncut. ``whole()`` raises the error of the
    whole runs' judgements where a piece's fail.
    """

    def piece_rows(table):
        relevance, n_relevant = judged_candidates(table, qrels)
        return training_rows(spec, table.lists, relevance, n_relevant), n_relevant[: len(table.query_ids)]

    parts = in_pieces(piece_rows, tables, whole)
    query_ids = joined_ids([table.query_ids for table in tables])
    code = np.empty(len(query_ids), dtype=np.intp)
    code[np.argsort(query_ids, kind="stable")] = np.arange(len(query_ids))  # each query in one piece: distinct ids
    piece_codes = np.split(code, np.cumsum([len(table.query_ids) for table in tables])[:-1])
    n_relevant = np.full(max(len(query_ids), 1), -1, dtype=np.int64)
    for (_, counts), codes in zip(parts, piece_codes, strict=True):
        n_relevant[codes] = counts
    return TrainingRows.joined([rows for rows, _ in parts], piece_codes, len(query_ids)), n_relevant


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
    n_rows = len(doc_id)
    out = Run(np.empty(n_rows, query_text.dtype), np.empty(n_rows, f"U{doc_id.itemsize}"), np.empty(n_rows), name)
    ends = np.cumsum(sizes)
    bounds = np.unique(np.searchsorted(ends, np.arange(0, len(doc_id), max(PIECE_ROWS // 2, 1)), side="right"))

    def deal(first, last):  # the blocks first..last-1 of the output
        low, high = int(ends[first] - sizes[first]), int(ends[last - 1])
        block_sizes = sizes[first:last]
        rows = np.repeat(starts[first:last] - (ends[first:last] - block_sizes - low), block_sizes)
        rows += np.arange(high - low, dtype=rows.dtype)
        out.query_id[low:high] = np.repeat(query_text[first:last], block_sizes)
        # ASCII bytes (checked above) widened to characters straight into the output; take: twice as fast as
        # indexing for byte strings.
        characters = out.doc_id[low:high].view(np.uint32).reshape(high - low, doc_id.itemsize)
        np.copyto(characters, np.take(doc_id, rows).view(np.uint8).reshape(high - low, doc_id.itemsize))
        out.score[low:high] = score[rows]

    map_in_threads(deal, bounds, np.append(bounds[1:], len(sizes)))
    return out
