"""Rank fusion: every method of ranx, exact on ties, and tuned on held-out queries by grouped cross-validation.

:func:`fuse` fuses runs (files, dicts, DataFrames, :class:`~sklearn_rankmetrics.trec.Run`) into one
run; :func:`fuse_scores` fuses the score columns of one grouped table; :class:`FusionRanker` is the
same fusion as a scikit-learn estimator, and :func:`optimize_fusion` tunes it by grouped
cross-validation. The command ``rankmetrics fuse RUN... -o fused.run`` writes a fused TREC run.
"""

from .._core._lazy import lazy_exports

_EXPORTS = {
    "._fuse": ("fuse", "fuse_scores", "normalize"),
    "._names": ("METHODS", "NORMALIZATIONS"),
    "._optimize": ("FusionSearch", "optimize_fusion"),
    "._ranker": ("FusionRanker",),
}
__all__ = sorted(name for names in _EXPORTS.values() for name in names)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
del lazy_exports
