"""The fast path of the TREC readers: pyarrow's CSV tokenizer, on the files it splits as they do.

The readers split each line at runs of whitespace (C's ``isspace``, as
trec_eval), skip blank lines and comment lines, and in runs ignore the text
after the sixth column; they end lines at ``\\n`` and a lone ``\\r`` and drop
a UTF-8 byte-order mark where a line starts
(:func:`~._general_reader.plain_lines`). pyarrow (an optional dependency:
the ``pyarrow`` extra) splits at one delimiter byte, ends lines at ``\\n``,
``\\r\\n`` and a lone ``\\r``, and drops a UTF-8 byte-order mark at the start
of what it reads. The two agree exactly on a file

- whose columns are separated by single spaces, each line holding the
  layout's number of columns, each column nonempty and without a byte up to
  32 (whitespace, control bytes);
- whose lines end with ``\\n`` or ``\\r\\n``, with no ``\\r`` elsewhere;
- with no byte-order mark but at the start of a chunk (a line's start) and
  no comment line (a first column starting with ``#``);

which is what retrieval systems write. pyarrow refuses a line with another
number of columns; everything else is checked on its result (the lengths and
the bytes of every column, all read as binary) and on the file's bytes (a
search for ``\\r`` and for byte-order marks), so no other file can take
its result: those go to the general reader, which also raises every error
(the fast path never raises one of its own). The columns then take the
general reader's own steps: ids packed by :func:`~._general_reader.joined`,
numbers parsed as Python's ``float`` and ``int`` read them. As the general reader,
it reads chunks of whole lines side by side, one per thread.
"""

import contextlib
import mmap
import os
import stat

import numpy as np

from .._core._parallel import map_in_threads, thread_count
from . import _general_reader  # its CHUNK_BYTES, read when used
from ._general_reader import (
    MAGIC_BYTES,
    PADDING,
    BadLine,
    byte_order_mark,
    chunks_of_lines,
    fits_fixed_width,
    fits_number_width,
    fixed_width,
    joined,
    lone_carriage_return,
    needs_decoding,
    objects,
    to_numbers,
)

# pyarrow reads the file in blocks of this many bytes (a line must fit in one).
BLOCK_BYTES = 2**20


def byte_table(allowed):
    """A lookup table of the 256 bytes: True for those in ``allowed``."""
    table = np.zeros(256, dtype=bool)
    table[np.frombuffer(allowed, dtype=np.uint8)] = True
    return table


# The bytes of the integer tokens that pyarrow's parser reads exactly as Python does (see plain_numbers).
PLAIN_INTEGER_BYTES = byte_table(b"0123456789-")


class Unsplittable(Exception):
    """A file (or one of its columns) that pyarrow's result does not read exactly as the general reader does."""


def pyarrow_modules():
    """pyarrow with its CSV reader, or None where it is not installed."""
    try:
        import pyarrow
        import pyarrow.csv
    except ImportError:
        return None
    return pyarrow


def fast_columns(source, layout):
    """The columns of a qrels or run file, as :func:`~._io.read_columns` reads them, and its last line's tokens; or
    None.

    ``source`` is the bytes of the file, or the path of a regular plain file
    (:func:`readable_in_place`), which is read a chunk at a time, never whole
    into memory. Chunks of whole lines are read side by side, as the general
    reader reads them. None where pyarrow is not installed or would not
    split the file as the general reader does (see the module's docstring):
    the caller then reads it with the general reader, which also names what
    is wrong in a malformed file.
    """
    pa = pyarrow_modules()
    if pa is None or (isinstance(source, bytes) and not source):
        return None
    cuts, chunk_parts = (), None
    try:
        with chunks(source) as (read, cuts):
            if not splittable_start(read(0, min(cuts[-1], HEAD_BYTES))):
                return None  # tabs or runs of spaces from the start: no chunk need be tried

            def columns_of_chunk(start, stop):
                return chunk_columns(pa, read(start, stop), layout)

            chunk_parts = map_in_threads(columns_of_chunk, cuts[:-1], cuts[1:])
        parts = [part for chunk, _ in chunk_parts for part in chunk]
        if not parts:
            return None
        columns = {field: np.concatenate([part[field] for part, _ in parts]) for field in layout.numbers}
        for field in layout.ids:
            columns[field] = joined([part[field] for part, _ in parts], sum(sizes[field] for _, sizes in parts))
        return columns, chunk_parts[-1][1]
    except (pa.ArrowInvalid, Unsplittable, OSError):  # the general reader names an error reading the file
        return None
    finally:
        parts = chunk_parts = None  # the parts go, then pyarrow's blocks
        if len(cuts) > 2:  # a large file: the blocks pyarrow keeps for reuse go back, for what follows
            pa.default_memory_pool().release_unused()


def readable_in_place(path):
    """Whether :func:`fast_columns` may read the file at ``path`` in place: a regular file (which the general
    reader can read again), not empty, neither compressed nor UTF-16 or UTF-32 (which
    :func:`~._general_reader.read_bytes` decompresses and decodes), where the system reads a file at an offset
    from several threads (``os.pread``: not on Windows)."""
    try:
        if not (hasattr(os, "pread") and stat.S_ISREG(os.stat(path).st_mode)):
            return False
        with open(path, "rb") as file:
            head = file.read(MAGIC_BYTES)
        return bool(head) and not needs_decoding(head)
    except OSError:
        return False  # the general reader raises the error


@contextlib.contextmanager
def chunks(source):
    """A function reading the bytes ``[start, stop)`` of the file ``source`` (a path, or its bytes), and the
    offsets that cut it into chunks of whole lines (:func:`~._general_reader.chunks_of_lines`)."""
    if isinstance(source, bytes):
        yield (lambda start, stop: source[start:stop]), chunks_of_lines(source, chunk_bytes(len(source)))
        return
    descriptor = os.open(source, os.O_RDONLY)
    try:
        with mmap.mmap(descriptor, 0, access=mmap.ACCESS_READ) as mapped:  # to find newlines, a page at a time
            cuts = chunks_of_lines(mapped, chunk_bytes(len(mapped)))
        yield (lambda start, stop: os.pread(descriptor, stop - start, start)), cuts
    finally:
        os.close(descriptor)


def splittable_start(head):
    """Whether the first bytes of a file may be split by pyarrow: no whitespace but single spaces and line ends.

    A cheap look before the chunks are read side by side, so that a file
    written with tabs or aligned columns goes to the general reader at once.
    """
    return b"  " not in head and not any(byte in head for byte in OTHER_WHITESPACE)


# The bytes of a file looked at first (splittable_start), and the whitespace and control bytes pyarrow cannot split.
HEAD_BYTES = 2**16
OTHER_WHITESPACE = [bytes([byte]) for byte in range(32) if byte not in b"\n\r"]


def chunk_bytes(size):
    """The size of the chunks of a file of ``size`` bytes: CHUNK_BYTES, less where that gives each thread one."""
    return max(MIN_CHUNK_BYTES, min(_general_reader.CHUNK_BYTES, size // thread_count()))


# Files read by threads are cut in chunks of at least this many bytes.
MIN_CHUNK_BYTES = 2**20


def chunk_columns(pa, data, layout):
    """The parts of the columns (:func:`batch_columns`) of one chunk of whole lines, and its last line's tokens.

    Raises Unsplittable for a chunk that pyarrow would not split as the
    general reader does: one with a lone ``\\r`` (which
    :func:`~._general_reader.read_bytes` makes ``\\n`` first, for the chunks
    to be cut there) or a byte-order mark anywhere but at its start. pyarrow
    drops one there, at the start of every chunk it reads, which is where a
    line starts: as the readers drop it (:func:`~._general_reader.plain_lines`).
    """
    if lone_carriage_return(data) or byte_order_mark(data, 1):
        raise Unsplittable("a lone carriage return, or a byte-order mark after the chunk's start")
    csv = pa.csv
    batches = csv.open_csv(
        pa.BufferReader(data),
        read_options=csv.ReadOptions(column_names=list(layout.fields), block_size=BLOCK_BYTES, use_threads=False),
        parse_options=csv.ParseOptions(
            delimiter=" ", quote_char=False, escape_char=False, newlines_in_values=False, ignore_empty_lines=False
        ),
        convert_options=csv.ConvertOptions(
            column_types=dict.fromkeys(layout.fields, pa.binary()), strings_can_be_null=False
        ),
    )
    parts, batch = [], None
    for batch in batches:
        parts.append(batch_columns(pa, batch, layout))
    last = [] if batch is None else [batch.column(index)[-1].as_py() for index in range(len(layout.fields))]
    return parts, last


def batch_columns(pa, batch, layout):
    """One batch's id columns (fixed width or bytes objects, and their bytes in all) and number columns.

    Raises Unsplittable where a column is empty on some line or holds a byte
    up to 32, or where the first column starts with ``#`` (a comment line).
    """
    columns, sizes = {}, {}
    for index, field in enumerate(layout.fields):
        array = batch.column(index)
        offsets, data = binary_buffers(array)
        lengths = np.diff(offsets)
        content = data[offsets[0] : offsets[-1]]
        if array.null_count or lengths.min(initial=1) < 1 or content.min(initial=255) <= 32:
            raise Unsplittable(field)
        if index == 0 and (data[offsets[:-1]] == ord("#")).any():
            raise Unsplittable("a comment line")
        if field in layout.ids:
            columns[field], sizes[field] = ids(array, content, offsets - offsets[0], lengths)
        elif field in layout.numbers:
            columns[field] = numbers(pa, array, content, offsets - offsets[0], lengths, field, layout)
    return columns, sizes


def binary_buffers(array):
    """The offsets (len + 1 of them) and the data bytes of a pyarrow binary array, as numpy views."""
    _, offsets, data = array.buffers()
    offsets = np.frombuffer(offsets, dtype=np.int32)[array.offset : array.offset + len(array) + 1]
    data = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, dtype=np.uint8)
    return offsets, data


def padded(content):
    return np.concatenate((content, np.zeros(PADDING, dtype=np.uint8)))


def ids(array, content, starts, lengths):
    """One batch's ids: fixed width while :func:`~._general_reader.fits_fixed_width`, else bytes; their bytes."""
    total = int(lengths.sum())
    if fits_fixed_width(len(lengths), int(lengths.max(initial=1)), total):
        return fixed_width(padded(content), len(content), starts[:-1], lengths), total
    return objects(array.to_pylist()), total


def numbers(pa, array, content, starts, lengths, field, layout):
    """One batch's numbers, exactly as ``float()`` or ``int()`` reads each token (as the general reader parses them).

    pyarrow parses them where it reads them as Python does
    (:func:`plain_numbers`); where it refuses one, or reads a NaN (which
    the readers refuse), the general reader's parser does, which raises
    Unsplittable for a token that is no number (the general reader then
    names it).
    """
    dtype = layout.numbers[field]
    if dtype is np.float64 or PLAIN_INTEGER_BYTES[content].all():
        try:
            values = plain_numbers(pa, array, dtype)
        except pa.ArrowInvalid:
            pass
        else:
            if dtype is np.int64 or not np.isnan(values).any():
                return values
    width = int(lengths.max(initial=1))
    if fits_number_width(len(lengths), width, None):
        tokens = fixed_width(padded(content), len(content), starts[:-1], lengths)
    else:
        tokens = objects(array.to_pylist())
    try:
        return to_numbers(tokens, dtype, np.arange(len(tokens)), field, layout)
    except BadLine:
        raise Unsplittable("a number") from None


def plain_numbers(pa, array, dtype):
    """Number tokens as pyarrow parses them, raising ``ArrowInvalid`` for one it refuses.

    For floats, pyarrow's parser (fast_float, whole tokens, no whitespace,
    which the columns never hold) accepts only what Python's ``float``
    accepts (``1.5``, ``-.5``, ``+1e-3``, ``inf``, ``nan``; not ``1e``,
    ``.``, ``1-2``, ``1_0``, ``0x1p3``) and rounds correctly, as Python
    does. For integers it also reads ``0x10`` as 16, which Python refuses:
    it is given tokens of digits and ``-`` alone (PLAIN_INTEGER_BYTES).
    """
    values = array.cast(pa.float64() if dtype is np.float64 else pa.int64())
    # The values' buffer as numpy sees it (to_numpy would import pandas), with no nulls to mask.
    return np.frombuffer(values.buffers()[1], dtype=dtype)[values.offset : values.offset + len(values)]
