"""Grouped ranking metrics and scorers for scikit-learn model selection."""

import importlib

__version__ = "0.1.0.dev0"

__all__ = [
    "GroupedRanker",
    "QueryComparisonDisplay",
    "QueryGroupWarning",
    "RankingComparison",
    "RankingCurveDisplay",
    "alpha_ndcg_score",
    "bpref_score",
    "catalog_coverage",
    "compare_rankings",
    "cumulative_gain_score",
    "dcg_score",
    "expected_reciprocal_rank_score",
    "f1_at_k_score",
    "get_ranking_scorer",
    "get_ranking_scorer_names",
    "hit_rate_score",
    "intent_aware_err_score",
    "interpolated_precision_score",
    "load_lambdarank",
    "load_svmlight_ranking",
    "make_ranking",
    "make_ranking_scorer",
    "mean_average_precision_score",
    "mean_reciprocal_rank_score",
    "ndcg_score",
    "permutation_importance",
    "precision_at_k_score",
    "qid_from_sizes",
    "r_precision_score",
    "rank_biased_precision_score",
    "ranking_report",
    "recall_at_k_score",
    "subtopic_recall_score",
]

# The module of each public name. The names are imported on first use (PEP 562), so that using one part
# of the package (the trec_eval command, the readers) does not import the others, scikit-learn and
# scipy.stats among them (a second in all).
_MODULES = {
    "GroupedRanker": "._ranker",
    "QueryComparisonDisplay": "._plot",
    "QueryGroupWarning": "._guards",
    "RankingComparison": "._compare",
    "RankingCurveDisplay": "._plot",
    "alpha_ndcg_score": "._diversity",
    "bpref_score": "._ir_measures",
    "catalog_coverage": "._coverage",
    "compare_rankings": "._compare",
    "cumulative_gain_score": "._dcg",
    "dcg_score": "._dcg",
    "expected_reciprocal_rank_score": "._cascade",
    "f1_at_k_score": "._precision",
    "get_ranking_scorer": "._scorer",
    "get_ranking_scorer_names": "._scorer",
    "hit_rate_score": "._precision",
    "intent_aware_err_score": "._diversity",
    "interpolated_precision_score": "._ir_measures",
    "load_lambdarank": ".datasets",
    "load_svmlight_ranking": ".datasets",
    "make_ranking": ".datasets",
    "make_ranking_scorer": "._scorer",
    "mean_average_precision_score": "._precision",
    "mean_reciprocal_rank_score": "._cascade",
    "ndcg_score": "._dcg",
    "permutation_importance": "._inspection",
    "precision_at_k_score": "._precision",
    "qid_from_sizes": ".datasets",
    "r_precision_score": "._precision",
    "rank_biased_precision_score": "._ir_measures",
    "ranking_report": "._report",
    "recall_at_k_score": "._precision",
    "subtopic_recall_score": "._diversity",
}
# The public subpackages and modules, also imported on first use as attributes (sklearn_rankmetrics.trec).
_SUBMODULES = ("dask", "datasets", "trec", "trec_eval")


def __getattr__(name):
    if name in _MODULES:
        value = getattr(importlib.import_module(_MODULES[name], __name__), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # once imported, an ordinary attribute
    return value


def __dir__():
    return sorted({*globals(), *__all__})
