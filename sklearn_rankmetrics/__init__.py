"""Grouped ranking metrics and scorers for scikit-learn model selection."""

from ._cascade import expected_reciprocal_rank_score, mean_reciprocal_rank_score
from ._compare import RankingComparison, compare_rankings
from ._coverage import catalog_coverage
from ._dcg import cumulative_gain_score, dcg_score, ndcg_score
from ._diversity import alpha_ndcg_score, intent_aware_err_score, subtopic_recall_score
from ._guards import QueryGroupWarning
from ._inspection import permutation_importance
from ._ir_measures import bpref_score, interpolated_precision_score, rank_biased_precision_score
from ._plot import QueryComparisonDisplay, RankingCurveDisplay
from ._power import paired_t_power, topic_set_size, topic_set_size_anova, topic_set_size_ci
from ._precision import (
    f1_at_k_score,
    hit_rate_score,
    mean_average_precision_score,
    precision_at_k_score,
    r_precision_score,
    recall_at_k_score,
)
from ._ranker import GroupedRanker
from ._report import ranking_report
from ._scorer import get_ranking_scorer, get_ranking_scorer_names, make_ranking_scorer
from .datasets import load_lambdarank, load_svmlight_ranking, make_ranking, qid_from_sizes

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
    "paired_t_power",
    "permutation_importance",
    "precision_at_k_score",
    "qid_from_sizes",
    "r_precision_score",
    "rank_biased_precision_score",
    "ranking_report",
    "recall_at_k_score",
    "subtopic_recall_score",
    "topic_set_size",
    "topic_set_size_anova",
    "topic_set_size_ci",
]
