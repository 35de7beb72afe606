"""GroupedRanker: the group formats it hands each ranker, its estimator contract and its errors."""

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.base import BaseEstimator, clone
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_rankmetrics import GroupedRanker, make_ranking, ndcg_score

NEEDS_QID = "score() needs the query ids: without them a fold would silently be scored as one query"


@parametrize_with_checks(
    [GroupedRanker(Ridge()), GroupedRanker(Ridge(), group_param=None)],
    expected_failed_checks=lambda estimator: {
        "check_fit_score_takes_y": NEEDS_QID,
        "check_pipeline_consistency": NEEDS_QID,
        "check_array_api_input": NEEDS_QID,  # calls score(X, y); run when scipy's Array API mode is on
    },
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


class Recorder(BaseEstimator):
    """A ranker that records what its fit received and predicts its first feature."""

    def fit(self, X, y, sample_weight=None, **groups):
        self.X_, self.y_, self.sample_weight_, self.groups_ = np.asarray(X), np.asarray(y), sample_weight, groups
        return self

    def predict(self, X):
        return np.asarray(X, dtype=float)[:, 0]


class LightGBMLike(Recorder):
    def fit(self, X, y, sample_weight=None, group=None):
        return super().fit(X, y, sample_weight, group=group)


class XGBoostLike(Recorder):
    def fit(self, X, y, sample_weight=None, qid=None, group=None):
        return super().fit(X, y, sample_weight, qid=qid, group=group)


class CatBoostLike(Recorder):
    def fit(self, X, y, group_id=None, sample_weight=None):
        return super().fit(X, y, sample_weight, group_id=group_id)


QID = np.array(["b", "a", "b", "c", "a", "b"])
X = np.arange(12.0).reshape(6, 2)
Y = np.array([1, 0, 2, 1, 1, 0])


@pytest.mark.parametrize(
    ("inner", "param", "expected"),
    [
        (LightGBMLike(), "group", [2, 3, 1]),
        (XGBoostLike(), "qid", [0, 0, 1, 1, 1, 2]),
        (CatBoostLike(), "group_id", [0, 0, 1, 1, 1, 2]),
    ],
)
def test_rows_are_ordered_by_query_and_groups_given_in_the_inner_format(inner, param, expected):
    ranker = GroupedRanker(inner).fit(X, Y, qid=QID)
    assert ranker.group_param_ == param
    fitted = ranker.estimator_
    np.testing.assert_array_equal(fitted.groups_[param], expected)
    rows = [1, 4, 0, 2, 5, 3]  # by query, input order kept within a query
    np.testing.assert_array_equal(fitted.X_, X[rows])
    np.testing.assert_array_equal(fitted.y_, Y[rows])
    np.testing.assert_array_equal(ranker.predict(X), X[:, 0])  # in the caller's order


def test_pointwise_estimators_get_the_rows_unchanged():
    ranker = GroupedRanker(Recorder()).fit(X, Y)
    assert ranker.group_param_ is None
    np.testing.assert_array_equal(ranker.estimator_.X_, X)
    assert ranker.estimator_.groups_ == {}


def test_explicit_group_param_overrides_the_signature():
    ranker = GroupedRanker(XGBoostLike(), group_param="group").fit(X, Y, groups=QID)
    np.testing.assert_array_equal(ranker.estimator_.groups_["group"], [2, 3, 1])
    assert ranker.estimator_.groups_["qid"] is None


def test_sample_weight_per_row_or_per_query():
    weight = np.array([2.0, 1.0, 2.0, 3.0, 1.0, 2.0])
    lightgbm_like = GroupedRanker(LightGBMLike()).fit(X, Y, qid=QID, sample_weight=weight)
    np.testing.assert_array_equal(lightgbm_like.estimator_.sample_weight_, [1, 1, 2, 2, 2, 3])
    xgboost_like = GroupedRanker(XGBoostLike()).fit(X, Y, qid=QID, sample_weight=weight)
    np.testing.assert_array_equal(xgboost_like.estimator_.sample_weight_, [1, 2, 3])
    with pytest.raises(ValueError, match="sample_weight must be constant within each query for an XGBoost ranker"):
        GroupedRanker(XGBoostLike()).fit(X, Y, qid=QID, sample_weight=np.arange(6.0))


@pytest.mark.parametrize("qid_column", ["qid", 0])
def test_qid_column_of_a_dataframe_is_dropped(qid_column):
    frame = pd.DataFrame({"qid": QID, "f0": X[:, 0], "f1": X[:, 1]})
    ranker = GroupedRanker(LightGBMLike(), qid_column=qid_column).fit(frame, Y)
    np.testing.assert_array_equal(ranker.estimator_.groups_["group"], [2, 3, 1])
    np.testing.assert_array_equal(ranker.feature_names_in_, ["f0", "f1"])
    assert ranker.n_features_in_ == 2
    np.testing.assert_array_equal(ranker.predict(frame), X[:, 0])
    assert ranker.score(frame, Y) == ndcg_score(Y, X[:, 0], qid=QID, k=10)


def test_qid_column_of_an_array_is_dropped():
    codes = np.unique(QID, return_inverse=True)[1]
    ranker = GroupedRanker(LightGBMLike(), qid_column=-1).fit(np.column_stack([X, codes]), Y)
    np.testing.assert_array_equal(ranker.estimator_.X_, X[[1, 4, 0, 2, 5, 3]])
    assert ranker.n_features_in_ == 2


@pytest.mark.parametrize("routing", [False, True])
def test_pipeline_final_step_receives_the_groups(routing):
    with sklearn.config_context(enable_metadata_routing=routing):
        ranker = GroupedRanker(make_pipeline(StandardScaler(), LightGBMLike())).fit(X, Y, qid=QID)
    assert ranker.group_param_ == "group"
    np.testing.assert_array_equal(ranker.estimator_[-1].groups_["group"], [2, 3, 1])


def test_params_clone_and_nested_set_params():
    ranker = GroupedRanker(Ridge(alpha=2.0), qid_column="qid")
    assert ranker.get_params()["estimator__alpha"] == 2.0
    ranker.set_params(estimator__alpha=5.0)
    assert clone(ranker).estimator.alpha == 5.0


def test_classifier_inside_ranks_by_expected_grade():
    X_big, y_big, qid = make_ranking(n_queries=20, random_state=1)
    ranker = GroupedRanker(LogisticRegression(max_iter=500)).fit(X_big, y_big, qid=qid)
    proba = ranker.estimator_.predict_proba(X_big)
    np.testing.assert_allclose(ranker.predict(X_big), proba @ ranker.estimator_.classes_)


def test_errors():
    with pytest.raises(ValueError, match=r"GroupedRanker\(LightGBMLike\) needs the query id of each row"):
        GroupedRanker(LightGBMLike()).fit(X, Y)
    with pytest.raises(ValueError, match="GroupedRanker got the rows of a single query"):
        GroupedRanker(LightGBMLike()).fit(X, Y, qid=np.zeros(6))
    with pytest.raises(
        ValueError, match=r"the routed qid and the routed groups disagree.*pass one of them, or the same array as both"
    ):
        GroupedRanker(LightGBMLike()).fit(X, Y, qid=QID, groups=QID[::-1])
    with pytest.raises(ValueError, match="qid_column='qid' is not a column of X"):
        GroupedRanker(LightGBMLike(), qid_column="qid").fit(pd.DataFrame(X, columns=["a", "b"]), Y)
    fitted = GroupedRanker(Ridge()).fit(X, Y)
    with pytest.raises(ValueError, match=r"GroupedRanker\.score needs the query id of each row"):
        fitted.score(X, Y)
    with pytest.raises(ValueError, match="Expected a 2-D X"):
        fitted.predict(X[:, 0])


@pytest.mark.parametrize("name", ["lightgbm", "xgboost", "catboost"])
def test_real_rankers_fit_as_on_rows_sorted_by_hand(name):
    X_all, y_all, qid = make_ranking(n_queries=25, random_state=2)  # shuffled rows
    if name == "lightgbm":
        from lightgbm import LGBMRanker

        inner, native = LGBMRanker(n_estimators=15, verbose=-1, n_jobs=1), "group"
    elif name == "xgboost":
        from xgboost import XGBRanker

        inner, native = XGBRanker(n_estimators=15, n_jobs=1), "qid"
    else:
        from catboost import CatBoostRanker

        inner, native = (
            CatBoostRanker(iterations=15, verbose=0, thread_count=1, random_seed=0, allow_writing_files=False),
            "group_id",
        )
    order = np.argsort(qid, kind="stable")
    sizes = np.bincount(qid)
    by_hand = clone(inner).fit(X_all[order], y_all[order], **{native: sizes if native == "group" else qid[order]})
    ranker = GroupedRanker(inner).fit(X_all, y_all, qid=qid)
    np.testing.assert_allclose(ranker.predict(X_all), by_hand.predict(X_all), rtol=1e-6)


def test_messages_name_query_ids_as_python_values():
    with pytest.raises(ValueError, match=r"got 6 rows of query 3\.$"):
        GroupedRanker(LightGBMLike()).fit(X, Y, qid=np.full(6, 3, dtype=np.int64))
    with pytest.raises(ValueError, match=r"got 6 rows of query 'b'\.$"):
        GroupedRanker(LightGBMLike()).fit(X, Y, qid=np.array(["b"] * 6))


def test_qid_column_of_a_list_of_rows_at_fit_and_predict():
    # predict refused a list of rows ("out of range for X with 0 columns") that fit had taken.
    from sklearn.linear_model import Ridge

    X = [[1, 0.5, 1.0], [1, 0.2, 2.0], [2, 0.3, 0.0], [2, 0.9, 1.0]]
    y = [1, 0, 0, 1]
    ranker = GroupedRanker(Ridge(), qid_column=0).fit(X, y)
    np.testing.assert_allclose(ranker.predict(X), ranker.predict(np.asarray(X)))
