"""Catalogue coverage: how much of the catalogue the top k of all queries (users) show."""

import functools

import numpy as np

from .._core._array_api import array_api_support
from ._lists import Lists


def scores_first(function):
    """Refuse ``catalog_coverage``'s former order ``(item_id, y_score)`` with the call in the new one.

    Two positional arguments, or one beside ``y_score=``, can only be that
    order: the new signature takes the scores alone positionally.
    """

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        if len(args) > 1 or (args and "y_score" in kwargs):
            raise TypeError(
                f"{function.__name__} takes the scores first, as every metric of the lists (gini_index, "
                f"novelty_score, ...): {function.__name__}(y_score, item_id=item_id, qid=qid, k=k) for (user, item) "
                f"pairs, {function.__name__}(y_score, k=k) for a users x items matrix. The former order "
                f"{function.__name__}(item_id, y_score, ...) is no longer accepted; got {len(args)} positional "
                f"argument(s){' and y_score=' if 'y_score' in kwargs else ''}."
            )
        return function(*args, **kwargs)

    return wrapper


@array_api_support
@scores_first
def catalog_coverage(y_score, *, item_id=None, qid=None, k=10, catalog=None, ties="average"):
    """Catalogue coverage at k: the share of the catalogue's items that some query shows in its top k.

    Two layouts, as every metric of the lists: a users x items score matrix
    (``y_score`` only, dense or scipy sparse; column ``j`` is item ``j``),
    which is never unfolded into pairs: only each user's top k is extracted
    from it; or one row per (user, item) pair (``y_score``, ``item_id`` and
    ``qid``, each 1-D).

    .. versionchanged:: 0.1
       The scores come first, as in the other metrics of the lists:
       ``catalog_coverage(y_score, item_id=item_id, qid=qid)``. The former
       order ``catalog_coverage(item_id, y_score, ...)`` raises a TypeError
       that shows the new call.

    Parameters
    ----------
    y_score : array-like of shape (n_users, n_items) or (n_samples,), or sparse matrix
        Predicted scores; a higher score ranks higher, and ``-inf`` marks an
        item not recommended (already seen, filtered out): it is never shown.
        A 2-D ``y_score`` (with ``item_id``, ``qid`` and ``catalog`` None)
        holds one user per row and one item per column, and its columns are
        the catalogue. In a scipy sparse matrix only the stored entries are
        candidates: an entry not stored is never shown, as if it were
        ``-inf`` (so store an explicit 0 for a candidate scored 0).
    item_id : array-like of shape (n_samples,), default=None
        The item (document) of each row, of any comparable type. None:
        ``y_score`` is a users x items matrix.
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
    >>> catalog_coverage(y_score, item_id=item_id, qid=[1, 1, 1, 2, 2, 2], k=1, catalog=["a", "b", "c", "d"])
    0.5

    The same scores as a users x items matrix, with a fourth item no user
    scored above the others:

    >>> catalog_coverage([[3, 2, 1, 0], [1, 3, 2, 0]], k=1)
    0.5
    """
    lists = Lists.of(y_score, item_id=item_id, qid=qid, k=k, ties=ties, catalog=catalog, who="catalog_coverage")
    return _catalog_coverage(lists)


def _catalog_coverage(lists):
    """The mean over the catalogue of each item's chance to be in some user's top k (0 where nothing is shown)."""
    exposure = lists.exposure
    with np.errstate(divide="ignore"):
        never = np.exp(exposure.per_item(np.log1p(-exposure.chance)))
    return float(np.sum(1.0 - never) / exposure.n_items)
