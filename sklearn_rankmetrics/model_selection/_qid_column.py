"""Where the query ids of a fold come from: routed metadata or a column of ``X``."""

import numbers
import sys

import numpy as np
import scipy.sparse as sp
from sklearn import get_config

from .._core._frames import column_at, column_labels, without_column
from .._core._validation import plain

# Tools that call scorers or fit without routing metadata, by the module of their code, and what works with them.
SKLEARN_PERMUTATION = (
    "permutation_importance",
    "sklearn_rankmetrics.permutation_importance(estimator, X, y, qid=qid) takes the query ids, and never permutes them",
)
OPTUNA = (
    "OptunaSearchCV",
    "OptunaSearchCV passes groups= to cross_validate, which scikit-learn refuses while routing is on: with routing "
    "on, give it the folds, cv=list(GroupKFold(3).split(X, y, groups=qid)), and no groups=, with the query ids as "
    "a column of X; or turn routing off",
)
NON_ROUTING = {
    "sklearn.inspection._permutation_importance": SKLEARN_PERMUTATION,
    "optuna_integration": OPTUNA,
    "optuna.integration": OPTUNA,
}


def split_qid_column(X, qid_column):
    """Return ``X`` without the column ``qid_column`` and that column as a 1-D array."""
    labels = column_labels(X)
    if labels is not None:  # a DataFrame (pandas, Polars, pyarrow): by label, or by position for an integer not a label
        matches = [position for position, label in enumerate(labels) if is_same_label(label, qid_column)]
        if len(matches) > 1:
            raise ValueError(
                f"qid_column={plain(qid_column)!r} names {len(matches)} columns of X; it must name exactly one. "
                "Rename or drop the duplicate columns."
            )
        if not matches and isinstance(qid_column, numbers.Integral) and 0 <= qid_column < len(labels):
            matches = [int(qid_column)]
        if matches:
            return without_column(X, matches[0]), column_at(X, matches[0])
        raise ValueError(
            f"qid_column={plain(qid_column)!r} is not a column of X; X has the columns {plain(labels)}. "
            "Pass the label or the position of the column that holds the query ids."
        )
    if not isinstance(qid_column, numbers.Integral) or isinstance(qid_column, bool):
        raise ValueError(
            f"qid_column={plain(qid_column)!r} names a column, but X has no column names ({type(X).__name__}); "
            "pass the integer position of the query id column, or a DataFrame."
        )
    if not sp.issparse(X) and not hasattr(X, "ndim"):
        X = np.asarray(X)  # a list of rows, as scikit-learn estimators take it
    n_columns = X.shape[1] if getattr(X, "ndim", 0) == 2 else 0
    if not -n_columns <= qid_column < n_columns:
        raise ValueError(
            f"qid_column={plain(qid_column)!r} is out of range for X with {n_columns} columns; "
            "pass the position of the column that holds the query ids."
        )
    position = qid_column % n_columns
    kept = np.arange(n_columns) != position
    if sp.issparse(X) and X.format not in ("csr", "csc"):
        X = X.tocsr()  # COO, DIA, BSR, LIL and DOK do not all support column selection
    qid = X[:, [position]].toarray().ravel() if sp.issparse(X) else np.asarray(X)[:, position]
    return X[:, kept], qid


def column_position(column, labels, n_columns):
    """The position of the column that ``column`` names, among ``n_columns`` columns labelled ``labels`` (or None).

    As :func:`split_qid_column` reads ``qid_column``: a label first, then a
    position, negative ones from the end (which a DataFrame refuses there, so a
    fitted model never names one). None when ``column`` names no column, or
    several.
    """
    if labels is not None:
        matches = [j for j, label in enumerate(labels) if is_same_label(label, column)]
        if matches:
            return matches[0] if len(matches) == 1 else None
    integer = isinstance(column, numbers.Integral) and not isinstance(column, bool | np.bool_)
    return int(column) % n_columns if integer and -n_columns <= column < n_columns else None


def is_same_label(label, column):
    try:
        return bool(label == column)
    except (TypeError, ValueError):  # labels that compare as arrays
        return False


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
        return routed  # as given: encoding the ids (tuples included) is the metric's job
    if qid_column is not None and X is not None:
        return split_qid_column(X, qid_column)[1]
    return None


def missing_qid_error(who, owner):
    """The error for rows without query ids: what went wrong on this route, and the routes that work."""
    column_route = f"give {owner} qid_column=<the column of X that holds the query ids>"
    if not get_config()["enable_metadata_routing"]:
        return ValueError(
            f"{who} needs the query id of each row and received none. Metadata routing is off, so nothing "
            "can pass them: either enable it (sklearn.set_config(enable_metadata_routing=True)) and pass "
            'groups=qid to the search\'s fit, or params={"groups": qid} to cross_validate, cross_val_score, '
            f"validation_curve or learning_curve; or {column_route} (the route when routing is off)."
        )
    caller, advice = calling_tool() or (None, None)
    culprit = (
        f"{caller} does not route metadata"
        if caller
        else "the caller did not pass them (some tools, such as permutation_importance and OptunaSearchCV, never do)"
    )
    return ValueError(
        f"{who} needs the query id of each row and received none. Metadata routing is on, but {culprit}. "
        'Pass groups=qid to the search\'s fit, or params={"groups": qid} to cross_validate, cross_val_score, '
        f"validation_curve or learning_curve; with a tool that does not route, {column_route}"
        + (f". {advice}." if advice else ".")
    )


def calling_tool():
    """A known tool that does not route metadata, if one is on the call stack: its name and what works with it."""
    frame = sys._getframe(1)
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        for prefix, tool in NON_ROUTING.items():
            if module.startswith(prefix):
                return tool
        frame = frame.f_back
    return None
