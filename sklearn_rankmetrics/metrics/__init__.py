"""Ranking metrics on grouped rows: one family per module.

Every ``*_score`` function takes one label and one score per document and the
query of each row (``qid``), ranks all queries with one sort and reduces each
query's segment of rows. This package holds the ranking metric families only;
its face also offers, as before, the names of the floors above it: the
recommender metrics (:mod:`sklearn_rankmetrics.recommenders`, which also give
the accuracy metrics their ``candidates=`` option) and the registry
(:mod:`sklearn_rankmetrics.registry`: :func:`metric_info`, :func:`ranking_report`,
:class:`RankingCurveDisplay`).
"""

from .._core._lazy import lazy_exports

# The accuracy metrics are the recommenders floor's, which attaches candidates= and sampled_correction= to them.
ACCURACY = "..recommenders._accuracy"
_EXPORTS = {
    ACCURACY: (
        "bpref_score",
        "cumulative_gain_score",
        "dcg_score",
        "expected_reciprocal_rank_score",
        "f1_at_k_score",
        "hit_rate_score",
        "mean_average_precision_score",
        "mean_reciprocal_rank_score",
        "ndcg_score",
        "precision_at_k_score",
        "r_precision_score",
        "rank_biased_precision_score",
        "recall_at_k_score",
    ),
    "._ir_measures": ("interpolated_precision_score",),
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
    # Names that lived here before the recommender metrics and the registry had floors of their own.
    "..recommenders._coverage": ("catalog_coverage",),
    "..recommenders._popularity": (
        "average_popularity_score",
        "gini_index",
        "long_tail_share_score",
        "novelty_score",
        "shannon_entropy",
        "user_coverage",
    ),
    "..recommenders._list_diversity": ("intra_list_diversity_score", "serendipity_score"),
    "..recommenders._fairness": ("expected_exposure_loss",),
    "..recommenders._sampled": ("sample_candidates",),
    "..registry._metric_info": ("MetricInfo",),
    "..registry._names": ("metric_info",),
    "..registry._report": ("ranking_report",),
    "..registry._plot": ("RankingCurveDisplay",),
}
__all__ = sorted(name for names in _EXPORTS.values() for name in names)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
del lazy_exports, ACCURACY
