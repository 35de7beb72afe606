"""Catalogue coverage: how much of the catalogue the top k of all queries (users) show."""

import numpy as np
from scipy import sparse

from .._core._array_api import array_api_support
from .._core._inputs import rank_queries
from .._core._numpy_ops import padded_segments
from .._core._query_ids import distinct_query_ids, query_id_array
from .._core._sparse import canonical_csr
from .._core._validation import as_float_array, check_k, check_no_missing, check_option, check_scores


@array_api_support
def catalog_coverage(item_id=None, y_score=None, *, qid=None, k=10, catalog=None, ties="average"):
    """Catalogue coverage at k: the share of the catalogue's items that some query shows in its top k.

    Two layouts: one row per (query, item) pair (``item_id``, ``y_score`` and
    ``qid``, each 1-D), or a users x items score matrix (``y_score`` only,
    dense or scipy sparse; column ``j`` is item ``j``), which is never
    unfolded into pairs: only each user's top k is extracted from it.

    Parameters
    ----------
    item_id : array-like of shape (n_samples,), default=None
        The item (document) of each row, of any comparable type. None:
        ``y_score`` is a users x items matrix.
    y_score : array-like of shape (n_samples,) or (n_users, n_items), or sparse matrix
        Predicted scores; a higher score ranks higher, and ``-inf`` marks an
        item not recommended (already seen, filtered out): it is never shown.
        A 2-D ``y_score`` (with ``item_id``, ``qid`` and ``catalog`` None)
        holds one user per row and one item per column, and its columns are
        the catalogue. In a scipy sparse matrix only the stored entries are
        candidates: an entry not stored is never shown, as if it were
        ``-inf`` (so store an explicit 0 for a candidate scored 0).
    qid : array-like of shape (n_samples,), default=None
        Query (user) of each row; None: a single query, or one per row of a
        score matrix.
    k : int, default=10
        How many items each query shows, an integer >= 1 (not None: coverage
        counts the items of each query's top k).
    catalog : array-like, default=None
        The ids of every item of the catalogue. None: the distinct items of
        ``item_id``, or the columns of a score matrix. Every item of
        ``item_id`` must belong to it.
    ties : {"average", "pessimistic", "optimistic", "stable"}, default="average"
        Order of items with equal scores: ``"average"`` gives the expected
        coverage over all orderings of each query's ties; the others put the
        tied items in label-free input order (``"stable"``; ``"pessimistic"``
        and ``"optimistic"`` are the same here, as items have no labels):
        row order for pairs, column order for a score matrix.

    Returns
    -------
    coverage : float
        The share of the catalogue in at least one top k, in [0, 1].

    See Also
    --------
    hit_rate_score : Whether each query's top k holds a relevant item.

    Notes
    -----
    With ties averaged, an item in a tie block of :math:`m` items of which
    :math:`v` fit in the top k is shown with probability :math:`v/m`, and
    orderings of different queries are independent, so the item is shown
    somewhere with probability :math:`1 - \\prod_q (1 - p_q)`; coverage is
    the mean of that probability over the catalogue. A score matrix gives
    the same value as its pairs (``item_id = np.tile(np.arange(n_items),
    n_users)``, ``qid = np.repeat(np.arange(n_users), n_items)`` and the
    raveled scores, with ``-inf`` for the entries a sparse matrix does not
    store), from each row's k largest scores and their tie block only.

    Examples
    --------
    >>> from sklearn_rankmetrics import catalog_coverage
    >>> item_id = ["a", "b", "c", "a", "b", "c"]
    >>> y_score = [3, 2, 1, 1, 3, 2]
    >>> catalog_coverage(item_id, y_score, qid=[1, 1, 1, 2, 2, 2], k=1, catalog=["a", "b", "c", "d"])
    0.5

    The same scores as a users x items matrix, with a fourth item no user
    scored above the others:

    >>> catalog_coverage(y_score=[[3, 2, 1, 0], [1, 3, 2, 0]], k=1)
    0.5
    """
    k = check_k(k, allow_none=False)  # coverage counts the items of each query's top k
    ties = check_option("ties", ties, ("average", "pessimistic", "optimistic", "stable"))
    if item_id is None:
        items, y_score, qid, catalog = top_k_entries(y_score, k, qid=qid, catalog=catalog)
        if not len(items):
            return 0.0  # no user has an item to recommend
    else:
        if sparse.issparse(y_score) or np.ndim(y_score) == 2:
            raise ValueError(
                "y_score is a users x items matrix, so item_id must be None (column j is item j); for one row "
                f"per (user, item) pair, give 1-D item_id, y_score and qid. Got y_score of shape {np.shape(y_score)}."
            )
        items, y_score = check_pairs(item_id, y_score, qid)
    ranking, order = rank_queries(
        np.zeros(len(items)), y_score, qid=qid, ties="average" if ties == "average" else "stable", return_order=True
    )
    # Each row's chance to be shown: its block's share of places within k (1 or 0 without ties).
    visible = ranking.visible(k)
    chance = np.repeat(visible / ranking.block_sizes, ranking.block_sizes) if ranking.has_ties else visible
    chance = ranking.shown(chance)  # never an item that is not recommended
    universe = distinct_query_ids(items if catalog is None else query_id_array(catalog, name="catalog", what="item"))
    codes = np.searchsorted(universe, items[order])
    outside = (codes >= len(universe)) | (universe[np.minimum(codes, len(universe) - 1)] != items[order])
    if outside.any():
        raise ValueError(
            f"item_id holds {items[order][outside][:1].tolist()[0]!r}, which is not in the catalog; give a catalog "
            "that holds every item, or catalog=None to use the items given."
        )
    with np.errstate(divide="ignore"):
        never = np.exp(np.bincount(codes, weights=np.log1p(-chance), minlength=len(universe)))
    return float(np.sum(1.0 - never) / len(universe))


# -inf in y_score marks an item that may not be shown to that query (user).
NOT_RECOMMENDABLE = "an item not to recommend (already seen, filtered out)"


def check_pairs(item_id, y_score, qid):
    """The items and the scores of the (query, item) pairs, checked in catalog_coverage's own terms."""
    items = query_id_array(item_id, name="item_id", what="item")
    check_no_missing(items, "item_id", what="item")
    y_score = as_float_array(y_score, "y_score")
    lengths = {"item_id": len(items), "y_score": len(y_score), "qid": None if qid is None else len(qid)}
    if len({length for length in lengths.values() if length is not None}) > 1:
        described = ", ".join(f"{name} has {length}" for name, length in lengths.items() if length is not None)
        raise ValueError(
            f"catalog_coverage got inconsistent numbers of rows: {described}. Give one item id, one score and one "
            "query id per (query, item) pair."
        )
    check_scores(y_score, minus_inf=NOT_RECOMMENDABLE)
    return items, y_score


def top_k_entries(y_score, k, *, qid, catalog):
    """The entries of a users x items score matrix that some top k can show, as pairs.

    Returns the item (column), score and user (row) of each entry, row by row
    in column order (the input order that ``ties="stable"`` follows), and the
    catalogue, every column. An entry scored below the k-th largest score of
    its row sits below rank k, in no tie block that reaches it, and an entry
    scored ``-inf`` (or not stored in a sparse matrix) is never shown: leaving
    them out changes no item's chance, and leaves about k entries per user.
    """
    if y_score is None:
        raise ValueError(
            "catalog_coverage needs y_score: a users x items score matrix, or 1-D scores with item_id and qid."
        )
    if qid is not None or catalog is not None:
        raise ValueError(
            "item_id is None, so y_score is a users x items matrix whose rows are the users and whose columns "
            f"are the catalogue: give qid=None and catalog=None (got {'qid' if qid is not None else 'catalog'}), "
            "or give item_id with one row per (user, item) pair."
        )
    if not sparse.issparse(y_score) and np.ndim(y_score) != 2:
        raise ValueError(
            "item_id is None, so y_score must be a users x items score matrix (2-D, dense or scipy sparse); got "
            f"shape {np.shape(y_score)}. For one row per (user, item) pair, give item_id and qid too."
        )
    top_k = sparse_top_k if sparse.issparse(y_score) else dense_top_k
    items, scores, users, n_items = top_k(y_score, k)
    return items, scores, users, np.arange(n_items)


def dense_top_k(y_score, k, *, name="y_score"):
    """Item, score and user of the entries of a dense matrix at or above their user's k-th largest score."""
    matrix = as_float_array(y_score, name, ndim=(2,))
    check_scores(matrix, name, minus_inf=NOT_RECOMMENDABLE)
    flat = np.flatnonzero(matrix >= kth_scores(matrix, k)[:, None])  # row by row, in column order
    users, items = np.divmod(flat, matrix.shape[1])
    return items, matrix.reshape(-1)[flat], users, matrix.shape[1]


def kth_scores(matrix, k):
    """Each row's k-th largest score (its lowest finite score, if fewer than k are finite): -inf is never shown."""
    kth_place = matrix.shape[1] - min(k, matrix.shape[1])  # in increasing order
    kth = np.partition(matrix, kth_place, axis=1)[:, kth_place]
    if (kth == -np.inf).any():
        finite = np.where(matrix > -np.inf, matrix, np.inf).min(axis=1)
        kth = np.where(kth == -np.inf, finite, kth)  # inf where nothing is finite: nothing shown
    return kth


def sparse_top_k(y_score, k, *, name="y_score"):
    """Item, score and user of the stored entries of a sparse matrix at or above their user's k-th largest score.

    A user with fewer than k stored entries shows them all.
    """
    if 0 in y_score.shape:
        raise ValueError(f"{name} is empty: it needs at least one user and one item; got shape {y_score.shape}.")
    matrix = canonical_csr(y_score)  # duplicates summed, columns sorted: on a copy, never the input
    sizes = np.diff(matrix.indptr)
    users = np.repeat(np.arange(matrix.shape[0]), sizes)
    scores = np.asarray(matrix.data, dtype=np.float64)
    check_scores(scores, name, minus_inf=NOT_RECOMMENDABLE)
    kth = np.full(matrix.shape[0], -np.inf)
    full = np.flatnonzero(sizes >= k)
    # The rows of similar lengths share a -inf-padded array, partitioned along its rows: linear time.
    for members, inside, entries in padded_segments(matrix.indptr[full], sizes[full]):
        padded = np.full(inside.shape, -np.inf)
        padded[inside] = scores[entries]
        kth[full[members]] = np.partition(padded, padded.shape[1] - k, axis=1)[:, padded.shape[1] - k]
    shown = (scores >= kth[users]) & (scores > -np.inf)
    return matrix.indices[shown], scores[shown], users[shown], matrix.shape[1]
