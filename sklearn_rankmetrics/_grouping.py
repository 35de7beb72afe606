"""Grouped rows in rank order: one sort for all queries, then segment reductions.

Every metric starts from a :class:`Ranking`: the rows sorted by (query, descending
score), the boundaries of each query and of each block of tied scores, and the
per-query weights. Metrics are per-row arithmetic followed by ``np.add.reduceat``
(or differences of a running count) over those boundaries, so no Python code
runs once per query or per tie block.
"""

import copy
from collections import namedtuple
from functools import cached_property

import numpy as np

from ._array_api import ArrayApiOps, is_foreign, namespace_of, to_numpy
from ._parallel import map_in_threads
from ._sparse import candidate_rows, is_sparse
from ._validation import (
    TIES,
    as_float_array,
    check_finite,
    check_flag,
    check_k,
    check_labels,
    check_no_missing,
    check_option,
    check_sample_weight,
    check_scores,
    check_zero_division,
    is_missing,
    plain,
)
from ._warnings import warn


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


def group_by_query(codes):
    """Stable order of the rows by query code (non-negative codes below 2**32, as encode_qid gives).

    numpy's stable sort is a radix sort for 16-bit integers, so one or two
    passes over 16-bit digits of the codes cost a fraction of a comparison sort.
    """
    top = int(codes.max())
    if top >= 2**16:
        present = np.zeros(top + 1, dtype=bool)
        present[codes] = True
        if np.count_nonzero(present) < 2**16:
            # Fewer queries than 16-bit values: the rank of each code among the
            # codes present (1, 2, ...) sorts the same, in one pass instead of two.
            ranks = np.cumsum(present, dtype=np.uint16)
            return np.argsort(ranks[codes], kind="stable")
    order = np.argsort(codes.astype(np.uint16), kind="stable")
    if top >= 2**16:
        high = (codes >> 16).astype(np.uint16)
        order = order[np.argsort(high[order], kind="stable")]
    return order


def sort_within_queries(codes, y_score, rows=None):
    """Stable order of rows grouped by query by (code, descending score), and where the score changes.

    Row i of the grouped rows is row ``rows[i]`` of ``y_score`` (row i when
    ``rows`` is None); ``codes`` are those of the grouped rows, non-decreasing.
    Returns the order, as indices into ``y_score``, and a boolean array that
    marks the rows of the order whose score differs from the row above (and
    the first row of each chunk, a query start).
    """
    low, high = y_score.min(), y_score.max()
    if low == -np.inf:  # documents not retrieved: their key sorts them after every score of their query
        finite = y_score[y_score > low]
        low, high = (finite.min(), high) if len(finite) else (0.0, 0.0)
    span = high - low
    if not np.isfinite(span):
        scores = y_score if rows is None else y_score[rows]
        order = np.lexsort((-scores, codes))
        return (order if rows is None else rows[order]), differs_from_previous(scores[order])
    changes = np.ones(len(y_score), dtype=bool)
    # Each chunk's key region then holds its order: one n-sized buffer serves both.
    buffer = np.empty(len(y_score))
    order = buffer.view(np.intp) if buffer.itemsize == np.dtype(np.intp).itemsize else np.empty(len(y_score), np.intp)

    def sort_chunk(start, stop):
        # One argsort of a single float key, 2 * code + offset with offset in [0, 1], is
        # several times faster than lexsort. The key is monotone in the score, so a
        # lower key always means a higher score; but rounding can merge close scores
        # into one key, and only those runs of equal keys need an exact re-sort.
        key = buffer[start:stop]
        scores = y_score[start:stop] if rows is None else y_score[rows[start:stop]]
        np.subtract(high, scores, out=key)
        if span > 0:
            key /= span
        np.minimum(key, 1.5, out=key)  # -inf: between this query's lowest score (1) and the next query (2)
        key += codes[start:stop]
        key += codes[start:stop]
        chunk_order = np.argsort(key, kind="stable")
        ranked = scores[chunk_order]
        rising = np.flatnonzero(ranked[1:] > ranked[:-1])
        merged = rising[key[chunk_order[rising]] == key[chunk_order[rising + 1]]]
        if len(merged):
            sorted_key = key[chunk_order]
            values = np.unique(sorted_key[merged])
            first = np.searchsorted(sorted_key, values, "left")
            spots = segment_rows(first, np.searchsorted(sorted_key, values, "right") - first)[0]
            moved = chunk_order[spots]
            chunk_order[spots] = moved[np.lexsort((spots, -scores[moved], sorted_key[spots]))]
            ranked[spots] = scores[chunk_order[spots]]
        np.not_equal(ranked[1:], ranked[:-1], out=changes[start + 1 : stop])
        # The key of this chunk is no longer needed: its region takes the chunk's order.
        if rows is None:
            np.add(chunk_order, start, out=order[start:stop])
        else:
            np.take(rows[start:stop], chunk_order, out=order[start:stop])

    # Chunks of whole queries sort independently, and numpy releases the GIL
    # while sorting: large inputs use every core.
    bounds = query_chunks(codes)
    map_in_threads(sort_chunk, bounds[:-1], bounds[1:])
    return order, changes


# Chunks of about this many rows sort in cache, with small temporaries.
CHUNK_ROWS = 2**17


def query_chunks(codes):
    """Bounds of chunks of about ``CHUNK_ROWS`` rows grouped by query, cut between queries."""
    n_chunks = max(len(codes) // CHUNK_ROWS, 1)
    cuts = np.searchsorted(codes, codes[np.arange(1, n_chunks) * len(codes) // n_chunks])
    return np.unique(np.concatenate(([0], cuts, [len(codes)])))


def rank_order(codes, y_score, *, ties="average", y_true=None):
    """Order the rows by ascending query code, then descending score.

    Ties keep the input order for ``ties="stable"`` and ``"average"``, go worst
    label first for ``"pessimistic"`` and best label first for ``"optimistic"``.
    Returns the order, the codes in that order, and the mask of the rows of
    the order whose score differs from the row above (True for the first row;
    across a query boundary either value).
    """
    if ties in ("pessimistic", "optimistic"):
        by_label = y_true if ties == "pessimistic" else -y_true
        order = np.lexsort((by_label, -y_score, codes))
        return order, codes[order], differs_from_previous(y_score[order])
    grouping = None
    if np.any(codes[1:] < codes[:-1]):
        grouping = group_by_query(codes)
        codes = codes[grouping]
    order, changes = sort_within_queries(codes, y_score, grouping)
    # Sorting within queries moves no row to another query: the codes are in rank order already.
    return order, codes, changes


def differs_from_previous(values):
    """Whether each value differs from the one before it (True for the first)."""
    changes = np.ones(len(values), dtype=bool)
    np.not_equal(values[1:], values[:-1], out=changes[1:])
    return changes


def positions_in_segments(starts, n_rows):
    """0-based position of every row within its segment, given the (increasing) segment starts.

    A cumulative sum of ones that steps back at each start; int32 while it fits,
    to save memory.
    """
    dtype = np.int32 if n_rows < 2**31 else np.int64
    step = np.ones(n_rows, dtype=dtype)
    if n_rows:
        sizes = np.diff(starts, append=n_rows)
        step[starts[1:]] = 1 - sizes[:-1]
        step[0] = 0
    return np.cumsum(step, out=step)


Relevance = namedtuple("Relevance", ["mask", "per_query", "per_block"])


def running_count(mask):
    """Cumulative count of the True values of ``mask``; int32 while it fits, which is faster."""
    return np.cumsum(mask, dtype=np.int32 if len(mask) < 2**31 else np.int64)


def counts_between(running, starts):
    """Increase of the running total ``running`` (a cumulative sum of counts) over each segment.

    The segments start at ``starts`` (the first at 0) and run to the next start.
    """
    before = running[starts - 1]
    before[0] = 0
    return np.diff(before, append=running[-1])


def segment_rows(starts, sizes, ops=None):
    """The indices ``starts[i] .. starts[i] + sizes[i] - 1`` of every (non-empty) segment, end to end.

    Also returns where each segment begins in that array, and each index's
    place (0, 1, ...) in its segment. ``ops``: the arrays' operations (numpy's by default).
    """
    ops = NUMPY if ops is None else ops
    offsets = ops.cumsum(sizes) - sizes
    places = ops.positions_in_segments(offsets, int(ops.xp.sum(sizes)))
    return ops.repeat(starts, sizes) + places, offsets, places


def size_classes(sizes):
    """Indices of the segments in each class of sizes within a factor two, in their order.

    The segments of a class share one zero-padded array, so padding at most
    doubles the work and every pass over them is a contiguous one.
    """
    classes = np.ceil(np.log2(np.maximum(sizes, 1))).astype(np.int64)
    return [np.flatnonzero(classes == size_class) for size_class in np.unique(classes)]


def padded_segments(starts, sizes):
    """For each class of segments (:func:`size_classes`): its members, and where their rows lie.

    Yields the members, the mask of the cells of their zero-padded array that
    hold a row (one array row per segment) and those rows, in cell order.
    """
    for members in size_classes(sizes):
        columns = np.arange(sizes[members].max())
        inside = columns < sizes[members, None]
        yield members, inside, (starts[members, None] + columns)[inside]


def segment_accumulate(ufunc, values, starts, sizes):
    """``ufunc.accumulate`` (``np.add``, ``np.multiply``) of ``values`` restarting at each segment.

    Each segment runs on its own, along a row of a padded array, so a running
    sum carries no rounding from the segments before it, and every pass is a
    contiguous one whatever the segments' lengths. Rows outside the segments
    are left undefined.
    """
    accumulated = np.empty_like(values)
    for _, inside, rows in padded_segments(starts, sizes):
        padded = np.full(inside.shape, ufunc.identity, dtype=values.dtype)
        padded[inside] = values[rows]
        accumulated[rows] = ufunc.accumulate(padded, axis=1)[inside]
    return accumulated


class NumpyOps:
    """The array operations the metric kernels are written in, for numpy arrays.

    A kernel computes with the operators and the functions that numpy and the
    Array API standard share (``where``, ``minimum``, ``searchsorted``,
    ``log2``, ...) of ``ops.xp``, and takes the rest from ``ops``: creation on
    the device, casts, gathers, running sums, stable orders and reductions
    over segments of rows. Here they are numpy's fastest routines
    (``reduceat``, ``bincount``, the radix sorts of :func:`rank_order`);
    :class:`~sklearn_rankmetrics._array_api.ArrayApiOps` gives the same
    operations in another namespace, so that one algorithm per metric serves
    both.
    """

    xp = np
    float64 = np.float64
    bool = np.bool_
    compacts = True  # subsets of rows are compacted (a namespace may keep them whole, masked)
    parallel = True  # numpy releases the GIL: independent kernels run side by side

    def asarray(self, values, dtype=None):
        return np.asarray(values, dtype=dtype)

    def to_host(self, array):
        return array

    def read(self, *scalars):
        """The values of 0-d arrays (and numbers) as Python numbers."""
        return [value.item() if hasattr(value, "item") else value for value in scalars]

    def check(self, failed, error):
        """Raise ``error()`` if ``failed`` holds (a namespace may wait for its next read)."""
        if failed:
            raise error()

    def flush(self):
        """Raise what the pending checks found (numpy's raise at once)."""

    def register(self, starts, n_values, longest, segment_of=None, *, given=False):
        """Declare segments for the namespaces that lay them out (numpy needs nothing); returns ``starts``."""
        return starts

    def register_groups(self, groups, starts):
        """Declare the groups of registered segments (numpy needs nothing)."""

    def arange(self, *bounds, dtype=None):
        return np.arange(*bounds, dtype=dtype)

    def zeros(self, n, dtype=np.float64):
        return np.zeros(n, dtype=dtype)

    def ones(self, n, dtype=np.float64):
        return np.ones(n, dtype=dtype)

    def full(self, n, value, dtype=np.float64):
        return np.full(n, value, dtype=dtype)

    def astype(self, array, dtype):
        return array.astype(dtype)

    def exp2(self, array):
        return np.exp2(array)

    def max_label(self, labels):
        return float(np.max(labels))

    def grade_table(self, labels, limit):
        """The labels as integers and their largest, when all are whole numbers in [0, limit]; else None."""
        whole = labels.astype(np.int64)
        low, top = int(whole.min()), int(whole.max())
        if low < 0 or top > limit or not np.array_equal(whole.astype(np.float64), labels):
            return None
        return whole, top

    def small_grades(self, labels):
        """The labels as uint8 (faster to compare) when they are whole numbers up to 255, else None."""
        grades = labels.astype(np.uint8)
        return grades if np.array_equal(labels, grades) else None

    def as_float(self, array):
        return array.astype(np.float64)

    def as_weights(self, mask):
        """A boolean mask to multiply floats by: as it is (numpy does so as fast, without a copy)."""
        return mask

    def cumsum(self, array, dtype=None):
        return np.cumsum(array, dtype=dtype)

    def concat(self, arrays):
        return np.concatenate(arrays)

    def flatnonzero(self, mask, count=None):
        return np.flatnonzero(mask)

    def take(self, values, indices):
        """``values[indices]``; None takes them all (np.take first copies int32 indices to intp: twice as slow)."""
        return values if indices is None else values[indices]

    def repeat(self, values, counts):
        return np.repeat(values, counts)

    def differs_from_previous(self, values):
        return differs_from_previous(values)

    def rank_order(self, codes, y_score, *, ties="average", y_true=None):
        return rank_order(codes, y_score, ties=ties, y_true=y_true)

    def segment_sizes(self, starts, n_rows):
        return np.diff(starts, append=n_rows)

    def positions_in_segments(self, starts, n_rows):
        return positions_in_segments(starts, n_rows)

    def running_count(self, mask):
        return running_count(mask)

    def counts_between(self, running, starts):
        return counts_between(running, starts)

    def segment_exclusive_cumsum(self, values, starts):
        # One cumulative sum that restarts at each segment: each segment's first
        # value takes away the previous segment's total. Exact for integer values.
        restarted = values.copy()
        restarted[starts[1:]] -= np.add.reduceat(values, starts)[:-1]
        before = np.cumsum(restarted)
        before -= values
        return before

    def segment_sum(self, values, starts, whole=False, within=None):
        """Sum of the values of each segment (``whole`` and ``within`` help namespaces: see ArrayApiOps.segment_sum)."""
        return np.add.reduceat(values, starts)

    def segment_max(self, values, starts):
        return np.maximum.reduceat(values, starts)

    def segment_prod(self, values, starts):
        return np.multiply.reduceat(values, starts)

    def segment_suffix_max(self, values, starts):
        """Largest value at or after each one in its segment."""
        # On the ranks of the distinct values, offset so that each segment (scanned
        # backwards) outranks those after it, one running maximum serves every
        # segment exactly.
        segment = np.repeat(np.arange(len(starts)), self.segment_sizes(starts, len(values)))
        distinct, value_rank = np.unique(values, return_inverse=True)
        offset = (len(starts) - 1 - segment) * len(distinct)
        return distinct[np.maximum.accumulate((value_rank.reshape(-1) + offset)[::-1])[::-1] - offset]

    def segment_exclusive_cumprod(self, values, starts, within=None):
        """Product of the values above each one in its segment (1 for a segment's first)."""
        exclusive = np.ones_like(values)
        exclusive[1:] = segment_accumulate(np.multiply, values, starts, self.segment_sizes(starts, len(values)))[:-1]
        exclusive[starts] = 1.0
        return exclusive

    def group_sum(self, values, groups, n_groups, within=None):
        return np.bincount(groups, weights=values, minlength=n_groups)

    def first_true_from(self, mask, starts):
        """Index of the first True of ``mask`` at or after each start (any index where none is)."""
        rows = np.flatnonzero(mask)
        if len(rows) == 0:
            return starts
        return rows[np.minimum(np.searchsorted(rows, starts), len(rows) - 1)]


NUMPY = NumpyOps()


class Ranking:
    """Rows of every query in rank order, and the segments that metrics reduce over.

    Parameters
    ----------
    labels : array of shape (n_rows,)
        Relevance labels in rank order.
    retrieved : array of bool or None
        Which rows were retrieved (scored above ``-inf``); None when all were.
        The others rank last, below every cutoff: the ranking shows them
        with label 0 (:attr:`labels`), but their judgements still count in
        :attr:`judged_labels`, which the ideal ranking and the number of
        relevant documents of a query come from.
    query_starts : array of int
        Index of the first row of each query.
    block_starts : array of int or None
        Index of the first row of each block of tied scores; None when no two
        rows of a query are tied (or ties are broken).
    query_weights : array of shape (n_queries,) or None
        Weight of each query in the mean.
    depth : int or None
        Only the rows ranked above ``depth`` count as retrieved (trec_eval's
        ``-M``), the others as judged documents that were not: a tie block
        that straddles ``depth`` has as many of its places retrieved as lie
        above it, in every ordering, so that the metrics average exactly over
        which of its rows fill them. Every cutoff stops there
        (:meth:`cutoff`, :meth:`visible`), while the ideal ranking and the
        number of relevant documents count every row. None: no limit.
    ops : NumpyOps or ArrayApiOps
        The array operations of the arrays' namespace (numpy by default).
    """

    def __init__(
        self, labels, query_starts, block_starts=None, query_weights=None, retrieved=None, *, depth=None, ops=None
    ):
        self.ops = NUMPY if ops is None else ops
        self.xp = self.ops.xp
        self.judged_labels = labels
        self.retrieved = retrieved
        self.depth = depth
        self.labels = self.shown(labels)
        self.query_starts = query_starts
        self.block_starts = block_starts
        self.query_weights = query_weights
        self._relevance = {}
        self.whole_labels = None  # whether every label is a whole number, where known

    @cached_property
    def positions(self):
        """0-based position of each row in its query."""
        return self.ops.positions_in_segments(self.query_starts, self.n_rows)

    def shown(self, values):
        """Row ``values`` (in rank order) as the ranking shows them: 0 on the rows not retrieved."""
        if self.retrieved is None:
            return values
        return self.xp.where(self.xp.reshape(self.retrieved, (-1, *[1] * (values.ndim - 1))), values, 0.0)

    @cached_property
    def n_retrieved(self):
        """Number of retrieved rows of each query (at most ``depth``)."""
        n_retrieved = self.query_sizes if self.retrieved is None else self.query_count(self.retrieved)
        return n_retrieved if self.depth is None else self.xp.minimum(n_retrieved, self.depth)

    @property
    def n_rows(self):
        return self.labels.shape[0]

    @property
    def n_queries(self):
        return self.query_starts.shape[0]

    @cached_property
    def query_sizes(self):
        return self.ops.segment_sizes(self.query_starts, self.n_rows)

    @cached_property
    def longest(self):
        """The number of rows of the longest query."""
        return int(self.xp.max(self.query_sizes))

    @cached_property
    def top_label(self):
        """The highest judged label, as a numpy float64."""
        return np.float64(float(self.xp.max(self.judged_labels)))

    @cached_property
    def query_of_row(self):
        return self.ops.repeat(self.ops.arange(self.n_queries, dtype=self.xp.int32), self.query_sizes)

    # Tie blocks. The metrics work on blocks; without ties each row is its own
    # block and these methods hand the row arrays back unchanged.
    @property
    def has_ties(self):
        """Whether some block holds more than one row."""
        return self.block_starts is not None

    @cached_property
    def block_sizes(self):
        return self.ops.segment_sizes(self.block_starts, self.n_rows)

    @cached_property
    def block_first(self):
        """0-based position in its query of the first row of each block."""
        return self.ops.take(self.positions, self.block_starts) if self.has_ties else self.positions

    @cached_property
    def query_block_starts(self):
        """Index of the first block of each query."""
        return self.xp.searchsorted(self.block_starts, self.query_starts) if self.has_ties else self.query_starts

    @cached_property
    def query_of_block(self):
        if not self.has_ties:
            return self.query_of_row
        blocks_per_query = self.ops.segment_sizes(self.query_block_starts, self.block_starts.shape[0])
        return self.ops.repeat(self.ops.arange(self.n_queries, dtype=self.xp.int32), blocks_per_query)

    def query_sum(self, values):
        """Sum of row ``values`` over each query."""
        return self.ops.segment_sum(values, self.query_starts)

    def query_count(self, mask):
        """Number of rows of each query where ``mask`` holds."""
        return self.ops.counts_between(self.ops.running_count(mask), self.query_starts)

    def per_block(self, values, whole=False):
        """Sum of row ``values`` over each block (``whole``: whole numbers, see :meth:`NumpyOps.segment_sum`)."""
        return self.ops.segment_sum(values, self.block_starts, whole) if self.has_ties else values

    def block_mean(self, values):
        """Mean of row ``values`` over each block."""
        return self.per_block(values) / self.ops.as_float(self.block_sizes) if self.has_ties else values

    def query_total(self, block_values, within=None):
        """Sum of block values over each query (``within``: only the first ``within`` blocks of each can be other
        than 0, see :meth:`NumpyOps.segment_sum`)."""
        return self.ops.segment_sum(block_values, self.query_block_starts, within=within)

    def visible(self, cutoff):
        """Number of rows of each block ranked above ``cutoff`` (None, a scalar or one per query) and ``depth``."""
        if self.depth is not None:
            cutoff = self.depth if cutoff is None else self.xp.minimum(cutoff, self.depth)
        if cutoff is None:
            return self.ops.as_float(self.block_sizes) if self.has_ties else self.ops.ones(self.n_rows)
        if getattr(cutoff, "ndim", 0) == 1:
            cutoff = self.ops.take(cutoff, self.query_of_block)
        if not self.has_ties:
            return self.ops.as_float(self.positions < cutoff)
        return self.ops.as_float(self.xp.minimum(self.xp.maximum(cutoff - self.block_first, 0), self.block_sizes))

    def before_in_query(self, counts):
        """Sum of the integer ``counts`` of the blocks above each block in its query (exact)."""
        return self.ops.segment_exclusive_cumsum(counts, self.query_block_starts)

    def blocks_above(self, k):
        """The blocks that start above rank ``k`` (with ties): the blocks, their rows, where each block's rows
        start among them, and where each query's blocks start among the blocks.

        Where the operations keep subsets whole (:attr:`NumpyOps.compacts`),
        these are every block (None) and every row (None): the caller leaves
        out the blocks from rank ``k`` on.
        """
        if not self.ops.compacts:
            return None, None, self.block_starts, self.query_block_starts
        blocks = self.ops.flatnonzero(self.block_first < k)
        take = self.ops.take
        rows, offsets = segment_rows(take(self.block_starts, blocks), take(self.block_sizes, blocks), self.ops)[:2]
        return blocks, rows, offsets, self.xp.searchsorted(blocks, self.query_block_starts)

    def marked_blocks(self, marked, *columns):
        """The query of each ``marked`` block (at most one per query) and its ``columns`` as floats, for numpy's
        operations (other namespaces reduce over the marked blocks in place: :meth:`top_in_blocks`)."""
        blocks = self.ops.flatnonzero(marked)
        return [self.query_of_block[blocks], *(np.asarray(values[blocks], dtype=np.float64) for values in columns)]

    def cutoff(self, k):
        """How deep a metric at cutoff ``k`` looks: ``k`` checked, no deeper than ``depth`` and the longest query.

        None: the whole of every query. A metric that divides by ``k`` (P@k)
        or cuts its ideal ranking at ``k`` (nDCG@k) takes ``k`` itself.
        """
        k = check_k(k)
        if self.depth is not None:
            k = self.depth if k is None else min(k, self.depth)
        return k if k is None else min(k, self.longest)

    def top(self, k):
        """The rows ranked in the top ``k`` of their query, where each query starts among them, and their positions.

        Where the operations keep subsets whole (:attr:`NumpyOps.compacts`),
        each query gets ``k`` places (a padded matrix, flattened): those past
        its last row take its first row at position ``k``, past the cutoff.
        """
        k = self.cutoff(k)
        if k is None or k >= self.longest:
            return self.ops.arange(self.n_rows), self.query_starts, self.positions
        if self.ops.compacts:
            return segment_rows(self.query_starts, self.xp.minimum(self.query_sizes, k), self.ops)
        ops, xp = self.ops, self.xp
        columns = ops.arange(k)[None, :]
        shown = columns < self.query_sizes[:, None]
        rows = xp.reshape(self.query_starts[:, None] + xp.where(shown, columns, 0), (-1,))
        positions = xp.reshape(xp.where(shown, columns, k), (-1,))
        starts = ops.register(ops.arange(self.n_queries) * k, rows.shape[0], k, given=True)
        return rows, starts, positions

    def top_in_blocks(self, k, marked):
        """The rows of the top ``k`` (:meth:`top`) as places of their tie blocks, for each query's ``marked`` block.

        Returns where each query starts among those rows, their positions, the
        size of each row's block and its place in it (from 0, as floats), and
        whether its block is marked and the row lies above ``k``. The blocks'
        places are rows of the ranking, so expectations over a block's places
        reduce along each query's rows, with no subset of data-dependent size.
        """
        ops = self.ops
        rows, starts, positions = self.top(k)
        block = ops.take(ops.segment_of(self.block_starts, self.n_rows), rows)
        size = ops.as_float(ops.take(self.block_sizes, block))
        place = ops.as_float(positions - ops.take(self.block_first, block))
        in_marked = ops.take(marked, block) & (positions < (self.longest if k is None else k))
        return starts, positions, block, size, place, in_marked

    def with_labels(self, labels, *, whole=None):
        """The same ranking with other judged labels (in rank order; ``whole``: all whole numbers), sharing the
        segments."""
        ranking = copy.copy(self)
        ranking.judged_labels, ranking._relevance, ranking.whole_labels = labels, {}, whole
        ranking.labels = self.shown(labels)
        ranking.__dict__.pop("top_label", None)
        return ranking

    def relevance(self, threshold):
        """The rows with a label >= ``threshold``, cached per threshold for the metrics of a report.

        Returns the boolean mask of the retrieved ones, the number of relevant
        rows per query (retrieved or not: the denominator of recall) and the
        number of retrieved relevant rows per block (without ties, the mask as
        weights: :meth:`NumpyOps.as_weights`).
        """
        if threshold not in self._relevance:
            ops = self.ops
            mask = self.labels >= threshold
            # Counts from one running total: reduceat costs far more over a million short blocks.
            running = ops.running_count(mask)
            judged = running if self.retrieved is None else ops.running_count(self.judged_labels >= threshold)
            per_query = ops.counts_between(judged, self.query_starts)
            if self.has_ties:
                per_block = ops.as_float(ops.counts_between(running, self.block_starts))
            else:
                per_block = ops.as_weights(mask)
            self._relevance[threshold] = Relevance(mask, per_query, per_block)
        return self._relevance[threshold]

    def has_relevant(self, threshold=None):
        """Whether each query has a label > 0 (or one >= ``threshold``)."""
        relevant = self.judged_labels > 0 if threshold is None else self.judged_labels >= threshold
        return self.query_count(relevant) > 0

    def aggregate(self, values, defined, *, average=True, zero_division=0.0):
        """Per-query values, with undefined queries set to ``zero_division``, or their weighted mean."""
        values = self.fill_undefined(values, defined, zero_division)
        if not average:
            self.ops.flush()
            return values
        return self.means([values])[0][0]

    def fill_undefined(self, values, defined, zero_division):
        """The per-query values with ``zero_division`` where the metric is undefined."""
        return self.xp.where(defined, values, check_zero_division(zero_division))

    def means(self, columns, also=()):
        """The weighted mean of each per-query array's values that are not NaN (nan, with a warning, if none).

        Returns the means and the values of the 0-d arrays ``also``: a
        namespace reads them all back in one copy (see :meth:`NumpyOps.read`).
        """
        if self.ops.compacts:
            found = []
            for values in columns:
                kept = ~np.isnan(values)
                weights = None if self.query_weights is None else self.query_weights[kept]
                entered = kept.any() and (weights is None or weights.any())
                found.append((weighted_mean(values[kept], weights) if entered else None, entered))
            also = self.ops.read(*also)
        else:
            found, also = self.ops.weighted_means(columns, self.query_weights, also)
        for _, entered in found:
            if not entered:
                from sklearn.exceptions import UndefinedMetricWarning  # imported here: scikit-learn takes a second

                warn(
                    "Every query is undefined (no relevant document) or has zero weight, so the mean is nan. "
                    "Pass zero_division=0.0 or 1.0 to score such queries.",
                    UndefinedMetricWarning,
                )
        return [mean if entered else float("nan") for mean, entered in found], also


def weighted_mean(values, weights=None):
    """``np.average``, also where its sums would overflow although the mean is finite.

    Dividing values or weights by a power of two is exact (above the subnormal
    range) and leaves the mean unchanged: the weights always are, so that their
    sum is at most their number; the values only when their sum overflowed.
    """
    if weights is not None:
        weights = np.ldexp(weights, -np.frexp(weights.max())[1])
    with np.errstate(over="ignore", invalid="ignore"):
        mean = float(np.average(values, weights=weights))
    if np.isfinite(mean):
        return mean
    exponent = np.frexp(np.abs(values).max())[1]
    return float(np.ldexp(np.average(np.ldexp(values, -exponent), weights=weights), exponent))


def rank_queries(y_true, y_score, *, qid=None, ties="average", sample_weight=None, return_order=False, depth=None):
    """Validate the inputs of a metric and return their :class:`Ranking` (and the order that sorts them).

    ``y_true`` and ``y_score`` are 1-D with one row per document and ``qid`` the
    query of each row (None: a single query), or 2-D with one query per row and
    ``qid=None``, the layout of :func:`sklearn.metrics.ndcg_score`. A 2-D
    ``y_true`` may be a scipy sparse matrix: when the metrics look no deeper
    than ``depth`` (and the order is not wanted), only the rows they can see
    are ranked; otherwise it is made dense. Arrays of another namespace
    (which reach a metric only under ``array_api_dispatch``) are ranked in
    that namespace, on their device (:func:`rank_in_namespace`).
    """
    ties = check_option("ties", ties, TIES)
    found = namespace_of((y_true, y_score, qid, sample_weight))
    if found is not None:
        ranking, order = rank_in_namespace(
            y_true, y_score, qid=qid, ties=ties, sample_weight=sample_weight, ops=ArrayApiOps(*found)
        )
        return (ranking, order) if return_order else ranking
    if is_sparse(y_true):
        if depth is not None and not return_order:
            return rank_sparse(y_true, y_score, qid=qid, ties=ties, sample_weight=sample_weight, depth=depth)
        y_true = y_true.toarray()
    y_true = as_float_array(y_true, "y_true", ndim=(1, 2))
    y_score = as_float_array(y_score, "y_score", ndim=(1, 2))
    if y_true.shape != y_score.shape:
        raise ValueError(
            f"y_true and y_score must have the same shape; got {y_true.shape} and {y_score.shape}. "
            "Give one label and one score per document."
        )
    check_labels(y_true)
    check_scores(y_score)
    if y_true.ndim == 2:
        if qid is not None:
            raise ValueError(
                "qid must be None when y_true and y_score are 2-D (one query per row); "
                "to pass qid, give 1-D arrays with one row per document."
            )
        n_queries, n_docs = y_true.shape
        codes = np.repeat(np.arange(n_queries), n_docs)
        weight = check_sample_weight(sample_weight, n_queries)
        weight = None if weight is None else np.repeat(weight, n_docs)
        y_true, y_score = y_true.ravel(), y_score.ravel()
    else:
        n_rows = len(y_true)
        codes = np.zeros(n_rows, dtype=np.int64) if qid is None else encode_qid(qid, n_rows)
        weight = check_sample_weight(sample_weight, n_rows)

    ranking, order = build_ranking(y_true, y_score, codes, ties=ties, weight=weight, qid=qid)
    return (ranking, order) if return_order else ranking


def rank_sparse(y_true, y_score, *, qid, ties, sample_weight, depth):
    """The :class:`Ranking` of a sparse users x items ``y_true``, for metrics at cutoffs up to ``depth``."""
    y_score = as_float_array(y_score, "y_score", ndim=(2,))
    if qid is not None or y_true.shape != y_score.shape:
        raise ValueError(
            f"a sparse y_true is a users x items matrix: give qid=None and a y_score of the same shape; got shapes "
            f"{y_true.shape} and {y_score.shape}{' and a qid' if qid is not None else ''}."
        )
    check_labels(np.concatenate((sparse_values(y_true), [0.0])))
    check_scores(y_score)
    weight = check_sample_weight(sample_weight, y_score.shape[0])
    labels, scores, users = candidate_rows(y_true, y_score, depth)
    return build_ranking(labels, scores, users, ties=ties, weight=None if weight is None else weight[users])[0]


def sparse_values(matrix):
    """The stored values of a scipy sparse matrix, as float64."""
    return np.asarray(matrix.tocoo().data, dtype=np.float64)


def build_ranking(labels, y_score, codes, *, ties, weight=None, qid=None, ops=None):
    """The :class:`Ranking` of validated 1-D rows, and the order that sorts them.

    ``ops``: the operations of the arrays' namespace (numpy's by default).
    """
    ops = NUMPY if ops is None else ops
    xp = ops.xp
    order, codes, changes = ops.rank_order(codes, y_score, ties=ties, y_true=labels)
    is_start = ops.differs_from_previous(codes)
    del codes
    query_starts = ops.flatnonzero(is_start)
    query_weights = None if weight is None else query_weight(ops.take(weight, order), is_start, qid, order, ops=ops)
    block_starts = None
    if ties == "average":
        changes |= is_start
        if not bool(xp.all(changes)):
            block_starts = ops.flatnonzero(changes)
    del changes, is_start
    retrieved = ops.take(y_score, order) > -np.inf if float(xp.min(y_score)) == -np.inf else None
    return Ranking(ops.take(labels, order), query_starts, block_starts, query_weights, retrieved, ops=ops), order


def query_weight(sorted_weight, is_query_start, qid, order, *, reason="", ops=None):
    """The weight of each query, checking that it is the same on all the query's rows.

    ``reason`` completes the error message: why the weight must be constant.
    """
    ops = NUMPY if ops is None else ops
    varies = (sorted_weight[1:] != sorted_weight[:-1]) & ~is_query_start[1:]
    if bool(ops.xp.any(varies)):
        row = int(order[int(ops.flatnonzero(varies)[0]) + 1])
        where = "" if qid is None else f" (query {np.asarray(to_numpy(qid))[row].tolist()!r})"
        raise ValueError(
            f"sample_weight must be constant within each query{reason}, but it varies inside a query{where}. "
            "Give every row of a query the query's weight."
        )
    return sorted_weight[is_query_start]


def judged_in_rank_order(judged, order, n_rows, ops=None):
    """The ``judged`` mask (one bool per input row, None: all judged) in rank order, in ``ops``'s namespace."""
    if judged is None:
        return None
    ops = NUMPY if ops is None else ops
    mask = ops.asarray(judged)
    if mask.shape != (n_rows,) or mask.dtype != ops.bool:
        raise ValueError(
            f"judged must be a boolean array with one value per row ({n_rows}); got "
            f"{'dtype ' + str(mask.dtype) if mask.shape == (n_rows,) else 'shape ' + str(tuple(mask.shape))}."
        )
    return ops.take(mask, order)


def ratio(numerator, denominator, ops=None):
    """Each query's ``numerator / denominator``, 0 where the denominator is 0, and where it is not.

    The second array marks the queries where the metric is defined; the
    others later get ``zero_division``. A scalar denominator serves every
    query. ``ops``: the arrays' operations (numpy's by default).
    """
    ops = NUMPY if ops is None else ops
    numerator = ops.as_float(numerator)
    if not hasattr(denominator, "shape"):
        return (numerator / denominator if denominator > 0 else numerator * 0.0), denominator > 0
    defined = denominator > 0
    safe = ops.xp.where(defined, ops.as_float(denominator), 1.0)
    return ops.xp.where(defined, numerator / safe, 0.0), defined


def evaluate(metric, y_true, y_score, *, qid, ties, sample_weight, average, zero_division, judged=None, **params):
    """Validate the inputs, rank them, apply ``metric`` and reduce over queries.

    ``metric(ranking, **params)`` returns each query's value and whether the
    query has a relevant document (where it is undefined otherwise). A
    ``judged`` mask (one bool per row) reaches the metric in rank order.
    Arrays of another namespace (passed on under dispatch by
    ``array_api_support(in_namespace=True)``) are ranked and measured in that
    namespace, on their device.
    """
    check_zero_division(zero_division)
    check_flag("average", average)
    options = {"qid": qid, "ties": ties, "sample_weight": sample_weight, "depth": params.get("k")}
    if judged is None:
        ranking = rank_queries(y_true, y_score, **options)
    else:  # the order too, to bring the mask into rank order
        ranking, order = rank_queries(y_true, y_score, return_order=True, **options)
        params["judged"] = judged_in_rank_order(judged, order, ranking.n_rows, ranking.ops)
    values, defined = metric(ranking, **params)
    return ranking.aggregate(values, defined, average=average, zero_division=zero_division)


def rank_in_namespace(y_true, y_score, *, qid, ties, sample_weight, ops):
    """The :class:`Ranking` of arrays of another namespace and the order that sorts them, built in ``ops``.

    The rows stay on their device: only query ids that are not an array of the
    namespace (strings, lists) are encoded on the host. The checks of the
    inputs run on the device, and their verdict comes back with the facts the
    host needs (the numbers of queries and tie blocks, the longest query and
    block, the largest label) in one copy. Invalid inputs are handed to
    :func:`rank_queries` on the host, whose errors name the fix.
    """
    xp = ops.xp
    rows = rows_in_namespace(y_true, y_score, qid, sample_weight, ops)
    if rows is not None:
        labels, scores, codes, weight, invalid = rows
        n_rows = labels.shape[0]
        order, sorted_codes, changes = ops.rank_order(codes, scores, ties=ties, y_true=labels)
        is_start = ops.differs_from_previous(sorted_codes)
        query_number, positions = numbered_runs(is_start, ops)
        sorted_weight = None if weight is None else xp.take(weight, order)
        if sorted_weight is not None:  # constant within each query, or the host names the query
            invalid = invalid | xp.any((sorted_weight[1:] != sorted_weight[:-1]) & ~is_start[1:])
        if ties == "average":
            block_number, block_positions = numbered_runs(changes | is_start, ops)
            n_blocks, longest_block = block_number[-1], xp.max(block_positions) + 1
            # The blocks of each row's query up to it; the most, at a query's last row.
            most_blocks = xp.max(block_number - xp.take(block_number, ops.arange(n_rows) - positions)) + 1
        else:
            n_blocks = longest_block = most_blocks = n_rows
        facts = ops.read(
            invalid,
            query_number[-1],
            n_blocks,
            xp.max(positions) + 1,
            longest_block,
            most_blocks,
            xp.min(scores) == -np.inf,
            xp.max(labels),
            xp.all(xp.floor(labels) == labels),
        )
        invalid, n_queries, n_blocks, longest, longest_block, most_blocks, some_not_retrieved, top, whole = facts
    if rows is None or invalid:
        rank_queries(
            *map(to_numpy, (y_true, y_score)), qid=to_numpy(qid), ties=ties, sample_weight=to_numpy(sample_weight)
        )
        raise AssertionError("the host validation accepted inputs that the namespace's refused")  # pragma: no cover
    n_queries, n_blocks, longest = int(n_queries), int(n_blocks), int(longest)
    ops.label_top, ops.labels_whole = np.float64(top), bool(whole)  # for the ranking's labels and their subsets
    query_starts = xp.searchsorted(query_number, ops.arange(1, n_queries + 1))
    query_of_row = query_number - 1
    ops.register(query_starts, n_rows, longest, query_of_row)
    ops.register_groups(query_of_row, query_starts)
    retrieved = xp.take(scores, order) > -np.inf if some_not_retrieved else None
    query_weights = None if sorted_weight is None else xp.take(sorted_weight, query_starts)
    block_starts = None
    if n_blocks < n_rows:
        block_starts = xp.searchsorted(block_number, ops.arange(1, n_blocks + 1))
        ops.register(block_starts, n_rows, int(longest_block), block_number - 1)
    ranking = Ranking(xp.take(labels, order), query_starts, block_starts, query_weights, retrieved, ops=ops)
    ranking.whole_labels = ops.labels_whole and top * n_rows < 2**53  # sums of labels exact in float64
    # What the host learnt and the device built on the way, for the ranking's cached properties.
    ranking.__dict__.update(positions=positions, longest=longest, top_label=ops.label_top, query_of_row=query_of_row)
    if block_starts is not None:
        query_block_starts = xp.take(block_number, query_starts) - 1
        query_of_block = xp.take(query_of_row, block_starts)
        ops.register(query_block_starts, n_blocks, int(most_blocks), query_of_block)
        ops.register_groups(query_of_block, query_block_starts)
        ranking.__dict__.update(query_block_starts=query_block_starts, query_of_block=query_of_block)
    if is_foreign(qid) and qid.ndim == 1:
        ranking.query_ids = xp.take(qid, xp.take(order, query_starts))
    return ranking, order


def numbered_runs(is_start, ops):
    """The run of equal values of each element (numbered from 1) and its position in the run (from 0).

    A running count of the starts numbers the runs; a search of each number
    finds its run's first element. No shape depends on the data.
    """
    number = ops.running_count(is_start)
    return number, ops.arange(number.shape[0]) - ops.run_starts(number)


def rows_in_namespace(y_true, y_score, qid, sample_weight, ops):
    """Labels, scores, query codes and row weights (or None) as 1-D arrays of ``ops``, and whether any is invalid.

    The verdict is a 0-d boolean on the device; None when the shapes or types
    are already wrong.
    """
    xp = ops.xp
    y_true, y_score = (ops.asarray(values, dtype=ops.float64) for values in (y_true, y_score))
    if y_true.ndim not in (1, 2) or y_true.shape != y_score.shape or 0 in y_true.shape:
        return None
    # Labels finite and >= 0; scores finite or -inf (NaN < inf is False).
    invalid = ~xp.all(xp.isfinite(y_true) & (y_true >= 0)) | ~xp.all(y_score < np.inf)
    n_rows = y_true.shape[0]
    if y_true.ndim == 1:
        codes, n_docs = query_codes_in_namespace(qid, n_rows, ops), 1
    elif qid is None:  # one query per row, whose sample_weight has one value per query
        n_docs, y_true, y_score = y_true.shape[1], xp.reshape(y_true, (-1,)), xp.reshape(y_score, (-1,))
        codes = xp.repeat(ops.arange(n_rows), n_docs), None
    else:
        return None
    if codes is None:
        return None
    codes, bad_codes = codes
    if bad_codes is not None:
        invalid = invalid | bad_codes
    if sample_weight is None:
        return y_true, y_score, codes, None, invalid
    weight = ops.asarray(sample_weight, dtype=ops.float64)
    if weight.shape != (n_rows,):
        return None
    invalid = invalid | ~xp.all(xp.isfinite(weight) & (weight >= 0))
    return y_true, y_score, codes, weight if n_docs == 1 else xp.repeat(weight, n_docs), invalid


def query_codes_in_namespace(qid, n_rows, ops):
    """Query codes that sort like ``qid`` in ``ops``'s namespace, and a 0-d verdict on them (or None); None if invalid.

    An array of the namespace with numbers sorts as it is; other ids (strings,
    lists, numpy arrays) are encoded on the host as :func:`encode_qid` does.
    """
    xp = ops.xp
    if qid is None:
        return ops.zeros(n_rows, dtype=xp.int64), None
    if not is_foreign(qid):
        return ops.asarray(encode_qid(qid, n_rows)), None
    if qid.ndim != 1 or qid.shape[0] != n_rows or not xp.isdtype(qid.dtype, ("bool", "integral", "real floating")):
        return None
    if xp.isdtype(qid.dtype, "bool"):
        return xp.astype(qid, xp.int64), None
    if xp.isdtype(qid.dtype, "real floating"):
        return qid, ~xp.all(xp.isfinite(qid))
    return qid, None
