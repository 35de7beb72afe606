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

    Everything stays in ``xp`` on ``device``: two stable sorts order the rows,
    and segment sums add each segment along a row of a zero-padded array (one
    per class of segment sizes within a factor two), so that, as with numpy's
    ``reduceat``, a sum carries no rounding from the segments before it (the
    differences of one running sum would). Integer counts do come from
    differences of running sums, which are exact for them.
    """

    def __init__(self, xp, device):
        self.xp, self.device, self.bool = xp, device, xp.bool
        try:
            xp.zeros(1, dtype=xp.float64, device=device)
            self.float64 = xp.float64
        except (TypeError, ValueError, RuntimeError):  # a device without float64 (Apple MPS)
            self.float64 = xp.float32

    # Creation and conversion.
    def asarray(self, values, dtype=None):
        if dtype is None and isinstance(values, np.ndarray) and values.dtype.kind == "f":
            dtype = self.float64
        return self.xp.asarray(values, dtype=dtype, device=self.device)

    def to_host(self, array):
        return to_numpy(array)

    def arange(self, *bounds, dtype=None):
        return self.xp.arange(*bounds, dtype=dtype or self.xp.int64, device=self.device)

    def zeros(self, n, dtype=None):
        return self.xp.zeros(n, dtype=dtype or self.float64, device=self.device)

    def ones(self, n, dtype=None):
        return self.xp.ones(n, dtype=dtype or self.float64, device=self.device)

    def astype(self, array, dtype):
        return self.xp.astype(array, dtype)

    def as_float(self, array):
        return self.xp.astype(array, self.float64)

    def as_weights(self, mask):
        """A boolean mask to multiply floats by: floats (the standard does not mix the kinds)."""
        return self.as_float(mask)

    def exp2(self, array):
        return 2.0**array

    def small_grades(self, labels):
        """The labels when they are whole numbers (compared as they are), else None."""
        return labels if bool(self.xp.all(self.xp.floor(labels) == labels)) else None

    def concat(self, arrays):
        return self.xp.concat(arrays)

    def cumsum(self, array, dtype=None):
        return self.xp.cumulative_sum(array, dtype=dtype)

    def flatnonzero(self, mask):
        return self.xp.nonzero(mask)[0]

    def take(self, values, indices):
        return self.xp.take(values, indices)

    def repeat(self, values, counts):
        """``values[i]`` repeated ``counts[i]`` times, by a search of each output place among the running ends.

        Gathers only: CuPy's ``repeat`` takes no array of counts.
        """
        ends = self.cumsum(counts)
        total = int(ends[-1]) if ends.shape[0] else 0
        places = self.arange(total, dtype=ends.dtype)
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

    # Segments: runs of rows that start at ``starts`` (increasing) and end at the next start.
    def segment_sizes(self, starts, n_rows):
        if starts.shape[0] == 0:
            return starts
        return self.concat((starts[1:], self.asarray([n_rows], dtype=starts.dtype))) - starts

    def positions_in_segments(self, starts, n_rows):
        return self.arange(n_rows) - self.repeat(starts, self.segment_sizes(starts, n_rows))

    def running_count(self, mask):
        return self.cumsum(self.astype(mask, self.xp.int64))

    def counts_between(self, running, starts):
        before = self.concat((self.zeros(1, dtype=running.dtype), self.xp.take(running, starts[1:] - 1)))
        return self.concat((before[1:], running[-1:])) - before

    def segment_exclusive_cumsum(self, values, starts):
        """Sum of the (integer-valued) ``values`` before each one in its segment."""
        before = self.cumsum(values) - values
        return before - self.repeat(self.xp.take(before, starts), self.segment_sizes(starts, values.shape[0]))

    def segment_sum(self, values, starts):
        return self._segment_reduce(self.xp.sum, 0.0, values, starts)

    def segment_max(self, values, starts):
        return self._segment_reduce(self.xp.max, -np.inf, values, starts)

    def segment_prod(self, values, starts):
        return self._segment_reduce(self.xp.prod, 1.0, values, starts)

    def group_sum(self, values, groups, n_groups):
        """Sum of ``values`` over each group 0 .. n_groups - 1, for non-decreasing ``groups`` (empty groups: 0)."""
        starts = self.xp.searchsorted(groups, self.arange(n_groups, dtype=groups.dtype))
        return self.segment_sum(values, starts)

    def segment_exclusive_cumprod(self, values, starts):
        """Product of the values above each one in its segment (1 for a segment's first)."""
        return self._segment_scan(
            lambda padded: self.xp.cumulative_prod(padded, axis=1, include_initial=True)[:, :-1], 1.0, values, starts
        )

    def segment_suffix_max(self, values, starts):
        """Largest value at or after each one in its segment."""
        return self._segment_scan(self._suffix_max, -np.inf, values, starts)

    def _suffix_max(self, padded):
        # The standard has no running maximum: log2(width) steps, each the maximum with the rows
        # shifted by a doubling stride.
        xp, stride = self.xp, 1
        while stride < padded.shape[1]:
            beyond = xp.full((padded.shape[0], stride), -np.inf, dtype=padded.dtype, device=self.device)
            padded = xp.maximum(padded, xp.concat((padded[:, stride:], beyond), axis=1))
            stride *= 2
        return padded

    def _segment_scan(self, scan, identity, values, starts):
        """``scan`` (along the rows of a padded array) of the values of each segment, back in the values' order."""
        if values.shape[0] == 0:
            return values
        scanned, rows = [], []
        for _, inside, cells, padded in self._padded_classes(values, starts, identity):
            scanned.append(scan(padded)[inside])
            rows.append(cells[inside])
        # Back from the classes' order to the rows' (the cells inside are every row, once).
        return self.xp.take(self.concat(scanned), self.stable_argsort(self.concat(rows)))

    def _segment_reduce(self, reduce, identity, values, starts):
        if values.shape[0] == 0:
            return self.xp.full(starts.shape[0], identity, dtype=values.dtype, device=self.device)
        reduced, members_in_order = [], []
        for members, _, _, padded in self._padded_classes(values, starts, identity):
            reduced.append(reduce(padded, axis=1))
            members_in_order.append(members)
        return self.xp.take(self.concat(reduced), self.stable_argsort(self.concat(members_in_order)))

    def _padded_classes(self, values, starts, identity):
        """For each class of segments by size: its members, the mask of the cells of their padded array
        that hold a row, those cells' rows, and the padded array (``identity`` in the other cells)."""
        xp = self.xp
        sizes = self.segment_sizes(starts, values.shape[0])
        # The class c holds the sizes in (2**(c-1), 2**c]; its padded array is 2**c wide.
        classes = xp.astype(xp.ceil(xp.log2(self.as_float(xp.maximum(sizes, 1)))), xp.int64)
        for size_class in self.to_host(xp.unique_values(classes)).tolist():
            members = self.flatnonzero(classes == size_class)
            columns = self.arange(2**size_class)
            inside = columns < xp.take(sizes, members)[:, None]
            cells = xp.where(inside, xp.take(starts, members)[:, None] + columns, 0)
            padded = xp.reshape(xp.take(values, xp.reshape(cells, (-1,))), cells.shape)
            yield members, inside, cells, xp.where(inside, padded, identity)

    def weighted_mean(self, values, weights=None):
        if weights is None:
            return float(self.xp.mean(values))
        return float(self.xp.sum(values * weights) / self.xp.sum(weights))
