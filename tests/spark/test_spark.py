"""sklearn_rankmetrics.spark on a local session: the in-memory report through a real shuffle, and Spark ML tuning.

Spark jobs are few and small (each one costs a second or more): every call checks many metrics at once. The many
random partitionings, the lists' rows and the refused rows are checked without Spark in test_partitions.py and
test_lists.py.
"""

import numpy as np
import pandas as pd
import pytest
from spark_logs import log, quiet

from sklearn_rankmetrics import ranking_report

pytest.importorskip("pyspark")
from sklearn_rankmetrics.spark import RankingEvaluator, ranking_report_from_lists
from sklearn_rankmetrics.spark import ranking_report as spark_report

METRICS = ["ndcg@10", "map", "mrr@10", "err@20", "recall@5(zero_division=1.0)", "ndcg_exp@5"]


def in_memory(rows, **options):
    return quiet(ranking_report, rows["label"].to_numpy(), rows["score"].to_numpy(), qid=rows["qid"].to_numpy(),
                 **options)  # fmt: skip


def assert_close(found, expected):
    assert found.keys() == expected.keys()
    for name, value in expected.items():
        np.testing.assert_allclose(found[name], value, rtol=0, atol=1e-12)


def test_a_random_partitioning_gives_the_in_memory_report_with_intervals(spark):
    rows = log(1)
    intervals = {"confidence_level": 0.9, "n_resamples": 200, "random_state": 1}
    expected = in_memory(rows, metrics=METRICS, sample_weight=rows["w"].to_numpy(), **intervals)
    df = spark.createDataFrame(rows).repartition(3)  # one query's rows spread over every input partition
    found = quiet(spark_report, df, metrics=METRICS, weight_col="w", num_partitions=5, **intervals)
    assert found == expected  # to the last bit: whole grades up to 64; err@20's top grade found by an aggregation


def test_string_ids_per_query_table_and_stable_ties(spark):
    rows = log(2, n_queries=60)
    rows["qid"] = "q" + rows["qid"].astype(str)
    ordered = spark.createDataFrame(rows).coalesce(1)  # one partition: the frame's order is the rows' order
    table = quiet(spark_report, ordered, metrics=["ndcg@5", "mrr"], ties="stable", average=False, num_partitions=3)
    expected = in_memory(rows, metrics=["ndcg@5", "mrr"], ties="stable", average=False)
    assert table["qid"].tolist() == expected["qid"].tolist()
    assert_close({k: v for k, v in table.items() if k != "qid"}, {k: v for k, v in expected.items() if k != "qid"})


def test_bad_input_is_refused_on_the_driver_before_any_job(spark):
    df = spark.createDataFrame([(1, 1.0, 0.5)], "qid long, label double, score double")
    with pytest.raises(ValueError, match=r"df has no column 'relevance'"):
        spark_report(df, metrics=["ndcg"], label_col="relevance")
    with pytest.raises(ValueError, match="not a ranking metric name"):
        spark_report(df, metrics=["ndgc@10"])
    with pytest.raises(ValueError, match="confidence_level needs average=True"):
        spark_report(df, metrics=["ndcg"], average=False, confidence_level=0.9)
    for report in (spark_report, ranking_report_from_lists):
        with pytest.raises(TypeError, match=r"df must be a Spark DataFrame.*got pandas.*use sklearn_rankmetrics"):
            report(pd.DataFrame({"qid": [1], "label": [1.0], "score": [0.5]}), metrics=["ndcg"])


def lists(seed=3):
    """Users' recommended ids (best first) and relevant ids with grades, and the same as rows; user 0 has neither."""
    rng = np.random.default_rng(seed)
    users, rows = [], []
    for user in range(40):
        recommended = rng.permutation(30)[: rng.integers(0, 10)].tolist() if user else []
        relevant = rng.permutation(30)[: rng.integers(0 if user % 9 else 1, 6)].tolist() if user else []
        grades = rng.integers(1, 4, len(relevant)).astype(float).tolist()
        structs = [(item, -1.0 - rank) for rank, item in enumerate(recommended)]  # ALS's (item, rating)
        users.append((user, structs, list(zip(relevant, grades, strict=True)), recommended, relevant, grades))
        grade = dict(zip(relevant, grades, strict=True))
        rows += [(user, grade.get(item, 0.0), -1.0 - rank) for rank, item in enumerate(recommended)]
        rows += [(user, grade[item], -np.inf) for item in relevant if item not in recommended]
        if not recommended and not relevant:
            rows.append((user, 0.0, -np.inf))
    return users, pd.DataFrame(rows, columns=["qid", "label", "score"])


def test_lists_graded_and_binary_equal_their_rows_and_spark_own_evaluator(spark):
    from pyspark.ml.evaluation import RankingEvaluator as SparkRankingEvaluator

    users, rows = lists()
    schema = ("user long, als array<struct<item:long, rating:double>>, graded array<struct<item:long, grade:double>>, "
              "recommendations array<long>, relevant array<long>, grades array<double>")  # fmt: skip
    df = spark.createDataFrame(users, schema).repartition(3).cache()
    metrics = ["ndcg@5", "map", "recall@5", "precision@5", "err@5"]  # err: the top grade of the structs' grades
    graded = quiet(ranking_report_from_lists, df, metrics=metrics, recommendations_col="als", relevant_col="graded",
                   user_col="user")  # fmt: skip
    assert_close(graded, in_memory(rows, metrics=metrics))
    evaluator = RankingEvaluator(metricName="ndcg_exp@5", predictionCol="recommendations", labelCol="relevant",
                                 gradesCol="grades")  # fmt: skip
    expected = in_memory(rows, metrics=["ndcg_exp@5"])["ndcg_exp@5"]
    assert quiet(evaluator.evaluate, df) == pytest.approx(expected, abs=1e-12)
    # Spark's own evaluator (binary relevance, arrays of doubles) on the users with a relevant id.
    judged = df.where("size(relevant) > 0").selectExpr(
        "cast(recommendations as array<double>) as prediction", "cast(relevant as array<double>) as label"
    )
    ours = ranking_report_from_lists(judged, metrics=["ndcg@5", "map", "precision@5", "recall@5"],
                                     recommendations_col="prediction", relevant_col="label")  # fmt: skip
    theirs = {"ndcg@5": "ndcgAtK", "map": "meanAveragePrecision", "precision@5": "precisionAtK",
              "recall@5": "recallAtK"}  # fmt: skip
    for name, spark_name in theirs.items():
        spark_value = SparkRankingEvaluator(metricName=spark_name, k=5).evaluate(judged)
        assert ours[name] == pytest.approx(spark_value, abs=1e-12), name
    null = spark.createDataFrame([(1, [5], None)], "user int, recommendations array<int>, relevant array<int>")
    with pytest.raises(ValueError, match=r"'relevant' has 1 null arrays"):  # raised in an executor, said on the driver
        ranking_report_from_lists(null, metrics=["mrr"])
    df.unpersist()


def test_evaluator_params_copy_save_and_load(spark, tmp_path):
    evaluator = RankingEvaluator(metricName="map", qidCol="user", labelCol="rating", zeroDivision=1.0)
    copy = evaluator.copy({evaluator.metricName: "ndcg@10"})
    assert (copy.getMetricName(), evaluator.getMetricName(), copy.getQidCol()) == ("ndcg@10", "map", "user")
    assert copy.uid == evaluator.uid and copy.isLargerBetter()
    assert evaluator.getGradesCol() is None and copy.setGradesCol("g").getGradesCol() == "g"
    assert copy.setParams(ties="stable").getTies() == "stable" and evaluator.getTies() == "average"
    evaluator.save(str(tmp_path / "evaluator"))
    loaded = RankingEvaluator.load(str(tmp_path / "evaluator"))
    assert (loaded.getMetricName(), loaded.getQidCol(), loaded.getZeroDivision()) == ("map", "user", 1.0)


def test_cross_validator_tunes_als_by_graded_ndcg(spark):
    from pyspark.ml.recommendation import ALS
    from pyspark.ml.tuning import CrossValidator, ParamGridBuilder

    rng = np.random.default_rng(4)
    ratings = pd.DataFrame({"user": rng.integers(0, 12, 150), "item": rng.integers(0, 15, 150)}).drop_duplicates()
    ratings["rating"] = (ratings["user"] + ratings["item"]) % 5 + 1.0
    als = ALS(userCol="user", itemCol="item", ratingCol="rating", maxIter=1, coldStartStrategy="drop", seed=0,
              numUserBlocks=1, numItemBlocks=1)  # fmt: skip
    grid = ParamGridBuilder().addGrid(als.rank, [2, 3]).build()
    evaluator = RankingEvaluator(metricName="ndcg@10", qidCol="user", labelCol="rating", predictionCol="prediction")
    df = spark.createDataFrame(ratings).cache()
    search = CrossValidator(estimator=als, estimatorParamMaps=grid, evaluator=evaluator, numFolds=2, seed=0)
    model = search.fit(df)
    assert len(model.avgMetrics) == 2 and all(0 < value <= 1 for value in model.avgMetrics)
    predictions = model.bestModel.transform(df).cache()  # the evaluator's value is the in-memory report's
    collected = predictions.toPandas()
    expected = quiet(ranking_report, collected["rating"].to_numpy(), collected["prediction"].to_numpy(),
                     qid=collected["user"].to_numpy(), metrics=["ndcg@10"])  # fmt: skip
    assert evaluator.evaluate(predictions) == pytest.approx(expected["ndcg@10"], abs=1e-12)
    predictions.unpersist()
    df.unpersist()


def test_the_docstring_examples_give_what_they_print(spark):
    """The docstrings' examples skip where no session runs; here they do."""
    df = spark.createDataFrame(
        [(1, 3, 0.9), (1, 2, 0.3), (1, 0, 0.5), (2, 1, 0.1), (2, 0, 0.8), (2, 2, 0.4)], ["qid", "label", "score"]
    )
    report = spark_report(df, metrics=["ndcg@10", "mrr"])
    assert {name: round(value, 4) for name, value in report.items()} == {"ndcg@10": 0.8041, "mrr": 0.75}
    lists = spark.createDataFrame([([5, 3, 9], [3, 7], [2.0, 1.0])], ["recommendations", "relevant", "grades"])
    report = ranking_report_from_lists(lists, metrics=["ndcg@3", "recall@3"], grades_col="grades")
    assert {name: round(value, 4) for name, value in report.items()} == {"ndcg@3": 0.4796, "recall@3": 0.5}
