"""Regression tests of issue #16: silent wrong results, crashes, and inputs that slipped past validation.

Hangs (forked children) are tested in subprocesses in test_parallel.py.
"""

import gzip
import io
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.linear_model import Ridge
from sklearn.metrics import ndcg_score as sklearn_ndcg_score

from sklearn_rankmetrics import (
    GroupedRanker,
    alpha_ndcg_score,
    bpref_score,
    dcg_score,
    f1_at_k_score,
    get_ranking_scorer,
    intent_aware_err_score,
    load_svmlight_ranking,
    make_ranking,
    make_ranking_scorer,
    ndcg_score,
    precision_at_k_score,
    qid_from_sizes,
    r_precision_score,
    ranking_report,
    subtopic_recall_score,
)
from sklearn_rankmetrics.registry._registry import METRICS

DIVERSITY = [alpha_ndcg_score, intent_aware_err_score, subtopic_recall_score]
INTEGER_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def rows(n=50, seed=1):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 4, n), rng.random(n)


# 1. Integer query ids of every dtype, at its limits.
def test_negative_small_integer_ids_do_not_merge_queries():
    y_true, y_score = rows()
    narrow = np.repeat(np.array([-100, 100], dtype=np.int8), [10, 40])
    expected = ndcg_score(y_true, y_score, qid=narrow.astype(np.int64))
    assert ndcg_score(y_true, y_score, qid=narrow) == expected
    # 0.7157661873983168: scikit-learn's ndcg_score (linear gain, ties averaged, no cutoff) of each of the two
    # queries (rows 0-9 and 10-49), averaged.
    queries = [slice(0, 10), slice(10, 50)]
    reference = np.mean([sklearn_ndcg_score([y_true[q]], [y_score[q]]) for q in queries])
    assert expected == pytest.approx(reference, rel=1e-12)
    assert expected == pytest.approx(0.7157661873983168, rel=1e-12)


@pytest.mark.parametrize("dtype", INTEGER_DTYPES)
def test_every_integer_dtype_at_its_limits_keeps_queries_apart(dtype):
    info = np.iinfo(dtype)
    ids = [info.min, info.min + 1, 0, info.max - 1, info.max] if info.min < 0 else [0, 1, info.max - 1, info.max]
    sizes = np.arange(3, 3 + len(ids))
    qid = np.repeat(np.array(ids, dtype=dtype), sizes)
    y_true, y_score = rows(len(qid), seed=int(sizes.sum()))
    expected = ndcg_score(y_true, y_score, qid=np.repeat(np.arange(len(ids)), sizes), average=False)
    np.testing.assert_array_equal(ndcg_score(y_true, y_score, qid=qid, average=False), expected)
    # A range of ids a few times the row count takes the shifting path rather than ranking the ids.
    close = np.repeat(np.array([info.max - 3, info.max - 1, info.max], dtype=dtype), [4, 4, 4])
    y_true, y_score = rows(12)
    np.testing.assert_array_equal(
        ndcg_score(y_true, y_score, qid=close, average=False),
        ndcg_score(y_true, y_score, qid=np.repeat([0, 1, 2], 4), average=False),
    )


class RecordingRanker(RegressorMixin, BaseEstimator):
    """Records the group parameter it was given, as XGBoost's ranker would receive it."""

    def fit(self, X, y, qid=None):
        self.qid_ = np.asarray(qid)
        return self

    def predict(self, X):
        return np.zeros(X.shape[0])


@pytest.mark.parametrize("dtype", [np.int8, np.int16])
def test_grouped_ranker_hands_xgboost_sorted_codes_from_small_signed_ids(dtype):
    qid = np.array([100, -100, 100, -100, 5], dtype=dtype)
    ranker = GroupedRanker(RecordingRanker()).fit(np.zeros((5, 1)), np.zeros(5), qid=qid)
    assert ranker.group_param_ == "qid"
    np.testing.assert_array_equal(ranker.estimator_.qid_, [0, 0, 1, 2, 2])


# 2. GroupedRanker checks the lengths of what it is given.
@pytest.mark.parametrize(
    ("cut", "message"),
    [
        ({"X": slice(1, None), "qid": slice(1, None)}, "X has 99, y has 100, qid has 99"),
        ({"y": slice(None, -1)}, "X has 100, y has 99, qid has 100"),
        ({"qid": slice(None, -1)}, "X has 100, y has 100, qid has 99"),
        ({"sample_weight": slice(None, -2)}, "X has 100, y has 100, qid has 100, sample_weight has 98"),
    ],
)
@pytest.mark.parametrize("method", ["fit", "score"])
def test_grouped_ranker_checks_lengths(cut, message, method):
    X, y, qid = make_ranking(n_queries=10, n_docs=10, random_state=0)
    data = {"X": X, "y": y, "qid": qid, "sample_weight": np.ones(len(y))}
    data = {name: value[cut.get(name, slice(None))] for name, value in data.items()}
    ranker = GroupedRanker(Ridge())
    if method == "score":
        ranker.fit(X, y, qid=qid)
    with pytest.raises(ValueError, match=f"GroupedRanker.{method} got inconsistent numbers of rows: {message}"):
        getattr(ranker, method)(data.pop("X"), data.pop("y"), **data)


# 3. and 12. The svmlight loader: rows without a query id, file objects.
@pytest.mark.parametrize(
    ("content", "line"),
    [(b"2 qid:7 1:0.5\n0 1:0.1\n1 qid:9 2:1.0\n", 2), (b"# comment\n\n2 1:0.5\n0 1:0.1\n", 3)],
)
@pytest.mark.parametrize("form", ["path", "gzip path", "bytes", "text"])
def test_loader_names_the_first_line_without_a_query_id(tmp_path, content, line, form):
    path = tmp_path / ("rank.txt.gz" if form == "gzip path" else "rank.txt")
    path.write_bytes(gzip.compress(content) if form == "gzip path" else content)
    source = {"bytes": io.BytesIO(content), "text": io.StringIO(content.decode())}.get(form, path)
    name = {"bytes": "BytesIO", "text": "StringIO"}.get(form, str(path))
    with pytest.raises(ValueError, match=f"{name}, line {line}: the row has no qid: field"):
        load_svmlight_ranking(source)


@pytest.mark.parametrize("wrap", [io.BytesIO, lambda content: io.StringIO(content.decode())])
def test_loader_reads_file_objects(wrap):
    X, y, qid = load_svmlight_ranking(wrap(b"2 qid:7 1:0.5\n0 qid:7 1:0.1\n1 qid:9 2:1.0\n"))
    assert X.shape == (3, 2)
    np.testing.assert_array_equal(y, [2, 0, 1])
    np.testing.assert_array_equal(qid, [7, 7, 9])
    X, y, qid = load_svmlight_ranking(io.BytesIO(b"2 1:0.5\n0 1:0.1\n1 2:1.0\n"), query_path=io.StringIO("2\n1\n"))
    np.testing.assert_array_equal(qid, [0, 0, 1])


def test_loader_refuses_what_is_not_a_file():
    with pytest.raises(TypeError, match="path must be a path or a file object; got 3 of type int"):
        load_svmlight_ranking(3)


# 4. Metric names state each option once.
@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("ndcg@10(k=5)", r"'ndcg@10\(k=5\)' gives the cutoff k more than once"),
        ("ndcg_cut_10@5", "'ndcg_cut_10@5' gives the cutoff k more than once"),
        ("map(k=3)(denominator='capped')", "must be keyword=literal pairs"),
        ("ndcg(k=3, k=4)", "sets k twice; give each option once"),
        ("ndcg(zero_division=0.0, zero_division=1.0)", "sets zero_division twice"),
        ("ndcg_exp(gain='linear')", "sets gain, which 'ndcg_exp' already sets to 'exponential'"),
        ("ndcg(**{'k': 3})", "must be keyword=literal pairs"),
        ("ndcg(k=x.y)", "must be keyword=literal pairs"),
        ("ndcg(k=[[1], 2])", "must be keyword=literal pairs"),
        ("ndcg(k=-True)", "must be keyword=literal pairs"),
        ("ndcg(" + "(" * 240 + ")" * 240 + ")", "must be keyword=literal pairs"),
        ("ndcg(k=" + "[" * 200 + "]" * 200 + ")", "must be keyword=literal pairs"),
        ("ndcg(" + "k=1, " * 200 + ")", "at most 500 characters"),
        ("x" * 10**6, "at most 500 characters"),
    ],
)
def test_malformed_names_raise_value_errors(name, message):
    with pytest.raises(ValueError, match=message):
        get_ranking_scorer(name)
    with pytest.raises(ValueError, match=message):
        ranking_report([1, 0], [0.5, 0.2], metrics=[name])


def test_report_refuses_a_cutoff_given_twice():
    with pytest.raises(ValueError, match=r"'ndcg@1\(k=3\)' gives the cutoff k more than once"):
        ranking_report([1, 0, 1], [0.5, 0.2, 0.1], metrics=["ndcg@1(k=3)"])


def test_signed_and_special_literals_read_back():
    assert repr(get_ranking_scorer("ndcg@10(zero_division=nan)")) == "ndcg@10(zero_division=nan)"
    assert repr(get_ranking_scorer("err(max_grade=+4)")) == "err(max_grade=4)"


# 5. Every missing-value marker is refused, by every metric.
MISSING = {
    "None in a list": [1, 1, None, 2, 2, 2],
    "NaN in an object array": np.array([1.0, 1, np.nan, 2, 2, 2], dtype=object),
    "NaN in a float array": np.array([1.0, 1, np.nan, 2, 2, 2]),
    "NaT in a datetime array": np.array(
        ["2020-01-01", "2020-01-01", "NaT", "2020-01-02"] + ["2020-01-02"] * 2, "M8[D]"
    ),
    "NaT in a timedelta array": np.array([1, 1, "NaT", 2, 2, 2], dtype="m8[s]"),
    "pandas NA": pd.array([1, 1, None, 2, 2, 2], dtype="Int64"),
    "pandas NaT": pd.Series(
        pd.to_datetime(["2020-01-01", "2020-01-01", None, "2020-01-02", "2020-01-02", "2020-01-02"])
    ),
    "None among strings": pd.Series(["a", "a", None, "b", "b", "b"]),
}


@pytest.mark.parametrize("marker", sorted(MISSING))
@pytest.mark.parametrize("metric", [*METRICS.values(), *DIVERSITY, ranking_report], ids=lambda f: f.__name__)
def test_every_metric_refuses_every_missing_query_id(metric, marker):
    y_true = [[1, 0], [0, 1], [1, 1], [0, 0], [1, 0], [0, 1]] if metric in DIVERSITY else [1, 0, 1, 0, 1, 0]
    with pytest.raises(ValueError, match=r"qid has 1 missing value \(None, NaN, NaT or NA\), at row 2; every row"):
        metric(y_true, [6, 5, 4, 3, 2, 1], qid=MISSING[marker])


def test_missing_ids_are_counted_and_the_first_rows_named():
    qid = [None] * 7 + [1]
    with pytest.raises(ValueError, match=r"qid has 7 missing values .* at rows 0, 1, 2, 3, 4, \.\.\.;"):
        ndcg_score([1] * 8, np.arange(8.0), qid=qid)


# 6. Huge labels: exact, or an error; never nan or inf.
@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize(
    ("y_true", "gain"),
    [([1023] * 3, "exponential"), ([1e308] * 3, "linear"), ([1023, 1023, 1, 0], "exponential")],
)
def test_ndcg_of_huge_labels_is_exact(y_true, gain):
    y_score = np.arange(len(y_true), 0, -1.0)
    assert ndcg_score(y_true, y_score, gain=gain) == 1.0
    tied = ndcg_score(y_true, np.ones(len(y_true)), gain=gain)
    assert np.isfinite(tied) and 0 < tied <= 1
    assert ranking_report(y_true, y_score, metrics=["ndcg", "map"]) == {"ndcg": 1.0, "map": 1.0}


@pytest.mark.filterwarnings("error")
def test_ndcg_of_huge_labels_matches_rescaled_labels():
    y_true = np.array([1e308, 3e307, 0, 5e306, 1e308])
    y_score = np.array([0.1, 0.9, 0.5, 0.7, 0.3])
    assert ndcg_score(y_true, y_score) == pytest.approx(ndcg_score(y_true / 1e300, y_score), rel=1e-14)


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("metric", [dcg_score, METRICS["cg"]], ids=["dcg", "cg"])
def test_unrepresentable_gains_raise(metric):
    with pytest.raises(ValueError, match=r"exceeds the largest float64 .* cannot be represented\. Rescale the labels"):
        metric([1023] * 3, [3, 2, 1], gain="exponential")


@pytest.mark.filterwarnings("error")
def test_means_of_huge_values_and_weights_stay_finite():
    assert dcg_score([1e308, 0, 1e308, 0], [3, 2, 1, 0], qid=[1, 1, 2, 2]) == 1e308
    weights = [1e308] * 4
    assert ndcg_score([1, 0, 1, 0], [1, 2, 3, 4], qid=[1, 1, 2, 2], sample_weight=weights) == pytest.approx(
        ndcg_score([1, 0, 1, 0], [1, 2, 3, 4], qid=[1, 1, 2, 2]), rel=1e-15
    )


# 8. Every k >= 1 works for every metric.
@pytest.mark.parametrize("k", [2**31, sys.maxsize, 10**30])
@pytest.mark.parametrize("metric", [*METRICS.values(), *DIVERSITY], ids=lambda f: f.__name__)
@pytest.mark.parametrize("y_score", [[0.4, 0.3, 0.3, 0.1], [0.4, 0.3, 0.2, 0.1]], ids=["ties", "no ties"])
def test_huge_cutoffs_cut_nothing(metric, k, y_score):
    if metric is bpref_score:
        pytest.skip("bpref has no cutoff")
    y_true = [[1, 0], [0, 1], [1, 1], [0, 0]] if metric in DIVERSITY else [1, 0, 1, 0]
    expected = metric(y_true, y_score)
    if metric is precision_at_k_score:
        expected *= 4 / k  # P@k divides by k even past the end of the query
    if metric is f1_at_k_score:
        expected *= (4 + 2) / (k + 2)  # 2 hits / (k + R), k the list's length for k=None
    assert metric(y_true, y_score, k=k) == pytest.approx(expected, rel=1e-15)


def test_r_precision_with_the_largest_cutoff():
    assert r_precision_score([1, 0, 1], [0.9, 0.8, 0.7], k=sys.maxsize) == 0.5


# 9. and 10. The qid column: duplicate names, every sparse format.
def test_two_columns_named_as_the_qid_column_raise():
    X = pd.DataFrame(np.arange(12.0).reshape(4, 3), columns=["qid", "a", "qid"])
    with pytest.raises(ValueError, match="qid_column='qid' names 2 columns of X; it must name exactly one"):
        GroupedRanker(Ridge(), qid_column="qid").fit(X, [1, 0, 1, 0])
    with pytest.raises(ValueError, match="qid_column='qid' names 2 columns of X"):
        get_ranking_scorer("ndcg(qid_column='qid')")(Ridge().fit(X.to_numpy(), [1, 0, 1, 0]), X, [1, 0, 1, 0])


@pytest.mark.parametrize("sparse_format", ["coo", "csr", "csc", "lil", "dok", "dia", "bsr"])
def test_every_sparse_format_takes_a_qid_column(sparse_format):
    X, y, qid = make_ranking(n_queries=10, n_docs=6, n_features=3, random_state=0)
    dense = np.column_stack([qid, X])
    X_sparse = sp.coo_matrix(dense).asformat(sparse_format)
    ranker = GroupedRanker(Ridge(), qid_column=0).fit(X_sparse, y)
    scorer = get_ranking_scorer("ndcg@5(qid_column=0)")
    expected = ndcg_score(y, Ridge().fit(X, y).predict(X), qid=qid, k=5)
    assert scorer(ranker, X_sparse, y) == pytest.approx(expected, rel=1e-10)


# 11. Query sizes of every integer dtype.
@pytest.mark.parametrize("dtype", INTEGER_DTYPES)
def test_qid_from_sizes_takes_every_integer_dtype(dtype):
    np.testing.assert_array_equal(qid_from_sizes(np.array([2, 0, 1], dtype=dtype)), [0, 0, 2])


# 13. A scorer's repr reads back, whatever the type of its options.
def test_repr_with_numpy_scalar_options_reads_back():
    scorer = make_ranking_scorer(
        precision_at_k_score, k=np.int64(5), relevance_threshold=np.float64(2.0), zero_division=np.float32(1.0)
    )
    assert repr(scorer) == "precision@5(relevance_threshold=2.0, zero_division=1.0)"
    assert get_ranking_scorer(repr(scorer)) == scorer


# Property tests: any id type gives the per-query values of int64 ids.
ID_KINDS = {
    **{
        np.dtype(dtype).name: lambda codes, dtype=dtype: np.iinfo(dtype).max - codes.astype(dtype)
        for dtype in INTEGER_DTYPES
    },
    "negative int8": lambda codes: (codes - 100).astype(np.int8),
    "float": lambda codes: codes * 0.5 - 3.0,
    "str": lambda codes: [f"q{code}" for code in codes],
    "bytes": lambda codes: [b"q%d" % code for code in codes],
    "tuple": lambda codes: [(int(code) % 2, f"q{code}") for code in codes],
    "datetime": lambda codes: np.datetime64("2020-01-01") + codes.astype("m8[D]"),
    "bool": lambda codes: codes > 0,
    "pandas categorical": lambda codes: pd.Categorical([f"q{code}" for code in codes]),
}


@given(
    codes=st.lists(st.integers(0, 5), min_size=1, max_size=40),
    kind=st.sampled_from(sorted(ID_KINDS)),
    seed=st.integers(0, 2**16),
)
def test_any_id_type_gives_the_per_query_values_of_int64_ids(codes, kind, seed):
    codes = np.asarray(codes)
    if kind == "bool":
        codes = np.minimum(codes, 1)
    rng = np.random.default_rng(seed)
    y_true, y_score = rng.integers(0, 3, len(codes)), rng.integers(0, 4, len(codes)).astype(float)
    ids = ID_KINDS[kind](codes)
    names = ["ndcg@3", "map", "err"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # queries without a relevant document
        report = ranking_report(y_true, y_score, qid=ids, metrics=names, average=False)
        by_int = ranking_report(y_true, y_score, qid=codes.astype(np.int64), metrics=names, average=False)
    id_of = {int(code): ids[row] for row, code in enumerate(codes)}
    for name in names:
        got = dict(zip(report["qid"], report[name], strict=True))
        assert len(got) == len(by_int["qid"])
        for code, value in zip(by_int["qid"], by_int[name], strict=True):
            assert got[id_of[code]] == value, (kind, name, code)
