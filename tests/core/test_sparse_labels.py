"""A scipy sparse users x items y_true gives what its dense matrix gives, whichever entries it stores (issue 36, 10).

A batch of users with no held-out item is a sparse matrix without any stored
entry (or with stored zeros only): every metric and the report must score it
as its dense zeros, and a matrix with some empty rows as its dense matrix, in
every scipy format, arrays and matrices alike.
"""

import inspect
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_rankmetrics import ranking_report
from sklearn_rankmetrics._core._tolerance import equal_up_to_rounding, values_scale
from sklearn_rankmetrics.registry._registry import HOST_METRICS, METRICS

RANKING_METRICS = {**METRICS, **HOST_METRICS}
FORMATS = ["csr", "csc", "coo", "lil", "dok", "dia", "bsr"]
KINDS = ["array", "matrix"]


def labels(case, rng):
    """A users x items label matrix (dense), and the entries to store explicitly as 0."""
    dense = np.zeros((5, 7))
    if case == "rows without labels":
        dense[[0, 3]] = rng.integers(0, 3, (2, 7))
        dense[0, 0] = 2  # user 0 has a relevant item
    zeros = rng.random((5, 7)) < 0.3 if case != "no entry" else np.zeros((5, 7), dtype=bool)
    return dense, zeros & (dense == 0)


def as_sparse(dense, zeros, kind, sparse_format):
    """``dense`` as a sparse array or matrix (``kind``) of ``sparse_format`` that also stores the ``zeros`` entries."""
    rows, columns = np.nonzero((dense != 0) | zeros)
    coo = {"array": sp.coo_array, "matrix": sp.coo_matrix}[kind]
    return coo((dense[rows, columns], (rows, columns)), shape=dense.shape).asformat(sparse_format)


def outcome(function, *args, **kwargs):
    """A result (values, or the error type and message) and the warnings' messages."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = function(*args, **kwargs)
        except (ValueError, TypeError) as error:
            result = (type(error), str(error))
    return result, sorted(str(warning.message) for warning in caught)


def assert_equal_values(found, expected, name=""):
    """Equal up to rounding (the sparse path ranks fewer rows, so sums may differ in the last bits), NaN alike."""
    found, expected = np.asarray(found, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    assert found.shape == expected.shape, name
    np.testing.assert_array_equal(np.isnan(found), np.isnan(expected), err_msg=name)
    defined = ~np.isnan(expected)
    scale = values_scale(np.concatenate((found[defined], expected[defined])))
    assert equal_up_to_rounding(found[defined], expected[defined], scale=scale).all(), (name, found, expected)


def assert_same(found, expected):
    (values, warned), (expected_values, expected_warned) = found, expected
    assert warned == expected_warned
    if isinstance(expected_values, dict):
        assert values.keys() == expected_values.keys()
        for name in expected_values:
            if name == "qid":
                np.testing.assert_array_equal(values[name], expected_values[name])
            else:
                assert_equal_values(values[name], expected_values[name], name)
    elif isinstance(expected_values, tuple):
        assert values == expected_values
    else:
        assert_equal_values(values, expected_values)


CASES = ["no entry", "stored zeros only", "rows without labels"]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", sorted(RANKING_METRICS))
def test_every_metric_scores_a_sparse_y_true_without_entries_as_its_dense_zeros(name, case):
    rng = np.random.default_rng(len(name))
    dense, zeros = labels(case, rng)
    y_score = rng.random(dense.shape).round(1)  # ties too
    metric = RANKING_METRICS[name]
    has_k = "k" in inspect.signature(metric).parameters
    # Every format at k=3 (or without a cutoff); the other cutoffs (one, beyond the items, none) in one format.
    sources = [(kind, sparse_format, 3 if has_k else None) for kind in KINDS for sparse_format in FORMATS]
    sources += [("array", "csr", k) for k in ([None, 1, 10] if has_k else [])]
    for kind, sparse_format, k in sources:
        options = {} if k is None else {"k": k}
        y_true = as_sparse(dense, zeros, kind, sparse_format)
        for average in (False, True):
            expected = outcome(metric, dense, y_score, average=average, **options)
            assert_same(outcome(metric, y_true, y_score, average=average, **options), expected)


@pytest.mark.parametrize("case", CASES)
def test_ranking_report_of_a_sparse_y_true_without_entries_is_that_of_its_dense_zeros(case):
    rng = np.random.default_rng(1)
    dense, zeros = labels(case, rng)
    y_score = rng.random(dense.shape)  # no ties: INST and INSQ cannot average over them
    names = [name if name in ("bpref", "compat", "opa") else f"{name}@3" for name in RANKING_METRICS]
    names += ["ndcg@1", "precision@10", "ndcg"]  # a cutoff beyond the items, and none
    for average in (False, True):
        expected = outcome(ranking_report, dense, y_score, metrics=names, average=average)
        assert not isinstance(expected[0], tuple), expected
        for kind in KINDS:
            for sparse_format in FORMATS:
                y_true = as_sparse(dense, zeros, kind, sparse_format)
                assert_same(outcome(ranking_report, y_true, y_score, metrics=names, average=average), expected)


@pytest.mark.parametrize("shape", [(0, 4), (3, 0), (0, 0)])
@pytest.mark.parametrize("name", ["ndcg", "precision", "bpref"])
def test_an_empty_sparse_y_true_is_refused_as_its_dense_matrix(name, shape):
    metric = RANKING_METRICS[name]
    options = {} if name == "bpref" else {"k": 2}
    y_score = np.zeros(shape)
    expected = outcome(metric, np.zeros(shape), y_score, **options)
    assert isinstance(expected[0], tuple) and "y_true is empty" in expected[0][1]
    for kind in KINDS:
        assert_same(
            outcome(metric, as_sparse(np.zeros(shape), np.zeros(shape, dtype=bool), kind, "csr"), y_score, **options),
            expected,
        )
