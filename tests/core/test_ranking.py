"""The one-sort machinery: query codes, rank order, segments and the cascade kernels."""

import decimal
import importlib.util
import itertools
import math
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_rankmetrics import mean_average_precision_score, ndcg_score, ranking_report
from sklearn_rankmetrics._core import _numpy_ops, _query_ids
from sklearn_rankmetrics._core._numpy_ops import NUMPY, group_by_query, positions_in_segments, rank_order
from sklearn_rankmetrics._core._query_ids import distinct_query_ids, encode_qid, factorize_query_ids, sorted_codes
from sklearn_rankmetrics.metrics._tie_expectations import symmetric_means


def reference_order(codes, y_score):
    return np.lexsort((-y_score, codes))


@pytest.mark.parametrize(
    "qid",
    [
        np.array([5, 3, 5, 9, 3]),
        np.array([2**62, -(2**62), 0, 2**62, 7]),  # too sparse for the lookup table
        np.array(["b", "a", "b", "c", "a"]),
        np.array([1.5, -2.0, 1.5, 3.0, -2.0]),
        np.array([True, False, True, True, False]),
    ],
)
def test_codes_sort_like_the_query_ids(qid):
    codes = encode_qid(qid, len(qid))
    dense = np.unique(qid, return_inverse=True)[1]
    assert np.all(codes >= 0)
    np.testing.assert_array_equal(np.unique(codes, return_inverse=True)[1], dense)


@pytest.mark.parametrize(
    "n_queries, spread",
    [(50, 1), (50, 10_000), (70_000, 1), (70_000, 3)],  # one 16-bit pass, ranks of sparse codes, two passes
)
def test_group_by_query_is_a_stable_sort_of_the_codes(n_queries, spread):
    rng = np.random.default_rng(0)
    codes = (rng.integers(0, n_queries, 200_000) * spread).astype(np.int32)
    np.testing.assert_array_equal(group_by_query(codes), np.argsort(codes, kind="stable"))


def test_rank_order_falls_back_to_lexsort_when_the_combined_key_merges_scores():
    # Scores 1 ulp apart are merged by the single float key of a wide query range.
    rng = np.random.default_rng(0)
    codes = np.repeat(np.arange(1000), 4)
    y_score = 1.0 + rng.integers(0, 4, codes.size) * np.finfo(float).eps
    y_score[::97] = 1e6  # a wide span makes the merged key coarse
    order = rank_order(codes, y_score)[0]
    np.testing.assert_array_equal(order, reference_order(codes, y_score))


@pytest.mark.parametrize("seed", range(5))
def test_rank_order_is_stable_within_ties(seed):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 20, 500)
    y_score = rng.integers(0, 5, 500) / 7
    np.testing.assert_array_equal(rank_order(codes, y_score, ties="stable")[0], reference_order(codes, y_score))


def test_rank_order_puts_worst_or_best_label_first():
    codes = np.zeros(4, dtype=int)
    y_score = np.ones(4)
    y_true = np.array([1.0, 3.0, 0.0, 2.0])
    assert list(y_true[rank_order(codes, y_score, ties="pessimistic", y_true=y_true)[0]]) == [0, 1, 2, 3]
    assert list(y_true[rank_order(codes, y_score, ties="optimistic", y_true=y_true)[0]]) == [3, 2, 1, 0]


def test_metrics_are_exact_when_scores_differ_by_one_ulp():
    y_true = np.array([0, 1, 2, 0, 1.0])
    y_score = 1.0 + np.array([4, 3, 2, 1, 0]) * np.finfo(float).eps
    qid = np.array([0, 0, 0, 10**9, 10**9])
    expected_first = (0 + 1 / np.log2(3) + 2 / np.log2(4)) / (2 + 1 / np.log2(3))
    expected_second = (1 / np.log2(3)) / 1
    per_query = ndcg_score(y_true, y_score, qid=qid, average=False)
    np.testing.assert_allclose(per_query, [expected_first, expected_second], rtol=1e-15)


def test_positions_restart_at_each_segment():
    np.testing.assert_array_equal(positions_in_segments(np.array([0, 3, 4]), 7), [0, 1, 2, 0, 0, 1, 2])


def test_exclusive_cumprod_within_segments():
    rng = np.random.default_rng(1)
    sizes = rng.integers(1, 40, 30)
    starts = np.cumsum(sizes) - sizes
    values = rng.uniform(0, 1, sizes.sum())
    expected = np.concatenate(
        [np.cumprod(np.r_[1.0, values[s : s + n - 1]]) for s, n in zip(starts, sizes, strict=True)]
    )
    np.testing.assert_allclose(NUMPY.segment_exclusive_cumprod(values, starts), expected, rtol=1e-14)


def brute_symmetric_means(values, degree):
    return [
        np.mean([math.prod(subset) for subset in itertools.combinations(values, j)]) if j else 1.0
        for j in range(degree + 1)
    ]


def test_symmetric_means_equal_the_mean_over_subsets():
    rng = np.random.default_rng(2)
    sizes = np.array([3, 1, 7, 5, 7, 2])
    degrees = np.array([3, 1, 4, 5, 7, 0])
    values = rng.uniform(0, 1, sizes.sum())
    starts = np.cumsum(sizes) - sizes
    means = symmetric_means(values, starts, sizes, degrees.max() + 1)
    for row, start, size, degree in zip(means, starts, sizes, degrees, strict=True):
        expected = brute_symmetric_means(values[start : start + size], degree)
        np.testing.assert_allclose(row[: degree + 1], expected, rtol=1e-13)
        assert not row[size + 1 :].any()  # no subset above the block's size


def test_a_large_tie_block_is_exact_and_stable():
    # One query, 2000 tied documents, 10 of them relevant: AP is the mean over orderings.
    y_true = np.zeros(2000)
    y_true[:10] = 1
    ap = mean_average_precision_score(y_true, np.zeros(2000))
    # Expected AP of r relevant documents among m shuffled ones (Bestgen 2015):
    # (r - 1) / (m - 1) + (m - r) / (m - 1) * H_m / m
    m, r = 2000, 10
    harmonic = sum(1 / i for i in range(1, m + 1))
    assert ap == pytest.approx((r - 1) / (m - 1) + (m - r) / (m - 1) * harmonic / m, rel=1e-12)


@pytest.mark.parametrize("shuffled", [False, True])
@pytest.mark.parametrize("seed", range(5))
def test_sorting_in_parallel_chunks_of_queries_is_exact(monkeypatch, seed, shuffled):

    monkeypatch.setattr(_numpy_ops, "CHUNK_ROWS", 100)
    monkeypatch.setenv("RANKMETRICS_NUM_THREADS", "3")
    rng = np.random.default_rng(seed)
    codes = np.sort(rng.integers(0, 40, 400))
    y_score = rng.integers(0, 6, 400) / 7 + 1.0 + rng.integers(0, 3, 400) * np.finfo(float).eps
    y_score[::97] = 1e6  # scores 1 ulp apart then share a key and need the exact repair
    assert len(_numpy_ops.query_chunks(codes)) - 1 >= 3  # several chunks of whole queries
    if shuffled:
        rows = rng.permutation(400)
        codes, y_score = codes[rows], y_score[rows]
    order, sorted_codes, changes = rank_order(codes, y_score, ties="stable")
    expected = reference_order(codes, y_score)
    np.testing.assert_array_equal(order, expected)
    np.testing.assert_array_equal(sorted_codes, codes[expected])
    ranked = y_score[expected]
    query_start = np.r_[True, sorted_codes[1:] != sorted_codes[:-1]]
    np.testing.assert_array_equal((changes | query_start)[1:], (ranked[1:] != ranked[:-1]) | query_start[1:])


@pytest.mark.parametrize(
    "labels",
    [[0.0, 3.0, 1.0, 3.0, 0.0], [0.5, 2.0], [-1.0, 2.0], [1023.0, 0.0], [2.0**60, 1.0], []],
)
def test_functions_of_labels_through_a_table_give_the_same_values(labels):
    from sklearn_rankmetrics.metrics._dcg import of_labels

    labels = np.array(labels)
    with np.errstate(over="ignore"):
        expected = np.exp2(labels) - 1.0
        np.testing.assert_array_equal(of_labels(lambda grade: np.exp2(grade) - 1.0, labels), expected)


def query_id_columns(numbers, names):
    """The same query ids as every type a user may pass: integer codes first, then strings of each kind."""
    pd = pytest.importorskip("pandas")
    ids = names[numbers]
    columns = {
        "integers": numbers,
        "numpy <U": ids,
        "numpy bytes": np.char.encode(ids, "utf-8"),  # UTF-8 sorts as the code points do
        "numpy StringDType": ids.astype(np.dtypes.StringDType()),
        "object array": ids.astype(object),
        "list": ids.tolist(),
        "pandas object": pd.Series(ids.astype(object), index=np.arange(len(ids))[::-1]),  # labels are not positions
        "pandas string": pd.Series(ids, dtype="string[python]"),
        "pandas categorical": pd.Series(ids, dtype="category"),
        "pandas categorical, categories in another order": pd.Series(
            pd.Categorical(ids, categories=names[::-1])  # and an unused one, when a name is never drawn
        ),
        "pandas index": pd.Index(ids),
    }
    if importlib.util.find_spec("pyarrow"):
        columns["pandas Arrow string"] = pd.Series(ids, dtype="string[pyarrow]")
        columns["pandas Arrow dtype"] = pd.Series(ids, dtype=pd.ArrowDtype(pa_string()))
    return columns


def pa_string():
    import pyarrow

    return pyarrow.string()


@pytest.mark.parametrize("grouped", [True, False], ids=["grouped", "shuffled"])
def test_every_type_of_query_id_gives_the_values_and_ids_of_integer_codes(grouped):
    rng = np.random.default_rng(4)
    # Names that sort as their numbers do, of several lengths, non-ASCII and one empty.
    names = np.array(["", "a", "b\u00e9", "b\u00e9\u00e9", "c" * 40, "d\u4e2d", "e0", "e1", "f"])
    numbers = np.sort(rng.integers(0, len(names) - 1, 400)) if grouped else rng.integers(0, len(names) - 1, 400)
    y_true, y_score = rng.integers(0, 3, 400).astype(float), rng.integers(0, 6, 400).astype(float)
    metrics = ["ndcg@10", "map", "mrr", "recall@3"]
    expected = ranking_report(y_true, y_score, qid=numbers, metrics=metrics, average=False)
    for name, qid in query_id_columns(numbers, names).items():
        report = ranking_report(y_true, y_score, qid=qid, metrics=metrics, average=False)
        for metric in metrics:
            np.testing.assert_array_equal(report[metric], expected[metric], err_msg=name)
        assert ranking_report(y_true, y_score, qid=qid, metrics=metrics) == ranking_report(
            y_true, y_score, qid=numbers, metrics=metrics
        ), name
        # The ids of the per-query table are np.unique's, dtype included.
        ids = np.unique(np.asarray(qid))
        np.testing.assert_array_equal(report["qid"], ids, err_msg=name)
        assert report["qid"].dtype == ids.dtype, name
        codes = encode_qid(qid, len(numbers))
        np.testing.assert_array_equal(
            np.unique(codes, return_inverse=True)[1], np.unique(numbers, return_inverse=True)[1]
        )
        distinct, counts = distinct_query_ids(qid, return_counts=True)
        np.testing.assert_array_equal(distinct, ids, err_msg=name)
        np.testing.assert_array_equal(counts, np.bincount(numbers)[np.bincount(numbers) > 0], err_msg=name)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.text(max_size=6) | st.binary(max_size=6).map(lambda b: b.decode("latin-1")), min_size=1, max_size=8),
    st.lists(st.integers(0, 7), min_size=1, max_size=60),
    st.sampled_from(["U", "S", "O"]),
)
def test_factorized_ids_equal_np_unique(names, picks, kind):
    values = np.array([names[pick % len(names)] for pick in picks], dtype=object)
    if kind == "S":
        values = np.array([value.encode("utf-8") for value in values], dtype="S")
    elif kind == "U":
        values = values.astype(str)
    distinct, codes = factorize_query_ids(values)
    expected, inverse = np.unique(values, return_inverse=True)
    np.testing.assert_array_equal(distinct, expected)
    assert distinct.dtype == expected.dtype
    np.testing.assert_array_equal(codes, inverse)


def test_ids_whose_hashes_clash_are_told_apart(monkeypatch):
    # With a hash of three values, most distinct ids clash: they must still be told apart exactly.
    hashes = _query_ids.word_hashes
    monkeypatch.setattr(_query_ids, "word_hashes", lambda words: hashes(words) % np.uint64(3))
    rng = np.random.default_rng(5)
    for grouped in (True, False):
        values = np.array([f"q{number}" for number in rng.integers(0, 50, 1000)])
        values = np.sort(values) if grouped else values
        distinct, codes = factorize_query_ids(values)
        expected, inverse = np.unique(values, return_inverse=True)
        np.testing.assert_array_equal(distinct, expected)
        np.testing.assert_array_equal(codes, inverse)


def test_objects_without_pandas_are_factorized_by_a_dict(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas fails
    rng = np.random.default_rng(6)
    for values in (
        np.array([f"q{number}" for number in np.sort(rng.integers(0, 30, 500))], dtype=object),
        np.array([("a", number % 3) for number in rng.integers(0, 30, 500)] + [5, 5.0, True], dtype=object)[:-3],
        np.array([5, 5.0, 7, np.int64(7), 2.5, True, 1], dtype=object),  # equal numbers are one id, as for np.unique
    ):
        distinct, codes = factorize_query_ids(values)
        expected, inverse = np.unique(values, return_inverse=True)
        assert distinct.tolist() == expected.tolist()
        np.testing.assert_array_equal(codes, inverse)


@pytest.mark.parametrize("without_pandas", [False, True])
def test_string_ids_refuse_missing_and_mixed_values_as_before(monkeypatch, without_pandas):
    pd = pytest.importorskip("pandas")
    columns = [
        np.array(["a", "a", None, "b"], dtype=object),
        np.array(["a", "a", np.nan, "b"], dtype=object),
        pd.Series(["a", "a", None, "b"], dtype="string[python]"),
        pd.Series(["a", "a", None, "b"], dtype="category"),
    ]
    if without_pandas:
        monkeypatch.setitem(sys.modules, "pandas", None)
        columns = columns[:2]
    for qid in columns:
        with pytest.raises(ValueError, match=r"qid has 1 missing value \(None, NaN, NaT or NA\), at row 2"):
            ndcg_score([1, 0, 1, 0], [4, 3, 2, 1], qid=qid)
    with pytest.raises(TypeError, match="qid mixes values that cannot be compared"):
        ndcg_score([1, 0, 1, 0], [4, 3, 2, 1], qid=np.array(["a", 1, "a", 1], dtype=object))


@pytest.mark.parametrize("without_pandas", [False, True])
def test_ids_not_equal_to_themselves_are_refused_as_missing_whatever_their_type(monkeypatch, without_pandas):
    # Decimal("NaN") got pandas' code -1 unseen, and rank[-1] put its rows into the last query; Decimal("sNaN")
    # raised a bare decimal.InvalidOperation.
    pd = pytest.importorskip("pandas")
    nan, signalling = decimal.Decimal("NaN"), decimal.Decimal("sNaN")
    ids = [decimal.Decimal(1), decimal.Decimal(1), decimal.Decimal(2)]
    columns = [
        np.array([*ids, nan], dtype=object),
        [*ids, nan],
        np.array([*ids, signalling], dtype=object),
        [*ids, signalling],
        np.array([1, 1, 2, complex("nan")]),
        pd.Series([*ids, nan]),
    ]
    if without_pandas:
        monkeypatch.setitem(sys.modules, "pandas", None)
        columns = columns[:-1]
    for qid in columns:
        with pytest.raises(ValueError, match=r"qid has 1 missing value \(None, NaN, NaT or NA\), at row 3"):
            ndcg_score([1, 0, 1, 0], [4, 3, 2, 1], qid=qid)
        with pytest.raises(ValueError, match=r"qid has 1 missing value"):
            ranking_report([1, 0, 1, 0], [4, 3, 2, 1], qid=qid, metrics=["mrr"], average=False)


def test_a_row_without_a_code_never_joins_the_last_query():
    # Every factorization passes through sorted_codes: a code of -1 (pandas' mark of a missing id) is refused
    # there, whichever id gave it, rather than indexing the last distinct id.
    with pytest.raises(ValueError, match=r"qid has 2 missing values \(None, NaN, NaT or NA\), at rows 1, 3"):
        sorted_codes(np.array(["b", "a"], dtype=object), np.array([0, -1, 1, -1]))


def test_distinct_ids_keep_ids_that_differ_only_by_trailing_nuls():
    # numpy's fixed-width strings drop trailing NULs: "a" and "a\x00" were one id for the guards.
    for qid in (["a", "a\x00", "b", "a"], [b"a", b"a\x00", b"b", b"a"]):
        ids, sizes = distinct_query_ids(qid, return_counts=True)
        assert ids.tolist() == np.unique(np.array(qid, dtype=object)).tolist()
        assert sizes.tolist() == [2, 1, 1]
    ids = distinct_query_ids(["b", "a", "b"])  # ids that fixed-width strings hold exactly: as np.unique gives them
    assert ids.dtype == np.unique(["b", "a", "b"]).dtype and ids.tolist() == ["a", "b"]
