"""The report of a Spark DataFrame: partitions measure their queries from Arrow batches, the driver merges.

Each partition measures its queries with Arrow batches (``mapInArrow``: many
queries per Python call) into a :class:`~sklearn_rankmetrics.RankingAccumulator`;
the driver merges the partitions' accumulators and reduces, so the report is
the in-memory one whatever the partitioning.
"""

import pickle
from functools import partial

import numpy as np

from .._core._validation import TIES, check_option, check_zero_division, plain
from ..registry._report import interval_request
from ..streaming._accumulator import RankingAccumulator
from ._lists import column_values, rows_of_lists

ROW = "__row__"  # each row's place in the frame, for ties="stable"
USER = "__user__"  # the query id of a row of lists without a user column
STATE_SCHEMA = "state binary, error string"
NEEDS_THE_TOP_GRADE = "max_grade"


def import_spark():
    try:
        import pyspark
        import pyspark.sql.functions
    except ImportError as error:
        raise ImportError(
            "sklearn_rankmetrics.spark needs pyspark: pip install 'sklearn-rankmetrics[spark]'."
        ) from error
    return pyspark


def ranking_report(
    df,
    *,
    metrics=("ndcg@10", "map", "mrr"),
    qid_col="qid",
    label_col="label",
    score_col="score",
    weight_col=None,
    ties="average",
    average=True,
    zero_division=0.0,
    confidence_level=None,
    n_resamples=10_000,
    random_state=None,
    num_partitions=None,
):
    """Several ranking metrics of a Spark DataFrame of (query, label, score) rows, equal to the in-memory report.

    The rows are repartitioned by query (so each query's rows meet in one
    partition), each partition measures its queries from Arrow batches in
    one Python call, and the driver merges the partitions' per-query values.

    .. versionadded:: 0.1

    Parameters
    ----------
    df : pyspark.sql.DataFrame
        One row per document.
    metrics : sequence of str, default=("ndcg@10", "map", "mrr")
        Metric names, as for :func:`sklearn_rankmetrics.ranking_report`.
    qid_col, label_col, score_col : str, default="qid", "label", "score"
        The columns of each row's query id (integers or strings), relevance
        label and score (``-inf``: judged, not retrieved).
    weight_col : str, default=None
        A column of query weights, constant within each query; None: equal.
    ties : {"average", "pessimistic", "optimistic", "stable"}, default="average"
        Order of documents with equal scores; ``"stable"``: the frame's
        order of the rows (``monotonically_increasing_id``).
    average : bool, default=True
        True: each metric's weighted mean; False: the per-query table (a dict
        of numpy arrays on the driver, sorted by query id).
    zero_division : {0.0, 1.0, np.nan}, default=0.0
        Value of a query without a relevant document.
    confidence_level : float, default=None
        With a level such as 0.95, each mean with its bootstrap interval.
    n_resamples : int, default=10_000
        Bootstrap resamples of the queries, for the intervals.
    random_state : int, RandomState instance, numpy Generator or None, default=None
        Seed of the resampling.
    num_partitions : int, default=None
        Partitions of the shuffle by query; None: ``spark.sql.shuffle.partitions``.

    Returns
    -------
    report : dict
        Metric name to its mean (or ``(mean, ci_low, ci_high)``), or the
        per-query table, as :func:`sklearn_rankmetrics.ranking_report` gives it.

    See Also
    --------
    ranking_report_from_lists : The same from arrays of recommended and relevant ids.
    RankingEvaluator : The report's metric as a Spark ML Evaluator.

    Notes
    -----
    Per-query values are exact whatever the partitioning (a query's value
    depends on its rows alone); the driver sorts the queries by id and
    reduces them with the in-memory code, so the means are those of
    :func:`sklearn_rankmetrics.ranking_report` on the collected rows (to the
    last bit where the labels are whole grades up to 64; otherwise NDCG's
    ideal gain may be summed in another order: to rounding). ERR, nERR, INST
    and INSQ without a ``max_grade`` take the largest label of the frame,
    found by one aggregation first. Nulls in the three columns are refused.

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from sklearn_rankmetrics.spark import ranking_report
    >>> spark = SparkSession.builder.master("local[1]").getOrCreate()  # doctest: +SKIP
    >>> df = spark.createDataFrame([(1, 3, 0.9), (1, 2, 0.3), (1, 0, 0.5), (2, 1, 0.1), (2, 0, 0.8), (2, 2, 0.4)],
    ...                            ["qid", "label", "score"])  # doctest: +SKIP
    >>> report = ranking_report(df, metrics=["ndcg@10", "mrr"])  # doctest: +SKIP
    >>> {name: round(value, 4) for name, value in report.items()}  # doctest: +SKIP
    {'ndcg@10': 0.8041, 'mrr': 0.75}
    """
    import_spark()
    from pyspark.sql import functions

    columns = {"qid": qid_col, "label": label_col, "score": score_col, "weight": weight_col}
    check_columns(df, columns)
    options = report_options(df, metrics, functions.col(label_col), ties=ties, zero_division=zero_division)
    rows = df.select(*[functions.col(name) for name in columns.values() if name is not None])
    if options["ties"] == "stable":
        rows = rows.withColumn(ROW, functions.monotonically_increasing_id())
    shuffled = rows.repartition(*([num_partitions] if num_partitions else []), functions.col(qid_col))
    measure = partial(measure_partition, columns=columns, options=options)
    return merged_report(shuffled.mapInArrow(measure, STATE_SCHEMA), options, average, confidence_level,
                         n_resamples, random_state)  # fmt: skip


def ranking_report_from_lists(
    df,
    *,
    metrics=("ndcg@10", "map", "mrr"),
    recommendations_col="recommendations",
    relevant_col="relevant",
    grades_col=None,
    user_col=None,
    average=True,
    zero_division=0.0,
    confidence_level=None,
    n_resamples=10_000,
    random_state=None,
):
    """Ranking metrics of one row per user: the ids recommended, in rank order, and the relevant ids with grades.

    The layout of Spark ALS's ``recommendForAllUsers`` joined with each
    user's held-out items, and of Spark's own ``RankingEvaluator``, here with
    graded relevance and every metric of the library.

    .. versionadded:: 0.1

    Parameters
    ----------
    df : pyspark.sql.DataFrame
        One row per user (query).
    metrics : sequence of str, default=("ndcg@10", "map", "mrr")
        Metric names, as for :func:`sklearn_rankmetrics.ranking_report`.
    recommendations_col : str, default="recommendations"
        The recommended ids, best first: an array of ids (numbers or
        strings), or of structs whose first field is the id (ALS's
        ``array<struct<item, rating>>``).
    relevant_col : str, default="relevant"
        The relevant ids: an array of ids, or of structs ``(id, grade)``.
    grades_col : str, default=None
        An array of grades, one per relevant id; None: the structs' grades,
        or 1 (binary relevance) for plain ids.
    user_col : str, default=None
        A column of user ids (one row per user); None: the rows are told
        apart by ``monotonically_increasing_id``.
    average : bool, default=True
        True: each metric's mean over users; False: the per-user table.
    zero_division : {0.0, 1.0, np.nan}, default=0.0
        Value of a user without a relevant id.
    confidence_level : float, default=None
        With a level such as 0.95, each mean with its bootstrap interval.
    n_resamples : int, default=10_000
        Bootstrap resamples of the users, for the intervals.
    random_state : int, RandomState instance, numpy Generator or None, default=None
        Seed of the resampling.

    Returns
    -------
    report : dict
        Metric name to its mean (or ``(mean, ci_low, ci_high)``), or the per-user table.

    See Also
    --------
    ranking_report : The same of (query, label, score) rows.

    Notes
    -----
    Each user becomes rows, as the metrics take them: a recommended id at
    rank ``r`` (from 1) scores ``-r`` and is labelled with its grade (0 when
    not relevant); a relevant id not recommended scores ``-inf`` (judged, not
    retrieved: it counts in the ideal ranking and in recall's and AP's
    denominators, as in Spark's evaluator). A user with neither recommended
    nor relevant ids is a query without a relevant document. With binary
    grades, NDCG@k, MAP, P@k and recall@k equal Spark's ``RankingEvaluator``
    (tested). A null array, a null id or grade, ids of two kinds (numbers
    and text), a repeated relevant id and an id recommended twice to one
    user are refused. ERR, nERR, INST and INSQ without a ``max_grade`` take
    the largest grade of the frame (of ``grades_col``, or of the relevant
    structs' grades; 1 for plain ids), as the in-memory report takes the
    largest label.

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from sklearn_rankmetrics.spark import ranking_report_from_lists
    >>> spark = SparkSession.builder.master("local[1]").getOrCreate()  # doctest: +SKIP
    >>> df = spark.createDataFrame([([5, 3, 9], [3, 7], [2.0, 1.0])], ["recommendations", "relevant", "grades"])
    ... # doctest: +SKIP
    >>> report = ranking_report_from_lists(df, metrics=["ndcg@3", "recall@3"], grades_col="grades")  # doctest: +SKIP
    >>> {name: round(value, 4) for name, value in report.items()}  # doctest: +SKIP
    {'ndcg@3': 0.4796, 'recall@3': 0.5}
    """
    import_spark()
    from pyspark.sql import functions

    columns = {"recommendations": recommendations_col, "relevant": relevant_col, "grades": grades_col}
    check_columns(df, {**columns, "user": user_col})
    options = report_options(df, metrics, top_grade_of_lists(df, relevant_col, grades_col), ties="average",
                             zero_division=zero_division)  # fmt: skip
    if user_col is None:
        df, user_col = df.withColumn(USER, functions.monotonically_increasing_id()), USER
    columns["user"] = user_col
    rows = df.select(*[functions.col(name) for name in columns.values() if name is not None])
    measure = partial(measure_lists, columns=columns, options=options)
    return merged_report(rows.mapInArrow(measure, STATE_SCHEMA), options, average, confidence_level, n_resamples,
                         random_state)  # fmt: skip


def top_grade_of_lists(df, relevant_col, grades_col):
    """Each row's largest grade, a column expression: of ``grades_col``, else of the relevant structs' grades (their
    second field); None where every grade is 1 (plain relevant ids)."""
    from pyspark.sql import functions
    from pyspark.sql.types import StructType

    if grades_col is not None:
        return functions.array_max(functions.col(grades_col))
    element = getattr(df.schema[relevant_col].dataType, "elementType", None)
    if isinstance(element, StructType) and len(element.fields) > 1:
        return functions.array_max(functions.col(relevant_col).getField(element.fields[1].name))
    return None


def check_columns(df, columns):
    if not hasattr(df, "mapInArrow"):
        raise TypeError(
            f"df must be a Spark DataFrame (pyspark.sql.DataFrame); got {type(df).__module__}.{type(df).__name__}. "
            "For data in memory, use sklearn_rankmetrics.ranking_report."
        )
    missing = [name for name in columns.values() if name is not None and name not in df.columns]
    if missing:
        raise ValueError(f"df has no column {plain(missing[0])!r}; its columns are {df.columns}.")


def report_options(df, metrics, labels, *, ties, zero_division):
    """The accumulator's options, checked on the driver (a bad name fails here, not in an executor).

    Metrics that divide by the top grade without a ``max_grade`` get the
    frame's largest label (of the column ``labels``, a column expression, or
    1 for binary lists, where ``labels`` is None), as the in-memory report
    takes it: one aggregation.
    """
    options = {"metrics": metrics, "ties": check_option("ties", ties, TIES),
               "zero_division": check_zero_division(zero_division)}  # fmt: skip
    try:
        RankingAccumulator(**options)
    except ValueError as error:
        if NEEDS_THE_TOP_GRADE not in str(error):
            raise
        from pyspark.sql import functions

        top = 1.0 if labels is None else df.agg(functions.max(labels)).first()[0]
        options["max_grade"] = float(top) if top is not None and top > 0 else 1.0
        RankingAccumulator(**options)
    return options


def merged_report(states, options, average, confidence_level, n_resamples, random_state):
    """The report of the partitions' accumulators (a frame of states), the options checked before the job."""
    interval_request(average, confidence_level, n_resamples, random_state)
    return report_of_states(states.collect(), options, average, confidence_level, n_resamples, random_state)


def report_of_states(states, options, average, confidence_level, n_resamples, random_state):
    """The report of the partitions' pickled accumulators (rows of ``state`` and ``error``), merged on the driver."""
    merged = RankingAccumulator(**options)
    for row in states:
        if row["error"] is not None:
            raise ValueError(row["error"])
        merged.merge(pickle.loads(row["state"]))
    if not merged.n_queries:
        raise ValueError("df has no rows: a ranking metric needs at least one document.")
    try:
        return merged.compute(
            average=average, confidence_level=confidence_level, n_resamples=n_resamples, random_state=random_state
        )
    except ValueError as error:
        if "measured twice" not in str(error):
            raise
        raise ValueError(
            f"{error} On Spark: a user on two rows of the lists, or one query's ids that hash apart (such as 0.0 and "
            "-0.0); give lists one row per user, and each query one id."
        ) from None


def measure_partition(batches, *, columns, options):
    """One partition's queries (whole: the rows were repartitioned by query) as one pickled accumulator."""
    import pyarrow as pa

    batches = list(batches)
    if not batches or not sum(batch.num_rows for batch in batches):
        return
    table = pa.Table.from_batches(batches)
    try:
        values = {role: column_values(table, name) for role, name in columns.items() if name is not None}
        if ROW in table.column_names:  # the shuffle moved the rows: back to the frame's order, which stable ties follow
            order = np.argsort(column_values(table, ROW), kind="stable")
            values = {role: column[order] for role, column in values.items()}
        accumulator = RankingAccumulator(**options).update(
            values["label"], values["score"], values["qid"], sample_weight=values.get("weight")
        )
    except (TypeError, ValueError) as error:
        yield state_batch(None, str(error))
        return
    yield state_batch(accumulator, None)


def measure_lists(batches, *, columns, options):
    """One partition's users, batch by batch (each row a whole query), as one pickled accumulator."""
    accumulator = RankingAccumulator(**options)
    for batch in batches:
        if not batch.num_rows:
            continue
        try:
            y_true, y_score, qid = rows_of_lists(batch, columns)
            accumulator.update(y_true, y_score, qid)
        except (TypeError, ValueError) as error:
            yield state_batch(None, str(error))
            return
    if accumulator.n_queries:
        yield state_batch(accumulator, None)


def state_batch(accumulator, error):
    import pyarrow as pa

    state = None if accumulator is None else pickle.dumps(accumulator, protocol=pickle.HIGHEST_PROTOCOL)
    return pa.RecordBatch.from_pydict(
        {"state": [state], "error": [error]}, schema=pa.schema([("state", pa.binary()), ("error", pa.string())])
    )
