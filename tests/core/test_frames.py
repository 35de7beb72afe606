"""Polars and pyarrow inputs through every entry point that takes pandas: the same values, read in place."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import GroupKFold, cross_val_score

import sklearn_rankmetrics as srm
from sklearn_rankmetrics._core._frames import column_at, column_labels, frame_library, frame_rows, without_column
from sklearn_rankmetrics.trec import evaluate_run

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")

RNG = np.random.default_rng(0)
QID = np.repeat(np.arange(12), 6)
Y = RNG.integers(0, 3, QID.size).astype(float)
SCORE = RNG.normal(size=QID.size).round(1)
TEXT_QID = np.array([f"q{value}" for value in QID], dtype=object)
FRAME = pd.DataFrame({"qid": QID, "x": SCORE, "z": RNG.normal(size=QID.size)})

SERIES = {
    "polars": pl.Series,
    "pyarrow": pa.array,
    "pyarrow chunked": lambda values: pa.chunked_array([values[:30], values[30:]]),
}
FRAMES = {
    "polars": pl.from_pandas,
    "pyarrow": lambda frame: pa.Table.from_pandas(frame, preserve_index=False),
    "pyarrow batch": lambda frame: pa.RecordBatch.from_pandas(frame, preserve_index=False),
}


@pytest.mark.parametrize("library", SERIES)
def test_metrics_report_accumulator_and_comparison_take_series(library):
    convert = SERIES[library]
    y_true, y_score, qid = convert(Y), convert(SCORE), convert(list(TEXT_QID))
    assert srm.ndcg_score(y_true, y_score, qid=qid, k=5) == srm.ndcg_score(Y, SCORE, qid=TEXT_QID, k=5)
    expected = srm.ranking_report(Y, SCORE, qid=TEXT_QID, metrics=["map", "mrr"], average=False)
    found = srm.ranking_report(y_true, y_score, qid=qid, metrics=["map", "mrr"], average=False)
    assert found["qid"].tolist() == expected["qid"].tolist() and np.array_equal(found["map"], expected["map"])
    accumulated = srm.RankingAccumulator(["map"]).update(y_true, y_score, qid).compute()
    assert accumulated == srm.ranking_report(Y, SCORE, qid=TEXT_QID, metrics=["map"])
    comparison = srm.compare_rankings(y_true, {"a": y_score, "b": convert(-SCORE)}, qid=qid, metrics=["map"])
    reference = srm.compare_rankings(Y, {"a": SCORE, "b": -SCORE}, qid=TEXT_QID, metrics=["map"])
    assert str(comparison) == str(reference)


@pytest.mark.parametrize("library", FRAMES)
def test_grouped_ranker_and_scorer_read_the_qid_column_of_any_frame(library):
    X = FRAMES[library](FRAME)
    ranker = srm.GroupedRanker(LinearRegression(), qid_column="qid").fit(X, Y)
    reference = srm.GroupedRanker(LinearRegression(), qid_column="qid").fit(FRAME, Y)
    # scikit-learn's least squares of another memory layout: equal to rounding.
    np.testing.assert_allclose(ranker.predict(X), reference.predict(FRAME), rtol=1e-12)
    scorer = srm.make_ranking_scorer(srm.ndcg_score, qid_column="qid", k=5)
    assert scorer(ranker, X, Y) == pytest.approx(scorer(reference, FRAME, Y), rel=1e-12)
    folds = list(GroupKFold(3).split(FRAME, Y, groups=QID))
    if library != "pyarrow batch":  # scikit-learn slices rows of frames it knows (a RecordBatch it does not)
        scores = cross_val_score(
            srm.GroupedRanker(LinearRegression(), qid_column="qid"), X, Y, cv=folds, scoring=scorer
        )
        expected = cross_val_score(
            srm.GroupedRanker(LinearRegression(), qid_column=0), FRAME, Y, cv=folds, scoring=scorer
        )
        np.testing.assert_allclose(scores, expected, rtol=1e-12)
    with pytest.raises(
        ValueError, match=r"qid_column='query' is not a column of X; X has the columns \['qid', 'x', 'z'\]"
    ):
        srm.GroupedRanker(LinearRegression(), qid_column="query").fit(X, Y)


@pytest.mark.parametrize("library", ["polars", "pyarrow"])
def test_permutation_importance_of_a_frame(library):
    X = FRAMES[library](FRAME)
    model = srm.GroupedRanker(LinearRegression(), qid_column="qid").fit(FRAME, Y)
    scoring = srm.get_ranking_scorer("ndcg@5")
    found = srm.permutation_importance(model, X, Y, qid=QID, scoring=scoring, n_repeats=3, random_state=0)
    expected = srm.permutation_importance(model, FRAME, Y, qid=QID, scoring=scoring, n_repeats=3, random_state=0)
    np.testing.assert_array_equal(found.importances, expected.importances)


QRELS = pd.DataFrame({"query_id": ["1", "1", "2", "2"], "doc_id": ["a", "b", "c", "d"], "relevance": [1, 0, 2, 1]})
RUN = pd.DataFrame({"query_id": ["1", "1", "2", "2"], "doc_id": ["a", "b", "d", "c"], "score": [1.0, 0.5, 0.9, 0.2]})


@pytest.mark.parametrize("library", FRAMES)
def test_trec_qrels_and_run_as_any_frame(library):
    convert = FRAMES[library]
    expected = evaluate_run(QRELS, RUN, ["map", "ndcg_cut_10"])
    assert evaluate_run(convert(QRELS), convert(RUN), ["map", "ndcg_cut_10"]) == expected
    with pytest.raises(ValueError, match="missing: relevance"):
        evaluate_run(convert(QRELS.rename(columns={"relevance": "rel"})), convert(RUN), ["map"])


@pytest.mark.parametrize("library", ["polars", "pyarrow"])
def test_stacked_runs_of_a_frame_are_its_rows(library):
    runs = np.vstack([SCORE, SCORE[::-1], -SCORE])
    frame = pl.DataFrame(runs) if library == "polars" else pa.table({f"row{j}": runs[:, j] for j in range(QID.size)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = srm.compare_rankings(Y, {"a": frame, "b": SCORE}, qid=QID, metrics=["map"], random_state=0)
        expected = srm.compare_rankings(Y, {"a": runs, "b": SCORE}, qid=QID, metrics=["map"], random_state=0)
    assert str(found) == str(expected)


def test_the_adapter_reads_every_library_alike():
    for convert in FRAMES.values():
        frame = convert(FRAME)
        assert column_labels(frame) == ["qid", "x", "z"]
        np.testing.assert_array_equal(column_at(frame, 1), FRAME["x"].to_numpy())
        assert column_labels(without_column(frame, 0)) == ["x", "z"]
    assert frame_library(FRAME) == "pandas" and frame_library(FRAME.to_numpy()) is None
    assert column_labels(FRAME.to_numpy()) is None and frame_rows(FRAME) is None
    np.testing.assert_array_equal(frame_rows(pl.from_pandas(FRAME)), FRAME.to_numpy())


def test_a_polars_lazy_frame_is_refused_with_the_fix():
    lazy = pl.from_pandas(FRAME).lazy()
    with pytest.raises(TypeError, match=r"Polars LazyFrame: a query plan, not data\. Call \.collect\(\)"):
        srm.GroupedRanker(LinearRegression(), qid_column="qid").fit(lazy, Y)
    with pytest.raises(TypeError, match=r"Polars LazyFrame.*\.collect\(\)"):
        evaluate_run(pl.from_pandas(QRELS).lazy(), RUN, ["map"])
