"""String query ids at the speed of integers: ranking_report of four metrics per type of query id (issue #25).

    python benchmarks/bench_query_ids.py              # 3M rows, 30k queries, rows grouped by query
    python benchmarks/bench_query_ids.py --shuffled   # the same rows in random order
    python benchmarks/bench_query_ids.py --quick      # 300k rows, 3k queries

Every DataFrame and TREC user has string ids. Each type of id (integer
codes, numpy ``<U`` strings, an object array of str, and with pandas the
object, string, Arrow-backed string and categorical columns) gets the same
report, whose values must be identical; the time of each is printed beside
its ratio to integer codes, the target being at most 2x. ``pd.factorize``
alone is shown for scale.
"""

import argparse
import time

import numpy as np

import sklearn_rankmetrics as rm

METRICS = ["ndcg@10", "map", "mrr", "recall@10"]


def make_rows(n_queries, shuffled, seed=0):
    """Labels, scores and each row's query number: 50 to 150 rows per query, grouped by query or shuffled."""
    rng = np.random.default_rng(seed)
    query = np.repeat(rng.permutation(n_queries), rng.integers(50, 151, n_queries))
    if shuffled:
        query = rng.permutation(query)
    return rng.integers(0, 3, len(query)).astype(float), rng.random(len(query)), query


def query_id_types(query):
    """Each type of query id of the same queries, by name (the pandas ones when pandas is installed)."""
    names = np.array([f"query-{number:06d}" for number in range(query.max() + 1)], dtype=object)[query]
    types = {"integer codes": query, "numpy <U strings": names.astype(str), "object array of str": names}
    try:
        import pandas as pd
    except ImportError:
        return types
    types["pandas object column"] = pd.Series(names, dtype=object)  # pandas 3 would infer its str dtype
    types["pandas string column"] = pd.Series(names, dtype="string[python]")
    try:
        types["pandas Arrow string column"] = pd.Series(names, dtype="string[pyarrow]")
    except ImportError:  # pyarrow is not installed
        pass
    types["pandas categorical column"] = pd.Series(names, dtype="category")
    return types


def timed(function):
    """The time of ``function()``, and its result."""
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shuffled", action="store_true", help="rows in random order, not grouped by query")
    parser.add_argument("--quick", action="store_true", help="300k rows instead of 3M")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved runs; the median is shown")
    arguments = parser.parse_args()
    y_true, y_score, query = make_rows(3_000 if arguments.quick else 30_000, arguments.shuffled)
    types = query_id_types(query)
    order = "shuffled" if arguments.shuffled else "grouped by query"
    print(f"ranking_report of {', '.join(METRICS)}: {len(query):,} rows, {query.max() + 1:,} queries, rows {order}")
    print(f"medians of {arguments.repeats} interleaved runs; the ratio is to integer codes (target: at most 2x)\n")
    times = {(name, average): [] for name in types for average in (True, False)}
    results = {}
    for _ in range(arguments.repeats):
        for (name, average), runs in times.items():
            elapsed, results[name, average] = timed(
                lambda qid=types[name], average=average: rm.ranking_report(
                    y_true, y_score, qid=qid, metrics=METRICS, average=average
                )
            )
            runs.append(elapsed)
    print(f"{'query ids':30s} {'mean':>8s} {'ratio':>6s} {'per query':>10s} {'ratio':>6s}")
    reference = "integer codes"
    for name in types:
        # The same values whatever the type of the ids: the queries come in the same order.
        assert results[name, True] == results[reference, True], name
        for metric in METRICS:
            expected = results[reference, False][metric]
            np.testing.assert_array_equal(results[name, False][metric], expected, err_msg=f"{name}, {metric}")
        mean, table = (float(np.median(times[name, average])) for average in (True, False))
        mean_ratio = mean / np.median(times[reference, True])
        table_ratio = table / np.median(times[reference, False])
        print(f"{name:30s} {mean:7.2f}s {mean_ratio:5.1f}x {table:9.2f}s {table_ratio:5.1f}x")
    try:
        import pandas as pd
    except ImportError:
        return
    names = types["object array of str"]
    factorize = np.median([timed(lambda: pd.factorize(names))[0] for _ in range(arguments.repeats)])
    print(f"\nfor scale, pd.factorize of the object array alone: {factorize:.2f}s")


if __name__ == "__main__":
    main()
