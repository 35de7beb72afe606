"""The tuning workflow end to end (issue #9): early stopping per fold, guards, route-aware errors, the loader."""

import io
import pickle
import re
import warnings

import joblib
import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.compose import ColumnTransformer
from sklearn.feature_selection import RFECV
from sklearn.inspection import permutation_importance
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, GroupKFold, KFold, cross_validate
from sklearn.pipeline import make_pipeline

from sklearn_rankmetrics import (
    GroupedRanker,
    QueryGroupWarning,
    get_ranking_scorer,
    load_lambdarank,
    load_svmlight_ranking,
    make_ranking,
    ndcg_score,
)
from sklearn_rankmetrics.model_selection._early_stopping import warn_few_validation_queries

lightgbm = pytest.importorskip("lightgbm")
xgboost = pytest.importorskip("xgboost")
catboost = pytest.importorskip("catboost")

NDCG10 = get_ranking_scorer("ndcg@10")
# Early stopping on fewer than about 30 validation queries warns; tests on small data expect it.
FEW_VALIDATION_QUERIES = pytest.mark.filterwarnings(
    "ignore:Early stopping validates on:sklearn_rankmetrics.QueryGroupWarning"
)


@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


@pytest.fixture(scope="module")
def train():
    return load_lambdarank(subset="train")


def boosters():
    return {
        "lightgbm": lightgbm.LGBMRanker(n_estimators=300, verbose=-1, n_jobs=1),
        "xgboost": xgboost.XGBRanker(n_estimators=300, n_jobs=1, tree_method="hist"),
        "catboost": catboost.CatBoostRanker(
            iterations=300, verbose=0, thread_count=1, allow_writing_files=False, random_seed=0
        ),
    }


def with_qid_column(X, qid):
    return np.column_stack([qid, X])


@FEW_VALIDATION_QUERIES
# Early stopping per fit.
@pytest.mark.parametrize("booster", ["lightgbm", "xgboost", "catboost"])
@pytest.mark.parametrize("route", ["routing on", "routing off"])
def test_each_fold_stops_early_and_searches_repeat_exactly(train, booster, route):
    X, y, qid = train
    ranker = GroupedRanker(boosters()[booster], early_stopping_rounds=5, random_state=0)
    scorer, fit_params = NDCG10, {"groups": qid}
    if route == "routing off":
        X = with_qid_column(X, qid)
        ranker.set_params(qid_column=0)
        scorer, fit_params = get_ranking_scorer("ndcg@10(qid_column=0)"), {}
    cv = list(GroupKFold(3).split(X, y, qid))
    with sklearn.config_context(enable_metadata_routing=route == "routing on"):
        folds = cross_validate(ranker, X, y, scoring=scorer, cv=cv, params=fit_params, return_estimator=True)
        for model in folds["estimator"]:
            assert 1 <= model.best_iteration_ < 300
        results = [
            GridSearchCV(ranker, {"validation_fraction": [0.1, 0.2]}, scoring=scorer, cv=cv).fit(X, y, **fit_params)
            for _ in range(2)
        ]
    for key in ("split0_test_score", "split1_test_score", "split2_test_score", "mean_test_score"):
        np.testing.assert_array_equal(results[0].cv_results_[key], results[1].cv_results_[key])
    # Every fold's score is the metric of that fold's model on that fold's rows.
    for (_, test_rows), model, score in zip(cv, folds["estimator"], folds["test_score"], strict=True):
        assert score == ndcg_score(y[test_rows], model.predict(X[test_rows]), qid=qid[test_rows], k=10)


@FEW_VALIDATION_QUERIES
def test_stopping_follows_the_library_metric(train):
    X, y, qid = train
    ranker = GroupedRanker(boosters()["xgboost"], early_stopping_rounds=5, early_stopping_metric="map", random_state=1)
    ranker.fit(X, y, qid=qid)
    history = ranker.evals_result_["validation"]["map"]
    assert ranker.best_iteration_ == int(np.argmax(history)) + 1  # rounds kept, up to the best
    assert len(history) == ranker.best_iteration_ + 5


class RecordingLGBMRanker(lightgbm.LGBMRanker):
    def fit(self, X, y, *, group=None, eval_X=None, eval_y=None, eval_group=None, eval_metric=None, callbacks=None):
        self.seen_rows_, self.validation_rows_ = X[:, 0], eval_X[0][:, 0]
        return super().fit(
            X,
            y,
            group=group,
            eval_X=eval_X,
            eval_y=eval_y,
            eval_group=eval_group,
            eval_metric=eval_metric,
            callbacks=callbacks,
        )


@FEW_VALIDATION_QUERIES
def test_validation_queries_never_reach_the_training_rows():
    X, y, qid = make_ranking(n_queries=40, random_state=0)
    X = np.column_stack([np.arange(len(y)), X])  # the row number rides along as a feature
    ranker = GroupedRanker(
        RecordingLGBMRanker(n_estimators=50, verbose=-1, n_jobs=1),
        early_stopping_rounds=3,
        validation_fraction=0.25,
    ).fit(X, y, qid=qid)
    seen, held_out = ranker.estimator_.seen_rows_.astype(int), ranker.estimator_.validation_rows_.astype(int)
    assert np.intersect1d(seen, held_out).size == 0
    assert np.intersect1d(qid[seen], qid[held_out]).size == 0
    assert np.array_equal(np.sort(np.concatenate([seen, held_out])), np.arange(len(y)))
    assert len(np.unique(qid[held_out])) == 10


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"early_stopping_rounds": 0}, "early_stopping_rounds must be None or an integer >= 1; got 0"),
        ({"early_stopping_rounds": 5, "validation_fraction": 1.0}, r"validation_fraction must be a number in \(0, 1\)"),
        ({"early_stopping_rounds": 5, "early_stopping_metric": "ndgc"}, "'ndgc' is not a ranking metric name"),
    ],
)
def test_early_stopping_parameters_are_checked(params, message):
    X, y, qid = make_ranking(n_queries=10, random_state=0)
    with pytest.raises(ValueError, match=message):
        GroupedRanker(lightgbm.LGBMRanker(verbose=-1), **params).fit(X, y, qid=qid)


def test_early_stopping_needs_a_booster():
    X, y, qid = make_ranking(n_queries=10, random_state=0)
    with pytest.raises(ValueError, match="early_stopping_rounds works with a LightGBM, XGBoost or CatBoost ranker"):
        GroupedRanker(Ridge(), early_stopping_rounds=5).fit(X, y, qid=qid)


def test_routed_evaluation_parameters(train, routing):
    X, y, qid = train
    ranker = GroupedRanker(lightgbm.LGBMRanker(n_estimators=20, verbose=-1, n_jobs=1))
    ranker.set_fit_request(eval_X=True, eval_y=True, eval_group=True)
    params = {"groups": qid, "eval_X": (X[:100],), "eval_y": (y[:100],), "eval_group": [[100]]}
    folds = cross_validate(ranker, X, y, scoring=NDCG10, cv=GroupKFold(3), params=params, return_estimator=True)
    assert len(folds["estimator"][0].evals_result_["valid_0"]["ndcg@1"]) == 20


def small_boosters():
    return {
        "lightgbm": lightgbm.LGBMRanker(n_estimators=30, num_leaves=7, verbose=-1, n_jobs=1),
        "xgboost": xgboost.XGBRanker(n_estimators=30, max_depth=3, n_jobs=1, tree_method="hist"),
        "catboost": catboost.CatBoostRanker(
            iterations=30, depth=3, verbose=0, thread_count=1, allow_writing_files=False, random_seed=0
        ),
    }


@FEW_VALIDATION_QUERIES
@pytest.mark.parametrize("booster", ["lightgbm", "xgboost", "catboost"])
@pytest.mark.parametrize("n_queries", [3, 5, 14])
def test_early_stopping_fits_with_a_single_validation_query(booster, n_queries):
    X, y, qid = make_ranking(n_queries=n_queries, n_docs=(5, 10), n_features=5, random_state=0)
    ranker = GroupedRanker(small_boosters()[booster], early_stopping_rounds=3, random_state=0).fit(X, y, qid=qid)
    assert 1 <= ranker.best_iteration_ <= 30
    assert ranker.predict(X).shape == y.shape


@pytest.mark.parametrize("booster", ["lightgbm", "xgboost", "catboost"])
def test_early_stopping_with_too_few_queries_says_how_many_it_needs(booster):
    X, y, qid = make_ranking(n_queries=2, n_docs=5, n_features=5, random_state=0)
    ranker = GroupedRanker(small_boosters()[booster], early_stopping_rounds=3)
    with pytest.raises(ValueError, match=r"needs at least 3 queries \(1 to validate, 2 to train\); this fit has 2"):
        ranker.fit(X, y, qid=qid)


def test_early_stopping_on_few_validation_queries_warns_and_says_what_to_do():
    X, y, qid = make_ranking(n_queries=60, n_docs=(3, 6), n_features=5, random_state=0)
    ranker = GroupedRanker(small_boosters()["lightgbm"], early_stopping_rounds=3, random_state=0)
    with pytest.warns(QueryGroupWarning, match=r"validates on 6 queries \(validation_fraction=0.1 of the fit's 60\)"):
        ranker.fit(X, y, qid=qid)
    with pytest.warns(QueryGroupWarning, match=r"validation_fraction=0.5 gives 30\), or tune the number of boosting"):
        ranker.set_params(validation_fraction=0.2).fit(X, y, qid=qid)
    with warnings.catch_warnings():
        warnings.simplefilter("error", QueryGroupWarning)
        ranker.set_params(validation_fraction=0.5).fit(X, y, qid=qid)  # 30 validation queries


def held_out(validation_fraction, n_queries):
    """The validation queries of a fit, as GroupedRanker's docstring says: the share rounded, at least 1, 2 left."""
    return min(max(1, round(validation_fraction * n_queries)), n_queries - 2)


def test_the_advice_on_few_validation_queries_is_the_smallest_fraction_that_holds_out_30():
    for n_queries in range(31, 3001):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            warn_few_validation_queries(held_out(0.001, n_queries), n_queries, 0.001)
        advice = re.search(r"\(validation_fraction=([0-9.]+) gives ([0-9]+)\)", str(caught[0].message))
        enough = [f / 100 for f in range(1, 51) if held_out(f / 100, n_queries) >= 30]
        if not enough:  # not even half of the queries: no fraction is advised
            assert advice is None, n_queries
            continue
        fraction, count = float(advice[1]), int(advice[2])
        assert (fraction, count) == (enough[0], held_out(enough[0], n_queries)), n_queries
    assert enough[0] == 0.01  # up to 3000 queries, every smallest fraction was met


@FEW_VALIDATION_QUERIES
@pytest.mark.parametrize("booster", ["lightgbm", "xgboost", "catboost"])
def test_early_stopped_rankers_pickle_and_predict_the_same(booster):
    X, y, qid = make_ranking(n_queries=20, n_docs=(5, 10), n_features=5, random_state=0)
    ranker = GroupedRanker(small_boosters()[booster], early_stopping_rounds=3, random_state=0).fit(X, y, qid=qid)
    for dump, load in [(pickle.dumps, pickle.loads), (dump_with_joblib, joblib.load)]:
        restored = load(dump(ranker))
        np.testing.assert_array_equal(restored.predict(X), ranker.predict(X))
        assert restored.best_iteration_ == ranker.best_iteration_


def rounds_held(model):
    """The boosting rounds a fitted booster holds (a ranking objective grows one tree per round)."""
    if isinstance(model, lightgbm.LGBMRanker):
        return model.booster_.current_iteration()
    if isinstance(model, xgboost.XGBRanker):
        return model.get_booster().num_boosted_rounds()
    return model.tree_count_


def predict_with_rounds(model, X, rounds):
    """The predictions of the first ``rounds`` boosting rounds of ``model``."""
    if isinstance(model, lightgbm.LGBMRanker):
        return model.predict(X, num_iteration=rounds)
    if isinstance(model, xgboost.XGBRanker):
        return model.predict(X, iteration_range=(0, rounds))
    return model.predict(X, ntree_end=rounds)


@pytest.mark.parametrize("booster", ["lightgbm", "xgboost", "catboost"])
def test_best_iteration_is_the_number_of_rounds_kept_for_every_booster(booster):
    X, y, qid = make_ranking(n_queries=60, n_docs=(5, 10), n_features=4, random_state=0)
    stopped = GroupedRanker(
        small_boosters()[booster], early_stopping_rounds=3, validation_fraction=0.5, random_state=0
    ).fit(X, y, qid=qid)
    best = stopped.best_iteration_
    assert 2 <= best < 30  # it stopped early
    assert rounds_held(stopped.estimator_) == best
    np.testing.assert_array_equal(stopped.predict(X), predict_with_rounds(stopped.estimator_, X, best))
    assert not np.array_equal(stopped.predict(X), predict_with_rounds(stopped.estimator_, X, best - 1))
    # n_estimators=best_iteration_, without early stopping, fits a model of the same size.
    rounds = "iterations" if booster == "catboost" else "n_estimators"
    refit = GroupedRanker(small_boosters()[booster].set_params(**{rounds: best})).fit(X, y, qid=qid)
    assert rounds_held(refit.estimator_) == best
    assert not hasattr(refit, "best_iteration_")  # no early stopping, no best iteration


def dump_with_joblib(model):
    buffer = io.BytesIO()
    joblib.dump(model, buffer)
    buffer.seek(0)
    return buffer


# Fitted attributes.
def test_rfecv_runs_with_its_defaults(train, routing):
    X, y, qid = train
    selector = RFECV(
        GroupedRanker(lightgbm.LGBMRanker(n_estimators=20, verbose=-1, n_jobs=1)), step=100, cv=GroupKFold(3)
    )
    selector.fit(X, y, groups=qid)
    ranked = RFECV(selector.estimator, step=100, cv=GroupKFold(3), scoring=NDCG10).fit(X, y, groups=qid)
    assert 1 <= ranked.n_features_ <= X.shape[1]
    assert np.all((ranked.cv_results_["mean_test_score"] > 0) & (ranked.cv_results_["mean_test_score"] <= 1))


def test_fitted_attributes_are_forwarded():
    X, y, qid = make_ranking(n_queries=20, random_state=0)
    ridge = GroupedRanker(Ridge()).fit(X, y, qid=qid)
    np.testing.assert_array_equal(ridge.coef_, ridge.estimator_.coef_)
    booster = GroupedRanker(lightgbm.LGBMRanker(n_estimators=5, verbose=-1)).fit(X, y, qid=qid)
    np.testing.assert_array_equal(booster.feature_importances_, booster.estimator_.feature_importances_)
    with pytest.raises(AttributeError, match="'GroupedRanker' object has no attribute 'coef_'"):
        booster.coef_  # noqa: B018
    with pytest.raises(AttributeError, match="no attribute 'feature_importances_'"):
        GroupedRanker(Ridge()).feature_importances_  # noqa: B018


# Guards.
def test_a_leaky_split_warns_and_a_group_split_does_not(routing):
    X, y, qid = make_ranking(n_queries=30, random_state=0)
    search = GridSearchCV(
        GroupedRanker(Ridge()), {"estimator__alpha": [1.0]}, scoring=NDCG10, cv=KFold(3, shuffle=True)
    )
    with pytest.warns(QueryGroupWarning, match=r"queries scored were also in the training data .* GroupKFold"):
        search.fit(X, y, groups=qid)
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        search.set_params(cv=GroupKFold(3), return_train_score=True).fit(X, y, groups=qid)
        search.best_estimator_.score(X, y, qid=qid)  # the training queries themselves: legitimate
    assert not [record for record in records if issubclass(record.category, QueryGroupWarning)]


def test_colliding_ids_of_two_files_warn(train):
    X, y, qid = train
    model = GroupedRanker(lightgbm.LGBMRanker(n_estimators=5, verbose=-1)).fit(
        X[qid < 100], y[qid < 100], qid=qid[qid < 100]
    )
    test = qid >= 100
    with pytest.warns(QueryGroupWarning, match="or the query ids of two files collide"):
        model.score(X[test], y[test], qid=qid[test] - 100)  # numbered from 0, as rank.test is


def test_qid_column_as_a_feature_warns():
    X, y, qid = make_ranking(n_queries=20, n_features=3, random_state=0)
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(qid=qid)
    scorer = get_ranking_scorer("ndcg@10(qid_column='qid')")
    passthrough = make_pipeline(ColumnTransformer([("scaled", "passthrough", ["a"])], remainder="passthrough"), Ridge())
    for leaky in (Ridge(), passthrough):
        with pytest.warns(QueryGroupWarning, match="fitted on the query id column 'qid'"):
            scorer(leaky.fit(frame, y), frame, y)
    dropping = make_pipeline(ColumnTransformer([("kept", "passthrough", ["a", "b", "c"])]), Ridge())
    with warnings.catch_warnings():
        warnings.simplefilter("error", QueryGroupWarning)
        scorer(dropping.fit(frame, y), frame, y)
        scorer(GroupedRanker(Ridge(), qid_column="qid").fit(frame, y), frame, y)
        # permutation_importance takes the qid_column route and no longer reports the id as a feature.
        model = GroupedRanker(Ridge(), qid_column="qid").fit(frame, y)
        permutation_importance(model, frame, y, scoring=scorer, n_repeats=2, random_state=0)


# Route-aware messages.
def test_missing_qid_messages_name_the_route(routing):
    X, y, _ = make_ranking(n_queries=20, random_state=0)
    with pytest.raises(ValueError, match="Metadata routing is on, but permutation_importance does not route"):
        permutation_importance(Ridge().fit(X, y), X, y, scoring=NDCG10)
    with pytest.raises(
        ValueError, match=r"routing is on, but the caller did not pass them.*params=\{\"groups\": qid\}"
    ):
        NDCG10(Ridge().fit(X, y), X, y)


def test_missing_qid_message_with_routing_off():
    X, y, _ = make_ranking(n_queries=20, random_state=0)
    with pytest.raises(ValueError, match=r"Metadata routing is off, so nothing can pass them.*qid_column="):
        NDCG10(Ridge().fit(X, y), X, y)


@pytest.mark.parametrize(
    ("typed", "canonical"),
    [
        ("nDCG@10", "ndcg@10"),
        ("P@10", "precision@10"),
        ("R@100", "recall@100"),
        ("AP", "map"),
        ("RR@10", "mrr@10"),
        ("ndcg_cut_10", "ndcg@10"),
        ("P_10", "precision@10"),
        ("recip_rank", "mrr"),
        ("Rprec", "r_precision"),
        ("map_cut_5", "map@5"),
        ("recall_1000", "recall@1000"),
        ("NDCG_EXP@5", "ndcg_exp@5"),
    ],
)
def test_ir_names_are_understood(typed, canonical):
    assert repr(get_ranking_scorer(typed)) == canonical


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("ndcg@10(gain='exp')", "gain must be one of 'linear', 'exponential'; got 'exp'"),
        ("map(denominator='cap')", "denominator must be one of 'relevant', 'capped'; got 'cap'"),
        ("ndcg(zero_division=2.0)", r"zero_division must be 0.0, 1.0 or np.nan; got 2.0"),
        ("ndcg@0", "k must be an integer >= 1"),
    ],
)
def test_options_are_checked_when_the_scorer_is_built(name, message):
    with pytest.raises(ValueError, match=message):
        get_ranking_scorer(name)


# The loader.
def test_catboost_tuned_on_rank_train_predicts_on_rank_test(lambdarank_dir, routing):
    X, y, qid = load_svmlight_ranking(lambdarank_dir / "rank.train")
    X_test, y_test, qid_test = load_svmlight_ranking(
        lambdarank_dir / "rank.test", n_features=X.shape[1], qid_offset=qid.max() + 1
    )
    assert X.indices.dtype == X_test.indices.dtype == np.int32
    assert np.intersect1d(qid, qid_test).size == 0
    ranker = GroupedRanker(
        catboost.CatBoostRanker(iterations=20, verbose=0, thread_count=1, allow_writing_files=False, random_seed=0)
    )
    search = GridSearchCV(ranker, {"estimator__depth": [2, 4]}, scoring=NDCG10, cv=GroupKFold(3))
    search.fit(X, y, groups=qid)
    score = NDCG10(search.best_estimator_, X_test, y_test, qid=qid_test)
    assert 0.5 < score <= 1


def test_qid_offset_is_checked(lambdarank_dir):
    with pytest.raises(TypeError, match=r"qid_offset must be an integer; got 1\.5"):
        load_svmlight_ranking(lambdarank_dir / "rank.test", qid_offset=1.5)
