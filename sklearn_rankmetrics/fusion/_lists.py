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
from .._core._parallel import map_in_threads
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
            self.run[rows],
            self.query[rows],
            self.candidate[rows],
            self.score[rows],
            self.n_runs,
            self.candidate_query,
            doc,
        )


@dataclass
class RunsTable:
    """Runs read into :class:`Lists`, with the query and document ids to write the fused run back."""

    lists: Lists
    query_ids: np.ndarray  # bytes, by query code (sorted)
    candidate_doc: np.ndarray  # bytes, by candidate code
    names: tuple  # each run's name: its key in a mapping, else its tag


def read_runs(runs, what="runs", min_runs=2):
    """The runs to fuse, as Run objects with byte-string ids, and their names.

    ``runs`` is a sequence or a mapping name -> run of anything
    :func:`~sklearn_rankmetrics.trec.evaluate_run` takes as a run, at least
    ``min_runs`` of them. They are read side by side on the library's threads.
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
    read = map_in_threads(lambda index, source: checked_run(index, source, what), range(len(sources)), sources)
    if len(read) < min_runs:
        raise ValueError(f"{what} holds {len(read)} run(s); fusion needs at least {min_runs}.")
    if names is None:
        names = tuple(run.name or f"run{index}" for index, run in enumerate(read))
    return read, names


def checked_run(index, source, what):
    """Run ``index`` of ``what`` as a checked Run with byte-string ids."""
    if isinstance(source, Run):  # read_run's str ids: to bytes at memory speed where they are ASCII
        source = Run(ascii_bytes(source.query_id), ascii_bytes(source.doc_id), source.score, source.name)
    try:
        return as_run(source)
    except InputError as error:
        raise InputError(error.source, f"run {index} of {what}: {error}") from None
    except ValueError as error:  # an id no TREC file can hold, columns of different lengths
        raise ValueError(f"run {index} of {what}: {error}") from None
    except TypeError as error:
        hint = " (a ranx Run: pass run.to_dict())" if hasattr(source, "to_dict") else ""
        raise TypeError(
            f"run {index} of {what} is a {type(source).__name__}{hint}: each run is a path to a TREC run file, "
            f"a dict {{query_id: {{doc_id: score}}}}, a DataFrame or a Run. ({error})"
        ) from None


def ascii_bytes(ids):
    """Fixed-width str ids that are all ASCII as fixed-width bytes (one byte per character), as wide as the longest
    id; others unchanged.

    numpy's cast encodes one string at a time; ASCII needs only the low byte
    of each 4-byte character (:func:`~sklearn_rankmetrics.trec._io.text` is
    the reverse), and only of the characters up to the longest id's length
    (str ids made by numpy are often far wider than their text).
    """
    if not isinstance(ids, np.ndarray) or ids.dtype.kind != "U" or not ids.size or ids.dtype.itemsize == 0:
        return ids
    characters = np.ascontiguousarray(ids).view(np.uint32).reshape(ids.size, -1)
    columns = columns_or(characters)  # in one pass: ASCII below 128, the width up to the last character used
    if columns.max() >= 128:
        return ids
    width = int(np.flatnonzero(columns)[-1]) + 1 if columns.any() else 1
    return characters[:, :width].astype(np.uint8).view(f"S{width}").reshape(ids.shape)


def columns_or(matrix):
    """The bitwise or of each column of a C-contiguous 2-D array of unsigned integers.

    numpy reduces over the first axis a short row at a time; rows side by
    side, a few thousand values long, reduce at memory speed, then fold.
    """
    n_rows, width = matrix.shape
    side_by_side = max(1, 4096 // width)
    whole = n_rows - n_rows % side_by_side
    folded = np.bitwise_or.reduce(matrix[:whole].reshape(-1, side_by_side * width), axis=0)
    columns = np.bitwise_or.reduce(folded.reshape(side_by_side, width), axis=0)
    return columns | np.bitwise_or.reduce(matrix[whole:], axis=0)


def runs_table(runs, what="runs", min_runs=2):
    """Several runs (see :func:`read_runs`) as :class:`RunsTable`: their rows, encoded."""
    return table_of(*read_runs(runs, what, min_runs))


def table_of(read, names):
    """Runs as :func:`read_runs` gives them (and their names) as :class:`RunsTable`."""
    doc_id = joined_ids([run.doc_id for run in read])
    score = np.concatenate([run.score for run in read]) if read else np.zeros(0)
    run = np.repeat(np.arange(len(read), dtype=np.int32), [len(r.score) for r in read])
    query_ids, head_codes, head_sizes = query_blocks([run.query_id for run in read])
    query = np.repeat(np.concatenate(head_codes), np.concatenate(head_sizes)) if read else np.zeros(0, dtype=np.intp)
    candidate, first_row = candidate_codes(query, doc_id)
    check_listed_once(run, candidate, len(read), (query_ids, query, doc_id, names))
    lists = Lists(run, query, candidate, score, len(read), query[first_row], doc_id)
    return RunsTable(lists, query_ids, np.take(doc_id, first_row), names)  # take: twice as fast for byte strings


def joined_ids(arrays):
    """Byte-string id arrays end to end: fixed width when all are, else bytes objects."""
    if not arrays:
        return np.zeros(0, dtype="S1")
    if all(array.dtype.kind == "S" for array in arrays):
        return np.concatenate([trimmed(array) for array in arrays])
    return np.concatenate([array.astype(object) for array in arrays])


def trimmed(ids):
    """Fixed-width byte strings at the width of the longest (str ids made by numpy are often far wider than their
    text): every later pass over their bytes (hash, comparisons, copies) reads only those.

    The ids are checked (no NUL inside one), so the longest one's length
    (up to the zero padding) is the width they need.
    """
    if not len(ids) or ids.dtype.itemsize <= 1:
        return ids
    columns = np.ascontiguousarray(ids).view(np.uint8).reshape(len(ids), ids.dtype.itemsize)
    if columns[:, -1].any():  # the last byte holds a longest id's
        return ids
    width = max(int(np.strings.str_len(ids).max()), 1)
    return np.ascontiguousarray(columns[:, :width]).view(f"S{width}").reshape(-1)


def query_blocks(query_ids):
    """The sorted distinct query ids of several arrays of them, and each array's blocks: the code and the number of
    rows of each block of rows of one query. Runs list a query's rows together: only each block's first id is
    looked up."""
    heads = [np.flatnonzero(ids_differ_from_previous(ids)) for ids in query_ids]
    head_ids = [ids[head] for ids, head in zip(query_ids, heads, strict=True)]
    vocabulary, codes = np.unique(joined_ids(head_ids), return_inverse=True)
    head_codes = np.split(codes.reshape(-1), np.cumsum([len(head) for head in heads])[:-1])
    head_sizes = [np.diff(head, append=len(ids)) for ids, head in zip(query_ids, heads, strict=True)]
    return vocabulary, head_codes, head_sizes


def key_bits(query):
    """How many leading bits of a 64-bit key fit beside the query code and the row (:func:`sorted_by_query_and_key`)."""
    return 64 - max((len(query) - 1).bit_length(), 1) - max(int(query.max()).bit_length(), 1)


def sorted_by_query_and_key(query, key):
    """The rows ordered by query code, then by the leading :func:`key_bits` of ``key`` (row order within ties).

    One ``np.sort`` of 64-bit words (several times faster than an argsort):
    the query code in the high bits, the key's leading bits in the middle,
    the row in the low bits. Returns the rows in that order and each row's
    word without its row bits (equal words: same query, same leading key
    bits). ``key`` (uint64) is overwritten.
    """
    n = len(query)
    row_bits = max((n - 1).bit_length(), 1)
    query_bits = max(int(query.max()).bit_length(), 1)
    key >>= np.uint64(query_bits + row_bits)
    key <<= np.uint64(row_bits)
    packed = query.astype(np.uint64) << np.uint64(64 - query_bits)
    packed |= key
    del key
    packed |= np.arange(n, dtype=np.uint64)
    packed.sort()
    rows = (packed & np.uint64(2**row_bits - 1)).astype(np.intp)
    packed >>= np.uint64(row_bits)
    return rows, packed


def candidate_codes(query, doc_id):
    """A code per distinct (query, document) pair, numbered by query, and the first row of each code.

    One packed sort (:func:`sorted_by_query_and_key`) by query and a key of
    the document: equal pairs then lie side by side. Short ids (see
    :func:`descending_spans`) are their own key, exactly, so each query's
    candidates are numbered by descending id (trec_eval's order of tied
    scores, which :func:`~._fuse.fused_order` then has for free); other ids
    are hashed, each row is checked to hold its group's document, and the
    groups where a hash collided are split exactly.
    """
    n = len(query)
    if not n:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    bits = key_bits(query)
    if bits < 16:  # pragma: no cover - billions of rows: an exact sort
        return exact_candidate_codes(query, doc_id)
    word = id_word(doc_id)  # ids of at most 8 bytes as one integer each
    spans = descending_spans(word, bits)
    if spans is not None:
        spans <<= np.uint64(64 - bits)  # the key's leading bits: all of it
        rows, packed = sorted_by_query_and_key(query, spans)
        return grouped_codes(rows, differs_from_previous(packed))
    # Other ids of at most 8 bytes are hashed from their word, and compared by it below.
    hashed = id_hash(doc_id) if word is None else word * np.uint64(GOLDEN)
    rows, packed = sorted_by_query_and_key(query, hashed)
    starts = differs_from_previous(packed)
    del packed
    collided = differs_from_previous(word[rows]) if word is not None else ids_differ_from_previous(doc_id[rows])
    collided &= ~starts
    if not collided.any():
        return grouped_codes(rows, starts)
    # Distinct documents of a query whose hashes agree in their kept bits: split those groups.
    group, first = split_collisions(np.cumsum(starts) - 1, rows[np.flatnonzero(starts)], rows, collided, query, doc_id)
    candidate = np.empty(n, dtype=np.intp)
    candidate[rows] = group
    return candidate, first


def grouped_codes(rows, starts):
    """The code of each row and the first row of each code, from the rows in sorted order and where groups start."""
    first = rows[np.flatnonzero(starts)]  # an index array: far faster than a mask of random rows
    candidate = np.empty(len(rows), dtype=np.intp)
    candidate[rows] = np.cumsum(starts) - 1
    return candidate, first


def descending_spans(word, bits):
    """Ordered id words (:func:`id_word`) as their distances below the largest, shifted right past the low bits that
    are zero in all: integers below ``2**bits``, in descending order of the ids. None where there are no words or the
    distances need more than ``bits`` bits (ids longer than a few bytes that differ early)."""
    if word is None:
        return None
    word = word.max() - word
    common = int(np.bitwise_or.reduce(word))
    zeros = (common & -common).bit_length() - 1 if common else 0  # the low bits zero in every distance
    if (int(word.max()) >> zeros).bit_length() > bits:
        return None
    word >>= np.uint64(zeros)
    return word


def ids_differ_from_previous(ids):
    """Whether each id differs from the one before it (True for the first): exactly, fixed-width byte strings compared
    as machine words read in place (several times faster than comparing strings), other ids as they are."""
    if ids.dtype.kind != "S" or not len(ids):
        return differs_from_previous(ids)
    differs = np.zeros(len(ids), dtype=bool)
    differs[0] = True
    for word in overlapping_words(np.ascontiguousarray(ids)):
        differs[1:] |= word[1:] != word[:-1]
    return differs


def overlapping_words(ids):
    """Views of fixed-width byte-string ids as unsigned integers, one per id in each view, that together cover
    every byte of each id (they may overlap): two ids of the array are equal when all their words are.

    No copy is made, unlike :func:`~sklearn_rankmetrics._core._query_ids.id_words`'s zero-padded words; the
    words depend on the array's width, so they compare the ids of one array only.
    """
    width = ids.dtype.itemsize
    if width in (1, 2, 4, 8):
        return [ids.view(f"u{width}")]
    size = min(8, 1 << (width.bit_length() - 1))  # the widest word inside an id
    offsets = [*range(0, width - size + 1, size)]
    if offsets[-1] != width - size:
        offsets.append(width - size)  # the last word ends with the id, overlapping the one before
    return [np.ndarray(len(ids), dtype=f"u{size}", buffer=ids, offset=offset, strides=width) for offset in offsets]


def id_word(ids):
    """Fixed-width byte-string ids of at most 8 bytes as one 64-bit integer each, in the ids' own order (the bytes
    big-endian, zero padded): equal only for equal ids, to compare, hash and sort by. None for other ids.

    Built from the words of :func:`overlapping_words`, read in place: each
    byte at its place in the 8-byte word (the overlapping bytes agree).
    """
    if ids.dtype.kind != "S" or ids.dtype.itemsize > 8 or not len(ids):
        return None
    ids = np.ascontiguousarray(ids)
    width = ids.dtype.itemsize
    words = overlapping_words(ids)
    size = words[0].dtype.itemsize
    first, last = (word.view(f">u{size}").astype(np.uint64) for word in (words[0], words[-1]))
    first <<= np.uint64(8 * (8 - size))
    last <<= np.uint64(8 * (8 - width))
    first |= last
    return first


def split_collisions(group, first, rows, collided, query, doc_id):
    """Group codes with the groups that hold more than one document split exactly (new codes after the others)."""
    bad = np.zeros(len(first), dtype=bool)
    bad[group[collided]] = True
    places = np.flatnonzero(bad[group])
    exact, exact_first = exact_candidate_codes(query[rows[places]], doc_id[rows[places]])
    group = group.copy()
    group[places] = len(first) + exact
    first = np.concatenate((first, rows[places][exact_first]))
    kept = np.flatnonzero(np.bincount(group, minlength=len(first)) > 0)  # the split groups' old codes go
    renumber = np.full(len(first), -1, dtype=np.intp)
    renumber[kept] = np.arange(len(kept))
    return renumber[group], first[kept]


def exact_candidate_codes(query, doc_id):
    """Candidate codes by an exact sort of the (query, document) pairs."""
    order = np.lexsort((doc_id, query))
    starts = differs_from_previous(doc_id[order]) | differs_from_previous(query[order])
    codes = np.empty(len(order), dtype=np.intp)
    codes[order] = np.cumsum(starts) - 1
    return codes, order[starts]


def check_listed_once(run, candidate, n_runs, names):
    """Refuse a run that lists one document twice for a query, as trec_eval refuses it (``run`` non-decreasing)."""
    seen = np.zeros(int(candidate.max(initial=-1)) + 1, dtype=bool)
    bounds = np.searchsorted(run, np.arange(n_runs + 1))
    for index in range(n_runs):  # a pass per run (few): its candidates are distinct when it marks as many as it has
        mine = candidate[bounds[index] : bounds[index + 1]]
        seen[:] = False
        seen[mine] = True
        if np.count_nonzero(seen) < len(mine):
            query_ids, query, doc_id, run_names = names
            row = bounds[index] + first_repeat(mine)
            raise InputError(
                "run",
                f"run {run_names[index]!r} retrieves document {shown(doc_id[row])} twice for query "
                f"{shown(query_ids[query[row]])}; a run lists each document once per query.",
            )


def first_repeat(codes):
    """The index of the first code that repeats an earlier one."""
    order = np.argsort(codes, kind="stable")
    return int(order[1:][codes[order][1:] == codes[order][:-1]].min())


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
