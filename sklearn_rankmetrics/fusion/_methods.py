"""The fusion methods: each candidate's fused score from the runs' ranked, normalised rows, for all queries at once.

Every method is a sum over runs of a per-row value, reduced per candidate
with ``bincount``, but the Comb family's maximum, minimum and median (one
sort by candidate) and Condorcet (:mod:`._condorcet`). Ranks are 1-based;
under ``ties="average"`` a tie block's rows share the average of the ranks
they span, and the methods that read a value per position (PosFuse,
ProbFuse, SegFuse, SlideFuse, BayesFuse) give them the mean of the values
of the positions they span.
"""

import numpy as np

from ._condorcet import condorcet_scores
from ._training import BAYES_CUTOFFS, MIN_LOG_ODDS, SEGFUSE_BOUNDS


def fused_scores(rows, method, params, weights, trained):
    """The fused score of every candidate (``-inf`` for a candidate that no run retrieves).

    ``rows`` is a :class:`FusionRows`; ``method`` a canonical name (or a
    callable); ``params`` its parameters; ``weights`` one per run;
    ``trained`` the statistics of a supervised method (None otherwise).
    """
    lists = rows.lists
    n_candidates = lists.n_candidates
    retrieved = np.bincount(lists.candidate, minlength=n_candidates)
    if callable(method):
        fused = called_method(method, rows)
    else:
        kind = KINDS[method]
        fused = kind(rows, method, params, weights, trained)
    fused = np.asarray(fused, dtype=np.float64)
    return np.where(retrieved > 0, fused, -np.inf)


def score_based(rows, method, params, weights, trained):
    """CombSUM, CombMNZ, CombANZ, CombMAX, CombMIN, CombMED, CombGMNZ, W-Sum, W-MNZ and Mixed on the scores.

    Rows filled for documents a run did not retrieve (``missing``, Borda
    normalisation) count as retrieved by it.
    """
    run, candidate, score = rows.scored()
    n = rows.lists.n_candidates
    weighted = score if np.all(weights == 1.0) else weights[run] * score
    if method in ("sum", "wsum"):
        return np.bincount(candidate, weighted, n)
    count = np.bincount(candidate, minlength=n)
    if method in ("max", "min", "med"):
        return order_statistic(candidate, run, weighted, count, rows.lists.n_runs, method)
    if method == "wmnz":  # Wu et al.: the sum of the scores times the sum of the weights of the runs that retrieved it
        return np.bincount(candidate, score, n) * np.bincount(candidate, weights[run], n)
    total = np.bincount(candidate, weighted, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = {
            "mnz": count,
            "anz": 1.0 / count,
            "gmnz": count ** params.get("gamma", 1.0),
            "mixed": np.sqrt(count),
        }[method]
    return total * factor


def order_statistic(candidate, run, value, count, n_runs, method):
    """The maximum, minimum or median (the mean of the two middle ones for an even count) per candidate.

    Each candidate's values sorted: down its column of a (runs x candidates)
    table (a run scores a candidate once; its empty cells are +inf, after
    the values; :func:`sort_columns`), where that table holds at most 4
    cells per value; else by one lexsort of all the values by candidate. A
    zero comes out as 0.0, never -0.0, whichever sort ran.
    """
    n = len(count)
    present = slice(None) if count.all() else np.flatnonzero(count)  # the candidates of runs: all (a view)
    if n * n_runs <= 4 * len(value) + 2**16:
        table = np.full((n_runs, n), np.inf)
        cell = run.astype(np.intp)
        cell *= n
        cell += candidate
        table.reshape(-1)[cell] = value  # a flat index: 4 times faster than a pair of index arrays
        sort_columns(table)
        ordered, first, step = table.reshape(-1), np.arange(n), n  # a candidate's i-th value at first + i * n
    else:
        ordered = value[np.lexsort((value, candidate))]
        first, step = np.cumsum(count) - count, 1
    out = np.zeros(n)
    first, count = first[present], count[present]
    if method == "max":
        out[present] = ordered[first + (count - 1) * step]
    elif method == "min":
        out[present] = ordered[first]
    else:
        out[present] = (ordered[first + (count - 1) // 2 * step] + ordered[first + count // 2 * step]) / 2.0
    out += 0.0  # -0.0 and 0.0 tie in either sort, in either order: always 0.0
    return out


def sort_columns(table):
    """Each column of a 2-D table sorted, in place. Up to 8 rows, by a sorting network (Batcher's odd-even merge
    sort) of element-wise minima and maxima of whole rows: numpy sorts many short columns a call each, 4 times
    slower."""
    if len(table) > 8:
        table.sort(axis=0)
        return
    low = np.empty(table.shape[1])
    for upper, lower in merge_network(len(table)):
        np.minimum(table[upper], table[lower], out=low)
        np.maximum(table[upper], table[lower], out=table[lower])
        table[upper] = low


def merge_network(n):
    """The comparators (i, j), i < j, of Batcher's odd-even merge sort of ``n`` items, any ``n``: applied in turn,
    each putting the smaller of items i and j at i, they sort any ``n`` items."""
    pairs = []
    width = 1
    while width < n:  # merge sorted blocks of ``width`` items into blocks of twice that
        step = width
        while step >= 1:
            for start in range(step % width, n - step, 2 * step):
                for offset in range(min(step, n - start - step)):
                    if (start + offset) // (2 * width) == (start + offset + step) // (2 * width):  # in one block
                        pairs.append((start + offset, start + offset + step))
            step //= 2
        width *= 2
    return pairs


def rank_based(rows, method, params, weights, trained):
    """RRF, ISR, Log_ISR, LogN_ISR, RBC and MAPFuse: a formula of each run's (average) rank of the document."""
    lists = rows.lists
    n = lists.n_candidates
    if method == "rrf":
        k = params["k"]
        return np.bincount(lists.candidate, per_rank(rows.ranked, lists.run, weights, lambda w, r: w / (k + r)), n)
    if method == "rbc":
        phi = params["phi"]
        value = per_rank(rows.ranked, lists.run, weights, lambda w, r: w * (1.0 - phi) * phi ** (r - 1.0))
        return np.bincount(lists.candidate, value, n)
    if method == "mapfuse":  # weight * MAP / rank, the weight times the MAP first
        return np.bincount(lists.candidate, per_rank(rows.ranked, lists.run, weights * trained, np.divide), n)
    count = np.bincount(lists.candidate, minlength=n)
    total = np.bincount(lists.candidate, per_rank(rows.ranked, lists.run, weights, lambda w, r: w / (r * r)), n)
    with np.errstate(divide="ignore"):
        factor = {"isr": count, "log_isr": np.log(count), "logn_isr": np.log(count + params.get("sigma", 0.0))}[method]
    return total * factor


def per_rank(ranked, run, weights, formula):
    """``formula(weight, rank)`` of every ranked row, from its run's weight and its (average) rank.

    Without tie blocks a row's rank is its position + 1: the formula is
    computed once per run and position, and each row reads its own (the same
    floating-point operations on the same values, far fewer of them).
    """
    if ranked.has_ties or not len(run):
        return formula(weights[run], ranked.rank)
    ranks = np.arange(int(ranked.position.max()) + 1) + 1.0
    return formula(weights[:, None], ranks[None, :])[run, ranked.position]


def table_based(rows, method, params, weights, trained):
    """PosFuse, ProbFuse, SlideFuse, SegFuse and BayesFuse: a value learned per position of each run's list."""
    lists, ranked = rows.lists, rows.ranked
    value = ranked.block_mean(position_values(method, params, trained, lists.run, ranked))
    weight = weights[lists.run]
    n = lists.n_candidates
    if method == "segfuse":
        return np.bincount(lists.candidate, weight * value * (rows.score + 1.0), n)
    if method == "bayesfuse":
        # A run that did not retrieve the document adds the log-odds of an irrelevant one.
        return np.bincount(lists.candidate, weight * (value - MIN_LOG_ODDS), n) + MIN_LOG_ODDS * weights.sum()
    return np.bincount(lists.candidate, weight * value, n)


def position_values(method, params, trained, run, ranked):
    """The learned value of each ranked row's own position (0-based ``ranked.position``) in its run's list."""
    position = ranked.position
    if method == "posfuse":
        return padded(trained, position.max() + 1)[run, position]
    if method == "slidefuse":
        w = params["w"]
        low = np.maximum(position - w, 0)
        high = np.minimum(position + w, ranked.list_size - 1)
        table = padded(trained, position.max() + 1)
        running = np.concatenate((np.zeros((len(table), 1)), np.cumsum(table, axis=1)), axis=1)
        return (running[run, high + 1] - running[run, low]) / (high - low + 1)
    if method == "probfuse":
        x = trained.shape[1]
        segment = position // -(-ranked.list_size // x)  # ceil(n / x) documents a segment, the last one shorter
        return trained[run, segment] / (segment + 1.0)
    cutoffs = SEGFUSE_BOUNDS if method == "segfuse" else BAYES_CUTOFFS
    segment = np.searchsorted(cutoffs, position, side="right") - 1
    beyond = MIN_LOG_ODDS if method == "bayesfuse" else 0.0
    inside = segment < trained.shape[1]
    return np.where(inside, trained[run, np.minimum(segment, trained.shape[1] - 1)], beyond)


def padded(table, length):
    """A table of one value per run and position, zero past its end, at least ``length`` positions long."""
    if table.shape[1] >= length:
        return table
    return np.pad(table, ((0, 0), (0, length - table.shape[1])))


def borda_based(rows, method, params, weights, trained):
    """BordaFuse and weighted BordaFuse: a run gives its i-th of a query's N candidates N - i + 1 points.

    The candidates it did not retrieve share the points left, (N - n + 1) / 2
    each for a list of n documents (Aslam and Montague); a run that retrieved
    nothing for the query gives each (N + 1) / 2.
    """
    lists, ranked = rows.lists, rows.ranked
    n_queries = max(lists.n_queries, 1)
    n_candidates = np.bincount(lists.candidate_query, minlength=n_queries).astype(np.float64)
    list_code = lists.run.astype(np.int64) * n_queries + lists.query
    sizes = np.bincount(list_code, minlength=lists.n_runs * n_queries).reshape(lists.n_runs, n_queries)
    unranked = (n_candidates - sizes + 1.0) / 2.0  # run x query
    per_query = np.zeros(n_queries)
    for run, weight in enumerate(weights):  # run after run: the same sums whatever the number of queries (BLAS's vary)
        per_query += weight * unranked[run]
    points = n_candidates[lists.query] - ranked.rank + 1.0
    extra = weights[lists.run] * (points - unranked[lists.run, lists.query])
    return per_query[lists.candidate_query] + np.bincount(lists.candidate, extra, lists.n_candidates)


def condorcet_based(rows, method, params, weights, trained):
    """Condorcet and weighted Condorcet: see :func:`._condorcet.condorcet_scores`."""
    return condorcet_scores(rows.lists, rows.ranked.rank, weights)


def called_method(method, rows):
    """A callable method on the dense (candidates x runs) scores and ranks, NaN where a run lacks the document."""
    lists = rows.lists
    shape = (lists.n_candidates, lists.n_runs)
    scores, ranks = np.full(shape, np.nan), np.full(shape, np.nan)
    run, candidate, score = rows.scored()
    scores[candidate, run] = score
    ranks[lists.candidate, lists.run] = rows.ranked.rank
    fused = np.asarray(method(scores, ranks), dtype=np.float64)
    if fused.shape != (lists.n_candidates,):
        raise ValueError(
            f"a callable method must return one fused score per document, an array of shape ({lists.n_candidates},) "
            f"for scores and ranks of shape {shape}; {getattr(method, '__name__', method)!r} returned shape "
            f"{fused.shape}."
        )
    if np.isnan(fused).any():
        raise ValueError(f"the callable method {getattr(method, '__name__', method)!r} returned NaN fused scores.")
    return fused


KINDS = {
    **dict.fromkeys(("sum", "mnz", "anz", "max", "min", "med", "gmnz", "wsum", "wmnz", "mixed"), score_based),
    **dict.fromkeys(("isr", "log_isr", "logn_isr", "rrf", "rbc", "mapfuse"), rank_based),
    **dict.fromkeys(("posfuse", "probfuse", "segfuse", "slidefuse", "bayesfuse"), table_based),
    **dict.fromkeys(("bordafuse", "w_bordafuse"), borda_based),
    **dict.fromkeys(("condorcet", "w_condorcet"), condorcet_based),
}
