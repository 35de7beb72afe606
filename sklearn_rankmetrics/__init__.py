"""Grouped ranking metrics and scorers for scikit-learn model selection.

Every public name is importable from here; each lives in the subpackage of its
layer (:mod:`.metrics`, :mod:`.recommenders`, :mod:`.registry`,
:mod:`.model_selection`, :mod:`.stats`, :mod:`.trec`, :mod:`.datasets`) and is
imported on first use. The wings are :mod:`.fusion`, :mod:`.meta` and :mod:`.counterfactual`.
"""

from ._core._lazy import lazy_exports

__version__ = "0.1.0.dev0"

_EXPORTS = {
    # The ranking metrics; the accuracy ones take candidates= from the recommenders floor (see metrics/__init__.py).
    ".metrics": (
        "alpha_ndcg_score",
        "bpref_score",
        "compatibility_score",
        "cumulative_gain_score",
        "dcg_score",
        "expected_reciprocal_rank_score",
        "f1_at_k_score",
        "hit_rate_score",
        "insq_score",
        "inst_score",
        "intent_aware_average_precision_score",
        "intent_aware_err_score",
        "intent_aware_precision_score",
        "interpolated_precision_score",
        "mean_average_precision_score",
        "mean_reciprocal_rank_score",
        "ncg_score",
        "ndcg_score",
        "normalized_err_score",
        "normalized_intent_aware_err_score",
        "novelty_rank_biased_precision_score",
        "ordered_pair_accuracy_score",
        "precision_at_k_score",
        "q_measure_score",
        "r_precision_score",
        "rank_biased_overlap",
        "rank_biased_precision_score",
        "recall_at_k_score",
        "subtopic_recall_score",
    ),
    ".recommenders": (
        "average_popularity_score",
        "catalog_coverage",
        "expected_exposure_loss",
        "gini_index",
        "intra_list_diversity_score",
        "long_tail_share_score",
        "novelty_score",
        "recommender_report",
        "sample_candidates",
        "serendipity_score",
        "shannon_entropy",
        "user_coverage",
    ),
    ".registry": ("MetricInfo", "RankingCurveDisplay", "metric_info", "ranking_report"),
    ".model_selection": (
        "CatBoostMetric",
        "GroupedRanker",
        "LightGBMMetric",
        "QueryGroupWarning",
        "get_ranking_scorer",
        "get_ranking_scorer_names",
        "make_ranking_scorer",
        "permutation_importance",
        "XGBoostMetric",
    ),
    ".stats": (
        "QueryComparisonDisplay",
        "RankingComparison",
        "compare_per_query",
        "compare_rankings",
        "compare_runs",
        "paired_t_power",
        "topic_set_size",
        "topic_set_size_anova",
        "topic_set_size_ci",
    ),
    ".streaming": ("DistributedRankingAccumulator", "RankingAccumulator"),
    ".datasets": ("load_lambdarank", "load_svmlight_ranking", "make_ranking", "qid_from_sizes"),
}
__all__ = sorted(name for names in _EXPORTS.values() for name in names)

__getattr__, __dir__ = lazy_exports(
    __name__,
    _EXPORTS,
    globals(),
    submodules=(
        "counterfactual",
        "dask",
        "datasets",
        "fusion",
        "meta",
        "metrics",
        "model_selection",
        "recommenders",
        "registry",
        "spark",
        "stats",
        "streaming",
        "trec",
        "trec_eval",
    ),
)
del lazy_exports
