"""Evaluation on Dask: a LocalCluster with worker processes gives the in-memory report's values."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_rankmetrics import ranking_report

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("dask.distributed")

from sklearn_rankmetrics.dask import ranking_report as dask_report  # noqa: E402

METRICS = ["ndcg@10", "map", "mrr@10", "err@20", "recall@5(zero_division=1.0)", "precision@3(zero_division=nan)"]


@pytest.fixture(scope="module")
def client():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the cluster's own start-up chatter
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with distributed.Client(cluster) as dask_client:
        yield dask_client
    cluster.close()


def log(seed=0, n_queries=400):
    """Rows of queries scattered over the whole log (not one partition per query), ties, -inf, weights."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 30, n_queries)
    qid = np.repeat(rng.permutation(n_queries) * 3 + 7, sizes)
    rows = pd.DataFrame({"qid": qid, "label": rng.choice([0, 0, 1, 2, 3], qid.size).astype(float)})
    rows["score"] = rng.integers(0, 8, qid.size).astype(float)
    rows.loc[rng.random(qid.size) < 0.05, "score"] = -np.inf
    rows["w"] = (rows["qid"] % 5 + 1).astype(float)
    return rows.sample(frac=1.0, random_state=seed).reset_index(drop=True)


@pytest.mark.parametrize("zero_division", [0.0, np.nan])
@pytest.mark.parametrize("weight", [None, "w"])
def test_dask_means_equal_the_in_memory_report(client, zero_division, weight):
    rows = log()
    frame = dd.from_pandas(rows, npartitions=7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        ours = dask_report(frame, metrics=METRICS, weight=weight, zero_division=zero_division)
        expected = ranking_report(
            rows["label"],
            rows["score"],
            qid=rows["qid"],
            metrics=METRICS,
            zero_division=zero_division,
            sample_weight=None if weight is None else rows[weight],
        )
    assert ours.keys() == expected.keys()
    for name in METRICS:
        assert ours[name] == pytest.approx(expected[name], rel=1e-12), name


def test_dask_per_query_values_equal_the_in_memory_table(client):
    rows = log(1)
    per_query = dask_report(dd.from_pandas(rows, npartitions=5), metrics=METRICS, average=False).compute()
    per_query = per_query.sort_values("qid").reset_index(drop=True)
    expected = ranking_report(
        rows["label"], rows["score"], qid=rows["qid"], metrics=METRICS, average=False, zero_division=np.nan
    )
    np.testing.assert_array_equal(per_query["qid"], expected["qid"])
    for name in METRICS:
        np.testing.assert_allclose(per_query[name], expected[name], rtol=1e-15, err_msg=name)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
@pytest.mark.parametrize(
    ("scheduler", "shuffle"), [("sync", "disk"), ("threads", "disk"), ("sync", "tasks"), ("distributed", "p2p")]
)
def test_stable_ties_follow_the_frames_row_order_whatever_the_partitions(client, scheduler, shuffle):
    # The shuffle moves rows between partitions: stable ties once depended on where rows landed (mrr 0.5 in one
    # partition, 1.0 in two, with the local schedulers' default disk shuffle).
    rows = pd.DataFrame({"qid": [1, 2, 1, 2], "label": [0, 0, 1, 1], "score": [1.0] * 4})
    settings = {"dataframe.shuffle.method": shuffle, **({} if scheduler == "distributed" else {"scheduler": scheduler})}
    big = log(4)
    expected = ranking_report(
        big["label"], big["score"], qid=big["qid"], metrics=METRICS, ties="stable", average=False, zero_division=np.nan
    )
    with dask.config.set(settings):
        for npartitions in (1, 2, 4):
            frame = dd.from_pandas(rows, npartitions=npartitions)
            assert dask_report(frame, metrics=["mrr"], ties="stable")["mrr"] == 0.5  # label 0 first in each query
        per_query = dask_report(dd.from_pandas(big, npartitions=7), metrics=METRICS, ties="stable", average=False)
        per_query = per_query.compute().sort_values("qid").reset_index(drop=True)
    for name in METRICS:
        np.testing.assert_allclose(per_query[name], expected[name], rtol=1e-15, err_msg=name)


def test_dask_report_warns_about_undefined_queries_and_checks_columns(client):
    rows = log(2)
    with pytest.warns(UndefinedMetricWarning, match="scored zero_division in the means"):
        dask_report(dd.from_pandas(rows, npartitions=3), metrics=["map"])
    with pytest.raises(ValueError, match="frame has no column 'relevance'"):
        dask_report(dd.from_pandas(rows, npartitions=3), label="relevance")
    with pytest.raises(ValueError, match="is not a ranking metric name"):
        dask_report(dd.from_pandas(rows, npartitions=3), metrics=["ndgc@10"])


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
def test_object_query_columns_keep_equal_ids_of_different_types_in_one_query(client):
    # pandas hashes object values through str(): the shuffle sent 5 and 5.0, one query, to different partitions.
    rows = log(3, n_queries=60)
    rows["qid"] = pd.Series([float(q) if i % 2 else q for i, q in enumerate(rows["qid"])], dtype=object)
    expected = ranking_report(rows["label"], rows["score"], qid=rows["qid"].to_numpy(), metrics=METRICS)
    with dask.config.set({"dataframe.convert-string": False}):  # by default Dask makes them "5" and "5.0"
        as_objects = dd.from_pandas(rows, npartitions=4)
    # ... which the docs say to avoid by giving the column one type first.
    as_integers = dd.from_pandas(rows.assign(qid=rows["qid"].astype(int)), npartitions=4)
    for frame in (as_objects, as_integers):
        ours = dask_report(frame, metrics=METRICS)
        for name in METRICS:
            assert ours[name] == pytest.approx(expected[name], rel=1e-12), name
    assert len(dask_report(as_objects, metrics=METRICS, average=False).compute()) == 60


def test_grid_search_runs_on_the_dask_joblib_backend(client):
    import joblib
    import sklearn
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GridSearchCV, GroupKFold

    from sklearn_rankmetrics import GroupedRanker, get_ranking_scorer, make_ranking

    X, y, qid = make_ranking(n_queries=60, n_docs=(5, 20), random_state=0)
    scoring = {"ndcg": get_ranking_scorer("ndcg@10"), "map": get_ranking_scorer("map")}

    def search():
        return GridSearchCV(
            GroupedRanker(Ridge()),
            {"estimator__alpha": [0.1, 10.0]},
            scoring=scoring,
            refit="ndcg",
            cv=GroupKFold(n_splits=3),
            n_jobs=-1,
        )

    with sklearn.config_context(enable_metadata_routing=True):
        local = search().fit(X, y, groups=qid)
        with joblib.parallel_backend("dask"):
            on_dask = search().fit(X, y, groups=qid)
    for key in ("mean_test_ndcg", "mean_test_map", "split0_test_ndcg"):
        np.testing.assert_allclose(on_dask.cv_results_[key], local.cv_results_[key], rtol=1e-12)
    assert on_dask.best_params_ == local.best_params_


def test_dask_merges_accumulators_to_the_last_bit_with_intervals_and_the_top_grade(client):
    rows = log(2)
    metrics = ["ndcg@10", "err@20", "nerr@5", "map"]  # ERR and nERR take the log's largest label, as in memory
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        ours = dask_report(dd.from_pandas(rows, npartitions=6), metrics=metrics, zero_division=np.nan,
                           confidence_level=0.9, n_resamples=200, random_state=0)  # fmt: skip
        expected = ranking_report(rows["label"], rows["score"], qid=rows["qid"], metrics=metrics, zero_division=np.nan,
                                  confidence_level=0.9, n_resamples=200, random_state=0)  # fmt: skip
    assert ours == expected
