"""permutation_importance: scikit-learn's, with the query ids held fixed and permutations within queries."""

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.compose import ColumnTransformer
from sklearn.inspection import permutation_importance as sklearn_permutation_importance
from sklearn.linear_model import Ridge
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler

import sklearn_rankmetrics
from sklearn_rankmetrics import (
    GroupedRanker,
    get_ranking_scorer,
    make_ranking,
    mean_average_precision_score,
    ndcg_score,
    permutation_importance,
)


@pytest.fixture(scope="module")
def data():
    return make_ranking(n_queries=30, n_docs=(3, 12), n_features=4, random_state=0)


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_agrees_with_scikit_learn_when_the_qid_is_passed_separately(data, n_jobs):
    X, y, qid = data
    model = Ridge().fit(X, y)
    ours = permutation_importance(model, X, y, qid=qid, scoring="ndcg@5", n_repeats=4, random_state=3, n_jobs=n_jobs)

    def ndcg5(estimator, X_scored, y_scored):  # the rows keep their order, so qid still fits them
        return ndcg_score(y_scored, estimator.predict(X_scored), qid=qid, k=5)

    reference = sklearn_permutation_importance(model, X, y, scoring=ndcg5, n_repeats=4, random_state=3)
    for key in ("importances", "importances_mean", "importances_std"):
        np.testing.assert_array_equal(ours[key], reference[key])
    assert ours.importances.shape == (4, 4)


def test_the_qid_column_is_never_permuted_and_its_importance_is_exactly_zero(data):
    X, y, qid = data
    frame = pd.DataFrame(X).add_prefix("f").assign(qid=qid)
    model = GroupedRanker(Ridge(), qid_column="qid").fit(frame, y)
    scorer = get_ranking_scorer("ndcg@10(qid_column='qid')")
    reference = sklearn_permutation_importance(model, frame, y, scoring=scorer, n_repeats=3, random_state=0)
    assert reference.importances_mean[-1] != 0  # scikit-learn scrambles the query groups
    for options in ({"scoring": scorer}, {"scoring": "ndcg@10"}, {"scoring": "ndcg@10", "qid": qid}):
        ours = permutation_importance(model, frame, y, n_repeats=3, random_state=0, **options)
        np.testing.assert_array_equal(ours.importances[-1], 0.0)
        np.testing.assert_array_equal(ours.importances[:-1], reference.importances[:-1])


def test_a_column_holding_the_routed_qid_is_not_permuted(data):
    X, y, qid = data
    with_qid = np.column_stack([qid, X])
    model = Ridge().fit(with_qid, y)
    with pytest.warns(sklearn_rankmetrics.QueryGroupWarning, match="fitted on the query id column 0 of X"):
        result = permutation_importance(model, with_qid, y, qid=qid, n_repeats=2, random_state=0)
    np.testing.assert_array_equal(result.importances[0], 0.0)
    assert np.all(result.importances_std[1:] > 0)


class Recorder(RegressorMixin, BaseEstimator):
    """Predicts a fixed linear function of the features and records every X it is asked about."""

    def fit(self, X, y):
        self.seen_ = []
        return self

    def predict(self, X):
        self.seen_.append(np.array(X, dtype=float))
        return np.asarray(X, dtype=float) @ np.arange(1.0, X.shape[1] + 1)


def test_within_queries_moves_each_value_only_inside_its_query(data):
    X, y, qid = data
    model = Recorder().fit(X, y)
    permutation_importance(model, X, y, qid=qid, n_repeats=3, random_state=0, within_queries=True)
    baseline, *permuted = model.seen_
    np.testing.assert_array_equal(baseline, X)
    moved = 0
    for column, seen in enumerate(permuted):
        column //= 3  # three repeats per column, in order
        others = np.delete(np.arange(X.shape[1]), column)
        np.testing.assert_array_equal(seen[:, others], X[:, others])
        for query in np.unique(qid):
            rows = qid == query
            np.testing.assert_array_equal(np.sort(seen[rows, column]), np.sort(X[rows, column]))
        moved += np.sum(seen[:, column] != X[:, column])
    assert moved > len(y)  # the values do move


def test_a_feature_constant_within_queries_matters_only_across_queries(data):
    X, y, qid = data
    query_level = np.random.default_rng(0).normal(size=qid.max() + 1)[qid]
    X = np.column_stack([X, query_level])
    model = Ridge().fit(X, y + 3 * query_level)
    within = permutation_importance(model, X, y, qid=qid, n_repeats=3, random_state=0, within_queries=True)
    across = permutation_importance(model, X, y, qid=qid, n_repeats=3, random_state=0)
    np.testing.assert_array_equal(within.importances[-1], 0.0)  # the ranking inside each query is unchanged
    assert across.importances_mean[-1] > 0.01


def test_several_metrics_share_the_permutations(data):
    X, y, qid = data
    model = Ridge().fit(X, y)
    both = permutation_importance(model, X, y, qid=qid, scoring=["ndcg@10", "map"], n_repeats=2, random_state=0)
    assert sorted(both) == ["map", "ndcg@10"]
    alone = permutation_importance(model, X, y, qid=qid, scoring="map", n_repeats=2, random_state=0)
    np.testing.assert_array_equal(both["map"].importances, alone.importances)

    def mean_ap(estimator, X_scored, y_scored, *, qid):
        return mean_average_precision_score(y_scored, estimator.predict(X_scored), qid=qid)

    custom = permutation_importance(model, X, y, qid=qid, scoring={"ap": mean_ap}, n_repeats=2, random_state=0)
    np.testing.assert_allclose(custom["ap"].importances, alone.importances, rtol=0, atol=1e-15)


def test_max_samples_draws_whole_queries(data):
    X, y, qid = data
    seen = []

    def record(estimator, X_scored, y_scored, *, qid):
        seen.append(np.asarray(qid))
        return ndcg_score(y_scored, estimator.predict(X_scored), qid=qid)

    model = Ridge().fit(X, y)
    sizes = dict(zip(*np.unique(qid, return_counts=True), strict=True))
    permutation_importance(model, X, y, qid=qid, scoring=record, n_repeats=2, random_state=0, max_samples=0.5)
    assert len(seen) == 1 + 4 * 2
    drawn, counts = np.unique(seen[0], return_counts=True)
    assert len(drawn) == 15 and all(sizes[query] == count for query, count in zip(drawn, counts, strict=True))
    assert all(np.array_equal(queries, seen[0]) for queries in seen)
    permutation_importance(model, X, y, qid=qid, scoring=record, n_repeats=1, random_state=0, max_samples=7)
    assert len(np.unique(seen[-1])) == 7


def test_errors(data):
    X, y, qid = data
    model = Ridge().fit(X, y)
    with pytest.raises(ValueError, match="permutation_importance needs the query id of each row: pass qid="):
        permutation_importance(model, X, y)
    with pytest.raises(ValueError, match=r"max_samples, as a number of queries, must be in \[1, 30\]; got 31"):
        permutation_importance(model, X, y, qid=qid, max_samples=31)
    with pytest.raises(ValueError, match="max_samples must be an integer >= 1 or a number in"):
        permutation_importance(model, X, y, qid=qid, max_samples=1.5)
    with pytest.raises(ValueError, match="n_repeats must be an integer >= 1; got 0"):
        permutation_importance(model, X, y, qid=qid, n_repeats=0)
    with pytest.raises(TypeError, match="within_queries must be True or False"):
        permutation_importance(model, X, y, qid=qid, within_queries="yes")
    with pytest.raises(TypeError, match="scoring must be None, a metric name"):
        permutation_importance(model, X, y, qid=qid, scoring=3)
    with pytest.raises(ValueError, match="inconsistent numbers of rows"):
        permutation_importance(model, X, y, qid=qid[1:])


def test_a_pipeline_ending_in_a_grouped_ranker_reads_the_qid_column_after_its_transformation(data):
    X, y, qid = data
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"]).assign(qid=qid)
    scaled = ColumnTransformer([("s", StandardScaler(), ["a", "b", "c"])], remainder="passthrough")
    pipeline = Pipeline(
        [("ct", scaled.set_output(transform="pandas")), ("gr", GroupedRanker(Ridge(), qid_column="remainder__qid"))]
    ).fit(frame, y)
    found = permutation_importance(pipeline, frame, y, n_repeats=3, random_state=0)
    given = permutation_importance(pipeline, frame, y, qid=qid, n_repeats=3, random_state=0)
    np.testing.assert_array_equal(found.importances, given.importances)
    np.testing.assert_array_equal(found.importances[-1], 0.0)  # the input column "qid" is never permuted
    assert np.all(found.importances_std[:-1] > 0)


def test_a_pipeline_whose_qid_column_cannot_be_read_says_which_column_to_name(data):
    X, y, qid = data
    with_qid = np.column_stack([qid, X])
    pipeline = make_pipeline(FunctionTransformer(), GroupedRanker(Ridge(), qid_column=0)).fit(with_qid, y)
    found = permutation_importance(pipeline, with_qid, y, n_repeats=2, random_state=0)
    np.testing.assert_array_equal(found.importances[0], 0.0)
    pipeline[-1].qid_column = 9  # a column that the transformed X lacks
    for qid_given in ({}, {"qid": qid}):  # its predict reads the same column: qid= cannot stand in for it
        with pytest.raises(ValueError, match=r"qid_column=9, a column of X after the pipeline's transformation.*Name"):
            permutation_importance(pipeline, with_qid, y, n_repeats=2, random_state=0, **qid_given)


@pytest.mark.parametrize("name", ["ndcg@-1", "ndcg@10.0", "ndcg@ 10", "ndcg@10 ", "map@x", "ndcg@"])
def test_a_bad_cutoff_in_scoring_raises_a_value_error(data, name):
    X, y, qid = data
    with pytest.raises(ValueError, match=r"but k must be an integer >= 1 \(as in 'ndcg@10'\)"):
        permutation_importance(Ridge().fit(X, y), X, y, qid=qid, scoring=name)


def test_it_is_public_and_ignores_routing(data):
    X, y, qid = data
    assert "permutation_importance" in sklearn_rankmetrics.__all__
    model = Ridge().fit(X, y)
    off = permutation_importance(model, X, y, qid=qid, n_repeats=2, random_state=0)
    with sklearn.config_context(enable_metadata_routing=True):
        on = permutation_importance(model, X, y, qid=qid, n_repeats=2, random_state=0)
    np.testing.assert_array_equal(on.importances, off.importances)
