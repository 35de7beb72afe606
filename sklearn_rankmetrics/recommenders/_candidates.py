"""The candidates of every user as rows, and the catalogue they were drawn from: R and N per user.

Sampled evaluation reads two things: the candidates (their labels and
scores) and, for the corrected estimators, each user's catalogue: R, its
relevant items, and N, its other recommendable items. N comes from the
catalogue, never from which scores outside the candidates happen to be
finite: those scores are not read.
"""

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from .._core._query_ids import encode_qid
from .._core._sparse import canonical_csr
from .._core._validation import as_float_array, check_labels, check_sample_weight, check_scores, plain
from ._exposure import check_mask


def label_matrix(y_true, name):
    """``y_true`` as a csr_array of float labels (users x items), checked; duplicate entries summed, as scipy does."""
    matrix = (
        canonical_csr(y_true) if sparse.issparse(y_true) else sparse.csr_array(as_float_array(y_true, name, ndim=(2,)))
    )
    matrix = matrix.astype(np.float64)
    check_labels(np.concatenate((matrix.data, [0.0])), name)
    return matrix


def mask_matrix(mask, shape, name):
    """A users x items mask as a csr_array of bool holding its True entries alone.

    Dense: booleans, or numbers 0 and 1. A scipy sparse matrix: the values
    of its stored entries, read as a dense mask's (duplicates added up, as
    scipy defines them): a stored False or 0 is not in the mask, as an
    entry not stored is not; any other stored value is an error naming
    ``name``. The input is never modified.
    """
    if not sparse.issparse(mask) and np.shape(mask) != tuple(shape):
        raise ValueError(f"{name} must have the shape of y_true, {tuple(shape)}; got {np.shape(mask)}.")
    if sparse.issparse(mask):
        matrix = canonical_csr(mask).copy()  # its arrays ours to change
        matrix.data = check_mask(matrix.data, f"the stored entries of {name} (duplicates added up)")
    else:
        matrix = sparse.csr_array(check_mask(mask, name))
    if matrix.shape != tuple(shape):
        raise ValueError(f"{name} must have the shape of y_true, {tuple(shape)}; got {matrix.shape}.")
    matrix.eliminate_zeros()
    return matrix.astype(bool, copy=False)


class CandidateRows:
    """The candidates of every user as rows (user, label, score), and what the full catalogue adds: R and N.

    N, the user's recommendable items, comes from the catalogue, never from
    which scores outside the candidates are finite (they are not read: NaN
    there means "not scored"): a matrix's columns less the items scored
    ``-inf``; in the long format the user's rows less those scored ``-inf``,
    or ``n_items`` less them when the rows hold only the candidates.
    """

    def __init__(self, y_true, y_score, candidates, qid, n_items, correction):
        self.y_true, self.y_score, self.qid, self.correction = y_true, y_score, qid, correction
        if sparse.issparse(y_score) or np.ndim(y_score) == 2:
            self.init_matrix(candidates, n_items)
        else:
            self.init_rows(candidates, n_items)

    def init_matrix(self, candidates, n_items):
        if n_items is not None:
            raise ValueError(
                "n_items is for the long format: the columns of a users x items matrix are its catalogue (-inf "
                "marks an item not to recommend). Leave n_items None."
            )
        self.score_matrix = ScoreMatrix(self.y_score)
        shape = self.score_matrix.shape
        mask = mask_matrix(candidates, shape, "candidates").tocoo()
        self.users, self.items = mask.row.astype(np.intp), mask.col.astype(np.intp)
        self.scores = self.score_matrix.candidate_scores(self.users, self.items)
        labels = label_matrix(self.y_true, "y_true")
        if labels.shape != shape:
            raise ValueError(f"y_true and y_score must have the same shape; got {labels.shape} and {shape}.")
        self.labels = (
            np.asarray(labels[self.users, self.items], dtype=np.float64).reshape(-1) if len(self.users) else np.zeros(0)
        )
        self.n_users, self.all_labels, self.shape = shape[0], labels, shape
        check_scores(self.scores, minus_inf="an item not to recommend (already seen)")

    def init_rows(self, candidates, n_items):
        scores = as_float_array(self.y_score, "y_score")  # NaN outside the candidates: not scored, not read
        labels = as_float_array(self.y_true, "y_true")
        if labels.shape != scores.shape:
            raise ValueError(f"y_true and y_score must have the same shape; got {labels.shape} and {scores.shape}.")
        if sparse.issparse(candidates) or np.shape(candidates) != scores.shape:
            raise ValueError(
                f"candidates must be a boolean mask with one value per row ({len(scores)}) for 1-D inputs; got "
                f"shape {np.shape(candidates)}."
            )
        mask = check_mask(candidates, "candidates")
        codes = np.zeros(len(scores), dtype=np.intp) if self.qid is None else encode_qid(self.qid, len(scores))
        self.first_rows, codes = np.unique(codes, return_index=True, return_inverse=True)[1:]  # users 0..n_users-1
        self.row_codes, self.n_users = codes.reshape(-1), len(self.first_rows)
        self.users, self.items = self.row_codes[mask], np.flatnonzero(mask)
        self.scores, self.labels = scores[mask], labels[mask]
        check_scores(self.scores, minus_inf="an item not to recommend (already seen)")
        self.full_scores, self.all_labels, self.shape, self.mask = scores, labels, None, mask
        self.n_items = None if n_items is None else self.check_n_items(n_items)
        if self.n_items is None and mask.all() and self.correction is not None:
            raise ValueError(
                "sampled_correction needs each user's catalogue (N, its recommendable items), but every row is a "
                "candidate, so the rows do not show what the candidates were drawn from. Give n_items= (the "
                "number of items each user could be recommended), or the rows of every item with candidates= "
                "marking the sampled ones (the other rows' scores are not read: NaN will do)."
            )

    def check_n_items(self, n_items):
        """``n_items`` as one count per user: an int for every user, or one per user of ``np.unique(qid)``."""
        counts = np.broadcast_to(np.asarray(n_items), (self.n_users,)) if np.ndim(n_items) == 0 else n_items
        counts = as_float_array(counts, "n_items")
        rows = np.bincount(self.row_codes, minlength=self.n_users)
        if len(counts) != self.n_users or (counts != np.round(counts)).any() or (counts < rows).any():
            user = int(np.flatnonzero(counts < rows)[0]) if len(counts) == self.n_users else None
            raise ValueError(
                "n_items must be an integer, or one per user (np.unique(qid) order), at least the number of the "
                "user's rows: its catalogue holds them all"
                + ("" if user is None else f"; user {user} has {rows[user]} rows but n_items {counts[user]:g}")
                + f". Got {plain(n_items) if np.ndim(n_items) == 0 else f'{len(counts)} values'}."
            )
        return counts.astype(np.int64)

    def restricted_scores(self):
        """The scores with every item outside the candidates at -inf (not ranked)."""
        if self.shape is None:
            restricted = np.full(self.full_scores.shape, -np.inf)
            restricted[self.mask] = self.scores
        else:
            restricted = np.full(self.shape, -np.inf)
            restricted[self.users, self.items] = self.scores
        return restricted

    def catalogue(self, is_relevant):
        """Per user: R, the relevant items; R', those recommendable; and N, the recommendable others."""
        if self.shape is None:
            users, labels = self.row_codes, self.all_labels
            recommendable = ~(self.full_scores == -np.inf)  # NaN: not scored, still recommendable
            unrecommendable = np.bincount(users[~recommendable], minlength=self.n_users)
            if self.n_items is None:
                catalogue = np.bincount(users, minlength=self.n_users) - unrecommendable
            else:
                catalogue = self.n_items - unrecommendable
        else:
            labels_coo = self.all_labels.tocoo()
            users, labels = labels_coo.row, np.asarray(labels_coo.data, dtype=np.float64)
            recommendable = self.score_matrix.recommendable(users, labels_coo.col)
            catalogue = self.shape[1] - self.score_matrix.minus_inf_per_user()
        relevant = is_relevant(labels)
        n_relevant = np.bincount(users[relevant], minlength=self.n_users)
        recommendable_relevant = np.bincount(users[relevant & recommendable], minlength=self.n_users)
        return Catalogue(n_relevant, recommendable_relevant, catalogue - recommendable_relevant)

    def user_weights(self, sample_weight):
        """One weight per user: ``sample_weight`` per matrix row, or per pair row (the same on all of a user's rows)."""
        if self.shape is not None:
            return check_sample_weight(sample_weight, self.n_users)
        weight = check_sample_weight(sample_weight, len(self.row_codes))
        if weight is None:
            return None
        per_user = weight[self.first_rows]
        varies = np.flatnonzero(weight != per_user[self.row_codes])
        if len(varies):
            raise ValueError(
                f"sample_weight must be constant within each query, but it varies at row {varies[0]}. Give every "
                "row of a user the user's weight."
            )
        return per_user

    def user_labels(self):
        """Every user's labels (for the ideal DCG): users and labels of the positive entries."""
        if self.shape is None:
            return self.row_codes, self.all_labels
        labels_coo = self.all_labels.tocoo()
        return labels_coo.row, np.asarray(labels_coo.data, dtype=np.float64)


@dataclass
class Catalogue:
    """Per user: ``relevant`` (R, every relevant item), ``recommendable_relevant`` (those not scored -inf) and
    ``other`` (N, the other recommendable items)."""

    relevant: np.ndarray
    recommendable_relevant: np.ndarray
    other: np.ndarray


class ScoreMatrix:
    """A users x items score matrix, dense or scipy sparse (its stored entries; duplicates summed, as scipy defines
    them), read at the candidates and for its ``-inf`` entries only."""

    def __init__(self, y_score):
        if sparse.issparse(y_score):
            matrix = canonical_csr(y_score)
            self.shape, self.dense = matrix.shape, None
            self.keys = np.repeat(np.arange(self.shape[0], dtype=np.int64), np.diff(matrix.indptr)) * self.shape[1]
            self.keys += matrix.indices  # row-major, sorted: canonical
            self.values = np.asarray(matrix.data, dtype=np.float64)
        else:
            self.dense = as_float_array(y_score, "y_score", ndim=(2,))
            self.shape = self.dense.shape

    def stored(self, users, items):
        """The place of each (user, item) among the stored entries, and whether it is stored."""
        wanted = users.astype(np.int64) * self.shape[1] + items
        places = np.minimum(np.searchsorted(self.keys, wanted), max(len(self.keys) - 1, 0))
        return places, (self.keys[places] == wanted) if len(self.keys) else np.zeros(len(wanted), dtype=bool)

    def candidate_scores(self, users, items):
        if self.dense is not None:
            return self.dense[users, items]
        places, found = self.stored(users, items)
        if not found.all():
            user, item = users[~found][0], items[~found][0]
            raise ValueError(
                f"candidates holds (user {user}, item {item}), which the sparse y_score does not store: store every "
                "candidate's score (an explicit 0 for a score of 0)."
            )
        return self.values[places]

    def recommendable(self, users, items):
        """Whether each (user, item) is not scored -inf (unscored and NaN entries are recommendable)."""
        if self.dense is not None:
            return ~(self.dense[users, items] == -np.inf)
        places, found = self.stored(users, items)
        return ~(found & (self.values[places] == -np.inf))

    def minus_inf_per_user(self):
        if self.dense is not None:
            return np.count_nonzero(self.dense == -np.inf, axis=1)
        return np.bincount(self.keys[self.values == -np.inf] // self.shape[1], minlength=self.shape[0])
