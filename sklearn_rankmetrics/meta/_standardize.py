"""Score standardisation (Webber, Moffat & Zobel 2008): each topic's scores as z-scores against reference systems."""

import numbers

import numpy as np
from scipy import stats

from .._core._tolerance import rounding_tolerance, values_scale
from .._core._validation import check_option, plain
from .._core._warnings import warn
from ._inputs import check_same_keys, is_frame, is_series, per_query_scores

TRANSFORMS = ("cdf", "linear", None)
# Sakai's linear transformation of z-scores, A z + B (std-AB): most scores then fall in [0, 1].
LINEAR_A, LINEAR_B = 0.15, 0.5


def standardize_scores(scores, *, reference=None, transform="cdf", metric=None):
    """Standardise per-topic scores against reference systems (Webber et al. 2008): z-scores, mapped to [0, 1].

    A hard topic, where every system scores low, and an easy one then weigh
    alike in a mean, and scores on different collections become comparable.

    Parameters
    ----------
    scores : array-like of shape (n_queries, n_systems), mapping, DataFrame or RankingComparison
        The per-query scores to standardise: a matrix of one row per query
        and one column per system, a mapping ``{system: per-query values}``
        (arrays in the same order of queries, or pandas Series aligned by
        their index), a DataFrame of one column per system, or a
        :class:`RankingComparison` (the values of ``metric`` on the queries
        every system defines). One query is enough: z-scores are per topic.
    reference : same types as ``scores``, or list of system names, default=None
        The systems whose scores set each topic's mean and standard
        deviation: other per-query scores of the same queries (aligned by
        query id where both name their queries, as DataFrames, Series and
        comparisons do, else by position), the names of some systems of
        ``scores`` (str or integers), or None: all the systems of ``scores``.
    transform : {"cdf", "linear", None}, default="cdf"
        What to do with the z-score z: ``"cdf"``, the standard normal
        distribution function :math:`\\Phi(z)` in (0, 1) (Webber et al.);
        ``"linear"``, Sakai's :math:`0.15 z + 0.5`; None: z itself.
    metric : str, default=None
        The metric of a RankingComparison; None: its only one.

    Returns
    -------
    standardized : ndarray, dict or DataFrame
        The standardised scores, in the layout of ``scores``: an array of the
        same shape, a dict ``{system: values}`` (also for a
        RankingComparison; Series indexed as the first one, for Series), or
        a DataFrame with the same index and columns.

    Warns
    -----
    UserWarning
        For a topic where every reference system scores the same (up to
        rounding): its standard deviation is 0 and its standardised scores
        are nan.

    See Also
    --------
    discriminative_power : Compare standardised and raw scores by how many pairs they separate.

    Notes
    -----
    For topic t, with :math:`\\mu_t` and :math:`\\sigma_t` the mean and the
    standard deviation (ddof=1, as R's ``sd``) of the reference systems'
    scores on t,

    .. math:: z_{s,t} = \\frac{x_{s,t} - \\mu_t}{\\sigma_t}.

    A topic whose reference scores differ only by rounding (their standard
    deviation within the tolerance of that topic's own scale) has no
    spread.

    References
    ----------
    .. [1] W. Webber, A. Moffat and J. Zobel, "Score standardization for
       inter-collection comparison of retrieval systems", SIGIR 2008.
    .. [2] T. Sakai, "A simple and effective approach to score
       standardisation", ICTIR 2016.

    Examples
    --------
    >>> from sklearn_rankmetrics.meta import standardize_scores
    >>> scores = {"a": [0.2, 0.8], "b": [0.4, 0.9], "c": [0.6, 1.0]}  # topic 2 is easy
    >>> z = standardize_scores(scores, transform=None)
    >>> z["c"].round(4).tolist()  # one standard deviation above the mean on both topics
    [1.0, 1.0]
    """
    transform = check_option("transform", transform, TRANSFORMS) if transform is not None else None
    names, matrix, queries = per_query_scores(scores, "scores", metric=metric, minimum_systems=1, minimum_queries=1)
    basis = reference_matrix(reference, names, matrix, queries, metric)
    mean = basis.mean(axis=1, keepdims=True)
    deviation = basis.std(axis=1, ddof=1, keepdims=True)
    flat = deviation[:, 0] <= rounding_tolerance(values_scale(basis, axis=1))  # each topic at its own scale
    if flat.any():
        rows = np.flatnonzero(flat)
        shown = ", ".join(map(str, rows[:5])) + (", ..." if len(rows) > 5 else "")
        warn(
            f"Every reference system scores the same on {len(rows)} topic(s) (rows {shown}): without spread there "
            "is no z-score, so their standardised scores are nan. Leave such topics out, or standardise against "
            "more systems.",
            UserWarning,
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(flat[:, None], np.nan, (matrix - mean) / deviation)
    if transform == "cdf":
        z = stats.norm.cdf(z)
    elif transform == "linear":
        z = LINEAR_A * z + LINEAR_B
    return in_layout(scores, names, z)


def reference_matrix(reference, names, matrix, queries, metric):
    """The reference systems' per-query scores: all of ``matrix``, some of its columns, or another matrix.

    Another matrix with query ids (a DataFrame, Series, a comparison) is
    aligned on the queries of ``scores`` when those have ids too, else by
    position.
    """
    if reference is None:
        basis = matrix
    elif is_name_list(reference):
        wanted = [plain(name) for name in reference]
        missing = [name for name in wanted if name not in names]
        if missing:
            raise ValueError(
                f"reference names systems that scores does not have: {plain(missing)}; its systems are {plain(names)}."
            )
        basis = matrix[:, [names.index(name) for name in wanted]]
    else:
        _, basis, basis_queries = per_query_scores(
            reference, "reference", metric=metric, minimum_systems=1, minimum_queries=1
        )
        if queries is not None and basis_queries is not None:
            check_same_keys(queries, basis_queries, ("scores", "reference"), "queries")
            position = {query: i for i, query in enumerate(basis_queries)}
            basis = basis[[position[query] for query in queries]]
        elif len(basis) != len(matrix):
            raise ValueError(
                f"reference must score the same queries as scores; got {len(basis)} and {len(matrix)} queries."
            )
    if basis.shape[1] < 2:
        raise ValueError(f"a topic's standard deviation needs at least two reference systems; got {basis.shape[1]}.")
    return basis


def is_name_list(reference):
    """Whether ``reference`` is a list of system names (str or integers, numpy's too), not per-query scores."""
    if isinstance(reference, str) or np.ndim(reference) != 1 or is_frame(reference) or hasattr(reference, "items"):
        return False
    return all(isinstance(name, str | numbers.Integral) and not isinstance(name, bool | np.bool_) for name in reference)


def in_layout(scores, names, values):
    """The standardised matrix in the layout the scores came in (Series keep their index, the first one's order)."""
    if is_frame(scores):
        return scores.__class__(values, index=scores.index, columns=scores.columns)
    if isinstance(scores, np.ndarray) or not (hasattr(scores, "items") or hasattr(scores, "per_query")):
        return values
    first = next(iter(scores.values())) if hasattr(scores, "items") else None
    if first is not None and is_series(first):
        return {name: first.__class__(values[:, i], index=first.index) for i, name in enumerate(names)}
    return {name: values[:, i] for i, name in enumerate(names)}
