"""What a printed comparison must say beside its marks: why an interval may exclude 0 for a difference not significant.

A difference's interval and its significance mark answer two questions with
two procedures. The mark is the test's p-value adjusted for every (pair,
metric) of the call; the interval (``delta_ci_low``, ``delta_ci_high``) is
the percentile bootstrap interval of that one difference, adjusted for
nothing (with a Tukey test: the simultaneous interval over the pairs of its
metric, not adjusted across the metrics), at ``confidence_level``, which
need not be ``1 - alpha``. So they can disagree near the threshold, and the
printed table says so where they do.
"""

import numpy as np

from .._core._tolerance import equal_up_to_rounding

SHOWN = 3


def disagreeing(comparison):
    """The tested rows whose interval excludes 0 while they are not significant, or the reverse."""
    found = []
    for row in comparison.rows:
        if row["baseline"] is None:
            continue
        low, high = row["delta_ci_low"], row["delta_ci_high"]
        excludes_zero = bool(low > 0 or high < 0)  # False for nan
        marked = bool(row["pvalue_adjusted"] < comparison.alpha)
        if not (np.isnan(low) or np.isnan(high)) and excludes_zero != marked:
            found.append(row)
    return found


def interval_note(comparison):
    """The footnote of the printed table where an interval and a mark disagree; None where none does."""
    rows = disagreeing(comparison)
    if not rows:
        return None
    level = f"{100 * comparison.confidence_level:g}%"
    named = "; ".join(
        f"{row['system']} - {row['baseline']} ({row['metric']}): {level} interval [{row['delta_ci_low']:+.4f}, "
        f"{row['delta_ci_high']:+.4f}], adjusted p = {row['pvalue_adjusted']:.3g}"
        for row in rows[:SHOWN]
    ) + (f"; and {len(rows) - SHOWN} more" if len(rows) > SHOWN else "")
    if comparison.test.endswith("tukey-hsd"):
        interval = "Tukey's simultaneous interval over the pairs of its metric, not adjusted across metrics"
    else:
        interval = "a bootstrap interval of that difference alone, unadjusted"
    correction = comparison.correction or "no correction"
    if comparison.test.endswith("tukey-hsd"):  # Tukey adjusts over the pairs; the correction, across the metrics
        n_metrics = len({row["metric"] for row in comparison.rows})
        family = f"Tukey over the pairs, {correction} across {n_metrics} metric{'s' if n_metrics > 1 else ''}"
    else:
        tested = sum(row["baseline"] is not None for row in comparison.rows)
        family = f"{correction} over {tested} test{'s' if tested > 1 else ''}"
    if not equal_up_to_rounding(comparison.confidence_level, 1 - comparison.alpha):
        family += f", at {comparison.alpha:g}"
    return (
        f"note: interval and * disagree for {named}.\n"
        f"      The interval is {interval}; * is the adjusted p-value ({family}). Report significance from *, "
        "the size of a difference from its interval."
    )
