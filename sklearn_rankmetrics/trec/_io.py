"""Readers of TREC qrels and run files: whitespace-separated columns, plain or compressed (gzip, bzip2, xz).

The files are large (a run of 7,000 queries x 1,000 documents has 7 million
lines), so they are tokenised with numpy, in chunks of whole lines that
threads handle side by side, rather than line by line in Python
(:mod:`._general_reader`), or by pyarrow's CSV tokenizer where it reads a file
exactly as the general reader would (:mod:`._fast_reader`).

Ids are kept as the bytes of the file, which trec_eval compares with C's
``strcmp`` (byte by byte, unsigned): in fixed-width byte-string arrays, or,
when one id is far longer than the others, in object arrays of bytes, so that
memory stays of the order of the file whatever the ids. :func:`read_qrels`
and :func:`read_run` give them as str, decoded without loss.
"""

import os
from dataclasses import dataclass

import numpy as np

from .._core._docs import doc_filler
from ._fast_reader import fast_columns, readable_in_place
from ._general_reader import QRELS, RUN, general_columns, last_data_line, read_bytes, text

# The Notes that read_qrels and read_run share: how a file's lines are read.
READING_NOTES = {
    "reading": """Lines end at ``\\n``, ``\\r\\n`` or a lone ``\\r`` (classic Mac OS), and a
    UTF-8 byte-order mark where a line starts (Notepad, PowerShell and
    Excel's "CSV UTF-8" write one first; ``cat`` joins files that each have
    one) is dropped. trec_eval differs on both, silently: it reads a lone
    ``\\r`` as a space, so a file of such lines is one line (in a run, every
    record after the first is text after the tag), and it keeps the mark as
    part of the first query id, which prints as the id but matches no other.
    Elsewhere in a line, U+FEFF is a character of the id, as any other.

    With pyarrow installed (the ``pyarrow`` extra), a file whose columns
    are separated by single spaces, as retrieval systems write them, is split
    by pyarrow's CSV tokenizer, several times faster; any other is read with
    numpy. The result is the same, arrays, dtypes and errors included.""",
}


@dataclass(frozen=True)
class Qrels:
    """Relevance judgements: one row per judged (query, document) pair.

    :func:`read_qrels` returns one; :func:`evaluate_run` also takes dicts and
    DataFrames, which it turns into one.

    Parameters
    ----------
    query_id : ndarray of str
        The query of each judgement. As :func:`read_qrels` gives them:
        fixed-width str, or an object array of str when one id is far longer
        than the others; bytes that are not UTF-8 are kept as surrogate
        escapes, so that ``id.encode("utf-8", "surrogateescape")`` gives
        the file's bytes back.
    doc_id : ndarray of str
        The judged document, likewise.
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
    DataFrames, which it turns into one. A run file without any line gives
    a Run of zero rows.

    Parameters
    ----------
    query_id : ndarray of str
        The query of each row. As :func:`read_run` gives them: fixed-width
        str, or an object array of str when one id is far longer than the
        others; bytes that are not UTF-8 are kept as surrogate escapes, so
        that ``id.encode("utf-8", "surrogateescape")`` gives the file's
        bytes back.
    doc_id : ndarray of str
        The retrieved document, likewise.
    score : ndarray of float64
        The retrieval score; trec_eval ranks by it, never by the rank column.
    name : str, default=""
        The run tag (the 6th column of the last line, as trec_eval's
        ``runid``); bytes that are not UTF-8 are kept as surrogate escapes,
        as in the ids.

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


@doc_filler(READING_NOTES)
def read_qrels(source):
    """Read a TREC qrels file: ``query_id iteration doc_id relevance`` per line.

    Parameters
    ----------
    source : str, os.PathLike or file object
        A path or an open file, binary or text; gzip, bzip2 and xz content
        is decompressed (known by its first bytes, whatever the file's
        name), UTF-16 and UTF-32 text with a byte-order mark decoded.

    Returns
    -------
    qrels : Qrels
        The judgements, in file order. Lines whose first column starts with
        ``#`` are comments. Blank lines are skipped too, where trec_eval 10
        stops at them ("Malformed line"): they hold nothing to lose. The
        relevance is read as Python's ``int`` reads it, but for digit
        separators (``1_0`` is refused: trec_eval would read 1).

    Raises
    ------
    ValueError
        Naming the file and the first line that does not have four columns,
        holds a control byte (such as NUL), or whose relevance is not an
        integer of 64 bits (trec_eval's ``long``); or naming the file when it
        has no line at all, its compressed content is truncated or corrupt
        (a damaged stream after a good one included), or it is compressed in
        a format the standard library cannot read (zstd, zip, 7z, lz4).

    See Also
    --------
    read_run : Read the run to evaluate against these judgements.
    evaluate_run : Evaluate a run, from these or from files.

    Notes
    -----
    %(reading)s

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
    """:func:`read_qrels` with the ids kept as bytes, as the evaluation compares them."""
    name, columns, _ = read_columns(source, QRELS)
    if not len(columns["relevance"]):
        raise ValueError(f"{name} is empty: a qrels file needs at least one line of {' '.join(QRELS.fields)}.")
    return Qrels(columns["query_id"], columns["doc_id"], columns["relevance"])


@doc_filler(READING_NOTES)
def read_run(source):
    """Read a TREC run file: ``query_id Q0 doc_id rank score tag`` per line.

    Parameters
    ----------
    source : str, os.PathLike or file object
        A path or an open file, binary or text; gzip, bzip2 and xz content
        is decompressed (known by its first bytes, whatever the file's
        name), UTF-16 and UTF-32 text with a byte-order mark decoded.

    Returns
    -------
    run : Run
        The retrieved documents, in file order, with the tag of the last line
        as the run's name (trec_eval's ``runid``). The rank column is checked
        to be present but, as in trec_eval, never used: documents are ranked
        by score, read exactly as Python's ``float`` reads it (but for digit
        separators: ``1_000`` is refused, which trec_eval reads as 1). Text
        after the tag, blank lines and lines whose first column starts with
        ``#`` are ignored, as trec_eval does. A file without any such line gives a Run
        of zero rows (and the name ``""``).

    Raises
    ------
    ValueError
        Naming the file and the first line that does not have six columns,
        holds a control byte (such as NUL), or whose score is not a number
        (NaN included); or naming the file when its compressed content is
        truncated or corrupt (a damaged stream after a good one included), or
        compressed in a format the standard library cannot read (zstd, zip,
        7z, lz4).

    See Also
    --------
    read_qrels : Read the judgements.
    evaluate_run : Evaluate a run, from these or from files.

    Notes
    -----
    %(reading)s

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
    """:func:`read_run` with the ids kept as bytes, as the evaluation compares them."""
    _, columns, last_line = read_columns(source, RUN)
    name = last_line[5].decode("utf-8", "surrogateescape") if last_line else ""  # lossless, as the ids
    return Run(columns["query_id"], columns["doc_id"], columns["score"], name)


def read_columns(source, layout):
    """Read a qrels or run file: its id columns as bytes, its number columns parsed.

    pyarrow's tokenizer reads the files it splits as the general reader does
    (:mod:`._fast_reader`: single spaces, nothing to skip), where it is
    installed; the general reader reads the others, and names the file and
    the line of any error. Also returns the tokens of the last line that
    holds data (an empty list when none does).
    """
    if isinstance(source, str | os.PathLike) and readable_in_place(source):
        found = fast_columns(os.fspath(source), layout)
        if found is not None:
            return os.fspath(source), *found
    name, data = read_bytes(source)
    found = fast_columns(data, layout)
    if found is not None:
        return name, *found
    return name, general_columns(name, data, layout), last_data_line(data)
