"""Metrics of each list's items against each other: intra-list diversity, and serendipity against a baseline."""

import numpy as np
from sklearn.metrics import pairwise_distances

from .._core._validation import check_real
from ._exposure import PerItem
from ._lists import Lists, UserValues, fill, labels_at, list_mean, lookup, per_user_result


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
        ``metric="precomputed"`` the square distance matrix, indexed by
        column (or item id 0..n-1) on both axes (an array, not a mapping).
        %(per_item)s
    metric : str or callable, default="cosine"
        Any metric of :func:`sklearn.metrics.pairwise_distances`, which
        computes the distances, except ``"seuclidean"`` and
        ``"mahalanobis"``: they estimate their scale from the rows they are
        given, so a distance would depend on the other items shown (scale
        the features first).
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
    block of rows at a time. The cost grows with the square of k, and of a
    tie block straddling rank k: its m items make m (m - 1) / 2 pairs per
    user (a fully tied row of 2,000 items, 2M pairs), handled about a
    million at a time, so that memory stays bounded.

    Examples
    --------
    >>> from sklearn_rankmetrics import intra_list_diversity_score
    >>> features = [[1, 0], [1, 0], [0, 1]]  # items 0 and 1 alike, item 2 apart
    >>> intra_list_diversity_score([[3, 2, 1], [3, 1, 2]], item_features=features, k=2, average=False)
    array([0., 1.])
    """
    lists = Lists.of(y_score, item_id=item_id, qid=qid, k=k, ties=ties, who="intra_list_diversity_score")
    found = _intra_list_diversity(lists, item_features=item_features, metric=metric)
    return per_user_result(found, average=average, zero_division=zero_division)


def _intra_list_diversity(lists, *, item_features, metric="cosine"):
    """Each user's mean distance between two items of its top k (each pair with its chance to be shown)."""
    exposure = lists.exposure
    distances = PairDistances(item_features, metric, exposure)
    sums = np.zeros(exposure.n_users)
    for left, right, together in list_pairs(exposure):
        distance = distances(exposure.item[left], exposure.item[right])
        sums += np.bincount(exposure.user[left], weights=together * distance, minlength=exposure.n_users)
    length = exposure.length
    n_pairs = length * (length - 1) / 2
    values = np.divide(sums, n_pairs, out=np.zeros(exposure.n_users), where=n_pairs > 0)
    return UserValues(values, n_pairs > 0, "fewer than two items to recommend")


# Pairs of entries handled at a time (about 40 MB of working arrays), so that a large tie block straddling rank k,
# whose m items make m (m - 1) / 2 pairs, costs time but never more memory.
PAIR_BUDGET = 2**20


def list_pairs(exposure, budget=PAIR_BUDGET):
    """Every pair of entries of one user, at most ``budget`` at a time: the two entries, their chance together.

    Users with the same number of entries share one ``np.triu_indices``;
    a user with more pairs than the budget is cut into runs of rows of its
    triangle (a single row longer than the budget makes a run of its own).
    """
    counts = np.bincount(exposure.user, minlength=exposure.n_users)
    starts = np.cumsum(counts) - counts
    for count in np.unique(counts[counts > 1]):
        members = np.flatnonzero(counts == count)
        per_user = count * (count - 1) // 2
        if per_user <= budget:
            upper, lower = np.triu_indices(count, 1)
            step = max(1, budget // per_user)
            for first in range(0, len(members), step):
                offsets = starts[members[first : first + step], None]
                yield chance_together(exposure, (offsets + upper).ravel(), (offsets + lower).ravel())
            continue
        for member in members:
            for left, right in triangle_runs(count, budget):
                yield chance_together(exposure, starts[member] + left, starts[member] + right)


def triangle_runs(n, budget):
    """The pairs ``i < j < n`` in runs of consecutive rows ``i`` of at most ``budget`` pairs (a longer row alone)."""
    ends = np.cumsum(np.arange(n - 1, 0, -1))  # pairs up to the end of each row
    first = 0
    while first < n - 1:
        done = ends[first - 1] if first else 0
        stop = max(int(np.searchsorted(ends, done + budget, side="right")), first + 1)
        lengths = n - 1 - np.arange(first, stop)
        left = np.repeat(np.arange(first, stop), lengths)
        right = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths) + left + 1
        yield left, right
        first = stop


def chance_together(exposure, left, right):
    """Two entries of one user are in its top k together with the product of their chances, unless they share a
    tie block: then ``v (v - 1) / (m (m - 1))`` for its ``v`` places above k among its ``m`` items."""
    together = exposure.chance[left] * exposure.chance[right]
    same = exposure.block[left] == exposure.block[right]
    block = exposure.block[left[same]]
    size, visible = exposure.size[block].astype(np.float64), exposure.visible[block]
    together[same] = visible * (visible - 1) / (size * (size - 1))
    return left, right, together


# Rows of the distance matrix computed at a time: a block of rows stays small.
DISTANCE_CELLS = 2**22
# Metrics that estimate a scale from the rows they are given (scipy's V and VI), which would change with the items
# that happen to be computed together.
DATA_SCALED = ("seuclidean", "mahalanobis")


class PairDistances:
    """The distance between two items, from ``item_features`` and ``metric``, for the items some top k shows."""

    def __init__(self, item_features, metric, exposure):
        if isinstance(metric, str) and metric in DATA_SCALED:
            raise ValueError(
                f"metric={metric!r} estimates its scale from the rows it is given, so a distance would depend on "
                "which other items are shown; scale the features first (sklearn.preprocessing.StandardScaler) and "
                "use 'euclidean', or pass metric='precomputed' with the distances."
            )
        self.metric, self.precomputed = metric, isinstance(metric, str) and metric == "precomputed"
        shown = exposure.shown_items()
        table = PerItem(item_features, "item_features", ndim=2)
        if self.precomputed:
            table = precomputed_columns(table, exposure)
        self.features = table.at(exposure.n_items, exposure.item_ids, needed=shown)

    def __call__(self, first, second):
        """The distance of every pair ``(first[p], second[p])`` of item codes, a block of rows at a time."""
        rows, a = np.unique(first, return_inverse=True)
        columns, b = np.unique(second, return_inverse=True)
        order = np.argsort(a, kind="stable")
        distances = np.empty(len(first))
        step = max(1, DISTANCE_CELLS // len(columns))
        bounds = np.searchsorted(a[order], np.arange(0, len(rows) + step, step))
        for index, start in enumerate(range(0, len(rows), step)):
            pairs = order[bounds[index] : bounds[index + 1]]
            if not len(pairs):
                continue
            if self.precomputed:
                block = self.features[rows[start : start + step]][:, columns]
            else:
                block = pairwise_distances(
                    self.features[rows[start : start + step]], self.features[columns], metric=self.metric
                )
            distances[pairs] = block[a[pairs] - start, b[pairs]]
        return distances


def precomputed_columns(table, exposure):
    """A precomputed (n, n) distance matrix with its columns in item-code order, like its rows."""
    if table.keys is not None:
        raise ValueError(
            "item_features with metric='precomputed' must be the (n_items, n_items) distance matrix as an array, "
            "indexed by column (or item id 0..n_items-1) on both axes; a mapping's rows have no column order."
        )
    distances = table.table
    if distances.shape[0] != distances.shape[1]:
        raise ValueError(
            f"item_features must be a square (n_items, n_items) distance matrix with metric='precomputed'; got shape "
            f"{distances.shape}."
        )
    columns = table.places(exposure.n_items, exposure.item_ids)  # checks that every item has a row
    square = PerItem.__new__(PerItem)
    square.name, square.ndim, square.keys, square.table = table.name, 2, None, distances[:, columns]
    return square


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
        holds the expected items: a matrix of the shape of ``y_score``, or
        one score per row of the pairs. The baseline ranks the same rows as
        the system: in the pairs layout, give the rows of every item the
        baseline could show, with ``y_score`` ``-inf`` where the system may
        not show it (a row left out is ranked by neither).
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
    lists = Lists.of(y_score, item_id=item_id, qid=qid, k=k, ties=ties, who="serendipity_score")
    found = _serendipity(lists, y_true=y_true, baseline_score=baseline_score, relevance_threshold=relevance_threshold)
    return per_user_result(found, average=average, zero_division=zero_division)


def _serendipity(lists, *, y_true, baseline_score, relevance_threshold=1):
    """Each user's share of its top k that is relevant and not in the baseline's top k."""
    exposure = lists.exposure
    baseline = lists.top_k_of(baseline_score, "baseline_score")
    if lists.item_id is None and (baseline.n_users, baseline.n_items) != (exposure.n_users, exposure.n_items):
        raise ValueError(
            f"baseline_score must have the shape of y_score, {(exposure.n_users, exposure.n_items)}: the baseline "
            f"ranks the same users and items; got {(baseline.n_users, baseline.n_items)}."
        )
    threshold = check_real("relevance_threshold", relevance_threshold, low=0, low_open=True)
    relevant = labels_at(y_true, exposure) >= threshold
    in_baseline = lookup(baseline.row, baseline.chance, exposure.row)  # 0 where the baseline does not show it
    return list_mean(exposure, relevant * (1.0 - in_baseline))
