"""The qrels and the run in: files, Qrels and Run objects, dicts and DataFrames, as validated columns of ids."""

import difflib
import numbers
import os

import numpy as np

from .._core._frames import column_labels, column_named, frame_library
from ._general_reader import objects, packed, text
from ._io import Qrels, Run, read_qrels_bytes, read_run_bytes


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
    elif frame_library(source) or hasattr(source, "columns"):  # a Polars LazyFrame refused before it warns
        columns, name = frame_columns(source, names, what), ""
    elif isinstance(source, kind):
        columns, name = tuple(getattr(source, column) for column in names), getattr(source, "name", "")
    elif not isinstance(source, str | os.PathLike) and not hasattr(source, "read"):
        raise TypeError(unreadable(source, what, kind, names))
    else:  # a file: its ids are checked already, nonempty without whitespace or control bytes
        source = read(source)
        return tuple(getattr(source, column) for column in names), getattr(source, "name", "")
    return checked_columns(what, names, columns), name


def unreadable(source, what, kind, names):
    """The message for a ``what`` (qrels or run) given as an object of no accepted kind, with the fix."""
    given = f"{type(source).__module__}.{type(source).__qualname__}".removeprefix("builtins.")
    hint = f" It has to_dict(): pass {what}.to_dict()." if callable(getattr(source, "to_dict", None)) else ""
    return (
        f"{what} must be a path or an open file of the TREC format, a dict {{query_id: {{doc_id: {names[2]}}}}}, a "
        f"DataFrame with the columns {', '.join(names)}, or a sklearn_rankmetrics.trec.{kind.__name__}; got "
        f"{given}.{hint}"
    )


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


# PyTerrier's names of the columns: qid, docno, score (its results) and label (its qrels).
PYTERRIER_COLUMNS = {"query_id": "qid", "doc_id": "docno", "relevance": "label", "score": "score"}


def frame_columns(frame, names, what):
    """A data frame's columns of ``names`` (ir_measures' names), or PyTerrier's names for them, never a mixture.

    pandas and Polars DataFrames and pyarrow Tables are read in place; another frame-like object by its
    ``columns`` and ``frame[name].to_numpy()``.
    """
    labels = column_labels(frame)
    if labels is None:  # another frame-like object: its columns by name
        labels, read = list(frame.columns), lambda name: np.asarray(frame[name].to_numpy())
    else:
        read = lambda name: column_named(frame, name)  # noqa: E731
    present = [str(column) for column in labels]
    layouts = (names, tuple(PYTERRIER_COLUMNS[name] for name in names))
    for layout in layouts:
        if all(name in present for name in layout):
            return tuple(read(labels[present.index(name)]) for name in layout)
    layout = max(layouts, key=lambda layout: sum(name in present for name in layout))  # the one it nearly has
    missing = [name for name in layout if name not in present]
    other = dict(zip(layout, layouts[1] if layout is layouts[0] else layouts[0], strict=True))  # the other's name
    near, mixed = [], any(other[name] in present for name in missing)
    for name in missing:
        close = [other[name]] if other[name] in present else difflib.get_close_matches(name, present, n=1)
        if close and close[0] != "docid":
            near.append(f"{close[0]!r} to {name!r}")
    hint = f" Rename {', '.join(near)}" + (" (one layout or the other, never a mixture)." if mixed else ".")
    hint = hint if near else ""
    if "docno" in missing and "docid" in present:
        hint += " PyTerrier's docid is the index's internal number; docno is the document's id, which qrels judge."
    raise ValueError(
        f"{what} must have the columns {', '.join(layouts[0])} (ir_measures' names) or {', '.join(layouts[1])} "
        f"(PyTerrier's); missing: {', '.join(missing)} (its columns are {present}).{hint}"
    )


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
    """Fixed-width byte-string ids (nonempty, C-contiguous), checked: each a nonempty run of bytes above 32 (its zero
    padding aside).

    A few passes over the bytes, each cheap (a run's ids pass in a small
    fraction of the time reading them takes): no byte in 1..32 (the least
    byte less 1, wrapping 0 around to 255); every id's first byte nonzero;
    and no NUL inside one: a nonzero byte after a zero starts an id (as
    many of them as ids that follow a padded one), never its middle.
    """
    flat = ids.view(np.uint8).reshape(-1)
    matrix = flat.reshape(len(ids), ids.dtype.itemsize)
    if (flat - np.uint8(1)).min() >= 32 and matrix[:, 0].all():
        zero = flat == 0
        after_zero = np.count_nonzero(zero[:-1] > zero[1:]) if ids.dtype.itemsize > 1 else 0
        if after_zero == np.count_nonzero(zero.reshape(matrix.shape)[:-1, -1]):
            return ids
    lengths = np.strings.str_len(ids)  # up to the zero padding
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
