"""Model selection over query groups: scorers, ``GroupedRanker``, early stopping, leak guards, importance."""

from ._guards import QueryGroupWarning
from ._inspection import permutation_importance
from ._ranker import GroupedRanker
from ._scorer import get_ranking_scorer, get_ranking_scorer_names, make_ranking_scorer

__all__ = [
    "GroupedRanker",
    "QueryGroupWarning",
    "get_ranking_scorer",
    "get_ranking_scorer_names",
    "make_ranking_scorer",
    "permutation_importance",
]
