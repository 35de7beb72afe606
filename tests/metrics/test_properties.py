"""Properties every metric must have, on inputs drawn by hypothesis."""

import inspect

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import grouped_rankings

from sklearn_rankmetrics.registry._registry import METRICS as ALL_METRICS

NORMALISED = [
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
]
PERFECT_IS_ONE = ["ndcg", "map", "mrr", "recall", "r_precision", "hit_rate", "bpref", "nerr", "ncg"]


def ignoring_cutoff(function):
    """A metric without a cutoff (bpref) called like the others: it examines every document, whatever k."""
    return lambda *args, k=None, **kwargs: function(*args, **kwargs)


METRICS = {
    name: (ignoring_cutoff(function) if "k" not in inspect.signature(function).parameters else function)
    for name, function in ALL_METRICS.items()
}


@pytest.mark.parametrize("name", NORMALISED)
@given(data=grouped_rankings())
def test_normalised_metrics_lie_in_the_unit_interval(name, data):
    y_true, y_score, qid, k = data
    values = METRICS[name](y_true, y_score, qid=qid, k=k, average=False)
    assert np.all((values >= 0) & (values <= 1 + 1e-12))


@pytest.mark.parametrize("name", ["cg", "dcg"])
@given(data=grouped_rankings())
def test_gains_are_non_negative(name, data):
    y_true, y_score, qid, k = data
    assert np.all(METRICS[name](y_true, y_score, qid=qid, k=k, average=False) >= 0)


@pytest.mark.parametrize("name", PERFECT_IS_ONE)
@given(data=grouped_rankings())
def test_perfect_ranking_scores_one(name, data):
    y_true, _, qid, k = data
    if name in ("recall", "r_precision"):
        k = None  # a cutoff below R caps recall and R-precision by design
    options = {"denominator": "capped"} if name == "map" else {}
    values = METRICS[name](y_true, y_true, qid=qid, k=k, average=False, zero_division=1.0, **options)
    np.testing.assert_allclose(values, 1.0, rtol=1e-12)


@pytest.mark.parametrize("name", sorted(METRICS))
@pytest.mark.parametrize("ties", ["average", "pessimistic", "optimistic"])
@given(data=grouped_rankings(), seed=st.integers(0, 2**32 - 1))
def test_invariant_to_row_order(name, ties, data, seed):
    y_true, y_score, qid, k = data
    rows = np.random.default_rng(seed).permutation(len(y_true))
    expected = METRICS[name](y_true, y_score, qid=qid, k=k, ties=ties, average=False)
    shuffled = METRICS[name](y_true[rows], y_score[rows], qid=qid[rows], k=k, ties=ties, average=False)
    np.testing.assert_allclose(shuffled, expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", sorted(METRICS))
@given(data=grouped_rankings(), seed=st.integers(0, 2**32 - 1))
def test_invariant_to_relabelling_queries(name, data, seed):
    y_true, y_score, qid, k = data
    new_ids = np.random.default_rng(seed).permutation(5) * 7 + 100
    expected = METRICS[name](y_true, y_score, qid=qid, k=k, average=False)
    relabelled = METRICS[name](y_true, y_score, qid=new_ids[qid], k=k, average=False)
    # per-query values follow the order of the new ids
    old_order = np.unique(qid)
    new_order = np.argsort(new_ids[old_order], kind="stable")
    np.testing.assert_allclose(relabelled, expected[new_order], rtol=1e-12, atol=1e-15)
    assert METRICS[name](y_true, y_score, qid=new_ids[qid], k=k) == pytest.approx(
        METRICS[name](y_true, y_score, qid=qid, k=k), rel=1e-12, abs=1e-15
    )


@pytest.mark.parametrize("name", sorted(METRICS))
@given(data=grouped_rankings())
def test_invariant_to_strictly_increasing_score_transforms(name, data):
    y_true, y_score, qid, k = data
    expected = METRICS[name](y_true, y_score, qid=qid, k=k, average=False)
    # -inf (not retrieved) stays -inf: the transforms are of the retrieved documents' scores.
    squashed = np.where(np.isneginf(y_score), -np.inf, np.arctan(y_score / 1e3))
    for transformed in (2 * y_score + 5, squashed, y_score**3):
        if len(np.unique(transformed)) != len(np.unique(y_score)):
            continue  # rounding merged two scores: not strictly increasing in float64
        np.testing.assert_allclose(
            METRICS[name](y_true, transformed, qid=qid, k=k, average=False), expected, rtol=1e-12, atol=1e-15
        )


@pytest.mark.parametrize("name", sorted(METRICS))
@given(
    shape=st.tuples(st.integers(1, 5), st.integers(1, 6)),
    seed=st.integers(0, 2**32 - 1),
    k=st.none() | st.integers(1, 7),
)
def test_2d_form_equals_grouped_form(name, shape, seed, k):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 4, shape).astype(float)
    y_score = rng.integers(0, 3, shape).astype(float)
    weight = rng.uniform(0.5, 2, shape[0])
    qid = np.repeat(np.arange(shape[0]), shape[1])
    two_d = METRICS[name](y_true, y_score, k=k, sample_weight=weight)
    grouped = METRICS[name](y_true.ravel(), y_score.ravel(), qid=qid, k=k, sample_weight=np.repeat(weight, shape[1]))
    assert two_d == pytest.approx(grouped, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("name", sorted(METRICS))
@given(data=grouped_rankings())
def test_tie_average_lies_between_pessimistic_and_optimistic(name, data):
    y_true, y_score, qid, k = data
    values = {
        ties: METRICS[name](y_true, y_score, qid=qid, k=k, ties=ties, average=False)
        for ties in ("pessimistic", "average", "optimistic")
    }
    assert np.all(values["pessimistic"] <= values["average"] + 1e-12)
    assert np.all(values["average"] <= values["optimistic"] + 1e-12)
