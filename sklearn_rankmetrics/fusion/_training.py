"""What the supervised methods learn from training queries: each run's chance of relevance by position, its MAP.

A document is relevant when its judgement is at least 1 (trec_eval's and
ranx's relevance level). Every estimate is over the training queries that
the run answers: the queries that the training judgements hold (for a grouped
table, those of its rows). Under ``ties="average"`` a tie block's hits are
spread evenly over the positions it spans (the mean over the orderings of
the block), so no estimate depends on the input order.
"""

import warnings
from dataclasses import dataclass, replace

import numpy as np

from .._core._numpy_ops import positions_in_segments
from .._core._parallel import map_in_threads
from ..metrics._precision import mean_average_precision_score

# SegFuse's segments (Shokouhi 2007) as ranx 0.3 places them: ends at 10 * 2**(k - 1) - 5 for k = 1..10.
SEGFUSE_BOUNDS = np.array([0] + [10 * 2 ** (k - 1) - 5 for k in range(1, 11)])
# BayesFuse's segments of positions, ranx 0.3's, over which the chance of relevance is averaged.
BAYES_CUTOFFS = np.array([0, 5, 10, 15, 20, 30, 100, 200, 500, 1000])
# The log-odds of a document that a run did not retrieve (and of a position past 1,000), ranx's.
MIN_LOG_ODDS = float(np.log(0.001 / 0.999))


@dataclass
class TrainingRows:
    """The rows a supervised method learns from: the training queries' result lists, list after list, in rank order.

    ``run``, ``query`` (codes), ``position`` (0-based) and ``list_size`` of
    each row, and ``hits``: whether its document is relevant, under
    ``ties="average"`` the mean over its tie block. MAPFuse also reads
    ``relevant`` and ``key``, the ranking score of each row (None for the
    other methods).
    """

    run: np.ndarray
    query: np.ndarray
    position: np.ndarray
    list_size: np.ndarray
    hits: np.ndarray
    n_runs: int
    relevant: np.ndarray | None = None
    key: np.ndarray | None = None

    @classmethod
    def of(cls, lists, ranked, relevance, n_relevant, *, ties, for_map):
        """The training rows of ``lists`` in rank order (as ``ranked`` places them); ``relevance``: the judgement of
        each row's document; ``n_relevant``: the number of relevant documents of each query (-1: not a training
        query); ``for_map``: keep what MAPFuse reads."""
        relevant = relevance >= 1
        hits = ranked.block_mean(relevant.astype(np.float64))  # tie blocks lie within lists, kept or dropped whole
        rows = cls(lists.run, lists.query, ranked.position, ranked.list_size, hits, lists.n_runs)
        if for_map:
            rows.relevant = relevant
            rows.key = lists.score if ties == "average" else -ranked.position.astype(np.float64)
        training = n_relevant[lists.query] >= 0
        if training.all():
            return rows
        training = np.flatnonzero(training)  # an index array: far faster than a mask
        return replace(rows, **{name: array[training] for name, array in rows.arrays().items()})

    def arrays(self):
        """The row arrays by field name (``relevant`` and ``key`` only where kept)."""
        names = ("run", "query", "position", "list_size", "hits") + (() if self.key is None else ("relevant", "key"))
        return {name: getattr(self, name) for name in names}

    @classmethod
    def joined(cls, parts, codes, n_queries):
        """The training rows of pieces of the queries (each query in one piece; ``codes[i]`` maps piece i's query
        codes to the whole's) as the whole's: list after list by run, then query, so that every statistic adds the
        same numbers in the same order.

        The lists' sizes give each row's run, query and position in the
        whole; each piece's values (hits, and MAPFuse's) are written, on the
        library's threads, at their places: their list's start plus their
        position.
        """
        if len(parts) == 1:
            return replace(parts[0], query=codes[0][parts[0].query])
        sizes = np.zeros(parts[0].n_runs * n_queries, dtype=np.intp)  # of each list, by run, then query
        for part, code in zip(parts, codes, strict=True):
            head = np.flatnonzero(part.position == 0)
            sizes[part.run[head].astype(np.intp) * n_queries + code[part.query[head]]] = part.list_size[head]
        listed = np.flatnonzero(sizes)
        list_sizes = sizes[listed]
        n_rows = int(list_sizes.sum())
        whole = cls(
            np.repeat((listed // n_queries).astype(parts[0].run.dtype), list_sizes),
            np.repeat(listed % n_queries, list_sizes),
            positions_in_segments(np.cumsum(list_sizes) - list_sizes, n_rows),
            np.repeat(list_sizes, list_sizes),
            np.empty(n_rows),
            parts[0].n_runs,
        )
        if parts[0].key is not None:
            whole.relevant, whole.key = np.empty(n_rows, dtype=bool), np.empty(n_rows)
        starts = np.cumsum(sizes) - sizes

        def place(part, code):
            at = starts[part.run.astype(np.intp) * n_queries + code[part.query]] + part.position
            for name in ("hits", "relevant", "key") if part.key is not None else ("hits",):
                getattr(whole, name)[at] = getattr(part, name)

        map_in_threads(place, parts, codes)
        return whole


def learn(kind, rows, n_relevant, *, ties, n_segments=None):
    """The statistics of a supervised method (``kind``, as :data:`~._names.METHODS` names it) from
    :class:`TrainingRows`; ``n_relevant``: the number of relevant documents of each query (-1: no training query)."""
    per_run = np.bincount(rows.run[rows.position == 0], minlength=rows.n_runs).astype(np.float64)  # lists per run
    if kind == "map":
        return run_map(rows, n_relevant, ties)
    if kind == "positions":
        return position_chances(rows, per_run)
    if kind == "segments":
        return segment_chances(rows, per_run, n_segments)
    bounds = SEGFUSE_BOUNDS if kind == "segfuse" else BAYES_CUTOFFS
    chances = fixed_segment_chances(rows, per_run, bounds)
    return chances if kind == "segfuse" else log_odds(chances)


def position_chances(rows, per_run):
    """PosFuse and SlideFuse: each run's share of relevant documents at each position (Lillis et al. 2010).

    The share at position p is over the lists that reach it: ranx's.
    """
    length = int(rows.list_size.max(initial=1))
    cell = rows.run.astype(np.int64) * length + rows.position
    found = np.bincount(cell, rows.hits, rows.n_runs * length).reshape(rows.n_runs, length)
    head = rows.position == 0
    ending = np.bincount(
        rows.run[head].astype(np.int64) * (length + 1) + rows.list_size[head], minlength=rows.n_runs * (length + 1)
    )
    reaching = per_run[:, None] - np.cumsum(ending.reshape(rows.n_runs, length + 1), axis=1)[:, :length]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(reaching > 0, found / reaching, 0.0)


def segment_chances(rows, per_run, n_segments):
    """ProbFuse: each run's mean share of relevant documents in each of ``n_segments`` segments (Lillis et al. 2006).

    A list of n documents has segments of ceil(n / n_segments) (the last ones
    shorter or empty); a segment's share is its hits over its length, and the
    mean is over the run's training lists, as ranx computes it.
    """
    size = -(-rows.list_size // n_segments)
    segment = rows.position // size
    length = np.minimum(size, rows.list_size - segment * size)
    cell = rows.run.astype(np.int64) * n_segments + segment
    share = np.bincount(cell, rows.hits / length, rows.n_runs * n_segments).reshape(rows.n_runs, n_segments)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(per_run[:, None] > 0, share / per_run[:, None], 0.0)


def fixed_segment_chances(rows, per_run, bounds):
    """SegFuse and BayesFuse: each run's mean share of relevant documents in segments of fixed bounds.

    A segment's share is its hits over its full length, however short the list.
    """
    n_segments = len(bounds) - 1
    segment = np.searchsorted(bounds, rows.position, side="right") - 1
    inside = segment < n_segments
    widths = np.diff(bounds).astype(np.float64)
    cell = rows.run[inside].astype(np.int64) * n_segments + segment[inside]
    share = np.bincount(cell, rows.hits[inside] / widths[segment[inside]], rows.n_runs * n_segments)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(per_run[:, None] > 0, share.reshape(rows.n_runs, n_segments) / per_run[:, None], 0.0)


def log_odds(chances):
    """BayesFuse's log-odds of relevance per segment (Aslam and Montague 2001); ranx's 0.001 for a share of 0 or 1."""
    chances = np.where(chances == 0, 0.001, chances)
    against = 1.0 - chances
    against = np.where(against == 0, 0.001, against)
    return np.log(chances / against)


def run_map(rows, n_relevant, ties):
    """MAPFuse: each run's mean average precision over its training queries (R: the query's relevant documents).

    Under ``ties="average"``, the exact mean of AP over the orderings of each
    tie block; otherwise AP of the ranking that the tie policy gives.
    """
    maps = np.zeros(rows.n_runs)
    for run in range(rows.n_runs):  # a call per run, each over all its queries at once
        mine = rows.run == run
        if not mine.any():
            continue
        query, relevant = rows.query[mine], rows.relevant[mine]
        found = np.bincount(query[relevant], minlength=len(n_relevant))
        answered = np.unique(query)
        unretrieved = np.maximum(n_relevant[answered] - found[answered], 0)
        qid = np.concatenate((query, np.repeat(answered, unretrieved)))
        labels = np.concatenate((relevant.astype(np.float64), np.ones(int(unretrieved.sum()))))
        scores = np.concatenate((rows.key[mine], np.full(int(unretrieved.sum()), -np.inf)))
        with warnings.catch_warnings():  # a training query without a relevant document has AP 0, as in ranx
            warnings.simplefilter("ignore")
            maps[run] = mean_average_precision_score(
                labels, scores, qid=qid, ties="average" if ties == "average" else "stable"
            )
    return maps
