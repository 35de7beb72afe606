"""Scores in: one number per system (a leaderboard), or per query and system, from arrays, mappings and tables.

Every meta-evaluation function reads its scores here, so that an array, a
mapping ``{system: score}``, a pandas Series or DataFrame and a
:class:`RankingComparison` mean the same everywhere, and every error names
the argument and what it received.
"""

import numbers

import numpy as np

from .._core._validation import as_float_array, check_finite, plain
from ..stats._comparison import RankingComparison


def is_frame(values):
    """Whether ``values`` is a pandas DataFrame (duck-typed: pandas is imported only by its users)."""
    return hasattr(values, "columns") and hasattr(values, "index") and hasattr(values, "iloc")


def is_series(values):
    return hasattr(values, "index") and hasattr(values, "to_numpy") and not hasattr(values, "columns")


def comparison_metric(comparison, metric, name):
    """The metric of a RankingComparison to read: ``metric``, or its only one (None and several: an error)."""
    metrics = list(dict.fromkeys(row["metric"] for row in comparison.rows))
    if metric is None:
        if len(metrics) != 1:
            raise ValueError(
                f"{name} compares {len(metrics)} metrics {plain(metrics)}: pass metric= to say which to use."
            )
        return metrics[0]
    if metric not in metrics:
        raise ValueError(f"{name} compares the metrics {plain(metrics)}; metric={plain(metric)!r} is not one of them.")
    return metric


def frame_column(frame, metric, name):
    """The column of a table of scores to read: ``metric``, or its only column."""
    columns = list(frame.columns)
    if metric is None:
        if len(columns) != 1:
            raise ValueError(
                f"{name} is a table of {len(columns)} columns {plain(columns)}: pass metric= to say which to use."
            )
        return frame[columns[0]]
    if metric not in columns:
        raise ValueError(f"{name} has the columns {plain(columns)}; metric={plain(metric)!r} is not one of them.")
    return frame[metric]


def system_scores(values, name, *, metric=None):
    """One score per system: (system names or None, float64 array, the metric of a RankingComparison or None).

    ``values`` is an array-like of shape (n_systems,) (names None), a
    mapping ``{system: score}``, a pandas Series indexed by system, a
    DataFrame of one row per system (its column ``metric``), or a
    :class:`RankingComparison` (each system's mean of ``metric``).
    """
    compared = None
    if isinstance(values, RankingComparison):
        compared = comparison_metric(values, metric, name)
        means = {row["system"]: row["mean"] for row in values.rows if row["metric"] == compared}
        names, scores = list(means), list(means.values())
    elif is_frame(values):
        column = frame_column(values, metric, name)
        names, scores = list(column.index), column.to_numpy()
    elif is_series(values):
        names, scores = list(values.index), values.to_numpy()
    elif hasattr(values, "items") and not isinstance(values, np.ndarray):
        names, scores = list(values.keys()), list(values.values())
    else:
        names, scores = None, values
    if names is not None and not len(names):
        raise ValueError(f"{name} is empty: give the score of every system (or query) to order, at least two.")
    if names is None and is_empty(scores):
        raise ValueError(f"{name} is empty: give the score of every system (or query) to order, at least two.")
    if names is not None and len(set(map(key_of, names))) != len(names):
        raise ValueError(f"{name} names a system twice; each system needs one score.")
    if names is not None and any(isinstance(score, str | bytes) for score in scores):
        raise TypeError(f"{name} must map each system to a number; got {plain(scores[0])!r}.")
    array = as_float_array(np.asarray(scores, dtype=object) if names is not None else scores, name)
    check_finite(array, name)
    return names, array, compared


def is_empty(values):
    """Whether ``values`` holds nothing (an empty sequence, mapping, array or table), without converting it."""
    if values is None or isinstance(values, str | bytes):
        return False
    size = getattr(values, "size", None)
    if isinstance(size, numbers.Integral):
        return size == 0
    return hasattr(values, "__len__") and len(values) == 0


def key_of(name):
    """A hashable key for a system or query name (numpy scalars as Python values)."""
    return plain(name)


def paired_scores(x, y, *, names=("x", "y"), metric=None, minimum=2):
    """The scores of the same systems in two leaderboards, aligned: (system names, x, y).

    Two mappings (or tables) are aligned by system name, and must name the
    same systems; two arrays by position, and must have the same length.
    Names are ``["0", "1", ...]`` positions for arrays. Two
    RankingComparisons must compare the same metric.
    """
    x_names, x_values, x_metric = system_scores(x, names[0], metric=metric)
    y_names, y_values, y_metric = system_scores(y, names[1], metric=metric)
    if x_metric is not None and y_metric is not None and x_metric != y_metric:
        raise ValueError(
            f"{names[0]} holds the metric {plain(x_metric)!r} and {names[1]} {plain(y_metric)!r}: the orderings of "
            "two different metrics are no agreement of evaluations. Pass metric= to compare one metric of both."
        )
    if (x_names is None) != (y_names is None):
        named, unnamed = (names[0], names[1]) if y_names is None else (names[1], names[0])
        raise TypeError(
            f"{named} names its systems but {unnamed} is an array: give both as mappings {{system: score}} (or "
            "tables), or both as arrays in the same order of systems."
        )
    if x_names is None:
        if len(x_values) != len(y_values):
            raise ValueError(
                f"{names[0]} and {names[1]} must score the same systems (or queries); got {len(x_values)} and "
                f"{len(y_values)} scores."
            )
        systems = list(range(len(x_values)))
    else:
        x_keys, y_keys = list(map(key_of, x_names)), list(map(key_of, y_names))
        check_same_keys(x_keys, y_keys, names)
        position = {key: i for i, key in enumerate(y_keys)}
        y_values = y_values[[position[key] for key in x_keys]]
        systems = x_keys
    if len(systems) < minimum:
        raise ValueError(
            f"{names[0]} and {names[1]} need at least {minimum} scores each (of systems, or of queries) to order; "
            f"got {len(systems)}."
        )
    return systems, x_values, y_values


def check_same_keys(x_keys, y_keys, names, what="systems (or queries)"):
    """Refuse two sets of names that differ, saying which differ, and when they differ only by type ('1' and 1)."""
    only_x, only_y = set(x_keys) - set(y_keys), set(y_keys) - set(x_keys)
    if not (only_x or only_y):
        return
    types = [sorted({type(key).__name__ for key in keys}) for keys in (only_x, only_y)]
    if set(map(str, only_x)) & set(map(str, only_y)):
        raise ValueError(
            f"{names[0]} and {names[1]} name their {what} with keys of different types ({', '.join(types[0])} in "
            f"{names[0]}, {', '.join(types[1])} in {names[1]}): {', '.join(sorted(map(repr, only_x))[:5])} and "
            f"{', '.join(sorted(map(repr, only_y))[:5])} print alike but are different keys. Give both the same type."
        )
    raise ValueError(
        f"{names[0]} and {names[1]} must score the same {what}; only in {names[0]}: "
        f"{sorted(map(str, only_x))}, only in {names[1]}: {sorted(map(str, only_y))}."
    )


def per_query_scores(values, name="scores", *, metric=None, minimum_systems=2, minimum_queries=2):
    """Per-query scores of several systems: (system names, matrix of shape (n_queries, n_systems), query ids).

    ``values`` is an array-like of shape (n_queries, n_systems), a mapping
    ``{system: per-query values}``, a DataFrame of one row per query and one
    column per system, or a :class:`RankingComparison` (the per-query values
    of ``metric`` on the queries every system defines). The query ids are
    those of a DataFrame's index, of the Series of a mapping (aligned on the
    first one's order: every Series must index the same queries) or of the
    comparison; None for arrays, whose rows are aligned by position.
    """
    queries = None
    if isinstance(values, RankingComparison):
        metric = comparison_metric(values, metric, name)
        columns = values.per_query[metric]
        names = list(columns)
        matrix = np.column_stack([np.asarray(columns[system], dtype=np.float64) for system in names])
        defined = ~np.isnan(matrix).any(axis=1)
        matrix, queries = matrix[defined], list(map(key_of, np.asarray(values.per_query["qid"])[defined]))
    elif is_frame(values):
        names, queries = list(values.columns), list(map(key_of, values.index))
        matrix = as_float_array(values.to_numpy(dtype=np.float64), name, ndim=(2,))
    elif hasattr(values, "items") and not isinstance(values, np.ndarray):
        names, (matrix, queries) = list(values.keys()), mapping_columns(values, name)
    else:
        matrix = as_float_array(values, name, ndim=(2,))
        names = list(range(matrix.shape[1]))
    names = list(map(key_of, names))
    if queries is not None and len(set(queries)) != len(queries):
        raise ValueError(f"{name} names a query twice; each query needs one row of scores.")
    check_finite(matrix, name)
    if matrix.shape[1] < minimum_systems:
        raise ValueError(f"{name} needs at least {minimum_systems} systems; got {matrix.shape[1]}.")
    if len(matrix) < minimum_queries:
        raise ValueError(f"{name} needs at least {minimum_queries} queries; got {len(matrix)}.")
    return names, matrix, queries


def mapping_columns(values, name):
    """The columns of ``{system: per-query values}``: (queries x systems matrix, query ids or None).

    Series are aligned by their index, on the first one's order; arrays by
    position. A mixture of the two is refused: it could only be aligned by
    position, which a Series' index says is not meant.
    """
    if not values:
        raise ValueError(f"{name} is empty: give the per-query scores of at least two systems.")
    series = [is_series(column) for column in values.values()]
    if any(series) and not all(series):
        raise TypeError(
            f"{name} mixes pandas Series (aligned by query) and arrays (aligned by position): give every system's "
            "per-query scores the same way."
        )
    if all(series):
        first = list(map(key_of, next(iter(values.values())).index))
        columns = []
        for system, column in values.items():
            labels = list(map(key_of, column.index))
            if len(set(labels)) != len(labels):
                raise ValueError(f"{name}[{plain(system)!r}] names a query twice; each query needs one score.")
            check_same_keys(first, labels, (f"the first Series of {name}", f"{name}[{plain(system)!r}]"), "queries")
            position = {label: i for i, label in enumerate(labels)}
            values_of = as_float_array(column.to_numpy(dtype=np.float64), f"{name}[{plain(system)!r}]")
            columns.append(values_of[[position[label] for label in first]])
        return np.column_stack(columns), first
    columns = [as_float_array(column, f"{name}[{plain(system)!r}]") for system, column in values.items()]
    lengths = {len(column) for column in columns}
    if len(lengths) > 1:
        raise ValueError(f"{name} must give every system a value for the same queries; got {sorted(lengths)} values.")
    return np.column_stack(columns), None
