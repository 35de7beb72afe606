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

from .._core._inputs import rank_queries
from .._core._query_ids import distinct_query_ids, query_id_array
from .._core._validation import (
    TIES,
    as_float_array,
    check_k,
    check_no_missing,
    check_option,
    check_scores,
    plain,
)
from ._top_k import NOT_RECOMMENDABLE, split_lowest, top_k_entries


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
    a matrix: its columns). ``n_rows``: the input's rows (pairs), or None
    for a matrix.
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
    n_rows: int | None = None

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

    def shown_items(self):
        """The items (codes) that some top k shows, in increasing order."""
        return np.flatnonzero(np.bincount(self.item, minlength=self.n_items))

    def item_name(self, code):
        """An item as the input names it: its column, or its id."""
        return plain(code) if self.item_ids is None else plain(self.item_ids[code])


# No list is longer than this: a larger k (2**63, say) is the same cutoff, and it stays within int64.
LONGEST_LIST = 2**62


def top_k_exposure(y_score, *, item_id, qid, k, ties, catalog=None, who, name="y_score"):
    """The :class:`Exposure` of every user's top ``k`` (``who``: the calling function; ``name``: the scores).

    The exposure keeps ``k`` as given; every list is cut at ``min(k, LONGEST_LIST)``, the same lists.
    """
    k = check_k(k, allow_none=False)
    ties = check_option("ties", ties, TIES)
    exposure = exposure_to_depth(y_score, item_id, qid, min(k, LONGEST_LIST), ties, catalog, who, name)
    exposure.k = k
    return exposure


def exposure_to_depth(y_score, item_id, qid, k, ties, catalog, who, name):
    """:func:`top_k_exposure` with ``k`` at most LONGEST_LIST."""
    if item_id is None:
        above, above_scores, low, shape = matrix_top_k(y_score, k, qid=qid, catalog=catalog, who=who, name=name)
        return lowest_block_exposure(above, above_scores, low, shape, k, ties)
    items, scores, users, rows, user_ids, item_ids, n_rows = pair_entries(item_id, y_score, qid, catalog, who, name)
    n_users, n_items = len(user_ids), len(item_ids)
    if not len(scores):
        empty, nothing = np.zeros(0, dtype=np.intp), np.zeros(0)
        no_list = np.zeros(n_users)
        return Exposure(empty, empty, empty, nothing, empty, empty, nothing, empty, no_list, n_users, n_items, k,
                        user_ids, item_ids, n_rows)  # fmt: skip
    ranking, order = rank_queries(np.zeros(len(scores)), scores, qid=users, ties=TIE_RULE[ties], return_order=True)
    visible = ranking.visible(min(k, n_items))  # no user has more items (and the positions' integers hold it)
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
        n_rows,
    )


# Items without labels: "pessimistic" and "optimistic" are input order, like "stable".
TIE_RULE = {"average": "average", "pessimistic": "stable", "optimistic": "stable", "stable": "stable"}


def lowest_block_exposure(above, above_scores, low, shape, k, ties):
    """The :class:`Exposure` of a matrix from each user's entries in its top k, by flat index ``user * n_items + item``.

    ``low``: the entries of each user's lowest block there (its k-th score),
    the only block that rank k can cut; ``above`` (with their scores): the
    entries above it, fewer than k per user and all shown, so that only
    they are sorted. A fully tied row is one block, read in linear time:
    its m items each shown with chance v / m, no sort of the m entries.
    """
    n_users, n_items = shape
    places = min(k, n_items)  # a list never holds more (and numpy's integers hold any k so bounded)
    above_users = above // n_items
    ranked = ranked_above(above, above_scores, above_users, ties)
    n_above = np.bincount(above_users, minlength=n_users)
    # Each user's lowest block: m entries, v = min(k - above, m) places within k (user by user: repeats, no gathers).
    low_user, low_item = np.divmod(low, n_items)
    m = np.bincount(low_user, minlength=n_users)
    v = np.minimum(places - n_above, m)
    first_block = len(ranked.size)
    members = np.flatnonzero(m > 0)
    if ties == "average":
        low_block = np.repeat(first_block + np.arange(len(members)), m[members])  # one block per user
        low_size, low_visible, low_first = m[members], v[members], n_above[members]
        low_chance = np.repeat(v[members] / m[members], m[members])
    else:  # input order: the first v of the block are shown, one place each
        within = np.arange(len(low_user)) - np.repeat(np.cumsum(m)[members] - m[members], m[members])
        keep = np.flatnonzero(within < np.repeat(v[members], m[members]))
        low, low_user, low_item, within = low[keep], low_user[keep], low_item[keep], within[keep]
        low_block = first_block + np.arange(len(keep))
        low_size = low_visible = np.ones(len(keep), dtype=np.intp)
        low_first = n_above[low_user] + within
        low_chance = np.ones(len(keep))
    entries, block, chance, users, items = low, low_block, low_chance, low_user, low_item
    if len(ranked.entries):  # user by user: its entries above in rank order, then its lowest block
        n_low = np.bincount(low_user, minlength=n_users)
        offset = np.cumsum(n_above + n_low) - (n_above + n_low)  # each user's first entry
        ranked_user = ranked.entries // n_items
        position = np.arange(len(ranked_user)) - (np.cumsum(n_above) - n_above)[ranked_user]
        low_position = np.arange(len(low_user)) - (np.cumsum(n_low) - n_low)[low_user]
        destination = np.concatenate((offset[ranked_user] + position, (offset + n_above)[low_user] + low_position))
        entries, block, chance = (np.empty(len(destination), dtype=dtype) for dtype in (np.int64, np.intp, np.float64))
        entries[destination] = np.concatenate((ranked.entries, low))
        block[destination] = np.concatenate((ranked.block, low_block))
        chance[destination] = np.concatenate((np.ones(len(ranked.entries)), low_chance))
        users, items = np.divmod(entries, n_items)
    return Exposure(
        users,
        items,
        entries,
        chance,
        block,
        np.concatenate((ranked.size, low_size)),
        np.concatenate((ranked.size, low_visible)).astype(np.float64),
        np.concatenate((ranked.first, low_first)),
        (n_above + v).astype(np.float64),
        n_users,
        n_items,
        k,
        None,
        None,
    )


@dataclass
class Above:
    """The entries above their user's lowest block, in rank order, and their tie blocks (size, first place)."""

    entries: np.ndarray
    block: np.ndarray
    size: np.ndarray
    first: np.ndarray


def ranked_above(above, scores, users, ties):
    """:class:`Above`: the entries ``above`` (flat indices, with their ``scores`` and ``users``), ranked per user."""
    if not len(above):
        empty = np.zeros(0, dtype=np.intp)
        return Above(above, empty, empty, empty)
    ranking, order = rank_queries(np.zeros(len(above)), scores, qid=users, ties=TIE_RULE[ties], return_order=True)
    if ranking.has_ties:
        size, first = ranking.block_sizes, ranking.block_first
    else:
        size, first = np.ones(len(above), dtype=np.intp), ranking.positions
    return Above(above[order], np.repeat(np.arange(len(size)), size), size, first)


def matrix_top_k(y_score, k, *, qid, catalog, who, name="y_score"):
    """The entries of a users x items matrix in its users' top k, by flat index ``user * n_items + item``.

    Returns the entries above each user's lowest block there, their scores,
    the entries of that block (its k-th score), and the matrix's shape.
    Entries scored ``-inf`` (or not stored, in a sparse matrix) are never
    shown (:func:`~._top_k.top_k_entries`).
    """
    check_matrix_layout(y_score, qid=qid, catalog=catalog, who=who, name=name)
    flat, scores, shape = top_k_entries(y_score, k, name=name)
    return (*split_lowest(flat, scores, shape), shape)


def check_matrix_layout(y_score, *, qid, catalog, who, name="y_score"):
    """Refuse what a users x items matrix cannot come with: no scores, a qid or a catalog, or a shape not 2-D."""
    if y_score is None:
        raise ValueError(f"{who} needs {name}: a users x items score matrix, or 1-D scores with item_id and qid.")
    if qid is not None or catalog is not None:
        raise ValueError(
            f"item_id is None, so {name} is a users x items matrix whose rows are the users and whose columns are "
            f"the catalogue: give qid=None and catalog=None (got {'qid' if qid is not None else 'catalog'}), or "
            "give item_id with one row per (user, item) pair."
        )
    if not sparse.issparse(y_score) and np.ndim(y_score) != 2:
        raise ValueError(
            f"item_id is None, so {name} must be a users x items score matrix (2-D, dense or scipy sparse); got "
            f"shape {np.shape(y_score)}. For one row per (user, item) pair, give item_id and qid too."
        )


def pair_entries(item_id, y_score, qid, catalog, who, name="y_score"):
    """The pairs that may be shown (item codes, scores, user codes, rows); the users, items and number of rows."""
    if sparse.issparse(y_score) or np.ndim(y_score) == 2:
        raise ValueError(
            f"{name} is a users x items matrix, so item_id must be None (column j is item j); for one row per "
            f"(user, item) pair, give 1-D item_id, {name} and qid. Got {name} of shape {np.shape(y_score)}."
        )
    items = query_id_array(item_id, name="item_id", what="item")
    check_no_missing(items, "item_id", what="item")
    scores = as_float_array(y_score, name)
    users = np.zeros(len(items), dtype=np.intp) if qid is None else query_id_array(qid)
    if qid is not None:
        check_no_missing(users, "qid")
    lengths = {"item_id": len(items), name: len(scores), "qid": None if qid is None else len(users)}
    if len({length for length in lengths.values() if length is not None}) > 1:
        described = ", ".join(f"{key} has {length}" for key, length in lengths.items() if length is not None)
        raise ValueError(
            f"{who} got inconsistent numbers of rows: {described}. Give one item id, one score and one user id "
            "(qid) per (user, item) pair."
        )
    check_scores(scores, name, minus_inf=NOT_RECOMMENDABLE)
    user_ids = distinct_query_ids(qid) if qid is not None else np.zeros(1, dtype=np.intp)
    user_codes = np.zeros(len(items), dtype=np.intp) if qid is None else codes_of(users, user_ids, "qid")
    item_ids = distinct_query_ids(items if catalog is None else query_id_array(catalog, name="catalog", what="item"))
    item_codes = codes_of(items, item_ids, "item_id", catalog=catalog is not None)
    check_distinct_pairs(user_codes, item_codes, user_ids, item_ids, qid is not None)
    shown = scores > -np.inf
    rows = np.flatnonzero(shown)
    return item_codes[shown], scores[shown], user_codes[shown], rows, user_ids, item_ids, len(items)


def check_distinct_pairs(user_codes, item_codes, user_ids, item_ids, has_qid):
    """Refuse a (user, item) pair given twice: it would be one item listed twice, or two scores for one."""
    keys = user_codes.astype(np.int64) * len(item_ids) + item_codes
    order = np.argsort(keys, kind="stable")
    repeated = np.flatnonzero(keys[order][1:] == keys[order][:-1])
    if len(repeated):
        first, second = sorted(order[repeated[0] : repeated[0] + 2].tolist())
        user = f"user (qid) {plain(user_ids[user_codes[first]])!r} and " if has_qid else ""
        raise ValueError(
            f"{user}item {plain(item_ids[item_codes[first]])!r} appear in rows {first} and {second}: each "
            "(user, item) pair must be given once, with one score. Drop or merge the repeated rows."
        )


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


def is_mapping(values, ndim=1):
    """A dict, or a mapping-like of one value per item (a pandas Series; a DataFrame of features is a table)."""
    return isinstance(values, dict) or (ndim == 1 and hasattr(values, "keys") and hasattr(values, "__getitem__"))


class PerItem:
    """A per-item input (``item_popularity``, ``item_features``...) as given, and its rows for the items of a ranking.

    ``values`` is indexed by item: column ``j`` of a matrix, item id ``j``
    when the pairs' ids are 0..n_items-1, or a mapping from item id to value.
    ``table`` holds every value given (an array: all of it; a mapping: all
    its values), so that a statistic of the whole input (the short head of
    the popularity) does not depend on which items a ranking holds; ``keys``
    are a mapping's keys (None for an array).
    """

    def __init__(self, values, name, *, ndim=1, numeric=True):
        self.name, self.ndim, self.numeric = name, ndim, numeric
        if is_mapping(values, ndim):
            self.keys = list(values.keys())
            if not numeric:  # labels of any type, one per key
                self.table = np.empty(len(self.keys), dtype=object)
                self.table[:] = [values[key] for key in self.keys]
                return
            rows = [np.asarray(values[key]).reshape(-1) for key in self.keys]
            width = {len(row) for row in rows}
            if len(width) > 1 or (ndim == 1 and width - {1}):
                raise ValueError(
                    f"{name} maps each item to {'one value' if ndim == 1 else 'a row of the same length'}; got "
                    f"{'rows of lengths ' + str(sorted(width)) if ndim == 2 else 'several values for an item'}."
                )
            self.table = self.numbers(np.stack(rows) if rows else np.zeros((0, 1)))
            self.table = self.table[:, 0] if ndim == 1 else self.table
            return
        if isinstance(values, str) or values is None:
            raise TypeError(f"{name} must be an array-like with one value per item, or a mapping; got {values!r}.")
        self.keys = None
        self.table = self.numbers(values.toarray() if sparse.issparse(values) else values)
        if self.table.ndim != ndim:
            raise ValueError(
                f"{name} must be {ndim}-D with one {'value' if ndim == 1 else 'row'} per item; got shape "
                f"{self.table.shape}."
            )

    def numbers(self, values):
        table = np.asarray(values)
        if not self.numeric or (self.ndim == 2 and table.dtype.kind in "biuf"):  # features keep their type (jaccard)
            return table
        try:
            return table.astype(np.float64)
        except (TypeError, ValueError) as error:
            raise TypeError(f"{self.name} must hold numbers; got {table.dtype} values ({error}).") from error

    def places(self, n_items, item_ids, matrix="y_score"):
        """The row of ``table`` of each item (code 0..n_items-1), -1 where the input has none (``matrix``: its name)."""
        columns = item_ids is None
        if self.keys is not None:
            if columns:
                outside = [key for key in self.keys if not is_column(key, n_items)]
                if outside:
                    raise ValueError(
                        f"{self.name} has the key {plain(outside[0])!r}, but the items of a users x items matrix are "
                        f"its columns 0..{n_items - 1}; key the mapping by column."
                    )
            where = {key: place for place, key in enumerate(self.keys)}
            ids = range(n_items) if columns else item_ids.tolist()
            return np.fromiter((where.get(item, -1) for item in ids), dtype=np.intp, count=n_items)
        if columns:
            if len(self.table) != n_items:
                raise ValueError(
                    f"{self.name} has {len(self.table)} values, but {matrix} has {n_items} items (columns); give one "
                    "per column."
                )
            return np.arange(n_items)
        if item_ids.dtype.kind not in "iu":
            raise ValueError(
                f"{self.name} is an array, indexed by item id, but item_id holds {plain(item_ids[0])!r}, not an "
                f"integer 0..{len(self.table) - 1}. Pass a mapping from item id to value instead."
            )
        outside = item_ids[(item_ids < 0) | (item_ids >= len(self.table))]
        if len(outside):
            raise ValueError(
                f"{self.name} is an array with {len(self.table)} values, indexed by item id 0..{len(self.table) - 1}, "
                f"but item_id holds {plain(outside[0])!r}. Give a value for every item id, or a mapping from item id "
                "to value."
            )
        return item_ids.astype(np.intp)

    def at(self, n_items, item_ids, *, needed=None, needed_as="which some user's top k shows", matrix="y_score"):
        """One row per item code (NaN where there is no value); an error for a ``needed`` item without one."""
        places = self.places(n_items, item_ids, matrix)
        if (places >= 0).all():
            rows = self.table[places]
        else:
            rows = np.full((n_items, *self.table.shape[1:]), np.nan)
            rows[places >= 0] = self.table[places[places >= 0]]
        if needed is not None and len(needed) and rows.dtype.kind == "f":
            missing = np.isnan(rows[needed]).reshape(len(needed), -1).any(axis=1)
            if missing.any():
                item = needed[missing][0]
                shown = plain(item) if item_ids is None else plain(item_ids[item])
                raise ValueError(
                    f"{self.name} has no value for item {shown!r}, {needed_as} (NaN, or missing from the mapping); "
                    "give it a value."
                )
        return rows


def is_column(key, n_items):
    return isinstance(key, numbers.Integral) and not isinstance(key, bool | np.bool_) and 0 <= key < n_items


def item_values(values, exposure, name, *, needed=None, ndim=1):
    """A per-item input as an array with one row per item code of ``exposure`` (see :class:`PerItem`)."""
    return PerItem(values, name, ndim=ndim).at(exposure.n_items, exposure.item_ids, needed=needed)


def check_mask(values, name):
    """A mask as booleans: bool, or numbers that are all 0 or 1 (any other value is an error naming ``name``)."""
    mask = np.asarray(values)
    if mask.dtype == bool:
        return mask
    if mask.dtype.kind in "iuf":
        bad = mask[(mask != 0) & (mask != 1)]
        if not len(bad):
            return mask.astype(bool)
        got = f"the value {plain(bad.ravel()[0])!r}"
    else:
        got = f"{mask.dtype} values such as {plain(mask.ravel()[0])!r}" if mask.size else f"dtype {mask.dtype}"
    raise ValueError(f"{name} must be a boolean mask (True/False, or 0/1); got {got}.")
