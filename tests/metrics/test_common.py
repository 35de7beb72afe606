"""Checks that every metric must pass, driven by the registry of metrics."""

import re

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import Ridge

from sklearn_rankmetrics import (
    GroupedRanker,
    catalog_coverage,
    compare_rankings,
    get_ranking_scorer,
    load_lambdarank,
    make_ranking,
    permutation_importance,
    ranking_report,
    recall_at_k_score,
)
from sklearn_rankmetrics.registry._registry import METRICS

import naive

# The textbook implementation of each metric, on one list of labels in rank order.
ORACLES = {
    "cg": naive.cumulative_gain,
    "dcg": naive.dcg,
    "ndcg": naive.ndcg,
    "map": naive.average_precision,
    "mrr": naive.reciprocal_rank,
    "precision": naive.precision,
    "recall": naive.recall,
    "r_precision": naive.r_precision,
    "err": naive.err,
    "hit_rate": naive.hit_rate,
    "f1": naive.f1,
    "bpref": naive.bpref,
    "rbp": naive.rbp,
    "nerr": naive.normalized_err,
    "ncg": naive.normalized_cumulative_gain,
}
NORMALISED = {
    "ndcg",
    "map",
    "mrr",
    "precision",
    "recall",
    "r_precision",
    "err",
    "hit_rate",
    "f1",
    "bpref",
    "rbp",
    "nerr",
    "ncg",
}
# bpref examines every document: it has no cutoff k.
WITHOUT_CUTOFF = {"bpref"}


# The shared generator: whole and fractional labels, tied and distinct scores (by the seed).
random_queries = naive.random_queries


def oracle(name, y_true, y_score, qid, k=None):
    metric = ORACLES[name]
    kwargs = {"k": k}
    if name in ("err", "nerr"):  # the default top grade is the largest label of the whole call
        kwargs["max_grade"] = y_true.max()
    return naive.grouped(metric, y_true, y_score, qid, **kwargs)


@pytest.mark.parametrize("name", sorted(METRICS))
@pytest.mark.parametrize("k", [None, 1, 2, 3, 5])
@pytest.mark.parametrize("seed", range(25))
def test_ties_average_equals_mean_over_all_orderings(name, k, seed):
    if name in WITHOUT_CUTOFF and k is not None:
        pytest.skip("bpref has no cutoff")
    y_true, y_score, qid = random_queries(seed)
    cutoff = {} if name in WITHOUT_CUTOFF else {"k": k}
    ours = METRICS[name](y_true, y_score, qid=qid, average=False, **cutoff)
    np.testing.assert_allclose(ours, oracle(name, y_true, y_score, qid, k), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", sorted(METRICS))
@pytest.mark.parametrize("ties", ["pessimistic", "optimistic", "stable"])
def test_ties_orders_tied_documents(name, ties):
    y_true = np.array([0, 2, 1, 0, 3, 1.0])
    y_score = np.array([1, 1, 1, 0.5, 0.5, 0.2])
    metric = ORACLES[name]
    by_ties = {
        "pessimistic": [0, 1, 2, 0, 3, 1],
        "optimistic": [2, 1, 0, 3, 0, 1],
        "stable": [0, 2, 1, 0, 3, 1],
    }
    expected = metric([float(v) for v in by_ties[ties]])
    assert METRICS[name](y_true, y_score, ties=ties) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("name", sorted(METRICS))
def test_average_is_the_weighted_mean_of_per_query_values(name):
    y_true, y_score, qid = random_queries(3, n_rows=40, n_queries=6)
    weight_of_query = {q: q + 1.0 for q in range(6)}
    weight = np.array([weight_of_query[q] for q in qid])
    per_query = METRICS[name](y_true, y_score, qid=qid, average=False)
    expected = np.average(per_query, weights=[weight_of_query[q] for q in np.unique(qid)])
    assert METRICS[name](y_true, y_score, qid=qid, sample_weight=weight) == pytest.approx(expected, rel=1e-12)
    assert isinstance(METRICS[name](y_true, y_score, qid=qid), float)


@pytest.mark.parametrize("name", sorted(METRICS))
def test_zero_division_applies_to_queries_without_relevant_documents(name):
    y_true = np.array([0, 0, 0, 1, 2, 0.0])
    y_score = np.array([3, 2, 1, 3, 2, 1.0])
    qid = np.array([1, 1, 1, 2, 2, 2])
    metric = METRICS[name]
    undefined, defined = metric(y_true, y_score, qid=qid, average=False, zero_division=1.0)
    assert undefined == 1.0
    assert metric(y_true, y_score, qid=qid, zero_division=0.0) == pytest.approx(defined / 2)
    assert metric(y_true, y_score, qid=qid, zero_division=np.nan) == pytest.approx(defined)
    assert np.isnan(metric(y_true, y_score, qid=qid, zero_division=np.nan, average=False)[0])
    with pytest.warns(UserWarning, match="Every query is undefined"):
        assert np.isnan(metric([0, 0], [1, 2], zero_division=np.nan))


@pytest.mark.parametrize("name", sorted(METRICS))
def test_single_document_query_is_scored(name):
    # ERR's stop probability of grade 1 on a 0-1 scale is 1/2; RBP weighs rank 1 by 1 - p.
    expected = {"err": 0.5, "rbp": 0.2}.get(name, 1.0)
    assert METRICS[name]([1], [0.3]) == pytest.approx(expected)


@pytest.mark.parametrize("name", sorted(NORMALISED - {"err", "f1", "rbp"}))
def test_perfect_ranking_scores_one(name):
    y_true = np.array([3, 2, 2, 1, 0, 0, 1, 1, 0.0])
    qid = np.array([1, 1, 1, 1, 1, 2, 2, 2, 2])
    kwargs = {"k": 1} if name == "precision" else {}
    assert METRICS[name](y_true, y_true, qid=qid, **kwargs) == 1.0


@pytest.mark.parametrize("name", sorted(METRICS))
def test_qid_of_any_comparable_type_gives_the_same_values(name):
    y_true, y_score, codes = random_queries(11, n_rows=30, n_queries=5)
    expected = METRICS[name](y_true, y_score, qid=codes, average=False)
    names = np.array(["q0", "q1", "q2", "q3", "q4"])[codes]
    for qid in (
        names,
        names.astype(object),
        pd.Series(names),
        pd.Categorical(names),
        codes * 1_000_000_007,
        codes.astype(np.uint8),
        codes + 0.5,
        list(codes),
    ):
        np.testing.assert_allclose(METRICS[name](y_true, y_score, qid=qid, average=False), expected)


@pytest.mark.parametrize("name", sorted(METRICS))
def test_inputs_are_not_modified(name):
    y_true, y_score, qid = random_queries(5, n_rows=20)
    copies = [a.copy() for a in (y_true, y_score, qid)]
    METRICS[name](y_true, y_score, qid=qid, sample_weight=np.ones(20))
    for array, copy in zip((y_true, y_score, qid), copies, strict=True):
        np.testing.assert_array_equal(array, copy)


BAD_INPUTS = [
    ({"y_score": [0.1, np.nan, 0.3]}, ValueError, "y_score contains NaN"),
    ({"y_score": [0.1, np.inf, 0.3]}, ValueError, r"y_score contains \+inf; every score must be finite, or -inf"),
    ({"y_true": [1, np.nan, 0]}, ValueError, "y_true contains NaN"),
    ({"y_true": [1, -1, 0]}, ValueError, "y_true must hold non-negative relevance labels"),
    ({"y_score": [0.1, 0.2]}, ValueError, r"y_true and y_score must have the same shape; got \(3,\) and \(2,\)"),
    ({"y_true": [[1, 0, 2]]}, ValueError, "y_true and y_score must have the same shape"),
    ({"y_true": [], "y_score": []}, ValueError, "y_true is empty"),
    ({"y_true": np.zeros((1, 1, 3)), "y_score": np.zeros((1, 1, 3))}, ValueError, "y_true must be 1-D or 2-D"),
    ({"y_true": ["a", "b", "c"]}, ValueError, "y_true must be an array-like of numbers"),
    ({"y_true": "abc"}, TypeError, "y_true must be an array-like of numbers"),
    ({"qid": [1, 1]}, ValueError, "qid has 2 values but y_true has 3 rows"),
    ({"qid": [[1, 1, 1]]}, ValueError, "qid must be 1-D"),
    ({"qid": [1, "a", 1]}, TypeError, "qid mixes values that cannot be compared"),
    ({"qid": [1.0, np.nan, 1.0]}, ValueError, r"qid has 1 missing value \(None, NaN, NaT or NA\), at row 1"),
    ({"qid": "abc"}, TypeError, "qid must be an array-like"),
    ({"sample_weight": [1, 2, 3], "qid": [1, 1, 2]}, ValueError, "sample_weight must be constant within each query"),
    ({"sample_weight": [1, -1, 1], "qid": [1, 2, 3]}, ValueError, "sample_weight must be non-negative"),
    ({"sample_weight": [1, 1]}, ValueError, "sample_weight has 2 values, expected 3"),
    ({"ties": "random"}, ValueError, "ties must be one of 'average', 'pessimistic', 'optimistic', 'stable'"),
    ({"zero_division": "warn"}, ValueError, r"zero_division must be 0.0, 1.0 or np.nan; got 'warn'"),
    ({"zero_division": 0.5}, ValueError, "zero_division must be 0.0, 1.0 or np.nan"),
    ({"average": "yes"}, TypeError, "average must be True or False"),
    ({"y_true": [[1, 0, 2]], "y_score": [[1, 0, 2]], "qid": [1, 1, 1]}, ValueError, "qid must be None when"),
]


@pytest.mark.parametrize("name", sorted(METRICS))
@pytest.mark.parametrize(("change", "error", "message"), BAD_INPUTS)
def test_bad_input_raises_a_clear_error(name, change, error, message):
    arguments = {"y_true": [1, 0, 2], "y_score": [0.3, 0.2, 0.1], **change}
    with pytest.raises(error, match=message):
        METRICS[name](arguments.pop("y_true"), arguments.pop("y_score"), **arguments)


@pytest.mark.parametrize("name", sorted(METRICS))
@pytest.mark.parametrize(
    ("k", "error", "message"),
    [
        (0, ValueError, "k must be None or an integer >= 1; got 0"),
        (-3, ValueError, "k must be None or an integer >= 1; got -3"),
        (2.5, TypeError, "k must be None or an integer >= 1; got 2.5 of type float"),
        (True, TypeError, "k must be None or an integer >= 1; got True"),
        ("10", TypeError, "k must be None or an integer"),
    ],
)
def test_bad_k_raises(name, k, error, message):
    if name in WITHOUT_CUTOFF:
        pytest.skip("bpref has no cutoff")
    with pytest.raises(error, match=message):
        METRICS[name]([1, 0, 2], [0.3, 0.2, 0.1], k=k)


@pytest.mark.parametrize("name", sorted(METRICS))
def test_k_beyond_the_list_uses_the_whole_list(name):
    if name in WITHOUT_CUTOFF:
        pytest.skip("bpref has no cutoff")
    y_true, y_score, qid = random_queries(8, n_rows=12)
    whole = METRICS[name](y_true, y_score, qid=qid, k=None, average=False)
    beyond = METRICS[name](y_true, y_score, qid=qid, k=100, average=False)
    sizes = np.bincount(qid)[np.unique(qid)]
    if name == "precision":
        np.testing.assert_allclose(beyond, whole * sizes / 100)
    elif name == "f1":  # 2 hits / (k + R): k is the list's length for k=None
        n_relevant = np.bincount(qid, weights=y_true >= 1)[np.unique(qid)]
        np.testing.assert_allclose(beyond, whole * (sizes + n_relevant) / (100 + n_relevant))
    else:
        np.testing.assert_allclose(beyond, whole)
    np.testing.assert_array_equal(
        METRICS[name](y_true, y_score, qid=qid, k=np.int64(3)), METRICS[name](y_true, y_score, qid=qid, k=3)
    )


METRIC_OPTIONS = [
    ("dcg", {"gain": "quadratic"}, ValueError, "gain must be one of 'linear', 'exponential'; got 'quadratic'"),
    ("ndcg", {"discount": "log10"}, ValueError, "discount must be one of 'log2', 'jarvelin'; got 'log10'"),
    ("ndcg", {"discount": lambda ranks: ranks[:1]}, ValueError, "A callable discount must map the 1-D array"),
    ("ndcg", {"discount": lambda ranks: ranks * np.nan}, ValueError, "to an array of finite weights"),
    ("map", {"denominator": "min"}, ValueError, "denominator must be one of 'relevant', 'capped'; got 'min'"),
    ("precision", {"relevance_threshold": 0}, ValueError, r"relevance_threshold must be in \(0, inf\); got 0.0"),
    ("recall", {"relevance_threshold": "1"}, TypeError, "relevance_threshold must be a real number"),
    ("err", {"max_grade": 1}, ValueError, "y_true has a label of 2, above max_grade=1"),
    ("err", {"max_grade": -1}, ValueError, r"max_grade must be in \[0, inf\); got -1.0"),
]


@pytest.mark.parametrize(("name", "options", "error", "message"), METRIC_OPTIONS)
def test_bad_metric_options_raise(name, options, error, message):
    with pytest.raises(error, match=message):
        METRICS[name]([1, 0, 2], [0.3, 0.2, 0.1], **options)


@pytest.mark.parametrize("name", ["dcg", "ndcg", "cg"])
def test_exponential_gain_refuses_labels_that_overflow(name):
    with pytest.raises(ValueError, match="overflows float64 for labels above 1023; got a label of 2000"):
        METRICS[name]([2000, 0], [0.5, 0.1], gain="exponential")
    assert np.isfinite(METRICS[name]([1023, 0], [0.5, 0.1], gain="exponential"))


# Messages show the values given as Python values: 0, not np.int64(0); 'a', not np.str_('a').
def importance(**options):
    X, y, qid = make_ranking(n_queries=10, n_features=3, random_state=0)
    return permutation_importance(GroupedRanker(Ridge()).fit(X, y, qid=qid), X, y, qid=qid, **options)


def fit_grouped(**params):
    X, y, qid = make_ranking(n_queries=5, random_state=0)
    return GroupedRanker(Ridge(), **params).fit(X, y, qid=qid)


NUMPY_VALUES = {
    "n_repeats": (
        lambda: importance(n_repeats=np.int64(0)),
        "n_repeats must be an integer >= 1; got 0.",
    ),
    "n_repeats float": (
        lambda: importance(n_repeats=np.float64(2)),
        "n_repeats must be an integer >= 1; got 2.0 of type float64.",
    ),
    "early_stopping_rounds": (
        lambda: fit_grouped(early_stopping_rounds=np.int64(0)),
        "early_stopping_rounds must be None or an integer >= 1; got 0.",
    ),
    "validation_fraction": (
        lambda: fit_grouped(early_stopping_rounds=3, validation_fraction=np.float64(1.5)),
        "validation_fraction must be a number in (0, 1); got 1.5.",
    ),
    "n_queries": (lambda: make_ranking(n_queries=np.int64(0)), "n_queries must be an integer >= 1; got 0."),
    "n_docs": (
        lambda: make_ranking(n_docs=(np.int64(5), np.int64(2))),
        "n_docs must be an int or a (low, high) pair with low <= high; got (5, 2).",
    ),
    "subset": (
        lambda: load_lambdarank(subset=np.str_("tests")),
        "subset must be one of 'train', 'test', 'both'; got 'tests'. Did you mean 'test'?",
    ),
    "denominator": (
        lambda: recall_at_k_score([1, 0], [0.5, 0.2], k=1, denominator=np.str_("caped")),
        "denominator must be one of 'relevant', 'capped'; got 'caped'. Did you mean 'capped'?",
    ),
    "metric name": (lambda: get_ranking_scorer(np.str_("ndgc@10")), "'ndgc@10' is not a ranking metric name."),
    "k": (lambda: catalog_coverage(y_score=[[1.0, 0.0]], k=np.float64(1)), "k must be an integer >= 1; got 1.0"),
    "zero_division": (
        lambda: ranking_report([1, 0], [0.5, 0.2], metrics=["ndcg"], zero_division=np.float64(0.5)),
        "zero_division must be 0.0, 1.0 or np.nan; got 0.5.",
    ),
    "n_resamples": (
        lambda: compare_rankings([1, 0], {"a": [0.5, 0.2], "b": [0.2, 0.5]}, n_resamples=np.int64(0)),
        "n_resamples must be an integer >= 1; got 0.",
    ),
    "qid_column": (
        lambda: GroupedRanker(Ridge(), qid_column=np.int64(7)).fit(np.zeros((4, 2)), [1, 0, 1, 0]),
        "qid_column=7 is out of range for X with 2 columns",
    ),
}


@pytest.mark.parametrize("case", list(NUMPY_VALUES))
def test_messages_show_numpy_values_as_plain_python_values(case):
    call, expected = NUMPY_VALUES[case]
    with pytest.raises((ValueError, TypeError)) as raised:
        call()
    assert expected in str(raised.value)
    assert re.search(r"np\.\w+\(", str(raised.value)) is None  # no np.int64(0), np.str_('a')
