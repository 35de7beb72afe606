"""Several runs per system (seeds, folds, shards): the run as a factor of a comparison.

A system given as a list of score arrays is compared through its per-query
values averaged over its runs: the paired tests ask whether the systems
differ on the queries, on average over their runs. The runs' own variation is
not averaged away: each row reports how many runs a system has and the
standard deviation of its mean over them (``n_runs``, ``run_std``),
``RankingComparison.anova`` adds the run, nested in the system, as a factor,
and a warning names the pairs found significant over the queries whose runs
do not differ significantly (Welch's t-test over the run means).
"""

import numpy as np
from scipy import stats

from .._core._frames import frame_rows
from .._core._validation import plain
from .._core._warnings import warn


def split_runs(systems, y_true):
    """Each system's runs, a list of score arrays: one array of ``y_true``'s shape is a single run.

    A list or tuple of arrays of ``y_true``'s dimension, or an array of shape
    ``(n_runs, *y_true.shape)`` (a pandas DataFrame of one run per row, for
    a 1-D ``y_true``), holds several runs. Anything else is one run,
    which :func:`ranking_report` then checks.
    """
    shape = tuple(np.shape(y_true))
    return {name: runs_of(name, scores, shape) for name, scores in systems.items()}


def runs_of(name, scores, shape):
    """The runs of one system, checking that a list of runs scores the rows of ``y_true`` in each run."""
    if isinstance(scores, list | tuple):
        if not scores:
            raise ValueError(f"y_scores[{plain(name)!r}] is an empty list: give each system one or more runs.")
        if all(dimension(run) == len(shape) for run in scores):  # each element a whole score array: runs
            for index, run in enumerate(scores):
                if tuple(np.shape(run)) != shape:
                    raise ValueError(
                        f"y_scores[{plain(name)!r}] is a list of {len(scores)} runs, but y_scores[{plain(name)!r}]"
                        f"[{index}] has shape {tuple(np.shape(run))}; every run scores the rows of y_true, of shape "
                        f"{shape}."
                    )
            return list(scores)
    elif hasattr(scores, "shape") and len(scores.shape) == len(shape) + 1 and tuple(scores.shape)[1:] == shape:
        # An array of stacked runs, one run a row; a DataFrame's rows too (iterating it would give its columns).
        if hasattr(scores, "iloc"):
            return [scores.iloc[i].to_numpy() for i in range(len(scores))]
        rows = frame_rows(scores)  # a Polars DataFrame or pyarrow Table: its rows, not its columns
        return list(scores) if rows is None else list(rows)
    return [scores]


def dimension(values):
    """The number of dimensions of an array-like, or None for a ragged one."""
    try:
        return np.ndim(values)
    except ValueError:  # a ragged nested sequence
        return None


def average_runs(reports):
    """One report of per-query values from the reports of a system's runs: their mean over the runs."""
    first = reports[0]
    return {
        "qid": first["qid"],
        **{name: np.mean([report[name] for report in reports], axis=0) for name in first if name != "qid"},
    }


def run_spread(runs, defined):
    """The number of runs and the standard deviation over them of the mean over the ``defined`` queries.

    ``runs`` is an (n_runs, n_queries) array of per-query values; the
    standard deviation is nan with one run.
    """
    if len(runs) < 2 or not defined.any():
        return len(runs), np.nan
    return len(runs), float(runs[:, defined].mean(axis=1).std(ddof=1))


def warn_if_runs_disagree(rows, run_values, defined, alpha):
    """Warn where a pair significant over the queries does not differ over its systems' runs.

    Over the queries, the runs are averaged: the test asks about these runs.
    Whether another seed would reproduce the difference is a question about
    the runs: Welch's t-test of the two systems' run means (each over the
    compared queries) answers it, where both systems have two runs or more.
    """
    doubtful = []
    for row in rows:
        if row["baseline"] is None or not row["pvalue_adjusted"] < alpha:
            continue
        metric, a, b = row["metric"], row["baseline"], row["system"]
        runs_a, runs_b = run_values[metric][a], run_values[metric][b]
        if min(len(runs_a), len(runs_b)) < 2:
            continue
        mask = defined[metric]
        means_a, means_b = runs_a[:, mask].mean(axis=1), runs_b[:, mask].mean(axis=1)
        pvalue = stats.ttest_ind(means_b, means_a, equal_var=False).pvalue
        if pvalue >= alpha:
            doubtful.append(
                f"{plain(b)!r} - {plain(a)!r} on {plain(metric)!r} ({len(runs_b)} and {len(runs_a)} runs, "
                f"run means {means_b.mean():.4g} and {means_a.mean():.4g}, Welch p = {pvalue:.3g})"
            )
    if doubtful:
        shown = "; ".join(doubtful[:5]) + (f"; and {len(doubtful) - 5} more" if len(doubtful) > 5 else "")
        warn(
            f"Significant over the queries, but not over the runs: {shown}. The tests over the queries average "
            "each system's runs and so treat these runs as the systems; their run means differ by no more than "
            "the runs vary, so another set of runs (seeds, folds) may not reproduce the difference. Compare more "
            "runs, or report the run spread (run_std) beside the result.",
            UserWarning,
        )
