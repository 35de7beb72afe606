"""Ranking metrics on grouped rows: one family per module, the registry of their names, and ``ranking_report``.

Every ``*_score`` function takes one label and one score per document and the
query of each row (``qid``), ranks all queries with one sort and reduces each
query's segment of rows; :func:`metric_info` describes any metric by any name a
peer tool gives it.
"""

from ._cascade import expected_reciprocal_rank_score, mean_reciprocal_rank_score
from ._coverage import catalog_coverage
from ._dcg import cumulative_gain_score, dcg_score, ndcg_score
from ._diversity import alpha_ndcg_score, intent_aware_err_score, subtopic_recall_score
from ._ir_measures import bpref_score, interpolated_precision_score, rank_biased_precision_score
from ._plot import RankingCurveDisplay
from ._precision import (
    f1_at_k_score,
    hit_rate_score,
    mean_average_precision_score,
    precision_at_k_score,
    r_precision_score,
    recall_at_k_score,
)
from ._registry import MetricInfo, metric_info
from ._report import ranking_report

__all__ = [
    "MetricInfo",
    "RankingCurveDisplay",
    "alpha_ndcg_score",
    "bpref_score",
    "catalog_coverage",
    "cumulative_gain_score",
    "dcg_score",
    "expected_reciprocal_rank_score",
    "f1_at_k_score",
    "hit_rate_score",
    "intent_aware_err_score",
    "interpolated_precision_score",
    "mean_average_precision_score",
    "mean_reciprocal_rank_score",
    "metric_info",
    "ndcg_score",
    "precision_at_k_score",
    "r_precision_score",
    "rank_biased_precision_score",
    "ranking_report",
    "recall_at_k_score",
    "subtopic_recall_score",
]
