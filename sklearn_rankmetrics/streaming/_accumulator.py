"""Ranking metrics accumulated batch by batch, exactly: each query's values kept, merged and reduced as in memory."""

import inspect
from collections import namedtuple

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from .._core._array_api import to_numpy
from .._core._inputs import rank_queries
from .._core._query_ids import encode_qid, query_id_array, query_ids_of_rows
from .._core._validation import (
    TIES,
    as_float_array,
    check_integer,
    check_labels,
    check_option,
    check_real,
    check_sample_weight,
    check_scores,
    check_zero_division,
    plain,
)
from .._core._warnings import warn
from ..registry._report import interval_request, measure_ranking, metric_requests, report_depth, report_of_values

WINDOW_BY = ("queries", "batches")

# The values of the queries measured in one update: its batch number (from 1), their ids in id order, their
# weights (None: unweighted), and each metric's values and whether it is defined, one row per metric.
Measured = namedtuple("Measured", "batch ids weights values defined")
# Rows of queries still open: labels, scores, query ids and row weights (None), as 1-D numpy arrays.
Rows = namedtuple("Rows", "y_true y_score qid weight")


class RankingAccumulator:
    """Ranking metrics accumulated over batches and workers, equal to the in-memory report to the last bit.

    Each :meth:`update` ranks a batch once and keeps every query's value of
    every metric (as :func:`~sklearn_rankmetrics.ranking_report` computes
    them, from one sort); :meth:`merge` joins the queries of another
    accumulator (another worker, process or partition); :meth:`compute`
    orders the queries by id and reduces them exactly as the report does
    on the whole data, so means, intervals and per-query tables are the same
    whatever the batching and the order of the merges.

    .. versionadded:: 0.1

    Parameters
    ----------
    metrics : sequence of str, default=("ndcg@10", "map", "mrr")
        Metric names, as for :func:`~sklearn_rankmetrics.ranking_report`.
    ties : {"average", "pessimistic", "optimistic", "stable"}, default="average"
        Order of documents with equal scores, as for the report;
        ``"stable"``: the order in which the rows arrived.
    zero_division : {0.0, 1.0, np.nan}, default=0.0
        Value of a query where a metric is undefined (no relevant document),
        unless the metric's name sets its own.
    window : int, default=None
        Keep only the last ``window`` queries (``window_by="queries"``) or
        the queries of the last ``window`` updates (``window_by="batches"``):
        the state of online monitoring, of bounded size. None: every query.
    window_by : {"queries", "batches"}, default="queries"
        What ``window`` counts. A batch window is a time window when each
        update brings one period's traffic (an update may be empty).
    max_grade : float, default=None
        The top grade of the labelling scale, for the metrics that divide by
        it (ERR, nERR, INST, INSQ) where their name does not set it. The
        report takes the largest label of all the data, which no batch knows:
        such a metric is refused without it.

    Attributes
    ----------
    metrics : tuple of str
        The metric names.
    n_batches : int
        Number of updates so far (the most of the merged accumulators').
    n_queries : int
        Number of complete queries kept (in the window, if any).
    open_queries : ndarray
        The ids of the queries whose rows are held, waiting for more.

    See Also
    --------
    sklearn_rankmetrics.ranking_report : The same metrics of arrays in memory.
    sklearn_rankmetrics.streaming.DistributedRankingAccumulator : The same
        across the ranks of ``torch.distributed``.

    Notes
    -----
    **Queries split across batches.** By default each update holds whole
    queries: a query id met in two updates (or two merged accumulators)
    is two measurements of one query, which :meth:`compute` refuses with an
    error naming it. Where a query's rows may continue in the next batch,
    say so with ``open_queries``: ``"last"`` (the query of the batch's last
    row, for a stream ordered by query and cut anywhere), ``"all"``, or the
    ids. Their rows are held, joined with the next update's rows (held rows
    first) and measured once a batch no longer names them open; a merge
    joins the held rows of the same query too (``self``'s first). While
    held, a query counts in :meth:`compute` with the rows received so far.

    **Exactness.** A query's values depend on its own rows only (every
    reduction is per query), so each is the value the report computes on
    the whole data. :meth:`compute` sorts the queries by id, as the report
    ranks them, and reduces them with the report's own code: equal inputs
    give the same floats. ``ties="stable"`` follows the rows' arrival order,
    that of the concatenated batches.

    **Windows** drop whole queries, oldest first (within an update, in id
    order); held rows are not in the window until measured. Accumulators
    with a batch window merge batch by batch (batch ``t`` of every worker is
    the same period); a window of the last queries has no order across
    workers, so such accumulators refuse to merge.

    The state is plain numpy arrays: it pickles, and it grows by one float
    per query and metric.

    Examples
    --------
    >>> from sklearn_rankmetrics import RankingAccumulator
    >>> accumulator = RankingAccumulator(["ndcg@10", "mrr"])
    >>> accumulator.update([3, 2, 0], [0.9, 0.3, 0.5], qid=[1, 1, 1])
    RankingAccumulator(metrics=('ndcg@10', 'mrr'), n_queries=1, n_batches=1)
    >>> other = RankingAccumulator(["ndcg@10", "mrr"]).update([1, 0, 2], [0.1, 0.8, 0.4], qid=[2, 2, 2])
    >>> report = accumulator.merge(other).compute()
    >>> {name: round(value, 4) for name, value in report.items()}
    {'ndcg@10': 0.8041, 'mrr': 0.75}
    """

    def __init__(self, metrics=("ndcg@10", "map", "mrr"), *, ties="average", zero_division=0.0, window=None,
                 window_by="queries", max_grade=None):  # fmt: skip
        self.ties = check_option("ties", ties, TIES)
        self.zero_division = check_zero_division(zero_division)
        self.window_by = check_option("window_by", window_by, WINDOW_BY)
        self.window = None if window is None else check_integer("window", window)
        self.max_grade = None if max_grade is None else check_real("max_grade", max_grade, low=0)
        self.metrics = tuple(metric_requests(metrics, self.zero_division, caller=type(self).__name__)[0])
        self._requests = self._metric_requests()
        self.reset()

    def _metric_requests(self):
        """Each metric's kernel, options and zero_division; the top grade set where a metric scales by it."""
        requests = metric_requests(self.metrics, self.zero_division, caller=type(self).__name__)[1]
        for kernel, options, _ in requests:
            if "max_grade" in inspect.signature(kernel).parameters and options.get("max_grade") is None:
                if self.max_grade is None:
                    name = self.metrics[[request[0] for request in requests].index(kernel)]
                    raise ValueError(
                        f"{name!r} divides by the top grade, which the in-memory report takes from the largest label "
                        "of all the data, unknown batch by batch. Pass max_grade= (the scale's top grade, or the "
                        f"largest label of all the data), or name it, as '{name}(max_grade=4)'."
                    )
                options["max_grade"] = self.max_grade
        return requests

    def reset(self):
        """Forget every query and held row, as a new accumulator.

        Returns
        -------
        self : RankingAccumulator
            The accumulator, empty.
        """
        self._measured, self._held, self.n_batches = [], None, 0
        return self

    def update(self, y_true, y_score, qid, *, sample_weight=None, open_queries=None):
        """Measure one batch of rows and keep each query's values.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,) or (n_queries, n_docs)
            Relevance labels: one per row, or one query per row of a 2-D batch.
        y_score : array-like of the same shape as ``y_true``
            Scores; a higher score ranks higher, ``-inf``: judged, not retrieved.
        qid : array-like of shape (n_samples,) or (n_queries,)
            The query id of each row (1-D), or of each query (2-D). Ids are
            global: a query is one id across batches and workers.
        sample_weight : array-like of shape (n_samples,) or (n_queries,), default=None
            Query weights, constant within a query. Batches without weights
            weigh 1 where others have them.
        open_queries : {"last", "all"} or array-like, default=None
            Queries of this batch whose rows may continue in the next one:
            their rows are held until a batch no longer names them. None:
            every query of the batch (and every held one) is complete.

        Returns
        -------
        self : RankingAccumulator
            The accumulator, updated (nothing changes if the batch is refused).
        """
        rows = batch_rows(y_true, y_score, qid, sample_weight)
        if self._held is not None:
            rows = joined_rows(self._held, rows)
        is_open = open_rows(rows.qid, open_queries)
        held = None if is_open is None or not is_open.any() else checked_rows(select_rows(rows, is_open))
        closed = rows if held is None else select_rows(rows, ~is_open)
        measured = self._measure(closed, self.n_batches + 1) if len(closed.qid) else None
        if measured is not None:  # every check passed: the state changes only now
            self._measured = [*self._measured, measured]
        self._held, self.n_batches = held, self.n_batches + 1
        self._trim()
        return self

    def merge(self, other):
        """Add the queries (and held rows) of another accumulator of the same metrics and options.

        Merging is exact, associative and commutative: :meth:`compute`
        orders the queries by id, whatever the order of the merges. Held
        rows of one query in both are joined, ``self``'s first.

        Parameters
        ----------
        other : RankingAccumulator
            An accumulator of the same metrics, ties, zero_division and
            window; it is left unchanged.

        Returns
        -------
        self : RankingAccumulator
            The accumulator, holding both accumulators' queries.
        """
        if not isinstance(other, RankingAccumulator):
            raise TypeError(f"merge takes a RankingAccumulator; got {type(other).__name__}.")
        if other is self:
            raise ValueError("An accumulator cannot merge itself: its queries would count twice. Merge a copy's.")
        if self._options() != other._options():
            differences = [
                f"{name}={mine!r} and {theirs!r}"
                for name, mine, theirs in zip(OPTIONS, self._options(), other._options(), strict=True)
                if mine != theirs
            ]
            raise ValueError(f"Only accumulators of the same options merge; these differ in {', '.join(differences)}.")
        if self.window is not None and self.window_by == "queries":
            raise ValueError(
                "Accumulators with a window of the last queries do not merge: queries of different workers have "
                "no order. Use window_by='batches' (the queries of the last updates), which merges batch by batch."
            )
        self._measured = [*self._measured, *other._measured]
        if other._held is not None:
            self._held = other._held if self._held is None else joined_rows(self._held, other._held)
        self.n_batches = max(self.n_batches, other.n_batches)
        self._trim()
        return self

    def compute(self, *, average=True, confidence_level=None, n_resamples=10_000, random_state=None):
        """The report of every query so far, as :func:`~sklearn_rankmetrics.ranking_report` gives it.

        Held queries count with the rows received so far; the state is
        unchanged, so updates may go on.

        Parameters
        ----------
        average : bool, default=True
            Each metric's weighted mean over queries; False: the per-query
            table, a dict with the ``"qid"`` (sorted) and one array per metric.
        confidence_level : float, default=None
            With a level such as 0.95, each mean comes with its percentile
            bootstrap interval over queries, as in the report.
        n_resamples : int, default=10_000
            Bootstrap resamples of the queries for the intervals.
        random_state : int, RandomState instance, numpy Generator or None, default=None
            Seed of the resampling.

        Returns
        -------
        report : dict
            Metric name to float (or to ``(mean, ci_low, ci_high)``), or the
            per-query table.

        Raises
        ------
        ValueError
            When a query was measured twice: its rows came in two updates, or
            two merged accumulators, without ``open_queries``.
        """
        resampling = interval_request(average, confidence_level, n_resamples, random_state)
        measured = list(self._measured)
        if self._held is not None:
            measured.append(self._measure(self._held, self.n_batches))
        ids, weights, values, defined = per_query_table(measured, len(self.metrics))
        if average and not len(ids):
            warn(
                "The accumulator holds no query (no update yet, or an empty window): every mean is nan.",
                UndefinedMetricWarning,
            )
            return dict.fromkeys(self.metrics, float("nan"))
        zero_divisions = [zero_division for _, _, zero_division in self._requests]
        filled = [
            np.where(mask, column, value) for column, mask, value in zip(values, defined, zero_divisions, strict=True)
        ]
        if not average:
            return {"qid": ids, **dict(zip(self.metrics, filled, strict=True))}
        return report_of_values(self.metrics, filled, list(defined), zero_divisions, weights, resampling=resampling)

    @property
    def n_queries(self):
        return sum(len(measured.ids) for measured in self._measured)

    @property
    def open_queries(self):
        if self._held is None:
            return np.array([])
        qid = self._held.qid
        return query_ids_of_rows(qid, np.sort(np.unique(encode_qid(qid, len(qid)), return_index=True)[1]))

    def _measure(self, rows, batch):
        """The per-query values of whole queries' rows (one sort), in id order."""
        ranking, order = rank_queries(
            rows.y_true,
            rows.y_score,
            qid=rows.qid,
            ties=self.ties,
            sample_weight=rows.weight,
            depth=report_depth(self._requests),
            return_order=True,
        )
        results = measure_ranking(ranking, self._requests)
        ids = query_ids_of_rows(rows.qid, order[ranking.query_starts])
        values = np.stack([values for values, _ in results])
        defined = np.stack([defined for _, defined in results])
        return Measured(batch, ids, ranking.query_weights, values, defined)

    def _trim(self):
        """Keep the queries of the window only."""
        if self.window is None:
            return
        if self.window_by == "batches":
            first = self.n_batches - self.window
            self._measured = [measured for measured in self._measured if measured.batch > first]
            return
        kept, room = [], self.window
        for measured in reversed(self._measured):
            if room <= 0:
                break
            kept.append(measured if len(measured.ids) <= room else last_queries(measured, room))
            room -= len(measured.ids)
        self._measured = kept[::-1]

    def _options(self):
        """The options that two accumulators must share to merge (nan as a string: it equals itself)."""
        zero_division = "nan" if np.isnan(self.zero_division) else self.zero_division
        return (self.metrics, self.ties, zero_division, self.window, self.window_by, self.max_grade)

    def __getstate__(self):
        state = self.__dict__.copy()
        del state["_requests"]  # the kernels: found again from the names
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._requests = self._metric_requests()

    def __repr__(self):
        held = f", open_queries={len(self.open_queries)}" if self._held is not None else ""
        return (
            f"{type(self).__name__}(metrics={self.metrics!r}, n_queries={self.n_queries}, "
            f"n_batches={self.n_batches}{held})"
        )


OPTIONS = ("metrics", "ties", "zero_division", "window", "window_by", "max_grade")


def batch_rows(y_true, y_score, qid, sample_weight):
    """One batch as 1-D numpy rows (a 2-D batch's queries spread into rows), checked for matching lengths."""
    if qid is None:
        raise TypeError(
            "qid is required: the accumulator joins queries across batches by their ids. Pass the query id "
            "of each row (1-D), or of each query (a 2-D batch, one query per row)."
        )
    y_true, y_score = np.asarray(to_numpy(y_true)), np.asarray(to_numpy(y_score))
    qid = query_id_array(to_numpy(qid))
    weight = None if sample_weight is None else np.asarray(to_numpy(sample_weight))
    if y_true.shape != y_score.shape:
        raise ValueError(
            f"y_true and y_score must have the same shape; got {y_true.shape} and {y_score.shape}. "
            "Give one label and one score per document."
        )
    if y_true.ndim == 2:
        if len(qid) != y_true.shape[0]:
            raise ValueError(
                f"qid has {len(qid)} ids for a 2-D batch of {y_true.shape[0]} queries; give one id per query (row)."
            )
        n_docs = y_true.shape[1]
        qid, y_true, y_score = np.repeat(qid, n_docs), y_true.ravel(), y_score.ravel()
        weight = None if weight is None else np.repeat(weight, n_docs)
    elif y_true.ndim != 1:
        raise ValueError(f"y_true must be 1-D (rows) or 2-D (queries x documents); got shape {y_true.shape}.")
    if len(qid) != len(y_true):
        raise ValueError(f"qid has {len(qid)} values but y_true has {len(y_true)} rows; give one query id per row.")
    if weight is not None and weight.shape != y_true.shape:
        raise ValueError(f"sample_weight has shape {weight.shape}; give one weight per row ({len(y_true)}).")
    return Rows(y_true, y_score, qid, weight)


def open_rows(qid, open_queries):
    """Which rows belong to the queries named open (None where none is)."""
    if open_queries is None:
        return None
    if isinstance(open_queries, str):
        if open_queries not in ("last", "all"):
            raise ValueError(
                f"open_queries must be 'last', 'all', None or the ids of open queries; got {plain(open_queries)!r}."
            )
        if open_queries == "all" or not len(qid):
            return np.ones(len(qid), dtype=bool)
        if qid.dtype.kind in "biuUS":  # ids that equal only themselves: compared as they are
            return qid == qid[-1]
        codes = encode_qid(qid, len(qid))
        return codes == codes[-1]
    named = query_id_array(to_numpy(open_queries), "open_queries")
    if not len(named):
        return None
    codes = encode_qid(concatenated_ids([qid, named]), len(qid) + len(named))
    rows, named_codes = codes[: len(qid)], codes[len(qid) :]
    missing = ~np.isin(named_codes, rows)
    if missing.any():
        raise ValueError(
            f"open_queries names {plain(named[missing][0])!r}, which has no row in this batch (nor held): "
            "name only queries whose rows may continue."
        )
    return np.isin(rows, named_codes)


def checked_rows(rows):
    """Held rows, checked now as a measured batch's are (labels, scores, ids, weights), so that a bad row is refused
    by the update that brings it, not by a later one."""
    y_true, y_score = as_float_array(rows.y_true, "y_true"), as_float_array(rows.y_score, "y_score")
    check_labels(y_true)
    check_scores(y_score)
    encode_qid(rows.qid, len(rows.qid))  # refuses missing ids and ids of two kinds
    weight = None if rows.weight is None else check_sample_weight(rows.weight, len(rows.qid))
    return Rows(y_true, y_score, rows.qid, weight)


def select_rows(rows, mask):
    return Rows(*(None if column is None else column[mask] for column in rows))


def joined_rows(first, second):
    """The rows of ``first`` then ``second``; rows without weights weigh 1 beside weighted ones."""
    if (first.weight is None) != (second.weight is None):
        first, second = (with_unit_weights(rows) for rows in (first, second))
    weight = None if first.weight is None else np.concatenate([first.weight, second.weight])
    return Rows(
        np.concatenate([first.y_true, second.y_true]),
        np.concatenate([first.y_score, second.y_score]),
        concatenated_ids([first.qid, second.qid]),
        weight,
    )


def with_unit_weights(rows):
    return rows if rows.weight is not None else rows._replace(weight=np.ones(len(rows.qid)))


def concatenated_ids(parts):
    """Query ids of several batches as one array: objects where their kinds differ, so that each id stays itself (a
    number never becomes text, bytes never str, a large int64 or uint64 never a float)."""
    parts = [part for part in parts if len(part)] or parts[:1]
    kinds = {part.dtype.kind for part in parts}
    if len(kinds) > 1 and not kinds <= set("UT"):  # str in two numpy types is still str
        parts = [part.astype(object) for part in parts]
    return np.concatenate(parts) if len(parts) > 1 else parts[0]


def last_queries(measured, count):
    """The last ``count`` queries of one update's values."""
    return Measured(
        measured.batch,
        measured.ids[-count:],
        None if measured.weights is None else measured.weights[-count:],
        measured.values[:, -count:],
        measured.defined[:, -count:],
    )


def per_query_table(measured, n_metrics):
    """Every query's id, weight and values, in the order of the ids (the report's order), each query once."""
    if not measured:
        return np.array([]), None, np.empty((n_metrics, 0)), np.empty((n_metrics, 0), dtype=bool)
    ids = concatenated_ids([part.ids for part in measured])
    codes = encode_qid(ids, len(ids))
    order = np.argsort(codes, kind="stable")
    repeated = np.flatnonzero(codes[order][1:] == codes[order][:-1])
    if len(repeated):
        batches = np.concatenate([np.full(len(part.ids), part.batch) for part in measured])
        first, second = order[repeated[0]], order[repeated[0] + 1]
        raise ValueError(
            f"Query {plain(ids[first])!r} was measured twice (in updates {batches[first]} and {batches[second]}, "
            "or in two merged accumulators): its rows came in two parts, each taken for a whole query. Pass "
            "open_queries='last' (or the ids) to update where a query's rows continue in the next batch, or "
            "give each batch and worker whole queries."
        )
    weights = None
    if any(part.weights is not None for part in measured):
        weights = np.concatenate([np.ones(len(p.ids)) if p.weights is None else p.weights for p in measured])[order]
    values = np.concatenate([part.values for part in measured], axis=1)[:, order]
    defined = np.concatenate([part.defined for part in measured], axis=1)[:, order]
    return ids[order], weights, values, defined
