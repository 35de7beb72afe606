"""The runs to fuse as one table of rows: run, query, candidate document and score, from runs or from score columns.

A candidate is one (query, document) pair that some run retrieves; the fused
run scores every candidate once. Runs come in as anything the TREC readers
and ``evaluate_run`` take (:func:`~sklearn_rankmetrics.trec._sources.as_run`);
a grouped table (query ids and one score column per run, NaN where a run did
not retrieve the row's document) is already one row per candidate.
"""

from dataclasses import dataclass

import numpy as np

from .._core._numpy_ops import differs_from_previous
from .._core._query_ids import encode_qid
from .._core._validation import plain
from ..trec._io import Run
from ..trec._judging import GOLDEN, id_hash
from ..trec._sources import InputError, as_run, shown


@dataclass
class Lists:
    """Rows of several runs: each run's result list for each query, side by side.

    ``run``, ``query`` and ``candidate`` are integer codes of each row (run
    0..n_runs-1, query 0..n_queries-1, candidate 0..n_candidates-1), ``score``
    its float64 score. ``candidate_query`` is the query of each candidate.
    ``doc`` holds each row's document id as bytes (for trec_eval's order of
    ties); None where the rows have none (a table).
    """

    run: np.ndarray
    query: np.ndarray
    candidate: np.ndarray
    score: np.ndarray
    n_runs: int
    candidate_query: np.ndarray
    doc: np.ndarray | None = None

    @property
    def n_queries(self):
        return int(self.candidate_query.max()) + 1 if len(self.candidate_query) else 0

    @property
    def n_candidates(self):
        return len(self.candidate_query)

    def take(self, rows):
        """The lists of the rows ``rows`` only (same codes)."""
        doc = None if self.doc is None else self.doc[rows]
        return Lists(
            self.run[rows], self.query[rows], self.candidate[rows], self.score[rows], self.n_runs, self.candidate_query, doc
        )


@dataclass
class RunsTable:
    """Runs read into :class:`Lists`, with the query and document ids to write the fused run back."""

    lists: Lists
    query_ids: np.ndarray  # bytes, by query code (sorted)
    candidate_doc: np.ndarray  # bytes, by candidate code
    names: tuple  # each run's name: its key in a mapping, else its tag


def read_runs(runs, what="runs"):
    """The runs to fuse, as Run objects with byte-string ids, and their names.

    ``runs`` is a sequence or a mapping name -> run of anything
    :func:`~sklearn_rankmetrics.trec.evaluate_run` takes as a run.
    """
    if isinstance(runs, str | bytes) or hasattr(runs, "read") or isinstance(runs, Run) or hasattr(runs, "columns"):
        raise TypeError(
            f"{what} must be a list (or a dict name -> run) of two or more runs; got a single "
            f"{type(runs).__name__}. Pass [run_a, run_b]."
        )
    if isinstance(runs, dict) and runs and all(isinstance(value, dict) for value in runs.values()):
        first = next(iter(runs.values()))
        if first and not all(isinstance(value, dict) for value in first.values()):
            raise TypeError(
                f"{what} is one run dict {{query_id: {{doc_id: score}}}}; fusion needs two or more: pass a list "
                "[run_a, run_b] or a dict {name: run}."
            )
    if isinstance(runs, dict):
        names, sources = tuple(str(name) for name in runs), list(runs.values())
    else:
        try:
            sources = list(runs)
        except TypeError:
            raise TypeError(
                f"{what} must be a list (or a dict name -> run) of runs; got {type(runs).__name__}."
            ) from None
        names = None
    read = []
    for index, source in enumerate(sources):
        try:
            read.append(as_run(source))
        except InputError as error:
            raise InputError(error.source, f"run {index} of {what}: {error}") from None
    if names is None:
        names = tuple(run.name or f"run{index}" for index, run in enumerate(read))
    return read, names


def runs_table(runs, what="runs", min_runs=2):
    """Several runs (see :func:`read_runs`) as :class:`RunsTable`: their rows, encoded."""
    read, names = read_runs(runs, what)
    if len(read) < min_runs:
        raise ValueError(f"{what} holds {len(read)} run(s); fusion needs at least {min_runs}.")
    query_id = joined_ids([run.query_id for run in read])
    doc_id = joined_ids([run.doc_id for run in read])
    score = np.concatenate([run.score for run in read]) if read else np.zeros(0)
    run = np.repeat(np.arange(len(read), dtype=np.int32), [len(r.score) for r in read])
    query_ids, query = query_codes(query_id)
    candidate, first_row = candidate_codes(query, doc_id)
    check_listed_once(run, candidate, len(read), (query_ids, query, doc_id, names))
    lists = Lists(run, query, candidate, score, len(read), query[first_row], doc_id)
    return RunsTable(lists, query_ids, doc_id[first_row], names)


def joined_ids(arrays):
    """Byte-string id arrays end to end: fixed width when all are, else bytes objects."""
    if not arrays:
        return np.zeros(0, dtype="S1")
    if all(array.dtype.kind == "S" for array in arrays):
        return np.concatenate(arrays)
    return np.concatenate([array.astype(object) for array in arrays])


def query_codes(query_id):
    """The sorted distinct query ids and the code of each row (runs list a query's rows together: heads only)."""
    if not len(query_id):
        return query_id[:0], np.zeros(0, dtype=np.intp)
    heads = np.flatnonzero(differs_from_previous(query_id))
    vocabulary = np.unique(query_id[heads])
    codes = np.searchsorted(vocabulary, query_id[heads])
    return vocabulary, np.repeat(codes, np.diff(heads, append=len(query_id)))


def candidate_codes(query, doc_id):
    """A code per distinct (query, document) pair, and the first row of each code.

    The pairs are hashed to 64 bits and the hashes made unique (one sort);
    every row is then checked to hold its code's document, and the rare
    collision falls back to an exact sort of the ids.
    """
    if not len(query):
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    key = query.astype(np.uint64) * GOLDEN
    key ^= id_hash(doc_id)
    _, first_row, candidate = np.unique(key, return_index=True, return_inverse=True)
    candidate = candidate.reshape(-1)
    if np.array_equal(doc_id[first_row[candidate]], doc_id) and np.array_equal(query[first_row[candidate]], query):
        return candidate, first_row
    order = np.lexsort((doc_id, query))
    starts = differs_from_previous(doc_id[order]) | differs_from_previous(query[order])
    codes = np.empty(len(order), dtype=np.intp)
    codes[order] = np.cumsum(starts) - 1
    return codes, order[starts]


def check_listed_once(run, candidate, n_runs, names):
    """Refuse a run that lists one document twice for a query, as trec_eval refuses it."""
    key = candidate.astype(np.int64) * n_runs + run
    sorted_key = np.sort(key)
    repeated = sorted_key[1:][sorted_key[1:] == sorted_key[:-1]]
    if len(repeated):
        query_ids, query, doc_id, run_names = names
        row = int(np.flatnonzero(key == repeated[0])[0])
        raise InputError(
            "run",
            f"run {run_names[run[row]]!r} retrieves document {shown(doc_id[row])} twice for query "
            f"{shown(query_ids[query[row]])}; a run lists each document once per query.",
        )


def table_lists(scores, qid):
    """Score columns of one grouped table as :class:`Lists`: a column per run, a candidate per scored row.

    ``scores`` is a 2-D float array (NaN: the column's run did not retrieve
    the row's document); ``qid`` the query of each row (None: one query).
    Returns the lists and the row of each candidate: a row that no column
    scores is no candidate (no run retrieved it).
    """
    n_rows, n_runs = scores.shape
    codes = encode_qid(qid, n_rows) if qid is not None else np.zeros(n_rows, dtype=np.intp)
    present = ~np.isnan(scores)
    scored = np.flatnonzero(present.any(axis=1))
    candidate_of_row = np.full(n_rows, -1, dtype=np.intp)
    candidate_of_row[scored] = np.arange(len(scored))
    row, run = np.nonzero(present)
    lists = Lists(run.astype(np.int32), codes[row], candidate_of_row[row], scores[row, run], n_runs, codes[scored])
    return lists, scored


def check_table(scores, name="X"):
    """A 2-D float64 array of score columns; ±inf is refused (a score ranks; NaN marks a missing one)."""
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 2:
        raise ValueError(
            f"{name} must be 2-D, a row per document and a column per run's score; got shape {scores.shape}."
        )
    if np.isinf(scores).any():
        row, column = np.argwhere(np.isinf(scores))[0]
        raise ValueError(
            f"{name} holds {plain(scores[row, column])!r} at row {row}, column {column}; give finite scores, and NaN "
            "where a run did not retrieve the document."
        )
    return scores
