"""ranking_report: many metrics from one sort, equal to separate calls."""

import inspect

import numpy as np
import pytest
import sklearn
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_rankmetrics import compare_rankings, get_ranking_scorer_names, ndcg_score, ranking_report
from sklearn_rankmetrics.metrics._cwl import inst_score
from sklearn_rankmetrics.registry._names import parse_metric_name
from sklearn_rankmetrics.registry._registry import KERNELS

SHARED = [name for name in get_ranking_scorer_names() if parse_metric_name(name)[0] in KERNELS]
# bpref, compat and opa examine every document: they have no cutoff.
WITHOUT_CUTOFF = {name for name in SHARED if "k" not in inspect.signature(parse_metric_name(name)[0]).parameters}
NAMES = [f"{name}{suffix}" for name in SHARED for suffix in ("", "@3") if not (name in WITHOUT_CUTOFF and suffix)] + [
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
    # INST refuses averaged ties: its mean over the orderings of tied scores has no closed form.
    names = [name for name in NAMES if ties != "average" or parse_metric_name(name)[0] != inst_score]
    report = ranking_report(
        y_true, y_score, qid=qid, metrics=names, ties=ties, sample_weight=weight, average=average, zero_division=np.nan
    )
    for name in names:
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
        (
            ["alpha_ndcg@10"],
            ValueError,
            r"'alpha_ndcg@10' is an intent-aware measure: it needs an \(n_samples, n_subtopics\)",
        ),
    ],
)
def test_report_errors(metrics, error, message):
    with pytest.raises(error, match=message):
        ranking_report([1, 0], [0.5, 0.2], metrics=metrics)


def test_confidence_intervals_surround_the_mean_and_are_reproducible():
    rng = np.random.default_rng(5)
    qid = np.repeat(np.arange(80), 12)
    y_true = rng.integers(0, 3, qid.size)
    y_score = y_true + rng.normal(0, 2, qid.size)
    names = ["ndcg@10", "map", "mrr(zero_division=nan)"]
    plain = ranking_report(y_true, y_score, qid=qid, metrics=names)
    with_intervals = ranking_report(y_true, y_score, qid=qid, metrics=names, confidence_level=0.9, random_state=3)
    assert with_intervals == ranking_report(
        y_true, y_score, qid=qid, metrics=names, confidence_level=0.9, random_state=3
    )
    for name in names:
        mean, low, high = with_intervals[name]
        assert mean == plain[name] and low < mean < high


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")  # queries without relevant rows
def test_confidence_intervals_cover_the_true_mean_at_about_the_nominal_rate():
    # Per-query values drawn from a known distribution: 90% intervals should cover its mean about 90% of the time.
    rng = np.random.default_rng(0)
    covered = 0
    for _ in range(200):
        y_true = (rng.random(60) < 0.3).astype(float)  # one document per query: P@1 is Bernoulli(0.3)
        _, low, high = ranking_report(
            y_true,
            np.ones(60),
            qid=np.arange(60),
            metrics=["precision@1(zero_division=0.0)"],
            confidence_level=0.9,
            n_resamples=2000,
            random_state=rng.integers(2**31),
        )["precision@1(zero_division=0.0)"]
        covered += low <= 0.3 <= high
    assert 0.82 <= covered / 200 <= 0.97


def test_confidence_intervals_need_the_mean():
    with pytest.raises(ValueError, match="confidence_level needs average=True"):
        ranking_report([1, 0], [1, 0], metrics=["map"], average=False, confidence_level=0.95)
    with pytest.raises(ValueError, match="n_resamples must be an integer >= 1"):
        ranking_report([1, 0], [1, 0], metrics=["map"], confidence_level=0.95, n_resamples=0)


@pytest.mark.parametrize(
    "call",
    [
        lambda: ranking_report([0, 1, 0, 0], [0.1, 0.2, 0.3, 0.4], qid=[1, 1, 2, 2], metrics=["map"]),
        lambda: ndcg_score([0, 0], [0.1, 0.2], zero_division=np.nan),
    ],
)
def test_warnings_point_at_the_callers_line(call):
    with pytest.warns(UndefinedMetricWarning) as record:
        call()
    assert record[0].filename == __file__  # not a frame of the library (its Array API wrapper adds one)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("rbp(return_residual=True)", "'rbp\\(return_residual=True\\)' sets return_residual, an option of "
         "rank_biased_precision_score that ranking_report cannot pass on"),
        ("bpref(k=5)", "'bpref\\(k=5\\)' gives a cutoff, but bpref examines every document: it has no k"),
        ("map(sample_weight=None)", "sets sample_weight, which carries the data .one value per row.*pass "
         "sample_weight= with the data .to the metric function, ranking_report"),
        ("ndcg(relevance_threshold=2)", "sets relevance_threshold, which is not an option of ndcg_score"),
    ],
)  # fmt: skip
def test_report_names_the_option_a_metric_kernel_does_not_take(name, message):
    # These reached the shared kernel and failed there: "_bpref() got an unexpected keyword argument 'k'".
    with pytest.raises(ValueError, match=message):
        ranking_report([1, 0], [0.5, 0.2], metrics=[name])


def test_undefined_queries_are_named_by_what_makes_each_metric_undefined():
    # OPA is undefined for a query whose labels are all equal (no pair to order), not only without relevant ones.
    y_true, y_score, qid = [2, 0, 1, 0, 0, 0, 1, 1, 1], [5, 4, 9, 1, 3, 2, 3, 2, 1], [1, 1, 1, 2, 2, 2, 3, 3, 3]
    with pytest.warns(UndefinedMetricWarning) as record:
        ranking_report(y_true, y_score, qid=qid, metrics=["ndcg", "opa"])
    (message,) = [str(warning.message) for warning in record]
    assert "Queries without a relevant document, out of 3, scored zero_division in the means: ndcg: 1 " in message
    assert "Queries without a pair of different labels, out of 3, scored zero_division in the means: opa: 2 " in message


def test_returned_query_ids_keep_ids_that_differ_only_by_trailing_nuls():
    # The ids were cast to fixed-width <U/S arrays, which drop trailing NULs: "a" and "a\x00" both showed as "a".
    pd = pytest.importorskip("pandas")
    y_true, y_score = [1, 0, 0, 1, 1, 0], [3, 2, 1, 3, 2, 1]
    strings = ["a", "a", "a\x00", "a\x00", "b", "b"]
    for qid in (strings, [s.encode() for s in strings], np.array(strings, dtype=object), pd.Series(strings)):
        ids = ranking_report(y_true, y_score, qid=qid, metrics=["mrr"], average=False)["qid"]
        assert ids.tolist() == np.unique(np.array(list(qid), dtype=object)).tolist()
    result = compare_rankings(y_true, {"a": y_score, "b": y_score[::-1]}, qid=strings, metrics=["mrr"], test="t-test")
    assert result.per_query["qid"].tolist() == ["a", "a\x00", "b"]
    # Ids that a fixed-width array holds exactly come back in np.unique's type, as before.
    plain = ["b", "b", "a", "a", "c", "c"]
    ids = ranking_report(y_true, y_score, qid=plain, metrics=["mrr"], average=False)["qid"]
    expected = np.unique(plain)
    assert ids.dtype == expected.dtype
    np.testing.assert_array_equal(ids, expected)


def test_metrics_given_by_a_generator_are_read_once_on_every_path():
    torch = pytest.importorskip("torch")
    y_true, y_score, qid = [1.0, 0, 0, 1], [0.4, 0.3, 0.2, 0.1], [0, 0, 1, 1]
    expected = ranking_report(y_true, y_score, qid=qid, metrics=["map", "mrr"])
    tensors = [torch.as_tensor(values) for values in (y_true, y_score, qid)]
    with sklearn.config_context(array_api_dispatch=True):  # the dispatch must not read the names first
        found = ranking_report(*tensors[:2], qid=tensors[2], metrics=(name for name in ["map", "mrr"]))
    assert found == pytest.approx(expected)


def test_a_report_of_no_metric_is_refused():
    with pytest.raises(ValueError, match=r"metrics names no metric: pass at least one metric name"):
        ranking_report([1.0, 0], [0.2, 0.1], qid=[0, 0], metrics=[])


def test_an_unknown_option_of_a_dispatched_function_is_named_by_python():
    torch = pytest.importorskip("torch")
    tensors = [torch.tensor([1.0, 0]), torch.tensor([0.2, 0.1])]
    with sklearn.config_context(array_api_dispatch=True):
        with pytest.raises(TypeError, match=r"ranking_report\(\) got an unexpected keyword argument 'foo'"):
            ranking_report(*tensors, qid=torch.tensor([0, 0]), foo=1)
