"""Warnings where the literature says a comparison's result misleads although every number is right."""

from .._core._validation import plain
from .._core._warnings import warn

# From this many queries on, the Wilcoxon test's null (differences symmetric about 0) is rejected for the shape of
# the differences rather than for their mean (Ihemelandu and Ekstrand, SIGIR 2023).
WILCOXON_QUERIES = 1000
# Standardized differences below this are "negligible" (Cohen's "small" is 0.2; the label of R's effsize package).
NEGLIGIBLE_EFFECT = 0.2


def warn_if_wilcoxon_at_scale(test, n_queries):
    """Warn when the Wilcoxon signed-rank test runs on thousands of queries."""
    if test == "wilcoxon" and n_queries >= WILCOXON_QUERIES:
        warn(
            f"test='wilcoxon' on {n_queries} queries: with thousands of queries the Wilcoxon signed-rank test "
            "rejects equal means far more often than its level whenever the per-query differences are skewed or "
            "tied, as IR metrics' are, because its null is a distribution symmetric about 0, not a mean difference "
            "of 0 (Ihemelandu and Ekstrand, 'Inference at scale', SIGIR 2023). Use test='t-test' or "
            "test='randomization'.",
            UserWarning,
        )


def warn_if_negligible(rows, alpha):
    """Warn where a difference is significant but its standardized effect is negligible."""
    negligible = [
        row
        for row in rows
        if row["baseline"] is not None
        and row["pvalue_adjusted"] < alpha
        and abs(row["effect_size"]) < NEGLIGIBLE_EFFECT
    ]
    if negligible:
        shown = "; ".join(
            f"{plain(row['system'])!r} - {plain(row['baseline'])!r} on {plain(row['metric'])!r}: delta "
            f"{row['delta']:+.4g}, effect size {row['effect_size']:+.3f}"
            for row in negligible[:5]
        )
        more = f"; and {len(negligible) - 5} more" if len(negligible) > 5 else ""
        warn(
            f"Significant, but the effect is negligible (|effect size| < {NEGLIGIBLE_EFFECT}): {shown}{more}. With "
            "many queries a test detects differences too small to matter; judge them by delta and its interval, "
            "not by the p-value.",
            UserWarning,
        )
