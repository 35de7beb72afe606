"""The per-query comparison of two systems, drawn from :func:`compare_rankings` (matplotlib, the ``plot`` extra)."""

import numpy as np

from .._core._validation import check_option, plain
from ..registry._plot import new_axes
from ._paired_tests import pair_differences


class QueryComparisonDisplay:
    """Per-query comparison of two systems from :func:`compare_rankings`.

    ``kind="differences"`` draws the per-query differences (system minus
    baseline) sorted, with the zero line: how many queries each system wins
    and by how much. ``kind="scatter"`` draws the per-query values of the
    system against the baseline's, with the diagonal.

    Parameters
    ----------
    baseline_values, system_values : ndarray of shape (n_queries,)
        The per-query values of the two systems.
    baseline, system, metric : str
        Their names and the metric's.

    Attributes
    ----------
    differences : ndarray
        ``system_values - baseline_values``, sorted; 0 where the two values
        are equal up to rounding, as the comparison counts them (a tie).
    ax_ : matplotlib Axes
        The axes drawn on.
    figure_ : matplotlib Figure
        The figure holding them.

    See Also
    --------
    compare_rankings : Computes the per-query values and the tests.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn_rankmetrics import QueryComparisonDisplay, compare_rankings
    >>> comparison = compare_rankings([1, 0, 0, 1, 1, 0], {"a": [3, 2, 1, 3, 2, 1], "b": [1, 2, 3, 1, 2, 3]},
    ...                               qid=[1, 1, 1, 2, 2, 2], metrics=["mrr"], baseline="a", random_state=0)
    >>> QueryComparisonDisplay.from_comparison(comparison).differences
    array([-0.66666667, -0.5       ])
    """

    def __init__(self, *, baseline_values, system_values, baseline, system, metric):
        baseline_values, system_values = np.asarray(baseline_values), np.asarray(system_values)
        compared = ~np.isnan(baseline_values) & ~np.isnan(system_values)  # queries left out by zero_division=nan
        self.baseline_values, self.system_values = baseline_values[compared], system_values[compared]
        # Equal up to rounding is a tie (drawn grey), as in the comparison's tests and counts.
        self.differences = np.sort(pair_differences(self.system_values, self.baseline_values))
        self.baseline, self.system, self.metric = baseline, system, metric

    def plot(self, *, kind="differences", ax=None):
        """Draw the comparison.

        Parameters
        ----------
        kind : {"differences", "scatter"}, default="differences"
            Sorted per-query differences with the zero line, or the two
            systems' per-query values against each other with the diagonal.
        ax : matplotlib Axes, default=None
            Axes to draw on; None: a new figure.

        Returns
        -------
        display : QueryComparisonDisplay
            Itself, with ``ax_`` and ``figure_`` set.
        """
        kind = check_option("kind", kind, ("differences", "scatter"))
        ax = new_axes(ax, type(self).__name__)
        if kind == "differences":
            colors = np.where(self.differences > 0, "tab:green", np.where(self.differences < 0, "tab:red", "tab:gray"))
            ax.bar(np.arange(len(self.differences)), self.differences, width=1.0, color=colors)
            ax.axhline(0.0, color="black", linewidth=0.8)
            ax.set_xlabel("queries, sorted by difference")
            ax.set_ylabel(f"{self.metric}: {self.system} - {self.baseline}")
        else:
            ax.scatter(self.baseline_values, self.system_values, s=10, alpha=0.6)
            low = min(self.baseline_values.min(), self.system_values.min())
            high = max(self.baseline_values.max(), self.system_values.max())
            ax.plot([low, high], [low, high], color="black", linewidth=0.8)
            ax.set_xlabel(f"{self.metric} of {self.baseline}")
            ax.set_ylabel(f"{self.metric} of {self.system}")
        self.ax_, self.figure_ = ax, ax.figure
        return self

    @classmethod
    def from_comparison(cls, comparison, *, metric=None, system=None, baseline=None, kind="differences", ax=None):
        """Draw a pair of systems of a :class:`RankingComparison`.

        Parameters
        ----------
        comparison : RankingComparison
            The result of :func:`compare_rankings`.
        metric : str, default=None
            One of its metrics; None: the first.
        system, baseline : str, default=None
            The two systems; None: the first pair compared.
        kind : {"differences", "scatter"}, default="differences"
            What to draw (see :meth:`plot`).
        ax : matplotlib Axes, default=None
            Axes to draw on; None: a new figure.

        Returns
        -------
        display : QueryComparisonDisplay
            The display, drawn.
        """
        per_query = comparison.per_query
        metric = metric or next(name for name in per_query if name != "qid")
        if metric not in per_query:
            raise ValueError(f"metric={plain(metric)!r} is not in the comparison; it has {plain(list(per_query)[1:])}.")
        if system is None or baseline is None:
            pair = next(row for row in comparison.rows if row["baseline"] is not None)
            system, baseline = system or pair["system"], baseline or pair["baseline"]
        values = per_query[metric]
        for name in (system, baseline):
            if name not in values:
                raise ValueError(
                    f"{plain(name)!r} is not a system of the comparison; the systems are {plain(list(values))}."
                )
        return cls(
            baseline_values=values[baseline],
            system_values=values[system],
            baseline=baseline,
            system=system,
            metric=metric,
        ).plot(kind=kind, ax=ax)
