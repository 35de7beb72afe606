"""Cumulative gain, discounted cumulative gain and its normalised form."""

import numpy as np

from .._core._array_api import array_api_support
from .._core._docs import fill_doc
from .._core._inputs import evaluate
from .._core._numpy_ops import NUMPY
from .._core._ranking import ratio
from .._core._validation import check_k, check_option

GAINS = ("linear", "exponential")
DISCOUNTS = ("log2", "jarvelin")
# 2.0 ** 1024 overflows float64.
MAX_EXPONENTIAL_LABEL = 1023


def gain_values(labels, gain, ops=None):
    """Gain of each label: the label itself, or 2**label - 1 (labels of ``ops``'s namespace, numpy's by default)."""
    if check_option("gain", gain, GAINS) == "linear":
        return labels
    ops = NUMPY if ops is None else ops
    top = ops.max_label(labels)
    if top > MAX_EXPONENTIAL_LABEL:
        raise ValueError(
            f"gain='exponential' computes 2**label - 1, which overflows float64 for labels above "
            f"{MAX_EXPONENTIAL_LABEL}; got a label of {top:g}. Use gain='linear' or rescale the labels."
        )
    return of_labels(lambda grade: ops.exp2(grade) - 1.0, labels, ops)


def of_labels(function, labels, ops=None):
    """``function(labels)``, through a table of its values at 0, 1, ..., top when the labels are whole numbers.

    Grades usually are, and a lookup costs a fraction of ``np.exp2`` per row;
    the table holds the very values ``function`` gives, so nothing changes.
    """
    ops = NUMPY if ops is None else ops
    table = None if 0 in labels.shape else ops.grade_table(labels, MAX_EXPONENTIAL_LABEL)
    if table is None:
        return function(labels)
    whole, top = table
    return ops.take(function(ops.arange(top + 1, dtype=ops.float64)), whole)


def rank_weights(discount, n_ranks, k=None):
    """Discount of ranks 1..n_ranks, zero past the cutoff ``k`` (numpy: the ranks of the longest query)."""
    ranks = np.arange(1, n_ranks + 1, dtype=np.float64)
    if callable(discount):
        weights = np.asarray(discount(ranks), dtype=np.float64)
        if weights.shape != ranks.shape or not np.isfinite(weights).all():
            raise ValueError(
                "A callable discount must map the 1-D array of 1-based ranks to an array of finite "
                f"weights of the same shape {ranks.shape}; got shape {weights.shape}."
            )
    elif check_option("discount", discount, DISCOUNTS) == "log2":
        weights = 1.0 / np.log2(ranks + 1.0)
    else:
        weights = 1.0 / np.log2(np.maximum(ranks, 2.0))
    if k is not None:
        weights[k:] = 0.0
    return weights


def discount_tables(weights, ops):
    """The rank ``weights`` and their running sums after a 0, in ``ops``'s namespace (copied once to a device).

    Summed on the host, so the same on every device.
    """
    tables = ops.table(np.concatenate((weights, [0.0], np.cumsum(weights))))
    return tables[: len(weights)], tables[len(weights) :]


def sum_safe_scale(top_gain, n_terms):
    """A power of two that keeps a sum of ``n_terms`` gains up to ``top_gain`` finite (1.0 when it is).

    Scaling by a power of two is exact, and NDCG, a ratio, does not change.
    """
    if top_gain < 2.0**1000 / n_terms:
        return 1.0
    return np.ldexp(1.0, -np.frexp(top_gain)[1])


def check_no_overflow(dcg, metric, ops):
    """Raise if a query's (unnormalised) gain overflowed float64: the true value is not representable.

    A namespace checks on its device and raises at its next read of results.
    """
    ops.check(
        ~ops.xp.all(ops.xp.isfinite(dcg)),
        lambda: ValueError(
            f"{metric} of these labels exceeds the largest float64 ({np.finfo(np.float64).max:.3g}) for some "
            "query, so it cannot be represented. Rescale the labels, or use ndcg_score, which is exact for them."
        ),
    )


def ideal_dcg(ranking, gain, tables, scale=1.0):
    """DCG of each query's own labels sorted in descending order, with every gain times ``scale``.

    ``tables`` are the discounts of the ranks and their running sums (:func:`discount_tables`).
    """
    ops, xp = ranking.ops, ranking.xp
    labels = ranking.judged_labels  # the ideal ranking retrieves every judged document
    top = ranking.top_label
    grades = ops.small_grades(labels) if top <= 64 else None
    weights, cumulative = tables
    if grades is not None and not ops.compacts:
        return ideal_dcg_of_grades(ranking, grades, int(top), gain, cumulative)
    if grades is not None:
        # Small integer grades: the ideal ranking puts the documents of grade >= g
        # first, so the count of each per query fixes the ranks each grade fills.
        # No second sort.
        ideal = ops.zeros(ranking.n_queries)
        above = ops.zeros(ranking.n_queries, dtype=xp.int64)
        for grade in range(int(top), 0, -1):
            at_least = ranking.query_count(grades >= grade)
            filled = ops.take(cumulative, at_least) - ops.take(cumulative, above)
            ideal += float(gain_values(np.float64(grade), gain)) * filled
            above = at_least
        return ideal
    descending = ops.take(labels, ops.rank_order(ranking.query_of_row, labels)[0])
    return ranking.query_sum(gain_values(descending, gain, ops) * scale * ops.take(weights, ranking.positions))


def ideal_dcg_of_grades(ranking, grades, top, gain, cumulative):
    """:func:`ideal_dcg` of small integer grades, all grades at once, for namespaces that keep subsets whole.

    One row per grade g (the top first) counts the documents of grade >= g in
    each query, a_g; those of grade g fill the ranks a_{g+1} + 1 .. a_g. With
    C the running sums of the weights, the ideal DCG is
    ``sum_g gain(g) (C[a_g] - C[a_{g+1}]) = sum_g (gain(g) - gain(g - 1)) C[a_g]``:
    every gain step is 1 for linear gains and 2**(g - 1) for exponential ones.
    """
    ops, xp = ranking.ops, ranking.xp
    levels = ops.arange(top, 0, -1, dtype=ops.float64)
    at_least = ops.segment_counts(grades[None, :] >= levels[:, None], ranking.query_starts)[0]
    filled = xp.reshape(xp.take(cumulative, xp.reshape(at_least, (-1,))), at_least.shape)
    if gain == "exponential":
        filled = ops.exp2(levels - 1.0)[:, None] * filled
    return xp.sum(filled, axis=0)


def _dcg(ranking, *, k=None, gain="linear", discount="log2", normalize=False, metric="DCG"):
    ideal_k, k = check_k(k), ranking.cutoff(k)  # the ideal ranking is cut at k, not at the ranking's depth
    weights = rank_weights(discount, ranking.longest, k)
    tables = discount_tables(weights, ranking.ops)
    gains = gain_values(ranking.labels, gain, ranking.ops)
    scale = sum_safe_scale(gain_values(ranking.top_label, gain), ranking.longest) if normalize else 1.0
    if scale != 1.0:
        gains = gains * scale
    # Whole gains sum exactly by running sums (where a namespace uses them: see ArrayApiOps.segment_sum).
    whole = bool(ranking.whole_labels) and scale == 1.0
    with np.errstate(over="ignore"):  # a top gain near float64's largest: not whole-number sums, rightly
        whole = whole and (gain == "linear" or gain_values(ranking.top_label, gain) * ranking.n_rows < 2**53)
    with np.errstate(over="ignore"):  # an overflow is raised as an error below
        if ranking.has_ties:
            dcg = tie_averaged_dcg(ranking, gains, tables[1], k, whole)
        else:
            dcg = plain_dcg(ranking, gains, tables[0], k)
    if not normalize:
        bound = ranking.label_bound  # where known, it shows when no sum can overflow
        if bound is None or gain_values(np.float64(bound), gain) * scale * np.sum(weights) > 2.0**1000:
            check_no_overflow(dcg, metric, ranking.ops)
        return dcg, ranking.has_relevant()
    if ranking.depth is not None:
        tables = discount_tables(rank_weights(discount, ranking.longest, ideal_k), ranking.ops)
    return ratio(dcg, ideal_dcg(ranking, gain, tables, scale), ranking.ops)


def plain_dcg(ranking, gains, weights, k):
    ops = ranking.ops
    rows, starts, positions = ranking.top(k)
    return ops.segment_sum(ops.take(gains, rows) * ops.take(weights, positions), starts)


def tie_averaged_dcg(ranking, gains, cumulative, k, whole=False):
    # Every row of a tie block gets the block's mean gain (McSherry & Najork 2008),
    # times the sum of the weights of the ranks it fills; blocks below k weigh 0.
    ops, xp = ranking.ops, ranking.xp
    n_ranks = cumulative.shape[0] - 1
    blocks, rows, offsets, _ = ranking.blocks_above(n_ranks if k is None else k)
    first, sizes = ops.take(ranking.block_first, blocks), ops.take(ranking.block_sizes, blocks)
    filled = ops.take(cumulative, xp.minimum(first + sizes, n_ranks)) - ops.take(cumulative, first)
    block_gains = ops.segment_sum(ops.take(gains, rows), offsets, whole) / ops.as_float(sizes) * filled
    # The blocks from the cutoff on weigh 0: at most the first K blocks of a query count.
    within = n_ranks if k is None else k
    return ops.group_sum(block_gains, ops.take(ranking.query_of_block, blocks), ranking.n_queries, within=within)


def _cumulative_gain(ranking, *, k=None, gain="linear"):
    return _dcg(ranking, k=k, gain=gain, discount=lambda ranks: np.ones_like(ranks), metric="CG")


def _ndcg(ranking, *, k=None, gain="linear", discount="log2"):
    return _dcg(ranking, k=k, gain=gain, discount=discount, normalize=True)


@array_api_support(in_namespace=True)
@fill_doc
def cumulative_gain_score(
    y_true,
    y_score,
    *,
    qid=None,
    k=None,
    gain="linear",
    ties="average",
    sample_weight=None,
    average=True,
    zero_division=0.0,
):
    r"""Cumulative gain at k (CG@k): the sum of the gains of the top k documents.

    Parameters
    ----------
    %(y_true_y_score)s
    %(qid)s
    %(k)s
    %(gain)s
    %(ties)s
    %(sample_weight)s
    %(average)s
    %(zero_division)s

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        CG@k, non-negative.

    See Also
    --------
    dcg_score : CG with the gain of each rank discounted.

    Notes
    -----
    .. math:: \mathrm{CG@k} = \sum_{i=1}^{\min(k, n)} g(\mathrm{rel}_i)

    With ties averaged, a block of tied documents that straddles rank k
    contributes its mean gain times the number of its ranks within k.

    Examples
    --------
    >>> from sklearn_rankmetrics import cumulative_gain_score
    >>> cumulative_gain_score([3, 2, 0, 1], [0.9, 0.3, 0.5, 0.1], k=2)
    3.0
    """
    return evaluate(
        _cumulative_gain,
        y_true,
        y_score,
        qid=qid,
        ties=ties,
        sample_weight=sample_weight,
        average=average,
        zero_division=zero_division,
        k=k,
        gain=gain,
    )


@array_api_support(in_namespace=True)
@fill_doc
def dcg_score(
    y_true,
    y_score,
    *,
    qid=None,
    k=None,
    gain="linear",
    discount="log2",
    ties="average",
    sample_weight=None,
    average=True,
    zero_division=0.0,
):
    r"""Discounted cumulative gain at k (DCG@k) of grouped rankings.

    Parameters
    ----------
    %(y_true_y_score)s
    %(qid)s
    %(k)s
    %(gain)s
    %(discount)s
    %(ties)s
    %(sample_weight)s
    %(average)s
    %(zero_division)s

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        DCG@k, non-negative.

    See Also
    --------
    ndcg_score : DCG divided by the DCG of the ideal ranking.
    sklearn.metrics.dcg_score : The same metric on padded 2-D arrays.

    Notes
    -----
    .. math:: \mathrm{DCG@k} = \sum_{i=1}^{\min(k, n)} g(\mathrm{rel}_i)\, d(i)

    with the gain :math:`g` and discount :math:`d` chosen above. The defaults
    reproduce :func:`sklearn.metrics.dcg_score`. With ties averaged, each
    document of a tie block gets the block's mean gain.

    Examples
    --------
    >>> from sklearn_rankmetrics import dcg_score
    >>> round(dcg_score([3, 1, 2, 3, 2, 0], [6, 5, 4, 3, 2, 1], gain="exponential"), 6)
    13.306224
    """
    return evaluate(
        _dcg,
        y_true,
        y_score,
        qid=qid,
        ties=ties,
        sample_weight=sample_weight,
        average=average,
        zero_division=zero_division,
        k=k,
        gain=gain,
        discount=discount,
    )


@array_api_support(in_namespace=True)
@fill_doc
def ndcg_score(
    y_true,
    y_score,
    *,
    qid=None,
    k=None,
    gain="linear",
    discount="log2",
    ties="average",
    sample_weight=None,
    average=True,
    zero_division=0.0,
):
    r"""Normalised discounted cumulative gain at k (NDCG@k) of grouped rankings.

    Parameters
    ----------
    %(y_true_y_score)s
    %(qid)s
    %(k)s
    %(gain)s
    %(discount)s
    %(ties)s
    %(sample_weight)s
    %(average)s
    %(zero_division)s

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        NDCG@k, in [0, 1].

    See Also
    --------
    dcg_score : The unnormalised metric.
    sklearn.metrics.ndcg_score : The same metric on padded 2-D arrays.

    Notes
    -----
    .. math:: \mathrm{NDCG@k} = \mathrm{DCG@k} / \mathrm{IDCG@k}

    where IDCG@k is the DCG@k of the query's own labels in descending order
    (the ideal ranking of the documents given). A query with IDCG of 0 (every
    label 0) scores ``zero_division``. The defaults reproduce
    :func:`sklearn.metrics.ndcg_score` and trec_eval's ``ndcg_cut_k``;
    ``gain="exponential", ties="stable", zero_division=1.0`` reproduces
    LightGBM's ``ndcg@k``.

    References
    ----------
    .. [1] K. Järvelin and J. Kekäläinen, "Cumulated gain-based evaluation of
       IR techniques", ACM TOIS 20(4), 2002.
    .. [2] F. McSherry and M. Najork, "Computing information retrieval
       performance measures efficiently in the presence of tied scores",
       ECIR 2008.

    Examples
    --------
    >>> from sklearn_rankmetrics import ndcg_score
    >>> y_true = [3, 2, 0, 1, 0, 2]
    >>> y_score = [0.9, 0.3, 0.5, 0.1, 0.8, 0.4]
    >>> qid = [1, 1, 1, 2, 2, 2]
    >>> round(ndcg_score(y_true, y_score, qid=qid), 4)
    0.8041
    >>> ndcg_score(y_true, y_score, qid=qid, k=1, average=False)
    array([1., 0.])
    """
    return evaluate(
        _ndcg,
        y_true,
        y_score,
        qid=qid,
        ties=ties,
        sample_weight=sample_weight,
        average=average,
        zero_division=zero_division,
        k=k,
        gain=gain,
        discount=discount,
    )
