"""Fairness of exposure: expected exposure (Diaz et al. 2020) of item groups under a patience-based browsing model."""

import numpy as np
from scipy import sparse

from .._core._query_ids import query_id_array
from .._core._sparse import canonical_csr
from .._core._validation import check_labels, check_option, check_real
from ._exposure import PerItem, codes_of
from ._lists import Lists, UserValues, fill, lookup, matrix_shape, per_user_result


@fill(undefined="nothing to recommend: every score -inf, or nothing stored")
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
    zero_division=np.nan,
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
    %(zero_division)s

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
    system's ranking and in the target's. A user with nothing to recommend
    has no policy to judge: it is undefined (``zero_division``), not a
    perfect 0. A sparse matrix's duplicate entries are summed, as scipy
    defines them (on a copy).

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
    check_real("patience", patience, low=0, high=1, low_open=True)
    lists = Lists.of(y_score, item_id=item_id, qid=qid, k=k, ties=ties, who="expected_exposure_loss")
    found = _expected_exposure(lists, y_true=y_true, item_groups=item_groups, patience=patience, component=component)
    return per_user_result(found, average=average, zero_division=zero_division)


def _expected_exposure(lists, *, y_true, item_groups=None, patience=0.5, component="loss"):
    """Each user's EE-L, EE-D or EE-R (``component``) of its items' or groups' expected exposure."""
    component = check_option("component", component, ("loss", "disparity", "relevance"))
    gamma = check_real("patience", patience, low=0, high=1, low_open=True)
    exposure, item_id = lists.exposure, lists.item_id
    weights = gamma ** np.arange(min(exposure.k, exposure.n_items))  # no list is longer than the catalogue
    system = exposure.expected(weights)
    groups = np.arange(exposure.n_items) if item_groups is None else group_codes(item_groups, exposure)
    available = Availability(lists.y_score, item_id, lists.qid, exposure)
    users, items, grades = available.relevant(y_true, item_id)
    disparity, relevance, ideal = exposure_norms(exposure, system, available, (users, items, grades), groups, weights)
    value = {"loss": disparity - 2.0 * relevance + ideal, "disparity": disparity, "relevance": relevance}[component]
    return UserValues(
        np.maximum(value, 0.0) if component == "loss" else value,
        available.counts > 0,
        "nothing to recommend: every score -inf",
    )


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
                matrix = canonical_csr(y_score).tocoo()  # duplicate entries summed
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
                labels = canonical_csr(y_true).tocoo()  # duplicate entries summed
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
    """The group of every item of the catalogue, as codes 0..n_groups-1 (any comparable labels)."""
    given = PerItem(item_groups, "item_groups", numeric=False)
    places = given.places(exposure.n_items, exposure.item_ids)
    if (places < 0).any():
        missing = np.flatnonzero(places < 0)[0]
        raise ValueError(f"item_groups has no group for item {exposure.item_name(missing)!r}; give every item a group.")
    try:
        return np.unique(given.table[places], return_inverse=True)[1].reshape(-1)
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
