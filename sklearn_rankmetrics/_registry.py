"""Every metric by its short name: the vocabulary of scorer names and reports."""

from ._cascade import expected_reciprocal_rank_score, mean_reciprocal_rank_score
from ._dcg import cumulative_gain_score, dcg_score, ndcg_score
from ._precision import (
    mean_average_precision_score,
    precision_at_k_score,
    r_precision_score,
    recall_at_k_score,
)

METRICS = {
    "cg": cumulative_gain_score,
    "dcg": dcg_score,
    "ndcg": ndcg_score,
    "map": mean_average_precision_score,
    "mrr": mean_reciprocal_rank_score,
    "precision": precision_at_k_score,
    "recall": recall_at_k_score,
    "r_precision": r_precision_score,
    "err": expected_reciprocal_rank_score,
}

# Scorer names: a metric and the options its name implies. "ndcg_exp" is NDCG with
# LightGBM's and XGBoost's exponential gain.
SCORER_NAMES = {
    **{name: (metric, {}) for name, metric in METRICS.items()},
    "dcg_exp": (dcg_score, {"gain": "exponential"}),
    "ndcg_exp": (ndcg_score, {"gain": "exponential"}),
}
