"""Ranking metrics on grouped rows: one family per module, the registry of their names, and ``ranking_report``.

Every ``*_score`` function takes one label and one score per document and the
query of each row (``qid``), ranks all queries with one sort and reduces each
query's segment of rows; :func:`metric_info` describes any metric by any name a
peer tool gives it. The recommender metrics beyond accuracy take a users x
items score matrix.
"""

from .._core._lazy import lazy_exports

_EXPORTS = {
    "._dcg": ("cumulative_gain_score", "dcg_score", "ndcg_score"),
    "._precision": (
        "f1_at_k_score",
        "hit_rate_score",
        "mean_average_precision_score",
        "precision_at_k_score",
        "r_precision_score",
        "recall_at_k_score",
    ),
    "._cascade": ("expected_reciprocal_rank_score", "mean_reciprocal_rank_score"),
    "._ir_measures": ("bpref_score", "interpolated_precision_score", "rank_biased_precision_score"),
    "._diversity": ("alpha_ndcg_score", "intent_aware_err_score", "subtopic_recall_score"),
    "._normalized": ("ncg_score", "normalized_err_score", "q_measure_score"),
    "._overlap": ("compatibility_score", "rank_biased_overlap"),
    "._pairs": ("ordered_pair_accuracy_score",),
    "._cwl": ("insq_score", "inst_score"),
    "._intent_aware": (
        "intent_aware_average_precision_score",
        "intent_aware_precision_score",
        "normalized_intent_aware_err_score",
        "novelty_rank_biased_precision_score",
    ),
    "._coverage": ("catalog_coverage",),
    "._popularity": (
        "average_popularity_score",
        "gini_index",
        "long_tail_share_score",
        "novelty_score",
        "shannon_entropy",
        "user_coverage",
    ),
    "._list_diversity": ("intra_list_diversity_score", "serendipity_score"),
    "._fairness": ("expected_exposure_loss",),
    "._sampled": ("sample_candidates",),
    "._metric_info": ("MetricInfo",),
    "._registry": ("metric_info",),
    "._report": ("ranking_report",),
    "._plot": ("RankingCurveDisplay",),
}
__all__ = sorted(name for names in _EXPORTS.values() for name in names)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
del lazy_exports
