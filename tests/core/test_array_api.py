"""Arrays of other libraries: PyTorch (CPU) and array-api-strict give the numpy path's values, in their namespace."""

import functools
import math
import sys
from types import SimpleNamespace

import numpy as np
import pytest
import sklearn
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning
from strategies import grouped_rankings

from sklearn_rankmetrics import (
    alpha_ndcg_score,
    catalog_coverage,
    intent_aware_err_score,
    interpolated_precision_score,
    ranking_report,
    subtopic_recall_score,
)
from sklearn_rankmetrics._core import _array_api
from sklearn_rankmetrics._core._namespace_ops import ArrayApiOps
from sklearn_rankmetrics._core._numpy_ops import NUMPY, NumpyOps
from sklearn_rankmetrics.registry._registry import METRICS

NAMESPACES = []
for name in ("array_api_strict", "torch"):
    try:
        NAMESPACES.append(pytest.param(__import__(name), id=name))
    except ImportError:
        NAMESPACES.append(pytest.param(None, id=name, marks=pytest.mark.skip(reason=f"{name} is not installed")))
if _array_api.array_api_compat() is None:
    pytest.skip("needs array-api-compat (or scikit-learn's copy of it)", allow_module_level=True)


def rows(seed=0, n=120):
    rng = np.random.default_rng(seed)
    qid = rng.integers(0, 9, n)
    y_true = rng.integers(0, 4, n).astype(float)
    y_score = rng.integers(0, 5, n).astype(float)  # ties
    y_score[rng.random(n) < 0.1] = -np.inf
    return y_true, y_score, qid


def convert(xp, array):
    return xp.asarray(array)


def host(array):
    return np.asarray(array.cpu() if hasattr(array, "cpu") else np.from_dlpack(array))


@pytest.mark.parametrize("xp", NAMESPACES)
@pytest.mark.parametrize("name", sorted(METRICS))
@pytest.mark.parametrize("k", [None, 3])
@pytest.mark.parametrize("ties", ["average", "stable"])
def test_every_metric_under_dispatch_equals_numpy(xp, name, k, ties):
    metric = METRICS[name]
    if name == "bpref" and k is not None:
        pytest.skip("bpref has no cutoff")
    options = {"ties": ties, **({} if name == "bpref" else {"k": k})}
    y_true, y_score, qid = rows()
    expected = metric(y_true, y_score, qid=qid, average=False, **options)
    inputs = [convert(xp, array) for array in (y_true, y_score, qid)]
    with sklearn.config_context(array_api_dispatch=True):
        per_query = metric(inputs[0], inputs[1], qid=inputs[2], average=False, **options)
        mean = metric(inputs[0], inputs[1], qid=inputs[2], **options)
    assert type(per_query).__module__.split(".")[0] == xp.__name__.split(".")[0]
    np.testing.assert_allclose(host(per_query), expected, rtol=1e-12, atol=1e-15)
    assert isinstance(mean, float)
    assert mean == pytest.approx(metric(y_true, y_score, qid=qid, **options), rel=1e-12)


@pytest.mark.parametrize("xp", NAMESPACES)
def test_report_diversity_interpolation_and_coverage_under_dispatch(xp):
    y_true, y_score, qid = rows(1)
    with sklearn.config_context(array_api_dispatch=True):
        report = ranking_report(convert(xp, y_true), convert(xp, y_score), qid=convert(xp, qid), average=False)
        levels = interpolated_precision_score(
            convert(xp, y_true), convert(xp, y_score), qid=convert(xp, qid), average=False
        )
        judgements = (np.random.default_rng(2).random((len(qid), 3)) < 0.3).astype(float)
        diversity = [
            metric(convert(xp, judgements), convert(xp, y_score), qid=convert(xp, qid), average=False)
            for metric in (alpha_ndcg_score, intent_aware_err_score, subtopic_recall_score)
        ]
        coverage = catalog_coverage(
            convert(xp, y_score), item_id=convert(xp, np.arange(len(qid))), qid=convert(xp, qid)
        )
    expected = ranking_report(y_true, y_score, qid=qid, average=False)
    for name, values in expected.items():
        np.testing.assert_allclose(host(report[name]), values, rtol=1e-12)
    np.testing.assert_allclose(
        host(levels), interpolated_precision_score(y_true, y_score, qid=qid, average=False), rtol=1e-12
    )
    for metric, values in zip(
        (alpha_ndcg_score, intent_aware_err_score, subtopic_recall_score), diversity, strict=True
    ):
        np.testing.assert_allclose(host(values), metric(judgements, y_score, qid=qid, average=False), rtol=1e-12)
    assert coverage == catalog_coverage(y_score, item_id=np.arange(len(qid)), qid=qid)


@pytest.mark.parametrize("xp", NAMESPACES)
def test_without_dispatch_the_results_are_numpy(xp):
    y_true, y_score, qid = rows(3)
    values = METRICS["ndcg"](convert(xp, y_true), convert(xp, y_score), qid=convert(xp, qid), average=False)
    assert isinstance(values, np.ndarray)
    np.testing.assert_allclose(values, METRICS["ndcg"](y_true, y_score, qid=qid, average=False), rtol=1e-15)


def test_a_missing_array_api_compat_names_the_extra(monkeypatch):
    xps = pytest.importorskip("array_api_strict")
    monkeypatch.setitem(sys.modules, "array_api_compat", None)
    monkeypatch.setitem(sys.modules, "sklearn.externals.array_api_compat", None)  # nor scikit-learn's copy
    with pytest.raises(ImportError, match=r"pip install 'sklearn-rankmetrics\[array-api\]'"):
        METRICS["ndcg"](xps.asarray([1.0, 0.0]), xps.asarray([0.5, 0.1]))


# The metrics whose kernels are written in the array operations (all): under dispatch
# they rank and measure in the inputs' namespace, on their device.
IN_NAMESPACE = sorted(name for name, metric in METRICS.items() if metric.in_namespace)
TIES = ["average", "stable", "pessimistic", "optimistic"]


def test_every_registered_metric_computes_in_the_namespace():
    assert IN_NAMESPACE == sorted(METRICS)


@pytest.fixture(params=["array_api_strict", "torch"])
def on_device(request, monkeypatch):
    """A namespace and a device that is not numpy's, and ``watch()``: from then on, record every
    copy to the host and refuse to rank on the host."""
    xp = pytest.importorskip(request.param)
    # array-api-strict's second device refuses to meet arrays of the default one, as a GPU would.
    device = xp.Device("device1") if request.param == "array_api_strict" else xp.device("cpu")
    # In host memory numpy's kernels would serve these arrays: take the namespace's, as on a GPU.
    monkeypatch.setattr(_array_api, "in_host_memory", lambda values: False)
    copies = []
    to_host = ArrayApiOps.to_host

    def recorded(ops, array):
        copies.append(math.prod(array.shape))
        return to_host(ops, array)

    def refused(*args, **kwargs):
        raise AssertionError("ranked on the host")

    def watch():
        monkeypatch.setattr(ArrayApiOps, "to_host", recorded)
        monkeypatch.setattr(NumpyOps, "rank_order", refused)

    def to_device(array):
        return xp.asarray(array, device=device)

    return SimpleNamespace(to_device=to_device, device=device, copies=copies, watch=watch)


def weights_of(qid):
    return (qid % 3 + 1.0) / 2.0  # constant within each query


@pytest.mark.parametrize(
    "name, k", [(name, k) for name in IN_NAMESPACE for k in ([None] if name == "bpref" else [None, 1, 3])]
)
@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("weighted", [False, True])
def test_core_metrics_stay_on_the_inputs_device(on_device, name, ties, k, weighted):
    to_device = on_device.to_device
    metric = METRICS[name]
    y_true, y_score, qid = rows(4)
    weight = weights_of(qid) if weighted else None
    options = {"qid": qid, "ties": ties, "sample_weight": weight, **({} if name == "bpref" else {"k": k})}
    expected, expected_mean = metric(y_true, y_score, average=False, **options), metric(y_true, y_score, **options)
    on_device_options = {
        **options,
        "qid": to_device(qid),
        "sample_weight": None if weight is None else to_device(weight),
    }
    on_device.watch()
    with sklearn.config_context(array_api_dispatch=True):
        per_query = metric(to_device(y_true), to_device(y_score), average=False, **on_device_options)
        mean = metric(to_device(y_true), to_device(y_score), **on_device_options)
    assert per_query.device == on_device.device
    np.testing.assert_allclose(host(per_query), expected, rtol=1e-12, atol=1e-15)
    assert mean == pytest.approx(expected_mean, rel=1e-12)
    # Only facts and means reach the host (a few numbers per copy, none per query): ERR's expectations over
    # its tie blocks too run on the device.
    assert max(on_device.copies, default=0) <= 16


@pytest.mark.parametrize("name", ["mrr", "hit_rate"])
@pytest.mark.parametrize("k", [None, 1, 4, 40, 500])
def test_tie_expectations_of_mrr_and_hit_rate_stay_on_the_device(on_device, name, k):
    # Blocks of up to 300 rows with few relevant ones, deciding or straddling the cutoff at any place.
    rng = np.random.default_rng(7)
    qid = np.repeat(np.arange(40), rng.integers(1, 400, 40))
    y_true = (rng.random(qid.size) < rng.choice([0.002, 0.02, 0.3], qid.size)).astype(float)
    y_score = rng.integers(0, 4, qid.size).astype(float)
    metric = functools.partial(METRICS[name], k=k)
    expected = metric(y_true, y_score, qid=qid, average=False)
    on_device.watch()
    with sklearn.config_context(array_api_dispatch=True):
        found = metric(*map(on_device.to_device, (y_true, y_score)), qid=on_device.to_device(qid), average=False)
    np.testing.assert_allclose(host(found), expected, rtol=1e-12, atol=1e-15)
    assert max(on_device.copies, default=0) <= 16  # the facts of the ranking: nothing per query


@pytest.mark.parametrize("k", [None, 1, 5, 70])
@pytest.mark.parametrize("largest", [64, 65, 300])
def test_err_tie_blocks_on_the_device_and_the_largest_on_the_host(on_device, k, largest):
    # Blocks of up to DEVICE_BLOCK (64) rows take their expectations on the device; larger ones, numpy's routes.
    rng = np.random.default_rng(8)
    sizes = np.concatenate((rng.integers(1, 12, 60), [largest, 64, 2]))
    qid = np.repeat(np.arange(len(sizes)) // 3, sizes)
    y_score = np.repeat(rng.permutation(len(sizes)).astype(float), sizes)  # one tie block per size
    y_true = rng.choice(5, qid.size, p=[0.5, 0.3, 0.1, 0.05, 0.05]).astype(float)
    expected = METRICS["err"](y_true, y_score, qid=qid, k=k, average=False)
    on_device.watch()
    with sklearn.config_context(array_api_dispatch=True):
        found = METRICS["err"](
            on_device.to_device(y_true), on_device.to_device(y_score), qid=on_device.to_device(qid), k=k, average=False
        )
    np.testing.assert_allclose(host(found), expected, rtol=1e-12, atol=1e-15)
    # The facts of the ranking and of its blocks; only the rows of a block beyond 64 rows (with its size and
    # rank) travel to the host.
    assert max(on_device.copies, default=0) <= (largest + 2 if largest > 64 else 16)


@pytest.mark.parametrize(
    "name, options",
    [
        ("ndcg", {"gain": "exponential", "discount": "jarvelin"}),
        ("dcg", {"discount": lambda ranks: 1.0 / ranks}),
        ("cg", {"gain": "exponential", "k": 2}),
        ("map", {"denominator": "capped", "k": 4}),
        ("mrr", {"relevance_threshold": 2, "k": 2}),
        ("precision", {"relevance_threshold": 0.5}),
        ("ndcg", {"zero_division": np.nan}),
        ("map", {"zero_division": 1.0}),
    ],
)
def test_metric_options_on_the_device(on_device, name, options):
    to_device = on_device.to_device
    y_true, y_score, qid = rows(5)
    y_true[qid == 2] = 0.0  # a query without a relevant document
    y_true[::7] += 0.5  # some labels that are not whole numbers
    metric = METRICS[name]
    with sklearn.config_context(array_api_dispatch=True):
        per_query = metric(to_device(y_true), to_device(y_score), qid=to_device(qid), average=False, **options)
        mean = metric(to_device(y_true), to_device(y_score), qid=to_device(qid), **options)
    np.testing.assert_allclose(host(per_query), metric(y_true, y_score, qid=qid, average=False, **options), rtol=1e-12)
    assert mean == pytest.approx(metric(y_true, y_score, qid=qid, **options), rel=1e-12, nan_ok=True)


def test_two_dimensional_layout_and_host_query_ids_on_the_device(on_device):
    to_device = on_device.to_device
    rng = np.random.default_rng(6)
    y_true, y_score = rng.integers(0, 4, (7, 9)).astype(float), rng.integers(0, 3, (7, 9)).astype(float)
    weight = rng.random(7)
    names = np.array(["b", "a", "c"])[rng.integers(0, 3, 63)]
    with sklearn.config_context(array_api_dispatch=True):
        matrix = METRICS["ndcg"](to_device(y_true), to_device(y_score), sample_weight=to_device(weight), k=4)
        by_name = METRICS["map"](to_device(y_true.ravel()), to_device(y_score.ravel()), qid=list(names), average=False)
    assert matrix == pytest.approx(METRICS["ndcg"](y_true, y_score, sample_weight=weight, k=4), rel=1e-12)
    assert by_name.device == on_device.device
    expected = METRICS["map"](y_true.ravel(), y_score.ravel(), qid=names, average=False)
    np.testing.assert_allclose(host(by_name), expected, rtol=1e-12)


@pytest.mark.parametrize(
    "y_true, y_score, options, message",
    [
        ([1.0, 0.0], [0.5, np.nan], {}, "y_score contains NaN"),
        ([1.0, -1.0], [0.5, 0.1], {}, "non-negative relevance labels"),
        ([1.0, 0.0], [0.5, np.inf], {}, r"y_score contains \+inf"),
        ([1.0, 0.0, 1.0], [0.5, 0.1], {}, "same shape"),
        ([1.0, 0.0], [0.5, 0.1], {"sample_weight": [1.0, 2.0], "qid": [3, 3]}, r"varies inside a query \(query 3\)"),
        ([1.0, 0.0], [0.5, 0.1], {"sample_weight": [1.0, -2.0]}, "must be non-negative"),
        ([1.0, 0.0], [0.5, 0.1], {"qid": [1.0, np.nan]}, "qid"),
    ],
)
def test_bad_input_on_the_device_gets_the_numpy_paths_message(y_true, y_score, options, message):
    xps = pytest.importorskip("array_api_strict")
    on_device = {name: xps.asarray(value) for name, value in options.items()}
    with pytest.raises(ValueError, match=message):
        METRICS["ndcg"](np.asarray(y_true), np.asarray(y_score), **options)
    with sklearn.config_context(array_api_dispatch=True), pytest.raises(ValueError, match=message):
        METRICS["ndcg"](xps.asarray(y_true), xps.asarray(y_score), **on_device)


@pytest.mark.parametrize("name", IN_NAMESPACE)
@settings(max_examples=40, deadline=None)
@given(data=grouped_rankings(), ties=st.sampled_from(TIES))
def test_numpy_and_array_api_paths_agree(name, data, ties):
    xps = pytest.importorskip("array_api_strict")
    y_true, y_score, qid, k = data
    options = {"ties": ties, "average": False, **({} if name == "bpref" else {"k": k})}
    expected = METRICS[name](y_true, y_score, qid=qid, **options)
    with sklearn.config_context(array_api_dispatch=True):
        values = METRICS[name](xps.asarray(y_true), xps.asarray(y_score), qid=xps.asarray(qid), **options)
    np.testing.assert_allclose(host(values), expected, rtol=1e-12, atol=1e-15)


def test_the_array_operations_reduce_segments_as_numpy_does():
    xps = pytest.importorskip("array_api_strict")
    ops = ArrayApiOps(xps, xps.Device("device1"))
    rng = np.random.default_rng(7)
    sizes = np.concatenate((rng.integers(1, 40, 200), [1000, 1, 4096, 3]))
    starts = np.cumsum(sizes) - sizes
    values = rng.random(int(sizes.sum()))
    groups = np.sort(rng.integers(0, 300, len(values)))  # groups without rows sum to 0
    on_device = [ops.asarray(array) for array in (values, starts, groups)]
    for name, expected in [
        ("segment_sum", np.add.reduceat(values, starts)),
        ("segment_max", np.maximum.reduceat(values, starts)),
        ("segment_prod", np.multiply.reduceat(values, starts)),
        ("segment_exclusive_cumprod", NUMPY.segment_exclusive_cumprod(values, starts)),
        ("segment_exclusive_cumsum", NUMPY.segment_exclusive_cumsum(np.round(values * 10), starts)),
        ("positions_in_segments", NUMPY.positions_in_segments(starts, len(values))),
    ]:
        first = ops.asarray(np.round(values * 10)) if name == "segment_exclusive_cumsum" else on_device[0]
        arguments = (on_device[1], len(values)) if name == "positions_in_segments" else (first, on_device[1])
        # (Products that underflow to subnormals keep fewer digits, whatever their order.)
        found = host(getattr(ops, name)(*arguments))
        np.testing.assert_allclose(found, expected, rtol=1e-14, atol=1e-300, err_msg=name)
    np.testing.assert_allclose(
        host(ops.group_sum(on_device[0], on_device[2], 300)), np.bincount(groups, values, 300), rtol=1e-14
    )
    counts = rng.integers(0, 4, 50)  # some zero
    repeated = ops.repeat(ops.asarray(np.arange(50.0)), ops.asarray(counts))
    np.testing.assert_array_equal(host(repeated), np.repeat(np.arange(50.0), counts))


def test_report_stays_on_the_device_and_falls_back_to_the_host_for_intervals(on_device):
    to_device = on_device.to_device
    y_true, y_score, qid = rows(8)
    y_true[qid == 4] = 0.0  # an undefined query: the report warns
    inputs = (to_device(y_true), to_device(y_score))
    metrics = ["ndcg@10", "map", "mrr", "err@20", "precision@5", "bpref", "rbp(p=0.5)"]
    expected = ranking_report(y_true, y_score, qid=qid, metrics=metrics, average=False)
    with pytest.warns(UndefinedMetricWarning, match="scored zero_division"):
        expected_means = ranking_report(y_true, y_score, qid=qid, metrics=metrics)
    with_interval = {"metrics": ["map"], "confidence_level": 0.9, "random_state": 0}
    with pytest.warns(UndefinedMetricWarning, match="scored zero_division"):
        expected_interval = ranking_report(y_true, y_score, qid=qid, **with_interval)
    with sklearn.config_context(array_api_dispatch=True):
        with pytest.warns(UndefinedMetricWarning, match="scored zero_division"):
            interval = ranking_report(*inputs, qid=to_device(qid), **with_interval)
        on_device.watch()
        per_query = ranking_report(*inputs, qid=to_device(qid), metrics=metrics, average=False)
        with pytest.warns(UndefinedMetricWarning, match="scored zero_division"):
            means = ranking_report(*inputs, qid=to_device(qid), metrics=metrics)
    assert per_query["qid"].device == on_device.device
    for name, values in expected.items():
        np.testing.assert_allclose(host(per_query[name]), values, rtol=1e-12, err_msg=name)
    assert means == pytest.approx(expected_means, rel=1e-12)
    assert interval == expected_interval  # the bootstrap runs on the host, with numpy's generator


def test_judged_masks_of_bpref_and_rbp_on_the_device(on_device):
    to_device = on_device.to_device
    y_true, y_score, qid = rows(9)
    judged = np.random.default_rng(9).random(len(qid)) < 0.7
    bpref = METRICS["bpref"](y_true, y_score, qid=qid, judged=judged, average=False)
    rbp = METRICS["rbp"](y_true, y_score, qid=qid, judged=judged, return_residual=True, k=5, average=False)
    on_device.watch()
    inputs = (to_device(y_true), to_device(y_score))
    with sklearn.config_context(array_api_dispatch=True):
        bpref_on_device = METRICS["bpref"](*inputs, qid=to_device(qid), judged=to_device(judged), average=False)
        rbp_on_device = METRICS["rbp"](
            *inputs, qid=to_device(qid), judged=to_device(judged), return_residual=True, k=5, average=False
        )
        with pytest.raises(ValueError, match="judged must be a boolean array"):
            METRICS["bpref"](*inputs, qid=to_device(qid), judged=to_device(judged.astype(float)))
    np.testing.assert_allclose(host(bpref_on_device), bpref, rtol=1e-12)
    for found, expected in zip(rbp_on_device, rbp, strict=True):
        np.testing.assert_allclose(host(found), expected, rtol=1e-12)


def test_arrays_in_host_memory_take_numpys_kernels(monkeypatch):
    torch = pytest.importorskip("torch")

    def refused(*args, **kwargs):
        raise AssertionError("sorted in the namespace")

    y_true, y_score, qid = rows(10)
    expected = METRICS["map"](y_true, y_score, qid=qid, average=False)
    monkeypatch.setattr(ArrayApiOps, "rank_order", refused)
    with sklearn.config_context(array_api_dispatch=True):
        values = METRICS["map"](*(torch.as_tensor(array) for array in (y_true, y_score)), qid=qid, average=False)
    assert isinstance(values, torch.Tensor)
    np.testing.assert_allclose(values.numpy(), expected, rtol=1e-15)


def on_a_gpu(library):
    """A function that puts a numpy array on a GPU as an array of ``library``; skips without one."""
    try:
        module = __import__(library)
    except ImportError:
        pytest.skip(f"{library} is not installed")
    if library == "torch":
        if not module.cuda.is_available():
            pytest.skip("PyTorch sees no CUDA GPU")
        return lambda array: module.as_tensor(array, device="cuda")
    if library == "cupy":
        try:
            module.cuda.runtime.getDeviceCount()
        except Exception:  # CuPy's errors when no GPU or driver is there vary
            pytest.skip("CuPy sees no GPU")
        return module.asarray
    try:
        gpu = module.devices("gpu")[0]
    except RuntimeError:
        pytest.skip("JAX sees no GPU")
    module.config.update("jax_enable_x64", True)  # float64, as every library's metrics compute
    return lambda array: module.device_put(array, gpu)


@pytest.mark.parametrize("library", ["torch", "cupy", "jax"])
@pytest.mark.parametrize("ties", TIES)
def test_every_metric_and_the_report_on_a_gpu(library, ties):
    to_gpu = on_a_gpu(library)
    y_true, y_score, qid = rows(11, n=3000)
    on_gpu = [to_gpu(array) for array in (y_true, y_score, qid)]
    for name in IN_NAMESPACE:
        options = {"ties": ties, "average": False, **({} if name == "bpref" else {"k": 10})}
        with sklearn.config_context(array_api_dispatch=True):
            values = METRICS[name](on_gpu[0], on_gpu[1], qid=on_gpu[2], **options)
            mean = METRICS[name](on_gpu[0], on_gpu[1], qid=on_gpu[2], **{**options, "average": True})
        assert _array_api.library(values) == _array_api.library(on_gpu[0]) and not _array_api.in_host_memory([values])
        expected = METRICS[name](y_true, y_score, qid=qid, **options)
        np.testing.assert_allclose(_array_api.to_numpy(values), expected, rtol=1e-12, atol=1e-15, err_msg=name)
        expected_mean = METRICS[name](y_true, y_score, qid=qid, **{**options, "average": True})
        assert mean == pytest.approx(expected_mean, rel=1e-12)
    metrics = ["ndcg@10", "map", "mrr@10", "err@20", "precision@10"]
    with sklearn.config_context(array_api_dispatch=True):
        report = ranking_report(*on_gpu[:2], qid=on_gpu[2], metrics=metrics, ties=ties, average=False)
    expected = ranking_report(y_true, y_score, qid=qid, metrics=metrics, ties=ties, average=False)
    for name, values in expected.items():
        np.testing.assert_allclose(_array_api.to_numpy(report[name]), values, rtol=1e-12, err_msg=name)


@pytest.mark.parametrize("ties", ["stable", "pessimistic", "optimistic"])
@pytest.mark.parametrize("recall_levels", [None, [0.0, 0.33, 1.0]])
def test_interpolated_precision_on_the_device(on_device, ties, recall_levels):
    to_device = on_device.to_device
    y_true, y_score, qid = rows(12, n=300)
    y_true[qid == 3] = 0.0  # a query without a relevant document
    options = {"ties": ties, **({} if recall_levels is None else {"recall_levels": recall_levels})}
    expected = interpolated_precision_score(y_true, y_score, qid=qid, average=False, **options)
    expected_means = interpolated_precision_score(y_true, y_score, qid=qid, **options)
    on_device.watch()
    with sklearn.config_context(array_api_dispatch=True):
        inputs = (to_device(y_true), to_device(y_score))
        per_query = interpolated_precision_score(*inputs, qid=to_device(qid), average=False, **options)
        means = interpolated_precision_score(*inputs, qid=to_device(qid), **options)
    assert per_query.device == means.device == on_device.device
    np.testing.assert_allclose(host(per_query), expected, rtol=1e-12)
    np.testing.assert_allclose(host(means), expected_means, rtol=1e-12)
    # Each call reads the ranking's facts once; the means come back together, one copy.
    assert len(on_device.copies) == 3 and max(on_device.copies) <= 2 * len(expected_means) + 10


def test_the_segment_suffix_maximum_in_the_namespace():
    xps = pytest.importorskip("array_api_strict")
    ops = ArrayApiOps(xps, xps.Device("device1"))
    rng = np.random.default_rng(13)
    sizes = np.concatenate((rng.integers(1, 70, 100), [700]))
    starts = np.cumsum(sizes) - sizes
    values = rng.random(int(sizes.sum())).round(2)
    expected = np.concatenate(
        [np.maximum.accumulate(values[s : s + n][::-1])[::-1] for s, n in zip(starts, sizes, strict=True)]
    )
    np.testing.assert_array_equal(NUMPY.segment_suffix_max(values, starts), expected)
    np.testing.assert_array_equal(host(ops.segment_suffix_max(ops.asarray(values), ops.asarray(starts))), expected)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("path", ["numpy", "dispatch on the host", "dispatch on the device"])
def test_half_precision_torch_inputs_equal_their_float32_values(monkeypatch, dtype, path):
    # bfloat16 is the usual dtype of mixed-precision scores; numpy has no such dtype.
    torch = pytest.importorskip("torch")
    if path == "dispatch on the device":  # the namespace's kernels, as on a GPU
        monkeypatch.setattr(_array_api, "in_host_memory", lambda values: False)
    y_true, _, qid = rows(12)
    y_score = np.random.default_rng(12).normal(0, 1, len(qid))
    low = [torch.as_tensor(array).to(getattr(torch, dtype)) for array in (y_true, y_score)]
    y_true, y_score = (array.float().numpy() for array in low)  # the same values in float32: rounding makes ties
    judgements = (np.random.default_rng(2).random((len(qid), 3)) < 0.3).astype(float)
    with sklearn.config_context(array_api_dispatch=path != "numpy"):
        for name in sorted(METRICS):
            options = {"qid": qid, "average": False, **({} if name == "bpref" else {"k": 5})}
            values = METRICS[name](*low, **options)
            expected = METRICS[name](y_true, y_score, **options)
            np.testing.assert_allclose(host(values), expected, rtol=1e-12, atol=1e-15, err_msg=name)
        report = ranking_report(*low, qid=qid, confidence_level=0.9, random_state=0)
        diversity = alpha_ndcg_score(torch.as_tensor(judgements).to(low[1].dtype), low[1], qid=qid, average=False)
    assert report == ranking_report(y_true, y_score, qid=qid, confidence_level=0.9, random_state=0)
    np.testing.assert_array_equal(host(diversity), alpha_ndcg_score(judgements, y_score, qid=qid, average=False))


# What drives a GPU's time, counted on the CPU: PyTorch tensors forced through the namespace's kernels,
# watched by a spy.
HOST_READS = {"__bool__", "__int__", "__float__", "__index__", "item", "tolist", "numpy", "__array__"}
DATA_DEPENDENT_SHAPES = {"nonzero", "argwhere", "unique", "unique_consecutive", "masked_select", "repeat_interleave"}
METADATA = {"__get__", "__len__", "dim", "size", "numel", "__repr__", "__format__", "is_floating_point"}
VIEWS = {"reshape", "__getitem__", "broadcast_to", "flip", "view", "expand"}


def device_spy(torch):
    """A PyTorch function mode that counts, per call, what a GPU waits on: reads back to the host, operations
    whose result's size depends on the data (which read it back), and the other operations (each a kernel
    launched, views apart). Like CuPy, it refuses numpy's implicit conversion of a tensor."""
    from torch.overrides import TorchFunctionMode

    class DeviceSpy(TorchFunctionMode):
        def __init__(self):
            super().__init__()
            self.reads, self.shapes, self.operations = [], [], 0

        def __torch_function__(self, function, types, args=(), kwargs=None):
            name = getattr(function, "__name__", str(function))
            if name == "__array__":
                raise TypeError("Implicit conversion to a NumPy array is not allowed.")
            if name in HOST_READS:
                self.reads.append(name)
            elif name in DATA_DEPENDENT_SHAPES or (name == "__getitem__" and masks(args[1])):
                self.shapes.append(name)
            elif name not in METADATA | VIEWS:
                self.operations += 1
            return function(*args, **(kwargs or {}))

    def masks(index):
        parts = index if isinstance(index, tuple) else (index,)
        return any(getattr(part, "dtype", None) == torch.bool for part in parts)

    return DeviceSpy()


def mslr_like(seed=0, n_queries=300):
    """Rows like MSLR-WEB30K's (a hundred per query, labels 0-4), scores rounded so that ties abound."""
    rng = np.random.default_rng(seed)
    sizes = np.clip(np.round(rng.lognormal(np.log(95), 0.7, n_queries)), 1, 1250).astype(np.int64)
    qid = np.repeat(np.arange(n_queries) * 7 + 1000, sizes)
    y_true = rng.choice(5, qid.size, p=[0.515, 0.32, 0.13, 0.025, 0.01]).astype(float)
    return y_true, np.round(0.4 * y_true + rng.normal(size=qid.size), 1), qid


# Per metric call (the mean, ties averaged, k=10 where a metric takes it): reads back to the host, then a
# ceiling on the operations, on scores with ties and on distinct scores. Every call reads the inputs'
# extremes with the ranking's facts once and its mean once; with ties, ERR also reads the number of its
# blocks above k and the longest (its exact expectations over them run on the device, one step per row of
# the longest). MRR's and hit rate's expectations over their deciding or straddling blocks stay on the
# device too. No operation has a data-dependent size.
DEVICE_COUNTS = {
    "bpref": ((2, 115), (2, 170)),
    "cg": ((2, 80), (2, 70)),
    "dcg": ((2, 80), (2, 70)),
    "err": ((3, 155), (2, 80)),
    "f1": ((2, 85), (2, 75)),
    "hit_rate": ((2, 100), (2, 70)),
    "map": ((2, 110), (2, 140)),
    "mrr": ((2, 105), (2, 70)),
    "ndcg": ((2, 90), (2, 80)),
    "precision": ((2, 75), (2, 70)),
    "r_precision": ((2, 80), (2, 135)),
    "rbp": ((2, 80), (2, 70)),
    "recall": ((2, 80), (2, 70)),
    # The report measures each metric on its own (so that each replays as its own CUDA graph, whichever
    # waits), about 12% more operations than one measure of all when nothing is recorded.
    "report": ((3, 380), (2, 280)),
    "interpolated": ((2, 200), (2, 200)),
}


@pytest.mark.parametrize("name", sorted(DEVICE_COUNTS))
@pytest.mark.parametrize("tied", [True, False], ids=["ties", "distinct"])
def test_host_reads_and_operations_per_metric_call_on_a_device(monkeypatch, name, tied):
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(_array_api, "in_host_memory", lambda values: False)  # the namespace's kernels, as on a GPU
    y_true, y_score, qid = mslr_like()
    if not tied:
        y_score = y_score + np.arange(len(y_score)) * 1e-7
    if name == "report":
        metric = functools.partial(ranking_report, metrics=["ndcg@10", "map", "mrr@10", "err@20", "precision@10"])
    elif name == "interpolated":
        metric = functools.partial(interpolated_precision_score, ties="stable")
    else:
        metric = functools.partial(METRICS[name], **({} if name == "bpref" else {"k": 10}))
    inputs = [torch.as_tensor(array) for array in (y_true, y_score, qid)]
    spy = device_spy(torch)
    with sklearn.config_context(array_api_dispatch=True), spy:
        found = metric(inputs[0], inputs[1], qid=inputs[2])
    expected = metric(y_true, y_score, qid=qid)
    if name == "report":
        assert found == pytest.approx(expected, rel=1e-12)
    else:
        np.testing.assert_allclose(_array_api.to_numpy(found), expected, rtol=1e-12)
    reads, ceiling = DEVICE_COUNTS[name][0 if tied else 1]
    assert (len(spy.reads), spy.shapes) == (reads, [])
    assert spy.operations <= ceiling


def test_the_device_spy_refuses_numpys_implicit_conversion_as_cupy_does():
    torch = pytest.importorskip("torch")
    with device_spy(torch), pytest.raises(TypeError, match="Implicit conversion"):
        np.asarray(torch.zeros(2))


def test_arrays_whose_library_names_no_namespace_are_foreign():
    class CupyLike:  # CuPy's arrays name no __array_namespace__ (array-api-compat gives theirs) and refuse
        # numpy's implicit conversion: they must not reach the host path as an array-like.
        __module__ = "cupy._core.core"
        shape = (2,)

        def __array__(self, *args, **kwargs):
            raise TypeError("Implicit conversion to a NumPy array is not allowed.")

    assert _array_api.is_foreign(CupyLike())
    assert not _array_api.is_foreign(np.zeros(2)) and not _array_api.is_foreign([1.0, 2.0])
