"""Query performance prediction, evaluated: correlations of predicted and actual per-query values, and sMARE."""

from dataclasses import dataclass

import numpy as np
from scipy import stats

from .._core._tolerance import round_ties
from ..stats._comparison_report import import_pandas
from ._correlation import kendall_of_rounded, pearson_of, spearman_of_rounded, warn_if_constant
from ._inputs import paired_scores
from ._results import CorrelationResult


def smare(predicted, actual):
    """Compute sMARE (Faggioli et al. 2021): the mean scaled absolute rank error of a query performance predictor.

    Parameters
    ----------
    predicted : array-like of shape (n_queries,) or mapping
        The predictor's value of each query (higher: the query is predicted
        to be easier), an array or a mapping ``{query: value}``.
    actual : same as ``predicted``
        The actual effectiveness of each query (such as its AP), aligned by
        position (arrays) or by query id (mappings).

    Returns
    -------
    smare : float
        In [0, 1): 0 when the predictor ranks the queries exactly as their
        effectiveness does; lower is better.

    See Also
    --------
    qpp_evaluation : The sMARE with Pearson, Spearman and Kendall.

    Notes
    -----
    With :math:`r^p_q` and :math:`r^e_q` the ranks of query q among the
    :math:`|Q|` queries by predicted and by actual value (ties given their
    average rank, values equal up to rounding tied),

    .. math:: \\mathrm{sMARE} = \\frac{1}{|Q|} \\sum_q \\frac{|r^p_q - r^e_q|}{|Q|},

    the mean over queries of the scaled absolute rank error (SARE) [1]_.

    References
    ----------
    .. [1] G. Faggioli, O. Zendel, J. S. Culpepper, N. Ferro and F. Scholer,
       "sMARE: a new paradigm to evaluate and understand query performance
       prediction methods", Information Retrieval Journal 25, 2022 (first
       as "An enhanced evaluation framework for query performance
       prediction", ECIR 2021).

    Examples
    --------
    >>> from sklearn_rankmetrics.meta import smare
    >>> # ranks by prediction 1 2 3 4, by AP 2 1 3 4: errors 1 1 0 0, each over 4 queries
    >>> smare([0.1, 0.2, 0.3, 0.4], [0.25, 0.05, 0.5, 0.7])
    0.125
    """
    _, predicted, actual = paired_scores(predicted, actual, names=("predicted", "actual"))
    return smare_of_rounded(round_ties(predicted), round_ties(actual))


def smare_of_rounded(predicted, actual):
    """sMARE of values whose ties up to rounding are exact ties (see :func:`smare`)."""
    predicted_ranks, actual_ranks = stats.rankdata(predicted), stats.rankdata(actual)
    return float(np.mean(np.abs(predicted_ranks - actual_ranks) / len(actual)))


@dataclass(frozen=True)
class QPPEvaluation:
    """How well a query performance predictor predicts per-query effectiveness: :func:`qpp_evaluation`'s result.

    Parameters
    ----------
    pearson : CorrelationResult
        Pearson's r of the predicted and actual values.
    spearman : CorrelationResult
        Spearman's rho.
    kendall : CorrelationResult
        Kendall's tau-b.
    smare : float
        The mean scaled absolute rank error (lower is better).
    n_queries : int
        The number of queries.

    See Also
    --------
    qpp_evaluation : Builds it.

    Examples
    --------
    >>> from sklearn_rankmetrics.meta import qpp_evaluation
    >>> result = qpp_evaluation([0.1, 0.2, 0.3, 0.4], [0.25, 0.05, 0.5, 0.7])
    >>> round(result.kendall.statistic, 4), result.smare
    (0.6667, 0.125)
    """

    pearson: CorrelationResult
    spearman: CorrelationResult
    kendall: CorrelationResult
    smare: float
    n_queries: int

    def to_frame(self, *, confidence_level=0.95):
        """The four statistics as a DataFrame, with p-values and intervals where they exist.

        Parameters
        ----------
        confidence_level : float, default=0.95
            Level of the correlations' intervals.

        Returns
        -------
        frame : pandas.DataFrame
            Indexed ``"pearson"``, ``"spearman"``, ``"kendall"``, ``"smare"``,
            with the columns ``statistic``, ``pvalue``, ``ci_low``, ``ci_high``.
        """
        pd = import_pandas("QPPEvaluation.to_frame")
        rows = {
            name: (result.statistic, result.pvalue, *result.confidence_interval(confidence_level))
            for name, result in (("pearson", self.pearson), ("spearman", self.spearman), ("kendall", self.kendall))
        }
        rows["smare"] = (self.smare, np.nan, np.nan, np.nan)
        return pd.DataFrame.from_dict(rows, orient="index", columns=["statistic", "pvalue", "ci_low", "ci_high"])

    def __str__(self):
        return "\n".join(
            [
                f"query performance prediction over {self.n_queries} queries",
                f"  Pearson's r      {self.pearson.statistic:+.4f}  (p = {self.pearson.pvalue:.3g})",
                f"  Spearman's rho   {self.spearman.statistic:+.4f}  (p = {self.spearman.pvalue:.3g})",
                f"  Kendall's tau    {self.kendall.statistic:+.4f}  (p = {self.kendall.pvalue:.3g})",
                f"  sMARE            {self.smare:.4f}",
            ]
        )


def qpp_evaluation(predicted, actual):
    """Evaluate a query performance predictor: Pearson, Spearman and Kendall correlations, and sMARE.

    Parameters
    ----------
    predicted : array-like of shape (n_queries,) or mapping
        The predictor's value of each query, an array or a mapping ``{query:
        value}``.
    actual : same as ``predicted``
        The actual per-query effectiveness (such as each query's AP from
        ``evaluate_run(..., average=False)``), aligned by position or query id.

    Returns
    -------
    result : QPPEvaluation
        Each correlation with its p-value and interval, and sMARE; prints as
        a summary and converts with ``to_frame()``.

    See Also
    --------
    smare : The rank error alone.
    kendall_tau, spearman_rho, pearson_r : The correlations alone.

    Notes
    -----
    The correlations are those of :func:`pearson_r`, :func:`spearman_rho`
    and :func:`kendall_tau` (tau-b), scipy.stats' statistics and p-values;
    sMARE is :func:`smare`. Where the predicted (or the actual) values are
    all equal up to rounding, no correlation is defined: all three are nan,
    with one warning naming the argument.

    Examples
    --------
    >>> from sklearn_rankmetrics.meta import qpp_evaluation
    >>> print(qpp_evaluation([0.1, 0.2, 0.3, 0.4], [0.25, 0.05, 0.5, 0.7]))
    query performance prediction over 4 queries
      Pearson's r      +0.8173  (p = 0.183)
      Spearman's rho   +0.8000  (p = 0.2)
      Kendall's tau    +0.6667  (p = 0.333)
      sMARE            0.1250
    """
    names = ("predicted", "actual")
    _, predicted, actual = paired_scores(predicted, actual, names=names)
    rounded = round_ties(predicted), round_ties(actual)
    n = len(actual)
    if warn_if_constant(*rounded, names):  # no ordering to predict, or none predicted: every statistic undefined
        return QPPEvaluation(
            pearson=CorrelationResult(np.nan, np.nan, "pearson", n),
            spearman=CorrelationResult(np.nan, np.nan, "spearman", n),
            kendall=CorrelationResult(np.nan, np.nan, "kendall", n, "b"),
            smare=smare_of_rounded(*rounded),
            n_queries=n,
        )
    return QPPEvaluation(
        pearson=pearson_of(predicted, actual, names),
        spearman=spearman_of_rounded(*rounded, names),
        kendall=kendall_of_rounded(*rounded, "b", names),
        smare=smare_of_rounded(*rounded),
        n_queries=n,
    )
