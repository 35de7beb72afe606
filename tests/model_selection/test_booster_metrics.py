"""The boosters' evaluation adapters: each booster trained with them logs this library's exact metric.

Every logged value, round by round, is compared with the metric function on
the booster's own predictions of the same rows after that round.
"""

import re

import numpy as np
import pytest

from sklearn_rankmetrics import (
    CatBoostMetric,
    GroupedRanker,
    LightGBMMetric,
    XGBoostMetric,
    get_ranking_scorer,
    make_ranking,
    make_ranking_scorer,
    mean_average_precision_score,
)

lightgbm = pytest.importorskip("lightgbm")
xgboost = pytest.importorskip("xgboost")
catboost = pytest.importorskip("catboost")

METRICS = ["ndcg@10", "err@5", "map", "mrr", "precision@3(zero_division=1.0)"]
ROUNDS = 8


@pytest.fixture(scope="module")
def split():
    """Training and validation rows, each ordered by query (as the boosters want them), with tied labels."""
    X, y, qid = make_ranking(n_queries=40, n_docs=(2, 15), n_features=5, random_state=0)
    order = np.argsort(qid, kind="stable")
    X, y, qid = X[order], y[order], qid[order]
    train, valid = qid < 28, qid >= 28
    return (X[train], y[train], qid[train]), (X[valid], y[valid], qid[valid])


def sizes(qid):
    return np.unique(qid, return_counts=True)[1]


def exact(name, y, scores, qid):
    """The metric of the scorer of ``name``, as its function computes it."""
    scorer = get_ranking_scorer(name)
    return scorer._score_func(y, scores, qid=qid, **scorer._kwargs)


def assert_logged(name, logged, predictions, y, qid, *, printed=False):
    """Each round's logged value equals the metric of that round's predictions (equal up to rounding).

    ``printed``: the booster logs the value as printed with six decimals (XGBoost's ``"%f"``).
    """
    assert len(logged) == len(predictions) == ROUNDS
    expected = [exact(name, y, scores, qid) for scores in predictions]
    if printed:
        expected = [float(f"{value:f}") for value in expected]
    np.testing.assert_allclose(logged, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", METRICS)
def test_lightgbm_logs_the_exact_metric_through_eval_metric(split, name):
    (X, y, qid), (X_val, y_val, qid_val) = split
    metric = LightGBMMetric(name)
    model = lightgbm.LGBMRanker(n_estimators=ROUNDS, num_leaves=7, metric="None", verbose=-1, n_jobs=1)
    model.fit(X, y, group=sizes(qid), eval_X=(X_val,), eval_y=(y_val,), eval_group=[sizes(qid_val)], eval_metric=metric)
    logged = model.evals_result_["valid_0"][metric.name]
    predictions = [model.predict(X_val, num_iteration=i + 1) for i in range(ROUNDS)]
    assert_logged(name, logged, predictions, y_val, qid_val)


@pytest.mark.parametrize("name", METRICS[:2])
def test_lightgbm_train_takes_it_as_feval(split, name):
    (X, y, qid), (X_val, y_val, qid_val) = split
    train = lightgbm.Dataset(X, y, group=sizes(qid))
    valid = lightgbm.Dataset(X_val, y_val, group=sizes(qid_val), reference=train)
    log = {}
    booster = lightgbm.train(
        {"objective": "lambdarank", "metric": "None", "num_leaves": 7, "verbose": -1, "num_threads": 1},
        train,
        num_boost_round=ROUNDS,
        valid_sets=[valid],
        valid_names=["valid"],
        feval=LightGBMMetric(name),
        callbacks=[lightgbm.record_evaluation(log)],
    )
    predictions = [booster.predict(X_val, num_iteration=i + 1) for i in range(ROUNDS)]
    assert_logged(name, log["valid"][LightGBMMetric(name).name], predictions, y_val, qid_val)


@pytest.mark.parametrize("name", METRICS)
def test_xgboost_train_logs_the_exact_metric_through_custom_metric(split, name):
    (X, y, qid), (X_val, y_val, qid_val) = split
    train, valid = xgboost.DMatrix(X, y, qid=qid), xgboost.DMatrix(X_val, y_val, qid=qid_val)
    metric, log = XGBoostMetric(name), {}
    booster = xgboost.train(
        {"objective": "rank:ndcg", "max_depth": 3, "nthread": 1, "disable_default_eval_metric": 1},
        train,
        num_boost_round=ROUNDS,
        evals=[(valid, "valid")],
        custom_metric=metric,
        evals_result=log,
        verbose_eval=False,
    )
    predictions = [booster.predict(valid, iteration_range=(0, i + 1)) for i in range(ROUNDS)]
    assert_logged(name, log["valid"][metric.name], predictions, y_val, qid_val, printed=True)


def test_xgb_ranker_logs_and_stops_on_the_exact_metric_through_the_callback(split):
    (X, y, qid), (X_val, y_val, qid_val) = split
    shuffled = np.random.default_rng(0).permutation(len(y_val))  # the callback takes rows in any order
    metric = XGBoostMetric("mrr@10")
    callback = metric.callback(X_val[shuffled], y_val[shuffled], qid_val[shuffled], early_stopping_rounds=3)
    model = xgboost.XGBRanker(n_estimators=40, max_depth=3, n_jobs=1, callbacks=[callback])
    model.fit(X, y, qid=qid)
    logged = model.evals_result()["validation"]["mrr@10"]
    kept = model.get_booster()  # the rounds up to the best, which the callback keeps
    for i in range(model.best_iteration + 1):
        scores = kept.predict(xgboost.DMatrix(X_val), iteration_range=(0, i + 1))
        assert logged[i] == exact("mrr@10", y_val, scores, qid_val)
    assert len(logged) < 40  # stopped early
    assert model.best_iteration == int(np.argmax(logged))  # maximised (XGBoost guesses "mrr" is minimised)
    assert exact("mrr@10", y_val, model.predict(X_val), qid_val) == max(logged)  # the best round is kept


def test_xgb_ranker_eval_metric_is_refused_since_xgboost_weights_queries_by_size(split):
    (X, y, qid), (X_val, y_val, qid_val) = split
    model = xgboost.XGBRanker(n_estimators=2, n_jobs=1, eval_metric=XGBoostMetric("ndcg@10"))
    with pytest.raises(TypeError, match=r"weighted by the number of documents.*metric\.callback\(X_val, y_val"):
        model.fit(X, y, qid=qid, eval_set=[(X_val, y_val)], eval_qid=[qid_val], verbose=False)


@pytest.mark.parametrize("name", METRICS)
def test_catboost_logs_the_exact_metric_on_the_learn_and_evaluation_sets(split, name):
    (X, y, qid), (X_val, y_val, qid_val) = split
    train, valid = catboost.Pool(X, y, group_id=qid), catboost.Pool(X_val, y_val, group_id=qid_val)
    model = catboost.CatBoostRanker(
        iterations=ROUNDS,
        depth=3,
        eval_metric=CatBoostMetric(name, data=[train, (y_val, qid_val)]),  # a Pool or a (y, group_id) pair
        use_best_model=False,
        verbose=0,
        thread_count=1,
        random_seed=0,
        allow_writing_files=False,
    )
    model.fit(train, eval_set=valid)
    for data, rows, key in ((valid, (y_val, qid_val), "validation"), (train, (y, qid), "learn")):
        predictions = [model.predict(data, ntree_end=i + 1) for i in range(ROUNDS)]
        assert_logged(name, model.evals_result_[key]["CatBoostMetric"], predictions, *rows)


def test_catboost_refuses_a_set_it_was_not_told_the_groups_of(split):
    (X, y, qid), (X_val, y_val, qid_val) = split
    model = catboost.CatBoostRanker(
        iterations=2,
        eval_metric=CatBoostMetric("ndcg@10", data=(y_val, qid_val)),
        verbose=0,
        thread_count=1,
        allow_writing_files=False,
    )
    with pytest.raises(Exception, match=r"match none of the 1 data sets it was given.*the learn set"):
        model.fit(catboost.Pool(X, y, group_id=qid), eval_set=catboost.Pool(X_val, y_val, group_id=qid_val))
    with pytest.raises(ValueError, match="two data sets with the same labels, row for row, and different query groups"):
        CatBoostMetric("ndcg@10", data=[(y_val, qid_val), (y_val, np.arange(len(y_val)))])
    with pytest.raises(ValueError, match=r"a Pool without group_id; build it with Pool\(\.\.\., group_id=qid\)"):
        CatBoostMetric("ndcg@10", data=catboost.Pool(X_val, y_val))


def test_the_adapters_take_a_scorer_and_follow_its_direction(split):
    (_, _, _), (X_val, y_val, qid_val) = split
    loss = make_ranking_scorer(mean_average_precision_score, greater_is_better=False)
    scores = X_val[:, 0]
    value = mean_average_precision_score(y_val, scores, qid=qid_val)
    name, logged, higher = LightGBMMetric(loss)(y_val, scores, None, sizes(qid_val))
    assert (name, logged, higher) == ("map(greater_is_better=False)", value, False)
    assert CatBoostMetric(loss, data=(y_val, qid_val)).is_max_optimal() is False
    assert XGBoostMetric(loss).higher_is_better is False


@pytest.mark.parametrize("adapter", [LightGBMMetric, XGBoostMetric])
def test_a_metric_of_a_judgement_matrix_is_refused_when_the_adapter_is_built(adapter):
    with pytest.raises(ValueError, match=r"metric='alpha_ndcg@10' is a diversity metric.*such as 'ndcg@10'"):
        adapter("alpha_ndcg@10")
    with pytest.raises(ValueError, match="'ndgc@10' is not a ranking metric name"):
        adapter("ndgc@10")
    with pytest.raises(TypeError, match="metric must be a metric name such as 'ndcg@10'"):
        adapter(3)


def test_lightgbm_metric_without_query_groups_says_where_to_give_them(split):
    _, (_, y_val, _) = split
    with pytest.raises(
        ValueError, match=r"needs the query groups of every evaluated set: give LGBMRanker\.fit eval_group"
    ):
        LightGBMMetric("ndcg@10")(y_val, y_val)
    with pytest.raises(ValueError, match="received query groups of 3 rows in all for"):
        LightGBMMetric("ndcg@10")(y_val, y_val, None, [3])


# Item 14: an early-stopping metric that a booster cannot compute is refused before any boosting round.
@pytest.mark.parametrize("name", ["alpha_ndcg@10", "err_ia@5", "s_recall"])
def test_an_early_stopping_metric_of_a_judgement_matrix_is_refused_before_any_boosting_round(split, name):
    (X, y, qid), _ = split
    ranker = GroupedRanker(lightgbm.LGBMRanker(verbose=-1), early_stopping_rounds=3, early_stopping_metric=name)
    with pytest.raises(ValueError, match=rf"early_stopping_metric='{name}' is a diversity metric.*'ndcg@10'"):
        ranker.fit(X, y, qid=qid)
    assert not hasattr(ranker, "estimator_")  # the booster never started


@pytest.mark.parametrize(
    ("name", "error", "message"),
    [
        ("ndcg@10(average=False)", TypeError, "A scorer returns the mean over queries"),
        ("rbo", ValueError, "'rbo' is not a ranking metric name"),
        ("ndcg@10(candidates=1)", ValueError, "sets candidates, which carries the data"),
    ],
)
def test_an_early_stopping_metric_that_is_no_scorer_names_the_parameter_before_any_boosting_round(
    split, name, error, message
):
    (X, y, qid), _ = split
    ranker = GroupedRanker(lightgbm.LGBMRanker(verbose=-1), early_stopping_rounds=3, early_stopping_metric=name)
    with pytest.raises(error, match=rf"^early_stopping_metric='{re.escape(name)}': .*{message}"):
        ranker.fit(X, y, qid=qid)
    assert not hasattr(ranker, "estimator_")


@pytest.mark.filterwarnings("ignore:Early stopping validates on:sklearn_rankmetrics.QueryGroupWarning")
@pytest.mark.parametrize("booster", ["lightgbm", "catboost"])
def test_grouped_ranker_stops_each_booster_on_the_adapters_values(split, booster):
    (X, y, qid), _ = split
    inner = {
        "lightgbm": lightgbm.LGBMRanker(n_estimators=60, num_leaves=7, verbose=-1, n_jobs=1),
        "catboost": catboost.CatBoostRanker(
            iterations=60, depth=3, verbose=0, thread_count=1, random_seed=0, allow_writing_files=False
        ),
    }[booster]
    ranker = GroupedRanker(
        inner, early_stopping_rounds=4, early_stopping_metric="err@5", validation_fraction=0.3, random_state=0
    ).fit(X, y, qid=qid)
    history = (
        ranker.evals_result_["valid_0"]["err@5"]
        if booster == "lightgbm"
        else ranker.evals_result_["validation"]["CatBoostMetric"]
    )
    assert ranker.best_iteration_ == int(np.argmax(history)) + 1  # the rounds kept, up to our metric's best


# What the documentation says of the boosters themselves.
def test_xgb_ranker_weights_per_query_values_by_query_size_which_is_why_eval_metric_is_refused(split):
    (X, y, qid), (X_val, y_val, qid_val) = split

    def ndcg10(y_true, y_score):  # one query at a time
        return exact("ndcg@10", y_true, y_score, np.zeros(len(y_true)))

    model = xgboost.XGBRanker(n_estimators=1, max_depth=3, n_jobs=1, eval_metric=ndcg10)
    model.fit(X, y, qid=qid, eval_set=[(X_val, y_val)], eval_qid=[qid_val], verbose=False)
    scorer = get_ranking_scorer("ndcg@10")
    per_query = scorer._score_func(y_val, model.predict(X_val), qid=qid_val, k=10, average=False)
    logged = model.evals_result()["validation_0"]["ndcg10"][-1]
    assert logged == float(f"{np.average(per_query, weights=sizes(qid_val)):f}")
    assert logged != float(f"{per_query.mean():f}")


def test_xgboost_train_minimises_a_custom_metric_named_mrr_unless_told_to_maximise(split):
    (X, y, qid), (X_val, y_val, qid_val) = split
    train, valid = xgboost.DMatrix(X, y, qid=qid), xgboost.DMatrix(X_val, y_val, qid=qid_val)
    params = {"objective": "rank:ndcg", "max_depth": 3, "nthread": 1, "disable_default_eval_metric": 1}
    for maximize, best in ((None, np.argmin), (True, np.argmax)):
        log = {}
        booster = xgboost.train(
            params,
            train,
            num_boost_round=30,
            evals=[(valid, "valid")],
            custom_metric=XGBoostMetric("mrr@10"),
            maximize=maximize,
            early_stopping_rounds=3,
            evals_result=log,
            verbose_eval=False,
        )
        assert booster.best_iteration == int(best(log["valid"]["mrr@10"]))


def test_scikit_learn_cannot_clone_a_catboost_ranker_holding_a_python_metric(split):
    from sklearn.base import clone

    _, (_, y_val, qid_val) = split
    ranker = catboost.CatBoostRanker(eval_metric=CatBoostMetric("ndcg@10", data=(y_val, qid_val)))
    with pytest.raises(RuntimeError, match="Cannot clone object"):
        clone(ranker)
