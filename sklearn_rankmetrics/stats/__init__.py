"""Comparing rankers: paired tests on per-query values, intervals, corrections and their Display."""

from ._compare import RankingComparison, compare_rankings
from ._plot import QueryComparisonDisplay

__all__ = ["QueryComparisonDisplay", "RankingComparison", "compare_rankings"]
