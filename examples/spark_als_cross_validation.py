"""
Tuning Spark ALS by graded NDCG@10
==================================

Spark's own ``RankingEvaluator`` knows binary relevance only: a held-out rating of 5 counts as much
as a rating of 1. :class:`sklearn_rankmetrics.spark.RankingEvaluator` evaluates any of the
library's metrics, graded NDCG included, so Spark ML's ``CrossValidator`` can choose an ALS model
by how well it orders each user's held-out items by their ratings. The data are generated; Spark
runs in local mode, on small data with few iterations.
"""

# %%
# Ratings
# -------
# Users and items have latent tastes; a user rates the items closest to their taste higher (1 to 5).
import os
import sys
import warnings

import numpy as np
import pandas as pd

warnings.simplefilter("ignore", FutureWarning)  # pyspark's notice about the installed pandas
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

rng = np.random.default_rng(0)
n_users, n_items, n_factors = 100, 80, 4
users = rng.normal(size=(n_users, n_factors))
items = rng.normal(size=(n_items, n_factors))
pairs = pd.DataFrame({"user": np.repeat(np.arange(n_users), 20), "item": rng.integers(0, n_items, n_users * 20)})
pairs = pairs.drop_duplicates()
affinity = np.einsum("ij,ij->i", users[pairs["user"]], items[pairs["item"]]) + rng.normal(0, 0.5, len(pairs))
pairs["rating"] = np.clip(np.round(3 + affinity), 1, 5)
print(f"{len(pairs)} ratings of {n_items} items by {n_users} users")

# %%
# Cross-validation by graded NDCG@10
# ----------------------------------
# ``ALSModel.transform`` predicts a rating for each held-out (user, item) pair: rows of (user,
# rating, prediction), the rows layout of the evaluator (a user is a query, the rating its graded
# label, the prediction its score). ``coldStartStrategy="drop"`` leaves out pairs of a user or item
# unseen in training.
from pyspark.ml.recommendation import ALS  # noqa: E402
from pyspark.ml.tuning import CrossValidator, ParamGridBuilder  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402

from sklearn_rankmetrics.spark import RankingEvaluator, ranking_report, ranking_report_from_lists  # noqa: E402

# A short local session: the JVM's client compiler alone and the serial collector start it and run its small jobs
# about twice as fast; few shuffle partitions for little data.
spark = (
    SparkSession.builder.master("local[2]")
    .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
    .config("spark.ui.enabled", "false")
    .config("spark.sql.shuffle.partitions", "2")
    .config("spark.default.parallelism", "2")
    .config("spark.ui.showConsoleProgress", "false")
    .getOrCreate()
)
spark.sparkContext.setLogLevel("ERROR")
ratings = spark.createDataFrame(pairs)
train, test = ratings.randomSplit([0.8, 0.2], seed=0)

# Small data: two blocks of users and of items (one per core) rather than ALS's ten, and few iterations.
als = ALS(userCol="user", itemCol="item", ratingCol="rating", maxIter=3, regParam=0.5, coldStartStrategy="drop",
          seed=0, numUserBlocks=2, numItemBlocks=2)  # fmt: skip
grid = ParamGridBuilder().addGrid(als.rank, [2, 8]).build()
evaluator = RankingEvaluator(metricName="ndcg@10", qidCol="user", labelCol="rating", predictionCol="prediction")
search = CrossValidator(estimator=als, estimatorParamMaps=grid, evaluator=evaluator, numFolds=2, parallelism=2, seed=0)
model = search.fit(train)
for params, value in zip(grid, model.avgMetrics, strict=True):
    print(f"rank {params[als.rank]}: graded NDCG@10 {value:.4f}")
best = model.bestModel
print(f"chosen: rank {best.rank}")

# %%
# The chosen model on the test ratings
# ------------------------------------
# The same rows, every metric at once (a binary metric counts ratings of 4 and 5 as relevant: every
# held-out item has a rating, so with the default threshold of 1 all would be), and the same through
# lists: ALS's top 10 for each user (``recommendForAllUsers``, an array of (item, rating) structs)
# beside the user's test items and their ratings as grades, the layout of Spark's own evaluator, here
# graded.
predictions = best.transform(test)
report = ranking_report(predictions, metrics=["ndcg@10", "ndcg_exp@10", "map(relevance_threshold=4)"], qid_col="user",
                        label_col="rating", score_col="prediction")  # fmt: skip
print({name: round(value, 4) for name, value in report.items()})

from pyspark.sql import functions as F  # noqa: E402

held_out = test.groupBy("user").agg(F.collect_list("item").alias("relevant"), F.collect_list("rating").alias("grades"))
lists = best.recommendForAllUsers(10).join(held_out, "user")
top10 = ranking_report_from_lists(lists, metrics=["ndcg@10", "recall@10"], grades_col="grades", user_col="user")
print("top 10 of the whole catalogue:", {name: round(value, 4) for name, value in top10.items()})
spark.stop()
