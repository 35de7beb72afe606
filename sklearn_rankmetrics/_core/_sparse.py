"""Users x items relevance as a sparse matrix: only the rows a cutoff can see are ranked.

Implicit feedback is sparse: each user interacted with a handful of the
catalogue's items. For a metric at cutoff k, an item scored below the k-th
largest score of its user and never interacted with sits below rank k and
earns nothing, so it can be left out without changing any value; what is left
is each user's top k (with the whole tie block at the k-th score, so that
averaged ties stay exact) and every item the user interacted with (they
count in R and in the ideal ranking).
"""

import sys

import numpy as np


def is_sparse(y_true):
    # No sparse matrix exists before scipy.sparse is imported, which is left to those who make one.
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and sparse.issparse(y_true)


def canonical_csr(matrix):
    """A scipy sparse matrix as a csr_array with its duplicate entries summed and its indices sorted.

    scipy defines a matrix with duplicate (row, column) entries as holding
    their sum; every reader of sparse input comes through here, so that no
    reader sees a duplicate as two entries. The input is never modified: the
    sum is taken on a copy, and only when the matrix is not canonical already.
    """
    from scipy import sparse  # imported here: the trec_eval command never needs it

    csr = sparse.csr_array(matrix)
    if not csr.has_canonical_format:
        csr = csr.copy()
        csr.sum_duplicates()
    return csr


def candidate_rows(y_true, y_score, depth):
    """The rows that metrics at cutoffs up to ``depth`` can see: labels, scores and user of each.

    ``y_true`` is a sparse (n_users, n_items) matrix of non-negative labels
    and ``y_score`` the dense scores of the same shape. The rows come user by
    user, then the interactions outside the top k: the ranking groups them.
    """
    labels = canonical_csr(y_true)
    n_items = labels.shape[1]
    depth = min(depth, n_items)
    kth = -np.partition(-y_score, depth - 1, axis=1)[:, depth - 1]
    seen = y_score >= kth[:, None]
    users, items = np.nonzero(seen)
    row_labels = np.zeros(len(users))
    # The interactions: inside the top k they label a row already there, outside they add one.
    nonzero_users, nonzero_items = labels.nonzero()
    values = np.asarray(labels[nonzero_users, nonzero_items]).reshape(-1) if len(nonzero_users) else np.zeros(0)
    inside = seen[nonzero_users, nonzero_items]
    keys = users.astype(np.int64) * n_items + items
    places = np.searchsorted(keys, nonzero_users[inside].astype(np.int64) * n_items + nonzero_items[inside])
    row_labels[places] = values[inside]
    users = np.concatenate((users, nonzero_users[~inside]))
    items = np.concatenate((items, nonzero_items[~inside]))
    row_labels = np.concatenate((row_labels, values[~inside]))
    return row_labels, y_score[users, items], users
