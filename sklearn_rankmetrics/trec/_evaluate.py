"""Evaluate a run against qrels as trec_eval does: join, rank, measure, average."""

import difflib
import inspect
import numbers
import re
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .._cascade import hypergeometric_laws
from .._grouping import Ranking, differs_from_previous, group_by_query, positions_in_segments, rank_order
from .._validation import TIES, check_flag, check_option
from ._io import Qrels, Run, objects, packed, read_qrels_bytes, read_run_bytes, text
from ._measures import MEASURES, MIN_GEO_MEAN, NICKNAMES, NONPOOL, TAIL_FREE, UNJUDGED, JudgedRanking
from ._tails import down_to_last_judged, down_to_last_judged_tie


class InputError(ValueError):
    """A ValueError about the content of the qrels or of the run (``source``), which the command names by file."""

    def __init__(self, source, message):
        super().__init__(message)
        self.source = source


QRELS_COLUMNS = ("query_id", "doc_id", "relevance")
RUN_COLUMNS = ("query_id", "doc_id", "score")


def as_qrels(qrels):
    """Checked Qrels from a Qrels, a path or file, a dict ``{qid: {docno: relevance}}`` or a DataFrame."""
    (query_id, doc_id, relevance), _ = source_columns(qrels, "qrels", Qrels, QRELS_COLUMNS, read_qrels_bytes)
    if not len(query_id):
        raise InputError("qrels", "the qrels hold no judgement: give at least one (query, document, relevance).")
    return Qrels(query_id, doc_id, as_integers(relevance, query_id, doc_id))


def as_run(run):
    """A checked Run from a Run, a path or file, a dict ``{qid: {docno: score}}`` or a DataFrame (it may be empty)."""
    (query_id, doc_id, score), name = source_columns(run, "run", Run, RUN_COLUMNS, read_run_bytes)
    if not isinstance(name, str):
        raise TypeError(f"a Run's name is its run tag, a str; got {name!r}.")
    return Run(query_id, doc_id, as_scores(score, query_id, doc_id), name)


def source_columns(source, what, kind, names, read):
    """The checked columns of qrels or a run (``what``) given in any route, and the run tag ("" where none)."""
    if isinstance(source, dict):
        columns, name = flatten(source, what), ""
    elif hasattr(source, "columns"):
        columns, name = frame_columns(source, names, what), ""
    elif isinstance(source, kind):
        columns, name = tuple(getattr(source, column) for column in names), getattr(source, "name", "")
    else:  # a file: its ids are checked already, nonempty without whitespace or control bytes
        source = read(source)
        return tuple(getattr(source, column) for column in names), getattr(source, "name", "")
    return checked_columns(what, names, columns), name


def answered_without_rows(run):
    """The query ids that a pytrec_eval-style run dict maps to no document: answered with nothing, so evaluated."""
    if not isinstance(run, dict):
        return None
    queries, counts = dict_queries(run, "run")
    return id_bytes(queries[counts == 0], "the query_id of the run") if (counts == 0).any() else None


def dict_queries(nested, what):
    """The query ids of a pytrec_eval-style dict ``{qid: {docno: value}}``, as one array, and their numbers of rows."""
    for query, documents in nested.items():
        if not isinstance(documents, dict):
            raise TypeError(
                f"{what} must map each query id to a dict {{doc_id: value}}; query {query!r} maps to "
                f"{type(documents).__name__}."
            )
    # Ids as objects, each as it is: numpy would turn a mixture of 9.0 and "a" into the str "9.0".
    queries = np.array(list(nested), dtype=object)
    return queries, np.array([len(documents) for documents in nested.values()], dtype=np.intp)


def flatten(nested, what):
    """The rows of a pytrec_eval-style dict ``{qid: {docno: value}}``."""
    queries, counts = dict_queries(nested, what)
    doc_id = np.array([doc for documents in nested.values() for doc in documents], dtype=object)
    values = [value for documents in nested.values() for value in documents.values()]
    array = np.asarray(values)
    if array.dtype.kind == "f" and (np.abs(array) >= 2.0**63).any():
        array = objects(values)  # numpy made a float of an int beyond int64 (2**63): keep it exact, for the message
    return np.repeat(queries, counts), doc_id, array


def frame_columns(frame, names, what):
    missing = [name for name in names if name not in frame.columns]
    if missing:
        raise ValueError(
            f"{what} must have the columns {', '.join(names)} (ir_measures' names); missing: {', '.join(missing)}."
        )
    return tuple(frame[name].to_numpy() for name in names)


def checked_columns(what, names, columns):
    """The columns of qrels or of a run as 1-D arrays of one length, with the ids as bytes (see :func:`id_bytes`).

    Every input route (a file, a dict, a DataFrame, a Qrels or Run built by
    hand) comes through here, so all meet the same rules and their ids
    compare alike, as trec_eval compares them.
    """
    arrays = [np.asarray(column) for column in columns]
    for name, array in zip(names, arrays, strict=True):
        if array.ndim != 1:
            raise ValueError(f"{possessive(what)} {name} must be a 1-D array; got one of shape {array.shape}.")
    lengths = [len(array) for array in arrays]
    if len(set(lengths)) > 1:
        shapes = ", ".join(f"{name} {length}" for name, length in zip(names, lengths, strict=True))
        raise ValueError(f"{possessive(what)} columns must have one length, a row each; got {shapes}.")
    ids = [id_bytes(array, f"{possessive(what)} {name}") for name, array in zip(names[:2], arrays[:2], strict=True)]
    return (*ids, arrays[2])


def first_row(mask, query_id, doc_id):
    """The query and document of the first row where ``mask`` holds, as a message names them."""
    row = int(np.flatnonzero(mask)[0])
    return f"document {shown(doc_id[row])} of query {shown(query_id[row])}"


def as_scores(values, query_id, doc_id):
    """Run scores as float64: numbers (infinite ones rank first or last), never NaN, which ranks nowhere."""
    if values.dtype.kind not in "fiu":
        numeric = [isinstance(value, numbers.Real) and not isinstance(value, bool) for value in values]
        if values.dtype.kind != "O" or not all(numeric):
            where = first_row(~np.array(numeric, dtype=bool), query_id, doc_id) if values.dtype.kind == "O" else ""
            raise InputError("run", f"run scores must be numbers; got dtype {values.dtype} {where}".strip() + ".")
    try:
        scores = values.astype(np.float64, copy=False)  # a Run's own scores: read, never written
    except OverflowError:  # a Python int beyond float64 (an overflowing float would have been inf already)
        beyond = np.array([not float_fits(value) for value in values], dtype=bool)
        raise InputError(
            "run",
            f"the run scores {first_row(beyond, query_id, doc_id)} an integer of {len(str(abs(values[beyond][0])))} "
            "digits, beyond float64 (trec_eval reads scores as doubles): give scores that a float holds.",
        ) from None
    if np.isnan(scores).any():
        raise InputError(
            "run",
            f"the run scores {first_row(np.isnan(scores), query_id, doc_id)} NaN; every retrieved document needs a "
            "number, which ranks it.",
        )
    return scores


def float_fits(value):
    """Whether a number converts to float without overflow."""
    try:
        float(value)
    except OverflowError:
        return False
    return True


def as_integers(values, query_id, doc_id):
    """Relevance judgements as int64 (trec_eval's ``long``): integers, or floats with integer values, in range.

    A value outside int64 is refused, never wrapped around (2**63 would read
    as a negative judgement): as the qrels reader refuses it.
    """
    if values.dtype.kind == "O":  # Python ints are exact at any size: check them before any cast
        fits = np.array([fits_int64(value) for value in values], dtype=bool)
    elif values.dtype.kind in "iub":
        fits = values <= INT64_MAX if values.dtype.kind == "u" else np.ones(len(values), dtype=bool)
    elif values.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            fits = (values == np.round(values)) & (values >= -(2.0**63)) & (values < 2.0**63)
    else:
        raise InputError("qrels", f"relevance judgements must be integers; got values of dtype {values.dtype}.")
    if not fits.all():
        raise InputError(
            "qrels",
            "relevance judgements must be integers of 64 bits (trec_eval's long); the qrels judge "
            f"{first_row(~fits, query_id, doc_id)} {np.asarray(values[~fits][0]).item()!r}.",
        )
    if values.dtype.kind == "O":
        return np.array([int(value) for value in values], dtype=np.int64)
    return values.astype(np.int64)


INT64_MAX = np.iinfo(np.int64).max


def fits_int64(value):
    """Whether one relevance judgement is an integer of 64 bits: an int, or a float with an integer value."""
    if isinstance(value, numbers.Integral):
        return -(2**63) <= int(value) <= INT64_MAX
    if isinstance(value, numbers.Real):
        value = float(value)
        return value.is_integer() and -(2.0**63) <= value < 2.0**63
    return False


def possessive(what):
    return f"the {what}'" if what.endswith("s") else f"the {what}'s"


def id_bytes(ids, what="ids"):
    """Ids as the bytes a TREC file holds, which trec_eval compares with ``strcmp``: byte by byte, unsigned.

    Bytes stay; str is UTF-8, its surrogate escapes back to the bytes they
    stand for (:func:`read_qrels` and :func:`read_run` keep non-UTF-8 bytes
    so); integers are their decimal text, so that on a tie the document 9
    ranks before 10, as "9" does in a file (trec_eval: descending ids).
    Anything else (a float such as 9.0, which would read "9.0") is a
    TypeError naming ``what``. Fixed-width when that fits, else an object
    array of bytes (see :func:`fits_fixed_width`). An empty array holds no
    id, whatever its dtype (``np.array([])`` is float64).

    An id a TREC file could not hold is a ValueError naming ``what``: an
    empty one, or one with whitespace or a control byte (bytes up to 32),
    which separate a file's columns (and a fixed-width array would drop a
    trailing NUL, merging ``"a\\x00"`` with ``"a"``); a str that is not
    text (a lone surrogate).
    """
    kind = ids.dtype.kind
    if not len(ids):
        return np.zeros(0, dtype="S1")
    if kind == "S":
        return checked_fixed_width(np.ascontiguousarray(ids), what)  # a slice of ids reads as its own bytes
    if kind in ("i", "u"):
        # numpy's cast, as wide as the longest decimal text: that of the smallest id or of the largest.
        return ids.astype(f"S{max(len(str(ids.min())), len(str(ids.max())))}")
    if kind == "U":
        try:
            return checked_fixed_width(ids.astype(np.bytes_), what)  # ASCII, nearly always: numpy's cast
        except UnicodeEncodeError:
            pass
    elif kind != "O":
        hint = " (convert float ids with astype(int))" if kind == "f" else ""
        raise TypeError(f"{what} must be str, bytes or integers, as in a TREC file; got an array of {ids.dtype}{hint}.")
    values = [encoded(value, what) if isinstance(value, str) else one_id(value, what) for value in ids]
    joined = b"".join(values)
    if not all(values) or len(joined.translate(None, NOT_IN_IDS)) != len(joined):
        raise bad_id(next(value for value in values if not value or value.translate(None, NOT_IN_IDS) != value), what)
    return packed(values)


# The bytes no id of a TREC file holds: whitespace, which separates its columns, and control bytes.
NOT_IN_IDS = bytes(range(33))


def checked_fixed_width(ids, what):
    """Fixed-width byte-string ids, checked: each a nonempty run of bytes above 32 (its zero padding aside).

    Three passes over the bytes, each cheap (a run's ids pass in a small
    fraction of the time reading them takes): no byte in 1..32 (the least
    byte less 1, wrapping 0 around to 255), no id empty, and no NUL
    inside one (as many nonzero bytes as the ids' lengths add up to).
    """
    flat = ids.view(np.uint8).reshape(-1)
    lengths = np.strings.str_len(ids)  # up to the zero padding
    if (flat - np.uint8(1)).min() >= 32 and lengths.min() > 0 and np.count_nonzero(flat) == lengths.sum():
        return ids
    matrix = flat.reshape(len(ids), ids.dtype.itemsize)
    good = (lengths > 0) & (np.count_nonzero(matrix > 32, axis=1) == lengths)
    raise bad_id(ids[np.flatnonzero(~good)[0]], what)


def bad_id(value, what):
    """The ValueError for an id that no TREC file can hold: empty, or with whitespace or a control byte."""
    if not value:
        return ValueError(f"{what} holds an empty id; a TREC file has none: give each id at least one character.")
    byte = next(byte for byte in value if byte <= 32)
    kind = "whitespace" if byte in b" \t\n\v\f\r" else "a NUL byte" if byte == 0 else "a control byte"
    return ValueError(
        f"{what} holds {shown(value)}, with {kind} ({byte:#04x}); an id of a TREC file holds neither "
        "whitespace, which separates its columns, nor control bytes: trec_eval could never read this one."
    )


def encoded(value, what):
    """A str id as the bytes of a file: UTF-8, its surrogate escapes back to the bytes they stand for."""
    try:
        return value.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        raise ValueError(
            f"{what} holds {value!r}, with a lone surrogate, which is not text and no file can hold; "
            "decode ids from bytes with errors='surrogateescape' (or keep them as bytes)."
        ) from None


def one_id(value, what):
    """A bytes or integer id as bytes (the decimal text of an integer)."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return str(int(value)).encode()
    raise TypeError(
        f"{what} must be str, bytes or integers, as in a TREC file; got {value!r} of type {type(value).__name__}"
        + (" (convert float ids with astype(int))." if isinstance(value, float | np.floating) else ".")
    )


def comparable(first, second):
    """Two arrays of byte-string ids (see :func:`id_bytes`) of one kind: both fixed-width, or both objects."""
    if first.dtype.kind != second.dtype.kind:
        return first.astype(object), second.astype(object)
    return first, second


def as_keys(first, second):
    """Byte-string ids of at most 8 bytes as uint64 keys that sort and compare like the strings (else unchanged).

    Zero-padded big-endian bytes read as an integer order as the strings do
    (C's strcmp), and integers search and sort several times faster.
    """
    if not (first.dtype.kind == second.dtype.kind == "S" and max(first.itemsize, second.itemsize) <= 8):
        return first, second

    def keys(ids):
        count, width = len(ids), ids.itemsize
        words = np.zeros(count, dtype=">u8")
        words.view(np.uint8).reshape(count, 8)[:, :width] = ids.view(np.uint8).reshape(count, width)
        # The same bytes in reverse, read little-endian: the big-endian value, in place.
        return words.byteswap(inplace=True).view("<u8")

    return keys(first), keys(second)


def as_text(ids):
    """Ids (bytes, str or numbers) as str, as :func:`read_qrels` and :func:`read_run` give them."""
    return text(id_bytes(ids))


def shown(value):
    """An id as it reads in a message: 'q1', whether it is stored as bytes, str or a number (b'caf\\xe9': not UTF-8)."""
    if isinstance(value, bytes):
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError:
            return repr(value)
    return repr(str(value))


@dataclass
class Part:
    """The judged rankings of some of the ranked queries, and the weight of their values in each query's."""

    judged: JudgedRanking
    queries: np.ndarray | None = None  # their places among the ranked queries; None: all, in order
    weights: np.ndarray | None = None  # None: 1


@dataclass
class Evaluation:
    """The judged rankings of the evaluated queries, in parts, and the ids of the queries.

    Each ranked query's value is the weighted sum of its values in the
    parts: one part of weight 1 but for a mixture over the depths of a
    judged ranking (:func:`judged_depth_laws`).
    """

    parts: list
    query_ids: np.ndarray  # of the ranked queries, sorted
    missing_ids: np.ndarray  # qrels queries without any row to rank (complete=True), scored 0, sorted
    summaries: dict = field(default_factory=dict)  # trec_eval's summary of a measure where it is no mean or sum


def join(
    qrels,
    run,
    *,
    relevance_level=1,
    complete=False,
    max_depth=None,
    ties=None,
    judged_only=False,
    num_docs=0,
    answered=None,
    tail_free=False,
):
    """Join a run to its qrels: each query's retrieved documents in rank order, then its judged unretrieved ones.

    ``judged_only`` (trec_eval -J) removes the unjudged documents from the
    rankings; ``num_docs`` (-N) is the collection size for utility;
    ``answered``: ids of queries that the run answers with no document
    (a dict's empty entries), evaluated like the others; ``tail_free``:
    only measures of ``TAIL_FREE`` will be computed, so the documents below
    each query's last judged one are left out of its ranking and only
    counted (not with ``ties="average"``, whose tie blocks they may share).
    """
    n_rows = len(run.score)
    if not n_rows and answered is None and not complete:
        raise InputError(
            "run",
            "the run is empty: it retrieves no document for any query. Pass complete=True (trec_eval -c) to "
            "score every query of the qrels 0.",
        )
    run_ids = run.query_id if answered is None else np.concatenate((run.query_id, answered))
    run_query, qrels_query = comparable(run_ids, qrels.query_id)
    run_query, answered_query = run_query[:n_rows], run_query[n_rows:]
    run_doc, qrels_doc = as_keys(*comparable(run.doc_id, qrels.doc_id))
    # Query codes: the run usually lists each query's rows together, so only the heads need looking up.
    heads = np.flatnonzero(differs_from_previous(run_query))
    vocabulary = np.unique(np.concatenate((run_query[heads], answered_query, qrels_query)))
    head_code = np.searchsorted(vocabulary, run_query[heads]).astype(np.int32 if len(vocabulary) < 2**31 else np.int64)
    run_code = np.repeat(head_code, np.diff(heads, append=n_rows))
    qrels_code = np.searchsorted(vocabulary, qrels_query)
    in_qrels = np.bincount(qrels_code, minlength=len(vocabulary)) > 0
    in_run = np.zeros(len(vocabulary), dtype=bool)
    in_run[head_code] = True
    in_run[np.searchsorted(vocabulary, answered_query)] = True
    evaluated = in_qrels & (in_run | complete)
    if not evaluated.any():
        raise ValueError(
            "No queries with both results and relevance info (as trec_eval says): no query of the run is "
            "judged in the qrels. Check that both use the same query ids, or pass complete=True (trec_eval -c) "
            "to score every query of the qrels 0."
        )
    score, run_doc_id = run.score, run.doc_id
    if not in_qrels[head_code].all():  # trec_eval skips run queries nobody judged
        kept = np.flatnonzero(in_qrels[run_code])
        run_code, run_doc, score, run_doc_id = run_code[kept], run_doc[kept], score[kept], run_doc_id[kept]

    names = (vocabulary, qrels.doc_id)
    judged_rows, judged_qrels_rows = judgements(qrels_code, qrels_doc, qrels.relevance, run_code, run_doc, names)
    trimmed = tail_free and ties != "average"
    n_retrieved = None  # per query code, where the rankings leave out the rows below the last judged ones
    if trimmed and max_depth is None:
        kept = down_to_last_judged_tie(run_code, score, judged_rows)
        if kept is not None:  # a run listed by query and score: most of its rows are left out before ranking
            check_retrieved_once(run_code, run_doc, (vocabulary, run_doc_id))
            n_retrieved = np.bincount(run_code, minlength=len(vocabulary))
            run_code, run_doc, score, run_doc_id = run_code[kept], run_doc[kept], score[kept], run_doc_id[kept]
            judged_rows = np.searchsorted(kept, judged_rows)
    raw, qrels_row = judgement_codes(len(run_code), judged_rows, judged_qrels_rows, qrels.relevance)
    order, retrieved_code, depth = ranked(run_code, score, run_doc, raw, ties=ties, max_depth=max_depth)
    raw, qrels_row = raw[order], qrels_row[order]
    if n_retrieved is None:  # else checked on every row above
        check_retrieved_once(retrieved_code, run_doc[order], (vocabulary, run_doc_id[order]))
    laws = None
    if judged_only:
        if depth is not None:
            laws = judged_depth_laws(retrieved_code, raw, score[order], depth)
        kept = raw >= 0
        order, retrieved_code, raw, qrels_row = order[kept], retrieved_code[kept], raw[kept], qrels_row[kept]
    if trimmed:
        if n_retrieved is None or judged_only:
            n_retrieved = np.bincount(retrieved_code, minlength=len(vocabulary))
        kept = down_to_last_judged(retrieved_code, raw)
        order, retrieved_code, raw, qrels_row = order[kept], retrieved_code[kept], raw[kept], qrels_row[kept]
    # Judged documents not retrieved (or cut by max_depth) rank last, after each query's retrieved ones;
    # with complete=True the qrels queries the run lacks are evaluated too, as rankings of such documents only.
    unretrieved = np.ones(len(qrels_code), dtype=bool)
    unretrieved[qrels_row[qrels_row >= 0]] = False
    unretrieved &= evaluated[qrels_code] & (qrels.relevance >= 0)
    extra = np.flatnonzero(unretrieved)
    extra = extra[np.argsort(qrels_code[extra], kind="stable")]
    places = np.searchsorted(retrieved_code, qrels_code[extra], "right")
    codes = np.insert(retrieved_code, places, qrels_code[extra])
    raw = np.insert(raw, places, qrels.relevance[extra])
    retrieved = np.insert(np.ones(len(order), dtype=bool), places, False)
    is_query_start = differs_from_previous(codes)
    block_changes = np.ones(len(codes), dtype=bool)  # a block per row: the order is the ranking's
    if ties == "average":
        # Blocks of equal scores; the rows not retrieved form one more block, below a retrieved score of -inf.
        scores = np.insert(np.maximum(score[order], np.finfo(np.float64).min), places, -np.inf)
        block_changes = differs_from_previous(scores) | is_query_start
    rows = Rows(codes, raw, retrieved, block_changes, relevance_level, num_docs, n_retrieved)
    ranked_codes = codes[is_query_start]
    parts = [Part(rows.judged_ranking(depth=depth))] if laws is None else rows.mixture(ranked_codes, *laws)
    ranked_query = np.zeros(len(vocabulary), dtype=bool)
    ranked_query[ranked_codes] = True
    # An evaluated query whose judgements are all negative, with no row retrieved, has no row at all: it scores 0.
    missing = np.flatnonzero(evaluated & ~ranked_query)
    # trec_eval's quirk (m_num_rel.c, te_calc_avg_num_rel): under -c, num_rel's summary counts the judgements
    # above 0 in the whole qrels, whatever the relevance level, rather than summing the queries' values.
    summaries = {"num_rel": int(np.count_nonzero(qrels.relevance > 0))} if complete else {}
    return Evaluation(parts, vocabulary[ranked_query], vocabulary[missing], summaries)


@dataclass
class Rows:
    """The rows of the evaluated queries in rank order (retrieved ones first), which their judged rankings take.

    ``block_changes`` marks the first row of each block of tied scores (of
    each query, without averaging).
    """

    codes: np.ndarray
    raw: np.ndarray
    retrieved: np.ndarray
    block_changes: np.ndarray
    level: int
    num_docs: int
    n_retrieved: np.ndarray | None = None  # per query code, where rows below the last judged one were left out

    def judged_ranking(self, rows=slice(None), *, depth=None):
        """The JudgedRanking of some ``rows`` (whole queries), with only their top ``depth`` retrieved.

        The blocks of tied scores wholly below the depth are not retrieved;
        one that straddles it is, and the ranking's depth limits what counts
        (:class:`~sklearn_rankmetrics._grouping.Ranking`).
        """
        codes, raw, retrieved, changes = (
            values[rows] for values in (self.codes, self.raw, self.retrieved, self.block_changes)
        )
        is_query_start = differs_from_previous(codes)
        if depth is not None:
            positions = positions_in_segments(np.flatnonzero(is_query_start), len(codes))
            block_first = positions[np.maximum.accumulate(np.where(changes, np.arange(len(codes)), 0))]
            retrieved = retrieved & (block_first < depth)
            if not (retrieved & (positions >= depth)).any():
                depth = None
            # The rows not retrieved form one block, the last of their query.
            after_retrieved = np.concatenate(([True], retrieved[:-1])) | is_query_start
            changes = (changes & retrieved) | (~retrieved & after_retrieved)
        query_starts = np.flatnonzero(is_query_start)
        block_starts = None if changes.all() else np.flatnonzero(changes)
        labels = np.maximum(raw, 0).astype(np.float64)
        retrieved = None if retrieved.all() else retrieved
        ranking = Ranking(labels, query_starts, block_starts, retrieved=retrieved, depth=depth)
        ranking.top_label = self.top_label  # that of every query: ERR scales its gains by it
        n_retrieved = None if self.n_retrieved is None else self.n_retrieved[codes[query_starts]]
        return JudgedRanking(ranking, raw, self.level, self.num_docs, n_retrieved)

    @cached_property
    def top_label(self):
        return np.float64(np.max(self.raw, initial=0))

    def mixture(self, ranked_codes, law_codes, law_depths, law_weights):
        """The parts of judged rankings whose depths follow laws: one part per depth, of the queries it may be.

        ``law_codes`` names the queries with a law, each value of which is a
        depth and its chance; the other queries make one more part, without
        a depth.
        """
        ranked = np.isin(law_codes, ranked_codes)  # -J may leave a query no row: it scores as a missing one
        law_codes, law_depths, law_weights = law_codes[ranked], law_depths[ranked], law_weights[ranked]
        fixed = ~np.isin(self.codes, law_codes)
        parts = []
        if fixed.any():
            parts.append(Part(self.judged_ranking(fixed), np.flatnonzero(~np.isin(ranked_codes, law_codes))))
        for depth in np.unique(law_depths):
            at = law_depths == depth
            codes, weights = law_codes[at], law_weights[at]
            rows = np.isin(self.codes, codes)
            parts.append(
                Part(self.judged_ranking(rows, depth=int(depth)), np.searchsorted(ranked_codes, codes), weights)
            )
        return parts or [Part(self.judged_ranking())]  # no query left a row


def ranked(code, score, doc, raw, *, ties, max_depth):
    """The retrieved rows in rank order, cut at ``max_depth``: the one tie-and-depth step of every evaluation.

    ``ties=None`` is trec_eval's order (descending score, then descending
    document id); ``"stable"`` and ``"average"`` keep the input order of equal
    scores (``"average"`` averages over their orderings later);
    ``"pessimistic"`` and ``"optimistic"`` put the lowest (highest) judgement
    first, -2 (pooled, unjudged) and -1 (not in the qrels) below 0. The cut
    comes after: it takes the top ``max_depth`` of that order, as trec_eval's
    -M does; with ``"average"``, a block of tied scores that straddles
    ``max_depth`` is kept whole, and the depth returned (else None) limits
    what counts as retrieved, in every ordering of the block. Returns the
    order of the rows, their query codes and that depth.
    """
    if not len(code):  # an empty run, or none of its queries judged: nothing to order
        return np.zeros(0, dtype=np.intp), code, None
    if ties is None:
        order, sorted_code = trec_order(code, score, doc)
    else:
        policy = "stable" if ties == "average" else ties
        order, sorted_code, _ = rank_order(code, score, ties=policy, y_true=raw)
    if max_depth is None:
        return order, sorted_code, None
    position = positions_in_segments(np.flatnonzero(differs_from_previous(sorted_code)), len(order))
    shallow = position < max_depth
    depth = None
    if ties == "average":
        # The rows past the depth that tie with the last row above it (row `edge` of their query).
        deep = np.flatnonzero(~shallow)
        edge = deep - position[deep] + max_depth - 1
        tied = deep[score[order[deep]] == score[order[edge]]]
        if len(tied):
            shallow[tied], depth = True, max_depth
    return order[shallow], sorted_code[shallow], depth


def judged_depth_laws(code, raw, score, depth):
    """With judged_only, the law of the depth of each query's judged ranking where ``depth`` cuts a tie block.

    trec_eval's -J removes the unjudged documents after the cut, which moves
    the judged ones up: a query whose rows (in rank order: ``code``, ``raw``,
    ``score``) run past the depth keeps its a' judged ones above its last
    block, of m rows with j judged, and the judged ones among that block's
    v places above the depth: a hypergeometric number T (m rows, j marked, v
    drawn). Its judged ranking has depth a' + T, which averaging over the
    block's orderings takes with T's chances (the judged rows of the block
    fill those places in every order alike).

    Returns the query codes, the depths and their chances, one per value.
    """
    starts = np.flatnonzero(differs_from_previous(code))
    ends = np.append(starts[1:], len(code))
    cut = ends - starts > depth
    starts, ends = starts[cut], ends[cut]
    run_starts = np.flatnonzero(differs_from_previous(score) | differs_from_previous(code))
    block = run_starts[np.searchsorted(run_starts, ends, "left") - 1]  # each cut query's last block
    judged_before = np.concatenate(([0], np.cumsum(raw >= 0)))
    above, in_block = judged_before[block] - judged_before[starts], judged_before[ends] - judged_before[block]
    queries, depths, chances = [], [], []
    for members, count, law in hypergeometric_laws(ends - block, in_block, depth - (block - starts), together=True):
        kept = law > 0
        queries.append(np.broadcast_to(code[starts[members], None], law.shape)[kept])
        depths.append((above[members, None] + count)[kept])
        chances.append(law[kept])
    return np.concatenate(queries), np.concatenate(depths), np.concatenate(chances)


def trec_order(code, score, doc):
    """The rows in rank order: by query, descending score, then (trec_eval) descending document id.

    Run files usually list each query's documents together by descending
    score: that is checked in one pass, and then only the queries need
    grouping (a radix sort) and only the runs of tied scores re-sorting.
    """
    same_query = code[1:] == code[:-1]
    contiguous = np.count_nonzero(~same_query) + 1 == np.count_nonzero(np.bincount(code))
    if contiguous and np.all((score[1:] <= score[:-1]) | ~same_query):
        if np.any(code[1:] < code[:-1]):
            order = group_by_query(code)
            sorted_code, sorted_score = code[order], score[order]
        else:
            order, sorted_code, sorted_score = np.arange(len(code)), code, score
        tied = np.flatnonzero((sorted_score[1:] == sorted_score[:-1]) & (sorted_code[1:] == sorted_code[:-1])) + 1
    else:
        order, sorted_code, changes = rank_order(code, score, ties="stable")
        tied = np.flatnonzero(~changes[1:] & (sorted_code[1:] == sorted_code[:-1])) + 1
    if len(tied):
        # Each run of equal scores, re-sorted by document id, descending: the tied rows and the row above each.
        in_run = np.zeros(len(order), dtype=bool)
        in_run[tied] = in_run[tied - 1] = True
        rows = np.flatnonzero(in_run)
        is_tied = np.zeros(len(order), dtype=bool)
        is_tied[tied] = True
        run_id = np.cumsum(~is_tied[rows])
        ascending = rows[np.lexsort((doc[order[rows]], run_id))]
        first = np.searchsorted(run_id, run_id, "left")
        after = np.searchsorted(run_id, run_id, "right")
        order[rows] = order[ascending[first + after - 1 - np.arange(len(rows))]]
    return order, sorted_code


def judgements(qrels_code, qrels_doc, relevance, retrieved_code, retrieved_doc, names):
    """The retrieved rows judged in the qrels (increasing), and the qrels row of each.

    ``names`` (the query vocabulary and the qrels' document ids) name the
    query and document of a duplicate in the error.
    """
    vocabulary, doc_names = names
    documents, doc_code = np.unique(qrels_doc, return_inverse=True)
    key = qrels_code.astype(np.int64) * len(documents) + doc_code.reshape(-1)
    by_key = np.argsort(key, kind="stable")
    sorted_key = key[by_key]
    repeated = np.flatnonzero(sorted_key[1:] == sorted_key[:-1])
    if len(repeated):
        row = by_key[repeated[0] + 1]
        raise InputError(
            "qrels",
            f"the qrels judge document {shown(doc_names[row])} of query {shown(vocabulary[qrels_code[row]])} twice; "
            "give each (query, document) pair one judgement.",
        )
    # Most retrieved documents are judged for no query at all: only the others need the (query, document) key.
    known = maybe_among(retrieved_doc, documents)
    place = np.minimum(np.searchsorted(documents, retrieved_doc[known]), len(documents) - 1)
    exact = documents[place] == retrieved_doc[known]
    known, place = known[exact], place[exact]
    retrieved_key = retrieved_code[known].astype(np.int64) * len(documents) + place
    slot = np.minimum(np.searchsorted(sorted_key, retrieved_key), len(sorted_key) - 1)
    found = sorted_key[slot] == retrieved_key
    return known[found], by_key[slot[found]]


def judgement_codes(n_rows, judged_rows, qrels_rows, relevance):
    """Each of ``n_rows`` retrieved rows' judgement (or NONPOOL, UNJUDGED) and its qrels row (-1: none), from
    the rows judged (:func:`judgements`)."""
    qrels_row = np.full(n_rows, -1, dtype=np.int64)
    qrels_row[judged_rows] = qrels_rows
    raw = np.full(n_rows, NONPOOL, dtype=np.int64)
    raw[judged_rows] = np.where(relevance[qrels_rows] < 0, UNJUDGED, relevance[qrels_rows])
    return raw, qrels_row


def check_retrieved_once(code, doc, names):
    """Refuse a document that the run retrieves twice for one query, as trec_eval does (within max_depth).

    Equal (query, document) pairs have equal 64-bit hashes: one sort of the
    hashes finds the few candidates, which are then compared exactly.
    ``names`` (the query vocabulary and the rows' document ids) name them.
    """
    if len(code) < 2:
        return

    def keys():  # one array of the run's size, computed in place
        key = code.astype(np.uint64)
        key *= GOLDEN
        key ^= id_hash(doc)
        return key

    sorted_key = keys()
    sorted_key.sort()  # in place: the keys are computed again in the rare case of a repeat
    repeated = sorted_key[1:][sorted_key[1:] == sorted_key[:-1]]
    if not len(repeated):
        return
    suspects = np.flatnonzero(np.isin(keys(), repeated))
    suspects = suspects[np.lexsort((doc[suspects], code[suspects]))]
    twice = (doc[suspects[1:]] == doc[suspects[:-1]]) & (code[suspects[1:]] == code[suspects[:-1]])
    if twice.any():
        vocabulary, doc_names = names
        row = suspects[1:][twice][0]
        raise InputError(
            "run",
            f"the run retrieves document {shown(doc_names[row])} twice for query {shown(vocabulary[code[row]])}; "
            "a run lists each document once per query.",
        )


# Fibonacci hashing's multiplier, odd: multiplying by it permutes the 64-bit integers.
GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def id_hash(ids):
    """A 64-bit hash of each id: integers as they are, strings 8 bytes at a time, objects by Python's hash.

    Equal ids have equal hashes, whatever the width of their arrays: the
    zero padding of a wider array adds nothing (the hash is a sum of the
    words, each times its own odd multiplier), so that ids of two arrays
    (a run's and its qrels') compare by their hashes.
    """
    if ids.dtype.kind in "iu":
        return ids.astype(np.uint64, copy=False)
    if ids.dtype.kind not in "SU":
        return np.fromiter(map(hash, ids), dtype=np.int64, count=len(ids)).view(np.uint64)
    hashes = np.zeros(len(ids), dtype=np.uint64)
    for power, word in enumerate(little_endian_words(np.ascontiguousarray(ids)), start=1):
        word *= np.uint64(pow(int(GOLDEN), power, 2**64))  # odd: a multiplier that loses no bit
        hashes += word
    return hashes


def little_endian_words(ids):
    """Each 8 bytes of fixed-width ids (the last ones zero padded) as little-endian integers, one array at a time.

    Read in place, without a padded copy of the ids: a word inside each id
    by an unaligned strided view, the last partial one from the 8 bytes that
    end the id, shifted.
    """
    count, width = len(ids), ids.itemsize
    if width < 8:
        padded = np.zeros((count, 8), dtype=np.uint8)
        padded[:, :width] = ids.view(np.uint8).reshape(count, width)
        yield padded.view("<u8").reshape(-1)
        return
    for offset in range(0, width - 7, 8):
        yield np.ndarray((count,), dtype="<u8", buffer=ids, offset=offset, strides=(width,)).copy()
    if width % 8:
        last = np.ndarray((count,), dtype="<u8", buffer=ids, offset=width - 8, strides=(width,)).copy()
        last >>= np.uint64(8 * (8 - width % 8))
        yield last


def maybe_among(values, members):
    """Indices of the ``values`` that may be among the ``members``: all of those that are, and a few more.

    A one-hash Bloom filter (Fibonacci hashing of the ids' 64-bit hashes, or
    of uint64 keys themselves) clears most of the others with one lookup
    each, far faster than a binary search: of 2**bits places, about 32 per
    member (a table that stays in the cache; a non-member passes 1 time in
    32), at most 2**24. The exact test follows.
    """
    bits = int(np.clip(np.ceil(np.log2(max(len(members), 1))) + 5, 10, 24))
    shift = np.uint64(64 - bits)
    present = np.zeros(2**bits, dtype=bool)
    present[(id_hash(members) * GOLDEN) >> shift] = True
    found = []
    for start in range(0, len(values), BLOCK_ROWS):  # a block at a time: small temporaries, reused
        slots = id_hash(values[start : start + BLOCK_ROWS]) * GOLDEN
        slots >>= shift
        found.append(np.flatnonzero(present[slots]) + start)
    return np.concatenate(found) if found else np.zeros(0, dtype=np.intp)


# Rows hashed at a time where a pass over millions of rows needs a temporary array per row.
BLOCK_ROWS = 2**20


# ---- measures: names and parameters, as trec_eval's -m ----------------------------------------


def parse_measure(spec):
    """A measure request ``NAME[.PARAMS]`` (trec_eval's -m): the measure names and parameters it stands for.

    Returns a list of (name, parameter text or None). Nicknames (``official``,
    ``all_trec``, ``set``) expand to their measures; a ranking metric name of
    the library stands for itself, with ``"library"`` as its parameters. The
    parameters and the options are checked here, before any evaluation.
    """
    if not isinstance(spec, str):
        raise TypeError(f"a measure is a str such as 'map' or 'P.5,10'; got {spec!r}.")
    base, dot, params = spec.partition(".")
    if dot and not params and (base in MEASURES or base in NICKNAMES):
        raise ValueError(f"{spec!r} has a dot but no parameters: give them (as in 'P.5,10') or drop the dot.")
    if base in NICKNAMES and not params:
        return [(name, None) for name in NICKNAMES[base]]
    if base in MEASURES:
        parsed_parameters(base, MEASURES[base], params or None)
        return [(base, params or None)]
    # The library's metric names, imported here: the registry imports every metric, and scikit-learn.
    from .._registry import reads_as_metric_name, shared_kernel

    if not reads_as_metric_name(spec) and "@" not in spec and "(" not in spec:
        close = near_measure(spec)
        hint = f" Did you mean {close!r}?" if close else ""
        raise ValueError(
            f"{spec!r} is neither a trec_eval measure nor a ranking metric name.{hint} trec_eval's measures "
            "take their parameters after a dot (as in 'P.5,10', 'ndcg_cut.10' or 'rbp.p=0.8'); its sets are "
            f"{', '.join(NICKNAMES)}; ranking metric names read as 'nDCG@10', 'AP' or 'R@100'."
        )
    shared_kernel(spec, caller="evaluate_run", set_by_caller=SET_BY_THE_EVALUATION)
    return [(spec, "library")]


def near_measure(spec):
    """The request closest to a mistyped one: ``ndcg_cut10`` -> ``ndcg_cut.10``, ``mapp`` -> ``map``."""
    base, _, params = spec.partition(".")
    run_on = re.fullmatch(r"(?P<base>.*?[A-Za-z])_?(?P<params>[0-9][0-9.,]*)", spec)  # parameters without the dot
    if not params and run_on:
        base, params = run_on["base"], run_on["params"]
    if params:
        with_parameters = [name for name, measure in MEASURES.items() if measure.parameters]
        close = difflib.get_close_matches(base, with_parameters, n=1)
        if close:
            return f"{close[0]}.{params}"
    close = difflib.get_close_matches(spec, [*MEASURES, *NICKNAMES], n=1)
    return close[0] if close else None


def measure_values(judged, base, params):
    """The (full name, per-query values) pairs of one trec_eval measure, or of one library metric name."""
    if params == "library":
        return [(base, library_values(judged, base))]
    measure = MEASURES[base]
    if measure.compute is None:  # runid
        return []
    values = parsed_parameters(base, measure, params)
    names = full_names(base, measure, values, params)
    if not judged.ranking.n_queries:  # every evaluated query lacks a row: each takes the value of a missing one
        return [(name, np.zeros(0, dtype=object if measure.summary == "none" else np.float64)) for name in names]
    return list(zip(names, measure.compute(judged, values), strict=True))


def evaluation_values(evaluation, base, params):
    """:func:`measure_values` of the ranked queries: each query's values weighted over the parts it is in."""
    summary = MEASURES[base].summary if base in MEASURES else None
    first = evaluation.parts[0]
    if first.queries is None:  # one part, of weight 1
        pairs = measure_values(first.judged, base, params)
    elif summary == "none":
        raise ValueError(
            f"{base} is defined on one ordering of the documents; with ties='average', judged_only and a "
            "max_depth that cuts a tie block it is not available (its strings have no mean)."
        )
    else:
        pairs = None
        for part in evaluation.parts:
            values_of_part = measure_values(part.judged, base, params)
            if pairs is None:
                pairs = [(name, np.zeros(len(evaluation.query_ids))) for name, _ in values_of_part]
            for (_, total), (_, values) in zip(pairs, values_of_part, strict=True):
                total[part.queries] += values if part.weights is None else part.weights * values
    if summary == "gm":  # the floored log of each query's value (of its mean over orderings), as pytrec_eval reports
        pairs = [(name, np.log(np.maximum(values, MIN_GEO_MEAN))) for name, values in pairs]
    return pairs


# What the evaluation sets for every library metric it computes, for the message that refuses it in a name.
SET_BY_THE_EVALUATION = {
    "ties": "evaluate_run sets for every measure: pass ties= to evaluate_run",
    "average": "evaluate_run sets for every measure: pass average= to evaluate_run",
    "qid": "the run sets: its query ids",
    "judged": "the qrels set: the judged documents",
}


def library_values(judged, name):
    """A ranking metric's per-query values on the judged ranking, with trec_eval's relevance level.

    A metric with a relevance threshold counts as relevant what the
    trec_eval measures do (a judgement at least the level, 0 included),
    unless its name sets a threshold itself or asks for graded gains; bpref
    learns which documents are judged.
    """
    from .._registry import shared_kernel

    _, kernel, options = shared_kernel(name, caller="evaluate_run", set_by_caller=SET_BY_THE_EVALUATION)
    zero_division = options.pop("zero_division", 0.0)
    takes = inspect.signature(kernel).parameters
    if not judged.ranking.n_queries:
        return np.zeros(0)
    if "judged" in takes:
        options["judged"] = judged.judged
    ranking = judged.ranking
    if "relevance_threshold" in takes and "relevance_threshold" not in options and not options.get("graded"):
        ranking, options["relevance_threshold"] = judged.binary, 1
    values, defined = kernel(ranking, **options)
    return np.where(defined, values, zero_division)


def parsed_parameters(base, measure, params):
    if params is None:
        return measure.default if measure.parameters != "pairs" else {}
    if measure.parameters is None:
        raise ValueError(f"trec_eval's {base} takes no parameters; got {base}.{params}.")
    items = params.split(",")
    try:
        if measure.parameters == "pairs":
            pairs = dict(item.split("=", 1) for item in items)
            return {key: float(value) for key, value in pairs.items()}
        if measure.parameters == "cutoffs":
            values = sorted(leading_integer(item) for item in items)
            if values[0] <= 0 or len(set(values)) != len(values):
                raise ValueError
            return tuple(values)
        values = [float(item) for item in items]
    except ValueError:
        raise ValueError(
            f"bad parameters for trec_eval's {base}: {params!r}; expected "
            + {
                "cutoffs": "distinct positive integers, as in P.5,10",
                "levels": "distinct numbers, as in iprec_at_recall.0.1,0.5",
                "numbers": "numbers, as in set_F.0.5",
                "pairs": "name=value pairs, as in rbp.p=0.8",
            }[measure.parameters]
            + "."
        ) from None
    if measure.parameters == "levels":
        if len(set(values)) != len(values):
            raise ValueError(f"bad parameters for trec_eval's {base}: {params!r} repeats a value.")
        return tuple(sorted(values))
    return tuple(values)


def leading_integer(text):
    """The integer that C's ``atol`` reads at the start of ``text`` (trec_eval reads cutoffs so: 23.4 is 23).

    Like ``atol`` (glibc's ``strtol``), it saturates at the ends of a 64-bit ``long``.
    """
    match = re.match(r"\s*[+-]?[0-9]+", text)
    if match is None:
        raise ValueError(text)
    return min(max(int(match.group()), -(2**63)), 2**63 - 1)


def full_names(base, measure, values, params):
    """trec_eval's name of each value: ``P_5``, ``iprec_at_recall_0.10``, ``set_F`` (or ``set_F_0.5`` when given)."""
    if measure.parameters == "cutoffs":
        return [f"{base}_{value}" for value in values]
    if measure.parameters == "levels":
        return [f"{base}_{value:3.2f}" for value in values]
    return [base if params is None else f"{base}_{params}"]


def with_missing(evaluation, measure, values):
    """Per-query values followed by those of the evaluated queries without a row (``measure.missing``)."""
    missing = 0.0 if measure is None else measure.missing
    return np.concatenate((values, np.full(len(evaluation.missing_ids), missing, dtype=values.dtype)))


def summary_of(evaluation, name, measure, values, n_queries):
    """The value reported over all queries for the values of ``name``: trec_eval's (see :func:`summarize`)."""
    if name in evaluation.summaries:
        return evaluation.summaries[name]
    return summarize(measure, values, n_queries)


def summarize(measure, values, n_queries):
    """The value reported over all queries: trec_eval's mean, geometric mean, sum or count; None: the mean."""
    if measure is None:
        return float(np.mean(values))
    if measure.summary == "gm":  # the values are logs already
        return float(np.exp(np.sum(values) / n_queries)) if n_queries else 0.0
    if measure.summary == "count":
        return n_queries
    if measure.summary == "sum":  # a count: whole, but where a mean over the orderings of a tie block is not
        total = float(np.sum(values))
        return int(total) if total.is_integer() else total
    return float(np.sum(values) / n_queries) if n_queries else 0.0


def evaluate_run(
    qrels,
    run,
    metrics=("official",),
    *,
    relevance_level=1,
    complete=False,
    max_depth=None,
    judged_only=False,
    ties=None,
    average=True,
):
    """Evaluate a run against relevance judgements, exactly as trec_eval does.

    Parameters
    ----------
    qrels : path, file object, dict, DataFrame or Qrels
        The judgements: a TREC qrels file (plain or gzip), a pytrec_eval
        dict ``{query_id: {doc_id: relevance}}``, a DataFrame with
        ir_measures' columns ``query_id``, ``doc_id``, ``relevance``, or the
        result of :func:`read_qrels`. Negative relevance marks a pooled but
        unjudged document.
    run : path, file object, dict, DataFrame or Run
        The ranked results: a TREC run file, a dict ``{query_id: {doc_id:
        score}}``, a DataFrame with columns ``query_id``, ``doc_id``,
        ``score``, or the result of :func:`read_run`. Scores are numbers
        (``inf`` and ``-inf`` rank first and last); NaN is an error, whatever
        the input. A dict's query that maps to no document is evaluated, with
        nothing retrieved, as pytrec_eval does.
    metrics : sequence of str, default=("official",)
        The measures, as given to trec_eval's ``-m``: names (``"map"``,
        ``"ndcg"``), names with parameters (``"P.5,10"``, ``"ndcg_cut.10"``,
        ``"rbp.p=0.8"``) and sets (``"official"``, trec_eval's default,
        ``"all_trec"``, ``"set"``); and ranking metric names of this library
        (``"nDCG@10"``, ``"AP"``, ``"RR"``, ``"R@100"``, ``"err@20"``). Each
        measure is computed once, with the parameters of every request: a
        list ``["P.5", "P.10"]`` gives ``P_5`` and ``P_10`` (the command, as
        trec_eval, keeps the first parameters of a repeated ``-m``).
    relevance_level : int, default=1
        A document is relevant when its judgement is at least this (trec_eval
        ``-l``), for trec_eval's measures and the library's names alike
        (``"AP"`` is ``"map"``), unless a name sets its own
        ``relevance_threshold``. 0: every judged document is relevant, and
        neither an unjudged one nor one absent from the qrels is.
    complete : bool, default=False
        Also score the queries of the qrels that the run does not answer, as
        0 in every measure (trec_eval ``-c``); an empty run then scores every
        query 0 (without it, an empty run is an error). As in trec_eval, the
        summary of ``num_rel`` then counts the judgements above 0 of the
        whole qrels, whatever ``relevance_level`` (the per-query values use it).
    max_depth : int, default=None
        Only the top ``max_depth`` documents of each query count as retrieved
        (trec_eval ``-M``), taken in the order of ``ties``: trec_eval's, or
        the tie policy's. With ``ties="average"``, a block of tied scores
        that straddles the depth fills the places above it with some of its
        documents, and each measure is its exact mean, over the orderings of
        the block, on the ranking cut at ``max_depth`` (P@1 of a tie between
        a relevant and a non-relevant document is 0.5); counts of retrieved
        documents (``num_rel_ret``, ``num_nonrel_judged_ret``) are then
        expected counts, which can be fractions; ``gm_map`` and ``gm_bpref``
        take the log of each query's mean. None: all.
    judged_only : bool, default=False
        Remove the unjudged documents from each ranking (trec_eval ``-J``),
        after the cut at ``max_depth``, as trec_eval does. With
        ``ties="average"`` and a tie block cut by ``max_depth``, the number of
        judged documents above the depth depends on the block's order too:
        the mean also runs over its (hypergeometric) law.
    ties : {"average", "pessimistic", "optimistic", "stable"} or None, default=None
        None: trec_eval's order, by descending score and then descending
        document id (the rank column is ignored). Otherwise the library's
        policy for equal scores: ``"average"``, the exact mean over their
        orderings (the measures defined on one ordering, ``infAP``,
        ``iprec_at_recall``, ``11pt_avg``, ``relstring``, ``binG``, ``G``,
        ``ndcg_rel`` and ``Rndcg``, refuse it where scores tie, a cut at
        ``max_depth`` or not); ``"pessimistic"``
        and ``"optimistic"``, the lowest and the highest judgement first (a
        document judged negatively, then one absent from the qrels, below a
        judgement of 0); ``"stable"``, the input order.
    average : bool, default=True
        Return each measure's summary over queries (a mean; sums for the
        ``num_*`` counts; a geometric mean for ``gm_map`` and ``gm_bpref``);
        False: per-query values, with the query ids under ``"qid"``.

    Returns
    -------
    results : dict
        Measure name (trec_eval's, such as ``"P_5"``) to its summary, or to
        the array of per-query values.

    Raises
    ------
    ValueError
        For a malformed file (naming it and the line), an input whose
        columns differ in length, a NaN score, an empty run (without
        ``complete``), a bad measure name or option (a near miss names the
        measure it resembles).
    TypeError
        For an option of the wrong type, such as ``complete="yes"``.

    See Also
    --------
    read_qrels, read_run : Read the files once to evaluate several runs or settings.
    sklearn_rankmetrics.ranking_report : The same metrics on arrays of labels and scores.

    Notes
    -----
    Every judged document counts: one that the run did not retrieve takes no
    rank but counts in the number of relevant documents and the ideal
    ranking (the library's ``-inf`` convention). Run queries without
    judgements are skipped, as in trec_eval; when no query of the run is
    judged, there is nothing to evaluate (an error) unless ``complete``. A
    document retrieved twice for one query (within ``max_depth``), or judged
    twice, is an error, as in trec_eval. Ids compare as trec_eval compares
    them, byte by byte (``strcmp``): str as its UTF-8, an integer as its
    decimal text (float ids are refused), so ties rank the same whichever
    way the ids arrive; the ``"qid"`` of per-query values are str. Every
    input route takes only what a TREC file can hold: nonempty ids without
    whitespace or control bytes (``"a\\x00"`` is refused, never merged with
    ``"a"``), relevance within int64 (never wrapped around), finite-sized
    scores.

    Differences from trec_eval 10 (see the user guide for all): with
    ``judged_only``, a query left with no retrieved document scores 0 in
    ``iprec_at_recall`` and ``11pt_avg``, where trec_eval divides 0 by 0
    and prints ``-nan`` (for the levels whose cutoff rounds to 0
    documents, and in their means); ``Rndcg`` at ``relevance_level=0``
    scores 0 where trec_eval prints ``-nan``; qrels queries without a row
    in the run are skipped (without ``complete``), where trec_eval 10 stops
    ("result qid not found in qrels") and trec_eval 9 skips them.

    Examples
    --------
    >>> from sklearn_rankmetrics.trec import evaluate_run
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1}}
    >>> run = {"q1": {"d1": 2.0, "d2": 1.0}}
    >>> evaluate_run(qrels, run, ["map", "P.1", "recall.2"])
    {'map': 0.5, 'P_1': 1.0, 'recall_2': 0.5}
    """
    if ties is not None:
        check_option("ties", ties, TIES)
    if isinstance(metrics, str):
        raise TypeError(f"metrics must be a sequence of measure names, such as [{metrics!r}]; got a string.")
    metrics = list(metrics)
    if not metrics:
        raise ValueError("metrics is empty: give at least one measure, such as ['map'] or ['official'].")
    if max_depth is not None and (not isinstance(max_depth, numbers.Integral) or isinstance(max_depth, bool)):
        raise TypeError(f"max_depth must be None or an integer >= 1; got {max_depth!r}.")
    if max_depth is not None and max_depth < 1:
        raise ValueError(f"max_depth must be None or an integer >= 1; got {max_depth!r}.")
    relevance_level = check_relevance_level(relevance_level, "relevance_level")
    complete, judged_only = check_flag("complete", complete), check_flag("judged_only", judged_only)
    average = check_flag("average", average)
    requests = dict.fromkeys(request for spec in metrics for request in parse_measure(spec))
    evaluation = join(
        as_qrels(qrels),
        as_run(run),
        relevance_level=relevance_level,
        complete=complete,
        max_depth=max_depth,
        ties=ties,
        judged_only=judged_only,
        answered=answered_without_rows(run),
        tail_free=tail_free(requests),
    )
    return collect(evaluation, requests, average=average)


def tail_free(requests):
    """Whether every requested (measure, parameters) is a trec_eval measure of TAIL_FREE (see :func:`join`)."""
    return all(base in TAIL_FREE and params != "library" for base, params in requests)


def check_relevance_level(level, name):
    """The relevance level: an integer >= 0 (0: every judged document is relevant)."""
    if not isinstance(level, numbers.Integral) or isinstance(level, bool):
        raise TypeError(f"{name} must be an integer >= 0; got {level!r}.")
    if level < 0:
        raise ValueError(
            f"{name} must be an integer >= 0; got {level}. Negative judgements mark pooled documents left "
            "unjudged, which no level makes relevant."
        )
    return int(level)


def query_table(evaluation, requests):
    """The evaluated queries' ids, as bytes in strcmp's order (trec_eval's), and per request its measure and
    (name, per-query values) pairs.

    The values follow the ids, the queries without a row included; the
    measure is None for a ranking metric name of the library.
    """
    ids = np.concatenate((evaluation.query_ids, evaluation.missing_ids))
    order = np.argsort(ids, kind="stable")
    table = []
    for base, params in requests:
        measure = MEASURES.get(base)
        pairs = evaluation_values(evaluation, base, params)
        table.append(
            (base, measure, [(name, with_missing(evaluation, measure, values)[order]) for name, values in pairs])
        )
    return ids[order], table


def collect(evaluation, requests, *, average=True):
    """Each requested (measure, parameters)'s per-query values (missing queries included, sorted by id) or summary."""
    ids, table = query_table(evaluation, requests)
    results = {} if average else {"qid": as_text(ids)}
    for _, measure, pairs in table:
        for name, values in pairs:
            if not average:
                results[name] = values
            elif measure is None or measure.summary != "none":  # relstring: per query only
                results[name] = summary_of(evaluation, name, measure, values, len(ids))
    return results
