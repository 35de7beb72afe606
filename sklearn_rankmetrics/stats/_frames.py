"""A RankingComparison as tidy pandas tables: the systems' means, the pairs' tests, or every row as it is held."""

import numpy as np

from .._core._validation import check_option
from ._comparison_report import import_pandas, layout, significant, tested_rows

# One row per (system, metric): what a system scored.
SYSTEM_COLUMNS = ("system", "metric", "mean", "ci_low", "ci_high", "n_queries", "n_runs", "run_std")
# One row per (pair, metric) tested: how the system differs from the baseline of the pair.
PAIR_COLUMNS = (
    "baseline",
    "system",
    "metric",
    "delta",
    "delta_ci_low",
    "delta_ci_high",
    "pvalue",
    "pvalue_adjusted",
    "significant",
    "effect_size",
    "wins",
    "ties",
    "losses",
    "n_queries",
)
KINDS = ("systems", "pairs", "rows")


def comparison_frame(comparison, columns, kind):
    """The comparison as a DataFrame of the ``kind`` asked for (see :meth:`RankingComparison.to_frame`).

    ``columns`` are the columns of the comparison's rows, for ``kind="rows"``.
    """
    kind = check_option("kind", kind, KINDS)
    pd = import_pandas("RankingComparison.to_frame")
    if kind == "rows":
        frame = pd.DataFrame(comparison.rows, columns=list(columns))
        return frame.astype({column: "Int64" for column in ("wins", "ties", "losses", "n_runs")})
    if kind == "systems":
        metrics, systems, summary = layout(comparison)
        records = [
            {column: summary[(system, metric)].get(column, np.nan) for column in SYSTEM_COLUMNS}
            for metric in metrics
            for system in systems
            if (system, metric) in summary
        ]
        frame = pd.DataFrame(records, columns=list(SYSTEM_COLUMNS))
        return frame.astype({"n_queries": "int64", "n_runs": "Int64"})
    records = [
        {**{column: row.get(column) for column in PAIR_COLUMNS}, "significant": significant(row, comparison.alpha)}
        for row in tested_rows(comparison)
    ]
    frame = pd.DataFrame(records, columns=list(PAIR_COLUMNS))
    return frame.astype({"wins": "int64", "ties": "int64", "losses": "int64", "n_queries": "int64"})
