"""Readers of TREC qrels and run files: whitespace-separated columns, plain or gzip.

The files are large (a run of 7,000 queries x 1,000 documents has 7 million
lines), so they are tokenised with numpy, in chunks of whole lines that
threads handle side by side, rather than line by line in Python.
"""

import gzip
import itertools
import os
from dataclasses import dataclass

import numpy as np

from .._parallel import map_in_threads

# Lines are read in chunks of about this many bytes (cut at a newline).
CHUNK_BYTES = 2**24


@dataclass(frozen=True)
class Qrels:
    """Relevance judgements: one row per judged (query, document) pair.

    :func:`read_qrels` returns one; :func:`evaluate_run` also takes dicts and
    DataFrames, which it turns into one.

    Parameters
    ----------
    query_id : ndarray of str
        The query of each judgement.
    doc_id : ndarray of str
        The judged document.
    relevance : ndarray of int64
        The judged relevance; negative values mark documents in the pool that
        were left unjudged (trec_eval's convention).

    See Also
    --------
    read_qrels : Read one from a qrels file.
    Run : The ranked results that judgements evaluate.

    Examples
    --------
    >>> import io
    >>> from sklearn_rankmetrics.trec import read_qrels
    >>> qrels = read_qrels(io.StringIO("q1 0 d1 2\\nq1 0 d2 0\\nq2 0 d7 1\\n"))
    >>> qrels.doc_id, qrels.relevance
    (array(['d1', 'd2', 'd7'], dtype='<U2'), array([2, 0, 1]))
    """

    query_id: np.ndarray
    doc_id: np.ndarray
    relevance: np.ndarray


@dataclass(frozen=True)
class Run:
    """A ranked result list per query: one row per retrieved document.

    :func:`read_run` returns one; :func:`evaluate_run` also takes dicts and
    DataFrames, which it turns into one.

    Parameters
    ----------
    query_id : ndarray of str
        The query of each row.
    doc_id : ndarray of str
        The retrieved document.
    score : ndarray of float64
        The retrieval score; trec_eval ranks by it, never by the rank column.
    name : str, default=""
        The run tag (the 6th column of the last line, as trec_eval's ``runid``).

    See Also
    --------
    read_run : Read one from a run file.
    Qrels : The judgements that evaluate a run.

    Examples
    --------
    >>> import io
    >>> from sklearn_rankmetrics.trec import read_run
    >>> run = read_run(io.StringIO("q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d3 2 1.5 bm25\\n"))
    >>> run.doc_id, run.score, run.name
    (array(['d1', 'd3'], dtype='<U2'), array([2.5, 1.5]), 'bm25')
    """

    query_id: np.ndarray
    doc_id: np.ndarray
    score: np.ndarray
    name: str = ""


def read_qrels(source):
    """Read a TREC qrels file: ``query_id iteration doc_id relevance`` per line.

    Parameters
    ----------
    source : str, os.PathLike or file object
        A path (``.gz`` paths are decompressed) or an open file, binary or text.

    Returns
    -------
    qrels : Qrels
        The judgements, in file order. Blank lines and lines starting with
        ``#`` are ignored, as trec_eval does.

    Raises
    ------
    ValueError
        Naming the file and the first line that does not have four columns
        or whose relevance is not an integer.

    See Also
    --------
    read_run : Read the run to evaluate against these judgements.
    evaluate_run : Evaluate a run, from these or from files.

    Examples
    --------
    >>> import io
    >>> from sklearn_rankmetrics.trec import read_qrels
    >>> qrels = read_qrels(io.StringIO("q1 0 d1 1\\nq1 0 d2 0\\n"))
    >>> qrels.doc_id, qrels.relevance
    (array(['d1', 'd2'], dtype='<U2'), array([1, 0]))
    """
    qrels = read_qrels_bytes(source)
    return Qrels(text(qrels.query_id), text(qrels.doc_id), qrels.relevance)


def read_qrels_bytes(source):
    """:func:`read_qrels` with the ids kept as byte strings, which the evaluation compares faster."""
    fields = ("query_id", "iteration", "doc_id", "relevance")
    _, columns, _ = read_columns(source, fields, "qrels", ("query_id", "doc_id", "relevance"), {"relevance": np.int64})
    return Qrels(columns["query_id"], columns["doc_id"], columns["relevance"])


def read_run(source):
    """Read a TREC run file: ``query_id Q0 doc_id rank score tag`` per line.

    Parameters
    ----------
    source : str, os.PathLike or file object
        A path (``.gz`` paths are decompressed) or an open file, binary or text.

    Returns
    -------
    run : Run
        The retrieved documents, in file order, with the tag of the last line
        as the run's name (trec_eval's ``runid``). The rank column is checked
        to be present but, as in trec_eval, never used: documents are ranked
        by score. Text after the tag, blank lines and lines starting with
        ``#`` are ignored, as trec_eval does.

    Raises
    ------
    ValueError
        Naming the file and the first line that does not have six columns or
        whose score is not a number (NaN included).

    See Also
    --------
    read_qrels : Read the judgements.
    evaluate_run : Evaluate a run, from these or from files.

    Examples
    --------
    >>> import io
    >>> from sklearn_rankmetrics.trec import read_run
    >>> run = read_run(io.StringIO("q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d2 2 1.5 bm25\\n"))
    >>> run.doc_id, run.score, run.name
    (array(['d1', 'd2'], dtype='<U2'), array([2.5, 1.5]), 'bm25')
    """
    run = read_run_bytes(source)
    return Run(text(run.query_id), text(run.doc_id), run.score, run.name)


def read_run_bytes(source):
    """:func:`read_run` with the ids kept as byte strings, which the evaluation compares faster."""
    fields = ("query_id", "q0", "doc_id", "rank", "score", "tag")
    _, columns, last_line = read_columns(
        source, fields, "run", ("query_id", "doc_id", "score"), {"score": np.float64}, extra=True
    )
    return Run(columns["query_id"], columns["doc_id"], columns["score"], last_line[5].decode("utf-8", "replace"))


def text(values):
    """Byte strings as str (the ids are ASCII in every TREC collection; other bytes are kept as UTF-8)."""
    try:
        return values.astype(np.str_)
    except UnicodeDecodeError:
        return np.array([value.decode("utf-8", "replace") for value in values])


def read_bytes(source):
    """The bytes of a path (gzip when its name ends in .gz) or of an open file, and a name for messages."""
    if isinstance(source, str | os.PathLike):
        name = os.fspath(source)
        opener = gzip.open if name.endswith(".gz") else open
        with opener(name, "rb") as file:
            return name, file.read()
    if not hasattr(source, "read"):
        raise TypeError(f"expected a path or an open file; got {type(source).__name__}.")
    name = getattr(source, "name", None) or f"<{type(source).__name__}>"
    data = source.read()
    if isinstance(data, str):
        data = data.encode("utf-8")
    if data[:2] == b"\x1f\x8b":  # a gzip file opened as a plain binary file
        data = gzip.decompress(data)
    return str(name), data


def chunks_of_lines(data):
    """Byte offsets cutting ``data`` into chunks of about CHUNK_BYTES that end at a newline."""
    cuts = [0]
    while len(data) - cuts[-1] > CHUNK_BYTES:
        newline = data.find(b"\n", cuts[-1] + CHUNK_BYTES)
        if newline < 0:
            break
        cuts.append(newline + 1)
    cuts.append(len(data))
    return cuts


def tokenize(data, start, stop, n_fields, wanted, extra=False):
    """The ``wanted`` fields of the lines in ``data[start:stop]``, as fixed-width byte strings.

    Tokens are separated by ASCII whitespace. Returns the columns (None for
    the fields not wanted), the line number (0-based, within the chunk) of
    each row, and the first line whose number of tokens is not ``n_fields``
    (-1 when all are; blank lines are allowed).
    """
    buffer = np.frombuffer(data, dtype=np.uint8, count=stop - start, offset=start)
    bounds = single_space_bounds(buffer, n_fields)
    if bounds is None:
        bounds = general_bounds(buffer, n_fields, extra)
        if isinstance(bounds, int):
            return None, None, bounds
    starts, ends, lines = bounds
    padded = np.concatenate((buffer, np.zeros(PADDING, dtype=np.uint8)))
    columns = [
        fixed_width(padded, len(buffer), starts(field), ends(field)) if field in wanted else None
        for field in range(n_fields)
    ]
    return columns, lines, -1


def single_space_bounds(buffer, n_fields):
    """Token bounds when every line holds ``n_fields`` tokens separated by single spaces or tabs (None otherwise).

    The common layout costs one pass over the bytes: every whitespace byte is
    then a separator, and every ``n_fields``-th of them ends a line. Returns
    functions giving the starts and the ends of one field's tokens.
    """
    is_space = buffer <= 32
    if len(buffer) == 0 or is_space[0] or (is_space[1:] & is_space[:-1]).any():
        return None  # blank lines, CRLF, several spaces in a row: the general path
    whitespace = np.flatnonzero(is_space)
    if len(whitespace) % n_fields:
        return None
    bounds = whitespace.reshape(-1, n_fields)
    kinds = buffer[bounds]
    if not ((kinds[:, -1] == 10).all() and ((kinds[:, :-1] == 32) | (kinds[:, :-1] == 9)).all()):
        return None
    if buffer[0] == ord("#") or (buffer[bounds[:-1, -1] + 1] == ord("#")).any():
        return None  # comment lines

    def starts(field):
        if field:
            return bounds[:, field - 1] + 1
        return np.concatenate(([0], bounds[:-1, -1] + 1))

    return starts, lambda field: bounds[:, field], np.arange(len(bounds))


def general_bounds(buffer, n_fields, extra):
    """Token bounds for any ASCII whitespace, skipping blank lines and comment lines (``#`` first).

    With ``extra``, tokens past the ``n_fields``-th of a line are ignored (as
    trec_eval reads runs). Returns the index of the first line with too few
    (or, without ``extra``, too many) tokens instead when there is one.
    """
    separator = np.empty(len(buffer) + 2, dtype=np.int8)
    separator[0] = separator[-1] = 1
    np.less_equal(buffer, 32, out=separator[1:-1].view(bool))
    edges = np.diff(separator)
    token_starts = np.flatnonzero(edges == -1)
    token_ends = np.flatnonzero(edges == 1)
    line_ends = np.append(np.flatnonzero(buffer == 10), len(buffer))
    first_token = np.searchsorted(token_starts, np.concatenate(([0], line_ends[:-1] + 1)))
    per_line = np.diff(np.append(first_token, len(token_starts)))
    has_tokens = per_line > 0
    comment = np.zeros(len(per_line), dtype=bool)
    comment[has_tokens] = buffer[token_starts[first_token[has_tokens]]] == ord("#")
    data_line = has_tokens & ~comment
    wrong = data_line & ((per_line < n_fields) | ((per_line > n_fields) & (not extra)))
    if wrong.any():
        return int(np.flatnonzero(wrong)[0])
    lines = np.flatnonzero(data_line)
    kept = (first_token[lines, None] + np.arange(n_fields)).reshape(-1)
    starts, ends = token_starts[kept].reshape(-1, n_fields), token_ends[kept].reshape(-1, n_fields)
    return (lambda field: starts[:, field]), (lambda field: ends[:, field]), lines


# Zero bytes after a chunk, so that a token near its end can be read as a window of PADDING bytes.
PADDING = 64


def fixed_width(padded, size, starts, ends):
    """The tokens ``padded[starts[i]:ends[i]]`` as one fixed-width byte-string array (zero padded).

    ``padded`` holds the ``size`` bytes of the chunk followed by PADDING zero bytes.
    """
    lengths = ends - starts
    width = int(lengths.max(initial=1))
    if width > PADDING:
        padded = np.concatenate((padded[:size], np.zeros(width, dtype=np.uint8)))
    # Every window of ``width`` bytes, without copying; one gather takes each token's.
    windows = np.lib.stride_tricks.as_strided(padded, shape=(size, width), strides=(1, 1), writeable=False)
    matrix = windows[starts]
    matrix[np.arange(width) >= lengths[:, None]] = 0
    return matrix.view(f"S{width}").reshape(-1)


def read_columns(source, fields, kind, wanted, numbers, *, extra=False):
    """Read a qrels or run file: the ``wanted`` columns, and the file line number of each row.

    Columns named in ``numbers`` (name to dtype) are parsed as numbers, the
    others kept as fixed-width byte strings. With ``extra``, text after the
    last field is ignored. Chunks of lines are tokenised and parsed side by
    side; errors name the file and the line. Also returns the tokens of the
    last line that holds data.
    """
    name, data = read_bytes(source)
    cuts = chunks_of_lines(data)
    wanted_fields = [fields.index(field) for field in wanted]
    first_lines = np.cumsum([1] + [data.count(b"\n", start, stop) for start, stop in itertools.pairwise(cuts[:-1])])

    def read_chunk(start, stop, first_line):
        part, lines, wrong = tokenize(data, start, stop, len(fields), wanted_fields, extra)
        if wrong >= 0:
            content = data[start:stop].split(b"\n")[wrong].decode("utf-8", "replace").strip()
            expected = f"at least {len(fields)}" if extra else f"the {len(fields)}"
            raise ValueError(
                f"{name}, line {first_line + wrong}: expected {expected} columns of a {kind} file "
                f"({' '.join(fields)}); got {len(content.split())}: {content[:80]!r}."
            )
        chunk = {field: values for field, values in zip(fields, part, strict=True) if values is not None}
        for field, dtype in numbers.items():
            chunk[field] = to_numbers(chunk[field], dtype, name, lines + first_line, field)
            if dtype is np.float64 and np.isnan(chunk[field]).any():
                line = first_line + lines[np.flatnonzero(np.isnan(chunk[field]))[0]]
                raise ValueError(f"{name}, line {line}: the {field} is NaN; every {kind} line needs a number there.")
        return chunk

    chunks = map_in_threads(read_chunk, cuts[:-1], cuts[1:], first_lines)
    columns = {field: np.concatenate([chunk[field] for chunk in chunks]) for field in chunks[0]}
    if len(columns[wanted[0]]) == 0:
        raise ValueError(f"{name} is empty: a {kind} file needs at least one line of {' '.join(fields)}.")
    return name, columns, last_data_line(data)


def last_data_line(data):
    """The tokens of the last line of ``data`` that is neither blank nor a comment."""
    end = len(data)
    while end > 0:
        start = data.rfind(b"\n", 0, end - 1) + 1
        tokens = data[start:end].split()
        if tokens and not tokens[0].startswith(b"#"):
            return tokens
        end = start
    return []


def parse_decimals(values):
    """Byte-string numbers as float64, exactly as ``float()`` reads them.

    Plain decimals of at most 15 digits (``-12.375``), nearly every score in
    a run, are read with array arithmetic: their digits form an integer
    below 2**53 and the power of ten is exact, so one division rounds
    correctly, as a correctly rounded parser does. The others (exponents,
    ``inf``, long mantissas) go through numpy's parser.
    """
    columns = np.ascontiguousarray(values.view(np.uint8).reshape(len(values), -1).T)  # one row per place
    mantissa = np.zeros(len(values), dtype=np.int64)
    n_digits = np.zeros(len(values), dtype=np.int8)
    decimals = np.zeros(len(values), dtype=np.int8)
    dots = np.zeros(len(values), dtype=np.int8)
    plain = columns[0] != 0
    negative = columns[0] == 45
    for place, column in enumerate(columns):
        digit = column - np.uint8(48)
        is_digit = digit < 10
        np.copyto(mantissa, mantissa * 10 + digit, where=is_digit)
        n_digits += is_digit
        decimals += is_digit & (dots > 0)
        is_dot = column == 46
        dots += is_dot
        allowed = is_digit | is_dot | (column == 0)
        plain &= (allowed | negative) if place == 0 else allowed
    plain &= (dots <= 1) & (n_digits > 0) & (n_digits <= 15)
    numbers = mantissa / 10.0**decimals
    np.negative(numbers, out=numbers, where=negative)
    if not plain.all():
        numbers[~plain] = values[~plain].astype(np.float64)
    return numbers


def to_numbers(values, dtype, name, lines, field):
    """Byte-string tokens as numbers, naming the file and line of the first that is not one."""
    try:
        return parse_decimals(values) if dtype is np.float64 else values.astype(dtype)
    except ValueError:
        expected = "a number" if dtype is np.float64 else "an integer"
        for row, value in enumerate(values):
            try:
                float(value) if dtype is np.float64 else int(value)
            except ValueError:
                raise ValueError(
                    f"{name}, line {lines[row]}: the {field} column must be {expected}; "
                    f"got {value.decode('utf-8', 'replace')!r}."
                ) from None
        raise
