"""Where query ids come from is never ambiguous: one resolution for the scorers, GroupedRanker and inspection.

Every source present (the routed qid and groups, a scorer's qid_column, the
qid_column of the GroupedRanker scored) is read, all must make the same
queries, and a disagreement is refused with both sources named (issue 36,
class C). The scorers find the query id column of the GroupedRanker they score,
so that it is named in one place (issue 38, item 4).
"""

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import Ridge
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    KFold,
    RandomizedSearchCV,
    cross_val_score,
    cross_validate,
    learning_curve,
    validation_curve,
)
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_rankmetrics import (
    GroupedRanker,
    get_ranking_scorer,
    make_ranking,
    ndcg_score,
    permutation_importance,
)

NDCG10 = get_ranking_scorer("ndcg@10")


@pytest.fixture(scope="module")
def by_user():
    """Queries of users (four each), with the query ids in column 0 of X, as the issue's case."""
    X, y, qid = make_ranking(n_queries=48, n_docs=(5, 20), n_features=5, random_state=0)
    return np.column_stack([qid, X]), y, qid, qid // 4


def per_query_scores(X, y, qid, folds):
    """Each fold's NDCG@10 computed by hand: a Ridge on the fold's training rows, the metric of each query."""
    return [ndcg_score(y[te], Ridge().fit(X[tr, 1:], y[tr]).predict(X[te, 1:]), qid=qid[te], k=10) for tr, te in folds]


# Class C: routed groups never silently replace a qid column.
def test_routed_groups_that_split_by_user_are_refused_beside_the_qid_column_with_both_named(by_user):
    X, y, qid, users = by_user
    with sklearn.config_context(enable_metadata_routing=True):
        ranker = GroupedRanker(Ridge(), qid_column=0)
        with pytest.raises(ValueError, match=r"the routed groups and qid_column=0 of GroupedRanker disagree.*cv=list"):
            cross_val_score(ranker, X, y, scoring=NDCG10, cv=GroupKFold(3), params={"groups": users})
        model = GroupedRanker(Ridge(), qid_column=0).fit(X, y, qid=qid)
        with pytest.raises(
            ValueError, match=r"the routed groups and qid_column=0 of the GroupedRanker scored disagree"
        ):
            NDCG10(model, X, y, groups=users)
        with pytest.raises(ValueError, match=r"the routed groups and qid_column=0 of the scorer disagree"):
            get_ranking_scorer("ndcg@10(qid_column=0)")(Ridge().fit(X, y), X, y, groups=users)


def test_splitting_by_user_with_the_qid_column_scores_each_query_not_each_users_merged_list(by_user):
    # The case: before, routed groups=users replaced the column and each user's queries were scored as one
    # merged list. The two documented routes split by user and score by query.
    X, y, qid, users = by_user
    folds = list(GroupKFold(3).split(X, y, groups=users))
    expected = per_query_scores(X, y, qid, folds)
    merged = [
        ndcg_score(y[te], Ridge().fit(X[tr, 1:], y[tr]).predict(X[te, 1:]), qid=users[te], k=10) for tr, te in folds
    ]
    assert np.mean(expected) - np.mean(merged) > 0.05  # what the silent replacement cost
    with sklearn.config_context(enable_metadata_routing=True):
        ranker = GroupedRanker(Ridge(), qid_column=0)
        by_folds = cross_val_score(ranker, X, y, scoring=NDCG10, cv=folds)
        splitter_alone = cross_val_score(
            GroupedRanker(Ridge(), qid_column=0).set_fit_request(groups=False).set_score_request(groups=False),
            X,
            y,
            scoring=get_ranking_scorer("ndcg@10").set_score_request(groups=False),
            cv=GroupKFold(3),
            params={"groups": users},
        )
    np.testing.assert_allclose(by_folds, expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(splitter_alone, expected, rtol=0, atol=1e-12)
    # With routing off, groups= reaches only the splitter: the same scores.
    routing_off = cross_val_score(
        GroupedRanker(Ridge(), qid_column=0), X, y, scoring=NDCG10, cv=GroupKFold(3), groups=users
    )
    np.testing.assert_allclose(routing_off, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("frame", [False, True], ids=["array", "DataFrame"])
def test_sources_that_make_the_same_queries_agree_whatever_their_ids_are_called(by_user, frame):
    X, y, qid, _ = by_user
    if frame:
        X = pd.DataFrame(X[:, 1:], columns=list("abcde")).assign(qid=[f"q{q}" for q in qid])
        column = "qid"
    else:
        column = 0
    model = GroupedRanker(Ridge(), qid_column=column).fit(X, y, qid=qid + 1000)  # other names, the same queries
    expected = ndcg_score(y, model.predict(X), qid=qid, k=10)
    assert NDCG10(model, X, y, groups=qid * 7, qid=qid - 3) == expected
    # A scaler before the GroupedRanker rescales its column: the same queries still.
    if not frame:
        scaled = make_pipeline(StandardScaler(), GroupedRanker(Ridge(), qid_column=0)).fit(X, y)
        assert NDCG10(scaled, X, y, groups=qid) == ndcg_score(y, scaled.predict(X), qid=qid, k=10)


def test_a_routed_qid_that_disagrees_with_the_column_is_refused(by_user):
    X, y, qid, _ = by_user
    shifted = np.roll(qid, 1)
    with pytest.raises(ValueError, match=r"the routed qid and qid_column=0 of GroupedRanker disagree.*pass as qid"):
        GroupedRanker(Ridge(), qid_column=0).fit(X, y, qid=shifted)
    model = GroupedRanker(Ridge(), qid_column=0).fit(X, y)
    with pytest.raises(ValueError, match=r"rows \d+ and \d+ the ids .*: one query by one, two by the other"):
        model.score(X, y, qid=shifted)


def test_a_scorer_column_that_disagrees_with_the_rankers_is_refused_with_both_named(by_user):
    X, y, qid, _ = by_user
    X = np.column_stack([X, qid // 2])  # column 6: another grouping
    model = GroupedRanker(Ridge(), qid_column=0).fit(X, y)
    with pytest.raises(
        ValueError, match=r"qid_column=6 of the scorer and qid_column=0 of the GroupedRanker scored disagree.*name"
    ):
        get_ranking_scorer("ndcg@10(qid_column=6)")(model, X, y)
    # The same column named twice agrees.
    assert get_ranking_scorer("ndcg@10(qid_column=0)")(model, X, y) == NDCG10(model, X, y)


def test_permutation_importance_refuses_a_qid_that_disagrees_with_the_rankers_column(by_user):
    X, y, qid, users = by_user
    model = GroupedRanker(Ridge(), qid_column=0).fit(X, y)
    with pytest.raises(ValueError, match="permutation_importance found two different query ids"):
        permutation_importance(model, X, y, qid=users, n_repeats=2, random_state=0)
    agreed = permutation_importance(model, X, y, qid=qid, n_repeats=2, random_state=0)
    found = permutation_importance(model, X, y, n_repeats=2, random_state=0)
    np.testing.assert_array_equal(agreed.importances, found.importances)


# Issue 38, item 4: the query id column named in one place.
@pytest.mark.parametrize("frame", [False, True], ids=["array", "DataFrame"])
@pytest.mark.parametrize("routing", [False, True], ids=["routing-off", "routing-on"])
def test_the_scorer_reads_the_qid_column_of_the_grouped_ranker_it_scores(by_user, frame, routing):
    X, y, qid, _ = by_user
    column = 0
    if frame:
        X, column = pd.DataFrame(X[:, 1:], columns=list("abcde")).assign(qid=qid), "qid"
    folds = list(GroupKFold(3).split(X, y, groups=qid))
    with sklearn.config_context(enable_metadata_routing=routing):
        search = GridSearchCV(
            GroupedRanker(Ridge(), qid_column=column), {"estimator__alpha": [0.1, 10.0]}, scoring=NDCG10, cv=folds
        ).fit(X, y)
    features = X.drop(columns="qid").to_numpy() if frame else X[:, 1:]
    alpha = search.best_params_["estimator__alpha"]
    expected = [
        ndcg_score(y[te], Ridge(alpha=alpha).fit(features[tr], y[tr]).predict(features[te]), qid=qid[te], k=10)
        for tr, te in folds
    ]
    assert search.best_score_ == pytest.approx(np.mean(expected), abs=1e-12)


@pytest.mark.parametrize("routing", [False, True], ids=["routing-off", "routing-on"])
def test_every_scikit_learn_tool_scores_by_the_rankers_column_alone(by_user, routing):
    X, y, qid, _ = by_user
    ranker = GroupedRanker(Ridge(), qid_column=0)
    folds = list(GroupKFold(3).split(X, y, groups=qid))
    expected = per_query_scores(X, y, qid, folds)
    with sklearn.config_context(enable_metadata_routing=routing):
        np.testing.assert_allclose(cross_val_score(ranker, X, y, scoring=NDCG10, cv=folds), expected, atol=1e-12)
        results = cross_validate(ranker, X, y, scoring={"ndcg": NDCG10, "map": get_ranking_scorer("map")}, cv=folds)
        np.testing.assert_allclose(results["test_ndcg"], expected, atol=1e-12)
        _, valid = validation_curve(
            ranker, X, y, param_name="estimator__alpha", param_range=[1.0], scoring=NDCG10, cv=folds
        )
        np.testing.assert_allclose(valid[0], expected, atol=1e-12)
        _, _, tested = learning_curve(ranker, X, y, train_sizes=[1.0], scoring=NDCG10, cv=folds)
        n_train = len(folds[0][0])  # learning_curve trains on the first rows of each fold, as many as the first has
        first_rows = [(tr[:n_train], te) for tr, te in folds]
        np.testing.assert_allclose(tested[0], per_query_scores(X, y, qid, first_rows), atol=1e-12)
        randomized = RandomizedSearchCV(
            ranker, {"estimator__alpha": [1.0]}, n_iter=1, scoring=NDCG10, cv=folds, random_state=0
        ).fit(X, y)
        assert randomized.best_score_ == pytest.approx(np.mean(expected), abs=1e-12)


def test_the_scorer_reads_the_column_of_a_grouped_ranker_ending_a_pipeline(by_user):
    X, y, qid, _ = by_user
    frame = pd.DataFrame(X[:, 1:], columns=list("abcde")).assign(qid=qid)
    scaled = ColumnTransformer([("s", StandardScaler(), list("abcde"))], remainder="passthrough")
    pipeline = Pipeline(
        [("ct", scaled.set_output(transform="pandas")), ("gr", GroupedRanker(Ridge(), qid_column="remainder__qid"))]
    ).fit(frame, y)
    assert NDCG10(pipeline, frame, y) == ndcg_score(y, pipeline.predict(frame), qid=qid, k=10)


def test_a_search_scored_on_an_outer_split_reads_the_column_of_its_best_estimator(by_user):
    X, y, qid, _ = by_user

    def search():
        grid = {"estimator__alpha": [0.1, 10.0]}
        return GridSearchCV(GroupedRanker(Ridge(), qid_column=0), grid, scoring=NDCG10, cv=GroupKFold(3))

    outer = list(GroupKFold(3).split(X, y, groups=qid))
    scores = cross_val_score(search(), X, y, scoring=NDCG10, cv=outer, params={"groups": qid})
    for (train, test), score in zip(outer, scores, strict=True):
        best = search().fit(X[train], y[train], groups=qid[train])
        assert score == ndcg_score(y[test], best.predict(X[test]), qid=qid[test], k=10)


# Issue 38, item 4: a search whose every fold would fail raises one error, the library's, naming the fix.
# Folds in this process, or in joblib's worker processes.
@pytest.mark.parametrize(("search", "n_jobs"), [("GridSearchCV", 1), ("cross_validate", 1), ("GridSearchCV", 2)])
def test_a_search_whose_rankers_get_no_query_ids_raises_one_error_naming_the_fix(by_user, search, n_jobs):
    # Routing off: groups= reaches only the splitter. Before, the pointwise GroupedRanker fitted without query ids
    # and every fold's score failed: best_score_ = nan, the reason buried in per-fold warnings.
    X, y, qid, _ = by_user
    features = X[:, 1:]
    ranker = GroupedRanker(Ridge())
    with pytest.raises(ValueError, match=r"All the \d+ fits failed[\s\S]*GroupedRanker\(Ridge\) needs the query id"):
        if search == "GridSearchCV":
            grid = {"estimator__alpha": [1.0, 2.0]}
            GridSearchCV(ranker, grid, scoring=NDCG10, cv=GroupKFold(3), n_jobs=n_jobs).fit(features, y, groups=qid)
        else:
            cross_validate(ranker, features, y, scoring=NDCG10, cv=GroupKFold(3), groups=qid, n_jobs=n_jobs)
    with pytest.raises(ValueError, match=r"routing is off.*qid_column=<the column of X that holds the query ids>"):
        cross_validate(ranker, features, y, scoring=NDCG10, cv=GroupKFold(3), groups=qid, error_score="raise")


def test_a_search_without_groups_with_routing_on_raises_the_librarys_message(by_user):
    X, y, _, _ = by_user
    with sklearn.config_context(enable_metadata_routing=True):
        with pytest.raises(ValueError, match=r"All the \d+ fits failed[\s\S]*routing is on, but the caller did not"):
            GridSearchCV(GroupedRanker(Ridge()), {"estimator__alpha": [1.0]}, scoring=NDCG10, cv=KFold(3)).fit(
                X[:, 1:], y
            )


def test_a_grouped_ranker_fitted_directly_without_query_ids_still_fits_a_pointwise_model(by_user):
    # scikit-learn's estimator checks fit it so; only model selection, which will score it by query, refuses.
    X, y, qid, _ = by_user
    model = GroupedRanker(Ridge()).fit(X[:, 1:], y, qid=qid)
    assert model.train_queries_ is not None
    model.fit(X[:, 1:], y)
    assert model.train_queries_ is None  # a refit without query ids keeps no stale training queries


def test_a_booster_fitted_without_query_ids_gets_the_librarys_message_not_the_boosters(by_user):
    lightgbm = pytest.importorskip("lightgbm")
    X, y, _, _ = by_user
    with pytest.raises(ValueError, match=r"GroupedRanker\(LGBMRanker\) needs the query id of each row.*qid_column="):
        GroupedRanker(lightgbm.LGBMRanker(verbose=-1)).fit(X[:, 1:], y)


def test_a_search_without_groups_with_routing_off_raises_the_librarys_message(by_user):
    # Without groups= a KFold splits queries; the GroupedRanker has no query ids in any fold.
    X, y, _, _ = by_user
    with pytest.raises(ValueError, match=r"All the 3 fits failed[\s\S]*Metadata routing is off, so nothing can pass"):
        GridSearchCV(GroupedRanker(Ridge()), {"estimator__alpha": [1.0]}, scoring=NDCG10, cv=KFold(3)).fit(X[:, 1:], y)
