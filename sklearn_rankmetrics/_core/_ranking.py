"""The Ranking: grouped rows in rank order, the segments metrics reduce over, and the weights of queries.

Every metric starts from a :class:`Ranking`: the rows sorted by (query, descending
score), the boundaries of each query and of each block of tied scores, and the
per-query weights. Metrics are per-row arithmetic followed by ``np.add.reduceat``
(or differences of a running count) over those boundaries, so no Python code
runs once per query or per tie block.
"""

import copy
from collections import namedtuple
from functools import cached_property

import numpy as np

from ._array_api import to_numpy
from ._numpy_ops import NUMPY, segment_rows
from ._validation import check_k, check_zero_division
from ._warnings import warn


class Relevance(namedtuple("Relevance", ["mask", "per_query", "per_block"])):
    """The relevant rows: their mask, and their counts per query and per block (:meth:`Ranking.relevance`)."""

    at_bounds = None  # where a namespace counted them: before each query's and each block's first row


class Ranking:
    """Rows of every query in rank order, and the segments that metrics reduce over.

    Parameters
    ----------
    labels : array of shape (n_rows,)
        Relevance labels in rank order.
    retrieved : array of bool or None
        Which rows were retrieved (scored above ``-inf``); None when all were.
        The others rank last, below every cutoff: the ranking shows them
        with label 0 (:attr:`labels`), but their judgements still count in
        :attr:`judged_labels`, which the ideal ranking and the number of
        relevant documents of a query come from.
    query_starts : array of int
        Index of the first row of each query.
    block_starts : array of int or None
        Index of the first row of each block of tied scores; None when no two
        rows of a query are tied (or ties are broken).
    query_weights : array of shape (n_queries,) or None
        Weight of each query in the mean.
    depth : int or None
        Only the rows ranked above ``depth`` count as retrieved (trec_eval's
        ``-M``), the others as judged documents that were not: a tie block
        that straddles ``depth`` has as many of its places retrieved as lie
        above it, in every ordering, so that the metrics average exactly over
        which of its rows fill them. Every cutoff stops there
        (:meth:`cutoff`, :meth:`visible`), while the ideal ranking and the
        number of relevant documents count every row. None: no limit.
    ops : NumpyOps or ArrayApiOps
        The array operations of the arrays' namespace (numpy by default).
    """

    def __init__(
        self, labels, query_starts, block_starts=None, query_weights=None, retrieved=None, *, depth=None, ops=None
    ):
        self.ops = NUMPY if ops is None else ops
        self.xp = self.ops.xp
        self.judged_labels = labels
        self.retrieved = retrieved
        self.depth = depth
        self.labels = self.shown(labels)
        self.query_starts = query_starts
        self.block_starts = block_starts
        self.query_weights = query_weights
        self._relevance, self._top = {}, {}
        self.whole_labels = None  # whether every label is a whole number, where known
        self.label_bound = None  # a number no label exceeds, where known without reading the labels

    @cached_property
    def positions(self):
        """0-based position of each row in its query."""
        return self.ops.positions_in_segments(self.query_starts, self.n_rows)

    def shown(self, values):
        """Row ``values`` (in rank order) as the ranking shows them: 0 on the rows not retrieved."""
        if self.retrieved is None:
            return values
        return self.xp.where(self.xp.reshape(self.retrieved, (-1, *[1] * (values.ndim - 1))), values, 0.0)

    @cached_property
    def n_retrieved(self):
        """Number of retrieved rows of each query (at most ``depth``)."""
        n_retrieved = self.query_sizes if self.retrieved is None else self.query_count(self.retrieved)
        return n_retrieved if self.depth is None else self.xp.minimum(n_retrieved, self.depth)

    @property
    def n_rows(self):
        return self.labels.shape[0]

    @property
    def n_queries(self):
        return self.query_starts.shape[0]

    @cached_property
    def query_sizes(self):
        return self.ops.segment_sizes(self.query_starts, self.n_rows)

    @cached_property
    def longest(self):
        """The number of rows of the longest query."""
        return int(self.xp.max(self.query_sizes))

    @cached_property
    def top_label(self):
        """The highest judged label, as a numpy float64."""
        return np.float64(float(self.xp.max(self.judged_labels)))

    @cached_property
    def query_of_row(self):
        return self.ops.repeat(self.ops.arange(self.n_queries, dtype=self.xp.int32), self.query_sizes)

    # Tie blocks. The metrics work on blocks; without ties each row is its own
    # block and these methods hand the row arrays back unchanged.
    @property
    def has_ties(self):
        """Whether some block holds more than one row."""
        return self.block_starts is not None

    @cached_property
    def block_sizes(self):
        return self.ops.segment_sizes(self.block_starts, self.n_rows)

    @cached_property
    def longest_block(self):
        """The number of rows of the longest tie block."""
        return int(self.xp.max(self.block_sizes)) if self.has_ties else 1

    @cached_property
    def block_first(self):
        """0-based position in its query of the first row of each block."""
        return self.ops.take(self.positions, self.block_starts) if self.has_ties else self.positions

    @cached_property
    def query_block_starts(self):
        """Index of the first block of each query."""
        return self.xp.searchsorted(self.block_starts, self.query_starts) if self.has_ties else self.query_starts

    @cached_property
    def query_of_block(self):
        if not self.has_ties:
            return self.query_of_row
        if not self.ops.compacts:  # the layout of each query's blocks finds it
            return self.ops.segment_of(self.query_block_starts, self.block_starts.shape[0])
        blocks_per_query = self.ops.segment_sizes(self.query_block_starts, self.block_starts.shape[0])
        return self.ops.repeat(self.ops.arange(self.n_queries, dtype=self.xp.int32), blocks_per_query)

    def query_sum(self, values):
        """Sum of row ``values`` over each query."""
        return self.ops.segment_sum(values, self.query_starts)

    def query_count(self, mask):
        """Number of rows of each query where ``mask`` holds."""
        return self.ops.segment_counts(mask, self.query_starts)[0]

    def per_block(self, values, whole=False):
        """Sum of row ``values`` over each block (``whole``: whole numbers, see :meth:`NumpyOps.segment_sum`)."""
        return self.ops.segment_sum(values, self.block_starts, whole) if self.has_ties else values

    def block_mean(self, values):
        """Mean of row ``values`` over each block."""
        return self.per_block(values) / self.ops.as_float(self.block_sizes) if self.has_ties else values

    def query_total(self, block_values, within=None):
        """Sum of block values over each query (``within``: only the first ``within`` blocks of each can be other
        than 0, see :meth:`NumpyOps.segment_sum`)."""
        return self.ops.segment_sum(block_values, self.query_block_starts, within=within)

    def visible(self, cutoff):
        """Number of rows of each block ranked above ``cutoff`` (None, a scalar or one per query) and ``depth``."""
        if self.depth is not None:
            cutoff = self.depth if cutoff is None else self.xp.minimum(cutoff, self.depth)
        if cutoff is None:
            return self.ops.as_float(self.block_sizes) if self.has_ties else self.ops.ones(self.n_rows)
        if getattr(cutoff, "ndim", 0) == 1:
            cutoff = self.ops.take(cutoff, self.query_of_block)
        if not self.has_ties:
            return self.ops.as_float(self.positions < cutoff)
        return self.ops.as_float(self.xp.minimum(self.xp.maximum(cutoff - self.block_first, 0), self.block_sizes))

    def before_in_query(self, counts):
        """Sum of the integer ``counts`` of the blocks above each block in its query (exact)."""
        return self.ops.segment_exclusive_cumsum(counts, self.query_block_starts)

    def blocks_above(self, k):
        """The blocks that start above rank ``k`` (with ties): the blocks, their rows, where each block's rows
        start among them, and where each query's blocks start among the blocks.

        Where the operations keep subsets whole (:attr:`NumpyOps.compacts`),
        these are every block (None) and every row (None): the caller leaves
        out the blocks from rank ``k`` on.
        """
        if not self.ops.compacts:
            return None, None, self.block_starts, self.query_block_starts
        blocks = self.ops.flatnonzero(self.block_first < k)
        take = self.ops.take
        rows, offsets = segment_rows(take(self.block_starts, blocks), take(self.block_sizes, blocks), self.ops)[:2]
        return blocks, rows, offsets, self.xp.searchsorted(blocks, self.query_block_starts)

    def marked_blocks(self, marked, *columns):
        """The query of each ``marked`` block (at most one per query) and its ``columns`` as floats, for numpy's
        operations (other namespaces reduce over the marked blocks in place: :meth:`top_in_blocks`)."""
        blocks = self.ops.flatnonzero(marked)
        return [self.query_of_block[blocks], *(np.asarray(values[blocks], dtype=np.float64) for values in columns)]

    def cutoff(self, k):
        """How deep a metric at cutoff ``k`` looks: ``k`` checked, no deeper than ``depth`` and the longest query.

        None: the whole of every query. A metric that divides by ``k`` (P@k)
        or cuts its ideal ranking at ``k`` (nDCG@k) takes ``k`` itself.
        """
        k = check_k(k)
        if self.depth is not None:
            k = self.depth if k is None else min(k, self.depth)
        return k if k is None else min(k, self.longest)

    def top(self, k):
        """The rows ranked in the top ``k`` of their query, where each query starts among them, and their positions.

        Where the operations keep subsets whole (:attr:`NumpyOps.compacts`),
        each query gets ``k`` places (a padded matrix, flattened): those past
        its last row take its first row at position ``k``, past the cutoff.
        """
        k = self.cutoff(k)
        if k is None or k >= self.longest:
            return self.ops.arange(self.n_rows), self.query_starts, self.positions
        if self.ops.compacts:
            return segment_rows(self.query_starts, self.xp.minimum(self.query_sizes, k), self.ops)
        if k not in self._top:  # the metrics of a report share it
            ops, xp = self.ops, self.xp
            columns = ops.arange(k)[None, :]
            shown = columns < self.query_sizes[:, None]
            rows = xp.reshape(self.query_starts[:, None] + xp.where(shown, columns, 0), (-1,))
            positions = xp.reshape(xp.where(shown, columns, k), (-1,))
            starts = ops.register(ops.arange(self.n_queries) * k, rows.shape[0], k, given=True)
            self._top[k] = rows, starts, positions
        return self._top[k]

    def top_in_blocks(self, k, marked):
        """The rows of the top ``k`` (:meth:`top`) as places of their tie blocks, for each query's ``marked`` block.

        Returns where each query starts among those rows, their positions, the
        size of each row's block and its place in it (from 0, as floats), and
        whether its block is marked and the row lies above ``k``. The blocks'
        places are rows of the ranking, so expectations over a block's places
        reduce along each query's rows, with no subset of data-dependent size.
        """
        ops = self.ops
        rows, starts, positions = self.top(k)
        block = ops.take(ops.segment_of(self.block_starts, self.n_rows), rows)
        size = ops.as_float(ops.take(self.block_sizes, block))
        place = ops.as_float(positions - ops.take(self.block_first, block))
        in_marked = ops.take(marked, block) & (positions < (self.longest if k is None else k))
        return starts, positions, block, size, place, in_marked

    def with_labels(self, labels, *, whole=None, bound=None):
        """The same ranking with other judged labels (in rank order; ``whole``: all whole numbers; ``bound``: none
        is larger), sharing the segments."""
        ranking = copy.copy(self)
        ranking.judged_labels, ranking._relevance, ranking.whole_labels = labels, {}, whole
        ranking.label_bound = bound
        ranking.labels = self.shown(labels)
        ranking.__dict__.pop("top_label", None)
        return ranking

    def relevance(self, threshold):
        """The rows with a label >= ``threshold``, cached per threshold for the metrics of a report.

        Returns the boolean mask of the retrieved ones, the number of relevant
        rows per query (retrieved or not: the denominator of recall) and the
        number of retrieved relevant rows per block (without ties, the mask as
        weights: :meth:`NumpyOps.as_weights`).
        """
        if threshold not in self._relevance:
            ops = self.ops
            mask = self.labels >= threshold
            # Counts from one running total: reduceat costs far more over a million short blocks.
            at_bounds = None
            if self.retrieved is None and self.has_ties and not ops.compacts:
                at_bounds = ops.running_at_bounds(mask, self.query_starts, self.block_starts)
                per_query, per_block = (at[1:] - at[:-1] for at in at_bounds)
            elif self.retrieved is None and self.has_ties:
                per_query, per_block = ops.segment_counts(mask, self.query_starts, self.block_starts)
            else:
                per_query = self.query_count(mask if self.retrieved is None else self.judged_labels >= threshold)
                per_block = ops.segment_counts(mask, self.block_starts)[0] if self.has_ties else None
            per_block = ops.as_weights(mask) if per_block is None else ops.as_float(per_block)
            self._relevance[threshold] = Relevance(mask, per_query, per_block)
            self._relevance[threshold].at_bounds = at_bounds
        return self._relevance[threshold]

    def relevant_above(self, relevance):
        """The number of relevant rows (of :meth:`relevance`) above each block in its query, as floats (new array)."""
        if relevance.at_bounds is None:
            return self.before_in_query(relevance.per_block)
        # The running count before each block's first row, less the one before its query's.
        at_query, at_block = relevance.at_bounds
        return self.ops.as_float(at_block[:-1] - self.ops.take(at_query[:-1], self.query_of_block))

    def has_relevant(self, threshold=None):
        """Whether each query has a label > 0 (or one >= ``threshold``)."""
        if threshold is None and self.whole_labels and 1 in self._relevance:  # label > 0 is label >= 1: counted
            return self._relevance[1].per_query > 0
        relevant = self.judged_labels > 0 if threshold is None else self.judged_labels >= threshold
        return self.query_count(relevant) > 0

    def aggregate(self, values, defined, *, average=True, zero_division=0.0):
        """Per-query values, with undefined queries set to ``zero_division``, or their weighted mean."""
        values = self.fill_undefined(values, defined, zero_division)
        if not average:
            self.ops.flush()
            return values
        return self.means([values])[0]

    def fill_undefined(self, values, defined, zero_division):
        """The per-query values with ``zero_division`` where the metric is undefined."""
        return self.xp.where(defined, values, check_zero_division(zero_division))

    def means(self, columns):
        """The weighted mean of each per-query array's values that are not NaN (nan, with a warning, if none): a
        namespace reads them all back in one copy (see :meth:`ArrayApiOps.weighted_means`)."""
        if self.ops.compacts:
            found = [numpy_mean_without_nan(values, self.query_weights) for values in columns]
        else:
            found = self.ops.weighted_means(columns, self.query_weights)
        return reported_means(found)


def reported_means(found):
    """The means of ``(mean, entered)`` pairs: nan, with a warning, where no query entered the mean."""
    for _, entered in found:
        if not entered:
            from sklearn.exceptions import UndefinedMetricWarning  # imported here: scikit-learn takes a second

            warn(
                "Every query is undefined (no relevant document) or has zero weight, so the mean is nan. "
                "Pass zero_division=0.0 or 1.0 to score such queries.",
                UndefinedMetricWarning,
            )
    return [mean if entered else float("nan") for mean, entered in found]


def numpy_mean_without_nan(values, weights=None):
    """The weighted mean of the (numpy) values that are not NaN, and whether any (with a weight > 0) enters it."""
    kept = ~np.isnan(values)
    weights = None if weights is None else weights[kept]
    entered = bool(kept.any()) and (weights is None or bool(weights.any()))
    return (weighted_mean(values[kept], weights) if entered else None), entered


def weighted_mean(values, weights=None):
    """``np.average``, also where its sums would overflow although the mean is finite.

    Dividing values or weights by a power of two is exact (above the subnormal
    range) and leaves the mean unchanged: the weights always are, so that their
    sum is at most their number; the values only when their sum overflowed.
    """
    if weights is not None:
        weights = np.ldexp(weights, -np.frexp(weights.max())[1])
    with np.errstate(over="ignore", invalid="ignore"):
        mean = float(np.average(values, weights=weights))
    if np.isfinite(mean):
        return mean
    exponent = np.frexp(np.abs(values).max())[1]
    return float(np.ldexp(np.average(np.ldexp(values, -exponent), weights=weights), exponent))


def build_ranking(labels, y_score, codes, *, ties, weight=None, qid=None, ops=None):
    """The :class:`Ranking` of validated 1-D rows, and the order that sorts them.

    ``ops``: the operations of the arrays' namespace (numpy's by default).
    """
    ops = NUMPY if ops is None else ops
    xp = ops.xp
    order, codes, changes = ops.rank_order(codes, y_score, ties=ties, y_true=labels)
    is_start = ops.differs_from_previous(codes)
    del codes
    query_starts = ops.flatnonzero(is_start)
    query_weights = None if weight is None else query_weight(ops.take(weight, order), is_start, qid, order, ops=ops)
    block_starts = None
    if ties == "average":
        changes |= is_start
        if not bool(xp.all(changes)):
            block_starts = ops.flatnonzero(changes)
    del changes, is_start
    retrieved = ops.take(y_score, order) > -np.inf if float(xp.min(y_score)) == -np.inf else None
    return Ranking(ops.take(labels, order), query_starts, block_starts, query_weights, retrieved, ops=ops), order


def query_weight(sorted_weight, is_query_start, qid, order, *, reason="", ops=None):
    """The weight of each query, checking that it is the same on all the query's rows.

    ``reason`` completes the error message: why the weight must be constant.
    """
    ops = NUMPY if ops is None else ops
    varies = (sorted_weight[1:] != sorted_weight[:-1]) & ~is_query_start[1:]
    if bool(ops.xp.any(varies)):
        row = int(order[int(ops.flatnonzero(varies)[0]) + 1])
        where = "" if qid is None else f" (query {np.asarray(to_numpy(qid))[row].tolist()!r})"
        raise ValueError(
            f"sample_weight must be constant within each query{reason}, but it varies inside a query{where}. "
            "Give every row of a query the query's weight."
        )
    return sorted_weight[is_query_start]


def judged_in_rank_order(judged, order, n_rows, ops=None):
    """The ``judged`` mask (one bool per input row, None: all judged) in rank order, in ``ops``'s namespace."""
    if judged is None:
        return None
    ops = NUMPY if ops is None else ops
    mask = ops.asarray(judged)
    if mask.shape != (n_rows,) or mask.dtype != ops.bool:
        raise ValueError(
            f"judged must be a boolean array with one value per row ({n_rows}); got "
            f"{'dtype ' + str(mask.dtype) if mask.shape == (n_rows,) else 'shape ' + str(tuple(mask.shape))}."
        )
    return ops.take(mask, order)


def ratio(numerator, denominator, ops=None):
    """Each query's ``numerator / denominator``, 0 where the denominator is 0, and where it is not.

    The second array marks the queries where the metric is defined; the
    others later get ``zero_division``. A scalar denominator serves every
    query. ``ops``: the arrays' operations (numpy's by default).
    """
    ops = NUMPY if ops is None else ops
    numerator = ops.as_float(numerator)
    if not hasattr(denominator, "shape"):
        return (numerator / denominator if denominator > 0 else numerator * 0.0), denominator > 0
    defined = denominator > 0
    safe = ops.xp.where(defined, ops.as_float(denominator), 1.0)
    return ops.xp.where(defined, numerator / safe, 0.0), defined
