"""What the supervised methods learn from training queries: each run's chance of relevance by position, its MAP.

A document is relevant when its judgement is at least 1 (trec_eval's and
ranx's relevance level). Every estimate is over the training queries that
the run answers: the queries that the training judgements hold (for a grouped
table, those of its rows). Under ``ties="average"`` a tie block's hits are
spread evenly over the positions it spans (the mean over the orderings of
the block), so no estimate depends on the input order.
"""

import warnings

import numpy as np

from ..metrics._precision import mean_average_precision_score
from ._ties import Ranked

# SegFuse's segments (Shokouhi 2007) as ranx 0.3 places them: ends at 10 * 2**(k - 1) - 5 for k = 1..10.
SEGFUSE_BOUNDS = np.array([0] + [10 * 2 ** (k - 1) - 5 for k in range(1, 11)])
# BayesFuse's segments of positions, ranx 0.3's, over which the chance of relevance is averaged.
BAYES_CUTOFFS = np.array([0, 5, 10, 15, 20, 30, 100, 200, 500, 1000])
# The log-odds of a document that a run did not retrieve (and of a position past 1,000), ranx's.
MIN_LOG_ODDS = float(np.log(0.001 / 0.999))


def learn(kind, lists, ranked, relevance, n_relevant, *, ties, n_segments=None):
    """The statistics of a supervised method (``kind``, as :data:`~._names.METHODS` names it).

    ``lists`` and ``ranked``: the training runs' rows in rank order;
    ``relevance``: the judgement of each row's document; ``n_relevant``: the
    number of relevant documents of each query (-1: the query is not a
    training query).
    """
    training = n_relevant[lists.query] >= 0
    if not training.all():  # the rows of the training queries (an index array: far faster than a mask)
        training = np.flatnonzero(training)
        lists, ranked, relevance = lists.take(training), subset(ranked, training), relevance[training]
    hits = ranked.block_mean((relevance >= 1).astype(np.float64))
    per_run = lists_per_run(lists, ranked)
    if kind == "map":
        return run_map(lists, ranked, relevance, n_relevant, ties)
    if kind == "positions":
        return position_chances(lists, ranked, hits, per_run)
    if kind == "segments":
        return segment_chances(lists, ranked, hits, per_run, n_segments)
    bounds = SEGFUSE_BOUNDS if kind == "segfuse" else BAYES_CUTOFFS
    chances = fixed_segment_chances(lists, ranked, hits, per_run, bounds)
    return chances if kind == "segfuse" else log_odds(chances)


def subset(ranked, kept):
    """The ranked rows ``kept`` (increasing indices), their places unchanged (whole lists are kept or dropped)."""
    block_start = np.zeros(len(ranked.order), dtype=bool)
    block_start[ranked.block_starts] = True
    return Ranked(
        ranked.order[kept],
        ranked.position[kept],
        ranked.block[kept],
        ranked.block_size[kept],
        ranked.list_size[kept],
        np.flatnonzero(block_start[kept]),
    )


def lists_per_run(lists, ranked):
    """The number of training lists (queries answered) of each run."""
    return np.bincount(lists.run[ranked.position == 0], minlength=lists.n_runs).astype(np.float64)


def position_chances(lists, ranked, hits, per_run):
    """PosFuse and SlideFuse: each run's share of relevant documents at each position (Lillis et al. 2010).

    The share at position p is over the lists that reach it: ranx's.
    """
    length = int(ranked.list_size.max(initial=1))
    cell = lists.run.astype(np.int64) * length + ranked.position
    found = np.bincount(cell, hits, lists.n_runs * length).reshape(lists.n_runs, length)
    ends = ranked.list_size[ranked.position == 0]
    runs = lists.run[ranked.position == 0]
    ending = np.bincount(runs.astype(np.int64) * (length + 1) + ends, minlength=lists.n_runs * (length + 1))
    reaching = per_run[:, None] - np.cumsum(ending.reshape(lists.n_runs, length + 1), axis=1)[:, :length]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(reaching > 0, found / reaching, 0.0)


def segment_chances(lists, ranked, hits, per_run, n_segments):
    """ProbFuse: each run's mean share of relevant documents in each of ``n_segments`` segments (Lillis et al. 2006).

    A list of n documents has segments of ceil(n / n_segments) (the last ones
    shorter or empty); a segment's share is its hits over its length, and the
    mean is over the run's training lists, as ranx computes it.
    """
    size = -(-ranked.list_size // n_segments)
    segment = ranked.position // size
    length = np.minimum(size, ranked.list_size - segment * size)
    cell = lists.run.astype(np.int64) * n_segments + segment
    share = np.bincount(cell, hits / length, lists.n_runs * n_segments).reshape(lists.n_runs, n_segments)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(per_run[:, None] > 0, share / per_run[:, None], 0.0)


def fixed_segment_chances(lists, ranked, hits, per_run, bounds):
    """SegFuse and BayesFuse: each run's mean share of relevant documents in segments of fixed bounds.

    A segment's share is its hits over its full length, however short the list.
    """
    n_segments = len(bounds) - 1
    segment = np.searchsorted(bounds, ranked.position, side="right") - 1
    inside = segment < n_segments
    widths = np.diff(bounds).astype(np.float64)
    cell = lists.run[inside].astype(np.int64) * n_segments + segment[inside]
    share = np.bincount(cell, hits[inside] / widths[segment[inside]], lists.n_runs * n_segments)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(per_run[:, None] > 0, share.reshape(lists.n_runs, n_segments) / per_run[:, None], 0.0)


def log_odds(chances):
    """BayesFuse's log-odds of relevance per segment (Aslam and Montague 2001); ranx's 0.001 for a share of 0 or 1."""
    chances = np.where(chances == 0, 0.001, chances)
    against = 1.0 - chances
    against = np.where(against == 0, 0.001, against)
    return np.log(chances / against)


def run_map(lists, ranked, relevance, n_relevant, ties):
    """MAPFuse: each run's mean average precision over its training queries (R: the query's relevant documents).

    Under ``ties="average"``, the exact mean of AP over the orderings of each
    tie block; otherwise AP of the ranking that the tie policy gives.
    """
    maps = np.zeros(lists.n_runs)
    relevant = relevance >= 1
    key = lists.score if ties == "average" else -ranked.position.astype(np.float64)
    for run in range(lists.n_runs):  # a call per run, each over all its queries at once
        mine = lists.run == run
        if not mine.any():
            continue
        query = lists.query[mine]
        found = np.bincount(query[relevant[mine]], minlength=len(n_relevant))
        answered = np.unique(query)
        unretrieved = np.maximum(n_relevant[answered] - found[answered], 0)
        qid = np.concatenate((query, np.repeat(answered, unretrieved)))
        labels = np.concatenate((relevant[mine].astype(np.float64), np.ones(int(unretrieved.sum()))))
        scores = np.concatenate((key[mine], np.full(int(unretrieved.sum()), -np.inf)))
        with warnings.catch_warnings():  # a training query without a relevant document has AP 0, as in ranx
            warnings.simplefilter("ignore")
            maps[run] = mean_average_precision_score(
                labels, scores, qid=qid, ties="average" if ties == "average" else "stable"
            )
    return maps
