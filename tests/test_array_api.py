"""Arrays of other libraries: PyTorch (CPU) and array-api-strict give the numpy path's values, in their namespace."""

import sys

import numpy as np
import pytest
import sklearn

from sklearn_rankmetrics import (
    alpha_ndcg_score,
    catalog_coverage,
    intent_aware_err_score,
    interpolated_precision_score,
    ranking_report,
    subtopic_recall_score,
)
from sklearn_rankmetrics._registry import METRICS

NAMESPACES = []
for name in ("array_api_strict", "torch"):
    try:
        NAMESPACES.append(pytest.param(__import__(name), id=name))
    except ImportError:
        NAMESPACES.append(pytest.param(None, id=name, marks=pytest.mark.skip(reason=f"{name} is not installed")))
pytest.importorskip("array_api_compat")


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
        coverage = catalog_coverage(convert(xp, np.arange(len(qid)) % 7), convert(xp, y_score), qid=convert(xp, qid))
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
    assert coverage == catalog_coverage(np.arange(len(qid)) % 7, y_score, qid=qid)


@pytest.mark.parametrize("xp", NAMESPACES)
def test_without_dispatch_the_results_are_numpy(xp):
    y_true, y_score, qid = rows(3)
    values = METRICS["ndcg"](convert(xp, y_true), convert(xp, y_score), qid=convert(xp, qid), average=False)
    assert isinstance(values, np.ndarray)
    np.testing.assert_allclose(values, METRICS["ndcg"](y_true, y_score, qid=qid, average=False), rtol=1e-15)


def test_a_missing_array_api_compat_names_the_extra(monkeypatch):
    xps = pytest.importorskip("array_api_strict")
    monkeypatch.setitem(sys.modules, "array_api_compat", None)
    with pytest.raises(ImportError, match=r"pip install 'sklearn-rankmetrics\[array-api\]'"):
        METRICS["ndcg"](xps.asarray([1.0, 0.0]), xps.asarray([0.5, 0.1]))
