"""Comparing rankers: paired tests on per-query values (of rankings, TREC runs or any source), intervals,
corrections and their Display."""

from .._core._lazy import lazy_exports

_EXPORTS = {
    "._compare": ("RankingComparison", "compare_rankings"),
    "._per_query": ("compare_per_query",),
    "._runs_comparison": ("compare_runs",),
    "._plot": ("QueryComparisonDisplay",),
    "._power": ("paired_t_power", "topic_set_size", "topic_set_size_anova", "topic_set_size_ci"),
}
__all__ = sorted(name for names in _EXPORTS.values() for name in names)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
del lazy_exports
