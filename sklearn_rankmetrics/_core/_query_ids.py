"""Query ids in: one encoding of any ids (numbers, strings, tuples, pandas) as integer codes that sort like the ids."""

import numpy as np

from ._numpy_ops import differs_from_previous
from ._parallel import map_in_threads
from ._validation import check_finite, check_no_missing, is_missing, plain


def query_id_array(qid, name="qid", what="query"):
    """The query ids as a 1-D array, with one element per row even for tuple ids.

    Errors call the argument ``name``, and its values the ids of a ``what``.
    """
    if isinstance(qid, str | bytes):
        raise TypeError(f"{name} must be an array-like with one {what} id per row; got the string {plain(qid)!r}.")
    values = np.asarray(qid)
    tuples = values.ndim > 1 and isinstance(qid, list | tuple) and isinstance(qid[0], tuple)
    if not isinstance(qid, np.ndarray) and (values.dtype.kind in "US" or tuples):
        # numpy turns [1, "a"] into strings, and tuple ids into rows of a matrix: keep each id whole.
        values = np.fromiter(qid, dtype=object, count=len(qid))
    if values.ndim != 1:
        raise ValueError(f"{name} must be 1-D with one {what} id per row; got an array of shape {values.shape}.")
    return values


def query_ids_of_rows(qid, rows):
    """The query ids of the given ``rows``, as ``np.unique(qid)`` shows them (objects for tuple ids)."""
    if is_pandas_labels(qid):
        return np.asarray(qid.take(rows))
    return as_unique_shows(query_id_array(qid)[rows], qid)


def distinct_query_ids(qid, *, return_counts=False):
    """The distinct query ids, sorted, as ``np.unique(qid)`` gives them (objects for tuple ids).

    With ``return_counts``, also the number of rows of each. Strings and
    other objects are told apart by hashing (:func:`factorize_query_ids`),
    not by a sort of every row.
    """
    values = qid if is_pandas_labels(qid) else query_id_array(qid)
    if values.dtype.kind not in "OSUT":
        return np.unique(values, return_counts=return_counts)
    distinct, codes = factorize_query_ids(values)
    distinct = distinct if is_pandas_labels(qid) else as_unique_shows(distinct, qid)
    return (distinct, np.bincount(codes, minlength=len(distinct))) if return_counts else distinct


def as_unique_shows(ids, qid):
    """Ids taken from ``query_id_array(qid)`` in the array type ``np.unique(qid)`` gives, where that keeps them.

    :func:`query_id_array` keeps a list of strings (or bytes) as objects, each
    id whole; ``np.unique`` of the list gives fixed-width strings, which drop
    trailing NUL characters (``"a"`` and ``"a\\x00"`` would both show as
    ``"a"``). The ids become fixed-width strings only where that keeps every
    one of them exactly.
    """
    if ids.dtype != object or isinstance(qid, np.ndarray) or not len(ids):
        return ids
    fixed = np.asarray(ids.tolist())
    return fixed if fixed.shape == ids.shape and fixed.dtype.kind in "SU" and fixed.tolist() == ids.tolist() else ids


def encode_qid(qid, n_rows):
    """Return non-negative integer codes that sort like the query ids, one per row.

    Integer ids of a range within a few times the number of rows are only
    shifted (in a wide type: the shift of small signed ids must not overflow);
    other ids are replaced by their rank among the distinct ids, strings and
    other objects through :func:`factorize_query_ids`. The codes are int32
    while they fit, to save memory. Missing ids (None, NaN, NaT, pandas' NA)
    are refused.
    """
    values = qid if is_pandas_labels(qid) else query_id_array(qid)
    if len(values) != n_rows:
        raise ValueError(f"qid has {len(values)} values but y_true has {n_rows} rows; give one query id per row.")
    code_type = np.int32 if 4 * n_rows < 2**31 else np.int64
    if is_pandas_labels(values) or values.dtype.kind in "OSUT":  # missing ids are found among the distinct ones
        return factorize_query_ids(values)[1].astype(code_type)
    check_no_missing(values, "qid")
    if values.dtype.kind in "biu":
        values = values.astype(np.int8) if values.dtype.kind == "b" else values
        low, high = int(values.min()), int(values.max())
        if 0 <= low and high <= 4 * n_rows:  # already small: a copy, no shift
            return values.astype(code_type)
        if high - low <= 4 * n_rows:
            if values.dtype.kind == "i":
                values = values.astype(np.int64)  # [low, high] fits int64, and so does high - low
            return (values - values.dtype.type(low)).astype(code_type)
    if values.dtype.kind == "f":
        check_finite(values, "qid")
    return np.unique(values, return_inverse=True)[1].reshape(-1).astype(code_type)


def is_pandas_labels(qid):
    """Whether ``qid`` is a pandas Series, Index or array of strings, categories or other non-numbers.

    numpy would copy them into an array of objects, one per row; pandas'
    own factorization reads them as they are (a categorical's codes, an
    Arrow column's dictionary).
    """
    kind = getattr(getattr(qid, "dtype", None), "kind", "O")
    return type(qid).__module__.startswith("pandas") and getattr(qid, "ndim", 2) == 1 and kind not in "biufcmM"


def factorize_query_ids(values):
    """``np.unique(values, return_inverse=True)`` of strings and other objects, by hashing rather than sorting rows.

    Returns the distinct ids, sorted as ``np.unique`` sorts them, and each
    row's index among them. Only the distinct ids are sorted: a pass of
    hashing tells the rows apart (pandas' factorization when pandas is
    there, a dict otherwise; for fixed-width strings, a 64-bit hash of
    their bytes, checked against the strings). Ids that cannot be hashed
    take ``np.unique``. Missing ids are refused, naming their rows.
    """
    try:
        if is_pandas_labels(values):
            distinct, codes = factorize_pandas(values)
        elif values.dtype.kind in "SU":
            distinct, codes = factorize_fixed_width(values)
        else:  # objects, or numpy's variable-width strings
            distinct, codes = factorize_objects(values.astype(object, copy=False))
            distinct = distinct.astype(values.dtype, copy=False)
    except (TypeError, ArithmeticError):  # unhashable ids (np.unique compares them), or Decimal("sNaN")
        values = np.asarray(values)
        check_no_missing(values, "qid")
        distinct, codes = unique_with_inverse(values)
        return distinct, codes
    return sorted_codes(distinct, codes)


def unique_with_inverse(values):
    try:
        distinct, codes = np.unique(values, return_inverse=True)
    except TypeError as error:
        raise mixed_types_error(error) from error
    return distinct, codes.reshape(-1)


def mixed_types_error(error):
    return TypeError(
        f"qid mixes values that cannot be compared with each other ({error}); "
        "use one type for every query id, for example all str or all int."
    )


def sorted_codes(distinct, codes):
    """The distinct ids sorted (as ``np.unique`` sorts them), and the codes of the rows renumbered to match.

    A row without a code (-1, pandas' code of None, NaN, NaT, NA and
    ``Decimal("NaN")``) is refused here, where every factorization passes:
    ``rank[-1]`` would silently put it in the last query.
    """
    if len(codes) and codes.min() < 0:
        check_no_missing(codes, "qid", missing=codes < 0)
    try:
        order = np.argsort(distinct, kind="stable")
    except TypeError as error:
        raise mixed_types_error(error) from error
    rank = np.empty(len(order), dtype=np.intp)
    rank[order] = np.arange(len(order))
    return distinct[order], rank[codes]


def factorize_pandas(values):
    """The distinct ids of a pandas Series, Index or array (first appearance order) and each row's index among them."""
    import pandas as pd

    codes, distinct = pd.factorize(values)
    return np.asarray(distinct), codes


def factorize_objects(values):
    """The distinct objects (first appearance order) and each row's index among them, by hashing."""
    try:
        import pandas as pd
    except ImportError:
        return factorize_by_dict(values)
    codes, distinct = pd.factorize(values)
    return distinct, codes


def factorize_by_dict(values):
    """:func:`factorize_objects` without pandas: a dict, looked up once per run of equal ids (rows grouped by query)."""
    starts = differs_from_previous(values)
    index = {}
    heads = [index.setdefault(value, len(index)) for value in values[starts].tolist()]
    distinct = np.empty(len(index), dtype=object)
    distinct[:] = list(index)
    if any(is_missing(value) for value in index):
        check_no_missing(values, "qid")
    return distinct, np.asarray(heads, dtype=np.intp)[np.cumsum(starts) - 1]


# Rows of fixed-width ids compared at a time: a chunk's copies stay small, and chunks run on the library's threads.
COMPARE_ROWS = 2**16
HASH_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)


def factorize_fixed_width(values):
    """The distinct fixed-width strings (or bytes) and each row's index among them, without a sort of strings.

    Each id becomes a row of 64-bit words (:func:`id_words`). Runs of equal
    ids (rows grouped by query) count once. The rest are grouped by a hash
    of their words in one sort of integers, and every row is checked against
    its group's first: the rare groups that hold two ids (hashes that clash)
    are told apart by ``np.unique``.
    """
    words, hashes = id_words(values)
    starts = np.ones(len(words), dtype=bool)
    starts[1:] = rows_differ(words[1:], words[:-1])
    grouped = 2 * np.count_nonzero(starts) <= len(words)
    rows = np.flatnonzero(starts) if grouped else np.arange(len(words))
    if grouped:
        words, hashes = words[rows], hashes[rows]
    first, codes = group_by_hash(hashes)
    clashes = rows_differ(words, first[codes])
    if clashes.any():
        clashing = np.flatnonzero(np.isin(codes, codes[clashes]))  # every row of a group that holds two ids
        _, among, inverse = np.unique(values[rows[clashing]], return_index=True, return_inverse=True)
        codes[clashing] = len(first) + inverse.reshape(-1)
        first = np.concatenate((first, clashing[among]))
        used = np.zeros(len(first), dtype=bool)  # the clashing groups' first rows lead no group any more
        used[codes] = True
        first, codes = first[used], (np.cumsum(used) - 1)[codes]
    return values[rows[first]], codes[np.cumsum(starts) - 1] if grouped else codes


def id_words(values):
    """Each fixed-width id as a row of 64-bit words (equal rows for equal ids: its bytes, zero-padded), and its hash.

    Strings whose characters all fit a byte (ASCII, Latin-1) take one byte
    per character rather than four, so that ids of up to 8 characters are
    one word. Built in chunks of rows, on the library's threads.
    """
    n_rows = len(values)
    raw = np.ascontiguousarray(values).view(np.uint8).reshape(n_rows, values.dtype.itemsize)
    if values.dtype.kind == "U" and n_rows and raw.view(np.uint32).max() < 256:
        raw = raw.view(np.uint32)  # copied into bytes below
    words = np.zeros((n_rows, -(-raw.shape[1] // 8)), dtype=np.uint64)
    hashes = np.empty(n_rows, dtype=np.uint64)

    def fill(start):
        stop = start + COMPARE_ROWS
        words.view(np.uint8)[start:stop, : raw.shape[1]] = raw[start:stop]
        hashes[start:stop] = word_hashes(words[start:stop])

    map_in_threads(fill, range(0, n_rows, COMPARE_ROWS))
    return words, hashes


def word_hashes(words):
    """A 64-bit hash of each row of words: each word mixed in by a multiplication and a shift."""
    hashes = np.zeros(len(words), dtype=np.uint64)
    for word in words.T:
        hashes ^= word
        hashes *= HASH_MULTIPLIER  # wraps around: arithmetic modulo 2**64
        hashes ^= hashes >> np.uint64(29)
    return hashes


def group_by_hash(hashes):
    """The first row of each group of equal hashes, and each row's group (0, 1, ... in the order of the hashes).

    One sort of 64-bit keys that hold a hash in their high bits and the row
    in the low ones (numpy's fastest sort, not an argsort) groups the rows
    and says where each went; the hash keeps the bits the row leaves free.
    """
    n_rows = len(hashes)
    bits = np.uint64(max(n_rows - 1, 1).bit_length())
    keys = (hashes >> bits << bits) | np.arange(n_rows, dtype=np.uint64)
    keys.sort()
    order = (keys & ((np.uint64(1) << bits) - np.uint64(1))).astype(np.intp)
    new = differs_from_previous(keys >> bits)
    codes = np.empty(n_rows, dtype=np.intp)
    codes[order] = np.cumsum(new) - 1
    return order[new], codes


def rows_differ(words, other):
    """Whether each row of ``words`` differs from the same row of ``other``: a matrix, or the row numbers to take.

    In chunks of rows, on the library's threads, so that the rows taken
    from ``words`` never make a second copy of it.
    """
    differ = np.empty(len(words), dtype=bool)

    def compare(start):
        stop = start + COMPARE_ROWS
        others = words[other[start:stop]] if other.ndim == 1 else other[start:stop]
        chunk = differ[start:stop]
        np.not_equal(words[start:stop, 0], others[:, 0], out=chunk)
        for column in range(1, words.shape[1]):  # column by column: numpy reduces short rows slowly
            chunk |= words[start:stop, column] != others[:, column]

    map_in_threads(compare, range(0, len(words), COMPARE_ROWS))
    return differ
