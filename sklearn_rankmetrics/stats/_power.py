"""How many queries? Power of the paired t-test and Sakai's topic-set-size designs.

Every design asks for the smallest number of queries n >= 2 meeting a
statistical requirement, computed with the exact noncentral t and F
distributions (Sakai's spreadsheets use Nagata's normal approximations of
them, which can differ by a query). The requirement is monotone in n, so an
integer search (doubling, then bisection) finds the smallest n in a few dozen
evaluations, whatever its size.
"""

import numpy as np
from scipy import special, stats

from .._core._validation import check_integer, check_real, plain
from .._core._warnings import warn
from ._comparison_report import defined_values, metric_name
from ._paired_tests import mean_difference, pair_differences

# The most queries a design searches up to: far beyond any test collection.
MAX_QUERIES = 2**40


def check_alpha(alpha, name="alpha"):
    """Return ``alpha`` as a float after checking it is a level in (0, 1), both ends excluded."""
    return check_real(name, alpha, low=0, high=1, low_open=True, high_open=True)


def check_power(power, alpha):
    """Return the requested ``power``: above ``alpha`` (the power of any test with no effect) and below 1."""
    power = check_real("power", power)
    if not alpha < power < 1:
        raise ValueError(
            f"power must be in ({alpha!r}, 1): above alpha={alpha!r} (what a test reaches with no effect at all) "
            f"and below 1; got {power!r}."
        )
    return power


def check_effect(name, value):
    """Return a finite, non-zero effect as a positive float (the designs are two-sided)."""
    value = check_real(name, value)
    if value == 0:
        raise ValueError(f"{name} must be non-zero: no number of queries detects a difference of 0.")
    return abs(value)


def paired_t_power(effect_size, n_queries, *, alpha=0.05):
    """Power of the two-sided paired t-test to detect a standardized mean difference.

    Parameters
    ----------
    effect_size : float or array-like
        The standardized mean difference :math:`d_z = \\mu_d / \\sigma_d`: the
        mean of the per-query differences over their standard deviation, as
        ``effect_size`` of :func:`compare_rankings` with ``test="t-test"``.
        Its sign does not matter.
    n_queries : int or array-like of int
        Number of queries, at least 2.
    alpha : float, default=0.05
        Significance level of the test.

    Returns
    -------
    power : float or ndarray
        The probability that the test rejects a zero mean difference at level
        ``alpha`` when the true standardized difference is ``effect_size``:
        :math:`P(|T| > t_{1 - \\alpha/2,\\, n-1})` for :math:`T` noncentral t
        with :math:`n - 1` degrees of freedom and noncentrality
        :math:`d_z \\sqrt n`. Equal to statsmodels'
        ``TTestPower().power(effect_size, n_queries, alpha)``. A float for
        scalar arguments, else an array of their broadcast shape.

    See Also
    --------
    topic_set_size : The smallest number of queries reaching a power.

    Examples
    --------
    >>> from sklearn_rankmetrics import paired_t_power
    >>> round(paired_t_power(0.3, 50), 4)
    0.5477
    >>> paired_t_power(0.3, [50, 100]).round(4)
    array([0.5477, 0.8439])
    """
    alpha = check_alpha(alpha)
    effect_size = np.asarray(effect_size, dtype=np.float64)
    if not np.isfinite(effect_size).all():
        raise ValueError(f"effect_size must be finite; got {plain(effect_size.tolist())!r}.")
    n_queries = np.asarray(n_queries)
    if n_queries.dtype.kind not in "iu" or (n_queries < 2).any():
        raise ValueError(f"n_queries must be integers >= 2; got {plain(n_queries.tolist())!r}.")
    power = t_power(effect_size, n_queries.astype(np.float64), alpha)
    return float(power) if power.ndim == 0 else power


def t_power(effect_size, n_queries, alpha):
    """The two-sided paired t-test's power from the noncentral t distribution (no checks)."""
    df = n_queries - 1
    critical = stats.t.isf(alpha / 2, df)
    noncentrality = np.abs(effect_size) * np.sqrt(n_queries)  # the power is symmetric in the effect's sign
    # Rejections on the wrong side: below alpha / 2, and nan from scipy only where they underflow (far tails).
    wrong_side = np.nan_to_num(stats.nct.cdf(-critical, df, noncentrality), nan=0.0)
    return np.asarray(stats.nct.sf(critical, df, noncentrality) + wrong_side)


def smallest_n(reaches, what):
    """The smallest integer n >= 2 for which the monotone requirement ``reaches(n)`` holds."""
    high = 2
    while not reaches(high):
        if high >= MAX_QUERIES:
            raise ValueError(f"{what} needs more than {MAX_QUERIES:,} queries: the requirement is out of reach.")
        high *= 2
    low = high // 2  # reaches(low) is False, unless high is 2
    if high == 2:
        return 2
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if reaches(middle) else (middle, high)
    return high


def topic_set_size(effect_size, *, alpha=0.05, power=0.8):
    """The smallest number of queries for which the paired t-test reaches a power: Sakai's t-test-based design.

    Parameters
    ----------
    effect_size : float
        The standardized mean difference to detect, :math:`d_z =
        \\text{minD} / \\sigma_d`: the minimum difference worth detecting over
        the standard deviation of the per-query differences (Sakai [1]_
        estimates :math:`\\sigma_d^2` as twice the within-system variance when
        the systems' covariance is unknown). Non-zero; its sign does not
        matter.
    alpha : float, default=0.05
        Significance level of the two-sided test.
    power : float, default=0.8
        The power to reach, between ``alpha`` and 1.

    Returns
    -------
    n_queries : int
        The smallest n >= 2 with ``paired_t_power(effect_size, n, alpha=alpha)
        >= power``: the ceiling of statsmodels'
        ``TTestPower().solve_power(effect_size, alpha=alpha, power=power)``.

    See Also
    --------
    paired_t_power : The power at a given number of queries.
    topic_set_size_anova : The design for comparing several systems at once.
    topic_set_size_ci : The design that bounds the width of a confidence interval.
    RankingComparison.queries_needed : This design with the variance of a comparison's own differences.

    References
    ----------
    .. [1] T. Sakai, "Topic set size design", Information Retrieval Journal
       19(3), 2016, section 3.1.

    Examples
    --------
    >>> from sklearn_rankmetrics import topic_set_size
    >>> topic_set_size(0.5)  # a medium effect, 80% power at the 5% level
    34
    >>> topic_set_size(0.2, power=0.9)
    265
    """
    effect_size = check_effect("effect_size", effect_size)
    alpha = check_alpha(alpha)
    power = check_power(power, alpha)
    return smallest_n(lambda n: t_power(effect_size, float(n), alpha) >= power, "topic_set_size")


def topic_set_size_anova(min_range, *, variance, n_systems, alpha=0.05, power=0.8):
    """The smallest number of queries for which a one-way ANOVA of several systems reaches a power (Sakai).

    Sakai's ANOVA-based design [1]_: with ``n_systems`` systems whose true
    means span at least ``min_range`` (the best minus the worst), the F test
    of equal means should reject at level ``alpha`` with probability at least
    ``power``. The least favourable configuration of such means (two at
    :math:`\\pm\\,\\text{minD}/2` about the others) gives the noncentrality
    :math:`\\lambda = n\\,\\text{minD}^2 / (2\\sigma^2)`, and the power is
    :math:`P(F' > F_{1-\\alpha}(m-1, m(n-1)))` for :math:`F'` noncentral F with
    :math:`m - 1` and :math:`m(n - 1)` degrees of freedom.

    Parameters
    ----------
    min_range : float
        The minimum detectable range, in the metric's units: the smallest
        difference between the best and the worst system worth detecting.
    variance : float
        The within-system variance :math:`\\sigma^2` of the per-query values,
        estimated from past data: the residual mean square of a one-way
        ANOVA of per-query values by system (the mean of the systems'
        per-query variances).
    n_systems : int
        The number of systems m compared, at least 2.
    alpha : float, default=0.05
        Significance level of the F test.
    power : float, default=0.8
        The power to reach, between ``alpha`` and 1.

    Returns
    -------
    n_queries : int
        The smallest n >= 2 meeting the requirement: the ceiling of
        :math:`N / m`, where N is the total number of observations that
        statsmodels' ``FTestAnovaPower().solve_power`` returns for m groups
        and Cohen's :math:`f = \\text{minD} / \\sqrt{2 m \\sigma^2}`.

    See Also
    --------
    topic_set_size : The paired t-test's design, for two systems.

    References
    ----------
    .. [1] T. Sakai, "Topic set size design", Information Retrieval Journal
       19(3), 2016, section 3.2.

    Examples
    --------
    >>> from sklearn_rankmetrics import topic_set_size_anova
    >>> topic_set_size_anova(0.1, variance=0.05, n_systems=10)  # nDCG-like variance, a range of 0.1 over 10 systems
    158
    """
    min_range = check_effect("min_range", min_range)
    variance = check_real("variance", variance, low=0, low_open=True)
    m = check_integer("n_systems", n_systems, low=2)
    alpha = check_alpha(alpha)
    power = check_power(power, alpha)

    def reaches(n):
        critical = stats.f.isf(alpha, m - 1, m * (n - 1))
        return stats.ncf.sf(critical, m - 1, m * (n - 1), n * min_range**2 / (2 * variance)) >= power

    return smallest_n(reaches, "topic_set_size_anova")


def expected_ci_width(n, variance, confidence_level):
    """The expected width of the t interval of a mean difference over n queries, :math:`2 t \\, E[s] / \\sqrt n`.

    :math:`E[s] = c_4(n)\\,\\sigma` with :math:`c_4(n) = \\sqrt{2/(n-1)}\\,
    \\Gamma(n/2) / \\Gamma((n-1)/2)`, the mean of the sample standard deviation
    of n normal values.
    """
    c4 = np.sqrt(2 / (n - 1)) * np.exp(special.gammaln(n / 2) - special.gammaln((n - 1) / 2))
    return 2 * stats.t.isf((1 - confidence_level) / 2, n - 1) * c4 * np.sqrt(variance / n)


def topic_set_size_ci(max_width, *, variance, confidence_level=0.95):
    """The smallest number of queries whose confidence interval of a difference is expected to be narrow enough.

    Sakai's CI-based design [1]_ (after Nagata): the expected width of the
    t interval of the mean paired difference,
    :math:`2\\, t_{(1+c)/2,\\, n-1}\\, E[s_d] / \\sqrt n`, should not exceed
    ``max_width``, where :math:`E[s_d] = c_4(n)\\,\\sigma_d` is the mean of the
    sample standard deviation of n normal differences.

    Parameters
    ----------
    max_width : float
        The largest acceptable expected width of the interval (upper minus
        lower bound), in the metric's units.
    variance : float
        The variance :math:`\\sigma_d^2` of the per-query differences between
        two systems; Sakai uses twice the within-system variance when the
        systems' covariance is unknown (an upper bound when, as usual, the
        systems' per-query values are positively correlated).
    confidence_level : float, default=0.95
        Level of the interval.

    Returns
    -------
    n_queries : int
        The smallest n >= 2 whose expected interval width is at most
        ``max_width``.

    See Also
    --------
    topic_set_size : The design by the power of the paired t-test.

    References
    ----------
    .. [1] T. Sakai, "Topic set size design", Information Retrieval Journal
       19(3), 2016, section 3.3.

    Examples
    --------
    >>> from sklearn_rankmetrics import topic_set_size_ci
    >>> topic_set_size_ci(0.1, variance=2 * 0.05)  # an interval 0.1 wide, within-system variance 0.05
    156
    """
    max_width = check_real("max_width", max_width, low=0, low_open=True)
    variance = check_real("variance", variance, low=0, low_open=True)
    confidence_level = check_alpha(confidence_level, "confidence_level")
    return smallest_n(
        lambda n: expected_ci_width(float(n), variance, confidence_level) <= max_width, "topic_set_size_ci"
    )


def required_queries(differences, *, alpha, power):
    """The paired t-test's topic set size for each column of per-query differences, from their own d_z.

    The differences are :func:`pair_differences` (equal up to rounding is
    equal). None where the mean difference is 0 (no number of queries
    detects it) or where fewer than two queries leave no spread to estimate;
    2 where the differences are equal and non-zero (no spread).
    """
    sizes = []
    for d, mean in zip(differences.T, mean_difference(differences.T), strict=True):
        if len(d) < 2:
            sizes.append(None)
            continue
        spread = d.std(ddof=1)
        if mean == 0:
            sizes.append(None)
        elif spread == 0:
            sizes.append(2)
        else:
            sizes.append(topic_set_size(mean / spread, alpha=alpha, power=power))
    return sizes


def queries_needed(comparison, metric, *, power, alpha):
    """:meth:`RankingComparison.queries_needed`: each tested pair's topic set size, warning where too few."""
    metric = metric_name(comparison, metric)
    alpha = comparison.alpha if alpha is None else check_alpha(alpha)
    power = check_power(power, alpha)
    values, defined = defined_values(comparison, metric)
    tested = [row for row in comparison.rows if row["metric"] == metric and row["baseline"] is not None]
    differences = np.column_stack([pair_differences(values[row["system"]], values[row["baseline"]]) for row in tested])
    sizes = required_queries(differences, alpha=alpha, power=power)
    n_queries = int(defined.sum())
    short = [
        f"{plain(row['system'])!r} - {plain(row['baseline'])!r}: {size}"
        for row, size in zip(tested, sizes, strict=True)
        if size is not None and size > n_queries and not row["pvalue_adjusted"] < comparison.alpha
    ]
    if short:
        warn(
            f"Too few queries for power {power:g} on {plain(metric)!r}: these differences are not significant on "
            f"{n_queries} queries, and the paired t-test needs more to detect differences of their size with that "
            f"power: {'; '.join(short)} queries. The comparison cannot tell whether they exist.",
            UserWarning,
        )
    return {(row["baseline"], row["system"]): size for row, size in zip(tested, sizes, strict=True)}
