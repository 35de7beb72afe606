"""Metric@k curves in scikit-learn's Display style (matplotlib, the ``plot`` extra)."""

import numpy as np

from .._core._inputs import rank_queries
from .._core._validation import plain
from ._names import shared_kernel

# Options that belong to the ranking (one sort for every k), not to the metric.
RANKING_OPTIONS = ("ties", "sample_weight")
SET_BY_THE_DISPLAY = {"average": "RankingCurveDisplay sets: it draws the mean over queries"}


def pyplot(owner):
    """matplotlib.pyplot, or an ImportError that names the extra to install."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ImportError(
            f"{owner} needs matplotlib: pip install 'sklearn-rankmetrics[plot]' (or pip install matplotlib)."
        ) from error
    return plt


def new_axes(ax, owner):
    if ax is None:
        _, ax = pyplot(owner).subplots()
    return ax


def metric_at_cutoffs(y_true, y_score, *, qid, metric, cutoffs, options):
    """The mean of ``metric`` at every cutoff in ``cutoffs``, all from one sort of the rows."""
    _, kernel, options = shared_kernel(
        metric,
        caller="RankingCurveDisplay",
        set_by_caller=SET_BY_THE_DISPLAY,
        caller_takes=RANKING_OPTIONS,
        options=options,
        cutoff=True,
    )
    zero_division = options.pop("zero_division", 0.0)
    ranking_options = {key: options.pop(key) for key in RANKING_OPTIONS if key in options}
    ranking = rank_queries(y_true, y_score, qid=qid, **ranking_options)
    return np.array([ranking.aggregate(*kernel(ranking, k=k, **options), zero_division=zero_division) for k in cutoffs])


def check_cutoffs(k):
    cutoffs = np.asarray(list(k) if not np.isscalar(k) else [k])
    if cutoffs.ndim != 1 or len(cutoffs) == 0 or cutoffs.dtype.kind not in "iu" or (cutoffs < 1).any():
        raise ValueError(f"k must be a non-empty sequence of integers >= 1, such as range(1, 21); got {plain(k)!r}.")
    return cutoffs


class RankingCurveDisplay:
    """Metric@k curves of one or several systems: the mean of a ranking metric against the cutoff k.

    Build it with :meth:`from_predictions` or :meth:`from_estimator`; every
    curve of every k comes from one sort of each system's rows.

    Parameters
    ----------
    k : ndarray of int
        The cutoffs.
    scores : dict
        System name to the array of the metric's mean at each cutoff.
    metric : str
        The metric's name, for the axis label.

    Attributes
    ----------
    ax_ : matplotlib Axes
        The axes drawn on.
    figure_ : matplotlib Figure
        The figure holding them.
    lines_ : list of matplotlib Line2D
        One curve per system, in the order of ``scores``.

    See Also
    --------
    ranking_report : The metrics at one cutoff, per query or averaged.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn_rankmetrics import RankingCurveDisplay
    >>> y_true = [3, 2, 0, 1, 0, 2]
    >>> display = RankingCurveDisplay.from_predictions(
    ...     y_true, {"model": [0.9, 0.3, 0.5, 0.1, 0.8, 0.4], "oracle": y_true}, qid=[1, 1, 1, 2, 2, 2], k=[1, 2, 3]
    ... )
    >>> display.scores["oracle"]
    array([1., 1., 1.])
    """

    def __init__(self, *, k, scores, metric):
        self.k = np.asarray(k)
        self.scores = dict(scores)
        self.metric = metric

    def plot(self, *, ax=None, **line_kwargs):
        """Draw the curves.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; None: a new figure.
        **line_kwargs : dict
            Passed to ``ax.plot`` for every curve.

        Returns
        -------
        display : RankingCurveDisplay
            Itself, with ``ax_``, ``figure_`` and ``lines_`` set.
        """
        ax = new_axes(ax, type(self).__name__)
        self.lines_ = [
            ax.plot(self.k, values, marker="o", markersize=3, label=str(name), **line_kwargs)[0]
            for name, values in self.scores.items()
        ]
        ax.set_xlabel("k")
        ax.xaxis.get_major_locator().set_params(integer=True)  # cutoffs are whole ranks
        ax.set_ylabel(f"mean {self.metric}@k")
        ax.legend()
        ax.grid(alpha=0.3)
        self.ax_, self.figure_ = ax, ax.figure
        return self

    @classmethod
    def from_predictions(
        cls, y_true, y_score, *, qid=None, metric="ndcg", k=range(1, 21), name=None, ax=None, **options
    ):
        """Draw metric@k for the scores of one or several systems.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,) or (n_queries, n_docs)
            Relevance labels, as for the metric functions.
        y_score : array-like or dict
            The scores of one system, or a dict of system name to scores.
        qid : array-like of shape (n_samples,), default=None
            Query id of each row.
        metric : str, default="ndcg"
            A metric name without a cutoff, such as ``"ndcg"``, ``"map"``,
            ``"recall"``, ``"precision"`` or ``"ndcg_exp"``.
        k : iterable of int, default=range(1, 21)
            The cutoffs.
        name : str, default=None
            Name of a single system (ignored for a dict).
        ax : matplotlib Axes, default=None
            Axes to draw on; None: a new figure.
        **options : dict
            Options of the metric, such as ``ties``, ``gain``,
            ``zero_division`` or ``sample_weight``.

        Returns
        -------
        display : RankingCurveDisplay
            The display, drawn.
        """
        cutoffs = check_cutoffs(k)
        systems = dict(y_score) if isinstance(y_score, dict) else {name or "scores": y_score}
        scores = {
            system: metric_at_cutoffs(y_true, values, qid=qid, metric=metric, cutoffs=cutoffs, options=dict(options))
            for system, values in systems.items()
        }
        return cls(k=cutoffs, scores=scores, metric=metric).plot(ax=ax)

    @classmethod
    def from_estimator(cls, estimator, X, y, *, qid=None, metric="ndcg", k=range(1, 21), name=None, ax=None, **options):
        """Draw metric@k for the predictions of a fitted estimator.

        Parameters
        ----------
        estimator : fitted estimator
            Its ``predict(X)`` gives the scores.
        X : array-like of shape (n_samples, n_features)
            The documents.
        y : array-like of shape (n_samples,)
            Their relevance labels.
        qid : array-like of shape (n_samples,), default=None
            Query id of each row.
        metric : str, default="ndcg"
            A metric name without a cutoff.
        k : iterable of int, default=range(1, 21)
            The cutoffs.
        name : str, default=None
            The curve's name; None: the estimator's class name.
        ax : matplotlib Axes, default=None
            Axes to draw on (pass another display's ``ax_`` to add a curve).
        **options : dict
            Options of the metric.

        Returns
        -------
        display : RankingCurveDisplay
            The display, drawn.
        """
        scores = estimator.predict(X)
        name = name or type(estimator).__name__
        return cls.from_predictions(y, {name: scores}, qid=qid, metric=metric, k=k, ax=ax, **options)
