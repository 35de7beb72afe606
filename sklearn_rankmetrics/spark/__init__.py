"""Ranking metrics on Spark (the ``spark`` extra): reports of DataFrames, and an Evaluator for Spark ML tuning.

:func:`ranking_report` measures (query, label, score) rows and
:func:`ranking_report_from_lists` users' lists of recommended and relevant
ids, partition by partition from Arrow batches, merged exactly through
:class:`~sklearn_rankmetrics.RankingAccumulator`; :class:`RankingEvaluator`
lets ``CrossValidator`` tune by any of the library's metrics. Importing this
package needs no pyspark; its functions do.
"""

from .._core._lazy import lazy_exports

_EXPORTS = {
    "._report": ("ranking_report", "ranking_report_from_lists"),
    "._evaluator": ("RankingEvaluator",),
}
__all__ = sorted(name for names in _EXPORTS.values() for name in names)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
del lazy_exports
