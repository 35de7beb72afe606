"""CUDA graphs of a metric call's device steps: replays equal numpy on new data of the same shapes and facts.

No GPU is needed: PyTorch CPU tensors go through the device kernels, and an emulated recorder stands for
CUDA graphs with their rules. Recording runs the step once and keeps each operation; a replay runs the
operations again on the same arrays and writes each result into the array the recording made (a graph's
fixed addresses). Like a graph, the recorder refuses operations that wait for the device and reads back
to the host, and it fails a step that reads an array made outside it which nothing keeps alive (a graph
would read freed memory).
"""

import functools
import re
import threading
import warnings
from collections import OrderedDict

import numpy as np
import pytest
import sklearn

from sklearn_rankmetrics import ranking_report
from sklearn_rankmetrics._core import _array_api, _device_graphs
from sklearn_rankmetrics._core._device_graphs import (
    KEPT,
    CudaGraphs,
    Recorded,
    flattened,
    options_key,
    recall,
    store,
)
from sklearn_rankmetrics.registry._registry import METRICS


def test_options_that_no_key_can_tell_apart_run_as_they_are():
    assert options_key(len, True, 0.0, params={"k": 10, "gain": "linear", "p": None}) is not None
    assert options_key(len, True, 0.0, params={"discount": lambda ranks: ranks}) is None
    assert options_key(len, True, 0.0, params={"recall_levels": (0.0, 1.0)}) is None
    keys = {options_key(len, True, value, params={}) for value in (1, 1.0, True)}  # told apart
    assert len(keys) == 3
    assert options_key(len, True, float("nan"), params={}) == options_key(len, True, np.nan, params={})


def test_the_tables_keep_the_most_recently_used():
    table = OrderedDict()
    for key in "abc":
        store(table, key, key.upper(), capacity=2)
    assert list(table) == ["b", "c"]
    assert recall(table, "b") == "B" and list(table) == ["c", "b"]
    assert recall(table, "a") is None


def test_without_a_gpu_the_steps_run_as_they_are():
    calls = []

    def sort(a, b):
        calls.append("sort")
        return a + b

    def read(rows):
        calls.append("read")
        return (rows,)

    def measure(rows, facts):
        calls.append("measure")
        return rows * 2, facts

    found = _device_graphs.run_steps((1, 2), sort, read, [measure], lambda out: out, keys=(("x",), [("y",)]))
    assert found == [(6, (3,))] and calls == ["sort", "read", "measure"]


# The emulated recorder.
HOST_READS = {"__bool__", "__int__", "__float__", "__index__", "item", "tolist", "numpy", "__array__", "cpu"}
WAITS = {"_local_scalar_dense", "nonzero", "unique", "_unique2", "unique_consecutive", "masked_select"}


def storage(tensor):
    return tensor.untyped_storage().data_ptr()


def tensors_in(value, torch):
    return [leaf for leaf in flattened(value) if isinstance(leaf, torch.Tensor)]


class Tape:
    """A recording's operations, replayed in order into the arrays the recording made."""

    replaying = False

    def __init__(self, operations, torch):
        self.operations, self.torch = operations, torch

    def replay(self):
        Tape.replaying = True
        try:
            for function, args, kwargs, out in self.operations:
                fresh = function(*args, **kwargs)
                if any(result.alias_info is not None for result in function._schema.returns):
                    continue  # a view (or an operation in place): it already shows the new values
                for old, new in zip(tensors_in(out, self.torch), tensors_in(fresh, self.torch), strict=True):
                    old.copy_(new)
        finally:
            Tape.replaying = False


def emulated(torch):
    from torch.overrides import TorchFunctionMode
    from torch.utils._python_dispatch import TorchDispatchMode

    class Refusing(TorchFunctionMode):
        def __torch_function__(self, function, types, args=(), kwargs=None):
            if getattr(function, "__name__", "") in HOST_READS:
                raise RuntimeError("operation not permitted when stream is capturing")
            return function(*args, **(kwargs or {}))

    class Recording(TorchDispatchMode):
        def __init__(self, given):
            super().__init__()
            self.operations, self.made, self.given, self.outside = [], set(), given, []

        def __torch_dispatch__(self, function, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if function._schema.name.split("::")[-1] in WAITS:
                raise RuntimeError("operation not permitted when stream is capturing")
            for tensor in tensors_in((args, kwargs), torch):
                if tensor.numel() and storage(tensor) not in self.made | self.given:
                    self.outside.append(tensor)
            out = function(*args, **kwargs)
            self.made.update(storage(tensor) for tensor in tensors_in(out, torch))
            self.operations.append((function, args, kwargs, out))
            return out

    class Emulated(CudaGraphs):
        def __init__(self):
            super().__init__(torch, None)

        def scope(self):
            return torch.no_grad()

        def pool(self):
            return None

        def record(self, function, arguments, pool=None):
            recording = Recording({storage(tensor) for tensor in tensors_in(arguments, torch)})
            KEPT.arrays = kept = []
            try:
                with Refusing(), recording:
                    outputs = function(*arguments)
            except RuntimeError as error:
                if "capturing" not in str(error):
                    raise
                return None
            finally:
                KEPT.arrays = None
            kept_storages = {storage(tensor) for tensor in kept}
            outside = [tensor for tensor in recording.outside if storage(tensor) not in kept_storages]
            assert not outside, f"the step reads {len(outside)} arrays made outside it that nothing keeps alive"
            return Recorded(Tape(recording.operations, torch), outputs, kept)

    return Emulated()


@pytest.fixture
def recorder(monkeypatch):
    """Record CPU tensors' steps with the emulated recorder (tensors through the device kernels); the replays
    of measures are counted."""
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(_array_api, "in_host_memory", lambda values: False)
    backend = emulated(torch)
    monkeypatch.setattr(
        _device_graphs,
        "recorder_for",
        lambda inputs: backend if _device_graphs.recording_switched_on() else None,
    )
    monkeypatch.setattr(_device_graphs, "GRAPHS", _device_graphs.Graphs())
    replayed = []
    replay = Recorded.replay

    def counting(self, inputs=()):
        replayed.append("sort" if self.buffers is not None else "measure")
        return replay(self, inputs)

    monkeypatch.setattr(Recorded, "replay", counting)
    return torch, replayed


def grouped(seed, n_queries=60, tied=False):
    """Rows whose facts are the same in every draw: query sizes, the largest label, and (distinct scores) the
    tie blocks."""
    rng = np.random.default_rng(seed)
    sizes = np.full(n_queries, 12)
    sizes[::7] = 20
    qid = np.repeat(np.arange(n_queries) * 3 + 5, sizes)
    y_true = rng.integers(0, 4, qid.size).astype(float)
    y_true[::25] = 4.0
    y_true[: sizes[0]] = 0.0  # a query without a relevant document
    y_score = rng.integers(0, 6, qid.size).astype(float) if tied else rng.permutation(qid.size) / qid.size
    return y_true, y_score, qid


# Every metric of the registry goes through the two steps.
STEPPED = sorted(METRICS)
OPTIONS = {
    "mean": {},
    "per query": {"average": False},
    "k=5": {"k": 5},
    "weighted": {"sample_weight": True},
    "zero_division=nan": {"zero_division": np.nan},
}


@pytest.mark.parametrize("name", sorted(METRICS))
@pytest.mark.parametrize("options", list(OPTIONS.values()), ids=list(OPTIONS))
def test_replayed_metrics_equal_numpy_on_new_data_of_the_same_facts(recorder, name, options):
    torch, replayed = recorder
    options = dict(options)
    if name == "bpref" and "k" in options:
        pytest.skip("bpref has no cutoff")
    weighted = options.pop("sample_weight", False)
    metric = METRICS[name]
    for seed in range(4):
        y_true, y_score, qid = grouped(seed)
        weight = (qid % 3 + 1.0) if weighted else None
        expected = metric(y_true, y_score, qid=qid, sample_weight=weight, **options)
        tensors = [None if array is None else torch.as_tensor(array) for array in (y_true, y_score, qid, weight)]
        with sklearn.config_context(array_api_dispatch=True):
            found = metric(tensors[0], tensors[1], qid=tensors[2], sample_weight=tensors[3], **options)
        if options.get("average", True):
            assert found == pytest.approx(expected, rel=1e-12, abs=1e-15, nan_ok=True), seed
        else:
            np.testing.assert_allclose(found.numpy(), expected, rtol=1e-12, atol=1e-15, err_msg=str(seed))
    if name in STEPPED:  # the third and fourth calls replay both steps
        assert replayed.count("sort") >= 3 and replayed.count("measure") >= 2, replayed


def test_new_facts_are_new_graphs_and_every_value_stays_exact(recorder):
    torch, replayed = recorder
    metric = functools.partial(METRICS["ndcg"], k=10)
    for seed in range(6):  # tied scores: the tie blocks, so the facts, change from draw to draw
        y_true, y_score, qid = grouped(seed % 3, tied=True)
        tensors = [torch.as_tensor(array) for array in (y_true, y_score, qid)]
        with sklearn.config_context(array_api_dispatch=True):
            found = metric(tensors[0], tensors[1], qid=tensors[2])
        assert found == pytest.approx(metric(y_true, y_score, qid=qid), rel=1e-12)
    assert replayed.count("measure") == 3  # the second round of the three draws (recorded at the first)


def test_a_step_that_waits_for_the_device_runs_as_it_is_and_no_recording_is_tried(recorder, monkeypatch):
    torch, replayed = recorder
    backend, tried = _device_graphs.recorder_for(()), []
    record = backend.record

    def counted(function, arguments, pool=None):
        tried.append(function)
        return record(function, arguments, pool)

    monkeypatch.setattr(backend, "record", counted)
    metric = functools.partial(METRICS["err"], k=5)  # ERR reads its tie blocks above k back: no recording
    for _ in range(4):
        y_true, y_score, qid = grouped(0, tied=True)
        tensors = [torch.as_tensor(array) for array in (y_true, y_score, qid)]
        with sklearn.config_context(array_api_dispatch=True):
            found = metric(tensors[0], tensors[1], qid=tensors[2])
        assert found == pytest.approx(metric(y_true, y_score, qid=qid), rel=1e-12)
    assert replayed.count("measure") == 0 and replayed.count("sort") >= 2
    entry = next(iter(_device_graphs.GRAPHS.sorts.values()))
    assert list(entry.measures.values()) == [_device_graphs.FAILED]
    assert len(tried) == 1  # the sort's: the measure was seen to read back before recording, so none was tried


WAITS_OR_NOT = {
    "a read back": (True, lambda torch, x: float(x.sum())),
    "a data-dependent size": (True, lambda torch, x: x.nonzero()),
    "a mask": (True, lambda torch, x: x[x > 1]),
    "counts in an array": (True, lambda torch, x: x.repeat_interleave(x)),
    "counts alone": (True, lambda torch, x: torch.repeat_interleave(x)),
    "a condition alone": (True, lambda torch, x: torch.where(x > 1)),
    "a comparison": (True, lambda torch, x: torch.equal(x, x)),
    "a size in an array": (True, lambda torch, x: torch.arange(x.sum())),
    "a slice's end in an array": (True, lambda torch, x: x[: x[1]]),
    "a copy to the host": (True, lambda torch, x: x.cpu().numpy()),
    "a mask set": (True, lambda torch, x: x.clone().__setitem__(x > 1, 0)),  # to a number: maybe not (cautious)
    "an index in an array": (True, lambda torch, x: x[x[1]]),
    "array operations": (False, lambda torch, x: (x * 2).cumsum(0)[x.argsort()] + torch.where(x > 1, x, 0)),
    "counts of a given total": (False, lambda torch, x: x.repeat_interleave(x, output_size=3)),
}


@pytest.mark.parametrize("name", list(WAITS_OR_NOT))
def test_the_watch_sees_what_waits_for_the_device(name):
    torch = pytest.importorskip("torch")
    waits, function = WAITS_OR_NOT[name]
    _, waited = CudaGraphs(torch, None).watched(function, (torch, torch.arange(3)))
    assert waited == waits


SWITCH_VALUES = {
    "0": False, "false": False, "FALSE": False, "No": False, "off": False, " OFF ": False, "0 ": False,
    "\toff\n": False, "1": True, "true": True, "True": True, "yes": True, " on": True, "ON": True, "": True,
    "   ": True, None: True,
}  # fmt: skip


@pytest.mark.parametrize("value", list(SWITCH_VALUES))
def test_the_cuda_graphs_switch_reads_booleans_in_any_case_with_spaces_around(recorder, monkeypatch, value):
    # Only the exact "0" used to turn recording off: false, off, no, "0 " left it on silently.
    torch, replayed = recorder
    if value is None:
        monkeypatch.delenv(_device_graphs.SWITCH, raising=False)
    else:
        monkeypatch.setenv(_device_graphs.SWITCH, value)
    assert _device_graphs.recording_switched_on() is SWITCH_VALUES[value]
    y_true, y_score, qid = grouped(0)
    tensors = [torch.as_tensor(array) for array in (y_true, y_score, qid)]
    with sklearn.config_context(array_api_dispatch=True):
        for _ in range(3):
            METRICS["map"](tensors[0], tensors[1], qid=tensors[2])
    assert bool(replayed) == bool(_device_graphs.GRAPHS.sorts) == SWITCH_VALUES[value]


@pytest.mark.parametrize("value", ["2", "-1", "offf", "nope", "o n", "0 0", "disable", "\u2070"])
def test_an_unreadable_cuda_graphs_switch_is_refused_naming_the_variable_and_the_words(recorder, monkeypatch, value):
    torch, _ = recorder
    monkeypatch.setenv(_device_graphs.SWITCH, value)
    message = (
        r"The environment variable RANKMETRICS_CUDA_GRAPHS must be a boolean: 1, true, yes, on to record CUDA graphs, "
        rf"0, false, no, off not to \(any case\); got {re.escape(repr(value.strip()))}\."
    )
    with pytest.raises(ValueError, match=message):
        _device_graphs.recording_switched_on()
    y_true, y_score, qid = grouped(0)
    tensors = [torch.as_tensor(array) for array in (y_true, y_score, qid)]
    with sklearn.config_context(array_api_dispatch=True), pytest.raises(ValueError, match=message):
        METRICS["map"](tensors[0], tensors[1], qid=tensors[2])


def test_the_switch_is_read_only_for_tensors_on_a_cuda_device(monkeypatch):
    # Elsewhere nothing is recorded whatever it says: a value it cannot read is not an error there.
    torch = pytest.importorskip("torch")
    monkeypatch.setenv(_device_graphs.SWITCH, "offf")
    assert _device_graphs.recorder_for([torch.arange(3.0)]) is None
    assert _device_graphs.recorder_for([np.arange(3.0)]) is None


def test_the_graphs_kept_are_bounded(recorder):
    torch, _ = recorder
    for n_queries in range(10, 10 + 2 * _device_graphs.Graphs.SORTS + 2):
        y_true, y_score, qid = grouped(0, n_queries=n_queries)
        tensors = [torch.as_tensor(array) for array in (y_true, y_score, qid)]
        with sklearn.config_context(array_api_dispatch=True):
            for _ in range(2):
                METRICS["map"](tensors[0], tensors[1], qid=tensors[2])
    assert len(_device_graphs.GRAPHS.sorts) == _device_graphs.Graphs.SORTS
    assert len(_device_graphs.GRAPHS.seen) <= _device_graphs.Graphs.SEEN


def test_threads_share_the_graphs_and_each_gets_its_own_values(recorder):
    torch, replayed = recorder
    metric = functools.partial(METRICS["ndcg"], k=10, average=False)
    draws = [grouped(seed) for seed in range(8)]
    expected = [metric(*draw[:2], qid=draw[2]) for draw in draws]
    found = [None] * len(draws)

    def work(index):
        tensors = [torch.as_tensor(array) for array in draws[index]]
        with sklearn.config_context(array_api_dispatch=True):
            for _ in range(3):
                found[index] = metric(tensors[0], tensors[1], qid=tensors[2]).numpy()

    threads = [threading.Thread(target=work, args=(index,)) for index in range(len(draws))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for values, want in zip(found, expected, strict=True):
        np.testing.assert_allclose(values, want, rtol=1e-12)
    assert replayed.count("measure") > 0


def launched_by_a_third_call(torch, call):
    """``call()``'s result at its third call (under dispatch), and the operations it launched besides replays."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class Counting(TorchDispatchMode):
        launched = 0

        def __torch_dispatch__(self, function, types, args=(), kwargs=None):
            if not Tape.replaying:
                Counting.launched += 1
            return function(*args, **(kwargs or {}))

    with sklearn.config_context(array_api_dispatch=True):
        call(), call()
        with Counting():
            found = call()
    return found, Counting.launched


@pytest.mark.parametrize("name", ["ndcg", "map", "mrr", "precision", "recall", "r_precision", "rbp", "err"])
@pytest.mark.parametrize("tied", [True, False], ids=["ties", "distinct"])
def test_a_replayed_call_launches_a_few_operations_besides_its_two_graphs(recorder, name, tied):
    torch, replayed = recorder
    if name == "err" and tied:
        pytest.skip("ERR reads its tie blocks above k inside its measure: only its sort replays")
    metric = functools.partial(METRICS[name], **({"k": 10} if name not in ("map", "r_precision", "rbp") else {}))
    y_true, y_score, qid = grouped(0, tied=tied)
    tensors = [torch.as_tensor(array) for array in (y_true, y_score, qid)]
    found, launched = launched_by_a_third_call(torch, functools.partial(metric, *tensors[:2], qid=tensors[2]))
    assert found == pytest.approx(metric(y_true, y_score, qid=qid), rel=1e-12)
    assert replayed[-2:] == ["sort", "measure"]
    # The inputs copied into the sort's buffers (3), the two reads' copies to the host and the measure's outputs
    # copied out of its graph (the per-query values and the staged sums), against about 90 operations launched
    # one by one (tests/core/test_array_api.py).
    assert launched <= 9, launched


REPORT = ["ndcg@10", "map", "mrr@10", "err@20", "precision@10", "rbp", "r_precision(zero_division=nan)"]


@pytest.mark.parametrize("average", [True, False], ids=["means", "per query"])
@pytest.mark.parametrize("tied", [True, False], ids=["ties", "distinct"])
def test_replayed_reports_equal_numpys(recorder, average, tied):
    torch, replayed = recorder
    for seed in range(4):
        y_true, y_score, qid = grouped(seed, tied=tied)
        weight = qid % 3 + 1.0
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            expected = ranking_report(y_true, y_score, qid=qid, sample_weight=weight, metrics=REPORT, average=average)
            tensors = [torch.as_tensor(array) for array in (y_true, y_score, qid, weight)]
            with sklearn.config_context(array_api_dispatch=True):
                found = ranking_report(
                    tensors[0], tensors[1], qid=tensors[2], sample_weight=tensors[3], metrics=REPORT, average=average
                )
        assert list(found) == list(expected)
        messages = [str(warning.message) for warning in said]  # the same undefined queries said, once each
        assert len(messages) == (2 if average else 0) and messages[:1] == messages[1:]
        for name, values in expected.items():
            np.testing.assert_allclose(np.asarray(found[name]), values, rtol=1e-12, err_msg=f"{seed} {name}")
    assert replayed.count("sort") >= 3
    # Each measure (a metric's, and the query ids' per query): the check of its recording (second call), then
    # the third and fourth calls. Tied scores change the tie blocks, so the facts, from draw to draw.
    assert replayed.count("measure") == (0 if tied else 3 * (len(REPORT) + (not average)))


def test_a_measure_that_reads_back_keeps_none_of_the_reports_others_from_replaying(recorder):
    torch, replayed = recorder
    y_true, y_score, qid = grouped(0, tied=True)
    tensors = [torch.as_tensor(array) for array in (y_true, y_score, qid)]
    expected = ranking_report(y_true, y_score, qid=qid, metrics=REPORT)
    for _ in range(4):
        with sklearn.config_context(array_api_dispatch=True):
            assert ranking_report(*tensors[:2], qid=tensors[2], metrics=REPORT) == pytest.approx(expected, rel=1e-12)
    # ERR@20 reads its tie blocks above 20 back: its measure runs as it is, the six others replay.
    assert replayed.count("measure") == 3 * (len(REPORT) - 1)


@pytest.mark.filterwarnings("ignore:Queries without a relevant document")
def test_a_replayed_report_launches_a_few_operations_besides_its_graphs(recorder):
    torch, replayed = recorder
    y_true, y_score, qid = grouped(0)
    tensors = [torch.as_tensor(array) for array in (y_true, y_score, qid)]
    report = functools.partial(ranking_report, metrics=REPORT[:5])
    found, launched = launched_by_a_third_call(torch, functools.partial(report, *tensors[:2], qid=tensors[2]))
    assert found == pytest.approx(report(y_true, y_score, qid=qid), rel=1e-12)
    assert replayed[-6:] == ["sort"] + ["measure"] * 5  # six graphs: the sort and each metric's measure
    # The inputs copied into the sort's buffers (3), the two reads' copies to the host, each measure's outputs
    # copied out of its graph (2 each: another measure's replay may overwrite them) and the joining of the
    # five metrics' sums, against about 280 operations launched one by one (tests/core/test_array_api.py).
    assert launched <= 18, launched


# Found by the hostile review: the device path (recorded or not) against numpy's, on inputs at the edges.
EDGES = {
    "negative weight": ("ndcg", [1.0, 0, 2, 0], [0.4, 0.3, 0.2, 0.1], [0, 0, 1, 1], [-1.0, -1, 1, 1], {}),
    "a mean past float64": (
        "dcg",
        [1023.0, 0, 1023, 0],
        [0.4, 0.3, 0.2, 0.1],
        [0, 0, 1, 1],
        None,
        {"gain": "exponential"},
    ),
    "huge weights": (
        "map",
        *[np.tile([1.0, 0, 1], 6), np.tile([0.3, 0.2, 0.1], 6), np.repeat(np.arange(6), 3)],
        np.repeat(np.where(np.arange(6) % 2 == 0, 1e308, 1.0), 3),
        {},
    ),
    "subnormal weights": (
        "map",
        *[np.tile([1.0, 0, 1], 6), np.tile([0.3, 0.2, 0.1], 6), np.repeat(np.arange(6), 3)],
        np.repeat(np.where(np.arange(6) % 2 == 0, 1e-320, 3e-320), 3),
        {},
    ),
    "complex scores": ("ndcg", [1.0, 0, 2], np.array([3 + 5j, 2 - 9j, 1 + 0j]), None, None, {}),
}


@pytest.fixture(params=[False, True], ids=["as it is", "recorded"])
def recorded_or_not(request, recorder, monkeypatch):
    """:func:`recorder`, and recording switched off in one of the two runs."""
    if not request.param:
        monkeypatch.setenv(_device_graphs.SWITCH, "0")
    return recorder


@pytest.mark.parametrize("edge", list(EDGES))
def test_edges_of_the_device_path_give_numpys_value_or_error(recorded_or_not, edge):
    torch, _ = recorded_or_not
    name, y_true, y_score, qid, weight, options = EDGES[edge]
    y_true, y_score = np.asarray(y_true), np.asarray(y_score)
    if edge == "huge weights":
        y_true[3:6] = [0, 1, 0]
    metric = functools.partial(METRICS[name], qid=qid, **options)
    tensors = [
        None if array is None else torch.as_tensor(np.asarray(array)) for array in (y_true, y_score, qid, weight)
    ]
    try:
        expected, error = metric(y_true, y_score, sample_weight=weight), None
    except ValueError as raised:
        expected, error = None, str(raised)
    for _ in range(3):
        with sklearn.config_context(array_api_dispatch=True):
            call = functools.partial(METRICS[name], tensors[0], tensors[1], qid=tensors[2], sample_weight=tensors[3])
            if error is not None:
                with pytest.raises(ValueError) as raised:
                    call(**options)
                assert str(raised.value) == error
            else:
                assert call(**options) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("name", sorted(METRICS))
def test_labels_all_zero_give_numpys_values_on_the_device(recorded_or_not, name):
    # Found by the hostile review: NDCG's ideal of no grade at all reshaped an empty matrix.
    torch, _ = recorded_or_not
    y_true, y_score, qid = np.zeros(7), np.arange(7.0), np.array([1, 1, 1, 2, 2, 2, 3])
    metric = functools.partial(METRICS[name], average=False)
    expected = metric(y_true, y_score, qid=qid)
    for _ in range(3):
        with sklearn.config_context(array_api_dispatch=True):
            found = metric(*(torch.as_tensor(array) for array in (y_true, y_score)), qid=torch.as_tensor(qid))
        np.testing.assert_array_equal(found.numpy(), expected)


def test_scores_that_require_grad_are_measured_without_a_warning(recorder):
    torch, _ = recorder
    y_score = torch.tensor([0.4, 0.3, 0.2, 0.1], requires_grad=True)  # a model's output
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with sklearn.config_context(array_api_dispatch=True):
            found = ranking_report(torch.tensor([1.0, 0, 2, 0]), y_score, qid=torch.tensor([0, 0, 1, 1]))
    assert found == pytest.approx(ranking_report([1.0, 0, 2, 0], [0.4, 0.3, 0.2, 0.1], qid=[0, 0, 1, 1]))


@pytest.mark.filterwarnings("ignore:Queries without a relevant document")
@pytest.mark.parametrize("average", [True, False], ids=["means", "per query"])
def test_a_reports_measures_survive_the_next_replay_overwriting_their_graphs(recorder, monkeypatch, average):
    # The measures of one sort share a pool of memory on a GPU: the next one's replay may write over a graph's
    # outputs. Emulated: each replay of a measure fills the previous one's outputs with NaN.
    torch, _ = recorder
    previous = []
    replay = Recorded.replay

    def overwriting(self, inputs=()):
        outputs = replay(self, inputs)
        if self.buffers is None:  # a measure
            for array in tensors_in(previous, torch):
                array.fill_(np.nan) if array.is_floating_point() else array.fill_(-1)
            previous[:] = [outputs]
        return outputs

    monkeypatch.setattr(Recorded, "replay", overwriting)
    y_true, y_score, qid = grouped(0)
    weight = qid % 3 + 1.0
    expected = ranking_report(y_true, y_score, qid=qid, sample_weight=weight, metrics=REPORT, average=average)
    tensors = [torch.as_tensor(array) for array in (y_true, y_score, qid, weight)]
    for _ in range(4):
        with sklearn.config_context(array_api_dispatch=True):
            found = ranking_report(
                *tensors[:2], qid=tensors[2], sample_weight=tensors[3], metrics=REPORT, average=average
            )
        for name, values in expected.items():
            np.testing.assert_allclose(np.asarray(found[name]), values, rtol=1e-12, err_msg=name)
