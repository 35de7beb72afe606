"""Recommender metrics: the users' top-k lists and what they expose, and sampled evaluation.

Metrics of a users x items score matrix beyond accuracy (coverage, popularity,
novelty, diversity, serendipity, exposure fairness), one set of candidates for
every model (:func:`sample_candidates`) with Krichene & Rendle's corrected
estimators of the full-catalogue metric, and :func:`recommender_report`
(every metric of one recommender from one top-k extraction). The accuracy metrics of
:mod:`sklearn_rankmetrics.metrics` take their ``candidates=``,
``sampled_correction=`` and ``n_items=`` options from this floor.
"""

from .._core._lazy import lazy_exports

_EXPORTS = {
    "._coverage": ("catalog_coverage",),
    "._popularity": (
        "average_popularity_score",
        "gini_index",
        "long_tail_share_score",
        "novelty_score",
        "shannon_entropy",
        "user_coverage",
    ),
    "._list_diversity": ("intra_list_diversity_score", "serendipity_score"),
    "._fairness": ("expected_exposure_loss",),
    "._sampled": ("sample_candidates",),
    # The report resolves metric names, so it lives on the registry's floor, above this one.
    "..registry._recommender_report": ("recommender_report",),
}
__all__ = sorted(name for names in _EXPORTS.values() for name in names)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
del lazy_exports
