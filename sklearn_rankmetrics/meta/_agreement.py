"""Agreement of judges: Cohen's kappa, Fleiss' kappa and Krippendorff's alpha, for one set of items or per group.

Each statistic has a kernel that takes the judgements as category codes and
a group of each item (a query), and returns one value per group from counts
made for all groups at once (``np.bincount``, matrix products); the public
functions are the kernels on one group.
"""

import numpy as np

from .._core._validation import as_float_array, check_option, missing_rows, plain
from .._core._warnings import warn

WEIGHTS = (None, "linear", "quadratic")
LEVELS = ("nominal", "ordinal", "interval", "ratio")
# Numbers held at a time by the per-group coincidence matrices (items x categories x categories).
CHUNK = 2**22


def check_labels_1d(values, name):
    """One label per item as a 1-D array (numbers or strings), without a missing value."""
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{name} must be 1-D, one label per item; got an array of shape {array.shape}.")
    if not len(array):
        raise ValueError(f"{name} is empty: agreement needs at least one item judged by both judges.")
    missing = missing_rows(array)
    if missing.any():
        raise ValueError(
            f"{name} has {int(missing.sum())} missing label(s) (first at item {int(np.flatnonzero(missing)[0])}): "
            "Cohen's kappa compares items both judges labelled. Drop those items, or use krippendorff_alpha, which "
            "takes missing judgements as NaN."
        )
    return array


def cohen_kappa(a, b, *, weights=None, labels=None):
    """Compute Cohen's kappa: the agreement of two judges on the same items, beyond chance.

    Parameters
    ----------
    a, b : array-like of shape (n_items,)
        Each judge's label of every item (numbers or strings), as
        :func:`sklearn.metrics.cohen_kappa_score` takes them; no missing
        label.
    weights : {None, "linear", "quadratic"}, default=None
        Disagreement weights: None, every disagreement 1; ``"linear"``,
        :math:`|i - j|`; ``"quadratic"``, :math:`(i - j)^2`, with i and j the
        positions of the two labels in the sorted categories.
    labels : array-like, default=None
        The categories, sorted: their positions give the weights. None: the
        labels that occur in ``a`` or ``b`` (scikit-learn's default). A label
        outside ``labels`` is an error, never dropped.

    Returns
    -------
    kappa : float
        1 for perfect agreement, 0 for agreement as by chance, negative
        below it; nan (with a warning) when chance agreement is already
        perfect (both judges give one and the same label throughout).

    See Also
    --------
    fleiss_kappa : More than two judges.
    krippendorff_alpha : Any number of judges, missing judgements, levels of measurement.
    judge_agreement : The same from qrels, overall and per query.

    Notes
    -----
    With :math:`O` the matrix of the proportions of items labelled i by
    ``a`` and j by ``b``, :math:`E` the product of its margins (agreement
    by chance) and :math:`w` the disagreement weights,

    .. math:: \\kappa = 1 - \\frac{\\sum_{ij} w_{ij} O_{ij}}{\\sum_{ij} w_{ij} E_{ij}},

    equal to ``sklearn.metrics.cohen_kappa_score(a, b, weights=weights,
    labels=labels)``.

    References
    ----------
    .. [1] J. Cohen, "A coefficient of agreement for nominal scales",
       Educational and Psychological Measurement 20(1), 1960.
    .. [2] J. Cohen, "Weighted kappa", Psychological Bulletin 70(4), 1968.

    Examples
    --------
    >>> from sklearn_rankmetrics.meta import cohen_kappa
    >>> # agreement 4/6; by chance (3/6)(3/6) + (2/6)(2/6) + (1/6)(1/6) = 14/36
    >>> round(cohen_kappa([0, 1, 2, 0, 1, 0], [0, 1, 1, 0, 2, 0]), 4)
    0.4545
    """
    weights = check_option("weights", weights, WEIGHTS) if weights is not None else None
    a, b = check_labels_1d(a, "a"), check_labels_1d(b, "b")
    if len(a) != len(b):
        raise ValueError(f"a and b must label the same items; got {len(a)} and {len(b)} labels.")
    kinds = ["strings" if array.dtype.kind in "US" else "numbers" for array in (a, b)]
    if kinds[0] != kinds[1]:
        raise TypeError(
            f"a and b must use labels of one kind; got {kinds[0]} in a and {kinds[1]} in b. Give both as numbers "
            "or both as strings."
        )
    codes, n_categories = category_codes([a, b], labels)
    kappa = cohen_kernel(codes[0], codes[1], n_categories, np.zeros(len(a), dtype=np.intp), 1, weights)[0]
    warn_if_undefined(kappa, "Cohen's kappa", "both judges give every item one and the same label")
    return float(kappa)


def category_codes(arrays, labels):
    """The codes of the labels of several arrays in their sorted categories (``labels``, or those that occur)."""
    if labels is None:
        categories = np.unique(np.concatenate([np.asarray(array) for array in arrays]))
    else:
        categories = np.asarray(labels)
        if categories.ndim != 1 or not len(categories):
            raise ValueError(f"labels must be a nonempty 1-D list of categories; got {plain(labels)!r}.")
        if len(np.unique(categories)) != len(categories):
            raise ValueError(f"labels names a category twice: {plain(list(categories))}.")
    # Positions in the order given (scikit-learn's labels=), found by a search in sorted order.
    order = np.argsort(categories, kind="stable") if labels is not None else np.arange(len(categories))
    ordered = categories[order]
    codes = []
    for name, array in zip("ab", arrays, strict=False):
        position = np.searchsorted(ordered, array)
        inside = position < len(ordered)
        inside[inside] = ordered[position[inside]] == array[inside]
        if not inside.all():
            raise ValueError(
                f"{name} has the label {plain(array[~inside][0])!r}, which is not one of labels "
                f"{plain(list(categories))}: every label must be one of them."
            )
        codes.append(order[position] if labels is not None else position)
    return codes, len(categories)


def cohen_kernel(a, b, n_categories, group, n_groups, weights):
    """Cohen's kappa of each group of items, from the two judges' category codes."""
    v = n_categories
    cells = (group.astype(np.int64) * v + a) * v + b
    confusion = np.bincount(cells, minlength=n_groups * v * v).reshape(n_groups, v, v).astype(np.float64)
    total = confusion.sum(axis=(1, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = confusion.sum(axis=2)[:, :, None] * confusion.sum(axis=1)[:, None, :] / total[:, None, None]
        w = disagreement_weights(v, weights)
        return 1.0 - (w * confusion).sum(axis=(1, 2)) / (w * expected).sum(axis=(1, 2))


def disagreement_weights(v, weights):
    """The (v, v) disagreement weights of categories at positions 0 .. v - 1."""
    distance = np.abs(np.arange(v)[:, None] - np.arange(v)[None, :]).astype(np.float64)
    if weights == "linear":
        return distance
    if weights == "quadratic":
        return distance**2
    return (distance > 0).astype(np.float64)


def check_ratings(ratings, name="ratings"):
    """Ratings as a float (n_judges, n_items) array: numbers, NaN where a judge did not judge an item."""
    array = as_float_array(ratings, name, ndim=(2,))
    if np.isinf(array).any():
        raise ValueError(f"{name} contains infinity; a judgement is a finite number, or NaN where it is missing.")
    if array.shape[0] < 2:
        raise ValueError(
            f"{name} must have one row per judge and one column per item, with at least two judges; got shape "
            f"{array.shape}. Transpose an (n_items, n_judges) table."
        )
    if not ((~np.isnan(array)).sum(axis=0) >= 2).any():
        raise ValueError(
            f"agreement needs an item judged by at least two judges; no item of {name} has two judgements (NaN "
            "marks a missing one)."
        )
    return array


def unit_counts(ratings):
    """Each item's count of judgements per category: (counts of shape (n_items, n_categories), categories)."""
    judged = ~np.isnan(ratings)
    categories, codes = np.unique(ratings[judged], return_inverse=True)
    items = np.broadcast_to(np.arange(ratings.shape[1]), ratings.shape)[judged]
    v = len(categories)
    counts = np.bincount(items * v + codes.ravel(), minlength=ratings.shape[1] * v).reshape(-1, v)
    return counts.astype(np.float64), categories


def fleiss_kappa(ratings):
    """Compute Fleiss' kappa: the agreement of several judges on the same items, beyond chance.

    Parameters
    ----------
    ratings : array-like of shape (n_judges, n_items)
        The category each judge gave each item (numbers), NaN where a judge
        did not judge an item (the layout of the ``krippendorff`` package's
        ``reliability_data``).

    Returns
    -------
    kappa : float
        1 for perfect agreement, 0 for agreement as by chance; nan (with a
        warning) when every judgement is of one category.

    See Also
    --------
    cohen_kappa : Two judges, with weights.
    krippendorff_alpha : Missing judgements and levels of measurement, with a small-sample correction.

    Notes
    -----
    With :math:`n_{ic}` the judges who put item i in category c and
    :math:`m_i` the judges of item i,

    .. math:: \\bar P = \\operatorname{mean}_{i: m_i \\geq 2}
              \\sum_c \\frac{n_{ic}(n_{ic} - 1)}{m_i (m_i - 1)}, \\quad
              \\pi_c = \\operatorname{mean}_{i: m_i \\geq 1} \\frac{n_{ic}}{m_i}, \\quad
              \\kappa = \\frac{\\bar P - \\sum_c \\pi_c^2}{1 - \\sum_c \\pi_c^2}.

    When every item has the same number of judges this is Fleiss' kappa [1]_,
    equal to ``statsmodels.stats.inter_rater.fleiss_kappa`` of the
    items x categories counts; with missing judgements it is Gwet's
    generalisation [2]_: the agreement averages over the items that two
    judges or more judged, the category shares over the items judged at
    all. Items nobody judged are left out.

    References
    ----------
    .. [1] J. L. Fleiss, "Measuring nominal scale agreement among many
       raters", Psychological Bulletin 76(5), 1971.
    .. [2] K. L. Gwet, "Handbook of Inter-Rater Reliability", 4th ed.,
       Advanced Analytics, 2014, chapter 2.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics.meta import fleiss_kappa
    >>> ratings = [[1, 1, 0, 2], [1, 1, 0, 2], [1, 0, 0, 2]]  # 3 judges, 4 items
    >>> # agreement (1 + 1/3 + 1 + 1) / 4 = 5/6; by chance (1/3)^2 + (5/12)^2 + (1/4)^2 = 25/72
    >>> round(fleiss_kappa(ratings), 4)  # (5/6 - 25/72) / (1 - 25/72)
    0.7447
    """
    ratings = check_ratings(ratings)
    counts, _ = unit_counts(ratings)
    kappa = fleiss_kernel(counts, np.zeros(len(counts), dtype=np.intp), 1)[0]
    warn_if_undefined(kappa, "Fleiss' kappa", "every judgement is of one category")
    return float(kappa)


def fleiss_kernel(counts, group, n_groups):
    """Fleiss' kappa (Gwet's form for missing judgements) of each group of items, from their category counts."""
    m = counts.sum(axis=1)
    judged, pairable = m >= 1, m >= 2
    with np.errstate(divide="ignore", invalid="ignore"):
        agreement = np.where(pairable, (counts * (counts - 1)).sum(axis=1) / (m * (m - 1)), 0.0)
        shares = np.where(judged[:, None], counts / m[:, None], 0.0)
    n_pairable = np.bincount(group, weights=pairable, minlength=n_groups)
    n_judged = np.bincount(group, weights=judged, minlength=n_groups)
    v = counts.shape[1]
    share_sums = np.bincount(
        np.repeat(group, v) * v + np.tile(np.arange(v), len(group)), weights=shares.ravel(), minlength=n_groups * v
    ).reshape(n_groups, v)
    with np.errstate(divide="ignore", invalid="ignore"):
        observed = np.bincount(group, weights=agreement, minlength=n_groups) / n_pairable
        chance = ((share_sums / n_judged[:, None]) ** 2).sum(axis=1)
        return (observed - chance) / (1.0 - chance)


def krippendorff_alpha(ratings, *, level="nominal"):
    """Compute Krippendorff's alpha: the reliability of judgements by any number of judges, missing ones allowed.

    Parameters
    ----------
    ratings : array-like of shape (n_judges, n_items)
        The value each judge gave each item (numbers), NaN where a judge did
        not judge an item: the ``reliability_data`` of the ``krippendorff``
        package.
    level : {"nominal", "ordinal", "interval", "ratio"}, default="nominal"
        The level of measurement, which sets how far apart two values are.

    Returns
    -------
    alpha : float
        1 for perfect reliability, 0 for agreement as by chance, negative
        below it; nan (with a warning) when the paired judgements all have
        one value.

    Raises
    ------
    ValueError
        When no item has two judgements: nothing can be compared.

    See Also
    --------
    fleiss_kappa : The nominal agreement of several judges without the small-sample correction.
    judge_agreement : The same from qrels, overall and per query.

    Notes
    -----
    Items judged by fewer than two judges are not pairable and add nothing.
    The coincidence matrix counts, within every item of :math:`m_u \\geq 2`
    judgements, each ordered pair of judgements of values c and k with
    weight :math:`1/(m_u - 1)`: :math:`o_{ck}`; :math:`n_c = \\sum_k o_{ck}`
    and :math:`n = \\sum_c n_c`. Then

    .. math:: \\alpha = 1 - (n - 1) \\frac{\\sum_{c,k} o_{ck}\\, \\delta^2_{ck}}
              {\\sum_{c,k} n_c n_k\\, \\delta^2_{ck}}

    with the difference :math:`\\delta^2_{ck}`: nominal, 1 for
    :math:`c \\neq k`; ordinal, :math:`(\\sum_{g=c}^{k} n_g - (n_c + n_k)/2)^2`
    over the values g between c and k in sorted order; interval,
    :math:`(c - k)^2`; ratio, :math:`((c - k)/(c + k))^2` (0 where
    :math:`c + k = 0`) [1]_ [2]_. Equal to ``krippendorff.alpha`` of the same
    ``reliability_data`` and ``level_of_measurement``.

    References
    ----------
    .. [1] K. Krippendorff, "Computing Krippendorff's alpha-reliability",
       University of Pennsylvania, 2011.
    .. [2] A. F. Hayes and K. Krippendorff, "Answering the call for a
       standard reliability measure for coding data", Communication Methods
       and Measures 1(1), 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics.meta import krippendorff_alpha
    >>> nan = np.nan
    >>> ratings = [[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],  # Krippendorff (2011)'s example
    ...            [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    ...            [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    ...            [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]]
    >>> round(krippendorff_alpha(ratings), 3), round(krippendorff_alpha(ratings, level="interval"), 3)
    (0.743, 0.849)
    """
    level = check_option("level", level, LEVELS)
    ratings = check_ratings(ratings)
    counts, categories = unit_counts(ratings)
    if level == "ratio" and (categories < 0).any():
        raise ValueError(
            f"level='ratio' needs non-negative values (ratios of distances from an absolute 0); ratings holds "
            f"{plain(float(categories.min()))!r}. Use level='interval'."
        )
    alpha = krippendorff_kernel(counts, categories, np.zeros(len(counts), dtype=np.intp), 1, level)[0]
    warn_if_undefined(alpha, "Krippendorff's alpha", "every paired judgement has one and the same value")
    return float(alpha)


def krippendorff_kernel(counts, values, group, n_groups, level):
    """Krippendorff's alpha of each group of items, from their value counts (items x values)."""
    m = counts.sum(axis=1)
    weight = np.where(m >= 2, 1.0 / np.maximum(m - 1, 1), 0.0)
    coincidences = group_coincidences(counts, weight, group, n_groups)  # groups, values, values
    n_v = coincidences.sum(axis=2)
    distance = squared_differences(values, n_v, level)  # groups (or 1), values, values
    observed = (coincidences * distance).sum(axis=(1, 2))
    expected = np.einsum("gc,gck,gk->g", n_v, np.broadcast_to(distance, coincidences.shape), n_v)
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1.0 - (n_v.sum(axis=1) - 1.0) * observed / expected


def group_coincidences(counts, weight, group, n_groups):
    """Each group's coincidence matrix: the sum over its items of w_u (N_u N_u^T - diag N_u)."""
    v = counts.shape[1]
    weighted = counts * weight[:, None]
    if n_groups == 1:  # one matrix product, whatever the number of values
        return (weighted.T @ counts - np.diag(weighted.sum(axis=0)))[None]
    result = np.zeros((n_groups, v, v))
    step = max(1, CHUNK // (v * v))
    for start in range(0, len(counts), step):
        rows = slice(start, start + step)
        outer = weighted[rows, :, None] * counts[rows, None, :]
        outer[:, np.arange(v), np.arange(v)] -= weighted[rows]
        np.add.at(result, group[rows], outer)
    return result


def squared_differences(values, n_v, level):
    """The difference function delta^2 of every pair of values: (1, v, v), or (groups, v, v) for ordinal data."""
    v = len(values)
    if level == "nominal":
        return (1.0 - np.eye(v))[None]
    if level == "interval":
        return ((values[:, None] - values[None, :]) ** 2)[None]
    if level == "ratio":
        total = values[:, None] + values[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(total != 0, ((values[:, None] - values[None, :]) / total) ** 2, 0.0)[None]
    low = np.minimum.outer(np.arange(v), np.arange(v))
    high = np.maximum.outer(np.arange(v), np.arange(v))
    running = np.concatenate([np.zeros((len(n_v), 1)), np.cumsum(n_v, axis=1)], axis=1)
    between = running[:, high + 1] - running[:, low]  # n_low + ... + n_high
    return (between - (n_v[:, :, None] + n_v[:, None, :]) / 2.0) ** 2


def warn_if_undefined(value, name, why):
    if np.isnan(value):
        warn(
            f"{name} is undefined (0/0) here, so it is nan: {why}, so agreement by chance is already perfect and "
            "there is no disagreement to measure against.",
            UserWarning,
        )
