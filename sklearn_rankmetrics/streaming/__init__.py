"""Exact ranking metrics accumulated over batches, workers and ranks (the streaming floor).

:class:`RankingAccumulator` keeps each query's values, merges exactly and
reduces as :func:`~sklearn_rankmetrics.ranking_report` does on the whole
data; :class:`DistributedRankingAccumulator` gathers it across the ranks of
``torch.distributed``. Dask and Spark merge their partitions through it.
"""

from .._core._lazy import lazy_exports

_EXPORTS = {
    "._accumulator": ("RankingAccumulator",),
    "._torch": ("DistributedRankingAccumulator",),
}
__all__ = sorted(name for names in _EXPORTS.values() for name in names)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
del lazy_exports
