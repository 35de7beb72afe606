"""A scipy sparse candidates= or exclude= mask is read by its stored values, as its dense mask (issue 36, item 5).

A stored False (or 0) is not a candidate, and not excluded, exactly as an
entry not stored; a stored value other than 0/1 is refused, naming the
argument. Checked against the dense mask in every scipy format, arrays and
matrices, with bool, integer and float values.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_rankmetrics import (
    bpref_score,
    f1_at_k_score,
    hit_rate_score,
    mean_average_precision_score,
    mean_reciprocal_rank_score,
    ndcg_score,
    precision_at_k_score,
    recall_at_k_score,
    sample_candidates,
)

FORMATS = ["csr", "csc", "coo", "lil", "dok", "dia", "bsr"]
KINDS = {"array": sp.coo_array, "matrix": sp.coo_matrix}
METRICS = [
    ndcg_score,
    precision_at_k_score,
    recall_at_k_score,
    mean_average_precision_score,
    mean_reciprocal_rank_score,
    hit_rate_score,
    f1_at_k_score,
    bpref_score,
]


def stored(mask, also_stored, kind, sparse_format, dtype):
    """The boolean ``mask`` as a sparse matrix of ``dtype`` that also stores the ``also_stored`` entries, as 0."""
    rows, columns = np.nonzero(mask | also_stored)
    coo = KINDS[kind]((mask[rows, columns].astype(dtype), (rows, columns)), shape=mask.shape)
    return coo.asformat(sparse_format)


def test_a_candidate_stored_as_false_is_not_ranked_p_at_1_as_the_dense_mask():
    # The case: candidates[u, i] = False on a sparse mask left the item ranked first (P@1 1.0).
    y_true, y_score = np.array([[1, 0, 0, 0, 0]]), np.array([[0.9, 0.1, 0.2, 0.3, 0.4]])
    candidates = sp.csr_array(np.array([[True, True, True, False, False]]))
    candidates[0, 0] = False  # stored, as False
    assert candidates.nnz == 3
    dense = candidates.toarray()
    assert precision_at_k_score(y_true, y_score, k=1, candidates=candidates) == 0.0
    assert precision_at_k_score(y_true, y_score, k=1, candidates=dense) == 0.0
    assert candidates.nnz == 3 and not candidates[0, 0]  # the input is left as it was


def test_exclude_stored_as_false_draws_the_negatives_asked():
    # The case: exclude storing False for 3 of 4 other items drew 1 negative of the 4 asked.
    y_true = np.array([[1, 0, 0, 0, 0]])
    exclude = sp.csr_array((np.zeros(3, dtype=bool), (np.zeros(3, dtype=int), np.array([1, 2, 3]))), shape=(1, 5))
    candidates = sample_candidates(y_true, n_negatives=4, exclude=exclude, random_state=0)
    assert candidates.sum() == 5
    exclude[0, 2] = True
    candidates = sample_candidates(y_true, n_negatives=4, exclude=exclude, random_state=0)
    assert candidates.sum() == 4 and not candidates[0, 2]


@pytest.mark.parametrize("dtype", [bool, np.int8, np.float64])
@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("sparse_format", FORMATS)
def test_sparse_candidates_with_stored_zeros_rank_as_the_dense_mask(sparse_format, kind, dtype):
    rng = np.random.default_rng(FORMATS.index(sparse_format))
    y_true = (rng.random((6, 12)) < 0.25).astype(float)
    y_score = rng.normal(size=y_true.shape).round(1)
    mask = (rng.random(y_true.shape) < 0.5) | (y_true > 0)
    zeros = ~mask & (rng.random(y_true.shape) < 0.6)  # most of the others stored, as 0 or False
    candidates = stored(mask, zeros, kind, sparse_format, dtype)
    for metric in METRICS:
        options = {} if metric is bpref_score else {"k": 3}
        for correction in (None, "bv") if metric is not bpref_score else (None,):
            expected = metric(y_true, y_score, candidates=mask, sampled_correction=correction, average=False, **options)
            found = metric(
                y_true, y_score, candidates=candidates, sampled_correction=correction, average=False, **options
            )
            np.testing.assert_array_equal(found, expected, err_msg=f"{metric.__name__} {correction}")


@pytest.mark.parametrize("dtype", [bool, np.int8, np.float64])
@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("sparse_format", FORMATS)
def test_sparse_exclude_with_stored_zeros_draws_as_the_dense_mask(sparse_format, kind, dtype):
    rng = np.random.default_rng(FORMATS.index(sparse_format))
    y_true = (rng.random((6, 30)) < 0.1).astype(float)
    seen = (rng.random(y_true.shape) < 0.3) & (y_true == 0)
    exclude = stored(seen, ~seen & (rng.random(y_true.shape) < 0.5), kind, sparse_format, dtype)
    for strategy in ("uniform", "popularity"):
        expected = sample_candidates(y_true, n_negatives=5, exclude=seen, strategy=strategy, random_state=1)
        found = sample_candidates(y_true, n_negatives=5, exclude=exclude, strategy=strategy, random_state=1)
        np.testing.assert_array_equal(found.toarray(), expected.toarray())
        assert not (found.toarray() & seen).any()
        np.testing.assert_array_equal(found.sum(axis=1), np.minimum((y_true > 0).sum(axis=1) + 5, (~seen).sum(axis=1)))


@pytest.mark.parametrize("value", [2, 0.5, -1, np.nan])
def test_a_stored_value_that_is_no_mask_value_is_refused_naming_the_argument(value):
    y_true, y_score = np.array([[1.0, 0, 0, 0]]), np.array([[0.4, 0.3, 0.2, 0.1]])
    mask = sp.csr_array((np.array([1.0, value]), (np.array([0, 0]), np.array([0, 1]))), shape=(1, 4))
    message = r"the stored entries of {} \(duplicates added up\) must be a boolean mask \(True/False, or 0/1\)"
    with pytest.raises(ValueError, match=message.format("candidates")):
        ndcg_score(y_true, y_score, k=2, candidates=mask)
    with pytest.raises(ValueError, match=message.format("exclude")):
        sample_candidates(y_true, n_negatives=1, exclude=mask)


def test_duplicate_entries_of_a_sparse_mask_add_up_as_scipy_defines_them():
    y_true, y_score = np.array([[1.0, 0, 0, 0]]), np.array([[0.4, 0.3, 0.2, 0.1]])
    rows, columns = np.zeros(3, dtype=int), np.array([0, 1, 1])
    # Booleans add up as logical or: a candidate stored twice is a candidate.
    twice = sp.coo_array((np.array([True, True, True]), (rows, columns)), shape=(1, 4))
    assert ndcg_score(y_true, y_score, k=2, candidates=twice) == ndcg_score(
        y_true, y_score, k=2, candidates=[[1, 1, 0, 0]]
    )
    # Integers add up: 1 + 1 is no mask value; 1 + (-1) is a stored 0, no candidate.
    with pytest.raises(ValueError, match=r"duplicates added up\) must be a boolean mask .* got the value 2"):
        ndcg_score(y_true, y_score, k=2, candidates=sp.coo_array((np.array([1, 1, 1]), (rows, columns)), shape=(1, 4)))
    cancelled = sp.coo_array((np.array([1, 1, -1]), (rows, columns)), shape=(1, 4))
    assert ndcg_score(y_true, y_score, k=2, candidates=cancelled) == ndcg_score(
        y_true, y_score, k=2, candidates=[[1, 0, 0, 0]]
    )
