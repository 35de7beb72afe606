"""The users' lists as the metrics beyond accuracy take them, and what every such metric shares.

Each metric of the lists has a private kernel, ``_name(lists, **options)``,
that reads :class:`Lists` (the users' top k as an
:class:`~._exposure.Exposure`, and the scores it was read from) and
returns a catalogue value or a :class:`UserValues`; its public function
builds the lists of its own call, applies the kernel and reduces. The
recommender report builds the lists once and applies every kernel to them.
This module also holds the docstring parts that the public functions
share.
"""

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from sklearn.exceptions import UndefinedMetricWarning

from .._core._ranking import weighted_mean
from .._core._sparse import canonical_csr
from .._core._validation import as_float_array, check_flag, check_labels, check_zero_division
from .._core._warnings import warn
from ._exposure import Exposure, top_k_exposure


@dataclass
class Lists:
    """Every user's top k (``exposure``) and the scores it was read from, in their layout.

    ``who`` names the caller in error messages. A kernel that ranks other
    scores of the same users and items (the baseline of serendipity) reads
    them in the same layout and with the same ``ties``.
    """

    exposure: Exposure
    y_score: object
    item_id: object
    qid: object
    ties: str
    who: str

    @classmethod
    def of(cls, y_score, *, item_id=None, qid=None, k, ties, catalog=None, who):
        """The lists of one metric's call: its inputs' top k."""
        exposure = top_k_exposure(y_score, item_id=item_id, qid=qid, k=k, ties=ties, catalog=catalog, who=who)
        return cls(exposure, y_score, item_id, qid, ties, who)

    def top_k_of(self, scores, name):
        """The :class:`~._exposure.Exposure` of other ``scores`` of the same users and items, at the same k."""
        return top_k_exposure(
            scores, item_id=self.item_id, qid=self.qid, k=self.exposure.k, ties=self.ties, who=self.who, name=name
        )


@dataclass
class UserValues:
    """Each user's value where it is ``defined``, and what makes a user undefined (said in the warnings)."""

    values: np.ndarray
    defined: np.ndarray
    undefined: str


def per_user_result(found, *, average, zero_division):
    """Each user's value of ``found`` (``zero_division`` where undefined), or their mean over the users that enter it.

    With ``zero_division=np.nan`` (the default) undefined users are left out
    of the mean; a warning says how many, since the mean then speaks for the
    others only.
    """
    check_flag("average", average)
    zero_division = check_zero_division(zero_division)
    values = np.where(found.defined, found.values, zero_division)
    if not average:
        return values
    kept = ~np.isnan(values)
    if not kept.any():
        warn(
            f"Every user is undefined ({found.undefined}), so the mean is nan. Pass zero_division=0.0 to score "
            "such users.",
            UndefinedMetricWarning,
        )
        return float("nan")
    if np.isnan(zero_division) and not kept.all():
        warn(
            f"{np.count_nonzero(~kept)} of {len(values)} users are undefined ({found.undefined}) and left out of "
            "the mean. Pass zero_division=0.0 to count them as 0, or average=False to see each user's value.",
            UndefinedMetricWarning,
        )
    return mean_over_users(values)


def mean_over_users(values):
    """The mean of the users' values that are not NaN (nan if none is)."""
    kept = ~np.isnan(values)
    return weighted_mean(values[kept]) if kept.any() else float("nan")


def catalogue_value(value, who):
    """A metric of the whole catalogue's exposure: nan, with a warning, where no user shows any item."""
    if np.isnan(value):
        warn(
            f"No user shows any item (every score is -inf, or nothing is stored), so {who} is nan.",
            UndefinedMetricWarning,
        )
    return value


def list_mean(exposure, values):
    """Each user's mean of entry ``values`` over its top k (expected, with ties)."""
    sums = exposure.per_user(exposure.chance * values)
    length = exposure.length
    means = np.divide(sums, length, out=np.zeros(exposure.n_users), where=length > 0)
    return UserValues(means, length > 0, "no item to recommend: every score -inf")


# ---- docstring parts shared by the metrics of the lists ----

LAYOUT = """y_score : array-like of shape (n_users, n_items) or (n_samples,), or sparse matrix
        Predicted scores: a users x items matrix (column ``j`` is item ``j``),
        dense or scipy sparse, or with ``item_id`` one score per (user, item)
        pair. A higher score ranks higher; ``-inf`` marks an item not to
        recommend (already seen), never shown. In a sparse matrix only the
        stored entries are candidates (store an explicit 0 for a candidate
        scored 0), and duplicate entries hold their sum, as scipy defines
        them. NaN and ``+inf`` are errors.
    item_id : array-like of shape (n_samples,), default=None
        The item of each (user, item) pair, of any comparable type; each
        pair given once. None: ``y_score`` is a users x items matrix.
    qid : array-like of shape (n_samples,), default=None
        The user of each pair (None: a single user); None for a matrix."""


K = """k : int, default=10
        The length of each user's list, an integer >= 1. A user with fewer
        recommendable items shows them all."""


TIES_DOC = """ties : {"average", "pessimistic", "optimistic", "stable"}, default="average"
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
        (a column, for a matrix) to value; only the items that some top k
        shows need one."""


CATALOG = """catalog : array-like, default=None
        With ``item_id``: the ids of every item of the catalogue, so that items
        no user was scored on count as never shown. None: the items given
        (the columns of a matrix)."""


def fill(**extra):
    """Fill ``%(name)s`` in the docstring with the shared descriptions (``extra``: the zero_division case)."""

    def decorate(function):
        parts = {
            "layout": LAYOUT,
            "k": K,
            "ties": TIES_DOC,
            "average": AVERAGE,
            "per_item": PER_ITEM,
            "catalog": CATALOG,
        }
        parts["zero_division"] = ZERO_DIVISION % extra.get("undefined", "")
        function.__doc__ = function.__doc__ % parts
        return function

    return decorate


def labels_at(y_true, exposure):
    """The label of each entry of ``exposure``, from ``y_true`` in the layout of the scores."""
    if exposure.n_rows is None:  # a users x items matrix
        return MatrixLabels(y_true, (exposure.n_users, exposure.n_items)).at(exposure.user, exposure.item)
    if np.shape(y_true) != (exposure.n_rows,):
        raise ValueError(
            f"y_true must be 1-D with one label per (user, item) pair, {exposure.n_rows} like item_id; got shape "
            f"{np.shape(y_true)}."
        )
    labels = as_float_array(y_true, "y_true")
    check_labels(labels)
    return labels[exposure.row]


class MatrixLabels:
    """A users x items ``y_true`` (dense, or scipy sparse: duplicate entries summed), checked: its shape and labels."""

    def __init__(self, y_true, shape):
        if sparse.issparse(y_true):
            self.sparse, self.dense = canonical_csr(y_true), None
            if self.sparse.shape != tuple(shape):
                raise ValueError(f"y_true must have the shape of y_score, {tuple(shape)}; got {self.sparse.shape}.")
            check_labels(np.concatenate((np.asarray(self.sparse.data, dtype=np.float64), [0.0])))
            return
        if np.shape(y_true) != tuple(shape):
            raise ValueError(f"y_true must have the shape of y_score, {tuple(shape)}; got {np.shape(y_true)}.")
        self.sparse, self.dense = None, as_float_array(y_true, "y_true", ndim=(2,))
        check_labels(self.dense)

    def at(self, users, items):
        """The label of each (user, item)."""
        if self.dense is not None:
            return self.dense[users, items]
        if not len(users):  # scipy gives an empty sparse array for no index at all
            return np.zeros(0)
        return np.asarray(self.sparse[users, items], dtype=np.float64).reshape(-1)

    def positive(self):
        """User, item and label of every entry with a label > 0, user by user in column order."""
        if self.dense is not None:
            users, items = np.nonzero(self.dense > 0)
            return users, items, self.dense[users, items]
        coo = self.sparse.tocoo()
        data = np.asarray(coo.data, dtype=np.float64)
        keep = data > 0
        return coo.row[keep], coo.col[keep], data[keep]


def matrix_shape(y_score):
    return y_score.shape if sparse.issparse(y_score) else np.shape(y_score)


def lookup(keys, values, wanted, default=0.0):
    """The value of each ``wanted`` key among ``keys`` (distinct), ``default`` where it is absent."""
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    places = np.minimum(np.searchsorted(sorted_keys, wanted), max(len(keys) - 1, 0))
    found = sorted_keys[places] == wanted if len(keys) else np.zeros(len(wanted), dtype=bool)
    result = np.full(len(wanted), default, dtype=np.float64)
    result[found] = values[order[places[found]]]
    return result
