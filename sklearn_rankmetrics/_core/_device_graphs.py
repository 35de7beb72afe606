"""A metric call's device steps recorded once as CUDA graphs and replayed (PyTorch on a GPU).

A metric call on a device runs its steps around one read back to the host:
sorting the rows (the inputs to the arrays a ranking is built from, and the
facts the host reads), then measuring, once per metric (a report's several),
those arrays and the facts to the per-query values and the sums of their
mean. Each step's operations follow
from its Python inputs alone: the sort's from the inputs' shapes and dtypes
and the options, the measure's from the facts read and the metric and its
options. So when a call repeats them (a validation set scored again, one
ranking measured by several metrics, distinct scores drawn again), the host
need not launch a hundred operations again: the second call records each
step as a CUDA graph and later calls replay it, microseconds to launch
instead of milliseconds.

A recorded sort copies its inputs into buffers of its own; the measures
recorded after it read the sort's outputs in place. Each recording is
replayed once and checked against the step run as it is. A step seen to wait
for the device when it ran before recording (a read back to the host, an
operation whose size depends on the data) is never recorded: a capture it
would break can leave the device's memory pool behind. A step that cannot be
recorded for another reason, or whose replay differs, runs as it is from
then on. Graphs keep the memory of their operations: at most
``SORTS`` sorts and ``MEASURES`` measures for each are kept (least recently
used out), the measures of one sort sharing one pool, since they run one at a
time and each one's outputs are copied out of its graph as soon as it
replays (a small copy: per-query values and a few sums).
``RANKMETRICS_CUDA_GRAPHS=0`` (or ``false``, ``no``, ``off``) turns recording
off (:func:`recording_switched_on`). Every other namespace and device runs
the steps as they are.
"""

import contextlib
import os
import threading
from collections import OrderedDict

from ._array_api import library

SWITCH = "RANKMETRICS_CUDA_GRAPHS"
# The words RANKMETRICS_CUDA_GRAPHS may hold (any case, spaces around ignored).
SWITCHED_ON = ("1", "true", "yes", "on")
SWITCHED_OFF = ("0", "false", "no", "off")


def run_steps(inputs, sort, read, measures, conclude, *, keys=None):
    r"""``conclude([measure(rows, facts) for measure in measures])`` with ``rows = sort(*inputs)`` and ``facts =
    read(rows)``, the device steps replayed as CUDA graphs where they apply.

    ``read`` is the host's one read between the steps and returns the facts
    (a tuple of numbers) that fix the measures' operations with their metrics
    and options. The outputs of a replayed measure are copied out of its
    graph. ``keys`` is a pair of what
    else each step's Python code decides by: the sort's options (hashable),
    and for each measure its metric and options (hashable; None: that measure
    runs as it is). None: run every step as it is. Each step must build what
    it caches afresh (its array operations), so that a recording holds only
    what it made, its inputs and what it :func:`keep`\ s.
    """
    backend = None if keys is None else recorder_for(inputs)
    if backend is None:
        rows = sort(*inputs)
        facts = read(rows)
        return conclude([measure(rows, facts) for measure in measures])
    return GRAPHS.run(backend, inputs, (sort, read, measures, conclude), keys)


def options_key(metric, *options, params):
    """What a metric's device step decides by besides the facts (the metric, its options), hashable; None when
    an option is not a plain number, string or None (a function, an array), whose effect no key can tell."""
    described = []
    for name, value in [(None, option) for option in options] + sorted(params.items()):
        if value is not None and not isinstance(value, (bool, int, float, str)):
            return None
        described.append((name, type(value).__name__, repr(value)))  # repr: 1 and 1.0 and True apart, nan equal
    return (metric, *described)


def recorder_for(inputs):
    """A :class:`CudaGraphs` where every array among ``inputs`` is a PyTorch tensor on one CUDA device and
    recording is on; else None."""
    arrays = [array for array in inputs if array is not None]
    if not arrays or any(library(array) != "torch" for array in arrays):
        return None
    import torch

    device = arrays[0].device
    if device.type != "cuda" or any(array.device != device for array in arrays) or not recording_switched_on():
        return None
    if torch.cuda.is_current_stream_capturing():  # the caller records a graph of its own
        return None
    return CudaGraphs(torch, device)


def recording_switched_on():
    """Whether ``RANKMETRICS_CUDA_GRAPHS`` leaves recording on: unset or blank, or 1, true, yes, on (any case,
    spaces around ignored); 0, false, no, off turn it off. Anything else is refused, as the library's other
    variable, ``RANKMETRICS_NUM_THREADS``, refuses what it cannot read: a typo never leaves recording on silently.

    Read where it matters, for tensors on a CUDA device, at each call (so that a change of the environment
    takes effect at once).
    """
    text = os.environ.get(SWITCH, "").strip()
    if not text or text.lower() in SWITCHED_ON:
        return True
    if text.lower() in SWITCHED_OFF:
        return False
    raise ValueError(
        f"The environment variable {SWITCH} must be a boolean: {', '.join(SWITCHED_ON)} to record CUDA graphs, "
        f"{', '.join(SWITCHED_OFF)} not to (any case); got {text!r}."
    )


class CudaGraphs:
    """Recording and replaying on one of PyTorch's CUDA devices."""

    def __init__(self, torch, device):
        self.torch, self.device = torch, device

    def scope(self):
        stack = contextlib.ExitStack()
        stack.enter_context(self.torch.no_grad())
        stack.enter_context(self.torch.cuda.device(self.device))
        return stack

    def pool(self):
        return self.torch.cuda.graph_pool_handle()

    def buffers(self, inputs):
        """Arrays of the inputs' shapes and dtypes for a recording to read (None for None)."""
        like = self.torch.empty_like
        return [None if array is None else like(array, memory_format=self.torch.contiguous_format) for array in inputs]

    def watched(self, function, arguments):
        """``function(*arguments)`` run as it is, and whether it waited for the device (:func:`waiting_watch`)."""
        watch = waiting_watch(self.torch)
        with watch:
            outputs = function(*arguments)
        return outputs, watch.waited

    def record(self, function, arguments, pool=None):
        """``function(*arguments)``'s operations recorded as a CUDA graph (:class:`Recorded`, not run yet), or
        None where one cannot be recorded: it waits for the device, or copies from host memory."""
        torch = self.torch
        graph, stream = torch.cuda.CUDAGraph(), torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        KEPT.arrays = kept = []
        try:
            with torch.cuda.stream(stream):
                graph.capture_begin(pool=pool, capture_error_mode="thread_local")
                try:
                    outputs = function(*arguments)
                finally:
                    graph.capture_end()
        except Exception:  # any operation the graph refused: the step runs as it is
            return None
        finally:
            KEPT.arrays = None
            torch.cuda.current_stream().wait_stream(stream)
        return Recorded(graph, outputs, kept)

    def copied(self, outputs):
        """A step's outputs (tuples, lists and named tuples of them) with their arrays copied."""
        if isinstance(outputs, tuple) and hasattr(outputs, "_fields"):
            return type(outputs)(*map(self.copied, outputs))
        if isinstance(outputs, (tuple, list)):
            return type(outputs)(map(self.copied, outputs))
        return outputs.clone() if isinstance(outputs, self.torch.Tensor) else outputs

    def agree(self, found, expected):
        """Whether two steps' outputs hold the same arrays (NaN equal to NaN) and numbers."""
        found, expected = flattened(found), flattened(expected)
        if len(found) != len(expected):
            return False
        for a, b in zip(found, expected, strict=True):
            tensors = isinstance(a, self.torch.Tensor), isinstance(b, self.torch.Tensor)
            if any(tensors):
                same = all(tensors) and a.shape == b.shape and a.dtype == b.dtype
                same = same and bool(((a == b) | ((a != a) & (b != b))).all())
            else:
                same = callable(a) or a == b or (a != a and b != b)
            if not same:
                return False
        return True


# What waits for the device. PyTorch's functions that hand an array's values to the host (on the CPU no
# operator shows it); ATen's operators that read a number back (every bool(), float(), int(), item() and
# array given as a size or an index comes to the first), and those whose result's size depends on the data.
LEAVING_FUNCTIONS = {"cpu", "numpy", "tolist", "__array__", "__dlpack__"}
WAITING_OPERATORS = {
    *("_local_scalar_dense", "equal"),
    *("nonzero", "_unique", "_unique2", "unique_dim", "unique_consecutive", "masked_select", "bincount"),
}
WATCHES = {}


def waiting_watch(torch):
    """A context whose ``waited`` says whether what ran inside it waited for the device: one of
    :data:`LEAVING_FUNCTIONS` or :data:`WAITING_OPERATORS`, indexing by a mask, ``repeat_interleave`` by
    counts of no given total, or a copy between host memory and the device (a constant made of host data
    too).

    It watches ATen's operators, below the Python functions, so that what a function does inside (an array
    given as a size is read back) is seen too."""
    if torch not in WATCHES:
        from torch.overrides import TorchFunctionMode
        from torch.utils._python_dispatch import TorchDispatchMode

        class Functions(TorchFunctionMode):
            def __init__(self, watch):
                super().__init__()
                self.watch = watch

            def __torch_function__(self, function, types, args=(), kwargs=None):
                self.watch.waited |= getattr(function, "__name__", "") in LEAVING_FUNCTIONS
                return function(*args, **(kwargs or {}))

        class Operators(TorchDispatchMode):
            def __init__(self, watch):
                super().__init__()
                self.watch = watch

            def __torch_dispatch__(self, operator, types, args=(), kwargs=None):
                kwargs = kwargs or {}
                self.watch.waited |= waits(operator, args, kwargs)
                return operator(*args, **kwargs)

        def waits(operator, args, kwargs):
            name = operator._schema.name.split("::")[-1]
            if name in WAITING_OPERATORS:
                return True
            if name in ("index", "index_put", "index_put_"):  # a mask's places are found on the host
                return any(getattr(index, "dtype", None) in (torch.bool, torch.uint8) for index in args[1])
            if name == "repeat_interleave":  # its counts' total
                return operator._overloadname == "Tensor" and kwargs.get("output_size") is None
            if name in ("_to_copy", "copy_"):
                source, target = (args[1].device, args[0].device) if name == "copy_" else (args[0].device, None)
                target = torch.device(kwargs["device"]) if kwargs.get("device") is not None else target
                return target is not None and (source.type == "cpu") != (target.type == "cpu")
            if name in ("lift_fresh", "lift_fresh_copy"):  # a constant of host data on the device
                return args[0].device.type != "cpu"
            return False

        class Watch(contextlib.ExitStack):
            waited = False

            def __enter__(self):
                super().__enter__()
                self.enter_context(Functions(self))
                self.enter_context(Operators(self))
                return self

        WATCHES[torch] = Watch
    return WATCHES[torch]()


def flattened(value):
    """The arrays and numbers of a step's outputs (tuples, lists, dicts and objects' attributes), in order."""
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in flattened(item)]
    if isinstance(value, dict):
        return [leaf for key in sorted(value, key=str) for leaf in flattened(value[key])]
    if hasattr(value, "__dict__") and not callable(value) and not hasattr(value, "shape"):
        return flattened(vars(value))
    return [value]


class Recorded:
    """A step recorded as a graph: the graph, what the step returned when recorded, what it must keep alive, and
    the buffers each replay copies its inputs into (None: it reads its inputs in place)."""

    def __init__(self, graph, outputs, kept=(), buffers=None):
        self.graph, self.outputs, self.kept, self.buffers = graph, outputs, kept, buffers

    def replay(self, inputs=()):
        if self.buffers is not None:
            fill(self.buffers, inputs)
        self.graph.replay()
        return self.outputs


def fill(buffers, inputs):
    """Copy each input into its buffer (None: no input there); returns the buffers."""
    for buffer, array in zip(buffers, inputs, strict=True):
        if buffer is not None:
            buffer.copy_(array)
    return buffers


class Sort:
    """A sort seen before: its recording (once made), whether it failed, its measures and their pool."""

    def __init__(self):
        self.recorded = self.pool = None
        self.failed = False
        self.measures = OrderedDict()


FAILED = object()  # a measure that could not be recorded, or whose replay differed: it runs as it is


class Graphs:
    """The recorded steps of this process, looked up by what fixes their operations (least recently used out)."""

    SORTS, MEASURES, SEEN = 2, 32, 256

    def __init__(self):
        self.lock = threading.Lock()
        self.sorts = OrderedDict()
        self.seen = OrderedDict()  # measures run once: by the sort's signature, the measure's key and the facts

    def run(self, backend, inputs, steps, keys):
        sort, read, measures, conclude = steps
        sort_key, measure_keys = keys
        signature = (sort_key, *(describe(array) for array in inputs))
        with self.lock, backend.scope():
            entry = recall(self.sorts, signature)
            if entry is None:  # first sight
                entry = store(self.sorts, signature, Sort(), self.SORTS)
                rows = sort(*inputs)
            elif entry.recorded is not None:
                rows = entry.recorded.replay(inputs)
            elif entry.failed:
                rows = sort(*inputs)
            else:
                rows = self.record_sort(backend, entry, sort, inputs)
            facts = read(rows)
            return conclude(
                [
                    self.measure(backend, entry, (signature, key, facts), measure, rows)
                    for measure, key in zip(measures, measure_keys, strict=True)
                ]
            )

    def record_sort(self, backend, entry, sort, inputs):
        rows, waited = backend.watched(sort, inputs)  # as it is, to check the replay against
        buffers = None if waited else fill(backend.buffers(inputs), inputs)
        recorded = None if waited else backend.record(sort, buffers)
        if recorded is not None:
            recorded.buffers = buffers
            if backend.agree(recorded.replay(inputs), rows):
                entry.recorded, entry.pool = recorded, backend.pool()
                return recorded.outputs
        entry.failed = True  # from now on these inputs' sort runs as it is
        return rows

    def measure(self, backend, entry, seen, measure, rows):
        """``measure(rows, facts)``: replayed, recorded at its second sight on a recorded sort's rows, or run.

        ``seen`` is the sort's signature, the measure's key and the facts.
        """
        _, measure_key, facts = seen
        if measure_key is None:  # what it decides by cannot be told: it runs as it is
            return measure(rows, facts)
        key = seen[1:]
        on_graph = entry.recorded is not None  # only a recorded sort's rows stay where a recording reads them
        recorded = recall(entry.measures, key) if on_graph else None
        if recorded is not None and recorded is not FAILED:
            # Copies: the next replay of a measure that shares its pool may overwrite the graph's arrays.
            return backend.copied(recorded.replay())
        if on_graph and recorded is None and seen in self.seen:  # its second sight: record it, unless it waits
            outputs, waited = backend.watched(measure, (rows, facts))
            recorded = None if waited else backend.record(measure, (rows, facts), pool=entry.pool)
            agrees = recorded is not None and backend.agree(recorded.replay(), outputs)
            store(entry.measures, key, recorded if agrees else FAILED, self.MEASURES)
        else:
            outputs = measure(rows, facts)
        store(self.seen, seen, None, self.SEEN)
        return outputs


def recall(table, key):
    """``table[key]`` (None if absent), made the most recently used."""
    if key not in table:
        return None
    table.move_to_end(key)
    return table[key]


def store(table, key, value, capacity):
    """``table[key] = value``, the most recently used; the least recently used beyond ``capacity`` go. Returns
    ``value``."""
    table[key] = value
    table.move_to_end(key)
    while len(table) > capacity:
        table.popitem(last=False)
    return value


def describe(array):
    """What of an input fixes the operations on it: its shape, dtype and device (None for None)."""
    return None if array is None else (tuple(array.shape), array.dtype, str(array.device))


KEPT = threading.local()


def keep(array):
    """``array``, made outside the step being recorded (a table kept between calls), kept alive by the recording."""
    kept = getattr(KEPT, "arrays", None)
    if kept is not None:
        kept.append(array)
    return array


GRAPHS = Graphs()
