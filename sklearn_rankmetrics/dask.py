"""Ranking metrics of logs too big for one machine, on Dask (the ``dask`` extra).

Every query's rows are brought into one partition (Dask's shuffle on the
query column), each partition measures its queries into a
:class:`~sklearn_rankmetrics.RankingAccumulator`, and the partitions'
accumulators merge (as Spark's do) and reduce as the in-memory report does.
"""

import numbers

import numpy as np

from ._core._validation import check_flag, check_zero_division, plain
from .registry._names import parse_metric_name
from .registry._report import interval_request
from .streaming._accumulator import RankingAccumulator

__all__ = ["ranking_report"]

WEIGHT = "__weight__"
SHUFFLE_KEY = "__query_key__"
ROW = "__row__"  # each row's place in the whole frame, for ties="stable"


def import_dask():
    try:
        import dask
        import dask.dataframe
    except ImportError as error:
        raise ImportError("sklearn_rankmetrics.dask needs dask: pip install 'sklearn-rankmetrics[dask]'.") from error
    return dask


def numbers_as_floats(ids):
    """The query ids of a partition (a pandas Series) with every real number as a float: equal ids, equal keys."""
    return ids.map(lambda value: float(value) if isinstance(value, numbers.Real) else value)


def per_query_values(frame, *, query, label, score, weight, metrics, ties, accumulating):
    """One partition's per-query values (nan where undefined), the query's weight and id, as a pandas DataFrame."""
    import pandas as pd

    columns = {query: frame[query].iloc[:0], **{name: pd.Series([], dtype=float) for name in metrics}}
    if len(frame) == 0:
        return pd.DataFrame({**columns, WEIGHT: pd.Series([], dtype=float)})
    accumulator = partition_accumulator(
        frame, query=query, label=label, score=score, weight=weight, metrics=metrics, ties=ties,
        accumulating={**accumulating, "zero_division": np.nan},
    )  # fmt: skip
    report = accumulator.compute(average=False)
    ids = report.pop("qid")
    if weight is None:
        weights = np.ones(len(ids))
    else:  # constant within a query (the accumulator checked it): the first row of each
        first = frame.drop_duplicates(subset=query)
        weights = first.set_index(query)[weight].reindex(ids).to_numpy(dtype=float)
    return pd.DataFrame({query: ids, **report, WEIGHT: weights})


def ranking_report(
    frame,
    *,
    query="qid",
    label="label",
    score="score",
    weight=None,
    metrics=("ndcg@10", "map", "mrr"),
    ties="average",
    average=True,
    zero_division=0.0,
    confidence_level=None,
    n_resamples=10_000,
    random_state=None,
):
    """Several ranking metrics of a Dask DataFrame of (query, label, score) rows, as in memory (to rounding).

    Parameters
    ----------
    frame : dask.dataframe.DataFrame
        One row per document, for instance read from Parquet.
    query, label, score : str, default="qid", "label", "score"
        The columns holding each row's query id, relevance label and score
        (``-inf`` for a judged document not retrieved, as everywhere).
    weight : str, default=None
        A column of query weights, constant within each query; None: equal.
    metrics : sequence of str, default=("ndcg@10", "map", "mrr")
        Metric names, as for :func:`sklearn_rankmetrics.ranking_report`.
    ties : {"average", "pessimistic", "optimistic", "stable"}, default="average"
        Order of documents with equal scores; ``"stable"``: the order of the
        rows in ``frame`` (partition by partition), whatever its partitions.
    average : bool, default=True
        True: compute and return each metric's weighted mean over queries.
        False: return the per-query values, lazily, as a Dask DataFrame with
        the query column and one column per metric (nan where a query has no
        relevant document).
    zero_division : {0.0, 1.0, np.nan}, default=0.0
        Value of a query without a relevant document in the means.
    confidence_level : float, default=None
        With a level such as 0.95 (and ``average=True``), each mean with its
        bootstrap interval over queries, as in memory.
    n_resamples : int, default=10_000
        Bootstrap resamples of the queries, for the intervals.
    random_state : int, RandomState instance, numpy Generator or None, default=None
        Seed of the resampling.

    Returns
    -------
    report : dict or dask.dataframe.DataFrame
        Metric name to its mean (or ``(mean, ci_low, ci_high)``), or the
        per-query values.

    See Also
    --------
    sklearn_rankmetrics.ranking_report : The same on arrays in memory.

    Notes
    -----
    The shuffle on the query column moves every row once; each partition
    then holds whole queries, so per-query values are exact. With
    ``ties="stable"`` each row first gets its place in the frame (a running
    count over the partitions), and each partition puts its rows back in
    that order, so that tied scores keep the frame's order. Each partition
    measures its queries into a :class:`~sklearn_rankmetrics.RankingAccumulator`;
    the accumulators merge, sort the queries by id and reduce with the
    in-memory code, so the means (and intervals) are the in-memory report's
    (to the last bit where the labels are whole grades up to 64; otherwise
    NDCG's ideal gain may be summed in another order: to rounding). ERR,
    nERR, INST and INSQ without a ``max_grade`` take the frame's largest
    label, found by one pass first.

    Dask turns object columns into strings by default (its
    ``dataframe.convert-string`` option) when the frame is built, before this
    function sees it: an object query column holding ``5`` and ``5.0`` then
    holds two queries, ``"5"`` and ``"5.0"``, where the in-memory report sees
    one. Give the query column one type (``rows["qid"].astype(int)``) before
    ``dd.from_pandas``. An object column that reaches this function (with
    the conversion off) keeps equal ids of different types together.

    Examples
    --------
    >>> import pandas as pd
    >>> import dask.dataframe as dd
    >>> from sklearn_rankmetrics.dask import ranking_report
    >>> rows = pd.DataFrame({"qid": [1, 1, 1, 2, 2, 2], "label": [3, 2, 0, 1, 0, 2],
    ...                      "score": [0.9, 0.3, 0.5, 0.1, 0.8, 0.4]})
    >>> report = ranking_report(dd.from_pandas(rows, npartitions=2), metrics=["ndcg@10", "mrr"])
    >>> {name: round(value, 4) for name, value in report.items()}
    {'ndcg@10': 0.8041, 'mrr': 0.75}
    """
    dask = import_dask()
    check_flag("average", average)
    zero_division = check_zero_division(zero_division)
    if isinstance(metrics, str):
        raise TypeError(f"metrics must be a sequence of metric names, such as [{plain(metrics)!r}]; got a string.")
    metrics = list(metrics)
    for name in metrics:
        parse_metric_name(name)  # a bad name fails here, not in a worker
    missing = [column for column in (query, label, score, weight) if column is not None and column not in frame.columns]
    if missing:
        raise ValueError(f"frame has no column {plain(missing[0])!r}; its columns are {list(frame.columns)}.")
    kept = [column for column in (query, label, score, weight) if column is not None]
    options = {"query": query, "label": label, "score": score, "weight": weight, "metrics": metrics, "ties": ties}
    rows = frame[kept]
    if ties == "stable":
        # The shuffle does not keep the rows' order: number them first, across the partitions in order.
        rows = rows.assign(**{ROW: 1})
        rows = rows.assign(**{ROW: rows[ROW].cumsum()})
    key = query
    if rows[query].dtype == object:
        # pandas hashes the values of an object column through str(): 5 and 5.0, one query, would
        # be shuffled apart. A key with every number as a float keeps equal ids together.
        key = SHUFFLE_KEY
        rows = rows.assign(**{key: rows[query].map_partitions(numbers_as_floats, meta=(key, object))})
    shuffled = rows.shuffle(on=key)
    interval_request(average, confidence_level, n_resamples, random_state)
    accumulating = accumulator_options(metrics, ties, zero_division, lambda: frame[label].max().compute())
    if not average:
        meta = per_query_values(rows._meta, **options, accumulating=accumulating)
        return shuffled.map_partitions(per_query_values, **options, accumulating=accumulating, meta=meta).drop(
            columns=WEIGHT
        )
    parts = [dask.delayed(partition_accumulator)(part, **options, accumulating=accumulating)
             for part in shuffled.to_delayed()]  # fmt: skip
    merged = RankingAccumulator(**accumulating)
    for part in dask.compute(*parts):  # one pass over the shuffled log
        merged.merge(part)
    if not merged.n_queries:
        raise ValueError("frame has no rows: a ranking metric needs at least one document.")
    return merged.compute(confidence_level=confidence_level, n_resamples=n_resamples, random_state=random_state)


def accumulator_options(metrics, ties, zero_division, largest_label):
    """The accumulators' options; metrics that divide by the top grade get the largest label, as in memory."""
    options = {"metrics": metrics, "ties": ties, "zero_division": zero_division}
    try:
        RankingAccumulator(**options)
    except ValueError as error:
        if "max_grade" not in str(error):
            raise
        top = float(largest_label())
        options["max_grade"] = top if top > 0 else 1.0
    return options


def partition_accumulator(frame, *, query, label, score, weight, metrics, ties, accumulating):
    """One partition's whole queries, measured into an accumulator."""
    accumulator = RankingAccumulator(**accumulating)
    if len(frame) == 0:
        return accumulator
    if ROW in frame:  # the shuffle moved the rows: back to the frame's order, which stable ties follow
        frame = frame.sort_values(ROW, kind="stable")
    return accumulator.update(
        frame[label].to_numpy(),
        frame[score].to_numpy(),
        frame[query].to_numpy(),
        sample_weight=None if weight is None else frame[weight].to_numpy(),
    )
