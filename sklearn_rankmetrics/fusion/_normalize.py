"""Score normalisations, per run and query, and the scores given to documents that a run did not retrieve.

Every statistic is of one run's result list for one query, computed for all
lists at once with segment reductions over the ranked rows. The formulas and
their floor of 1e-9 on a denominator are ranx 0.3's (``ranx.normalize``).
"""

import numbers

import numpy as np

from .._core._validation import plain

# ranx's floor on every denominator: a list whose scores are all equal normalises to 0 (min-max, sum, zmuv).
FLOOR = 1e-9


def list_starts(ranked):
    """Where each list starts among the ranked rows."""
    return np.flatnonzero(ranked.position == 0)


def normalized_scores(lists, ranked, normalization):
    """The scores of the ranked rows of ``lists`` after ``normalization`` (a canonical name or None).

    ``"borda"`` gives the retrieved documents' scores only; :func:`fill_values`
    gives the others theirs. Each statistic is computed once per list and
    repeated on its rows only where a row needs it.
    """
    score = lists.score
    if normalization is None or not len(score):
        return score
    starts = list_starts(ranked)
    sizes = np.diff(starts, append=len(score))

    def on_rows(values):
        return np.repeat(values, sizes)

    if normalization == "rank":
        return 1.0 - (ranked.rank - 1.0) / ranked.list_size
    if normalization == "borda":
        return 1.0 - (ranked.rank - 1.0) / candidates_of_query(lists)[lists.query]
    if normalization == "zmuv":
        deviation = score - on_rows(np.add.reduceat(score, starts) / sizes)
        std = np.sqrt(np.add.reduceat(deviation * deviation, starts) / sizes)
        deviation /= on_rows(np.maximum(std, FLOOR))
        return deviation
    high, low = np.maximum.reduceat(score, starts), np.minimum.reduceat(score, starts)
    if normalization == "max":
        return score / on_rows(np.maximum(high, FLOOR))
    if normalization == "sum":
        denominator = np.maximum(np.add.reduceat(score, starts) - low * sizes, FLOOR)
    else:
        denominator = np.maximum(high - low, FLOOR)
    normalized = on_rows(high) - score if normalization == "min-max-inverted" else score - on_rows(low)
    normalized /= on_rows(denominator)
    return normalized


def candidates_of_query(lists):
    """The number of candidate documents of each query: those that any run retrieves."""
    return np.bincount(lists.candidate_query, minlength=lists.n_queries)


def check_missing(missing):
    """``missing``: None, ``"min"`` or a finite number."""
    if missing is None or (isinstance(missing, str) and missing == "min"):
        return missing
    if isinstance(missing, numbers.Real) and not isinstance(missing, bool) and np.isfinite(missing):
        return float(missing)
    raise ValueError(
        f"missing must be None (each method's own convention), 'min' (the run's lowest score of the query, "
        f"Ma et al. 2021) or a finite number; got {plain(missing)!r}."
    )


def fill_values(lists, score, normalization, missing):
    """The score each list gives the candidates of its query that it did not retrieve (NaN: none).

    One value per list, indexed by ``run * n_queries + query``. Borda
    normalisation shares the points left below the list's last document among
    them: ``0.5 - (n - 1) / (2 N)`` for a list of ``n`` of the query's ``N``
    candidates. ``missing="min"`` gives them the list's lowest (normalised)
    score; a number gives them that number; None fills nothing.
    """
    n_queries = max(lists.n_queries, 1)
    n_lists = lists.n_runs * n_queries
    list_code = lists.run.astype(np.int64) * n_queries + lists.query
    if normalization == "borda":
        sizes = np.bincount(list_code, minlength=n_lists)
        n_candidates = np.tile(candidates_of_query(lists), lists.n_runs) if lists.n_queries else np.ones(n_lists)
        return 0.5 - (sizes - 1.0) / (2.0 * np.maximum(n_candidates, 1))
    if missing is None:
        return None
    if missing == "min":
        lowest = np.full(n_lists, np.inf)
        np.minimum.at(lowest, list_code, score)
        return np.where(np.isinf(lowest), np.nan, lowest)  # a list without any document has no minimum
    return np.full(n_lists, missing)


def filled_rows(lists, fill):
    """The (run, candidate) pairs that no row holds, for the runs whose list of the candidate's query has a fill.

    Returns their run, query and candidate codes and their fill scores.
    """
    n_queries = max(lists.n_queries, 1)
    runs, candidates = [], []
    present = np.zeros(lists.n_candidates, dtype=bool)
    every = np.arange(lists.n_candidates)
    for run in range(lists.n_runs):  # a pass per run (few), each over the candidates
        present[:] = False
        present[lists.candidate[lists.run == run]] = True
        absent = every[~present]
        absent = absent[~np.isnan(fill[run * n_queries + lists.candidate_query[absent]])]
        runs.append(np.full(len(absent), run, dtype=np.int32))
        candidates.append(absent)
    run = np.concatenate(runs)
    candidate = np.concatenate(candidates)
    query = lists.candidate_query[candidate]
    return run, query, candidate, fill[run.astype(np.int64) * n_queries + query]
