"""The metric kernels' operations for numpy: one stable sort for all queries, then segment operations.

The rows are sorted by (query, descending score) with radix passes and chunked
float keys (:func:`rank_order`); segments of rows (queries, tie blocks) are
then reduced with ``reduceat``, running counts and passes over padded arrays.
:class:`NumpyOps` gathers them under the interface that
:class:`~sklearn_rankmetrics._core._namespace_ops.ArrayApiOps` gives other namespaces.
"""

import numpy as np

from ._parallel import map_in_threads


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
    with np.errstate(invalid="ignore"):  # inf - inf: only +inf scores, sorted exactly below
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


def running_sum(values):
    """The sum of values added one after another in their order, as trec_eval adds per-query values.

    np.sum adds pairwise, whose rounding differs in the last bit: enough to change the printed digit of a mean
    that lies on a rounding tie. Every mean over queries that the TREC evaluation and the comparisons report is
    this sum divided by the number of queries, so that they agree to the last bit.
    """
    values = np.asarray(values, dtype=np.float64)
    return float(np.cumsum(values)[-1]) if len(values) else 0.0


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
    :class:`~sklearn_rankmetrics._core._namespace_ops.ArrayApiOps` gives the same
    operations in another namespace, so that one algorithm per metric serves
    both.
    """

    xp = np
    float64 = np.float64
    bool = np.bool_
    compacts = True  # subsets of rows are compacted (a namespace may keep them whole, masked)

    def asarray(self, values, dtype=None):
        return np.asarray(values, dtype=dtype)

    def table(self, values):
        """A small table computed on the host (float64), as the kernels' array."""
        return values

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

    def segment_counts(self, mask, *starts):
        """The number of True values of ``mask`` in each segment, for each ``starts`` (a list)."""
        running = running_count(mask)
        return [counts_between(running, segment_starts) for segment_starts in starts]

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
