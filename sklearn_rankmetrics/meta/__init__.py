"""Meta-evaluation: how far to trust an evaluation, its judges and its leaderboard.

Agreement of system orderings (Kendall, tau_AP, Spearman, RBO, the pairs that
swap), of judges (Cohen's and Fleiss' kappa, Krippendorff's alpha, on arrays
or qrels), discriminative power, swap rates and score standardisation,
reproducibility measures (Breuer et al. 2020) and the evaluation of query
performance predictors.
"""

from .._core._lazy import lazy_exports

_EXPORTS = {
    "._correlation": ("kendall_tau", "pearson_r", "spearman_rho", "tau_ap"),
    "._results": ("ConfidenceInterval", "CorrelationResult"),
    "._leaderboards": ("OrderingAgreement", "ordering_agreement"),
    "._agreement": ("cohen_kappa", "fleiss_kappa", "krippendorff_alpha"),
    "._judges": ("JudgeAgreement", "judge_agreement", "leaderboard_agreement"),
    "._discriminative": ("DiscriminativePower", "discriminative_power"),
    "._swap_rate": ("SwapRate", "swap_rate"),
    "._standardize": ("standardize_scores",),
    "._run_overlap": ("kendall_tau_union", "rank_biased_overlap_runs"),
    "._qpp": ("QPPEvaluation", "qpp_evaluation", "smare"),
    "._reproducibility": (
        "delta_relative_improvement",
        "effect_ratio",
        "reproduction_ttest",
        "root_mean_squared_error",
    ),
}
__all__ = sorted(name for names in _EXPORTS.values() for name in names)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
del lazy_exports
