"""Result objects in scipy.stats' style: a statistic, its p-value and a confidence_interval() method."""

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy import stats

from .._core._tolerance import equal_up_to_rounding
from .._core._validation import check_real
from .._core._warnings import warn
from ..stats._comparison_report import import_pandas


class ConfidenceInterval(NamedTuple):
    """The ends of a confidence interval, as scipy.stats' ``ConfidenceInterval``.

    Parameters
    ----------
    low : float
        The lower end.
    high : float
        The upper end.

    See Also
    --------
    CorrelationResult.confidence_interval : Returns one.

    Examples
    --------
    >>> from sklearn_rankmetrics.meta import ConfidenceInterval
    >>> low, high = ConfidenceInterval(0.2, 0.7)
    >>> high - low
    0.49999999999999994
    """

    low: float
    high: float


# The names of the correlations, in tables (to_frame) and in print.
LABELS = {"pearson": "pearson_r", "spearman": "spearman_rho", "kendall": "kendall_tau"}
# The variance of Fisher's z = artanh(r) for n pairs, by correlation (see CorrelationResult's Notes).
FISHER_VARIANCE = {
    "pearson": lambda r, n: 1.0 / (n - 3.0),
    "spearman": lambda r, n: (1.0 + r**2 / 2.0) / (n - 3.0),
    "kendall": lambda r, n: 0.437 / (n - 4.0),
}


@dataclass(frozen=True)
class CorrelationResult:
    """A correlation of two sets of scores: its statistic, p-value and confidence interval.

    It unpacks as ``statistic, pvalue``, as scipy.stats' results do.

    Parameters
    ----------
    statistic : float
        The correlation coefficient, in [-1, 1] (nan where undefined).
    pvalue : float
        The two-sided p-value of no association, as scipy.stats computes it.
    method : {"pearson", "spearman", "kendall"}
        The correlation.
    n : int
        The number of pairs of scores.
    variant : str, default=""
        For Kendall's tau: ``"a"``, ``"b"`` or ``"c"``.

    See Also
    --------
    kendall_tau, spearman_rho, pearson_r : Compute one.

    Notes
    -----
    :meth:`confidence_interval` transforms the coefficient with Fisher's
    :math:`z = \\operatorname{artanh}(r)`, takes :math:`z \\pm
    z_{1-\\alpha/2} \\sigma_z` and transforms back with tanh. For Pearson's r,
    :math:`\\sigma_z^2 = 1/(n - 3)`, the interval of
    ``scipy.stats.pearsonr(...).confidence_interval()``; for Spearman's rho,
    Bonett and Wright's :math:`(1 + \\rho^2/2)/(n - 3)` [1]_; for Kendall's
    tau, Fieller, Hartley and Pearson's :math:`0.437/(n - 4)` [2]_. The last
    two are approximations for continuous scores without ties; with fewer
    pairs than the variance needs (4 for Pearson and Spearman, 5 for
    Kendall) the interval is [-1, 1]. Where Spearman's rho or Kendall's tau
    is 1 or -1 (up to rounding), Fisher's z is infinite and the interval would
    collapse to the point r whatever n (five systems ordered alike, p =
    0.017, would be "certainly" perfectly correlated): it is (nan, nan)
    instead, with a warning; the p-value still measures the evidence.
    Pearson's r of exactly ±1 keeps scipy's interval, the point r: under
    the bivariate normal model its sampling distribution collapses there.

    References
    ----------
    .. [1] D. G. Bonett and T. A. Wright, "Sample size requirements for
       estimating Pearson, Kendall and Spearman correlations",
       Psychometrika 65(1), 2000.
    .. [2] E. C. Fieller, H. O. Hartley and E. S. Pearson, "Tests for rank
       correlation coefficients. I", Biometrika 44(3/4), 1957.

    Examples
    --------
    >>> from sklearn_rankmetrics.meta import kendall_tau
    >>> result = kendall_tau([0.31, 0.25, 0.40, 0.22], [0.30, 0.28, 0.35, 0.20])
    >>> tau, pvalue = result
    >>> round(tau, 4), round(pvalue, 4)
    (1.0, 0.0833)
    """

    statistic: float
    pvalue: float
    method: str
    n: int
    variant: str = ""

    def confidence_interval(self, confidence_level=0.95):
        """The confidence interval of the correlation, by Fisher's z transformation.

        Parameters
        ----------
        confidence_level : float, default=0.95
            The level, strictly between 0 and 1.

        Returns
        -------
        ci : ConfidenceInterval
            ``(low, high)``, within [-1, 1].

        Examples
        --------
        >>> from sklearn_rankmetrics.meta import pearson_r
        >>> ci = pearson_r([1, 2, 3, 4, 5, 6], [1.2, 1.9, 3.4, 3.9, 5.2, 5.8]).confidence_interval()
        >>> round(ci.low, 4), round(ci.high, 4)
        (0.9315, 0.9992)
        """
        level = check_real("confidence_level", confidence_level, low=0, high=1, low_open=True, high_open=True)
        r, n = self.statistic, np.float64(self.n)
        with np.errstate(divide="ignore", invalid="ignore"):
            variance = FISHER_VARIANCE[self.method](r, n)
            if not 0 < variance < np.inf:  # too few pairs: the transformation tells nothing
                return ConfidenceInterval(-1.0, 1.0)
            if self.method != "pearson" and equal_up_to_rounding(abs(r), 1.0):
                warn(
                    f"{str(self).split(' =')[0]} is {r:+g} on {self.n} pairs: Fisher's z is infinite there, so its "
                    "interval would be the single point r whatever the number of pairs. It is (nan, nan): judge "
                    "a perfect rank agreement by its p-value.",
                    UserWarning,
                )
                return ConfidenceInterval(np.nan, np.nan)
            z, margin = np.arctanh(r), stats.norm.ppf(0.5 + level / 2) * np.sqrt(variance)
            return ConfidenceInterval(float(np.tanh(z - margin)), float(np.tanh(z + margin)))

    def to_frame(self, *, confidence_level=0.95):
        """The correlation as a one-row pandas DataFrame, as the other results' ``to_frame`` show statistics.

        Parameters
        ----------
        confidence_level : float, default=0.95
            Level of the interval.

        Returns
        -------
        frame : pandas.DataFrame
            Indexed by the correlation (``"kendall_tau_b"``, ``"spearman_rho"``,
            ``"pearson_r"``), with the columns ``statistic``, ``pvalue``,
            ``ci_low``, ``ci_high`` and ``n``.
        """
        pd = import_pandas("CorrelationResult.to_frame")
        low, high = self.confidence_interval(confidence_level)
        label = LABELS[self.method] + (f"_{self.variant}" if self.variant else "")
        return pd.DataFrame(
            {"statistic": [self.statistic], "pvalue": [self.pvalue], "ci_low": [low], "ci_high": [high], "n": [self.n]},
            index=[label],
        )

    def __iter__(self):
        return iter((self.statistic, self.pvalue))

    def __str__(self):
        name = {"pearson": "Pearson's r", "spearman": "Spearman's rho", "kendall": "Kendall's tau"}[self.method]
        variant = f"_{self.variant}" if self.variant else ""
        return f"{name}{variant} = {self.statistic:.4f} (p = {self.pvalue:.3g}, n = {self.n})"
