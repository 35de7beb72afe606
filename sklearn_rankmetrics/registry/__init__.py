"""The registry: every metric's record, its names in every peer tool, and what resolves names through it.

One table (``_records``) names each metric of :mod:`sklearn_rankmetrics.metrics`
and :mod:`sklearn_rankmetrics.recommenders` once, with its spellings by tool
and the options that reproduce each tool's number; :func:`metric_info` reads
it from any name. :func:`ranking_report` (many metrics from one sort) and
:class:`RankingCurveDisplay` take metric names, so they live on this floor,
above both metric floors and below model selection, statistics and the TREC
evaluation.
"""

from .._core._lazy import lazy_exports

_EXPORTS = {
    "._metric_info": ("MetricInfo",),
    "._names": ("metric_info",),
    "._report": ("ranking_report",),
    "._plot": ("RankingCurveDisplay",),
}
__all__ = sorted(name for names in _EXPORTS.values() for name in names)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
del lazy_exports
