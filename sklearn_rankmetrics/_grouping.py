"""Grouped rows in rank order: one sort for all queries, then segment reductions.

Every metric starts from a :class:`Ranking`: the rows sorted by (query, descending
score), the boundaries of each query and of each block of tied scores, and the
per-query weights. Metrics are per-row arithmetic followed by ``np.add.reduceat``
over those boundaries, so no Python code runs once per query or per tie block.
"""

import warnings
from functools import cached_property

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from ._validation import (
    TIES,
    as_float_array,
    check_finite,
    check_labels,
    check_option,
    check_sample_weight,
    check_zero_division,
)


def encode_qid(qid, n_rows):
    """Return non-negative int64 codes that sort like the query ids, one per row.

    Integer ids of a range within a few times the number of rows are only
    shifted; other ids are replaced by their rank among the distinct ids.
    """
    if isinstance(qid, str | bytes):
        raise TypeError(f"qid must be an array-like with one query id per row; got the string {qid!r}.")
    values = np.asarray(qid)
    if values.dtype.kind in "US" and not isinstance(qid, np.ndarray):
        # numpy turns [1, "a"] into strings; mixed ids must not be merged silently.
        values = np.asarray(qid, dtype=object)
    if values.ndim != 1:
        raise ValueError(f"qid must be 1-D with one query id per row; got an array of shape {values.shape}.")
    if len(values) != n_rows:
        raise ValueError(f"qid has {len(values)} values but y_true has {n_rows} rows; give one query id per row.")
    if values.dtype.kind in "biu":
        low, high = int(values.min()), int(values.max())
        if high - low <= 4 * n_rows:
            return values.astype(np.int64) - low
    if values.dtype.kind == "f":
        check_finite(values, "qid")
    try:
        return np.unique(values, return_inverse=True)[1].reshape(-1).astype(np.int64)
    except TypeError as error:
        raise TypeError(
            f"qid mixes values that cannot be compared with each other ({error}); "
            "use one type for every query id, for example all str or all int."
        ) from error


def group_by_query(codes):
    """Stable order of the rows by query code (codes below 2**32).

    numpy's stable sort is a radix sort for 16-bit integers, so one or two
    passes over 16-bit digits of the codes cost a fraction of a comparison sort.
    """
    order = np.argsort(codes.astype(np.uint16), kind="stable")
    high = codes >> 16
    if high.any():
        order = order[np.argsort(high[order].astype(np.uint16), kind="stable")]
    return order


def sort_within_queries(codes, y_score):
    """Stable order of rows grouped by query by (code, descending score), and the sorted scores."""
    low, high = y_score.min(), y_score.max()
    span = high - low
    if np.isfinite(span):
        # One argsort of a single float key, 2 * code + offset with offset in [0, 1],
        # is several times faster than lexsort. Rounding can merge close scores
        # into one key, so the order is checked and lexsort is the exact fallback.
        key = codes * 2.0
        offset = np.subtract(high, y_score)
        if span > 0:
            offset /= span
        key += offset
        del offset
        order = np.argsort(key, kind="stable")
        del key
        sorted_score = y_score[order]
        misordered = sorted_score[1:] > sorted_score[:-1]
        if not misordered.any():
            return order, sorted_score
        sorted_codes = codes[order]
        if not np.any(misordered & (sorted_codes[1:] == sorted_codes[:-1])):
            return order, sorted_score
    order = np.lexsort((-y_score, codes))
    return order, y_score[order]


def rank_order(codes, y_score, *, ties="average", y_true=None):
    """Order the rows by ascending query code, then descending score.

    Ties keep the input order for ``ties="stable"`` and ``"average"``, go worst
    label first for ``"pessimistic"`` and best label first for ``"optimistic"``.
    Returns the order and the codes and scores in that order.
    """
    if ties in ("pessimistic", "optimistic"):
        by_label = y_true if ties == "pessimistic" else -y_true
        order = np.lexsort((by_label, -y_score, codes))
        return order, codes[order], y_score[order]
    grouping = None
    if np.any(codes[1:] < codes[:-1]):
        grouping = group_by_query(codes)
        codes, y_score = codes[grouping], y_score[grouping]
    order, y_score = sort_within_queries(codes, y_score)
    return (order if grouping is None else grouping[order]), codes[order], y_score


def segment_starts(is_start):
    """Start index of each segment from a boolean mask that is True at each start."""
    return np.flatnonzero(is_start)


def positions_in_segments(starts, n_rows):
    """0-based position of every row within its segment."""
    step = np.ones(n_rows, dtype=np.intp)
    sizes = np.diff(starts, append=n_rows)
    step[starts[1:]] = 1 - sizes[:-1]
    step[0] = 0
    return np.cumsum(step)


class Ranking:
    """Rows of every query in rank order, and the segments that metrics reduce over.

    Parameters
    ----------
    labels : ndarray of shape (n_rows,)
        Relevance labels in rank order.
    is_query_start, is_block_start : ndarray of bool, shape (n_rows,)
        True on the first row of each query and of each block of tied scores.
    query_weights : ndarray of shape (n_queries,) or None
        Weight of each query in the mean.
    """

    def __init__(self, labels, is_query_start, is_block_start, query_weights=None):
        self.labels = labels
        self.query_starts = segment_starts(is_query_start)
        self.block_starts = segment_starts(is_block_start)
        self.query_weights = query_weights
        self.positions = positions_in_segments(self.query_starts, len(labels))

    @property
    def n_rows(self):
        return len(self.labels)

    @property
    def n_queries(self):
        return len(self.query_starts)

    @cached_property
    def query_sizes(self):
        return np.diff(self.query_starts, append=self.n_rows)

    @cached_property
    def query_of_row(self):
        return np.repeat(np.arange(self.n_queries), self.query_sizes)

    @property
    def has_ties(self):
        """Whether some block holds more than one row."""
        return len(self.block_starts) < self.n_rows

    @cached_property
    def block_sizes(self):
        return np.diff(self.block_starts, append=self.n_rows)

    @cached_property
    def block_of_row(self):
        return np.repeat(np.arange(len(self.block_starts)), self.block_sizes)

    def query_sum(self, values):
        """Sum of ``values`` over the rows of each query."""
        return np.add.reduceat(values, self.query_starts)

    def block_sum(self, values):
        """Sum of ``values`` over the rows of each tie block."""
        return np.add.reduceat(values, self.block_starts)

    def tie_mean(self, values):
        """Each row's value replaced by the mean over its tie block.

        A quantity that is linear in the row values (gain at a rank, relevant
        documents in the top k) averaged over all orderings of a tie block is the
        block mean times the weights of the ranks the block occupies
        (McSherry & Najork 2008).
        """
        if not self.has_ties:
            return values
        return np.repeat(self.block_sum(values) / self.block_sizes, self.block_sizes)

    def has_relevant(self, threshold=None):
        """Whether each query has a label > 0 (or one >= ``threshold``)."""
        top = np.maximum.reduceat(self.labels, self.query_starts)
        return top > 0 if threshold is None else top >= threshold

    def within(self, k):
        """Boolean mask of the rows ranked in the top ``k`` of their query, or None for all."""
        if k is None or k >= self.query_sizes.max():
            return None
        return self.positions < k

    def aggregate(self, values, defined, *, average=True, zero_division=0.0):
        """Per-query values, with undefined queries set to ``zero_division``, or their weighted mean."""
        zero_division = check_zero_division(zero_division)
        values = np.where(defined, values, zero_division)
        if not average:
            return values
        kept = ~np.isnan(values)
        weights = None if self.query_weights is None else self.query_weights[kept]
        if not kept.any() or (weights is not None and weights.sum() == 0):
            warnings.warn(
                "Every query is undefined (no relevant document) or has zero weight, so the mean is nan. "
                "Pass zero_division=0.0 or 1.0 to score such queries.",
                UndefinedMetricWarning,
                stacklevel=3,
            )
            return float("nan")
        return float(np.average(values[kept], weights=weights))


def rank_queries(y_true, y_score, *, qid=None, ties="average", sample_weight=None):
    """Validate the inputs of a metric and return their :class:`Ranking`.

    ``y_true`` and ``y_score`` are 1-D with one row per document and ``qid`` the
    query of each row (None: a single query), or 2-D with one query per row and
    ``qid=None``, the layout of :func:`sklearn.metrics.ndcg_score`.
    """
    ties = check_option("ties", ties, TIES)
    y_true = as_float_array(y_true, "y_true", ndim=(1, 2))
    y_score = as_float_array(y_score, "y_score", ndim=(1, 2))
    if y_true.shape != y_score.shape:
        raise ValueError(
            f"y_true and y_score must have the same shape; got {y_true.shape} and {y_score.shape}. "
            "Give one label and one score per document."
        )
    check_labels(y_true)
    check_finite(y_score, "y_score")
    if y_true.ndim == 2:
        if qid is not None:
            raise ValueError(
                "qid must be None when y_true and y_score are 2-D (one query per row); "
                "to pass qid, give 1-D arrays with one row per document."
            )
        n_queries, n_docs = y_true.shape
        codes = np.repeat(np.arange(n_queries), n_docs)
        weight = check_sample_weight(sample_weight, n_queries)
        weight = None if weight is None else np.repeat(weight, n_docs)
        y_true, y_score = y_true.ravel(), y_score.ravel()
    else:
        n_rows = len(y_true)
        codes = np.zeros(n_rows, dtype=np.int64) if qid is None else encode_qid(qid, n_rows)
        weight = check_sample_weight(sample_weight, n_rows)

    order, codes, score = rank_order(codes, y_score, ties=ties, y_true=y_true)
    is_query_start = np.empty(len(codes), dtype=bool)
    is_query_start[0] = True
    np.not_equal(codes[1:], codes[:-1], out=is_query_start[1:])
    if ties == "average":
        is_block_start = is_query_start.copy()
        is_block_start[1:] |= score[1:] != score[:-1]
    else:
        is_block_start = np.ones(len(codes), dtype=bool)
    query_weights = None if weight is None else query_weight(weight[order], is_query_start, qid, order)
    return Ranking(y_true[order], is_query_start, is_block_start, query_weights)


def query_weight(sorted_weight, is_query_start, qid, order):
    """The weight of each query, checking that it is the same on all the query's rows."""
    varies = (sorted_weight[1:] != sorted_weight[:-1]) & ~is_query_start[1:]
    if varies.any():
        row = order[np.flatnonzero(varies)[0] + 1]
        where = "" if qid is None else f" (query {np.asarray(qid)[row]!r})"
        raise ValueError(
            f"sample_weight must be constant within each query, but it varies inside a query{where}. "
            "Give every row of a query the query's weight."
        )
    return sorted_weight[is_query_start]


def evaluate(metric, y_true, y_score, *, qid, ties, sample_weight, average, zero_division, **params):
    """Validate the inputs, rank them, apply ``metric`` and reduce over queries.

    ``metric(ranking, **params)`` returns each query's value and whether the
    query has a relevant document (where it is undefined otherwise).
    """
    check_zero_division(zero_division)
    if not isinstance(average, bool | np.bool_):
        raise TypeError(f"average must be True or False; got {average!r}.")
    ranking = rank_queries(y_true, y_score, qid=qid, ties=ties, sample_weight=sample_weight)
    values, defined = metric(ranking, **params)
    return ranking.aggregate(values, defined, average=average, zero_division=zero_division)
