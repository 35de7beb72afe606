"""Each user's top k as exposure: which items it shows, and with what chance once ties are averaged.

The beyond-accuracy metrics of recommenders (novelty, diversity, popularity
bias, exposure fairness) are functions of the items each user's top k shows.
:func:`top_k_exposure` builds that once, with one sort for all users (the
:class:`~sklearn_rankmetrics._core._ranking.Ranking` machinery): one entry per
(user, item) that some ordering of the ties puts in the top k, with its
chance to be there. Without ties the chance is 1; in the tie block that
straddles rank k, with ``v`` of its ``m`` places above k, each item is shown
with chance ``v / m`` and two of its items together with chance
``v (v - 1) / (m (m - 1))``, over all orderings of the block. Every metric is
then arithmetic and segment sums over these entries.

Two layouts: a users x items score matrix (dense, or scipy sparse holding the
candidates' scores; column ``j`` is item ``j``), never unfolded into pairs, or
one row per (user, item) pair with ``item_id`` and ``qid``. ``-inf`` marks an
item not to recommend (already seen); a sparse matrix shows only its stored
entries.
"""

import numbers
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from sklearn.exceptions import UndefinedMetricWarning

from .._core._inputs import rank_queries
from .._core._query_ids import distinct_query_ids, query_id_array
from .._core._ranking import weighted_mean
from .._core._validation import (
    TIES,
    as_float_array,
    check_flag,
    check_k,
    check_labels,
    check_no_missing,
    check_option,
    check_scores,
    check_zero_division,
    plain,
)
from .._core._warnings import warn
from ._coverage import NOT_RECOMMENDABLE, dense_top_k, sparse_top_k


@dataclass
class Exposure:
    """The entries of every user's top k, in rank order user by user.

    Per entry: ``user`` (0..n_users-1), ``item`` (0..n_items-1, a column or
    an index into ``item_ids``), ``row`` (the input row of a pair, or the
    flat index ``user * n_items + item`` of a matrix entry), ``chance`` (of
    being in the top k), ``block`` (its tie block). Per block: ``size``,
    ``visible`` (its places above k) and ``first`` (0-based position of its
    first place). ``length``: each user's list length, min(k, its
    recommendable items). ``user_ids``: the users as ``np.unique(qid)`` shows
    them (None for a matrix: its rows); ``item_ids``: the catalogue (None for
    a matrix: its columns).
    """

    user: np.ndarray
    item: np.ndarray
    row: np.ndarray
    chance: np.ndarray
    block: np.ndarray
    size: np.ndarray
    visible: np.ndarray
    first: np.ndarray
    length: np.ndarray
    n_users: int
    n_items: int
    k: int
    user_ids: np.ndarray | None
    item_ids: np.ndarray | None

    def expected(self, weights):
        """Each entry's expected weight, for ``weights`` of the places 0..k-1: its block's mean over its places."""
        cumulative = np.concatenate(([0.0], np.cumsum(np.asarray(weights, dtype=np.float64))))
        last = len(weights)
        start = np.minimum(self.first, last)
        stop = np.minimum(self.first + self.size, last)
        return ((cumulative[stop] - cumulative[start]) / self.size)[self.block]

    def per_user(self, values):
        """Sum of entry ``values`` over each user's entries."""
        return np.bincount(self.user, weights=values, minlength=self.n_users)

    def per_item(self, values):
        """Sum of entry ``values`` over each item's entries (every item of the catalogue)."""
        return np.bincount(self.item, weights=values, minlength=self.n_items)


def top_k_exposure(y_score, *, item_id, qid, k, ties, catalog=None, who):
    """The :class:`Exposure` of every user's top ``k`` (``who``: the calling function, for errors)."""
    k = check_k(k, allow_none=False)
    ties = check_option("ties", ties, TIES)
    if item_id is None:
        items, scores, users, n_users, n_items = matrix_entries(y_score, k, qid=qid, catalog=catalog, who=who)
        rows, user_ids, item_ids = users.astype(np.int64) * n_items + items, None, None
    else:
        items, scores, users, rows, user_ids, item_ids = pair_entries(item_id, y_score, qid, catalog, who)
        n_users, n_items = len(user_ids), len(item_ids)
    if not len(scores):
        empty = np.zeros(0, dtype=np.intp)
        return Exposure(
            empty,
            empty,
            empty,
            np.zeros(0),
            empty,
            empty,
            np.zeros(0),
            empty,
            np.zeros(n_users),
            n_users,
            n_items,
            k,
            user_ids,
            item_ids,
        )
    ranking, order = rank_queries(
        np.zeros(len(scores)), scores, qid=users, ties="average" if ties == "average" else "stable", return_order=True
    )
    visible = ranking.visible(k)
    if ranking.has_ties:
        size, first = ranking.block_sizes, ranking.block_first
        block = np.repeat(np.arange(len(size)), size)
    else:
        size, first, block = np.ones(len(scores), dtype=np.intp), ranking.positions, np.arange(len(scores))
    chance = (visible / size)[block]
    shown = chance > 0
    # The blocks that reach rank k, renumbered over the entries kept.
    kept_blocks = np.flatnonzero(visible > 0)
    renumber = np.full(len(size), -1)
    renumber[kept_blocks] = np.arange(len(kept_blocks))
    users, items, rows = users[order][shown], items[order][shown], rows[order][shown]
    length = np.bincount(users, weights=chance[shown], minlength=n_users)
    return Exposure(
        users,
        items,
        rows,
        chance[shown],
        renumber[block[shown]],
        size[kept_blocks],
        visible[kept_blocks],
        first[kept_blocks],
        np.round(length),
        n_users,
        n_items,
        k,
        user_ids,
        item_ids,
    )


def matrix_entries(y_score, k, *, qid, catalog, who):
    """Item, score and user of the entries of a users x items matrix that some top k shows; its shape."""
    if y_score is None:
        raise ValueError(f"{who} needs y_score: a users x items score matrix, or 1-D scores with item_id and qid.")
    if qid is not None or catalog is not None:
        raise ValueError(
            "item_id is None, so y_score is a users x items matrix whose rows are the users and whose columns are "
            f"the catalogue: give qid=None and catalog=None (got {'qid' if qid is not None else 'catalog'}), or "
            "give item_id with one row per (user, item) pair."
        )
    if not sparse.issparse(y_score) and np.ndim(y_score) != 2:
        raise ValueError(
            "item_id is None, so y_score must be a users x items score matrix (2-D, dense or scipy sparse); got "
            f"shape {np.shape(y_score)}. For one row per (user, item) pair, give item_id and qid too."
        )
    if sparse.issparse(y_score):
        items, scores, users, n_items = sparse_top_k(y_score, k)
    else:
        items, scores, users, n_items = dense_top_k(y_score, k)
    return items, scores, users, (y_score.shape if sparse.issparse(y_score) else np.shape(y_score))[0], n_items


def pair_entries(item_id, y_score, qid, catalog, who):
    """The rows of (user, item) pairs that may be shown: item codes, scores, user codes and rows; users and items."""
    if sparse.issparse(y_score) or np.ndim(y_score) == 2:
        raise ValueError(
            "y_score is a users x items matrix, so item_id must be None (column j is item j); for one row per "
            f"(user, item) pair, give 1-D item_id, y_score and qid. Got y_score of shape {np.shape(y_score)}."
        )
    items = query_id_array(item_id, name="item_id", what="item")
    check_no_missing(items, "item_id", what="item")
    scores = as_float_array(y_score, "y_score")
    users = np.zeros(len(items), dtype=np.intp) if qid is None else query_id_array(qid)
    if qid is not None:
        check_no_missing(users, "qid")
    lengths = {"item_id": len(items), "y_score": len(scores), "qid": None if qid is None else len(users)}
    if len({length for length in lengths.values() if length is not None}) > 1:
        described = ", ".join(f"{name} has {length}" for name, length in lengths.items() if length is not None)
        raise ValueError(
            f"{who} got inconsistent numbers of rows: {described}. Give one item id, one score and one user id "
            "(qid) per (user, item) pair."
        )
    check_scores(scores, minus_inf=NOT_RECOMMENDABLE)
    user_ids = distinct_query_ids(qid) if qid is not None else np.zeros(1, dtype=np.intp)
    user_codes = np.zeros(len(items), dtype=np.intp) if qid is None else codes_of(users, user_ids, "qid")
    item_ids = distinct_query_ids(items if catalog is None else query_id_array(catalog, name="catalog", what="item"))
    item_codes = codes_of(items, item_ids, "item_id", catalog=catalog is not None)
    shown = scores > -np.inf
    rows = np.flatnonzero(shown)
    return item_codes[shown], scores[shown], user_codes[shown], rows, user_ids, item_ids


def codes_of(values, distinct, name, *, catalog=False):
    """The index of each value among the sorted ``distinct`` ids (every value must be one of them)."""
    if distinct.dtype == object or values.dtype == object:
        lookup = {value: code for code, value in enumerate(distinct.tolist())}
        missing = [value for value in values.tolist() if value not in lookup]
        if missing:
            raise ValueError(
                f"{name} holds {plain(missing[0])!r}, which is not in the catalog; give a catalog that holds every "
                "item, or catalog=None to use the items given."
            )
        return np.fromiter((lookup[value] for value in values.tolist()), dtype=np.intp, count=len(values))
    codes = np.searchsorted(distinct, values)
    outside = (codes >= len(distinct)) | (distinct[np.minimum(codes, len(distinct) - 1)] != values)
    if outside.any():
        raise ValueError(
            f"{name} holds {plain(values[outside][0])!r}, which is not in the catalog; give a catalog that holds "
            "every item, or catalog=None to use the items given."
            if catalog
            else f"{name} holds {plain(values[outside][0])!r}, which is not among the ids given."
        )
    return codes


def item_values(values, exposure, name, *, needed=None, ndim=1):
    """A per-item input (``item_popularity``, ``item_features``...) as an array with one row per item code.

    ``values`` is indexed by item: column ``j`` of a matrix, item id ``j``
    when the pairs' ids are 0..n_items-1, or a mapping from item id to value.
    Items with no value are NaN rows; it is an error only for the items in
    ``needed`` (codes), those some top k shows.
    """
    n_items, ids = exposure.n_items, exposure.item_ids
    shape = (n_items,) if ndim == 1 else (n_items, -1)
    if isinstance(values, dict) or (hasattr(values, "keys") and hasattr(values, "__getitem__") and ndim == 1):
        table = mapping_values(values, exposure, name, ndim)
    else:
        if isinstance(values, str) or values is None:
            raise TypeError(f"{name} must be an array-like with one value per item, or a mapping; got {values!r}.")
        table = np.asarray(values.toarray() if sparse.issparse(values) else values)
        if ndim == 1 or table.dtype.kind not in "biuf":  # features keep their type (booleans for jaccard)
            table = table.astype(np.float64)
        if table.ndim != ndim:
            raise ValueError(
                f"{name} must be {ndim}-D with one {'value' if ndim == 1 else 'row'} per item; got shape {table.shape}."
            )
        table = reindexed(table, ids, n_items, name)
    table = table.reshape(shape)
    if needed is not None and len(needed) and table.dtype.kind == "f":
        missing = np.isnan(table[needed]).reshape(len(needed), -1).any(axis=1)
        if missing.any():
            item = needed[missing][0]
            shown = plain(item) if ids is None else plain(ids[item])
            raise ValueError(
                f"{name} has no value for item {shown!r}, which some user's top k shows (NaN, or missing from the "
                f"mapping); give every shown item a value."
            )
    return table


def reindexed(table, ids, n_items, name):
    """The rows of an array indexed by item id (0..len-1) in the order of the item codes."""
    if ids is None:  # a matrix: one row per column
        if len(table) != n_items:
            raise ValueError(
                f"{name} has {len(table)} values, but y_score has {n_items} items (columns); give one per column."
            )
        return table
    if ids.dtype.kind not in "iu" or (len(ids) and (ids.min() < 0 or ids.max() >= len(table))):
        raise ValueError(
            f"{name} is an array, indexed by item id, so the item ids must be integers 0..{len(table) - 1}; got ids "
            f"such as {plain(ids[0])!r}. Pass a mapping from item id to value instead."
        )
    return table[ids]


def mapping_values(values, exposure, name, ndim):
    """The values of a mapping from item id (a column for a matrix) to value, NaN where it has none."""
    ids = range(exposure.n_items) if exposure.item_ids is None else exposure.item_ids.tolist()
    rows = [values.get(item, None) if hasattr(values, "get") else values[item] for item in ids]
    width = next((np.size(row) for row in rows if row is not None), 1)
    table = np.full((len(rows), width), np.nan)
    for index, row in enumerate(rows):
        if row is not None:
            table[index] = np.asarray(row, dtype=np.float64).reshape(-1)
    return table if ndim == 2 else table[:, 0]


def per_user_result(values, defined, *, exposure, average, zero_division, undefined_reason):
    """Each user's value (``zero_division`` where undefined), or their mean over the users that enter it.

    With ``zero_division=np.nan`` (the default) undefined users are left out
    of the mean; a warning says how many, since the mean then speaks for the
    others only.
    """
    check_flag("average", average)
    zero_division = check_zero_division(zero_division)
    values = np.where(defined, values, zero_division)
    if not average:
        return values
    kept = ~np.isnan(values)
    if not kept.any():
        warn(
            f"Every user is undefined ({undefined_reason}), so the mean is nan. Pass zero_division=0.0 to score "
            "such users.",
            UndefinedMetricWarning,
        )
        return float("nan")
    if np.isnan(zero_division) and not kept.all():
        warn(
            f"{np.count_nonzero(~kept)} of {len(values)} users are undefined ({undefined_reason}) and left out of "
            "the mean. Pass zero_division=0.0 to count them as 0, or average=False to see each user's value.",
            UndefinedMetricWarning,
        )
    return weighted_mean(values[kept])


def check_positive_integer(name, value):
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1; got {plain(value)!r}.")
    return int(value)


# ---- shared by the metrics of the lists: docstring parts and the mean over users ----

LAYOUT = """y_score : array-like of shape (n_users, n_items) or (n_samples,), or sparse matrix
        Predicted scores: a users x items matrix (column ``j`` is item ``j``),
        dense or scipy sparse, or with ``item_id`` one score per (user, item)
        pair. A higher score ranks higher; ``-inf`` marks an item not to
        recommend (already seen), never shown. In a sparse matrix only the
        stored entries are candidates (store an explicit 0 for a candidate
        scored 0). NaN and ``+inf`` are errors.
    item_id : array-like of shape (n_samples,), default=None
        The item of each (user, item) pair, of any comparable type; None:
        ``y_score`` is a users x items matrix.
    qid : array-like of shape (n_samples,), default=None
        The user of each pair (None: a single user); None for a matrix."""


K = """k : int, default=10
        The length of each user's list, an integer >= 1. A user with fewer
        recommendable items shows them all."""


TIES_DOC = """ties : {"average", "pessimistic", "optimistic", "stable"}, default="average"
        Order of items with equal scores: ``"average"``, the exact expected
        value over all orderings of each user's ties (an item of the tie
        block straddling rank k, with ``v`` of its ``m`` places above k, is
        shown with chance ``v / m``); the others, input order (column order
        for a matrix, row order for pairs)."""


AVERAGE = """average : bool, default=True
        Return the mean over users; False: one value per user (the rows of a
        matrix, or the users as ``np.unique(qid)`` orders them)."""


ZERO_DIVISION = """zero_division : {np.nan, 0.0, 1.0}, default=np.nan
        Value of a user for whom the metric is undefined (%s); nan leaves
        the user out of the mean, with a warning that says how many."""


PER_ITEM = """Indexed by item: column ``j`` of a matrix, item id ``j`` when the
        pairs' ids are the integers 0..n_items-1, or a mapping from item id
        to value (only the items that some top k shows need one)."""


CATALOG = """catalog : array-like, default=None
        With ``item_id``: the ids of every item of the catalogue, so that items
        no user was scored on count as never shown. None: the items given
        (the columns of a matrix)."""


def fill(**extra):
    """Fill ``%(name)s`` in the docstring with the shared descriptions (``extra``: the zero_division case)."""

    def decorate(function):
        parts = {
            "layout": LAYOUT,
            "k": K,
            "ties": TIES_DOC,
            "average": AVERAGE,
            "per_item": PER_ITEM,
            "catalog": CATALOG,
        }
        parts["zero_division"] = ZERO_DIVISION % extra.get("undefined", "")
        function.__doc__ = function.__doc__ % parts
        return function

    return decorate


def no_exposure(who):
    warn(
        f"No user shows any item (every score is -inf, or nothing is stored), so {who} is nan.", UndefinedMetricWarning
    )
    return float("nan")


def list_mean(exposure, values, *, average, zero_division):
    """Each user's mean of entry ``values`` over its top k (expected, with ties), or the mean over users."""
    sums = exposure.per_user(exposure.chance * values)
    length = exposure.length
    means = np.divide(sums, length, out=np.zeros(exposure.n_users), where=length > 0)
    return per_user_result(
        means,
        length > 0,
        exposure=exposure,
        average=average,
        zero_division=zero_division,
        undefined_reason="no item to recommend: every score -inf",
    )


def matrix_shape(y_score):
    return y_score.shape if sparse.issparse(y_score) else np.shape(y_score)


def labels_at(y_true, exposure, item_id, shape):
    """The label of each entry of ``exposure``, from ``y_true`` in the layout of the scores."""
    if item_id is None:
        if sparse.issparse(y_true):
            labels = sparse.csr_array(y_true)
            if labels.shape != tuple(shape):
                raise ValueError(f"y_true must have the shape of y_score, {tuple(shape)}; got {labels.shape}.")
            values = np.asarray(labels[exposure.user, exposure.item], dtype=np.float64).reshape(-1)
            check_labels(np.concatenate((np.asarray(labels.data, dtype=np.float64), [0.0])))
            return values
        labels = np.asarray(y_true, dtype=np.float64)
        if labels.shape != tuple(shape):
            raise ValueError(f"y_true must have the shape of y_score, {tuple(shape)}; got {labels.shape}.")
        check_labels(labels)
        return labels[exposure.user, exposure.item]
    labels = np.asarray(y_true, dtype=np.float64)
    if labels.ndim != 1:
        raise ValueError(f"y_true must be 1-D with one label per (user, item) pair; got shape {labels.shape}.")
    check_labels(labels)
    return labels[exposure.row]


def lookup(keys, values, wanted, default=0.0):
    """The value of each ``wanted`` key among ``keys`` (distinct), ``default`` where it is absent."""
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    places = np.minimum(np.searchsorted(sorted_keys, wanted), max(len(keys) - 1, 0))
    found = sorted_keys[places] == wanted if len(keys) else np.zeros(len(wanted), dtype=bool)
    result = np.full(len(wanted), default, dtype=np.float64)
    result[found] = values[order[places[found]]]
    return result
