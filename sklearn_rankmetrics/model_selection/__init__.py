"""Model selection over query groups: scorers, ``GroupedRanker``, early stopping, leak guards, importance."""

from .._core._lazy import lazy_exports

_EXPORTS = {
    "._booster_metrics": ("CatBoostMetric", "LightGBMMetric", "XGBoostMetric"),
    "._guards": ("QueryGroupWarning",),
    "._inspection": ("permutation_importance",),
    "._ranker": ("GroupedRanker",),
    "._scorer": ("get_ranking_scorer", "get_ranking_scorer_names", "make_ranking_scorer"),
}
__all__ = sorted(name for names in _EXPORTS.values() for name in names)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
del lazy_exports
