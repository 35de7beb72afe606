"""optimize_fusion: a fusion's parameters tuned by grouped cross-validation, on queries held out from the tuning."""

import itertools
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import GridSearchCV, GroupKFold

from .._core._validation import check_integer
from ..model_selection._scorer import make_ranking_scorer
from ..registry._names import parse_metric_name
from ._fuse import fuse
from ._judgements import judged_candidates
from ._lists import runs_table
from ._names import method_name
from ._ranker import FusionRanker

# ranx's grids of each method's parameter (its defaults, coarser where ranx steps by 0.01).
PARAM_GRIDS = {
    "rrf": {"k": list(range(10, 101, 10))},
    "rbc": {"phi": [round(0.1 * step, 1) for step in range(1, 10)]},
    "logn_isr": {"sigma": [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0]},
    "gmnz": {"gamma": [round(0.1 * step, 1) for step in range(1, 11)]},
    "probfuse": {"n_segments": [2, 5, 10, 15, 20, 25, 30, 40, 50]},
    "slidefuse": {"w": [1, 2, 3, 5, 7, 10]},
}
WEIGHTED = ("wsum", "wmnz", "mixed", "w_bordafuse", "w_condorcet")


def weight_grid(n_runs, step=0.1):
    """Every vector of ``n_runs`` weights that are multiples of ``step`` and sum to 1 (ranx's grid)."""
    units = round(1 / step)
    grid = []
    for cuts in itertools.combinations(range(units + n_runs - 1), n_runs - 1):
        parts = np.diff((-1, *cuts, units + n_runs - 1)) - 1
        grid.append(tuple(round(float(part) * step, 10) for part in parts))
    return grid


@dataclass
class FusionSearch:
    """What :func:`optimize_fusion` found, and how it was validated.

    Attributes
    ----------
    best_params : dict
        The parameters of the best setting, by its mean score over the folds.
    best_score : float
        That mean: the score of the setting chosen for being best on these
        very folds, so optimistic (as ``GridSearchCV.best_score_``).
    held_out_score : float
        The honest estimate: the mean over folds of the score, on each fold,
        of the setting that the other folds choose (nested cross-validation;
        exact for the methods that learn nothing, whose scores on a fold do
        not depend on the others; for the learned ones, each setting's
        scores come from fits on the other folds, as in the search).
    validation : str
        How the settings were scored: on which queries, held out from which.
    cv_results : dict
        ``GridSearchCV.cv_results_``: every setting's score on every fold.
    search : GridSearchCV
        The fitted search over :class:`FusionRanker`.
    method, normalization : str
        The fusion tuned.
    """

    best_params: dict
    best_score: float
    held_out_score: float
    validation: str
    cv_results: dict
    search: object
    method: str
    normalization: str | None

    def fuse(self, runs, **options):
        """Fuse ``runs`` with the best setting (``options``: :func:`fuse`'s others, such as ``qrels``)."""
        params = {"method": self.method, "normalization": self.normalization, **self.best_params, **options}
        return fuse(runs, **params)

    def __repr__(self):
        return (
            f"FusionSearch(method={self.method!r}, best_params={self.best_params!r}, "
            f"held_out_score={self.held_out_score:.4f}; {self.validation})"
        )


def optimize_fusion(
    runs,
    qrels,
    *,
    method="wsum",
    normalization="min-max",
    param_grid=None,
    metric="ndcg@10",
    cv=5,
    ties="average",
    missing=None,
    n_jobs=None,
):
    """Tune a fusion of runs by grouped cross-validation: each setting is scored on queries it was not tuned on.

    The runs become one grouped table (a row per query and candidate
    document, a column per run, the judgements as labels) and
    ``GridSearchCV`` searches a :class:`FusionRanker` over it with
    ``GroupKFold`` on the queries: the reported score of each setting is its
    mean over folds of queries held out from the ones that chose it (and
    that trained it, for a supervised method). ranx's ``optimize_fusion``
    instead scores every setting on the very queries it tunes on, which
    overstates the best one: ``cv=None`` does that, with a warning.

    Parameters
    ----------
    runs : list or dict of runs
        Two or more runs, as :func:`fuse` takes them.
    qrels : path, dict, DataFrame or Qrels
        The judgements of the tuning queries (queries they lack are left
        out; judged documents that no run retrieved count in the metric's
        ideal ranking, ranked below every retrieved one).
    method : str, default="wsum"
        The fusion method, as :func:`fuse` takes it.
    normalization : str, default="min-max"
        As in :func:`fuse`; also a parameter the grid may search.
    param_grid : dict or list of dicts, default=None
        The settings to try, as ``GridSearchCV`` takes them, over
        :class:`FusionRanker`'s parameters (``weights``, ``k``,
        ``normalization``, ...). None: the method's own grid, ranx's: the
        weights that are multiples of 0.1 summing to 1 for W-Sum, W-MNZ,
        Mixed and the weighted Borda and Condorcet fusions; ``k`` from 10
        to 100 for RRF; ``phi``, ``sigma``, ``gamma``, ``n_segments`` or
        ``w`` for RBC, LogN_ISR, CombGMNZ, ProbFuse and SlideFuse; a
        method without parameters is only cross-validated.
    metric : str or callable, default="ndcg@10"
        A name of :func:`get_ranking_scorer` (``"map"``, ``"ndcg@20"``), or
        a scorer.
    cv : int, cross-validation splitter or None, default=5
        The number of ``GroupKFold`` folds over the queries, or a splitter
        that takes ``groups`` (the query ids); None: no held-out queries
        (ranx's way, optimistic; warns).
    ties : {"average", "trec_eval", "ranx"}, default="average"
        As in :func:`fuse` (``"trec_eval"`` ranks ties by row order here: a
        table has no document ids, and ``"average"`` is advised).
    missing : {"min"}, float or None, default=None
        As in :func:`fuse`.
    n_jobs : int, default=None
        Parallel jobs of the search.

    Returns
    -------
    search : FusionSearch
        The best parameters; ``held_out_score``, the score of tuning on
        some queries and fusing others (each fold scored with the setting
        the other folds chose); ``best_score``, the best setting's own mean
        (optimistic: it chose itself on those folds); how they were
        validated (``search.validation``); every setting's fold scores; and
        ``search.fuse(runs)`` to fuse with the best setting.

    See Also
    --------
    FusionRanker : The estimator searched; use it directly in any search.
    fuse : Fuse runs with given parameters.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics.fusion import optimize_fusion
    >>> rng = np.random.default_rng(0)
    >>> qrels = {f"q{q}": {f"d{d}": int(d < 3) for d in range(10)} for q in range(20)}
    >>> lexical = {q: {f"d{d}": float(-d + 3 * rng.random()) for d in range(10)} for q in qrels}
    >>> dense = {q: {f"d{d}": float(-d + 6 * rng.random()) for d in range(10)} for q in qrels}
    >>> search = optimize_fusion([lexical, dense], qrels, method="wsum", cv=4)
    >>> search.best_params
    {'weights': (0.7, 0.3)}
    >>> search.validation  # doctest: +ELLIPSIS
    'GroupKFold(n_splits=4) over the 20 judged queries: held_out_score scores each fold with the setting chosen...'
    """
    method = method_name(method)
    table = runs_table(runs)
    relevance, n_relevant, (missed_query, missed_relevance) = judged_candidates(table, qrels, unretrieved=True)
    X, y, qid = tuning_table(table, relevance, n_relevant, missed_query, missed_relevance)
    n_queries = int((n_relevant >= 0).sum())
    if not n_queries:
        raise ValueError("no query of the runs is judged in qrels: check that both use the same query ids.")
    searched = param_grid
    if param_grid is None:
        param_grid = default_grid(method, table.lists.n_runs)
    scorer = metric if callable(metric) else column_scorer(metric)
    splits, validation = folds(cv, X, y, qid, n_queries)
    ranker = FusionRanker(method, normalization=normalization, ties=ties, missing=missing, qid_column=0)
    search = GridSearchCV(
        ranker, param_grid, scoring=scorer, cv=splits, n_jobs=n_jobs, error_score="raise", refit=first_best
    )
    search.fit(X, y)
    best = dict(search.best_params_)  # a searched method or normalisation stays in it, as GridSearchCV's
    if searched is None:
        best.pop("method", None)  # the default grid of a method without parameters: only cross-validated
    normalization = best.get("normalization", normalization)
    method = best.get("method", method)
    score = float(search.cv_results_["mean_test_score"][search.best_index_])
    held_out = nested_score(search.cv_results_, len(splits))
    return FusionSearch(best, score, held_out, validation, search.cv_results_, search, method, normalization)


def first_best(cv_results):
    """The first setting in the grid whose mean score is the best, scores equal up to rounding being equal.

    (ranx keeps the last of equal scores; the grid's order is the caller's.)
    """
    return best_of(np.asarray(cv_results["mean_test_score"], dtype=np.float64))


def best_of(means):
    """The first index of the best of ``means``, values equal up to rounding being equal."""
    top = np.nanmax(means)
    return int(np.flatnonzero(means >= top - 1e-12 * max(1.0, abs(top)))[0])


def nested_score(cv_results, n_splits):
    """The mean over folds of each fold's score of the setting best on the other folds (one fold: its best)."""
    split_scores = np.array([cv_results[f"split{i}_test_score"] for i in range(n_splits)])  # folds x settings
    if n_splits == 1:
        return float(split_scores[0, best_of(split_scores[0])])
    total = split_scores.sum(axis=0)
    chosen = [best_of((total - split_scores[i]) / (n_splits - 1)) for i in range(n_splits)]
    return float(np.mean([split_scores[i, choice] for i, choice in enumerate(chosen)]))


def column_scorer(metric):
    """The scorer of a metric name (as :func:`get_ranking_scorer` reads it) that reads the query ids in column 0."""
    score_func, options = parse_metric_name(metric)
    scorer_options = {key: options.pop(key) for key in ("greater_is_better", "response_method") if key in options}
    options.pop("qid_column", None)
    return make_ranking_scorer(score_func, qid_column=0, **scorer_options, **options)


def default_grid(method, n_runs):
    """ranx's grid of the method's parameters (see :func:`optimize_fusion`)."""
    if method in WEIGHTED:
        return {"weights": weight_grid(n_runs)}
    return PARAM_GRIDS.get(method, {"method": [method]})


def tuning_table(table, relevance, n_relevant, missed_query, missed_relevance):
    """The judged queries' candidates as a table: query code, then one score column per run (NaN: not retrieved).

    Judged documents that no run retrieved are rows without any score.
    """
    lists = table.lists
    judged = n_relevant >= 0
    scores = np.full((lists.n_candidates, lists.n_runs), np.nan)
    scores[lists.candidate, lists.run] = lists.score
    kept = judged[lists.candidate_query]
    missed = judged[missed_query] & (missed_relevance > 0)
    qid = np.concatenate((lists.candidate_query[kept], missed_query[missed]))
    X = np.column_stack((qid, np.vstack((scores[kept], np.full((int(missed.sum()), lists.n_runs), np.nan)))))
    y = np.concatenate((relevance[kept], missed_relevance[missed])).astype(np.float64)
    order = np.argsort(qid, kind="stable")
    return X[order], y[order], qid[order]


def folds(cv, X, y, qid, n_queries):
    """The folds over the queries, and the sentence that says how the settings are scored."""
    if cv is None:
        warnings.warn(
            "optimize_fusion(cv=None) scores every setting on the queries it is tuned on (ranx's optimize_fusion "
            "does): the best score is optimistic. Keep the default cv=5, which holds queries out.",
            UserWarning,
            stacklevel=3,
        )
        every = np.arange(len(y))
        return [(every, every)], f"no held-out queries: each setting scored on the {n_queries} queries it is tuned on"
    if not hasattr(cv, "split"):
        n_splits = check_integer("cv", cv, low=2)
        if n_splits > n_queries:
            raise ValueError(f"cv={n_splits} folds need at least {n_splits} judged queries; the runs have {n_queries}.")
        cv = GroupKFold(n_splits=n_splits)
    splits = list(cv.split(X, y, groups=qid))
    name = f"GroupKFold(n_splits={cv.n_splits})" if type(cv) is GroupKFold else repr(cv)
    return splits, (
        f"{name} over the {n_queries} judged queries: held_out_score scores each fold with the setting chosen on "
        "the others"
    )
