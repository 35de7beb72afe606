"""Recommender metrics beyond accuracy: popularity bias, novelty, diversity, serendipity, exposure fairness.

Every function reads the users' top k through :func:`top_k_exposure` (one
sort for all users, ties averaged exactly by default) and reduces it with
segment sums: per user (``average=False``), or over the catalogue.
"""

import numpy as np
from scipy import sparse
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import pairwise_distances

from ._exposure import check_positive_integer, codes_of, item_values, per_user_result, top_k_exposure
from ._grouping import query_id_array
from ._validation import check_labels, check_option, check_real, plain
from ._warnings import warn

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
TIES = """ties : {"average", "pessimistic", "optimistic", "stable"}, default="average"
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
        parts = {"layout": LAYOUT, "k": K, "ties": TIES, "average": AVERAGE, "per_item": PER_ITEM, "catalog": CATALOG}
        parts["zero_division"] = ZERO_DIVISION % extra.get("undefined", "")
        function.__doc__ = function.__doc__ % parts
        return function

    return decorate


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


@fill(undefined="fewer than two items to recommend")
def intra_list_diversity_score(
    y_score,
    *,
    item_id=None,
    qid=None,
    item_features,
    metric="cosine",
    k=10,
    ties="average",
    average=True,
    zero_division=np.nan,
):
    r"""Intra-list diversity (ILD) at k: the mean distance between two items of each user's top k.

    Parameters
    ----------
    %(layout)s
    item_features : array-like of shape (n_items, n_features), sparse matrix, or mapping
        The features of each item (a row per item), or with
        ``metric="precomputed"`` the (n_items, n_items) distance matrix.
        %(per_item)s
    metric : str or callable, default="cosine"
        Any metric of :func:`sklearn.metrics.pairwise_distances`, which
        computes the distances.
    %(k)s
    %(ties)s
    %(average)s
    %(zero_division)s

    Returns
    -------
    ild : float or ndarray of shape (n_users,)
        The mean distance, in the metric's unit (cosine distance: [0, 2]).

    See Also
    --------
    sklearn.metrics.pairwise_distances : The distances.

    Notes
    -----
    .. math:: \mathrm{ILD}_u = \frac{2}{|L_u|(|L_u| - 1)}
              \sum_{i < j \in L_u} d(i, j)

    (Ziegler et al. 2005; Vargas & Castells 2011), the mean over users. With
    ties averaged, each pair counts with its chance to be in the top k
    together: 1 above the tie block that straddles rank k, the chance of the
    block's item for a pair across it, and :math:`v (v - 1) / (m (m - 1))`
    inside it. Only the distances among the items shown are computed, a
    block of rows at a time; the cost grows with the square of k (and of a
    tie block straddling rank k).

    Examples
    --------
    >>> from sklearn_rankmetrics import intra_list_diversity_score
    >>> features = [[1, 0], [1, 0], [0, 1]]  # items 0 and 1 alike, item 2 apart
    >>> intra_list_diversity_score([[3, 2, 1], [3, 1, 2]], item_features=features, k=2, average=False)
    array([0., 1.])
    """
    exposure = top_k_exposure(y_score, item_id=item_id, qid=qid, k=k, ties=ties, who="intra_list_diversity_score")
    left, right, together = list_pairs(exposure)
    sums = np.zeros(exposure.n_users)
    if len(left):
        distances = pair_distances(item_features, metric, exposure, exposure.item[left], exposure.item[right])
        sums = np.bincount(exposure.user[left], weights=together * distances, minlength=exposure.n_users)
    length = exposure.length
    n_pairs = length * (length - 1) / 2
    values = np.divide(sums, n_pairs, out=np.zeros(exposure.n_users), where=n_pairs > 0)
    return per_user_result(
        values,
        n_pairs > 0,
        exposure=exposure,
        average=average,
        zero_division=zero_division,
        undefined_reason="fewer than two items to recommend",
    )


def list_pairs(exposure):
    """Every pair of entries of the same user: the two entries and their chance to be in the top k together.

    Users are grouped by their number of entries, so that the pairs of each
    group come from one ``np.triu_indices``.
    """
    starts = np.searchsorted(exposure.user, np.arange(exposure.n_users))
    counts = np.bincount(exposure.user, minlength=exposure.n_users)
    lefts, rights = [], []
    for count in np.unique(counts[counts > 1]):
        members = np.flatnonzero(counts == count)
        upper, lower = np.triu_indices(count, 1)
        lefts.append((starts[members, None] + upper).ravel())
        rights.append((starts[members, None] + lower).ravel())
    if not lefts:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp), np.zeros(0)
    left, right = np.concatenate(lefts), np.concatenate(rights)
    together = exposure.chance[left] * exposure.chance[right]
    same = exposure.block[left] == exposure.block[right]
    block = exposure.block[left[same]]
    size, visible = exposure.size[block].astype(np.float64), exposure.visible[block]
    together[same] = visible * (visible - 1) / (size * (size - 1))
    return left, right, together


# Rows of the distance matrix computed at a time: a block of rows stays small.
DISTANCE_CELLS = 2**22


def pair_distances(item_features, metric, exposure, first, second):
    """The distance between the items ``first[p]`` and ``second[p]`` of every pair, from the items shown only."""
    shown = np.unique(np.concatenate((first, second)))
    precomputed = metric == "precomputed"
    features = item_values(item_features, exposure, "item_features", needed=shown, ndim=2)
    if precomputed:
        if features.shape[1] != (exposure.n_items if exposure.item_ids is None else features.shape[1]):
            raise ValueError(
                f"item_features must be a square (n_items, n_items) distance matrix with "
                f"metric='precomputed'; got shape {features.shape}."
            )
        columns = np.arange(exposure.n_items) if exposure.item_ids is None else exposure.item_ids
        features = features[:, columns]
    place = np.full(exposure.n_items, -1)
    place[shown] = np.arange(len(shown))
    a, b = place[first], place[second]
    order = np.argsort(a, kind="stable")
    distances = np.empty(len(first))
    step = max(1, DISTANCE_CELLS // len(shown))
    bounds = np.searchsorted(a[order], np.arange(0, len(shown) + step, step))
    for index, start in enumerate(range(0, len(shown), step)):
        pairs = order[bounds[index] : bounds[index + 1]]
        if not len(pairs):
            continue
        rows = shown[start : start + step]
        if precomputed:
            block = features[rows][:, shown]
        else:
            block = pairwise_distances(features[rows], features[shown], metric=metric)
        distances[pairs] = block[a[pairs] - start, b[pairs]]
    return distances


@fill(undefined="no item to recommend")
def serendipity_score(
    y_score,
    *,
    item_id=None,
    qid=None,
    y_true,
    baseline_score,
    k=10,
    relevance_threshold=1,
    ties="average",
    average=True,
    zero_division=np.nan,
):
    r"""Serendipity at k: the share of each user's top k that is relevant and absent from a baseline's top k.

    Parameters
    ----------
    %(layout)s
    y_true : array-like or sparse matrix of the same layout as ``y_score``
        Relevance labels (held-out interactions): the usefulness of an item.
    baseline_score : array-like or sparse matrix of the same layout as ``y_score``
        The scores of a primitive recommender (popularity, say), whose top k
        holds the expected items.
    %(k)s
    relevance_threshold : float, default=1
        An item is relevant (useful) when its label is >= this positive
        threshold.
    %(ties)s
    %(average)s
    %(zero_division)s

    Returns
    -------
    serendipity : float or ndarray of shape (n_users,)
        In [0, 1].

    See Also
    --------
    novelty_score : Unexpectedness measured by popularity instead.

    Notes
    -----
    .. math:: \mathrm{ser}_u = \frac{|(L_u \setminus B_u) \cap R_u|}{|L_u|}

    (Ge et al. 2010; Kaminskas & Bridge 2016), with :math:`L_u` and
    :math:`B_u` the top k of the system and of the baseline and
    :math:`R_u` the relevant items. With ties averaged (in both rankings,
    independently), item i counts with :math:`p_i (1 - q_i)`, its chances to
    be in the system's top k and not in the baseline's.

    Examples
    --------
    >>> from sklearn_rankmetrics import serendipity_score
    >>> y_true = [[1, 1, 0, 1]]
    >>> popular = [[4, 3, 2, 1]]  # the baseline shows items 0 and 1
    >>> serendipity_score([[4, 1, 2, 3]], y_true=y_true, baseline_score=popular, k=2)  # item 3 is a find
    0.5
    """
    exposure = top_k_exposure(y_score, item_id=item_id, qid=qid, k=k, ties=ties, who="serendipity_score")
    baseline = top_k_exposure(baseline_score, item_id=item_id, qid=qid, k=k, ties=ties, who="serendipity_score")
    threshold = check_real("relevance_threshold", relevance_threshold, low=0, low_open=True)
    relevant = labels_at(y_true, exposure, item_id, matrix_shape(y_score) if item_id is None else None) >= threshold
    in_baseline = lookup(baseline.row, baseline.chance, exposure.row)  # 0 where the baseline does not show it
    return list_mean(exposure, relevant * (1.0 - in_baseline), average=average, zero_division=zero_division)


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


@fill(undefined="")
def expected_exposure_loss(
    y_score,
    *,
    item_id=None,
    qid=None,
    y_true,
    item_groups=None,
    patience=0.5,
    component="loss",
    k=10,
    ties="average",
    average=True,
):
    r"""Expected exposure (Diaz et al. 2020): how far each user's exposure of items (or groups) is from equal.

    Parameters
    ----------
    %(layout)s
    y_true : array-like or sparse matrix of the same layout as ``y_score``
        Relevance grades: the target policy shows items of a higher grade
        first, and those of one grade in every order equally often.
    item_groups : array-like of shape (n_items,) or mapping, default=None
        The group of each item (provider, category: any comparable labels),
        indexed by item like the per-item inputs of the other metrics
        (column ``j``, item id ``j``, or a mapping); exposure is then summed
        over each group. None: each item is its own group (individual
        fairness).
    patience : float, default=0.5
        The browsing model's chance :math:`\gamma` of looking one place
        further (RBP): the place at 0-based position p is seen with weight
        :math:`\gamma^p`, in (0, 1].
    component : {"loss", "disparity", "relevance"}, default="loss"
        What to return: EE-L, :math:`\lVert \epsilon - \epsilon^*
        \rVert^2`; EE-D, :math:`\lVert \epsilon \rVert^2`; or EE-R,
        :math:`\epsilon^\top \epsilon^*`.
    %(k)s
    %(ties)s
    %(average)s

    Returns
    -------
    value : float or ndarray of shape (n_users,)
        EE-L (0 is ideal), EE-D (lower spreads exposure more evenly) or
        EE-R (higher puts more exposure on relevant items).

    See Also
    --------
    gini_index : Inequality of exposure counts over the catalogue.

    Notes
    -----
    A user's ranking is a policy over orderings: its ties, broken at random
    (``ties="average"``). Item i's expected exposure is
    :math:`\epsilon_i = \mathbb{E}[\gamma^{p_i}]` over those orderings, 0
    from rank k on; the target :math:`\epsilon^*_i` is the mean exposure of
    the places that i's grade fills in the ideal ranking (grades in
    decreasing order), so that items of one grade are exposed equally.
    With groups, :math:`\epsilon_G = \sum_{i \in G} \epsilon_i` and the
    same for the target; the norms run over groups. Only recommendable items
    (score not ``-inf``; stored, for a sparse matrix) take part, in the
    system's ranking and in the target's.

    Examples
    --------
    >>> from sklearn_rankmetrics import expected_exposure_loss
    >>> y_true = [[1, 1, 0, 0]]
    >>> expected_exposure_loss([[4, 3, 2, 1]], y_true=y_true, k=2, average=False)  # 1 and 0.5 vs 0.75 each
    array([0.125])
    >>> expected_exposure_loss([[1, 1, 0, 0]], y_true=y_true, k=2, average=False)  # ties: 0.75 each
    array([0.])
    """
    component = check_option("component", component, ("loss", "disparity", "relevance"))
    gamma = check_real("patience", patience, low=0, high=1, low_open=True)
    exposure = top_k_exposure(y_score, item_id=item_id, qid=qid, k=k, ties=ties, who="expected_exposure_loss")
    weights = gamma ** np.arange(exposure.k)
    system = exposure.expected(weights)
    groups = np.arange(exposure.n_items) if item_groups is None else group_codes(item_groups, exposure)
    available = Availability(y_score, item_id, qid, exposure)
    users, items, grades = available.relevant(y_true, item_id)
    disparity, relevance, ideal = exposure_norms(exposure, system, available, (users, items, grades), groups, weights)
    value = {"loss": disparity - 2.0 * relevance + ideal, "disparity": disparity, "relevance": relevance}[component]
    return per_user_result(
        np.maximum(value, 0.0) if component == "loss" else value,
        np.ones(exposure.n_users, dtype=bool),
        exposure=exposure,
        average=average,
        zero_division=0.0,
        undefined_reason="",
    )


def lookup(keys, values, wanted, default=0.0):
    """The value of each ``wanted`` key among ``keys`` (distinct), ``default`` where it is absent."""
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    places = np.minimum(np.searchsorted(sorted_keys, wanted), max(len(keys) - 1, 0))
    found = sorted_keys[places] == wanted if len(keys) else np.zeros(len(wanted), dtype=bool)
    result = np.full(len(wanted), default, dtype=np.float64)
    result[found] = values[order[places[found]]]
    return result


class Availability:
    """Which (user, item) pairs are recommendable: score not -inf (stored, for a sparse matrix).

    A dense matrix is described by its ``-inf`` entries (usually few: the
    items already seen), a sparse one and pairs by their recommendable
    entries, so that no users x items array is built.
    """

    def __init__(self, y_score, item_id, qid, exposure):
        self.n_users, self.n_items, self.shape = exposure.n_users, exposure.n_items, None
        if item_id is None:
            self.shape = matrix_shape(y_score)
            if sparse.issparse(y_score):
                matrix = sparse.coo_array(y_score)
                keep = np.asarray(matrix.data, dtype=np.float64) > -np.inf
                self.dense, self.users, self.items = None, matrix.row[keep], matrix.col[keep]
            else:
                self.dense = np.asarray(y_score, dtype=np.float64)
                self.users, self.items = np.nonzero(self.dense == -np.inf)  # the exceptions
        else:
            scores = np.asarray(y_score, dtype=np.float64)
            users, items = pair_codes(item_id, qid, exposure)
            keep = scores > -np.inf
            self.dense, self.users, self.items, self.pair_rows = None, users[keep], items[keep], np.flatnonzero(keep)
            self.pair_users, self.pair_items = users, items
        sign = -1 if self.dense is not None else 1
        self.counts = self.n_items * (self.dense is not None) + sign * np.bincount(self.users, minlength=self.n_users)

    def recommendable(self, users, items):
        """Whether each (user, item) is recommendable."""
        if self.dense is not None:
            return self.dense[users, items] > -np.inf
        keys = self.users.astype(np.int64) * self.n_items + self.items
        return lookup(keys, np.ones(len(keys)), users.astype(np.int64) * self.n_items + items) > 0

    def per_group(self, groups, n_groups):
        """Recommendable items per (user, group): a count per group shared by every user, and keyed exceptions."""
        if self.dense is not None:
            base, sign = np.bincount(groups, minlength=n_groups).astype(np.float64), -1.0
        else:
            base, sign = np.zeros(n_groups), 1.0
        keys, counts = np.unique(self.users.astype(np.int64) * n_groups + groups[self.items], return_counts=True)
        return base, keys, sign * counts

    def relevant(self, y_true, item_id):
        """User, item and grade (> 0) of every recommendable item with a positive label."""
        if item_id is None:
            if sparse.issparse(y_true):
                labels = sparse.coo_array(y_true)
                data = np.asarray(labels.data, dtype=np.float64)
                users, items = labels.row, labels.col
            else:
                labels = np.asarray(y_true, dtype=np.float64)
                if labels.shape == tuple(self.shape):
                    check_labels(labels)
                users, items = np.nonzero(labels > 0) if labels.shape == tuple(self.shape) else ([], [])
                data = labels[users, items] if labels.shape == tuple(self.shape) else labels.ravel()
            if labels.shape != tuple(self.shape):
                raise ValueError(f"y_true must have the shape of y_score, {tuple(self.shape)}; got {labels.shape}.")
            check_labels(np.concatenate((data, [0.0])))
        else:
            labels = np.asarray(y_true, dtype=np.float64)
            if labels.shape != (len(self.pair_users),):
                raise ValueError(f"y_true must be 1-D with one label per (user, item) pair; got shape {labels.shape}.")
            check_labels(labels)
            users, items, data = self.pair_users, self.pair_items, labels
        positive = data > 0
        users, items, data = np.asarray(users)[positive], np.asarray(items)[positive], data[positive]
        keep = self.recommendable(users, items)
        return users[keep], items[keep], data[keep]


def pair_codes(item_id, qid, exposure):
    """The user and item code of every input row of the pairs."""
    items = codes_of(query_id_array(item_id, name="item_id", what="item"), exposure.item_ids, "item_id")
    if qid is None:
        return np.zeros(len(items), dtype=np.intp), items
    return codes_of(query_id_array(qid), exposure.user_ids, "qid"), items


def group_codes(item_groups, exposure):
    """The group of every item of the catalogue, as codes 0..n_groups-1."""
    if isinstance(item_groups, dict) or hasattr(item_groups, "keys"):
        ids = range(exposure.n_items) if exposure.item_ids is None else exposure.item_ids.tolist()
        missing = [item for item in ids if item not in item_groups]
        if missing:
            raise ValueError(f"item_groups has no group for item {plain(missing[0])!r}; give every item a group.")
        labels = np.asarray([item_groups[item] for item in ids], dtype=object)
    else:
        labels = np.asarray(item_groups)
        if labels.ndim != 1:
            raise ValueError(f"item_groups must be 1-D with one group per item; got shape {labels.shape}.")
        if exposure.item_ids is None:
            if len(labels) != exposure.n_items:
                raise ValueError(
                    f"item_groups has {len(labels)} values, but y_score has {exposure.n_items} items "
                    "(columns); give one group per column."
                )
        else:
            ids = exposure.item_ids
            if ids.dtype.kind not in "iu" or ids.min() < 0 or ids.max() >= len(labels):
                raise ValueError(
                    "item_groups is an array, indexed by item id, so the item ids must be integers "
                    f"0..{len(labels) - 1}; pass a mapping from item id to group instead."
                )
            labels = labels[ids]
    try:
        return np.unique(labels, return_inverse=True)[1].reshape(-1)
    except TypeError as error:
        raise TypeError(f"item_groups mixes labels that cannot be compared ({error}); use one type.") from error


def exposure_norms(exposure, system, available, relevant, groups, weights):
    """Per user: the disparity ||e||^2, the relevance e.e* and the ideal ||e*||^2 of the groups' exposure.

    The target gives the places of each grade, in decreasing order of
    grades, the same mean exposure; the items of grade 0 (every other
    recommendable item) share the places after the relevant ones. A group's
    target is mu0 * (its recommendable items) + delta, where delta sums, over
    its relevant items, their grade's mean exposure minus mu0.
    """
    n_users, n_groups = exposure.n_users, int(groups.max()) + 1 if len(groups) else 1
    cumulative = np.concatenate(([0.0], np.cumsum(weights)))
    last = len(weights)

    def places_mean(start, count):
        stop = np.minimum(start + count, last)
        return np.divide(
            cumulative[stop] - cumulative[np.minimum(start, last)], count, out=np.zeros(len(count)), where=count > 0
        )

    users, items, grades = relevant
    # Equal grades of a user form one run of places, after the user's higher grades.
    order = np.lexsort((-grades, users))
    users, items, grades = users[order], items[order], grades[order]
    _, run_start, run_counts = (
        np.unique(np.stack((users, -grades)), axis=1, return_index=True, return_counts=True)
        if len(users)
        else (np.zeros((2, 0)), np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp))
    )
    user_start = np.searchsorted(users, users[run_start]) if len(users) else run_start
    run_mean = places_mean(run_start - user_start, run_counts)
    item_mean = np.repeat(run_mean, run_counts)
    n_relevant = np.bincount(users, minlength=n_users)
    n_other = available.counts - n_relevant
    mu0 = places_mean(n_relevant, n_other)
    delta_keys, delta_inverse = np.unique(users.astype(np.int64) * n_groups + groups[items], return_inverse=True)
    delta = np.bincount(delta_inverse.reshape(-1), weights=item_mean - mu0[users], minlength=len(delta_keys))
    base, rec_keys, rec_exceptions = available.per_group(groups, n_groups)

    def recommendable_in(keys):
        return base[keys % n_groups] + lookup(rec_keys, rec_exceptions, keys)

    # The system: exposure summed over each (user, group).
    system_keys, system_inverse = np.unique(
        exposure.user.astype(np.int64) * n_groups + groups[exposure.item], return_inverse=True
    )
    by_group = np.bincount(system_inverse.reshape(-1), weights=system, minlength=len(system_keys))
    system_users = system_keys // n_groups
    disparity = np.bincount(system_users, weights=by_group**2, minlength=n_users)
    target = mu0[system_users] * recommendable_in(system_keys) + lookup(delta_keys, delta, system_keys)
    relevance = np.bincount(system_users, weights=by_group * target, minlength=n_users)
    # The ideal: sum over groups of (mu0 r + delta)^2 = mu0^2 sum r^2 + 2 mu0 sum r delta + sum delta^2.
    squares = np.full(n_users, float(np.dot(base, base)))
    exception_users = rec_keys // n_groups
    changed = base[rec_keys % n_groups] + rec_exceptions
    squares += np.bincount(exception_users, weights=changed**2 - base[rec_keys % n_groups] ** 2, minlength=n_users)
    delta_users = delta_keys // n_groups
    cross = np.bincount(delta_users, weights=recommendable_in(delta_keys) * delta, minlength=n_users)
    ideal = mu0**2 * squares + 2.0 * mu0 * cross + np.bincount(delta_users, weights=delta**2, minlength=n_users)
    return disparity, relevance, ideal


# For the registry's records (issue #26): each metric of this module, its options and its peers' names.
METRIC_RECORDS = {
    "gini_index": {
        "canonical": "gini_index",
        "function": gini_index,
        "options": {"k": 10, "catalog": None, "ties": "average"},
        "aliases": ["GiniIndex", "giniindex", "Gini", "gini"],
        "definition": "Gini coefficient of the items' exposure counts in the users' top k over the catalogue.",
        "reference": "RecBole GiniIndex; Elliot Gini",
    },
    "shannon_entropy": {
        "canonical": "shannon_entropy",
        "function": shannon_entropy,
        "options": {"k": 10, "ties": "average"},
        "aliases": ["ShannonEntropy", "shannonentropy", "SEntropy", "entropy"],
        "definition": "Shannon entropy (nats) of the items' shares of all top-k places.",
        "reference": "RecBole ShannonEntropy; Elliot SEntropy",
    },
    "novelty": {
        "canonical": "novelty",
        "function": novelty_score,
        "options": {"k": 10, "ties": "average", "zero_division": float("nan")},
        "aliases": ["novelty", "Novelty", "EFD", "self-information"],
        "definition": "Mean over users of the mean -log2 p_i of the top k, p_i the item's share of training users.",
        "reference": "Zhou et al. 2010, PNAS; Elliot EFD (without its rank discount)",
    },
    "arp": {
        "canonical": "arp",
        "function": average_popularity_score,
        "options": {"k": 10, "ties": "average", "zero_division": float("nan")},
        "aliases": ["ARP", "AveragePopularity", "averagepopularity", "avg_pop"],
        "definition": "Mean over users of the mean popularity of the items in the top k.",
        "reference": "Abdollahpouri et al. 2019 (FLAIRS); RecBole AveragePopularity; Elliot ARP",
    },
    "aplt": {
        "canonical": "aplt",
        "function": long_tail_share_score,
        "options": {"head_share": 0.8, "k": 10, "ties": "average", "zero_division": float("nan")},
        "aliases": ["APLT", "aplt", "TailPercentage", "tailpercentage", "long_tail_share"],
        "definition": "Mean over users of the share of the top k from the long tail (outside the short head).",
        "reference": "Abdollahpouri et al. 2019 (FLAIRS); Elliot APLT; RecBole TailPercentage",
    },
    "user_coverage": {
        "canonical": "user_coverage",
        "function": user_coverage,
        "options": {"k": 10, "min_items": 1},
        "aliases": ["UserCoverage", "UserCoverageAtN", "user_coverage"],
        "definition": "Share of users whose top k shows at least min_items items.",
        "reference": "Elliot UserCoverage, UserCoverageAtN",
    },
    "ild": {
        "canonical": "ild",
        "function": intra_list_diversity_score,
        "options": {"metric": "cosine", "k": 10, "ties": "average", "zero_division": float("nan")},
        "aliases": ["ILD", "intra_list_diversity", "diversity"],
        "definition": "Mean over users of the mean pairwise distance between the items of the top k.",
        "reference": "Ziegler et al. 2005 (WWW); Vargas & Castells 2011 (RecSys)",
    },
    "serendipity": {
        "canonical": "serendipity",
        "function": serendipity_score,
        "options": {"k": 10, "relevance_threshold": 1, "ties": "average", "zero_division": float("nan")},
        "aliases": ["serendipity", "Serendipity", "SRDP"],
        "definition": "Mean over users of the share of the top k that is relevant and not in a baseline's top k.",
        "reference": "Ge et al. 2010 (RecSys); Kaminskas & Bridge 2016 (TiiS)",
    },
    "expected_exposure": {
        "canonical": "expected_exposure",
        "function": expected_exposure_loss,
        "options": {"item_groups": None, "patience": 0.5, "component": "loss", "k": 10, "ties": "average"},
        "aliases": ["EE-L", "EE-D", "EE-R", "expected_exposure", "ee_loss"],
        "definition": "||e - e*||^2 of the items' (or groups') expected exposure e against equal exposure per grade.",
        "reference": "Diaz et al. 2020, Evaluating Stochastic Rankings with Expected Exposure (CIKM)",
    },
}
