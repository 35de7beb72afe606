"""FusionRanker's estimator contract, grouped cross-validation recomputed by hand, and optimize_fusion."""

import numpy as np
import pytest
import sklearn
from sklearn.model_selection import GridSearchCV, GroupKFold, RandomizedSearchCV
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_rankmetrics import get_ranking_scorer, ndcg_score
from sklearn_rankmetrics.fusion import FusionRanker, FusionSearch, fuse, fuse_scores, optimize_fusion

NEEDS_QID = "score() needs the query ids: without them a fold would silently be scored as one query"


@parametrize_with_checks(
    [FusionRanker(), FusionRanker("wsum", normalization="min-max")],
    expected_failed_checks=lambda estimator: {
        "check_fit_score_takes_y": NEEDS_QID,
        "check_pipeline_consistency": NEEDS_QID,
        "check_array_api_input": NEEDS_QID,
        "check_methods_subset_invariance": "fusion ranks and normalises within each query: a row's fused score "
        "depends on the other rows of its query (without query ids, every row is in one query)",
    },
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def hybrid_table(seed=0, n_queries=24, n_docs=12):
    """A lexical and a dense score per document, both noisy views of the label; some documents missing from one."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), n_docs)
    y = rng.integers(0, 3, len(qid))
    lexical = y + rng.normal(scale=1.0, size=len(qid))
    dense = y + rng.normal(scale=1.5, size=len(qid))
    lexical[rng.random(len(qid)) < 0.2] = np.nan
    dense[rng.random(len(qid)) < 0.2] = np.nan
    return np.column_stack((lexical, dense)), y, qid


def test_predict_is_fuse_scores():
    X, y, qid = hybrid_table()
    ranker = FusionRanker("wsum", normalization="zmuv", weights=[0.3, 0.7]).fit(X, y, qid=qid)
    expected = fuse_scores(X, qid, method="wsum", normalization="zmuv", weights=[0.3, 0.7])
    np.testing.assert_array_equal(ranker.predict(X, qid=qid), expected)
    np.testing.assert_array_equal(
        FusionRanker("wsum", normalization="zmuv", weights=[0.3, 0.7], qid_column=0)
        .fit(np.column_stack((qid, X)), y)
        .predict(np.column_stack((qid, X))),
        expected,
    )
    assert ranker.score(X, y, qid=qid) == pytest.approx(ndcg_score(y, expected, qid=qid, k=10))


def test_supervised_methods_learn_from_y_as_fuse_learns_from_qrels():
    X, y, qid = hybrid_table(1)
    ranker = FusionRanker("probfuse", n_segments=3).fit(X, y, qid=qid)
    runs = [
        {
            str(q): {f"d{row}": X[row, col] for row in np.flatnonzero(qid == q) if not np.isnan(X[row, col])}
            for q in np.unique(qid)
        }
        for col in range(2)
    ]
    qrels = {str(q): {f"d{row}": int(y[row]) for row in np.flatnonzero(qid == q)} for q in np.unique(qid)}
    fused = fuse(runs, method="probfuse", n_segments=3, qrels=qrels)
    expected = dict(zip(zip(fused.query_id, fused.doc_id, strict=True), fused.score, strict=True))
    predicted = ranker.predict(X, qid=qid)
    for row in range(len(y)):
        if not np.isnan(X[row]).all():
            assert predicted[row] == pytest.approx(expected[(str(qid[row]), f"d{row}")], rel=1e-12)
    with pytest.raises(ValueError, match="learns from relevance labels: pass y"):
        FusionRanker("mapfuse").fit(X, qid=qid)


def test_grid_search_with_group_k_fold_is_the_fold_by_fold_computation():
    X, y, qid = hybrid_table(2)
    grid = (
        {"method": ["rrf"], "k": [1, 60]},
        {"method": ["wsum"], "normalization": ["min-max"], "weights": [(0.2, 0.8), (0.8, 0.2)]},
    )
    cv = GroupKFold(n_splits=3)
    scorer = get_ranking_scorer("ndcg@5")
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(FusionRanker(), list(grid), scoring=scorer, cv=cv).fit(X, y, groups=qid)
    for index, params in enumerate(search.cv_results_["params"]):
        by_hand = []
        for train, test in cv.split(X, y, groups=qid):
            ranker = FusionRanker(**params).fit(X[train], y[train], qid=qid[train])
            by_hand.append(ndcg_score(y[test], ranker.predict(X[test], qid=qid[test]), qid=qid[test], k=5))
        assert search.cv_results_["mean_test_score"][index] == pytest.approx(np.mean(by_hand), rel=1e-12)
    # The same search with the query ids as a column of X, routing off.
    with_column = np.column_stack((qid, X))
    column_search = GridSearchCV(
        FusionRanker(qid_column=0), list(grid), scoring=get_ranking_scorer("ndcg@5(qid_column=0)"), cv=cv
    ).fit(with_column, y, groups=qid)
    np.testing.assert_allclose(column_search.cv_results_["mean_test_score"], search.cv_results_["mean_test_score"])
    # The column named once, in FusionRanker: the scorer reads it from the ranker it scores.
    named_once = GridSearchCV(FusionRanker(qid_column=0), list(grid), scoring=scorer, cv=cv).fit(
        with_column, y, groups=qid
    )
    np.testing.assert_allclose(named_once.cv_results_["mean_test_score"], search.cv_results_["mean_test_score"])


def test_randomized_search_tunes_supervised_methods_on_training_folds():
    X, y, qid = hybrid_table(3)
    search = RandomizedSearchCV(
        FusionRanker("slidefuse", qid_column=0),
        {"w": [1, 2, 4]},
        n_iter=2,
        random_state=0,
        scoring=get_ranking_scorer("map(qid_column=0)"),
        cv=GroupKFold(n_splits=3),
    ).fit(np.column_stack((qid, X)), y, groups=qid)
    assert 0 < search.best_score_ <= 1


def test_without_query_ids_the_rows_are_one_query():
    X = np.array([[3.0, 1.0], [2.0, np.nan], [1.0, 2.0]])
    ranker = FusionRanker().fit(X)
    np.testing.assert_allclose(ranker.predict(X), fuse_scores(X, [0, 0, 0]))
    with pytest.raises(ValueError, match=r"FusionRanker\.score needs the query id of each row"):
        ranker.score(X, [1, 0, 0])


def test_bad_parameters_are_named_at_fit():
    X, y, qid = hybrid_table()
    with pytest.raises(ValueError, match="Did you mean 'rrf'"):
        FusionRanker("rff").fit(X, y, qid=qid)
    with pytest.raises(ValueError, match=r"one number per run \(2\)"):
        FusionRanker("wsum", weights=[1, 2, 3]).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="a list of dicts, one per method"):
        FusionRanker("sum", k=3).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="Input X contains infinity"):
        FusionRanker().fit(np.array([[np.inf, 1.0]]))


def runs_and_qrels(seed=4, n_queries=20):
    rng = np.random.default_rng(seed)
    qrels = {f"q{q}": {f"d{d}": int(d < 3) for d in range(10)} for q in range(n_queries)}
    lexical = {q: {f"d{d}": float(-d + 3 * rng.random()) for d in range(10)} for q in qrels}
    dense = {q: {f"d{d}": float(-0.3 * d + rng.random()) for d in range(10) if rng.random() < 0.8} for q in qrels}
    return [lexical, dense], qrels


def test_optimize_fusion_tunes_by_grouped_cross_validation_and_says_so():
    runs, qrels = runs_and_qrels()
    search = optimize_fusion(runs, qrels, method="rrf", metric="ndcg@10", cv=4)
    assert isinstance(search, FusionSearch)
    assert search.validation.startswith("GroupKFold(n_splits=4) over the 20 judged queries")
    assert search.best_params["k"] in range(10, 101, 10)
    assert search.search.cv.__len__() == 4
    assert "held_out_score" in repr(search)
    assert search.held_out_score <= search.best_score + 1e-12
    folds = np.array([search.cv_results[f"split{i}_test_score"] for i in range(4)])
    by_hand = np.mean([folds[i, np.argmax(np.delete(folds, i, axis=0).mean(axis=0))] for i in range(4)])
    assert search.held_out_score == pytest.approx(by_hand)
    fused = search.fuse(runs)
    assert fused.name == "rrf"
    weighted = optimize_fusion(runs, qrels, method="wsum", param_grid={"weights": [(0.5, 0.5), (1.0, 0.0)]}, cv=4)
    assert weighted.best_params == {"weights": (1.0, 0.0)} or weighted.best_params == {"weights": (0.5, 0.5)}
    assert len(weighted.cv_results["params"]) == 2


def test_optimize_fusion_without_held_out_queries_warns():
    runs, qrels = runs_and_qrels()
    with pytest.warns(UserWarning, match="the best score is optimistic"):
        search = optimize_fusion(runs, qrels, method="sum", cv=None)
    assert search.validation.startswith("no held-out queries")


def test_optimize_fusion_refuses_bad_input():
    runs, qrels = runs_and_qrels()
    with pytest.raises(ValueError, match="no query of the runs is judged"):
        optimize_fusion(runs, {"other": {"d1": 1}})
    with pytest.raises(ValueError, match="cv=30 folds need at least 30 judged queries"):
        optimize_fusion(runs, qrels, cv=30)
    with pytest.raises(ValueError, match="Did you mean 'wsum'"):
        optimize_fusion(runs, qrels, method="wsun")


def test_labels_that_are_not_finite_numbers_are_refused_by_supervised_fits():
    X, y, qid = hybrid_table()
    labels = y.astype(float)
    labels[3] = np.nan  # would silently count as not relevant
    with pytest.raises(ValueError, match="y holds nan at row 3"):
        FusionRanker("posfuse").fit(X, labels, qid=qid)
    with pytest.raises(TypeError, match="y must hold relevance labels, numbers"):
        FusionRanker("mapfuse").fit(X, np.array(["a"] * len(y)), qid=qid)


def test_optimize_fusion_reports_a_searched_normalization_and_method_in_best_params():
    runs, qrels = runs_and_qrels()
    search = optimize_fusion(runs, qrels, method="sum", param_grid={"normalization": ["min-max", "zmuv"]}, cv=4)
    assert search.best_params["normalization"] in ("min-max", "zmuv")
    assert search.best_params["normalization"] == search.normalization
    grid = [{"method": ["sum"]}, {"method": ["rrf"], "k": [10, 60]}]
    methods = optimize_fusion(runs, qrels, method="sum", param_grid=grid, cv=4)
    assert methods.best_params["method"] == methods.method
    assert optimize_fusion(runs, qrels, method="sum", cv=4).best_params == {}  # nothing searched: only validated
