"""Grouped ranking metrics and scorers for scikit-learn model selection."""

from ._cascade import expected_reciprocal_rank_score, mean_reciprocal_rank_score
from ._dcg import cumulative_gain_score, dcg_score, ndcg_score
from ._precision import (
    mean_average_precision_score,
    precision_at_k_score,
    r_precision_score,
    recall_at_k_score,
)

__version__ = "0.1.0.dev0"

__all__ = [
    "cumulative_gain_score",
    "dcg_score",
    "expected_reciprocal_rank_score",
    "mean_average_precision_score",
    "mean_reciprocal_rank_score",
    "ndcg_score",
    "precision_at_k_score",
    "r_precision_score",
    "recall_at_k_score",
]
