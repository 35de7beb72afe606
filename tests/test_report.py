"""ranking_report: many metrics from one sort, equal to separate calls."""

import numpy as np
import pytest

from sklearn_rankmetrics import get_ranking_scorer_names, ranking_report
from sklearn_rankmetrics._registry import KERNELS, parse_metric_name

SHARED = [name for name in get_ranking_scorer_names() if parse_metric_name(name)[0] in KERNELS]
NAMES = [f"{name}{suffix}" for name in SHARED for suffix in ("", "@3") if not (name == "bpref" and suffix)] + [
    "map@5(denominator='capped')",
    "err@10(max_grade=4)",
    "ndcg@10(zero_division=1.0)",
    "precision@5(relevance_threshold=2)",
]


@pytest.mark.parametrize("ties", ["average", "stable", "pessimistic"])
@pytest.mark.parametrize("average", [True, False])
def test_report_equals_separate_calls(ties, average):
    rng = np.random.default_rng(0)
    qid = rng.choice(["x", "y", "z", "w"], 60)
    y_true = rng.integers(0, 5, 60).astype(float)
    y_true[qid == "w"] = 0  # a query without relevant documents
    y_score = rng.integers(0, 6, 60).astype(float)
    weight = np.array([{"x": 1.0, "y": 2.0, "z": 0.5, "w": 3.0}[q] for q in qid])
    report = ranking_report(
        y_true, y_score, qid=qid, metrics=NAMES, ties=ties, sample_weight=weight, average=average, zero_division=np.nan
    )
    for name in NAMES:
        metric, options = parse_metric_name(name)
        options.setdefault("zero_division", np.nan)
        expected = metric(y_true, y_score, qid=qid, ties=ties, sample_weight=weight, average=average, **options)
        np.testing.assert_allclose(report[name], expected, rtol=1e-15, err_msg=name)
    if not average:
        np.testing.assert_array_equal(report["qid"], ["w", "x", "y", "z"])


def test_report_of_2d_inputs_names_queries_by_row():
    report = ranking_report([[1, 0], [0, 1]], [[0.2, 0.1], [0.2, 0.1]], metrics=["mrr"], average=False)
    np.testing.assert_array_equal(report["qid"], [0, 1])
    np.testing.assert_array_equal(report["mrr"], [1.0, 0.5])


@pytest.mark.parametrize(
    ("metrics", "error", "message"),
    [
        ("ndcg@10", TypeError, "metrics must be a sequence of metric names"),
        (["ndgc"], ValueError, "'ndgc' is not a ranking metric name. Did you mean 'ndcg'"),
        (["ndcg(ties='stable')"], ValueError, "sets ties, which the report sets once for every metric"),
        (["alpha_ndcg@10"], ValueError, "'alpha_ndcg@10' cannot share a ranking with the other metrics"),
    ],
)
def test_report_errors(metrics, error, message):
    with pytest.raises(error, match=message):
        ranking_report([1, 0], [0.5, 0.2], metrics=metrics)
