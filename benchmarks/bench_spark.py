"""ranking_report of one Parquet log on Spark local[2] and on Dask (2 worker processes), side by side.

    python benchmarks/bench_spark.py [--rows 20_000_000] [--docs 50] [--check]

The log (``--rows`` rows, queries of ``--docs`` documents on average, graded
labels, scores with ties, rows in random order) is written once as Parquet
(8 files) under the temporary folder; both engines read it and compute
NDCG@10, MAP and MRR@10 with the rows of each query brought together by a
shuffle: Spark with ``sklearn_rankmetrics.spark.ranking_report`` (Arrow
batches, ``mapInArrow``), Dask with ``sklearn_rankmetrics.dask.ranking_report``
on a LocalCluster of 2 single-threaded worker processes. It prints both
times (the first Spark call, which starts the executors' Python, is timed
apart), their ratio (target: Spark within 3x of Dask) and checks that the
two reports are equal; ``--check`` also compares them with the in-memory
report.
"""

import argparse
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

METRICS = ["ndcg@10", "map", "mrr@10"]


def write_log(folder, n_rows, n_docs, seed=0):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    n_queries = max(n_rows // n_docs, 1)
    qid = rng.integers(0, n_queries, n_rows)  # rows in random order, queries of n_docs rows on average
    label = rng.choice(np.array([0, 0, 0, 1, 1, 2, 3, 4], dtype=np.int32), n_rows)
    score = rng.integers(0, 1000, n_rows).astype(np.float64)
    for index, rows in enumerate(np.array_split(np.arange(n_rows), 8)):
        table = pa.table({"qid": qid[rows], "label": label[rows], "score": score[rows]})
        pq.write_table(table, folder / f"part-{index}.parquet")
    return qid, label, score


def spark_session():
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    root = str(Path(__file__).resolve().parents[1])
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
    session = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "8")
        .config("spark.driver.memory", "6g")
        .config("spark.log.level", "ERROR")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    return session


def timed(function):
    start = time.perf_counter()
    result = function()
    return result, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000_000)
    parser.add_argument("--docs", type=int, default=50)
    parser.add_argument("--check", action="store_true", help="compare with the in-memory report too")
    arguments = parser.parse_args()
    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        columns, seconds = timed(lambda: write_log(folder, arguments.rows, arguments.docs))
        print(f"{arguments.rows:,} rows, ~{arguments.docs} per query, written as Parquet in {seconds:.1f} s")

        import dask.dataframe as dd
        from dask.distributed import Client, LocalCluster

        from sklearn_rankmetrics.dask import ranking_report as dask_report
        from sklearn_rankmetrics.spark import ranking_report as spark_report

        spark = spark_session()
        small = spark.createDataFrame([(1, 1, 0.5)], ["qid", "label", "score"])
        _, warm = timed(lambda: spark_report(small, metrics=METRICS))  # starts the executors' Python
        spark_result, spark_seconds = timed(lambda: spark_report(spark.read.parquet(str(folder)), metrics=METRICS))
        spark.stop()
        print(f"Spark local[2]  {spark_seconds:8.1f} s   (first call on a new session, apart: {warm:.1f} s)")

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                          memory_limit="8GiB") as cluster, Client(cluster):  # fmt: skip
            dask_result, dask_seconds = timed(lambda: dask_report(dd.read_parquet(str(folder)), metrics=METRICS))
        print(f"Dask (2 procs)  {dask_seconds:8.1f} s")
        print(f"Spark / Dask    {spark_seconds / dask_seconds:8.2f}x   (target <= 3x)")
        assert spark_result == dask_result, (spark_result, dask_result)
        print("Spark's report == Dask's report (to the last bit)")
        if arguments.check:
            from sklearn_rankmetrics import ranking_report

            qid, label, score = columns
            assert spark_result == ranking_report(label, score, qid=qid, metrics=METRICS)
            print("== the in-memory report")


if __name__ == "__main__":
    main()
