"""The general reader of TREC files: numpy's tokenizer, for any whitespace, comments and blank lines.

Chunks of whole lines are tokenised and parsed side by side, one per thread,
and the first malformed line is reported with the file's name and its line
number. Its pieces (the layouts, ids packed as bytes, numbers parsed exactly
as Python's ``float`` and ``int`` read them) are also the fast reader's.
"""

import itertools
import os
import zlib
from typing import NamedTuple

import numpy as np

from .._core._parallel import map_in_threads

# Lines are read in chunks of about this many bytes (cut at a newline).
CHUNK_BYTES = 2**24


class Layout(NamedTuple):
    """The columns of one kind of file, which of them are ids and which numbers (name to dtype)."""

    kind: str
    fields: tuple
    ids: tuple
    numbers: dict
    extra: bool  # whether text after the last column is ignored (trec_eval: in runs only)


QRELS = Layout(
    kind="qrels",
    fields=("query_id", "iteration", "doc_id", "relevance"),
    ids=("query_id", "doc_id"),
    numbers={"relevance": np.int64},
    extra=False,
)
RUN = Layout(
    kind="run",
    fields=("query_id", "Q0", "doc_id", "rank", "score", "tag"),
    ids=("query_id", "doc_id"),
    numbers={"score": np.float64},
    extra=True,
)


# ---- ids: bytes, fixed width while that stays compact -------------------------------------------

# What a bytes object costs besides its content: its header, and the pointer to it in an object array.
OBJECT_BYTES = 48


def fits_fixed_width(count, width, total):
    """Whether ``count`` ids of at most ``width`` bytes (``total`` in all) go in a fixed-width array.

    Fixed width compares and sorts several times faster than bytes objects,
    but one long id widens every row (one id of 2,000 bytes made a run of
    21.8 MB take 3.8 GB): it is used while it takes at most twice the memory
    of bytes objects, which take memory of the order of the file.
    """
    return count * width <= 2 * (total + OBJECT_BYTES * count)


def objects(values):
    """A list as a one-dimensional object array (never a nested one)."""
    array = np.empty(len(values), dtype=object)
    array[:] = values
    return array


def packed(values):
    """A list of bytes as an id array: fixed width (zero padded) while that fits, else bytes objects."""
    lengths = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
    width = int(lengths.max(initial=1))
    if fits_fixed_width(len(values), width, int(lengths.sum())):
        return np.array(values, dtype=f"S{width}")
    return objects(values)


def joined(parts, total):
    """The id arrays of the chunks of a file as one (``total`` bytes of ids in all).

    Fixed width when the whole column fits (:func:`fits_fixed_width`),
    whichever way each chunk was kept, else bytes objects: the ids alone
    decide, never where the chunks were cut.
    """
    count = sum(len(part) for part in parts)
    width = max(part.itemsize if part.dtype.kind == "S" else max(map(len, part), default=1) for part in parts)
    if not fits_fixed_width(count, width, total):
        return parts[0] if len(parts) == 1 else np.concatenate([part.astype(object, copy=False) for part in parts])
    if len(parts) == 1 and parts[0].dtype.kind == "S":
        return parts[0]
    ids = np.zeros(count, dtype=f"S{width}")
    matrix, row = ids.view(np.uint8).reshape(count, width), 0
    for part in parts:  # each part's bytes copied into the first columns: no cast between widths
        part = part if part.dtype.kind == "S" else part.astype(f"S{width}")
        matrix[row : row + len(part), : part.itemsize] = part.view(np.uint8).reshape(len(part), part.itemsize)
        row += len(part)
    return ids


def text(ids):
    """Byte-string ids as str, losslessly: UTF-8, any other byte as a surrogate escape (as ``os.fsdecode``)."""
    if ids.dtype.kind == "S":
        ids = np.ascontiguousarray(ids)
        if not len(ids) or ids.view(np.uint8).max() < 128:  # ASCII, nearly always: each byte widened to a character
            return ids.view(np.uint8).astype(np.uint32).view(f"U{ids.itemsize}")
        return np.array([value.decode("utf-8", "surrogateescape") for value in ids.tolist()], dtype=np.str_)
    return objects([value.decode("utf-8", "surrogateescape") for value in ids])


# ---- the file's bytes --------------------------------------------------------------------------

GZIP_MAGIC = b"\x1f\x8b"
# The first bytes of each compressed format the readers decompress (standard library), by content, whatever the
# file's name: a bzip2 stream's header then the magic of its first block (or of its end, when empty).
COMPRESSED = {
    "gzip": (GZIP_MAGIC,),
    "bzip2": tuple(b"BZh%d%s" % (level, block) for level in range(1, 10) for block in (b"1AY&SY", b"\x17rE8P\x90")),
    "xz": (b"\xfd7zXZ\x00",),
}
# Formats recognised only to say so: the standard library of the Pythons supported cannot decompress them.
UNSUPPORTED = {
    "zstd": b"\x28\xb5\x2f\xfd",
    "zip": b"PK\x03\x04",
    "7z": b"7z\xbc\xaf\x27\x1c",
    "lz4": b"\x04\x22\x4d\x18",
}
# Text in another encoding than UTF-8, by its byte-order mark (UTF-32 first: its little-endian mark starts as
# UTF-16's); Windows PowerShell 5 writes UTF-16 with `>`.
WIDE_ENCODINGS = {
    b"\xff\xfe\x00\x00": "utf-32",
    b"\x00\x00\xfe\xff": "utf-32",
    b"\xff\xfe": "utf-16",
    b"\xfe\xff": "utf-16",
}
# The UTF-8 byte-order mark that Notepad, PowerShell and Excel's "CSV UTF-8" write first: no part of an id.
BYTE_ORDER_MARK = b"\xef\xbb\xbf"
# The bytes a file's recognition needs to read (the longest magic).
MAGIC_BYTES = 10


def compression(head):
    """The compressed format whose magic bytes ``head`` (a file's first bytes) starts with, or None."""
    return next((kind for kind, magics in COMPRESSED.items() if head.startswith(magics)), None)


def needs_decoding(head):
    """Whether a file starting with ``head`` must be decompressed or decoded before its lines can be split."""
    return compression(head) is not None or head.startswith(tuple(WIDE_ENCODINGS))


def read_bytes(source):
    """The text of a path or an open file as UTF-8 bytes with ``\\n`` line ends, and a name for messages.

    Compressed content is decompressed (:func:`decompressed`), UTF-16 and
    UTF-32 with a byte-order mark are decoded, and the line ends and
    byte-order marks of other systems made plain (:func:`plain_lines`).
    """
    if isinstance(source, str | os.PathLike):
        name = os.fspath(source)
        with open(name, "rb") as file:
            data = file.read()
    elif hasattr(source, "read"):
        name = str(getattr(source, "name", None) or f"<{type(source).__name__}>")
        data = source.read()
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogateescape")
    else:
        raise TypeError(f"expected a path or an open file; got {type(source).__name__}.")
    return name, plain_lines(decoded(decompressed(data, name), name))


def decompressed(data, name):
    """``data`` decompressed when it starts with the magic bytes of gzip, bzip2 or xz; else as it is.

    Every stream is read (``cat a.gz b.gz`` holds two) and must be whole:
    a truncated or corrupt file, or one with bytes after its last stream
    other than zero padding, is a ValueError naming the file (the standard
    library's own functions would silently drop a damaged stream that
    follows a good one). A format the standard library cannot read (zstd,
    zip, 7z, lz4) is a ValueError that names it.
    """
    kind = compression(data[:MAGIC_BYTES])
    if kind is None:
        unsupported = next((kind for kind, magic in UNSUPPORTED.items() if data.startswith(magic)), None)
        if unsupported:
            raise ValueError(
                f"{name} is compressed with {unsupported}, which this reader cannot decompress (it reads gzip, "
                f"bzip2 and xz): decompress it first."
            )
        return data
    parts = []
    while True:
        decompressor, errors = new_decompressor(kind, name)
        try:
            parts.append(decompressor.decompress(data))
        except (OSError, EOFError, ValueError, *errors) as error:
            raise not_decompressed(name, kind, error) from None
        if not decompressor.eof:
            raise not_decompressed(name, kind, "the file ends inside a stream")
        data = decompressor.unused_data
        if not data.strip(b"\x00"):
            return b"".join(parts)
        if compression(data[:MAGIC_BYTES]) != kind:
            raise not_decompressed(name, kind, f"after a whole stream come {len(data)} bytes of no {kind} stream")


def not_decompressed(name, kind, reason):
    return ValueError(f"{name}: cannot decompress this {kind} file, truncated or corrupt ({reason}).")


def new_decompressor(kind, name):
    """A decompressor of one stream of ``kind``, and the errors it raises for corrupt data besides
    OSError, EOFError and ValueError. bz2 and lzma are imported here: a Python may be built without them."""
    if kind == "gzip":
        return zlib.decompressobj(wbits=31), (zlib.error,)  # 31: a gzip header and trailer, CRC checked
    try:
        if kind == "bzip2":
            import bz2

            return bz2.BZ2Decompressor(), ()
        import lzma

        return lzma.LZMADecompressor(format=lzma.FORMAT_XZ), (lzma.LZMAError,)
    except ImportError:
        raise ValueError(
            f"{name} is compressed with {kind}, but this Python was built without its module: decompress it first."
        ) from None


def decoded(data, name):
    """UTF-16 or UTF-32 text (told by its byte-order mark) as UTF-8 bytes; any other ``data`` as it is."""
    encoding = next((encoding for mark, encoding in WIDE_ENCODINGS.items() if data.startswith(mark)), None)
    if encoding is None:
        return data
    try:
        return data.decode(encoding).encode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(
            f"{name} starts with the byte-order mark of {encoding.upper()} text, but byte {error.start} is not "
            f"{encoding.upper()} ({error.reason}): save the file as UTF-8."
        ) from None


def plain_lines(data):
    """``data`` with its lines ended by ``\\n`` alone and no UTF-8 byte-order mark where a line starts.

    A lone ``\\r`` (the line end of classic Mac OS, and of files converted
    carelessly) ends a line, as in Python's universal newlines; trec_eval
    reads it as a space, which makes a run of such lines one line and drops
    every record after the first as text after the tag. ``\\r\\n`` is left
    as it is (the ``\\r`` is whitespace at the end of the line). A byte-order
    mark where a line starts (the file's first line, or the first line of
    each file joined by ``cat``) is dropped: trec_eval keeps it as part of
    the first query id, which then prints as the id but matches nothing.
    """
    if lone_carriage_return(data):
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if byte_order_mark(data):
        while data.startswith(BYTE_ORDER_MARK):
            data = data[len(BYTE_ORDER_MARK) :]
        while b"\n" + BYTE_ORDER_MARK in data:
            data = data.replace(b"\n" + BYTE_ORDER_MARK, b"\n")
    return data


def lone_carriage_return(data):
    """Whether ``data`` holds a ``\\r`` that no ``\\n`` follows: one search for ``\\r`` where there is none
    (nearly always), else numpy's comparisons (the counts of bytes.count take several times longer)."""
    if b"\r" not in data:
        return False
    buffer = np.frombuffer(data, dtype=np.uint8)
    returns = np.flatnonzero(buffer == 13)
    return bool(returns[-1] == len(buffer) - 1 or (buffer[returns + 1] != 10).any())


def byte_order_mark(data, start=0):
    """Whether ``data`` holds a UTF-8 byte-order mark from ``start`` on: first a search for its first byte, which
    no ASCII file holds (a search for its three bytes takes ten times longer)."""
    return data.find(BYTE_ORDER_MARK[:1], start) >= 0 and data.find(BYTE_ORDER_MARK, start) >= 0


def chunks_of_lines(data, size=None):
    """Byte offsets cutting ``data`` into chunks of about ``size`` bytes (CHUNK_BYTES) that end at a newline."""
    size = CHUNK_BYTES if size is None else size
    cuts = [0]
    while len(data) - cuts[-1] > size:
        newline = data.find(b"\n", cuts[-1] + size)
        if newline < 0:
            break
        cuts.append(newline + 1)
    cuts.append(len(data))
    return cuts


def general_columns(name, data, layout):
    """The columns of a file's bytes, read with numpy: any whitespace, comments, blank lines; named errors.

    Chunks of lines are tokenised and parsed side by side.
    """
    cuts = chunks_of_lines(data)
    first_lines = np.cumsum([1] + [data.count(b"\n", start, stop) for start, stop in itertools.pairwise(cuts[:-1])])

    def read_chunk(start, stop, first_line):
        try:
            return read_lines(data, start, stop, layout)
        except BadLine as error:
            raise ValueError(f"{name}, line {first_line + error.line}: {error}") from None

    chunks = map_in_threads(read_chunk, cuts[:-1], cuts[1:], first_lines)
    columns = {field: np.concatenate([chunk[field] for chunk, _ in chunks]) for field in layout.numbers}
    for field in layout.ids:
        columns[field] = joined([chunk[field] for chunk, _ in chunks], sum(sizes[field] for _, sizes in chunks))
    return columns


class BadLine(ValueError):
    """A malformed line: its index within the chunk, and what is wrong with it."""

    def __init__(self, line, message):
        super().__init__(message)
        self.line = line


def read_lines(data, start, stop, layout):
    """The columns of the lines in ``data[start:stop]``, and the bytes of the ids of each id column.

    Raises BadLine for the first malformed line.
    """
    buffer = np.frombuffer(data, dtype=np.uint8, count=stop - start, offset=start)
    starts, ends, lines = single_space_bounds(buffer, len(layout.fields)) or general_bounds(buffer, layout)
    padded = np.concatenate((buffer, np.zeros(PADDING, dtype=np.uint8)))
    columns, sizes = {}, {}
    for field in layout.ids + tuple(layout.numbers):
        index = layout.fields.index(field)
        fits = fits_number_width if field in layout.numbers else fits_fixed_width
        columns[field], sizes[field] = tokens(data, start, padded, len(buffer), starts(index), ends(index), fits)
    del starts, ends, padded  # the bounds: freed before the numbers are parsed
    for field, dtype in layout.numbers.items():
        columns[field] = to_numbers(columns[field], dtype, lines, field, layout)
    return columns, sizes


def single_space_bounds(buffer, n_fields):
    """Token bounds when every line holds ``n_fields`` tokens separated by single spaces or tabs (None otherwise).

    The common layout costs one pass over the bytes: every byte up to 32 is
    then a separator, and every ``n_fields``-th of them ends a line. Returns
    functions giving the starts and the ends of one field's tokens, and the
    line of each row. (A control byte other than a tab or a newline sends
    the chunk to :func:`general_bounds`, which names it.)
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


# The bytes that separate columns, as C's isspace (trec_eval's test): space, \t, \n, \v, \f, \r.
# The other bytes below 32 are control bytes, never in a well-formed line (a NUL ends trec_eval's reading).
CONTROL = np.zeros(256, dtype=bool)
CONTROL[:32] = True
CONTROL[[9, 10, 11, 12, 13]] = False


def general_bounds(buffer, layout):
    """Token bounds for any whitespace, skipping blank lines and comment lines (``#`` first).

    In runs (``layout.extra``), tokens past the last field are ignored, as
    trec_eval ignores them. Raises BadLine for the first line that holds a
    control byte or too few (or, in qrels, too many) tokens.
    """
    n_fields = len(layout.fields)
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
    wrong = data_line & ((per_line < n_fields) | ((per_line > n_fields) & (not layout.extra)))
    control = np.flatnonzero(CONTROL[buffer])
    if wrong.any() or len(control):
        report_bad_line(buffer, line_ends, np.flatnonzero(wrong), control, layout)
    lines = np.flatnonzero(data_line)
    kept = (first_token[lines, None] + np.arange(n_fields)).reshape(-1)
    starts, ends = token_starts[kept].reshape(-1, n_fields), token_ends[kept].reshape(-1, n_fields)
    return (lambda field: starts[:, field]), (lambda field: ends[:, field]), lines


def report_bad_line(buffer, line_ends, wrong, control, layout):
    """Raise BadLine for the first line with a control byte or a wrong number of tokens."""
    control_line = np.searchsorted(line_ends, control[0]) if len(control) else len(line_ends)
    line = min(control_line, wrong[0] if len(wrong) else len(line_ends))
    begin = line_ends[line - 1] + 1 if line else 0
    content = buffer[begin : line_ends[line]].tobytes()
    shown = repr(content.decode("utf-8", "backslashreplace")[:80])
    if line == control_line:
        byte = int(buffer[control[0]])
        what = "a NUL byte (0x00)" if byte == 0 else f"control byte {byte:#04x}"
        raise BadLine(line, f"{what} in {shown}; {layout.kind} columns are separated by spaces or tabs.")
    expected = f"at least {len(layout.fields)}" if layout.extra else f"the {len(layout.fields)}"
    raise BadLine(
        line,
        f"expected {expected} columns of a {layout.kind} file ({' '.join(layout.fields)}); "
        f"got {len(content.split())}: {shown}.",
    )


# Zero bytes after a chunk, so that a token near its end can be read as a window of PADDING bytes.
PADDING = 64
# The masks that keep the first 0 to 8 bytes of a little-endian 64-bit word.
LOW_BYTES = np.array([2 ** (8 * count) - 1 for count in range(9)], dtype=np.uint64)


def fixed_width(padded, size, starts, lengths):
    """The tokens ``padded[starts[i]:starts[i] + lengths[i]]`` as one fixed-width byte-string array (zero padded).

    ``padded`` holds the ``size`` bytes of the chunk followed by PADDING zero bytes.
    """
    width = int(lengths.max(initial=1))
    if width <= 8:  # nearly always: each token one unaligned 64-bit load, the bytes past its end masked off
        words = np.ndarray((size,), dtype="<u8", buffer=padded, strides=(1,))[starts]
        words &= LOW_BYTES[lengths]
        return np.ascontiguousarray(words.view(np.uint8).reshape(-1, 8)[:, :width]).view(f"S{width}").reshape(-1)
    if width > PADDING:
        padded = np.concatenate((padded[:size], np.zeros(width, dtype=np.uint8)))
    # Every window of ``width`` bytes as one string, without copying; one gather takes each token's, and the
    # bytes past each token's end are zeroed.
    windows = np.ndarray((size,), dtype=f"S{width}", buffer=padded, strides=(1,))
    tokens = windows[starts]
    tokens.view(np.uint8).reshape(len(tokens), width)[...] *= np.arange(width) < lengths[:, None]
    return tokens


def tokens(data, offset, padded, size, starts, ends, fits):
    """A chunk's tokens (its bytes from ``offset`` on), and their number of bytes in all.

    Fixed-width while ``fits(count, width, total)``, else bytes objects.
    """
    lengths = ends - starts
    total = int(lengths.sum())
    if fits(len(lengths), int(lengths.max(initial=1)), total):
        return fixed_width(padded, size, starts, lengths), total
    begins, stops = (starts + offset).tolist(), (ends + offset).tolist()
    return objects([data[begin:stop] for begin, stop in zip(begins, stops, strict=True)]), total


# ---- numbers: exactly as Python's float() and int() read them -----------------------------------

# Numbers are parsed from fixed-width tokens of at most NUMBER_WIDTH bytes; a column with a longer
# token (which no real run has) is parsed one token at a time.
NUMBER_WIDTH = 32


def fits_number_width(count, width, total):
    """Whether number tokens go in a fixed-width array: when none is longer than NUMBER_WIDTH."""
    return width <= NUMBER_WIDTH


def to_numbers(tokens, dtype, lines, field, layout):
    """A chunk's numbers, exactly as ``float()`` or ``int()`` reads each token; BadLine for the first bad one."""
    try:
        if tokens.dtype.kind == "S":
            values = parse(tokens, dtype)
        else:
            values = np.array([number(token, dtype, field) for token in tokens], dtype=dtype)
    except (ValueError, OverflowError):
        for row, token in enumerate(tokens.tolist()):  # the first token that is no number, for the message
            try:
                number(token, dtype, field)
            except ValueError as error:
                raise BadLine(lines[row], str(error)) from None
        raise
    if dtype is np.float64 and np.isnan(values).any():
        line = lines[np.flatnonzero(np.isnan(values))[0]]
        raise BadLine(line, f"the {field} is NaN; every {layout.kind} line needs a number there.")
    return values


def parse(tokens, dtype):
    """Fixed-width tokens as numbers: numpy's casts, which read each as ``float()`` or ``int()`` does."""
    if dtype is np.float64:
        return parse_decimals(tokens)
    refuse_underscores(tokens)
    return tokens.astype(dtype)


def refuse_underscores(tokens):
    """A ValueError (which :func:`to_numbers` then names) where a token holds ``_``: Python reads 1_000 as
    1000, C's atof and atol (trec_eval's) as 1."""
    if len(tokens) and (np.strings.find(tokens, b"_") >= 0).any():
        raise ValueError("an underscore in a number")


def number(token, dtype, field):
    """One token as ``float()`` or ``int()`` reads it, an int64 in range; a ValueError says what is wrong.

    Python's digit separators are refused: trec_eval reads ``1_000`` as 1.
    """
    shown = token.decode("utf-8", "backslashreplace")
    if b"_" in token:
        raise ValueError(
            f"the {field} {shown!r} holds an underscore, which Python reads as a digit separator and trec_eval "
            "(C's atof, atol) as the end of the number: write it without one."
        )
    if dtype is np.float64:
        try:
            return float(token)
        except ValueError:
            raise ValueError(f"the {field} column must be a number; got {shown!r}.") from None
    try:
        value = int(token)
    except ValueError:
        raise ValueError(f"the {field} column must be an integer; got {shown!r}.") from None
    if not -(2**63) <= value < 2**63:
        raise ValueError(f"the {field} {shown} does not fit in 64 bits (trec_eval's long).")
    return value


def parse_decimals(values):
    """Byte-string numbers of at most NUMBER_WIDTH bytes as float64, exactly as ``float()`` reads them.

    Plain decimals of at most 15 digits (``-12.375``), nearly every score in
    a run, are read with array arithmetic: their digits form an integer
    below 2**53 and the power of ten is exact, so one division rounds
    correctly, as a correctly rounded parser does. The others (exponents,
    ``inf``, long mantissas) go through numpy's cast, which calls
    ``float()``. The counters are 8-bit: tokens of at most NUMBER_WIDTH
    bytes cannot make them wrap around.
    """
    if not len(values):
        return np.empty(0)
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
        refuse_underscores(values[~plain])
        numbers[~plain] = values[~plain].astype(np.float64)
    return numbers


def last_data_line(data):
    """The tokens of the last line of ``data`` that is neither blank nor a comment ([] when none is)."""
    end = len(data)
    while end > 0:
        start = data.rfind(b"\n", 0, end - 1) + 1
        tokens = data[start:end].split()
        if tokens and not tokens[0].startswith(b"#"):
            return tokens
        end = start
    return []
