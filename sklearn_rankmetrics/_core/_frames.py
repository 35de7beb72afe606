"""Columns of a data frame of any library (pandas, Polars, pyarrow), read where they lie: no pandas round trip.

The few places that read a frame's columns by label (the query id column of
``X``, the columns of qrels and runs, stacked runs) go through these
functions, so that a Polars DataFrame or a pyarrow Table is read as a pandas
DataFrame is.
"""

import numpy as np


def frame_library(X):
    """``"pandas"``, ``"polars"`` or ``"pyarrow"`` (a Table or RecordBatch) for a frame of that library, or None."""
    library = type(X).__module__.partition(".")[0]
    if library == "pandas" and hasattr(X, "iloc") and getattr(X, "ndim", 0) == 2:
        return library
    if library == "polars" and hasattr(X, "get_columns"):
        return library
    if library == "polars" and hasattr(X, "collect"):
        raise TypeError(
            f"Got a Polars {type(X).__name__}: a query plan, not data. Call .collect() on it first, and pass the "
            "DataFrame it gives."
        )
    if library == "pyarrow" and hasattr(X, "column_names") and hasattr(X, "schema"):
        return library
    return None


def column_labels(X):
    """The labels of the columns of a data frame, as a list; None for anything else (an array, a matrix)."""
    library = frame_library(X)
    if library == "pyarrow":
        return list(X.column_names)
    if library is not None:
        return list(X.columns)
    return list(X.columns) if hasattr(X, "columns") and hasattr(X, "iloc") else None


def column_at(X, position):
    """The column at ``position`` of a data frame as a 1-D numpy array (objects for strings)."""
    library = frame_library(X)
    if library == "polars":
        return X.to_series(position).to_numpy()
    if library == "pyarrow":
        return X.column(position).to_numpy(zero_copy_only=False)
    return np.asarray(X.iloc[:, position])


def column_named(X, label):
    """The column labelled ``label`` (the first one) of a data frame, as :func:`column_at` gives it."""
    return column_at(X, column_labels(X).index(label))


def without_column(X, position):
    """The data frame without its column at ``position``, in its own library."""
    library = frame_library(X)
    if library == "polars":
        return X.drop(X.columns[position])
    if library == "pyarrow":
        return X.remove_column(position)
    return X.iloc[:, [j for j in range(X.shape[1]) if j != position]]  # by position: labels may repeat


def frame_rows(X):
    """The rows of a Polars DataFrame or pyarrow Table as a 2-D numpy array (None for other inputs)."""
    library = frame_library(X)
    if library == "polars":
        return X.to_numpy()
    if library == "pyarrow":
        return np.column_stack([column_at(X, j) for j in range(X.num_columns)]) if X.num_columns else None
    return None
