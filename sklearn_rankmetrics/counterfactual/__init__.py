"""Counterfactual and online evaluation: metrics from logged clicks, off-policy slate estimators, interleaving
and click models."""

from .._core._lazy import lazy_exports

_EXPORTS = {
    "._chain_models": ("CascadeModel", "ClickChainModel", "DependentClickModel", "DynamicBayesianNetwork"),
    "._interleaving": ("Interleaving", "InterleavingOutcome", "credit", "interleave", "multileave"),
    "._ips": ("ips_interval", "ips_score"),
    "._position_models": ("PositionBasedModel", "UserBrowsingModel"),
    "._propensity": ("estimate_position_propensity",),
    "._slate": ("off_policy_value",),
}
__all__ = sorted(name for names in _EXPORTS.values() for name in names)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
del lazy_exports
