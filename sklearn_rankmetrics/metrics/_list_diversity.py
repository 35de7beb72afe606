"""Metrics of each list's items against each other: intra-list diversity, and serendipity against a baseline."""

import numpy as np
from sklearn.metrics import pairwise_distances

from .._core._validation import check_real
from ._exposure import fill, item_values, labels_at, list_mean, lookup, matrix_shape, per_user_result, top_k_exposure


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
