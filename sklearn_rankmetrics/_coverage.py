"""Catalogue coverage: how much of the catalogue the top k of all queries (users) show."""

import numpy as np

from ._array_api import array_api_support
from ._grouping import distinct_query_ids, query_id_array, rank_queries
from ._validation import check_k, check_no_missing, check_option


@array_api_support
def catalog_coverage(item_id, y_score, *, qid=None, k=10, catalog=None, ties="average"):
    """Catalogue coverage at k: the share of the catalogue's items that some query shows in its top k.

    Parameters
    ----------
    item_id : array-like of shape (n_samples,)
        The item (document) of each row, of any comparable type.
    y_score : array-like of shape (n_samples,)
        Predicted scores; a higher score ranks higher, and ``-inf`` marks an
        item not recommended (already seen, filtered out): it is never shown.
    qid : array-like of shape (n_samples,), default=None
        Query (user) of each row; None: a single query.
    k : int, default=10
        How many items each query shows.
    catalog : array-like, default=None
        The ids of every item of the catalogue. None: the distinct items of
        ``item_id``. Every item of ``item_id`` must belong to it.
    ties : {"average", "pessimistic", "optimistic", "stable"}, default="average"
        Order of items with equal scores: ``"average"`` gives the expected
        coverage over all orderings of each query's ties; the others put the
        tied items in label-free input order (``"stable"``; ``"pessimistic"``
        and ``"optimistic"`` are the same here, as items have no labels).

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
    the mean of that probability over the catalogue.

    Examples
    --------
    >>> from sklearn_rankmetrics import catalog_coverage
    >>> item_id = ["a", "b", "c", "a", "b", "c"]
    >>> y_score = [3, 2, 1, 1, 3, 2]
    >>> catalog_coverage(item_id, y_score, qid=[1, 1, 1, 2, 2, 2], k=1, catalog=["a", "b", "c", "d"])
    0.5
    """
    k = check_k(k)
    if k is None:
        raise ValueError("k must be an integer >= 1: coverage counts the items of each query's top k.")
    ties = check_option("ties", ties, ("average", "pessimistic", "optimistic", "stable"))
    items = query_id_array(item_id)
    check_no_missing(items, "item_id")
    ranking, order = rank_queries(
        np.zeros(len(items)), y_score, qid=qid, ties="average" if ties == "average" else "stable", return_order=True
    )
    # Each row's chance to be shown: its block's share of places within k (1 or 0 without ties).
    visible = ranking.visible(k)
    chance = np.repeat(visible / ranking.block_sizes, ranking.block_sizes) if ranking.has_ties else visible
    chance = ranking.shown(chance)  # never an item that is not recommended
    universe = distinct_query_ids(items if catalog is None else query_id_array(catalog))
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
