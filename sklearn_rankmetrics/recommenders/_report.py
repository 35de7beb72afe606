"""The recommender report's inputs, read once: every user's top k and the accuracy metrics' ranking, one extraction.

A users x items score matrix is read with one ``np.partition`` per row at
the deepest cutoff any metric asks for (:func:`~._top_k.top_k_entries`):
the entries at or above each user's k-th score. The same entries give the
metrics of the lists their :class:`~._exposure.Exposure` (exactly the one
their own functions build) and the accuracy metrics their rows: those
entries, every item the user interacted with (it counts in R and in the
ideal ranking) and, for a user with neither, one row that is not retrieved,
so that every user is a query. The rows below the deepest cutoff that are
left out earn nothing at any cutoff, so each accuracy metric equals its
function up to rounding; this is the rule of a sparse ``y_true`` in every
accuracy metric (:mod:`sklearn_rankmetrics._core._sparse`).
"""

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from .._core._inputs import rank_queries
from .._core._query_ids import distinct_query_ids
from .._core._sparse import canonical_csr
from .._core._validation import TIES, as_float_array, check_k, check_option, check_sample_weight
from ._candidates import ScoreMatrix
from ._coverage import _catalog_coverage, catalog_coverage
from ._exposure import PerItem, check_matrix_layout, lowest_block_exposure
from ._fairness import _expected_exposure, expected_exposure_loss
from ._list_diversity import _intra_list_diversity, _serendipity, intra_list_diversity_score, serendipity_score
from ._lists import Lists, MatrixLabels
from ._popularity import (
    _average_popularity,
    _gini_index,
    _long_tail_share,
    _novelty,
    _shannon_entropy,
    _user_coverage,
    average_popularity_score,
    gini_index,
    long_tail_share_score,
    novelty_score,
    shannon_entropy,
    user_coverage,
)
from ._top_k import entries_matrix, split_lowest, top_k_entries

# The inputs of the metrics of the lists that the report takes once for all of them.
LIST_INPUTS = ("y_true", "item_popularity", "long_tail", "item_features", "baseline_score", "item_groups")


@dataclass(frozen=True)
class ListMetric:
    """A metric of the lists as the report applies it.

    ``kernel(lists, **inputs, **options)`` returns one value of the whole
    catalogue (``catalogue``) or a :class:`~._lists.UserValues`. ``needs``:
    groups of inputs, each met by any one of its names (the first given is
    passed); ``optional``: inputs passed when given; ``usable(inputs)`` says
    why the inputs given do not fit, or None.
    """

    kernel: object
    needs: tuple = ()
    optional: tuple = ()
    catalogue: bool = False
    usable: object = None


def novelty_reads_shares(inputs):
    """Novelty reads ``item_popularity`` as shares of users in (0, 1]; counts (ARP's and APLT's) do not fit it."""
    table = PerItem(inputs["item_popularity"], "item_popularity").table
    largest = np.nanmax(table) if table.size else 0.0
    if largest > 1:
        return (
            f"item_popularity holds counts (up to {largest:g}), but novelty reads each item's share in (0, 1] of the "
            "training users: pass item_popularity / n_training_users (then ARP is in shares too), or call "
            "novelty_score with the shares"
        )
    return None


LIST_METRICS = {
    catalog_coverage: ListMetric(_catalog_coverage, catalogue=True),
    gini_index: ListMetric(_gini_index, catalogue=True),
    shannon_entropy: ListMetric(_shannon_entropy, catalogue=True),
    novelty_score: ListMetric(_novelty, (("item_popularity",),), usable=novelty_reads_shares),
    average_popularity_score: ListMetric(_average_popularity, (("item_popularity",),)),
    long_tail_share_score: ListMetric(_long_tail_share, (("long_tail", "item_popularity"),)),
    user_coverage: ListMetric(_user_coverage),
    intra_list_diversity_score: ListMetric(_intra_list_diversity, (("item_features",),)),
    serendipity_score: ListMetric(_serendipity, (("y_true",), ("baseline_score",))),
    expected_exposure_loss: ListMetric(_expected_exposure, (("y_true",),), optional=("item_groups",)),
}


def kernel_inputs(metric, inputs):
    """The inputs to pass to ``metric``'s kernel, or the reason it cannot run (a string naming what is missing)."""
    passed = {}
    for group in metric.needs:
        given = [name for name in group if inputs.get(name) is not None]
        if not given:
            return f"needs {' or '.join(group)}"
        passed[given[0]] = inputs[given[0]]
    if metric.usable is not None:
        reason = metric.usable(inputs)
        if reason is not None:
            return reason
    passed.update({name: inputs[name] for name in metric.optional if inputs.get(name) is not None})
    return passed


class ReportLists:
    """The report's inputs read once: the users' top k (``lists``) and the accuracy metrics' :class:`Ranking`.

    ``depth``: how deep the accuracy metrics look (their largest cutoff);
    None when one has no cutoff, and so ranks every item, as its function
    does. ``accuracy``: whether the accuracy metrics rank these scores (not
    those of candidates); ``lists``: whether the metrics of the lists are
    asked for (else ``lists`` is None).
    """

    def __init__(self, y_score, *, k, depth, accuracy, lists, item_id, qid, catalog, ties, who):
        self.k, self.ties = check_k(k, allow_none=False), check_option("ties", ties, TIES)
        self.depth = None if depth is None else check_k(depth, allow_none=False)
        self.item_id, self.qid, self.who = item_id, qid, who
        self.entries, self.lists = None, None
        if item_id is not None:
            self.y_score = y_score
            if lists:
                self.lists = Lists.of(y_score, item_id=item_id, qid=qid, k=self.k, ties=ties, catalog=catalog, who=who)
            return
        check_matrix_layout(y_score, qid=qid, catalog=catalog, who=who)
        self.y_score = y_score if sparse.issparse(y_score) else as_float_array(y_score, "y_score", ndim=(2,))
        if not (lists or (accuracy and self.depth is not None)):
            return
        deepest = self.k if self.depth is None or not accuracy else max(self.k, self.depth)
        flat, scores, shape = top_k_entries(self.y_score, deepest)
        if accuracy and self.depth is not None:
            self.entries = flat, scores, shape
        if lists:
            if deepest > self.k:  # the top k among the entries of the deepest cutoff: a few per user
                flat, scores, _ = top_k_entries(entries_matrix(flat, scores, shape), self.k)
            exposure = lowest_block_exposure(*split_lowest(flat, scores, shape), shape, self.k, self.ties)
            self.lists = Lists(exposure, self.y_score, None, None, self.ties, who)

    def user_ids(self):
        """The users, as the per-user values list them: the rows of a matrix, or ``np.unique(qid)``."""
        if self.lists is not None and self.lists.exposure.user_ids is not None:
            return self.lists.exposure.user_ids
        if self.item_id is None:
            return np.arange(self.y_score.shape[0])
        return np.zeros(1, dtype=np.intp) if self.qid is None else distinct_query_ids(self.qid)

    def ranking(self, y_true, *, sample_weight, scores=None):
        """The accuracy metrics' :class:`Ranking` of ``y_true`` against the scores (``scores``: others of the same
        layout, such as the scores restricted to candidates, read the same way)."""
        y_score = self.y_score if scores is None else scores
        if self.item_id is not None:
            return rank_queries(y_true, y_score, qid=self.qid, ties=self.ties, sample_weight=sample_weight)
        entries = self.entries if scores is None or self.depth is None else top_k_entries(scores, self.depth)
        if self.depth is None:  # a metric without cutoff ranks every item, as its function does
            return rank_queries(y_true, dense_scores(y_score), ties=self.ties, sample_weight=sample_weight)
        labels, row_scores, users = matrix_rows(y_true, y_score, entries)
        weight = check_sample_weight(sample_weight, entries[2][0])
        weight = None if weight is None else weight[users]
        return rank_queries(labels, row_scores, qid=users, ties=self.ties, sample_weight=weight)


def matrix_rows(y_true, y_score, entries):
    """Label, score and user of the rows that the accuracy metrics read from a matrix, user by user.

    ``entries``: each user's entries down to the deepest cutoff (flat
    indices, increasing; scores; the shape). Then every entry with a
    positive label outside them, and one row scored ``-inf`` for each user
    with no row, so that every user is a query.
    """
    flat, scores, (n_users, n_items) = entries
    users, items, values = MatrixLabels(y_true, (n_users, n_items)).positive()
    keys = users.astype(np.int64) * n_items + items
    places = np.minimum(np.searchsorted(flat, keys), max(len(flat) - 1, 0))
    inside = flat[places] == keys if len(flat) else np.zeros(len(keys), dtype=bool)
    labels = np.zeros(len(flat))
    labels[places[inside]] = values[inside]
    outside = keys[~inside]
    row_users = np.concatenate((flat // n_items, outside // n_items))
    without = np.flatnonzero(np.bincount(row_users, minlength=n_users) == 0)
    return (
        np.concatenate((labels, values[~inside], np.zeros(len(without)))),
        np.concatenate((scores, scores_at(y_score, outside, n_items), np.full(len(without), -np.inf))),
        np.concatenate((row_users, without)),
    )


def scores_at(y_score, flat, n_items):
    """The scores of the entries ``flat`` of a matrix: ``-inf`` where a sparse matrix stores none (never shown)."""
    users, items = np.divmod(flat, n_items)
    matrix = ScoreMatrix(y_score)
    if matrix.dense is not None:
        return matrix.dense[users, items]
    places, found = matrix.stored(users, items)
    return np.where(found, matrix.values[places] if len(matrix.values) else 0.0, -np.inf)


def dense_scores(y_score):
    """A score matrix as a dense one: a sparse matrix's entries not stored are ``-inf`` (never shown)."""
    if not sparse.issparse(y_score):
        return y_score
    matrix = canonical_csr(y_score)
    dense = np.full(matrix.shape, -np.inf)
    users = np.repeat(np.arange(matrix.shape[0]), np.diff(matrix.indptr))
    dense[users, matrix.indices] = matrix.data
    return dense
