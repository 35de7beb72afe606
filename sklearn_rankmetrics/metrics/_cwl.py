"""C/W/L measures (Moffat et al.): the expected gain per document of a user whose chance to go on adapts.

In the C/W/L framework a user at rank i goes on to rank i + 1 with chance
C(i). The weight of rank i, W(i), is the chance of reaching it over the
expected number of documents read, and a measure is the expected rate of
gain, sum_i W(i) g(i), with gains in [0, 1]. INSQ and INST take
C(i) = ((i + m - 1) / (i + m))**2 for an m that INSQ keeps at 2T and INST
lowers as the gain found so far nears the target T.
"""

import numpy as np

from .._core._array_api import array_api_support
from .._core._docs import fill_doc
from .._core._inputs import evaluate
from .._core._numpy_ops import segment_accumulate
from .._core._validation import check_k, check_real
from ._dcg import _dcg


def scaled_gains(ranking, max_grade):
    """Each row's judged label over the top grade (the largest label, or ``max_grade``): gains in [0, 1]."""
    top = ranking.top_label
    if max_grade is None:
        max_grade = top
    else:
        max_grade = check_real("max_grade", max_grade, low=0)
        if top > max_grade:
            raise ValueError(
                f"y_true has a label of {top:g}, above max_grade={max_grade:g}; pass the largest possible grade "
                "of the labelling scale (or None to use the largest label given)."
            )
    return ranking.judged_labels / max_grade if max_grade > 0 else ranking.judged_labels * 0.0


# The first terms of a tail sum are added one by one; from this shift on, the asymptotic expansion of the
# trigamma function is exact to float64 (its first term left out is below 1e-17 of the sum).
SHIFT = 32
# psi_1(x) ~ sum_m c_m x**-m: the powers m and coefficients c_m (1, 1/2, then the Bernoulli numbers B_2j at 2j + 1).
TRIGAMMA_SERIES = ((1, 1.0), (2, 0.5), (3, 1 / 6), (5, -1 / 30), (7, 1 / 42), (9, -1 / 30), (11, 5 / 66))


def scaled_square_tail(start, terms=None):
    """``start**2 * sum_{j=0}^{terms-1} 1 / (start + j)**2`` for ``start > 0`` and ``terms >= 1`` (None: inf).

    At least 1 (the first term is exactly 1), for any ``start``. A difference
    of trigamma functions ``psi_1(start) - psi_1(start + terms)`` would cancel
    where ``start`` is large next to ``terms`` (a large target, a finite k).
    Instead the first SHIFT terms are summed directly, all positive, and the
    rest from ``x = start + SHIFT`` on is the difference of the asymptotic
    series of psi_1 term by term, each ``x**-m - (x + n)**-m`` computed as
    ``x**-m (1 - (1 + n/x)**-m)`` with ``expm1`` and ``log1p``: no
    subtraction of close numbers anywhere, at any scale.
    """
    start = np.asarray(start, dtype=np.float64)
    terms = np.asarray(np.inf if terms is None else terms, dtype=np.float64)
    j = np.arange(SHIFT, dtype=np.float64)
    first = np.where(j < terms[..., None], (start[..., None] / (start[..., None] + j)) ** 2, 0.0).sum(axis=-1)
    x = start + SHIFT
    ratio = np.log1p(np.maximum(terms - SHIFT, 0.0) / x)  # log((x + n) / x); inf for n = inf
    rest = sum(c * x ** (2.0 - m) * -np.expm1(-m * ratio) for m, c in TRIGAMMA_SERIES)
    return first + (start / x) ** 2 * rest


def insq_weights(target, n_ranks, k=None):
    """INSQ's W(i) for i = 1 .. n_ranks (0 past ``k``): (2T / (i + 2T - 1))**2 over their sum to ``k`` (or inf).

    C(i) does not depend on the gains, and the product of C over the ranks
    above i telescopes to (2T / (i + 2T - 1))**2, summed by
    :func:`scaled_square_tail`.
    """
    m = 2.0 * target
    ranks = np.arange(1, n_ranks + 1, dtype=np.float64)
    reach = (m / ((ranks - 1.0) + m)) ** 2  # (rank - 1) first: exact, so that a tiny m keeps rank 1's reach 1
    total = scaled_square_tail(m, k)
    if k is not None:
        reach[k:] = 0.0
    return reach / total


def _insq(ranking, *, target=1.0, max_grade=None, k=None):
    target = check_real("target", target, low=0, low_open=True)
    k = check_k(k)
    gains = scaled_gains(ranking, max_grade)
    weights = insq_weights(target, ranking.longest, k)
    # A sum of gains times weights of the ranks: DCG's machinery, ties averaged exactly.
    return _dcg(ranking.with_labels(gains, whole=False), k=k, discount=lambda ranks: weights[: len(ranks)])


def _inst(ranking, *, target=1.0, max_grade=None, k=None):
    target = check_real("target", target, low=0, low_open=True)
    if target < 0.5:
        raise ValueError(
            f"INST needs target >= 0.5; got {target!r}. Its chance to go on, ((i + T + T_i - 1) / (i + T + T_i))**2, "
            "is a probability for every ranking only when T >= 1/2 (T is the gain wanted, 1 or more in practice)."
        )
    k = check_k(k)
    gains = ranking.shown(scaled_gains(ranking, max_grade))  # 0 on the rows not retrieved
    check_order_free(ranking, gains, k)
    if ranking.depth is not None:  # trec_eval's depth cuts a tie block of equal gains: its rows below gain nothing
        gains = np.where(ranking.positions < ranking.depth, gains, 0.0)
    starts, sizes = ranking.query_starts, ranking.query_sizes
    ranks = ranking.positions + 1.0
    found = segment_accumulate(np.add, gains, starts, sizes)  # gain up to and including each rank
    # C(i) = ((i + 2T - found - 1) / (i + 2T - found))**2, with i - found >= 0 (gains are at most 1) and
    # 2T - 1 >= 0: both sums of non-negative terms.
    unfound = ranks - found
    go_on = ((unfound + (2.0 * target - 1.0)) / (unfound + 2.0 * target)) ** 2
    reach = np.ones(ranking.n_rows)  # the product of C above each rank
    reach[1:] = segment_accumulate(np.multiply, go_on, starts, sizes)[:-1]
    reach[starts] = 1.0
    if k is not None:
        reach[ranking.positions >= k] = 0.0
    # Past a query's last document the gain stays at its total G, and the product telescopes:
    # C(j) for j > n is ((j + a - 1) / (j + a))**2 with a = 2T - G, so the ranks n + 1 .. k are reached with
    # reach(n + 1) ((n + a) / (i - 1 + a))**2, summed by scaled_square_tail from n + a over k - n ranks.
    last = starts + sizes - 1
    n, total = sizes.astype(np.float64), found[last]
    after_last = reach[last] * go_on[last]
    start = n + 2.0 * target - total  # >= 2T: the gains are at most 1
    if k is None:
        beyond = after_last * scaled_square_tail(start)
    else:
        beyond = np.where(n < k, after_last * scaled_square_tail(start, np.maximum(k - n, 1.0)), 0.0)
    expected = ranking.query_sum(reach) + beyond
    rate = ranking.query_sum(reach * gains) / expected
    return rate, ranking.has_relevant()


def check_order_free(ranking, gains, k):
    """Refuse tied scores whose order changes INST: a tie block above ``k`` whose documents differ in gain.

    Such a block is read in each of its orders with equal chance, and INST's
    chance to go on depends on the gain found so far, in a ratio of two sums
    over the ranks: its mean over the orders has no closed form. Blocks of
    equal gains (the rows not retrieved among them, which gain nothing) and
    blocks wholly below ``k`` give one value whatever their order.
    """
    if not ranking.has_ties:
        return
    starts = ranking.block_starts
    differs = np.maximum.reduceat(gains, starts) != np.minimum.reduceat(gains, starts)
    if k is not None:
        differs &= ranking.block_first < k
    if differs.any():
        block = int(np.flatnonzero(differs)[0])
        rows = slice(int(starts[block]), int(starts[block]) + int(ranking.block_sizes[block]))
        labels = ", ".join(f"{label:g}" for label in np.unique(ranking.labels[rows]))
        raise ValueError(
            f"INST cannot average over the orders of tied scores that change its value: query "
            f"{int(ranking.query_of_block[block]) + 1} of {ranking.n_queries} (in the order of the per-query values) "
            f"has {rows.stop - rows.start} documents tied from rank {int(ranking.block_first[block]) + 1}, with labels "
            f"{labels}. INST's chance to "
            "go on depends on the gain found so far, so its mean over the orders has no closed form; ties='average' "
            "works where every tie block above k holds equal labels (or documents not retrieved). Break the ties "
            "with ties='stable', 'pessimistic' or 'optimistic'."
        )


CWL_PARAMETERS = """target : float, default=1.0
        T, the gain the user wants, > 0: the sum of gains (each label over
        the top grade, in [0, 1]) at which a user is satisfied.
    max_grade : float, default=None
        The top grade of the labelling scale: a document's gain is its label
        over it. None uses the largest label in ``y_true`` of this call; pass
        it to compare scores across calls.
    k : int, default=None
        The deepest rank the user may reach: the weights are normalised over
        ranks 1 .. k, and documents below k gain nothing (cwl_eval's depth,
        1000 there). None: every rank, the ranks past a query's documents
        gaining nothing (the measure's own definition). Any integer >= 1."""


@array_api_support
@fill_doc
def insq_score(
    y_true,
    y_score,
    *,
    qid=None,
    target=1.0,
    max_grade=None,
    k=None,
    ties="average",
    sample_weight=None,
    average=True,
    zero_division=0.0,
):
    r"""INSQ (Moffat et al. 2012): the expected rate of gain of a user who wants a gain of T.

    Parameters
    ----------
    %(y_true_y_score)s
    %(qid)s
    TARGET_MAX_GRADE_K
    %(ties)s
    %(sample_weight)s
    %(average)s
    %(zero_division)s

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        INSQ, the expected gain per document read, in [0, 1].

    See Also
    --------
    inst_score : The variant whose user adapts to the gain found.
    rank_biased_precision_score : The C/W/L measure of a constant C.

    Notes
    -----
    .. math:: \mathrm{INSQ} = \sum_{i \geq 1} W(i)\, g_i, \qquad
              W(i) = \frac{\prod_{j<i} C(j)}{\sum_{n \geq 1} \prod_{j<n} C(j)}, \qquad
              C(i) = \left(\frac{i + 2T - 1}{i + 2T}\right)^2

    with :math:`g_i` the label at rank i over the top grade, 0 past the
    query's documents. The products telescope, so the normaliser over every
    rank is :math:`(2T)^2 \psi_1(2T)` (the trigamma function), and over
    ranks 1 .. k :math:`(2T)^2 (\psi_1(2T) - \psi_1(2T + k))`. cwl_eval (and
    ir_measures' ``INSQ``) sums its ranks to 1000: ``k=1000`` reproduces it,
    with ``max_grade`` its ``max_rel``. A query without any gain scores
    ``zero_division``. The weights do not depend on the gains, so with ties
    averaged each document of a tie block gets the block's mean gain, as for
    DCG: exact.

    References
    ----------
    .. [1] A. Moffat, F. Scholer and P. Thomas, "Models and metrics: IR
       evaluation as a user process", ADCS 2012.
    .. [2] L. Azzopardi, P. Thomas and A. Moffat, "cwl_eval: an evaluation
       tool for information retrieval", SIGIR 2019.

    Examples
    --------
    >>> from sklearn_rankmetrics import insq_score
    >>> # W(i) = 1 / ((i + 1)**2 psi_1(2)) for T = 1: (1 + 1/4) / (pi**2 / 6 - 1) / 4
    >>> round(insq_score([1, 0, 1], [3, 2, 1]), 4)
    0.4845
    """
    return evaluate(
        _insq,
        y_true,
        y_score,
        qid=qid,
        ties=ties,
        sample_weight=sample_weight,
        average=average,
        zero_division=zero_division,
        target=target,
        max_grade=max_grade,
        k=k,
    )


@array_api_support
@fill_doc
def inst_score(
    y_true,
    y_score,
    *,
    qid=None,
    target=1.0,
    max_grade=None,
    k=None,
    ties="stable",
    sample_weight=None,
    average=True,
    zero_division=0.0,
):
    r"""INST (Moffat et al. 2015): the expected rate of gain of a user who stops sooner as the target T nears.

    Parameters
    ----------
    %(y_true_y_score)s
    %(qid)s
    TARGET_MAX_GRADE_K
    ties : {"stable", "average", "pessimistic", "optimistic"}, default="stable"
        Order of documents with equal scores: input order, the mean over
        the orders of the ties, worst label first or best label first. INST's
        chance to go on depends on the gain found so far, so the mean over
        the orders of tied documents of different labels has no closed form:
        ``"average"`` takes ties whose order cannot change the value (tied
        documents of one label, documents not retrieved, ties below ``k``)
        and refuses the others with a ValueError naming the query.
    %(sample_weight)s
    %(average)s
    %(zero_division)s

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        INST, the expected gain per document read, in [0, 1].

    See Also
    --------
    insq_score : The variant whose chance to go on does not adapt.

    Notes
    -----
    .. math:: \mathrm{INST} = \sum_{i \geq 1} W(i)\, g_i, \qquad
              W(i) = \frac{\prod_{j<i} C(j)}{\sum_{n \geq 1} \prod_{j<n} C(j)}, \qquad
              C(i) = \left(\frac{i + T + T_i - 1}{i + T + T_i}\right)^2

    with :math:`g_i` the label at rank i over the top grade (0 past the
    query's documents) and :math:`T_i = T - \sum_{j \leq i} g_j` the gain
    still wanted after rank i. Past the documents :math:`T_i` stays put, the
    products telescope, and the sum over the remaining ranks is a trigamma
    difference: exact, with no truncation. cwl_eval (and ir_measures'
    ``INST``) sums its ranks to 1000: ``k=1000`` reproduces it, with
    ``max_grade`` its ``max_rel``. A query without any gain scores
    ``zero_division``.

    INST is a ratio of two sums over the ranks that both depend on the
    order of the gains, through :math:`T_i`: over the orderings of tied
    documents of different labels its mean is the mean of a ratio, with no
    closed form (an exact mean would enumerate the orderings of every tie
    block together). So ``ties="average"`` computes INST where the order
    of the ties cannot change it, and refuses the other ties rather than
    return a value that is no mean over the orderings.

    References
    ----------
    .. [1] A. Moffat, P. Bailey, F. Scholer and P. Thomas, "INST: an adaptive
       metric for information retrieval evaluation", ADCS 2015.
    .. [2] L. Azzopardi, P. Thomas and A. Moffat, "cwl_eval: an evaluation
       tool for information retrieval", SIGIR 2019.

    Examples
    --------
    >>> from sklearn_rankmetrics import inst_score
    >>> round(inst_score([1, 0, 1], [3, 2, 1]), 4)
    0.7231
    >>> round(inst_score([1, 0, 1], [3, 2, 1], k=1000), 4)  # cwl_eval's depth: the ranks past 1000 weigh 0
    0.7233
    """
    return evaluate(
        _inst,
        y_true,
        y_score,
        qid=qid,
        ties=ties,
        sample_weight=sample_weight,
        average=average,
        zero_division=zero_division,
        target=target,
        max_grade=max_grade,
        k=k,
    )


for _function in (insq_score, inst_score):
    _function.__doc__ = _function.__doc__.replace("TARGET_MAX_GRADE_K", CWL_PARAMETERS)
