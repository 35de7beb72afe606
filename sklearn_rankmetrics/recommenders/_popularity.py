"""Recommender metrics of what the lists expose: concentration (Gini, entropy), popularity bias, novelty, user coverage.

Every function reads the users' top k through :func:`top_k_exposure` (one
sort for all users, ties averaged exactly by default) and reduces it with
segment sums: per user (``average=False``), or over the catalogue.
"""

import numpy as np

from .._core._validation import check_integer, check_real, plain
from ._exposure import PerItem, check_mask, is_mapping, item_values
from ._lists import Lists, UserValues, catalogue_value, fill, list_mean, per_user_result


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
        In [0, 1): exactly 0 when every item of the catalogue is shown
        equally often, near 1 when a few items take all the places. nan (with a warning)
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
    lists = Lists.of(y_score, item_id=item_id, qid=qid, k=k, ties=ties, catalog=catalog, who="gini_index")
    return catalogue_value(_gini_index(lists), "gini_index")


def _gini_index(lists):
    """The Gini index of the expected exposure counts (nan where nothing is shown)."""
    exposure = lists.exposure
    counts = np.sort(exposure.per_item(exposure.chance))
    total = counts.sum()
    if total == 0:
        return float("nan")
    # sum_j (2j - n - 1) c_(j) = sum_{i<j} (c_(j) - c_(i)), a sum over the gaps between sorted counts, each gap
    # counted by the (m - 1)(n - m + 1) pairs across it: non-negative term by term, and exactly 0 for equal counts.
    n_items = len(counts)
    across = np.arange(1, n_items) * np.arange(n_items - 1, 0, -1.0)
    return float(np.dot(across, np.diff(counts)) / (n_items * total))


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
    The entropy of the exposure distribution (Shannon 1948), with
    :math:`p_i = c_i / \sum_j c_j` and :math:`c_i` the number of top k lists
    that show item i; natural logarithm (divide by :math:`\ln 2` for bits,
    or by :math:`\ln n` for a share of the most even spread). With ties
    averaged, :math:`c_i` is the expected count, as for :func:`gini_index`.
    Items never shown add 0, so no catalogue is needed.

    The peers differ. Elliot's ``SEntropy`` is this value in bits when
    every list holds k items (it weighs each list's items by one over the
    list's length). RecBole's ``ShannonEntropy`` is not this value: its
    ``get_entropy`` takes :math:`p_i = c_i / (|U| k)` and divides the sum
    :math:`-\sum_i p_i \ln p_i` by the number of distinct items shown, so
    that, when every list holds k items and no ties are cut, RecBole's
    value is ``shannon_entropy(...) / n_shown`` with ``n_shown`` the items
    shown at least once (``catalog_coverage(..., ties="stable")`` times the
    number of items).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics import shannon_entropy
    >>> round(shannon_entropy([[3, 2, 1, 0], [0, 1, 2, 3]], k=2), 4)  # 4 items, 1 place each
    1.3863
    >>> round(float(np.log(4)), 4)
    1.3863
    """
    lists = Lists.of(y_score, item_id=item_id, qid=qid, k=k, ties=ties, who="shannon_entropy")
    return catalogue_value(_shannon_entropy(lists), "shannon_entropy")


def _shannon_entropy(lists):
    """The entropy of the expected exposure counts (nan where nothing is shown); items never shown add 0."""
    exposure = lists.exposure
    counts = exposure.per_item(exposure.chance)
    total = counts.sum()
    if total == 0:
        return float("nan")
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
    lists = Lists.of(y_score, item_id=item_id, qid=qid, k=k, ties=ties, who="novelty_score")
    return per_user_result(
        _novelty(lists, item_popularity=item_popularity), average=average, zero_division=zero_division
    )


def _novelty(lists, *, item_popularity):
    """Each user's mean self-information -log2 p_i over its top k."""
    exposure = lists.exposure
    shown = exposure.shown_items()
    popularity = item_values(item_popularity, exposure, "item_popularity", needed=shown)
    bad = shown[(popularity[shown] <= 0) | (popularity[shown] > 1)]
    if len(bad):
        raise ValueError(
            f"item_popularity must be the share in (0, 1] of training users who interacted with each item; got "
            f"{plain(popularity[bad[0]])!r} for item {exposure.item_name(bad[0])!r}, which a top k shows. An item "
            "no user interacted with has no finite novelty: give it a small share (such as 1 / n_users) or do not "
            "recommend it."
        )
    with np.errstate(divide="ignore", invalid="ignore"):  # items never shown may have any value
        information = -np.log2(popularity)
    return list_mean(exposure, information[exposure.item])


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
    lists = Lists.of(y_score, item_id=item_id, qid=qid, k=k, ties=ties, who="average_popularity_score")
    found = _average_popularity(lists, item_popularity=item_popularity)
    return per_user_result(found, average=average, zero_division=zero_division)


def _average_popularity(lists, *, item_popularity):
    """Each user's mean popularity over its top k."""
    exposure = lists.exposure
    shown = exposure.shown_items()
    popularity = item_values(item_popularity, exposure, "item_popularity", needed=shown)
    bad = shown[~np.isfinite(popularity[shown])]
    if len(bad):
        raise ValueError(
            f"item_popularity must be finite for every shown item; got {plain(popularity[bad[0]])!r} for item "
            f"{exposure.item_name(bad[0])!r}."
        )
    return list_mean(exposure, popularity[exposure.item])


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
        head is found (see Notes). %(per_item)s The head is found among
        every item given (all of an array, every key of a mapping), so each
        needs a finite count >= 0; the items a ranking holds do not change
        it. Give it or ``long_tail``.
    long_tail : array-like of bool of shape (n_items,) or mapping, default=None
        Whether each item is in the long tail (True/False, or 0/1), indexed
        as ``item_popularity``; instead of ``item_popularity``.
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
    The pairs layout gives the same value as the matrix: the head comes from
    ``item_popularity`` itself, not from the items that the pairs hold.

    Examples
    --------
    >>> from sklearn_rankmetrics import long_tail_share_score
    >>> popularity = [80, 10, 6, 4]  # item 0 alone holds 80%% of the interactions
    >>> long_tail_share_score([[4, 3, 2, 1], [1, 2, 3, 4]], item_popularity=popularity, k=2, average=False)
    array([0.5, 1. ])
    """
    if (item_popularity is None) == (long_tail is None):
        raise ValueError("long_tail_share_score needs item_popularity or long_tail (one of them, not both).")
    lists = Lists.of(y_score, item_id=item_id, qid=qid, k=k, ties=ties, who="long_tail_share_score")
    found = _long_tail_share(lists, item_popularity=item_popularity, long_tail=long_tail, head_share=head_share)
    return per_user_result(found, average=average, zero_division=zero_division)


def _long_tail_share(lists, *, item_popularity=None, long_tail=None, head_share=0.8):
    """Each user's share of long-tail items in its top k: ``long_tail`` if given, else ``item_popularity``'s tail."""
    exposure = lists.exposure
    if long_tail is not None:
        given = PerItem(long_tail if is_mapping(long_tail) else check_mask(long_tail, "long_tail"), "long_tail")
        check_mask(given.table, "long_tail")  # a mapping's values too
        in_tail = given.at(exposure.n_items, exposure.item_ids, needed=exposure.shown_items())
    else:
        head_share = check_real("head_share", head_share, low=0, high=1, low_open=True)
        given = PerItem(item_popularity, "item_popularity")
        given.table = tail_of(given, head_share).astype(np.float64)  # the head among every item given
        in_tail = given.at(exposure.n_items, exposure.item_ids, needed=exposure.shown_items())
    return list_mean(exposure, in_tail[exposure.item])


def tail_of(popularity, head_share):
    """Whether each item given is outside the short head: the most popular items holding ``head_share`` of the total.

    The head is found among every item of ``popularity`` (:class:`PerItem`:
    all of an array, every key of a mapping), whatever items a ranking holds.
    """
    counts = popularity.table
    bad = np.flatnonzero(~np.isfinite(counts) | (counts < 0))
    if len(bad):
        item = bad[0] if popularity.keys is None else popularity.keys[bad[0]]
        raise ValueError(
            f"item_popularity must hold a non-negative interaction count for every item, since the short head is "
            f"found among all of them; got {plain(counts[bad[0]])!r} for item {plain(item)!r}."
        )
    order = np.argsort(-counts, kind="stable")
    before = np.cumsum(counts[order]) - counts[order]  # held by the more popular items
    head = order[before < head_share * counts.sum()]
    in_tail = np.ones(len(counts), dtype=bool)
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
    lists = Lists.of(y_score, item_id=item_id, qid=qid, k=k, ties="stable", who="user_coverage")
    return per_user_result(_user_coverage(lists, min_items=min_items), average=average, zero_division=0.0)


def _user_coverage(lists, *, min_items=1):
    """Whether each user's list holds at least ``min_items`` items (the same in every ordering of the ties)."""
    exposure = lists.exposure
    min_items = check_integer("min_items", min_items)
    if min_items > exposure.k:
        raise ValueError(
            f"min_items must be at most k ({exposure.k}): a list of k items never holds more; got {min_items}."
        )
    covered = (exposure.length >= min_items).astype(np.float64)
    return UserValues(covered, np.ones(exposure.n_users, dtype=bool), "")
