"""The plain-torch reference that benchmarks/bench_metrics.py --device times against ours."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import sklearn_rankmetrics as rm

torch = pytest.importorskip("torch")


def load_benchmark():
    path = Path(__file__).parents[1] / "benchmarks" / "bench_metrics.py"
    spec = importlib.util.spec_from_file_location("bench_metrics", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_plain_torch_reference_equals_ours_on_tie_free_scores():
    bench = load_benchmark()
    y, score, qid = bench.make_data(200, "shuffled", seed=3)
    ndcg, ap = bench.torch_reference(*(torch.as_tensor(a) for a in (y, score, qid)))
    assert float(ndcg) == pytest.approx(rm.ndcg_score(y, score, qid=qid, k=10), rel=1e-12)
    assert float(ap) == pytest.approx(rm.mean_average_precision_score(y, score, qid=qid), rel=1e-12)
    assert np.unique(score).size == score.size  # tie-free: the reference's order of ties plays no part
