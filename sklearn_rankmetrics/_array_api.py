"""Arrays of other libraries (PyTorch, CuPy, any Array API namespace) in and out of the metrics.

scikit-learn's convention: with ``sklearn.set_config(array_api_dispatch=True)``
the per-query results come back in the namespace and on the device of the
inputs (float64 where the device has it); with dispatch off, everything is
numpy, as for any array-like. ``array-api-compat`` is imported only when a
non-numpy array arrives.

The kernels of the registered metrics (NDCG to RBP), of their report and of
interpolated precision are written in a small set of array operations,
:class:`ArrayApiOps` here and ``NumpyOps`` for numpy, so that under dispatch
they run in the inputs' namespace and on their device (one algorithm per
metric). Arrays in host memory (PyTorch's CPU tensors) are viewed by numpy
instead, whose kernels are faster on the CPU. The diversity metrics and
coverage copy their inputs to the host and compute with numpy.
"""

import functools
import importlib
import inspect

import numpy as np
import sklearn


def is_foreign(value):
    """Whether ``value`` is an array of another library (it has an Array API namespace and is not numpy's)."""
    return (hasattr(value, "__array_namespace__") and not isinstance(value, np.ndarray | np.generic)) or _is_torch(
        value
    )


def _is_torch(value):
    return type(value).__module__.startswith("torch") and hasattr(value, "detach")


def namespace_of(values):
    """The Array API namespace and device of the first foreign array among ``values``, or None."""
    foreign = next((value for value in values if is_foreign(value)), None)
    if foreign is None:
        return None
    compat = array_api_compat()
    if compat is None:
        raise ImportError(
            f"Arrays of {type(foreign).__module__.split('.')[0]} need array-api-compat: "
            "pip install 'sklearn-rankmetrics[array-api]' (or pip install array-api-compat)."
        )
    return compat.array_namespace(foreign), compat.device(foreign)


def array_api_compat():
    """The array-api-compat package, or the copy scikit-learn vendors; None if neither imports."""
    for name in ("array_api_compat", "sklearn.externals.array_api_compat"):
        try:
            return importlib.import_module(name)
        except ImportError:
            pass
    return None


# DLPack's device type of host memory (kDLCPU).
CPU_DEVICE = 1


def in_host_memory(values):
    """Whether every foreign array among ``values`` lies in host memory (DLPack's CPU device).

    numpy views such arrays without a copy, and its kernels are the fastest
    on the CPU (PyTorch's CPU sorts take several times numpy's), so they take
    the numpy path; arrays on an accelerator are computed there.
    """
    try:
        return all(value.__dlpack_device__()[0] == CPU_DEVICE for value in values if is_foreign(value))
    except (AttributeError, TypeError, RuntimeError):
        return False


def to_numpy(value):
    """A foreign array as a numpy array on the host (anything else unchanged)."""
    if not is_foreign(value):
        return value
    if _is_torch(value):
        return value.detach().cpu().numpy()
    if hasattr(value, "get") and type(value).__module__.startswith("cupy"):
        return value.get()
    return np.from_dlpack(value)


def from_numpy(result, namespace, device):
    """Per-query arrays (also inside a dict or tuple) moved to ``namespace`` on ``device``; floats stay floats."""
    if isinstance(result, np.ndarray) and result.dtype.kind in "fiub":
        dtype = namespace.float64 if result.dtype.kind == "f" else None
        try:
            return namespace.asarray(result, dtype=dtype, device=device)
        except (TypeError, ValueError):  # a device without float64 (Apple MPS): float32
            return namespace.asarray(result.astype(np.float32), device=device)
    if isinstance(result, dict):
        return {key: from_numpy(value, namespace, device) for key, value in result.items()}
    if isinstance(result, tuple):
        return tuple(from_numpy(value, namespace, device) for value in result)
    return result


def array_api_support(function=None, *, in_namespace=False):
    """Accept foreign arrays in any argument; return per-query results in their namespace under dispatch.

    With ``in_namespace=True`` the function computes in the arrays' namespace
    itself under dispatch (its metric kernels are written in :class:`ArrayApiOps`):
    the arrays reach it unconverted. ``in_namespace`` may also be a predicate
    of the call's arguments (defaults applied), for a function that can do so
    only with some options. Otherwise the arrays are copied to the host.
    """
    if function is None:
        return functools.partial(array_api_support, in_namespace=in_namespace)
    signature = inspect.signature(function)

    def computes_in_namespace(args, kwargs):
        if not callable(in_namespace):
            return in_namespace
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return in_namespace(**bound.arguments)

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        arguments = [*args, *kwargs.values()]
        found = namespace_of(arguments)
        if found is None:
            return function(*args, **kwargs)
        dispatch = sklearn.get_config().get("array_api_dispatch", False)
        if dispatch and computes_in_namespace(args, kwargs) and not in_host_memory(arguments):
            return function(*args, **kwargs)
        result = function(*map(to_numpy, args), **{key: to_numpy(value) for key, value in kwargs.items()})
        return from_numpy(result, *found) if dispatch else result

    wrapper.in_namespace = in_namespace
    return wrapper


class ArrayApiOps:
    """The kernels' array operations (see :class:`~sklearn_rankmetrics._grouping.NumpyOps`) in an Array API namespace.

    Everything stays in ``xp`` on ``device``, and nothing waits for the
    device unless a value must reach the host: every shape is known on the
    host, so no operation has a data-dependent size, and the few facts the
    host needs (the inputs' validity, the number of queries and tie blocks,
    the longest query, the mean) come back together, each batch in one copy
    (:meth:`read`). Checks that raise (:meth:`check`) wait for the next read.

    Segments (queries, tie blocks, the blocks of each query) are laid out
    once per ranking on a flat zero-padded array, each segment in a run of
    cells a power of two long and aligned to it (:class:`SegmentLayout`), so
    that sums, maxima and products reduce every segment at once by halving
    the array, and a sum carries no rounding from other segments, as with
    numpy's ``reduceat``. Integer counts come from differences of running
    sums, exact for them.
    """

    compacts = False  # subsets of rows stay masked rows: a compacted subset's size is data-dependent
    parallel = False  # the device runs one kernel after another: the kernels' threads gain nothing

    def __init__(self, xp, device):
        self.xp, self.device, self.bool = Scalars(xp, device), device, xp.bool
        try:
            xp.zeros(1, dtype=xp.float64, device=device)
            self.float64 = xp.float64
        except (TypeError, ValueError, RuntimeError):  # a device without float64 (Apple MPS)
            self.float64 = xp.float32
        self.layouts, self.groups, self.pending = {}, {}, []
        self.label_top = self.labels_whole = None  # the ranking's labels: largest, all whole numbers

    # Creation and conversion.
    def asarray(self, values, dtype=None):
        if dtype is None and isinstance(values, np.ndarray) and values.dtype.kind == "f":
            dtype = self.float64
        return self.xp.asarray(values, dtype=dtype, device=self.device)

    def to_host(self, array):
        return to_numpy(array)

    def read(self, *scalars):
        """The values of 0-d arrays (and numbers), in one copy to the host; then the pending checks raise."""
        checks, self.pending = self.pending, []
        on_device = [value for value in scalars if hasattr(value, "shape")] + [failed for failed, _ in checks]
        if on_device:
            copied = iter(self.to_host(self.xp.stack([self.as_float(value) for value in on_device])).tolist())
            scalars = [next(copied) if hasattr(value, "shape") else value for value in scalars]
            for (_, error), failed in zip(checks, copied, strict=True):
                if failed:
                    raise error()
        return scalars

    def check(self, failed, error):
        """Raise ``error()`` if the 0-d boolean ``failed`` holds, at the next :meth:`read` (or :meth:`flush`)."""
        self.pending.append((failed, error))

    def flush(self):
        """Read the pending checks (one copy) and raise if one failed."""
        if self.pending:
            self.read()

    def arange(self, *bounds, dtype=None):
        return self.xp.arange(*bounds, dtype=dtype or self.xp.int64, device=self.device)

    def zeros(self, n, dtype=None):
        return self.xp.zeros(n, dtype=dtype or self.float64, device=self.device)

    def ones(self, n, dtype=None):
        return self.xp.ones(n, dtype=dtype or self.float64, device=self.device)

    def full(self, n, value, dtype=None):
        return self.xp.full(n, value, dtype=dtype or self.float64, device=self.device)

    def astype(self, array, dtype):
        return self.xp.astype(array, dtype)

    def as_float(self, array):
        return self.xp.astype(array, self.float64)

    def as_weights(self, mask):
        """A boolean mask to multiply floats by: floats (the standard does not mix the kinds)."""
        return self.as_float(mask)

    def exp2(self, array):
        return 2.0**array

    # The facts of the ranking's labels, read with the ranking's other facts: no trip to the host each.
    def max_label(self, labels):
        """The largest of the ranking's ``labels`` (or of a subset of them)."""
        return self.label_top

    def grade_table(self, labels, limit):
        """The ranking's ``labels`` (or a subset) as integers and their largest, if all are whole numbers up to
        ``limit``; else None."""
        if not self.labels_whole or self.label_top > limit:
            return None
        return self.astype(labels, self.xp.int64), int(self.label_top)

    def small_grades(self, labels):
        """The ranking's labels when they are whole numbers (compared as they are), else None."""
        return labels if self.labels_whole else None

    def concat(self, arrays):
        return self.xp.concat(arrays)

    def cumsum(self, array, dtype=None):
        return self.xp.cumulative_sum(array, dtype=dtype)

    def flatnonzero(self, mask, count=None):
        """Indices of the True values; with their ``count`` known, found without a data-dependent shape."""
        if count is None:
            return self.xp.nonzero(mask)[0]
        return self.xp.searchsorted(self.running_count(mask), self.arange(1, count + 1))

    def take(self, values, indices):
        """``values[indices]``; None takes them all (a subset kept whole, see :attr:`compacts`)."""
        return values if indices is None else self.xp.take(values, indices)

    def repeat(self, values, counts):
        """``values[i]`` repeated ``counts[i]`` times, by a search of each output place among the running ends.

        Gathers only: CuPy's ``repeat`` takes no array of counts. Its size is
        data-dependent (one read); the hot paths use :meth:`register`'s
        segment of each element instead.
        """
        ends = self.cumsum(counts)
        (total,) = self.read(ends[-1]) if ends.shape[0] else (0,)
        places = self.arange(int(total), dtype=ends.dtype)
        return self.xp.take(values, self.xp.searchsorted(ends, places, side="right"))

    # Order.
    def stable_argsort(self, keys, *, descending=False):
        return self.xp.argsort(keys, stable=True, descending=descending)

    def differs_from_previous(self, values):
        first = self.xp.ones(1, dtype=self.xp.bool, device=self.device)
        return self.concat((first, values[1:] != values[:-1]))

    def rank_order(self, codes, y_score, *, ties="average", y_true=None):
        """As :func:`~sklearn_rankmetrics._grouping.rank_order`, with one stable sort per key, last key first."""
        take = self.xp.take
        if ties in ("pessimistic", "optimistic"):
            order = self.stable_argsort(y_true, descending=ties == "optimistic")
            order = take(order, self.stable_argsort(take(y_score, order), descending=True))
        else:
            order = self.stable_argsort(y_score, descending=True)
        order = take(order, self.stable_argsort(take(codes, order)))
        return order, take(codes, order), self.differs_from_previous(take(y_score, order))

    # Segments: runs of values that start at ``starts`` (increasing) and end at the next start.
    def register(self, starts, n_values, longest, segment_of=None, *, uniform=False):
        """Declare the segments of ``n_values`` values that begin at ``starts``: none is longer than ``longest``.

        ``segment_of`` (the segment of each value) saves a search. With
        ``uniform``, every segment is exactly ``longest`` values (padded rows
        of a matrix, flattened). Returns ``starts``.
        """
        self.layouts[id(starts)] = (starts, n_values, longest, segment_of, uniform)
        return starts

    def register_groups(self, groups, starts):
        """Declare that ``groups`` (non-decreasing) numbers the segments of registered ``starts``."""
        self.groups[id(groups)] = (groups, starts)

    def layout(self, starts, n_values):
        """The :class:`SegmentLayout` of registered ``starts`` (built once); others get one bounded by ``n_values``."""
        entry = self.layouts.get(id(starts))
        if entry is None or entry[0] is not starts or entry[1] != n_values:
            entry = (starts, n_values, max(n_values, 1), None, False)
            self.layouts[id(starts)] = entry
        if len(entry) == 5:
            entry = (starts, n_values, SegmentLayout(self, *entry[:4], uniform=entry[4]))
            self.layouts[id(starts)] = entry
        return entry[2]

    def segment_sizes(self, starts, n_rows):
        if starts.shape[0] == 0:
            return starts
        return self.concat((starts[1:], self.asarray([n_rows], dtype=starts.dtype))) - starts

    def segment_of(self, starts, n_values):
        """The segment of each of the values."""
        return self.layout(starts, n_values).segment_of

    def positions_in_segments(self, starts, n_rows):
        return self.arange(n_rows) - self.xp.take(starts, self.segment_of(starts, n_rows))

    def running_count(self, mask):
        return self.cumsum(self.astype(mask, self.xp.int64))

    def counts_between(self, running, starts):
        before = self.concat((self.zeros(1, dtype=running.dtype), self.xp.take(running, starts[1:] - 1)))
        return self.concat((before[1:], running[-1:])) - before

    def segment_exclusive_cumsum(self, values, starts):
        """Sum of the (integer-valued) ``values`` before each one in its segment."""
        before = self.cumsum(values) - values
        return before - self.xp.take(self.xp.take(before, starts), self.segment_of(starts, values.shape[0]))

    def segment_sum(self, values, starts):
        return self.layout(starts, values.shape[0]).reduce(values, self.xp.sum, 0.0)

    def segment_max(self, values, starts):
        return self.layout(starts, values.shape[0]).reduce(values, self.xp.max, -np.inf)

    def segment_prod(self, values, starts):
        return self.layout(starts, values.shape[0]).reduce(values, self.xp.prod, 1.0)

    def group_sum(self, values, groups, n_groups):
        """Sum of ``values`` over each group 0 .. n_groups - 1, for non-decreasing ``groups`` (empty groups: 0)."""
        registered = self.groups.get(id(groups))
        if registered is not None and registered[0] is groups:
            return self.segment_sum(values, registered[1])
        starts = self.xp.searchsorted(groups, self.arange(n_groups, dtype=groups.dtype))
        return self.segment_sum(values, starts)

    def segment_exclusive_cumprod(self, values, starts):
        """Product of the values above each one in its segment (1 for a segment's first)."""
        return self.layout(starts, values.shape[0]).exclusive_cumprod(values)

    def segment_suffix_max(self, values, starts):
        """Largest value at or after each one in its segment."""
        return self.layout(starts, values.shape[0]).suffix_max(values)

    def first_true_from(self, mask, starts):
        """Index of the first True of ``mask`` at or after each start (``mask``'s length where none is)."""
        running = self.running_count(mask)
        before = self.concat((self.zeros(1, dtype=running.dtype), running[:-1]))
        return self.xp.searchsorted(running, self.xp.take(before, starts) + 1)

    def weighted_means(self, columns, weights=None):
        """The weighted mean of each array's values that are not NaN, with whether any value enters it; one read.

        Returns a list of ``(mean, entered)`` pairs: ``entered`` is False where
        no value (or only zero weights) enters the mean.
        """
        xp, scalars = self.xp, []
        for values in columns:
            kept = ~xp.isnan(values)
            weight = self.as_float(kept) if weights is None else xp.where(kept, weights, 0.0)
            total = xp.sum(weight)
            scalars += [xp.sum(xp.where(kept, values, 0.0) * weight) / total, total > 0]
        found = self.read(*scalars)
        return [(mean, bool(entered)) for mean, entered in zip(found[::2], found[1::2], strict=True)]


class Scalars:
    """An Array API namespace whose ``minimum``, ``maximum`` and ``where`` also take Python numbers.

    The 2024 standard allows them; older wrappers (the array-api-compat that
    scikit-learn vendors) need arrays.
    """

    def __init__(self, xp, device):
        self._xp, self._device = xp, device

    def __getattr__(self, name):
        value = getattr(self._xp, name)
        setattr(self, name, value)  # looked up once
        return value

    def minimum(self, x1, x2):
        return self._xp.minimum(*self._arrays(x1, x2))

    def maximum(self, x1, x2):
        return self._xp.maximum(*self._arrays(x1, x2))

    def where(self, condition, x1, x2):
        return self._xp.where(condition, *self._arrays(x1, x2))

    def _arrays(self, x1, x2):
        if hasattr(x1, "shape") and hasattr(x2, "shape"):
            return x1, x2
        like = x1 if hasattr(x1, "shape") else x2
        return tuple(value if hasattr(value, "shape") else self._scalar(value, like) for value in (x1, x2))

    def _scalar(self, value, like):
        xp = self._xp
        if isinstance(value, bool) or not xp.isdtype(like.dtype, ("integral", "real floating")):
            dtype = None
        elif xp.isdtype(like.dtype, "integral") and isinstance(value, float):
            dtype = xp.float64  # int array with a float: float, as numpy
        else:
            dtype = like.dtype
        return xp.asarray(value, dtype=dtype, device=self._device)


class SegmentLayout:
    """Segments of ``n_values`` values laid out on a flat padded array, for reductions and scans on a device.

    Each segment takes a run of cells ``2**c`` long with ``2**(c-1) < size <=
    2**c``, at an offset that is a multiple of it (the widest segments come
    first, so every run stays aligned), and padding fills the rest; there are
    at most ``2 * n_values + n_segments`` cells. Halving the array ``c`` times
    then sums (or multiplies, or maximises) exactly the cells of every
    segment of width ``2**c``, with no rounding carried from another
    segment. Scans step through the cells of each run with doubling strides.
    Nothing is read back: every size comes from ``n_values``, the number of
    segments and ``longest``, a bound on their sizes that the host knows.
    With ``uniform``, the values are already padded rows of a matrix, one per
    segment, each ``longest`` wide.
    """

    def __init__(self, ops, starts, n_values, longest, segment_of=None, *, uniform=False):
        xp, self.ops = ops.xp, ops
        n_segments = starts.shape[0]
        self.shape, self.uniform = (n_segments, longest), uniform
        self.empty = n_values == 0 or n_segments == 0
        if uniform or self.empty:
            if self.empty:
                self.segment_of = ops.zeros(n_values, dtype=xp.int64)
                return
            self.segment_of = xp.reshape(xp.broadcast_to(ops.arange(n_segments)[:, None], self.shape), (-1,))
            return
        self.n_values, self.levels = n_values, max(int(longest) - 1, 0).bit_length()
        sizes = ops.segment_sizes(starts, n_values)
        # The class c of each segment, with 2**(c-1) < size <= 2**c (size 0 or 1: c = 0).
        size_class = xp.astype(xp.ceil(xp.log2(ops.as_float(xp.maximum(sizes, 1)))), xp.int64)
        one = xp.ones(1, dtype=xp.int64, device=ops.device)
        size_class = xp.where(xp.bitwise_left_shift(one, size_class) < sizes, size_class + 1, size_class)
        smaller = xp.bitwise_left_shift(one, xp.maximum(size_class - 1, 0)) >= sizes
        size_class = xp.where((size_class > 0) & smaller, size_class - 1, size_class)
        by_width = ops.stable_argsort(size_class, descending=True)
        widths = xp.bitwise_left_shift(one, xp.take(size_class, by_width))
        ends = ops.cumsum(widths)
        self.n_cells = -(-(2 * n_values + n_segments) // 2**self.levels) * 2**self.levels
        cells = ops.arange(self.n_cells)
        run = xp.minimum(xp.searchsorted(ends, cells, side="right"), max(n_segments - 1, 0))
        segment = xp.take(by_width, run)
        self.width = xp.take(widths, run)  # of each cell's run
        self.column = cells - (xp.take(ends, run) - self.width)
        self.inside = (self.column < xp.take(sizes, segment)) & (cells < ends[-1])
        self.rows = xp.where(self.inside, xp.take(starts, segment) + self.column, 0)
        # Where each segment's reduction lies in the levels of halving laid end to end (level c holds
        # the sums of aligned runs 2**c long), in the segments' order.
        level_starts = ops.asarray(np.cumsum([0] + [self.n_cells >> level for level in range(self.levels)]))
        offsets = ends - widths
        by_segment = ops.stable_argsort(by_width)
        self.pick = xp.take(level_starts, size_class) + xp.bitwise_right_shift(xp.take(offsets, by_segment), size_class)
        if segment_of is None:
            segment_of = xp.searchsorted(starts, ops.arange(n_values), side="right") - 1
        self.segment_of = segment_of
        # The cell of each value.
        rank = xp.take(by_segment, segment_of)
        self.cell = xp.take(offsets, rank) + ops.arange(n_values) - xp.take(starts, segment_of)

    def padded(self, values, fill):
        """The values (along the first axis) on the layout's cells, ``fill`` on the padding."""
        xp = self.ops.xp
        inside = xp.reshape(self.inside, (-1, *[1] * (values.ndim - 1)))
        return xp.where(inside, xp.take(values, self.rows, axis=0), fill)

    def reduce(self, values, reduce, identity):
        """``reduce`` (sum, max, prod) of the values (along the first axis) of each segment (``identity`` if empty)."""
        xp, rest = self.ops.xp, tuple(values.shape[1:])
        if self.empty:
            return xp.full((self.shape[0], *rest), identity, dtype=values.dtype, device=self.ops.device)
        if self.uniform:
            return reduce(xp.reshape(values, (*self.shape, *rest)), axis=1)
        level = self.padded(values, identity)
        levels = [level]
        for _ in range(self.levels):
            level = reduce(xp.reshape(level, (-1, 2, *rest)), axis=1)
            levels.append(level)
        return xp.take(xp.concat(levels), self.pick, axis=0)

    def exclusive_cumprod(self, values):
        """Product of the values before each one in its segment (1 for the first)."""
        xp = self.ops.xp
        if self.empty:
            return values
        if self.uniform:
            padded = xp.reshape(values, self.shape)
            before = xp.cumulative_prod(padded[:, :-1], axis=1)
            ones = xp.ones((self.shape[0], 1), dtype=values.dtype, device=self.ops.device)
            return xp.reshape(xp.concat((ones, before), axis=1), (-1,))
        cells = self.padded(values, 1.0)
        # Each cell starts from the cell before it in its run (1 for the run's first), then gathers the
        # products of the 1, 2, 4, ... cells before that.
        scanned = xp.where(self.column == 0, 1.0, self.ops.concat((self.ops.ones(1, dtype=values.dtype), cells[:-1])))
        stride = 1
        while stride < 2**self.levels:
            shifted = self.ops.concat((self.ops.ones(stride, dtype=values.dtype), scanned[:-stride]))
            scanned = xp.where(self.column >= stride, scanned * shifted, scanned)
            stride *= 2
        return xp.take(scanned, self.cell)

    def suffix_max(self, values):
        """Largest value at or after each one in its segment."""
        xp = self.ops.xp
        if self.empty:
            return values
        cells = self.padded(values, -np.inf)
        stride = 1
        while stride < 2**self.levels:
            shifted = self.ops.concat((cells[stride:], self.ops.full(stride, -np.inf, dtype=values.dtype)))
            cells = xp.where(self.column + stride < self.width, xp.maximum(cells, shifted), cells)
            stride *= 2
        return xp.take(cells, self.cell)
