"""sklearn_rankmetrics.spark on a local session: the in-memory report whatever the partitioning, and Spark ML tuning."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_rankmetrics import ranking_report

pytest.importorskip("pyspark")
from sklearn_rankmetrics.spark import RankingEvaluator, ranking_report_from_lists
from sklearn_rankmetrics.spark import ranking_report as spark_report

METRICS = ["ndcg@10", "map", "mrr@10", "err@20", "recall@5(zero_division=1.0)", "ndcg_exp@5"]


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return function(*args, **kwargs)


def log(seed=0, n_queries=300):
    """Rows of queries in random order (not grouped), ties, -inf scores, weights, a duplicate row or two."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(rng.permutation(n_queries) * 3 + 7, rng.integers(1, 25, n_queries))
    rows = pd.DataFrame({"qid": qid, "label": rng.choice([0, 0, 1, 2, 3], qid.size).astype(float)})
    rows["score"] = rng.integers(0, 8, qid.size).astype(float)
    rows.loc[rng.random(qid.size) < 0.05, "score"] = -np.inf
    rows["w"] = (rows["qid"] % 5 + 1).astype(float)
    rows = pd.concat([rows, rows.iloc[:3]])  # duplicate rows are rows like any other
    return rows.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def in_memory(rows, **options):
    return quiet(ranking_report, rows["label"].to_numpy(), rows["score"].to_numpy(), qid=rows["qid"].to_numpy(),
                 **options)  # fmt: skip


def assert_close(found, expected):
    assert found.keys() == expected.keys()
    for name, value in expected.items():
        np.testing.assert_allclose(found[name], value, rtol=0, atol=1e-12)


def test_random_partitionings_give_the_in_memory_report(spark):
    rows = log(1)
    expected = in_memory(rows, metrics=METRICS, sample_weight=rows["w"].to_numpy())
    whole = spark.createDataFrame(rows).cache()
    for n_in, n_out, metrics in [(7, 3, METRICS), (3, 16, METRICS[::-1])]:  # 16 partitions, 300 queries: some empty
        df = whole.repartition(n_in)  # one query's rows spread over every input partition
        found = quiet(spark_report, df, metrics=metrics, weight_col="w", num_partitions=n_out)
        assert found == {name: expected[name] for name in metrics}  # to the last bit: whole grades up to 64
    whole.unpersist()


def test_string_ids_per_query_table_intervals_and_stable_ties(spark):
    rows = log(2, n_queries=80)
    rows["qid"] = "q" + rows["qid"].astype(str)
    df = spark.createDataFrame(rows).repartition(5)
    table = quiet(spark_report, df, metrics=["ndcg@5", "map"], average=False)
    expected = in_memory(rows, metrics=["ndcg@5", "map"], average=False)
    assert table["qid"].tolist() == expected["qid"].tolist()
    assert_close({k: v for k, v in table.items() if k != "qid"}, {k: v for k, v in expected.items() if k != "qid"})
    found = quiet(spark_report, df, metrics=["ndcg@5"], confidence_level=0.9, n_resamples=300, random_state=1)
    assert found == in_memory(rows, metrics=["ndcg@5"], confidence_level=0.9, n_resamples=300, random_state=1)
    ordered = spark.createDataFrame(rows).coalesce(1)  # one partition: the frame's order is the rows' order
    stable = quiet(spark_report, ordered, metrics=["ndcg@5", "mrr"], ties="stable", num_partitions=3)
    assert_close(stable, in_memory(rows, metrics=["ndcg@5", "mrr"], ties="stable"))


def test_nulls_missing_columns_and_bad_names_are_refused_clearly(spark):
    df = spark.createDataFrame([(1, 1.0, 0.5), (1, None, 0.2)], "qid long, label double, score double")
    with pytest.raises(ValueError, match=r"Column 'label' has 1 null values.*na.drop"):
        spark_report(df, metrics=["ndcg"])
    with pytest.raises(ValueError, match=r"df has no column 'relevance'"):
        spark_report(df, metrics=["ndcg"], label_col="relevance")
    with pytest.raises(ValueError, match="not a ranking metric name"):
        spark_report(df, metrics=["ndgc@10"])
    with pytest.raises(ValueError, match="df has no rows"):
        spark_report(df.where("qid > 1"), metrics=["ndcg"])


def lists():
    """Users' recommended ids (best first) and relevant ids with grades, and the same as rows."""
    rng = np.random.default_rng(3)
    users, rows = [], []
    for user in range(40):
        recommended = rng.permutation(30)[: rng.integers(0, 10)].tolist()
        relevant = rng.permutation(30)[: rng.integers(0 if user % 9 else 1, 6)].tolist()
        if user == 0:
            recommended, relevant = [], []
        grades = rng.integers(1, 4, len(relevant)).astype(float).tolist()
        users.append((user, recommended, relevant, grades))
        grade = dict(zip(relevant, grades, strict=True))
        rows += [(user, grade.get(item, 0.0), -1.0 - rank) for rank, item in enumerate(recommended)]
        rows += [(user, grade[item], -np.inf) for item in relevant if item not in recommended]
        if not recommended and not relevant:
            rows.append((user, 0.0, -np.inf))
    return users, pd.DataFrame(rows, columns=["qid", "label", "score"])


def test_lists_graded_and_binary_equal_their_rows_and_spark_own_evaluator(spark):
    from pyspark.ml.evaluation import RankingEvaluator as SparkRankingEvaluator

    users, rows = lists()
    schema = "user long, recommendations array<long>, relevant array<long>, grades array<double>"
    df = spark.createDataFrame(users, schema).repartition(3)
    metrics = ["ndcg@5", "map", "recall@5", "precision@5"]
    graded = quiet(ranking_report_from_lists, df, metrics=metrics, grades_col="grades", user_col="user")
    assert_close(graded, in_memory(rows, metrics=metrics))
    binary = quiet(ranking_report_from_lists, df, metrics=metrics)
    assert_close(binary, in_memory(rows.assign(label=(rows["label"] > 0).astype(float)), metrics=metrics))
    # Spark's own evaluator (binary relevance, arrays of doubles) on the users with a relevant id.
    judged = df.where("size(relevant) > 0").selectExpr(
        "cast(recommendations as array<double>) as prediction", "cast(relevant as array<double>) as label"
    )
    for ours, theirs, k in [
        ("ndcg@5", "ndcgAtK", 5),
        ("map", "meanAveragePrecision", 5),
        ("precision@5", "precisionAtK", 5),
    ]:
        spark_value = SparkRankingEvaluator(metricName=theirs, k=k).evaluate(judged)
        evaluator = RankingEvaluator(metricName=ours)  # lists: the prediction column holds arrays
        assert evaluator.evaluate(judged) == pytest.approx(spark_value, abs=1e-12)


def test_als_structs_and_a_refused_list(spark):
    df = spark.createDataFrame(
        [(1, [(5, 0.9), (3, 0.7)], [3, 4]), (2, [(4, 0.8)], [4])],
        "user int, recommendations array<struct<item:int, rating:float>>, relevant array<int>",
    )
    report = ranking_report_from_lists(df, metrics=["mrr", "recall@2"], user_col="user")
    assert report == {"mrr": pytest.approx(0.75), "recall@2": pytest.approx(0.75)}
    null = spark.createDataFrame([(1, [5], None)], "user int, recommendations array<int>, relevant array<int>")
    with pytest.raises(ValueError, match=r"'relevant' has 1 null arrays"):  # raised in an executor, said on the driver
        ranking_report_from_lists(null, metrics=["mrr"])


def test_evaluator_params_copy_and_persistence(tmp_path):
    evaluator = RankingEvaluator(metricName="map", qidCol="user", labelCol="rating")
    copy = evaluator.copy({evaluator.metricName: "ndcg@10"})
    assert (copy.getMetricName(), evaluator.getMetricName(), copy.getQidCol()) == ("ndcg@10", "map", "user")
    assert copy.uid == evaluator.uid and copy.isLargerBetter()
    assert evaluator.getGradesCol() is None and evaluator.setGradesCol("g").getGradesCol() == "g"
    assert evaluator.setParams(ties="stable").getTies() == "stable"


def test_evaluator_saves_and_loads(spark, tmp_path):
    evaluator = RankingEvaluator(metricName="ndcg@5", qidCol="user", labelCol="rating", zeroDivision=1.0)
    evaluator.save(str(tmp_path / "evaluator"))
    loaded = RankingEvaluator.load(str(tmp_path / "evaluator"))
    assert (loaded.getMetricName(), loaded.getQidCol(), loaded.getZeroDivision()) == ("ndcg@5", "user", 1.0)


def test_train_validation_split_tunes_als_by_graded_ndcg(spark):
    from pyspark.ml.recommendation import ALS
    from pyspark.ml.tuning import ParamGridBuilder, TrainValidationSplit

    rng = np.random.default_rng(4)
    ratings = pd.DataFrame({"user": rng.integers(0, 20, 300), "item": rng.integers(0, 30, 300)})
    ratings = ratings.drop_duplicates().assign(rating=lambda frame: (frame["user"] + frame["item"]) % 5 + 1.0)
    als = ALS(userCol="user", itemCol="item", ratingCol="rating", maxIter=1, coldStartStrategy="drop", seed=0)
    grid = ParamGridBuilder().addGrid(als.rank, [2, 4]).build()
    evaluator = RankingEvaluator(metricName="ndcg@10", qidCol="user", labelCol="rating", predictionCol="prediction")
    search = TrainValidationSplit(estimator=als, estimatorParamMaps=grid, evaluator=evaluator, trainRatio=0.75, seed=0)
    model = search.fit(spark.createDataFrame(ratings))
    assert len(model.validationMetrics) == 2 and all(0 < value <= 1 for value in model.validationMetrics)


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
