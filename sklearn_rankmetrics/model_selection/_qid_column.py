"""Where the query ids of a fold come from: the one resolution used by the scorers, GroupedRanker and inspection.

Query ids come from routed metadata (``qid``, ``groups``) or from a column of
``X`` (a scorer's ``qid_column``, or that of the GroupedRanker a scorer
scores). :func:`resolve_qid` reads every source present and refuses a
disagreement, so that no source silently replaces another.
"""

import numbers
import sys

import numpy as np
import scipy.sparse as sp
from sklearn import get_config
from sklearn.pipeline import Pipeline

from .._core._frames import column_at as frame_column_at
from .._core._frames import column_labels, without_column
from .._core._query_ids import encode_qid, query_id_array
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
    X, column = locate_qid_column(X, qid_column)
    if column_labels(X) is not None:
        return without_column(X, column), column_at(X, column)
    kept = np.flatnonzero(np.arange(X.shape[1]) != column)
    return X[:, kept], column_at(X, column)


def qid_column_values(X, qid_column):
    """The column ``qid_column`` of ``X`` as a 1-D array (without copying the other columns)."""
    return column_at(*locate_qid_column(X, qid_column))


def column_at(X, column):
    """The column at position ``column`` of a data frame (pandas, Polars, pyarrow), an array or a CSR/CSC matrix,
    as a 1-D array."""
    if column_labels(X) is not None:
        return frame_column_at(X, column)
    return X[:, [column]].toarray().ravel() if sp.issparse(X) else np.asarray(X)[:, column]


def locate_qid_column(X, qid_column):
    """``X`` in a form whose columns can be selected, and the position of the column ``qid_column``.

    A data frame's column (pandas, Polars, pyarrow) by label, or by position
    for an integer not among the labels; an array's or sparse matrix's by
    position, negative ones from the end. Raises a ValueError naming
    ``qid_column`` when it names no column, or several.
    """
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
            return X, matches[0]
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
    if sp.issparse(X) and X.format not in ("csr", "csc"):
        X = X.tocsr()  # COO, DIA, BSR, LIL and DOK do not all support column selection
    return X, int(qid_column % n_columns)


def take_rows(data, rows):
    """Rows ``rows`` of an array, sparse matrix, DataFrame or Series; all of it for None."""
    if rows is None:
        return data
    if hasattr(data, "iloc"):
        return data.iloc[rows]
    return data.tocsr()[rows] if sp.issparse(data) else np.asarray(data)[rows]


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


# The one resolution of query ids ----------------------------------------------------------------------------------


def resolve_qid(who, *, X=None, qid=None, groups=None, columns=(), estimator=None, prefer_column=False):
    """The query ids of the rows of ``X``, and the column of ``X`` that holds them (None if none does).

    Every source present is read, and all must agree (make the same queries
    of the rows); a disagreement raises a ValueError naming both sources and
    the fix. The sources, in order of precedence: the routed ``qid``, the
    routed ``groups``, each ``(owner, qid_column)`` of ``columns`` (such as
    the scorer's), and the ``qid_column`` of the GroupedRanker that
    ``estimator`` is, ends in or selected (:func:`scored_ranker`). The ids
    returned are those of the first source present, or with
    ``prefer_column`` of the first column (a GroupedRanker names its training
    queries by its own column, as it reads them again). ``(None, None)`` when
    there is none; the caller decides whether that is an error.
    """
    sources = list(query_id_sources(X, qid, groups, columns, estimator))
    for source in sources[1:]:
        check_agreement(who, sources[0], source)
    if not sources:
        return None, None
    in_columns = [source for source in sources if source.column is not None]
    chosen = in_columns[0] if prefer_column and in_columns else sources[0]
    return chosen.ids, in_columns[0].column if in_columns else None


class Source:
    """A source of query ids: its description in messages, the ids, and the column of ``X`` holding them (or None)."""

    def __init__(self, name, ids, column=None):
        self.name, self.ids, self.column = name, ids, column


def query_id_sources(X, qid, groups, columns, estimator):
    """Every source of query ids present, in order of precedence."""
    if qid is not None:
        yield Source("the routed qid", qid)
    if groups is not None:
        yield Source("the routed groups", groups)
    for owner, column in columns:
        if column is not None and X is not None:
            yield Source(f"qid_column={plain(column)!r} of {owner}", qid_column_values(X, column), column)
    found = scored_ranker(estimator) if estimator is not None else None
    if found is not None and found[0].qid_column is not None and X is not None:
        ranker, transform = found
        name = f"qid_column={plain(ranker.qid_column)!r} of the {type(ranker).__name__} scored"
        if transform is None:
            yield Source(name, qid_column_values(X, ranker.qid_column), ranker.qid_column)
        else:  # a column of what the pipeline's steps output, which is no column of X
            yield Source(name, transformed_column(transform, X, ranker.qid_column))


def transformed_column(transform, X, column):
    """The query ids in column ``column`` of ``transform(X)``, the input of a GroupedRanker that ends a pipeline."""
    try:
        return qid_column_values(transform(X), column)
    except (AttributeError, TypeError, ValueError) as error:
        raise ValueError(
            f"The GroupedRanker that ends the pipeline reads the query ids from its qid_column={plain(column)!r}, a "
            f"column of X after the pipeline's transformation, which could not be read ({error}). Name a column of "
            "what the steps before it output: a position, or a label of their get_feature_names_out() with "
            "set_output(transform='pandas'), such as 'remainder__qid' after a ColumnTransformer."
        ) from error


def check_agreement(who, first, other):
    """Raise unless the two sources group the rows into the same queries, with both named and the fix.

    Sources agree when they make the same queries of the rows, whatever the
    ids are called (a StandardScaler before a GroupedRanker rescales the ids
    of its column, but keeps the queries).
    """
    a, b = query_id_array(first.ids, name="qid"), query_id_array(other.ids, name="qid")
    if len(a) != len(b):
        detail = f"{first.name} has {len(a)} rows and {other.name} {len(b)}"
    else:
        split = first_split_row(encode_qid(a, len(a)), encode_qid(b, len(b)))
        if split is None:
            return
        earlier, row = split
        detail = (
            f"{first.name} gives rows {earlier} and {row} the ids {plain(a[earlier])!r} and {plain(a[row])!r}, "
            f"{other.name} {plain(b[earlier])!r} and {plain(b[row])!r}: one query by one, two by the other"
        )
    raise ValueError(
        f"{who} found two different query ids for the same rows: {first.name} and {other.name} disagree ({detail}). "
        f"Where query ids come from must never be ambiguous: {agreement_fix(first, other)}"
    )


def first_split_row(a, b):
    """The first row whose query the codes ``a`` and ``b`` draw differently, with an earlier row of one of them.

    None when they make the same queries. Each row is paired with the first
    row of its query by each grouping; where the two differ, the earlier of
    them shares the row's query by one grouping and not by the other.
    """
    first_a, first_b = first_row_of_query(a), first_row_of_query(b)
    split = np.flatnonzero(first_a != first_b)
    if split.size == 0:
        return None
    row = int(split[0])
    return int(min(first_a[row], first_b[row])), row


def first_row_of_query(codes):
    """For every row, the first row of its query."""
    _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    return first[inverse.reshape(-1)]


def agreement_fix(first, other):
    """How to make two sources of query ids agree, by the kinds of the two."""
    other_grouping = (
        "To split by another grouping than the queries (such as users), give the search the folds, "
        "cv=list(GroupKFold(5).split(X, y, groups=users)), and no groups=; or route the groups to the splitter "
        "alone: scorer.set_score_request(groups=False) and "
        "GroupedRanker(...).set_fit_request(groups=False).set_score_request(groups=False)."
    )
    if first.name == "the routed qid" and other.name == "the routed groups":
        return (
            "the scorers and GroupedRanker take both as query ids: pass one of them, or the same array as both. "
            + other_grouping
        )
    if first.name == "the routed groups":
        return (
            "with metadata routing on, groups= given to a search or cross-validation reaches the scorers and "
            "GroupedRanker as query ids, not only the splitter, and here the query ids sit in a column. "
            f"{other_grouping} To split by query, pass the query ids themselves as groups. If the column no longer "
            "holds the query ids because a feature selector (SequentialFeatureSelector, RFECV) passed on some "
            "columns of X, keep the query ids out of X: pass them as groups, and no qid_column."
        )
    if first.name == "the routed qid":
        return "pass as qid the query ids that the column holds, or pass no qid and let the column speak."
    return (
        "name the query id column once, in GroupedRanker(qid_column=...): the scorers read it from the "
        "GroupedRanker they score, so a scorer's own qid_column can be left out."
    )


def scored_ranker(estimator):
    """The GroupedRanker that ``estimator`` is, ends in or selected, and what turns ``X`` into that ranker's input.

    Followed through a Pipeline's final step (its input is the output of the
    steps before: the second element transforms ``X`` so) and a fitted
    search's ``best_estimator_`` (nested searches too), which receives ``X``
    as is (the second element is then None). None when there is no
    GroupedRanker there. The library's rankers that read query ids from a
    column (GroupedRanker, fusion's FusionRanker) say so by a class attribute,
    ``_query_ids_from_column``: this module sits below the modules that define
    them.
    """
    if isinstance(estimator, Pipeline):
        found = scored_ranker(estimator.steps[-1][1])
        if found is None or len(estimator.steps) == 1:
            return found
        ranker, transform = found
        steps = estimator[:-1]
        return ranker, steps.transform if transform is None else lambda X: transform(steps.transform(X))
    if getattr(type(estimator), "_query_ids_from_column", False):
        return estimator, None
    best = selected(estimator)
    return None if best is None else scored_ranker(best)


def selected(search):
    """The best estimator that a fitted search refitted, to which it passes its input (None for anything else)."""
    best = getattr(search, "best_estimator_", None)
    return None if best is search else best


def missing_qid_error(who, ranker=None):
    """The error for rows without query ids: what went wrong on this route, and the routes that work.

    ``ranker``: the class name of the ranker that ``who`` is (GroupedRanker,
    FusionRanker); None for a scorer, whose estimator may be any.
    """
    column = "qid_column=<the column of X that holds the query ids>"
    column_route = (
        f"give {ranker} {column} (the scorers read the column from the {ranker} they score)"
        if ranker
        else f"wrap the estimator as GroupedRanker(estimator, {column}), which drops the column before the estimator "
        "sees X and from which the scorers read it"
    )
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
