"""Grouped ranking metrics and scorers for scikit-learn model selection.

Every public name is importable from here; each lives in the subpackage of its
layer (:mod:`.metrics`, :mod:`.model_selection`, :mod:`.stats`, :mod:`.datasets`)
and is imported on first use.
"""

from ._core._lazy import lazy_exports

__version__ = "0.1.0.dev0"

_EXPORTS = {
    ".metrics": (
        "alpha_ndcg_score",
        "average_popularity_score",
        "bpref_score",
        "catalog_coverage",
        "compatibility_score",
        "cumulative_gain_score",
        "dcg_score",
        "expected_exposure_loss",
        "expected_reciprocal_rank_score",
        "f1_at_k_score",
        "gini_index",
        "hit_rate_score",
        "insq_score",
        "inst_score",
        "intent_aware_average_precision_score",
        "intent_aware_err_score",
        "intent_aware_precision_score",
        "interpolated_precision_score",
        "intra_list_diversity_score",
        "long_tail_share_score",
        "mean_average_precision_score",
        "mean_reciprocal_rank_score",
        "metric_info",
        "MetricInfo",
        "ncg_score",
        "ndcg_score",
        "normalized_err_score",
        "normalized_intent_aware_err_score",
        "novelty_rank_biased_precision_score",
        "novelty_score",
        "ordered_pair_accuracy_score",
        "precision_at_k_score",
        "q_measure_score",
        "r_precision_score",
        "rank_biased_overlap",
        "rank_biased_precision_score",
        "ranking_report",
        "RankingCurveDisplay",
        "recall_at_k_score",
        "sample_candidates",
        "serendipity_score",
        "shannon_entropy",
        "subtopic_recall_score",
        "user_coverage",
    ),
    ".model_selection": (
        "GroupedRanker",
        "QueryGroupWarning",
        "get_ranking_scorer",
        "get_ranking_scorer_names",
        "make_ranking_scorer",
        "permutation_importance",
    ),
    ".stats": (
        "QueryComparisonDisplay",
        "RankingComparison",
        "compare_rankings",
        "paired_t_power",
        "topic_set_size",
        "topic_set_size_anova",
        "topic_set_size_ci",
    ),
    ".datasets": ("load_lambdarank", "load_svmlight_ranking", "make_ranking", "qid_from_sizes"),
}
__all__ = sorted(name for names in _EXPORTS.values() for name in names)

__getattr__, __dir__ = lazy_exports(
    __name__,
    _EXPORTS,
    globals(),
    submodules=("dask", "datasets", "fusion", "metrics", "model_selection", "stats", "trec", "trec_eval"),
)
del lazy_exports
