"""The operations of the metric kernels in an Array API namespace (PyTorch, CuPy, JAX), on the arrays' device."""

import math
import threading
from collections import namedtuple

import numpy as np

from ._array_api import array_api_compat, is_foreign, to_numpy
from ._device_graphs import keep
from ._ranking import numpy_mean_without_nan
from ._segment_layout import SegmentLayout


class ArrayApiOps:
    """The kernels' array operations (see :class:`~sklearn_rankmetrics._core._numpy_ops.NumpyOps`) in a namespace.

    Everything stays in ``xp`` on ``device``, and nothing waits for the
    device unless a value must reach the host: every shape is known on the
    host, so no operation has a data-dependent size, and the few facts the
    host needs (the inputs' validity, the number of queries and tie blocks,
    the longest query, the mean) come back together, each batch in one copy
    (:meth:`read`). Checks that raise (:meth:`check`) wait for the next read.

    Segments (queries, tie blocks, the blocks of each query) are laid out
    once per ranking on padded cells (:class:`SegmentLayout`: a grid where
    that pads little, else runs a power of two long, aligned), so that sums,
    maxima, products and scans treat every segment at once, and a sum
    carries no rounding from other segments, as with numpy's ``reduceat``.
    Counts, and sums of whole numbers, come from differences of running sums,
    exact for them.
    """

    compacts = False  # subsets of rows stay masked rows: a compacted subset's size is data-dependent

    def __init__(self, xp, device):
        self.xp, self.device, self.bool = Namespace(xp), device, xp.bool
        self.float64 = xp.float64 if has_float64(xp, device) else xp.float32  # Apple's MPS has no float64
        self.layouts, self.groups, self.pending, self.constants = {}, {}, [], {}
        self.label_top = self.labels_whole = None  # the ranking's labels: largest, all whole numbers
        # Running counts of booleans in one operation where the namespace sums them into integers
        # (array-api-strict keeps to the standard: numeric arrays only).
        self.sums_booleans = not array_api_compat().is_array_api_strict_namespace(xp)

    # Creation and conversion.
    def asarray(self, values, dtype=None):
        if dtype is None and isinstance(values, np.ndarray) and values.dtype.kind == "f":
            dtype = self.float64
        if dtype is not None and is_foreign(values) and array_api_compat().array_namespace(values) is self.xp._xp:
            # An array of the namespace already: cast (PyTorch's asarray warns of a tensor that requires grad).
            return self.xp.astype(values, dtype, copy=False, device=self.device)
        return self.xp.asarray(values, dtype=dtype, device=self.device)

    def table(self, values):
        """A small table computed on the host (float64) on the device, copied there once per content and device.

        Kept between calls (``TABLES``, least recently used out), so that a
        step recorded as a CUDA graph finds it there, and kept alive by the
        graphs that read it (:func:`~._device_graphs.keep`).
        """
        key = (self.xp.__name__, str(self.device), values.tobytes())
        with TABLES_LOCK:
            found = TABLES.pop(key, None)
            if found is None:
                found = self.asarray(values)
            TABLES[key] = found  # the most recently used
            if len(TABLES) > 64:
                del TABLES[next(iter(TABLES))]
        return keep(found)

    def to_host(self, array):
        return to_numpy(array)

    def read(self, *scalars):
        """The values of 0-d arrays (and numbers), in one copy to the host; then the pending checks raise."""
        return self.fetch(self.stage(*scalars))

    def stage(self, *scalars):
        """What :meth:`read` copies to the host, joined on the device with the pending checks (which then wait on
        :meth:`fetch`): nothing here waits for the device."""
        checks, self.pending = self.pending, []
        on_device = [value for value in scalars if hasattr(value, "shape")] + [failed for failed, _ in checks]
        joined, places = self.stacked(on_device) if on_device else (None, [])
        numbers = tuple(ON_DEVICE if hasattr(value, "shape") else value for value in scalars)
        return Staged(numbers, [error for _, error in checks], joined, places)

    def fetch(self, *staged):
        """The values of the scalars of :meth:`stage` (of each staging, one after another), in one copy to the
        host; then their checks raise."""
        joined = [part.joined for part in staged if part.joined is not None]
        copied = iter(
            self.to_host(joined[0] if len(joined) == 1 else self.xp.concat(joined)).tolist() if joined else []
        )
        scalars, failed = [], []
        for part in staged:
            by_place = dict(zip(part.places, [next(copied) for _ in part.places], strict=True))
            ordered = iter([by_place[place] for place in range(len(part.places))])
            scalars += [next(ordered) if value is ON_DEVICE else value for value in part.numbers]
            failed += [error for error, fails in zip(part.errors, ordered, strict=True) if fails]
        if failed:
            raise failed[0]()
        return scalars

    def stacked(self, scalars):
        """0-d arrays as one float64 array, those of a dtype together and cast once, and the place of each."""
        xp, by_dtype = self.xp, {}
        for place, value in enumerate(scalars):
            by_dtype.setdefault(value.dtype, []).append(place)
        parts, places = [], []
        for dtype, members in by_dtype.items():
            values = [xp.reshape(scalars[place], (1,)) for place in members]
            part = values[0] if len(values) == 1 else xp.concat(values)
            parts.append(part if dtype == self.float64 else self.as_float(part))
            places += members
        return (parts[0] if len(parts) == 1 else xp.concat(parts)), places

    def check(self, failed, error):
        """Raise ``error()`` if the 0-d boolean ``failed`` holds, at the next :meth:`read` (or :meth:`flush`)."""
        self.pending.append((failed, error))

    def flush(self):
        """Read the pending checks (one copy) and raise if one failed."""
        if self.pending:
            self.read()

    def constant(self, value, dtype):
        """A 1-element array of ``value``, made once per call (for joining to others)."""
        key = (value, dtype)
        if key not in self.constants:
            self.constants[key] = self.xp.full(1, value, dtype=dtype, device=self.device)
        return self.constants[key]

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

    def cumsum(self, array, dtype=None, axis=None):
        return self.xp.cumulative_sum(array, dtype=dtype, axis=axis)

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
        """As :func:`~sklearn_rankmetrics._core._numpy_ops.rank_order`, with one stable sort per key, last key first."""
        order, codes, scores = self.sort_rows(codes, y_score, ties=ties, y_true=y_true)
        return order, codes, self.differs_from_previous(scores)

    def sort_rows(self, codes, y_score, *, ties="average", y_true=None):
        """The order of :meth:`rank_order`, and the codes and the scores in that order."""
        take = self.xp.take
        if ties in ("pessimistic", "optimistic"):
            order = self.stable_argsort(y_true, descending=ties == "optimistic")
            order = take(order, self.stable_argsort(take(y_score, order), descending=True))
        else:
            order = self.stable_argsort(y_score, descending=True)
        by_score = take(codes, order)
        within = self.stable_argsort(by_score)
        order = take(order, within)
        return order, take(by_score, within), take(y_score, order)

    # Segments: runs of values that start at ``starts`` (increasing) and end at the next start.
    def register(self, starts, n_values, longest, segment_of=None, *, bounds=None, sizes=None, given=False):
        """Declare the segments of ``n_values`` values that begin at ``starts``: none is longer than ``longest``.

        ``segment_of`` (the segment of each value, or a function that gives
        it) saves a search, ``bounds`` (``starts`` then ``n_values``) a join
        and ``sizes`` (their differences: only the first entries are read) a
        subtraction. The segment of each value numbers the groups of
        :meth:`group_sum`. With ``given``, the values are the rows of a padded
        matrix, flattened: every segment is ``longest`` values (see
        :class:`SegmentLayout`). Returns ``starts``.
        """
        layout = SegmentLayout(self, starts, n_values, longest, segment_of, given=given)
        if bounds is not None:
            layout.bounds = bounds
        if sizes is not None:
            layout.sizes = sizes[: starts.shape[0]]
        self.layouts[id(starts)] = layout
        return starts

    def register_groups(self, groups, starts):
        """Declare that ``groups`` (non-decreasing) numbers the segments of registered ``starts``."""
        self.groups[id(groups)] = (groups, starts)

    def layout(self, starts, n_values):
        """The :class:`SegmentLayout` of registered ``starts``; others get one bounded by ``n_values`` alone."""
        layout = self.layouts.get(id(starts))
        if layout is None or layout.starts is not starts or layout.n_values != n_values:
            layout = self.layouts[id(starts)] = SegmentLayout(self, starts, n_values, max(n_values, 1))
        return layout

    def segment_sizes(self, starts, n_rows):
        return self.layout(starts, n_rows).sizes

    def segment_of(self, starts, n_values):
        """The segment of each of the values (which then numbers the groups of :meth:`group_sum`)."""
        segment = self.layout(starts, n_values).segment_of
        self.groups.setdefault(id(segment), (segment, starts))
        return segment

    def positions_in_segments(self, starts, n_rows):
        return self.arange(n_rows) - self.xp.take(starts, self.segment_of(starts, n_rows))

    def running_count(self, mask):
        if self.sums_booleans:
            return self.xp.cumulative_sum(mask, dtype=self.xp.int64)
        return self.cumsum(self.astype(mask, self.xp.int64))

    def run_starts(self, number):
        """The index of the first element of each element's run (``number``: the running count of the starts)."""
        return self.xp.searchsorted(number, number)

    def segment_counts(self, mask, *starts):
        """The number of True values of ``mask`` in each segment, for each of the registered ``starts`` (a list).

        From one running count that starts at 0 before the first value: each
        segment's count is its rise between the segment's bounds.
        """
        xp = self.xp
        if mask.ndim == 1:
            return [at[1:] - at[:-1] for at in self.running_at_bounds(mask, *starts)]
        # Segments along the rows of a matrix: one running count over the rows end to end (a scan of a
        # matrix along its rows is slow on PyTorch's GPUs when the rows are long), each row after a 0.
        n_rows, n_values = mask.shape
        ahead = xp.zeros((n_rows, 1), dtype=self.bool, device=self.device)
        running = self.running_count(xp.reshape(xp.concat((ahead, mask), axis=1), (-1,)))
        row_start = self.arange(0, n_rows * (n_values + 1), n_values + 1)[:, None]
        counts = []
        for segment_starts in starts:
            bounds = self.layout(segment_starts, n_values).bounds
            at = xp.take(running, xp.reshape(row_start + bounds, (-1,)))
            at = xp.reshape(at, (n_rows, bounds.shape[0]))  # no row at all: no -1 to infer
            counts.append(at[:, 1:] - at[:, :-1])
        return counts

    def running_at_bounds(self, mask, *starts):
        """For each of the registered ``starts``, the number of True values of ``mask`` before each segment's
        bounds (its start, then the end of the last segment)."""
        running = self.running_count(self.concat((self.constant(False, self.bool), mask)))
        return [self.xp.take(running, self.layout(segment_starts, mask.shape[0]).bounds) for segment_starts in starts]

    def rise_between_bounds(self, running, starts):
        at = self.xp.take(running, self.layout(starts, running.shape[0] - 1).bounds)
        return at[1:] - at[:-1]

    def counts_between(self, running, starts):
        # The running total at each segment's last value, less the one at the previous segment's.
        at_end = self.xp.take(running, self.layout(starts, running.shape[0]).last)
        return at_end - self.concat((self.constant(0, running.dtype), at_end[:-1]))

    def segment_exclusive_cumsum(self, values, starts):
        """Sum of the (integer-valued) ``values`` before each one in its segment."""
        before = self.cumsum(values) - values
        return before - self.xp.take(self.xp.take(before, starts), self.segment_of(starts, values.shape[0]))

    def segment_sum(self, values, starts, whole=False, within=None):
        """Sum of the values of each segment.

        ``whole``: the values are whole numbers whose total is below 2**53, so
        that differences of one running sum are exact. ``within``: only the
        first ``within`` values of each segment can be other than 0.
        """
        if whole:
            return self.rise_between_bounds(self.cumsum(self.concat((self.constant(0, values.dtype), values))), starts)
        return self.layout(starts, values.shape[0]).leading(within).reduce(values, self.xp.sum, 0.0)

    def segment_max(self, values, starts):
        return self.layout(starts, values.shape[0]).reduce(values, self.xp.max, -np.inf)

    def segment_prod(self, values, starts):
        return self.layout(starts, values.shape[0]).reduce(values, self.xp.prod, 1.0)

    def group_sum(self, values, groups, n_groups, within=None):
        """Sum of ``values`` over each group 0 .. n_groups - 1, for non-decreasing ``groups`` (empty groups: 0).

        ``within``: only the first ``within`` values of each group can be other than 0.
        """
        registered = self.groups.get(id(groups))
        if registered is not None and registered[0] is groups:
            return self.segment_sum(values, registered[1], within=within)
        starts = self.xp.searchsorted(groups, self.arange(n_groups, dtype=groups.dtype))
        return self.segment_sum(values, starts)

    def segment_exclusive_cumprod(self, values, starts, within=None):
        """Product of the values above each one in its segment (1 for a segment's first).

        ``within``: only the products at the first ``within`` values of each segment are wanted.
        """
        return self.layout(starts, values.shape[0]).leading(within).exclusive_cumprod(values)

    def segment_sum_after_products(self, values, factors, starts, within=None):
        """Sum over each segment of each value times the product of the ``factors`` above it in the segment.

        On a grid, the products and the sum stay on the grid's rows. ``within``:
        only the first ``within`` values of each segment count.
        """
        layout = self.layout(starts, values.shape[0]).leading(within)
        if layout.empty or not layout.grid:
            reach = self.segment_exclusive_cumprod(factors, starts, within=within)
            return self.segment_sum(reach * values, starts, within=within)
        xp = self.xp
        reach = xp.cumulative_prod(xp.reshape(layout.padded(factors, 1.0), layout.shape)[:, :-1], axis=1)
        cells = xp.reshape(layout.padded(values, 0.0), layout.shape)
        return cells[:, 0] + xp.sum(cells[:, 1:] * reach, axis=1)

    def segment_suffix_max(self, values, starts):
        """Largest value at or after each one in its segment."""
        return self.layout(starts, values.shape[0]).suffix_max(values)

    def first_true_from(self, mask, starts):
        """Index of the first True of ``mask`` at or after each start (``mask``'s length where none is)."""
        running = self.running_count(mask)
        before = self.concat((self.zeros(1, dtype=running.dtype), running[:-1]))
        return self.xp.searchsorted(running, self.xp.take(before, starts) + 1)

    def weighted_means(self, columns, weights=None):
        """The weighted mean of each array's values that are not NaN, with whether any value enters it, in one read.

        Returns a list of ``(mean, entered)`` pairs (``entered`` is False where
        no value, or only zero weights, enter the mean).
        """
        return self.means_of_sums(self.read(*self.weighted_sums(columns, weights)), columns, weights)

    def weighted_sums(self, columns, weights=None):
        """Each array's sum (of its values times the weights) and the total weight, for :meth:`means_of_sums`."""
        xp = self.xp
        if weights is None:
            return [xp.sum(values) for values in columns] + [float(columns[0].shape[0]) if columns else 0.0]
        return [xp.sum(values * weights) for values in columns] + [xp.sum(weights)]

    def means_of_sums(self, found, columns, weights):
        """:meth:`weighted_means` from the values of :meth:`weighted_sums` read back.

        A sum is NaN only where some value is (the values are never -inf):
        only those columns are summed again without their NaN (one more read).
        """
        sums, total = found[:-1], found[-1]
        if not 2.0**-900 < total < math.inf or not all(math.isfinite(value) or math.isnan(value) for value in sums):
            # Sums that overflowed, or weights too large or too small for plain sums: numpy's scaled mean.
            weights = None if weights is None else self.to_host(weights)
            return [numpy_mean_without_nan(self.to_host(values), weights) for values in columns]
        means = [(value / total if total > 0 else math.nan, total > 0) for value in sums]
        with_nan = [column for column, value in enumerate(sums) if math.isnan(value)]
        without_nan = self.means_without_nan([columns[column] for column in with_nan], weights)
        for column, found_mean in zip(with_nan, without_nan, strict=True):
            means[column] = found_mean
        return means

    def means_without_nan(self, columns, weights):
        """The weighted mean of each array's values that are not NaN, and whether any enters it (one read)."""
        if not columns:
            return []
        xp, scalars = self.xp, []
        for values in columns:
            kept = ~xp.isnan(values)
            weight = self.as_float(kept) if weights is None else xp.where(kept, weights, 0.0)
            total = xp.sum(weight)
            scalars += [xp.sum(xp.where(kept, values, 0.0) * weight) / total, total > 0]
        found = self.read(*scalars)
        return [(mean, bool(flag)) for mean, flag in zip(found[::2], found[1::2], strict=True)]


class Staged(namedtuple("Staged", ["numbers", "errors", "joined", "places"])):
    """Scalars and checks staged for one copy to the host (:meth:`ArrayApiOps.stage`): the numbers given
    (:data:`ON_DEVICE` for each 0-d array), the errors of the pending checks, the arrays and the checks' results
    joined on the device, and where each lies in the joined array. Its one array is ``joined``."""


ON_DEVICE = object()  # a staged scalar that is a 0-d array, read with the joined array


TABLES, TABLES_LOCK = {}, threading.Lock()


def has_float64(xp, device):
    """Whether arrays of ``xp`` on ``device`` can hold float64 (tried once per device)."""
    try:
        return FLOAT64[xp, device]
    except KeyError:
        FLOAT64[xp, device] = found = makes_float64(xp, device)
        return found
    except TypeError:  # a device that is no dict key: tried each time
        return makes_float64(xp, device)


FLOAT64 = {}


def makes_float64(xp, device):
    try:
        xp.zeros(1, dtype=xp.float64, device=device)
    except (TypeError, ValueError, RuntimeError):
        return False
    return True


class Namespace:
    """An Array API namespace, with the operations the kernels call most taken straight from PyTorch.

    array-api-compat's wrappers for PyTorch add work there: ``take`` makes
    three more kernels to allow negative indices (the kernels' never are),
    and the older wrapper that scikit-learn vendors refuses Python numbers in
    ``minimum`` and ``maximum`` (making a tensor of one costs a copy to the
    device). Other namespaces take numbers as they are.
    """

    def __init__(self, xp):
        self._xp = xp
        compat = array_api_compat()
        if compat is not None and compat.is_torch_namespace(xp):
            import torch

            self.take = lambda x, indices, /, *, axis=0: torch.index_select(x, axis, indices)
            self.where = torch_where
            self.minimum = lambda x1, x2, /: torch_bound(torch.minimum, "max", x1, x2)
            self.maximum = lambda x1, x2, /: torch_bound(torch.maximum, "min", x1, x2)

    def __getattr__(self, name):
        value = getattr(self._xp, name)
        setattr(self, name, value)  # looked up once
        return value


def torch_where(condition, x1, x2, /):
    """``torch.where``, which takes Python numbers without a copy, as the standard promotes them."""
    import torch

    def floats_meet_integers(number, tensor):
        return isinstance(number, float) and not tensor.dtype.is_floating_point

    if floats_meet_integers(x1, x2) or floats_meet_integers(x2, x1):
        x1, x2 = (value.to(torch.float64) if hasattr(value, "shape") else value for value in (x1, x2))
    return torch.where(condition, x1, x2)


def torch_bound(function, side, x1, x2):
    """``torch.minimum`` or ``maximum`` of tensors, ``torch.clamp`` of a tensor and a Python number."""
    import torch

    if hasattr(x1, "shape") and hasattr(x2, "shape"):
        return function(x1, x2)
    tensor, number = (x1, x2) if hasattr(x1, "shape") else (x2, x1)
    if isinstance(number, float) and not tensor.dtype.is_floating_point:
        tensor = tensor.to(torch.float64)
    return torch.clamp(tensor, **{side: number})
