"""Recommender metrics of what the lists expose: concentration (Gini, entropy), popularity bias, novelty, user coverage.

Every function reads the users' top k through :func:`top_k_exposure` (one
sort for all users, ties averaged exactly by default) and reduces it with
segment sums: per user (``average=False``), or over the catalogue.
"""

import numpy as np

from .._core._validation import check_real, plain
from ._exposure import (
    check_positive_integer,
    fill,
    item_values,
    list_mean,
    no_exposure,
    per_user_result,
    top_k_exposure,
)


def exposure_counts(y_score, item_id, qid, k, catalog, ties, who):
    """Each catalogue item's expected number of users whose top k shows it."""
    exposure = top_k_exposure(y_score, item_id=item_id, qid=qid, k=k, ties=ties, catalog=catalog, who=who)
    return exposure.per_item(exposure.chance)


@fill()
def gini_index(y_score, *, item_id=None, qid=None, k=10, catalog=None, ties="average"):
    r"""Gini index of the catalogue's exposure: how unequally the top k lists share out the items.

    Parameters
    ----------
    %(layout)s
    %(k)s
    %(catalog)s
    %(ties)s

    Returns
    -------
    gini : float
        In [0, 1): 0 when every item of the catalogue is shown equally often,
        near 1 when a few items take all the places. nan (with a warning)
        when no user shows any item.

    See Also
    --------
    shannon_entropy : Another measure of the same exposure distribution.
    catalog_coverage : The share of the catalogue shown at all.

    Notes
    -----
    With :math:`c_{(1)} \le \dots \le c_{(n)}` the numbers of top k lists
    that show each of the :math:`n` items of the catalogue (0 for an item
    never shown),

    .. math:: G = \frac{\sum_{j=1}^{n} (2j - n - 1)\, c_{(j)}}{n \sum_j c_j},

    RecBole's ``GiniIndex``, whose denominator :math:`n \cdot |U| k` equals
    this one when every user shows k items (a user with fewer recommendable
    items shows them all here). With ties averaged, :math:`c_i` is the
    expected count over all orderings of the ties, the exposure of the
    policy that breaks ties at random; the Gini index is that of the
    expected counts (the mean of the Gini index over orderings has no
    closed form).

    Examples
    --------
    >>> from sklearn_rankmetrics import gini_index
    >>> scores = [[3, 2, 1, 0], [3, 1, 2, 0], [3, 2, 0, 1]]  # users x items
    >>> round(gini_index(scores, k=2), 4)  # item 0 in every list
    0.4167
    """
    counts = np.sort(exposure_counts(y_score, item_id, qid, k, catalog, ties, "gini_index"))
    total = counts.sum()
    if total == 0:
        return no_exposure("gini_index")
    n_items = len(counts)
    return float(np.dot(2.0 * np.arange(1, n_items + 1) - n_items - 1, counts) / (n_items * total))


@fill()
def shannon_entropy(y_score, *, item_id=None, qid=None, k=10, ties="average"):
    r"""Shannon entropy of the catalogue's exposure, in nats: how evenly the top k lists spread over the items.

    Parameters
    ----------
    %(layout)s
    %(k)s
    %(ties)s

    Returns
    -------
    entropy : float
        :math:`-\sum_i p_i \ln p_i`, with :math:`p_i` item i's share of all
        the places of all the lists: 0 when every list shows the same
        items, :math:`\ln n` when all :math:`n` items are shown equally.
        nan (with a warning) when no user shows any item.

    See Also
    --------
    gini_index : Inequality of the same exposure distribution.

    Notes
    -----
    RecBole's ``ShannonEntropy`` (natural logarithm; divide by
    :math:`\ln 2` for bits, or by :math:`\ln n` for a share of the most
    even spread). With ties averaged, the shares are those of the expected
    exposure counts, as for :func:`gini_index`. Items never shown add 0, so
    no catalogue is needed.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics import shannon_entropy
    >>> round(shannon_entropy([[3, 2, 1, 0], [0, 1, 2, 3]], k=2), 4)  # 4 items, 1 place each
    1.3863
    >>> round(float(np.log(4)), 4)
    1.3863
    """
    counts = exposure_counts(y_score, item_id, qid, k, None, ties, "shannon_entropy")
    total = counts.sum()
    if total == 0:
        return no_exposure("shannon_entropy")
    shares = counts[counts > 0] / total
    return float(-np.dot(shares, np.log(shares)))


@fill(undefined="no item to recommend")
def novelty_score(
    y_score,
    *,
    item_id=None,
    qid=None,
    item_popularity,
    k=10,
    ties="average",
    average=True,
    zero_division=np.nan,
):
    r"""Novelty at k: the mean self-information, :math:`-\log_2 p_i`, of the items in each user's top k.

    Parameters
    ----------
    %(layout)s
    item_popularity : array-like of shape (n_items,) or mapping
        :math:`p_i`, the share in (0, 1] of training users who interacted
        with item i. %(per_item)s
    %(k)s
    %(ties)s
    %(average)s
    %(zero_division)s

    Returns
    -------
    novelty : float or ndarray of shape (n_users,)
        In bits, >= 0: higher for lists of less popular items.

    See Also
    --------
    average_popularity_score : The mean popularity itself.

    Notes
    -----
    .. math:: \mathrm{novelty} = \frac{1}{|U|} \sum_u \frac{1}{|L_u|}
              \sum_{i \in L_u} -\log_2 p_i

    (Zhou et al. 2010; Elliot's EFD without its rank discount), with
    :math:`L_u` the user's top k. With ties averaged, each item counts with
    its chance to be in the top k.

    Examples
    --------
    >>> from sklearn_rankmetrics import novelty_score
    >>> popularity = [0.5, 0.25, 0.125]
    >>> novelty_score([[3, 2, 1], [1, 2, 3]], item_popularity=popularity, k=1, average=False)
    array([1., 3.])
    """
    exposure = top_k_exposure(y_score, item_id=item_id, qid=qid, k=k, ties=ties, who="novelty_score")
    popularity = item_values(item_popularity, exposure, "item_popularity", needed=np.unique(exposure.item))
    shown = popularity[exposure.item]
    if ((shown <= 0) | (shown > 1)).any():
        bad = shown[(shown <= 0) | (shown > 1)][0]
        raise ValueError(
            f"item_popularity must be the share in (0, 1] of training users who interacted with each item; got "
            f"{plain(bad)!r} for a shown item. An item no user interacted with has no finite novelty: give it a "
            "small share (such as 1 / n_users) or do not recommend it."
        )
    return list_mean(exposure, -np.log2(shown), average=average, zero_division=zero_division)


@fill(undefined="no item to recommend")
def average_popularity_score(
    y_score,
    *,
    item_id=None,
    qid=None,
    item_popularity,
    k=10,
    ties="average",
    average=True,
    zero_division=np.nan,
):
    r"""Average recommendation popularity (ARP) at k: the mean popularity of the items in each user's top k.

    Parameters
    ----------
    %(layout)s
    item_popularity : array-like of shape (n_items,) or mapping
        Popularity of each item: its number of training interactions (as
        Abdollahpouri et al. and RecBole's ``AveragePopularity``) or any
        other finite value. %(per_item)s
    %(k)s
    %(ties)s
    %(average)s
    %(zero_division)s

    Returns
    -------
    arp : float or ndarray of shape (n_users,)
        In the unit of ``item_popularity``; lower means less popularity bias.

    See Also
    --------
    novelty_score : The mean self-information of the same items.
    long_tail_share_score : The share of long-tail items.

    Notes
    -----
    .. math:: \mathrm{ARP} = \frac{1}{|U|} \sum_u \frac{1}{|L_u|}
              \sum_{i \in L_u} \phi(i)

    (Abdollahpouri et al. 2019), with :math:`L_u` the user's top k and
    :math:`\phi` the popularity. With ties averaged, each item counts with
    its chance to be in the top k.

    Examples
    --------
    >>> from sklearn_rankmetrics import average_popularity_score
    >>> average_popularity_score([[3, 2, 1], [1, 2, 3]], item_popularity=[90, 30, 6], k=2)
    39.0
    """
    exposure = top_k_exposure(y_score, item_id=item_id, qid=qid, k=k, ties=ties, who="average_popularity_score")
    popularity = item_values(item_popularity, exposure, "item_popularity", needed=np.unique(exposure.item))
    shown = popularity[exposure.item]
    if not np.isfinite(shown).all():
        bad = shown[~np.isfinite(shown)][0]
        raise ValueError(f"item_popularity must be finite for every shown item; got {plain(bad)!r}.")
    return list_mean(exposure, shown, average=average, zero_division=zero_division)


@fill(undefined="no item to recommend")
def long_tail_share_score(
    y_score,
    *,
    item_id=None,
    qid=None,
    item_popularity=None,
    long_tail=None,
    head_share=0.8,
    k=10,
    ties="average",
    average=True,
    zero_division=np.nan,
):
    r"""Average percentage of long-tail items (APLT) at k: the share of each user's top k from the long tail.

    Parameters
    ----------
    %(layout)s
    item_popularity : array-like of shape (n_items,) or mapping, default=None
        Each item's number of training interactions, from which the short
        head is found (see Notes). %(per_item)s Give it or ``long_tail``.
    long_tail : array-like of bool of shape (n_items,) or mapping, default=None
        Whether each item is in the long tail, indexed as
        ``item_popularity``; instead of ``item_popularity``.
    head_share : float, default=0.8
        With ``item_popularity``: the share of all interactions that the
        short head holds, in (0, 1] (Elliot's ``pop_ratio``).
    %(k)s
    %(ties)s
    %(average)s
    %(zero_division)s

    Returns
    -------
    aplt : float or ndarray of shape (n_users,)
        In [0, 1]: higher means more long-tail items recommended.

    See Also
    --------
    average_popularity_score : The mean popularity of the same lists.

    Notes
    -----
    .. math:: \mathrm{APLT} = \frac{1}{|U|} \sum_u
              \frac{|L_u \cap \Gamma|}{|L_u|}

    (Abdollahpouri et al. 2019), with :math:`\Gamma` the long tail. From
    ``item_popularity``, the short head is the most popular items, taken in
    decreasing popularity (equal popularities in item order) until they
    hold ``head_share`` of all interactions, that last item included; every
    other item of the catalogue is the long tail (Elliot's ``Popularity``).

    Examples
    --------
    >>> from sklearn_rankmetrics import long_tail_share_score
    >>> popularity = [80, 10, 6, 4]  # item 0 alone holds 80%% of the interactions
    >>> long_tail_share_score([[4, 3, 2, 1], [1, 2, 3, 4]], item_popularity=popularity, k=2, average=False)
    array([0.5, 1. ])
    """
    exposure = top_k_exposure(y_score, item_id=item_id, qid=qid, k=k, ties=ties, who="long_tail_share_score")
    if (item_popularity is None) == (long_tail is None):
        raise ValueError("long_tail_share_score needs item_popularity or long_tail (one of them, not both).")
    if long_tail is not None:
        in_tail = item_values(long_tail, exposure, "long_tail", needed=np.unique(exposure.item))
    else:
        popularity = item_values(item_popularity, exposure, "item_popularity", needed=np.arange(exposure.n_items))
        in_tail = tail_of(popularity, check_real("head_share", head_share, low=0, high=1, low_open=True))
    return list_mean(exposure, in_tail[exposure.item].astype(np.float64), average=average, zero_division=zero_division)


def tail_of(popularity, head_share):
    """Whether each item is outside the short head: the most popular items that hold ``head_share`` of the total."""
    if not np.isfinite(popularity).all() or (popularity < 0).any():
        raise ValueError("item_popularity must hold non-negative interaction counts for long_tail_share_score.")
    order = np.argsort(-popularity, kind="stable")
    before = np.cumsum(popularity[order]) - popularity[order]  # held by the more popular items
    head = order[before < head_share * popularity.sum()]
    in_tail = np.ones(len(popularity), dtype=bool)
    in_tail[head] = False
    return in_tail


def user_coverage(y_score, *, item_id=None, qid=None, k=10, min_items=1, average=True):
    r"""User coverage: the share of users whose top k shows at least ``min_items`` items.

    Parameters
    ----------
    y_score : array-like of shape (n_users, n_items) or (n_samples,), or sparse matrix
        Predicted scores as a users x items matrix (dense or scipy sparse:
        only stored entries are candidates), or with ``item_id`` one score
        per (user, item) pair; ``-inf`` marks an item not to recommend.
    item_id : array-like of shape (n_samples,), default=None
        The item of each pair; None: ``y_score`` is a matrix.
    qid : array-like of shape (n_samples,), default=None
        The user of each pair; users are those of ``qid`` (a user whose
        every row is ``-inf`` counts, uncovered).
    k : int, default=10
        The length of each list.
    min_items : int, default=1
        How many items a list needs to cover its user, 1 to ``k``:
        Elliot's ``UserCoverage`` (1) and ``UserCoverageAtN`` (``k``).
    average : bool, default=True
        Return the share; False: 1.0 or 0.0 per user.

    Returns
    -------
    coverage : float or ndarray of shape (n_users,)
        In [0, 1].

    See Also
    --------
    catalog_coverage : The share of the items shown.

    Notes
    -----
    A user's list holds min(k, its recommendable items) items in every
    ordering of the ties, so ties play no part.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics import user_coverage
    >>> scores = np.array([[1.0, 2.0, 3.0], [-np.inf, 1.0, -np.inf], [-np.inf] * 3])
    >>> round(user_coverage(scores, k=2), 4)
    0.6667
    >>> user_coverage(scores, k=2, min_items=2, average=False)
    array([1., 0., 0.])
    """
    exposure = top_k_exposure(y_score, item_id=item_id, qid=qid, k=k, ties="stable", who="user_coverage")
    min_items = check_positive_integer("min_items", min_items)
    if min_items > exposure.k:
        raise ValueError(
            f"min_items must be at most k ({exposure.k}): a list of k items never holds more; got {min_items}."
        )
    covered = (exposure.length >= min_items).astype(np.float64)
    return per_user_result(
        covered,
        np.ones(exposure.n_users, dtype=bool),
        exposure=exposure,
        average=average,
        zero_division=0.0,
        undefined_reason="",
    )
