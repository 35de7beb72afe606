"""Where the query ids of a fold come from: routed metadata or a column of ``X``."""

import numbers

import numpy as np
import scipy.sparse as sp

ROUTES = (
    "either enable metadata routing (sklearn.set_config(enable_metadata_routing=True)) and pass "
    "qid=... or groups=... to fit, cross_validate or the search, or give {owner} qid_column=<the column "
    "of X that holds the query ids> (the route when routing is off)"
)


def split_qid_column(X, qid_column):
    """Return ``X`` without the column ``qid_column`` and that column as a 1-D array."""
    if hasattr(X, "columns"):  # a DataFrame: by label, or by position for an integer not among the labels
        matches = int(np.sum(np.asarray(X.columns == qid_column))) if qid_column in X.columns else 0
        if matches > 1:
            raise ValueError(
                f"qid_column={qid_column!r} names {matches} columns of X; it must name exactly one. "
                "Rename or drop the duplicate columns."
            )
        if matches:
            return X.drop(columns=qid_column), np.asarray(X[qid_column])
        if isinstance(qid_column, numbers.Integral) and 0 <= qid_column < X.shape[1]:
            return X.drop(columns=X.columns[qid_column]), np.asarray(X.iloc[:, qid_column])
        raise ValueError(
            f"qid_column={qid_column!r} is not a column of X; X has the columns {list(X.columns)}. "
            "Pass the label or the position of the column that holds the query ids."
        )
    if not isinstance(qid_column, numbers.Integral) or isinstance(qid_column, bool):
        raise ValueError(
            f"qid_column={qid_column!r} names a column, but X has no column names ({type(X).__name__}); "
            "pass the integer position of the query id column, or a DataFrame."
        )
    n_columns = X.shape[1] if getattr(X, "ndim", 0) == 2 else 0
    if not -n_columns <= qid_column < n_columns:
        raise ValueError(
            f"qid_column={qid_column} is out of range for X with {n_columns} columns; "
            "pass the position of the column that holds the query ids."
        )
    position = qid_column % n_columns
    kept = np.arange(n_columns) != position
    if sp.issparse(X) and X.format not in ("csr", "csc"):
        X = X.tocsr()  # COO, DIA, BSR, LIL and DOK do not all support column selection
    qid = X[:, [position]].toarray().ravel() if sp.issparse(X) else np.asarray(X)[:, position]
    return X[:, kept], qid


def resolve_qid(*, qid=None, groups=None, X=None, qid_column=None, who="the scorer"):
    """The query ids of the rows of ``X``, from routed ``qid``/``groups`` or from ``qid_column``.

    Routed metadata wins; ``qid`` and ``groups`` must agree when both arrive. Returns
    None when there are none; the caller decides whether that is an error.
    """
    if qid is not None and groups is not None and not np.array_equal(np.asarray(qid), np.asarray(groups)):
        raise ValueError(
            f"{who} received both qid and groups and they differ. They must name the same query of "
            "each row: pass one of them, or the same array as both."
        )
    routed = qid if qid is not None else groups
    if routed is not None:
        return np.asarray(routed)
    if qid_column is not None and X is not None:
        return split_qid_column(X, qid_column)[1]
    return None


def missing_qid_error(who, owner):
    """The error for rows without query ids, naming both routes to provide them."""
    return ValueError(f"{who} needs the query id of each row and received none: {ROUTES.format(owner=owner)}.")
