"""End to end: scikit-learn model selection tuned by grouped ranking metrics."""

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.base import clone
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.inspection import permutation_importance
from sklearn.linear_model import Ridge
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    HalvingGridSearchCV,
    RandomizedSearchCV,
    StratifiedGroupKFold,
    cross_val_score,
    cross_validate,
    validation_curve,
)

from sklearn_rankmetrics import (
    GroupedRanker,
    get_ranking_scorer,
    load_lambdarank,
    make_ranking,
    mean_average_precision_score,
    ndcg_score,
)

GRID = {"alpha": [0.1, 100.0]}


@pytest.fixture(scope="module")
def data():
    return make_ranking(n_queries=40, n_docs=(4, 15), n_features=6, random_state=0)


class Setup:
    """Estimator, X, scorers and keyword arguments for one routing mode.

    Routing on: a plain Ridge, and the groups reach splitter and scorers as metadata.
    Routing off: the query ids travel as column "qid" of a DataFrame; GroupedRanker
    drops it before Ridge sees X, and the scorers read it.
    """

    def __init__(self, data, routing):
        X, y, qid = data
        self.routing, self.y, self.qid = routing, y, qid
        if routing:
            self.estimator, self.X, self.prefix, column = Ridge(), X, "", ""
        else:
            self.X = pd.DataFrame(X).add_prefix("f").assign(qid=qid)
            self.estimator, self.prefix, column = (
                GroupedRanker(Ridge(), qid_column="qid"),
                "estimator__",
                "(qid_column='qid')",
            )
        self.single = get_ranking_scorer(f"ndcg@5{column}")
        self.multi = {"ndcg@5": self.single, "map": get_ranking_scorer(f"map{column}")}
        self.grid = {self.prefix + key: values for key, values in GRID.items()}

    def groups(self, name="groups"):
        """How cross_validate-like functions take the groups in this mode."""
        return {"params": {name: self.qid}} if self.routing else {"groups": self.qid}

    def features(self, rows):
        return self.X.iloc[rows].drop(columns="qid") if not self.routing else self.X[rows]


@pytest.fixture(params=[True, False], ids=["routing-on", "routing-off"])
def setup(request, data):
    with sklearn.config_context(enable_metadata_routing=request.param):
        yield Setup(data, request.param)


def recompute(setup, params, train, test, metric, **options):
    """The fold's score computed by hand: fit on the training rows, score the test rows."""
    model = clone(Ridge()).set_params(**params).fit(setup.features(train), setup.y[train])
    return metric(setup.y[test], model.predict(setup.features(test)), qid=setup.qid[test], **options)


@pytest.mark.parametrize("cv", [GroupKFold(3), StratifiedGroupKFold(3)], ids=["GroupKFold", "StratifiedGroupKFold"])
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_grid_search_cv_results_match_a_fold_by_fold_recomputation(setup, cv, n_jobs):
    search = GridSearchCV(setup.estimator, setup.grid, scoring=setup.multi, refit="ndcg@5", cv=cv, n_jobs=n_jobs)
    search.fit(setup.X, setup.y, groups=setup.qid)
    folds = list(cv.split(setup.X, setup.y, setup.qid))
    for candidate, params in enumerate(GRID["alpha"]):
        for fold, (train, test) in enumerate(folds):
            results = search.cv_results_
            ndcg = recompute(setup, {"alpha": params}, train, test, ndcg_score, k=5)
            ap = recompute(setup, {"alpha": params}, train, test, mean_average_precision_score)
            assert results[f"split{fold}_test_ndcg@5"][candidate] == pytest.approx(ndcg, abs=1e-12)
            assert results[f"split{fold}_test_map"][candidate] == pytest.approx(ap, abs=1e-12)
    best = int(np.argmax(search.cv_results_["mean_test_ndcg@5"]))
    assert search.best_index_ == best
    assert search.score(setup.X, setup.y, **({"groups": setup.qid} if setup.routing else {})) == pytest.approx(
        ndcg_score(setup.y, search.predict(setup.X), qid=setup.qid, k=5)
    )


@pytest.mark.filterwarnings("ignore:HalvingGridSearchCV.* subsamples rows:sklearn_rankmetrics.QueryGroupWarning")
@pytest.mark.parametrize("search_class", [RandomizedSearchCV, HalvingGridSearchCV])
@pytest.mark.parametrize("multi", [False, True], ids=["single", "multi"])
def test_other_searches(setup, search_class, multi):
    scoring = setup.multi if multi else setup.single
    options = {"n_iter": 2, "random_state": 0} if search_class is RandomizedSearchCV else {"min_resources": 150}
    if multi and search_class is HalvingGridSearchCV:
        scoring = setup.single  # successive halving takes a single metric
    refit = "ndcg@5" if isinstance(scoring, dict) else True
    search = search_class(setup.estimator, setup.grid, scoring=scoring, refit=refit, cv=GroupKFold(3), **options)
    search.fit(setup.X, setup.y, groups=setup.qid)
    key = "mean_test_ndcg@5" if isinstance(scoring, dict) else "mean_test_score"
    assert np.all((search.cv_results_[key] > 0.3) & (search.cv_results_[key] <= 1))


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_cross_val_score_and_cross_validate(setup, n_jobs):
    cv = GroupKFold(3)
    scores = cross_val_score(
        setup.estimator, setup.X, setup.y, scoring=setup.single, cv=cv, n_jobs=n_jobs, **setup.groups()
    )
    folds = cv.split(setup.X, setup.y, setup.qid)
    expected = [recompute(setup, {"alpha": 1.0}, train, test, ndcg_score, k=5) for train, test in folds]
    np.testing.assert_allclose(scores, expected, atol=1e-12)
    results = cross_validate(
        setup.estimator, setup.X, setup.y, scoring=setup.multi, cv=cv, n_jobs=n_jobs, **setup.groups()
    )
    np.testing.assert_allclose(results["test_ndcg@5"], expected, atol=1e-12)
    assert results["test_map"].shape == (3,)


def test_qid_as_metadata_alongside_groups(data):
    X, y, qid = data
    with sklearn.config_context(enable_metadata_routing=True):
        by_groups = cross_val_score(
            Ridge(), X, y, scoring=get_ranking_scorer("map"), cv=GroupKFold(3), params={"groups": qid}
        )
        both = cross_val_score(
            Ridge(), X, y, scoring=get_ranking_scorer("map"), cv=GroupKFold(3), params={"groups": qid, "qid": qid}
        )
    np.testing.assert_array_equal(by_groups, both)


def test_validation_curve(setup):
    name = setup.prefix + "alpha"
    train, test = validation_curve(
        setup.estimator,
        setup.X,
        setup.y,
        param_name=name,
        param_range=GRID["alpha"],
        cv=GroupKFold(3),
        scoring=setup.single,
        **setup.groups(),
    )
    assert train.shape == test.shape == (2, 3)
    folds = list(GroupKFold(3).split(setup.X, setup.y, setup.qid))
    expected = [recompute(setup, {"alpha": 100.0}, tr, te, ndcg_score, k=5) for tr, te in folds]
    np.testing.assert_allclose(test[1], expected, atol=1e-12)


@pytest.mark.parametrize("routing", [True, False])
def test_permutation_importance_reads_the_qid_column(data, routing):
    # permutation_importance routes no metadata: the query ids travel in X.
    X, y, qid = data
    frame = pd.DataFrame(X).add_prefix("f").assign(qid=qid)
    with sklearn.config_context(enable_metadata_routing=routing):
        model = GroupedRanker(Ridge(), qid_column="qid").fit(frame, y)
        result = permutation_importance(
            model, frame, y, scoring=get_ranking_scorer("ndcg@5(qid_column='qid')"), n_repeats=3, random_state=0
        )
    assert result.importances_mean.shape == (7,)
    informative = result.importances_mean[:5]
    assert informative.max() > 0.01  # shuffling an informative feature hurts the ranking


def test_missing_query_ids_fail_loudly_in_a_search(data):
    X, y, qid = data
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(Ridge(), GRID, scoring=get_ranking_scorer("ndcg@5"), cv=3, error_score="raise")
        with pytest.raises(ValueError, match="needs the query id of each row"):
            search.fit(X, y)
    search = GridSearchCV(Ridge(), GRID, scoring=get_ranking_scorer("ndcg@5"), cv=GroupKFold(3), error_score="raise")
    with pytest.raises(ValueError, match="needs the query id of each row"):
        search.fit(X, y, groups=qid)  # routing off and no qid column: never one query per fold


def test_sample_weight_is_routed_only_on_request(data):
    X, y, qid = data
    weight = qid % 2 + 1.0
    with sklearn.config_context(enable_metadata_routing=True):
        scorer = get_ranking_scorer("ndcg@5").set_score_request(sample_weight=True)
        estimator = Ridge().set_fit_request(sample_weight=False)
        scores = cross_val_score(
            estimator, X, y, scoring=scorer, cv=GroupKFold(3), params={"groups": qid, "sample_weight": weight}
        )
        folds = GroupKFold(3).split(X, y, qid)
        expected = [
            ndcg_score(y[te], Ridge().fit(X[tr], y[tr]).predict(X[te]), qid=qid[te], k=5, sample_weight=weight[te])
            for tr, te in folds
        ]
        np.testing.assert_allclose(scores, expected, atol=1e-12)
        with pytest.raises(Exception, match="sample_weight"):
            cross_val_score(
                Ridge().set_fit_request(sample_weight=False),
                X,
                y,
                scoring=get_ranking_scorer("ndcg@5"),
                cv=GroupKFold(3),
                params={"groups": qid, "sample_weight": weight},
            )


@pytest.fixture(scope="module")
def lambdarank():
    return load_lambdarank(subset="train")


@pytest.mark.filterwarnings("ignore:The argument .eval_set. is deprecated")
@pytest.mark.parametrize("library", ["lightgbm", "xgboost"])
def test_real_data_matches_the_rankers_own_evaluation_fold_by_fold(lambdarank, library):
    X, y, qid = lambdarank
    cv = GroupKFold(3)
    if library == "lightgbm":
        from lightgbm import LGBMRanker

        inner = LGBMRanker(n_estimators=20, num_leaves=15, n_jobs=1, verbose=-1)
    else:
        from xgboost import XGBRanker

        inner = XGBRanker(n_estimators=20, max_depth=4, n_jobs=1, eval_metric=["ndcg@3", "ndcg@10"])
    ranker = GroupedRanker(inner)
    scorers = {f"ndcg@{k}": get_ranking_scorer(f"ndcg_exp@{k}(ties='stable', zero_division=1.0)") for k in (3, 10)}
    with sklearn.config_context(enable_metadata_routing=True):
        results = cross_validate(ranker, X, y, scoring=scorers, cv=cv, params={"groups": qid}, return_estimator=True)
    assert np.all(results["test_ndcg@10"] > 0.5)
    for fold, (train, test) in enumerate(cv.split(X, y, qid)):
        # Fit the same model with the fold's test rows as the ranker's own evaluation set.
        order = test[np.argsort(qid[test], kind="stable")]
        sizes = np.unique(qid[order], return_counts=True)[1]
        if library == "lightgbm":
            own = GroupedRanker(inner).fit(
                X[train], y[train], qid=qid[train], eval_set=[(X[order], y[order])], eval_group=[sizes], eval_at=[3, 10]
            )
            evaluation = own.estimator_.evals_result_["valid_0"]
        else:
            own = GroupedRanker(inner).fit(
                X[train],
                y[train],
                qid=qid[train],
                eval_set=[(X[order], y[order])],
                eval_qid=[qid[order]],
                verbose=False,
            )
            evaluation = own.estimator_.evals_result()["validation_0"]
        np.testing.assert_allclose(own.predict(X[test]), results["estimator"][fold].predict(X[test]), rtol=1e-6)
        for k in (3, 10):
            ours = scorers[f"ndcg@{k}"](own, X[test], y[test], qid=qid[test])
            assert ours == pytest.approx(evaluation[f"ndcg@{k}"][-1], abs=1e-12)
            assert results[f"test_ndcg@{k}"][fold] == pytest.approx(ours, abs=1e-6)


@pytest.mark.parametrize("routing", [False, True], ids=["routing-off", "routing-on"])
def test_optuna_search_cv_with_the_qid_column_and_the_documented_folds(data, routing):
    optuna = pytest.importorskip("optuna")
    optuna_integration = pytest.importorskip("optuna_integration")
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    X, y, qid = data
    with_qid = np.column_stack([qid, X])
    # Routing off: groups= as usual. Routing on: the folds themselves, since OptunaSearchCV passes groups= on to
    # cross_validate, which scikit-learn refuses while routing is on.
    folds, groups = (list(GroupKFold(3).split(with_qid, y, qid)), None) if routing else (GroupKFold(3), qid)
    with sklearn.config_context(enable_metadata_routing=routing):
        search = optuna_integration.OptunaSearchCV(
            GroupedRanker(Ridge(), qid_column=0),
            {"estimator__alpha": optuna.distributions.FloatDistribution(0.1, 10.0)},
            cv=folds,
            scoring=get_ranking_scorer("ndcg@5(qid_column=0)"),
            n_trials=2,
            random_state=0,
        ).fit(with_qid, y, groups=groups)
    alpha = search.best_params_["estimator__alpha"]
    folds = GroupKFold(3).split(with_qid, y, qid)
    expected = [
        ndcg_score(y[te], Ridge(alpha=alpha).fit(X[tr], y[tr]).predict(X[te]), qid=qid[te], k=5) for tr, te in folds
    ]
    assert search.best_score_ == pytest.approx(np.mean(expected), abs=1e-12)


def test_the_missing_qid_message_says_how_optuna_works_with_routing_on(data, monkeypatch):
    from sklearn_rankmetrics.model_selection import _qid_column

    X, y, _ = data
    monkeypatch.setitem(_qid_column.NON_ROUTING, __name__, _qid_column.OPTUNA)  # this test stands in for optuna
    with sklearn.config_context(enable_metadata_routing=True):
        with pytest.raises(ValueError, match=r"OptunaSearchCV does not route metadata.*cv=list\(GroupKFold\(3\)"):
            get_ranking_scorer("ndcg@5")(Ridge().fit(X, y), X, y)
