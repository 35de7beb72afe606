"""Each user's top k read from a users x items score matrix: the entries at or above the user's k-th largest score.

An entry scored below the k-th largest score of its row sits below rank k,
in no tie block that reaches it; an entry scored ``-inf`` (or not stored, in
a sparse matrix) is never shown. What is left is about k entries per user,
with the whole tie block at the k-th score, read with one ``np.partition``
and one comparison per entry: the matrix is never sorted, nor unfolded into
(user, item) pairs.
"""

import numpy as np
from scipy import sparse

from .._core._numpy_ops import padded_segments
from .._core._sparse import canonical_csr
from .._core._validation import as_float_array, check_scores

# -inf in y_score marks an item that may not be shown to that query (user).
NOT_RECOMMENDABLE = "an item not to recommend (already seen, filtered out)"


def top_k_entries(y_score, k, *, name="y_score"):
    """The entries of a users x items matrix in their user's top k, with the whole tie block at the k-th score.

    Returns their flat indices ``user * n_items + item`` (row by row, in
    column order), their scores and the matrix's shape. A user with fewer
    than k recommendable items shows them all.
    """
    if sparse.issparse(y_score):
        items, scores, users, n_items = sparse_top_k(y_score, k, name=name)
        return users.astype(np.int64) * n_items + items, scores, y_score.shape
    matrix = as_float_array(y_score, name, ndim=(2,))
    check_scores(matrix, name, minus_inf=NOT_RECOMMENDABLE)
    flat = np.flatnonzero(matrix >= kth_scores(matrix, k)[:, None])  # one pass: row by row, in column order
    return flat, matrix.reshape(-1)[flat], matrix.shape


def split_lowest(flat, scores, shape):
    """The entries above each user's lowest score among ``flat`` (with their scores), and those at it.

    With the entries of :func:`top_k_entries`, the lowest score of a user is
    its k-th: its entries form the one tie block that rank k can cut.
    """
    n_users, n_items = shape
    users = flat // n_items
    counts = np.bincount(users, minlength=n_users)
    lowest = np.full(n_users, np.inf)
    if len(scores):
        lowest[counts > 0] = np.minimum.reduceat(scores, (np.cumsum(counts) - counts)[counts > 0])
    in_lowest = scores == lowest[users]
    return flat[~in_lowest], scores[~in_lowest], flat[in_lowest]


def kth_scores(matrix, k):
    """Each row's k-th largest score (its lowest finite score, if fewer than k are finite): -inf is never shown."""
    kth_place = matrix.shape[1] - min(k, matrix.shape[1])  # in increasing order
    kth = np.partition(matrix, kth_place, axis=1)[:, kth_place]
    if (kth == -np.inf).any():
        finite = np.where(matrix > -np.inf, matrix, np.inf).min(axis=1)
        kth = np.where(kth == -np.inf, finite, kth)  # inf where nothing is finite: nothing shown
    return kth


def sparse_top_k(y_score, k, *, name="y_score"):
    """Item, score and user of the stored entries of a sparse matrix at or above their user's k-th largest score.

    A user with fewer than k stored entries shows them all.
    """
    if 0 in y_score.shape:
        raise ValueError(f"{name} is empty: it needs at least one user and one item; got shape {y_score.shape}.")
    matrix = canonical_csr(y_score)  # duplicates summed, columns sorted: on a copy, never the input
    sizes = np.diff(matrix.indptr)
    users = np.repeat(np.arange(matrix.shape[0]), sizes)
    scores = np.asarray(matrix.data, dtype=np.float64)
    check_scores(scores, name, minus_inf=NOT_RECOMMENDABLE)
    kth = np.full(matrix.shape[0], -np.inf)
    full = np.flatnonzero(sizes >= k)
    # The rows of similar lengths share a -inf-padded array, partitioned along its rows: linear time.
    for members, inside, entries in padded_segments(matrix.indptr[full], sizes[full]):
        padded = np.full(inside.shape, -np.inf)
        padded[inside] = scores[entries]
        kth[full[members]] = np.partition(padded, padded.shape[1] - k, axis=1)[:, padded.shape[1] - k]
    shown = (scores >= kth[users]) & (scores > -np.inf)
    return matrix.indices[shown], scores[shown], users[shown], matrix.shape[1]


def entries_matrix(flat, scores, shape):
    """The entries (flat indices in increasing order, and their scores) as a canonical csr_array of ``shape``."""
    users, items = np.divmod(flat, shape[1])
    indptr = np.concatenate(([0], np.cumsum(np.bincount(users, minlength=shape[0]))))
    return sparse.csr_array((scores, items, indptr), shape=shape)
