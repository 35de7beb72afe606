"""Graded measures normalised by the ideal ranking of each query's own labels: nERR, NCG and Q-measure.

The ideal ranking puts a query's judged documents in descending order of
their labels (the rows not retrieved included), as for nDCG.
"""

import copy

import numpy as np

from .._core._array_api import array_api_support
from .._core._docs import fill_doc
from .._core._inputs import evaluate
from .._core._numpy_ops import segment_accumulate
from .._core._ranking import ratio
from .._core._validation import check_k, check_real
from ._cascade import _expected_reciprocal_rank
from ._dcg import _dcg, gain_values

# The cached facts of a ranking that its blocks of ties, its rows not retrieved or its depth make. (Its top
# label is the ideal's too: the same judged labels, so a device need not read it back again.)
RANKING_FACTS = ("block_sizes", "block_first", "query_block_starts", "query_of_block", "n_retrieved")


def ideal_ranking(ranking):
    """The ranking of each query's judged labels in descending order: every row retrieved, no ties, no depth.

    It shares the query segments (and their layout on a device) with ``ranking``.
    """
    ops = ranking.ops
    labels = ops.take(ranking.judged_labels, ops.rank_order(ranking.query_of_row, ranking.judged_labels)[0])
    ideal = copy.copy(ranking)
    ideal.judged_labels = ideal.labels = labels
    ideal.block_starts, ideal.retrieved, ideal.depth, ideal._relevance = None, None, None, {}
    for name in RANKING_FACTS:
        ideal.__dict__.pop(name, None)
    return ideal


def _normalized_err(ranking, *, k=None, max_grade=None):
    err, _ = _expected_reciprocal_rank(ranking, k=k, max_grade=max_grade)
    ideal, _ = _expected_reciprocal_rank(ideal_ranking(ranking), k=k, max_grade=max_grade)
    return ratio(err, ideal, ranking.ops)


def _ncg(ranking, *, k=None, gain="linear"):
    return _dcg(ranking, k=k, gain=gain, discount=lambda ranks: np.ones_like(ranks), normalize=True, metric="CG")


def _q_measure(ranking, *, k=None, beta=1.0, gain="linear"):
    beta = check_real("beta", beta, low=0)
    normalizer_k, k = check_k(k), ranking.cutoff(k)
    gains = gain_values(ranking.labels, gain)  # 0 on the rows not retrieved
    relevant = (ranking.labels > 0).astype(np.float64)
    n_relevant = ranking.query_count(ranking.judged_labels > 0)
    ideal = ideal_ranking(ranking).labels
    ideal_gain = running_sums(ranking.query_starts, ranking.query_sizes, gain_values(ideal, gain))
    rank = ranking.positions + 1.0
    if ranking.has_ties:
        found, gained = tie_averaged_blended_terms(ranking, relevant, gains)
    else:
        found = relevant * running_sums(ranking.query_starts, ranking.query_sizes, relevant)
        gained = relevant * running_sums(ranking.query_starts, ranking.query_sizes, gains)
    if beta > 1.0:  # divided through by beta: beta * gain overflows for a large finite beta (1e308)
        terms = (found / beta + gained) / (rank / beta + ideal_gain)
    else:
        terms = (found + beta * gained) / (rank + beta * ideal_gain)
    if k is not None:
        terms[ranking.positions >= k] = 0.0
    # min(R, k): R is at most the longest query, so any k beyond it (2**62, say) divides by R.
    denominator = n_relevant if normalizer_k is None else np.minimum(n_relevant, min(normalizer_k, ranking.longest))
    return ratio(ranking.query_sum(terms), denominator)


def running_sums(starts, sizes, values):
    """Inclusive running sums of ``values`` that restart at each segment, each segment summed on its own."""
    return segment_accumulate(np.add, np.asarray(values, dtype=np.float64), starts, sizes)


def tie_averaged_blended_terms(ranking, relevant, gains):
    """Per row, the means over the orderings of the ties of I(r) C(r) and I(r) cg(r) at its rank r.

    In a block of m rows holding R relevant ones of total gain G, with C0
    relevant documents and a gain G0 in the blocks above, the rank at the
    block's j-th place (from 0) holds a relevant document with chance R / m;
    given that, the j places above it hold a uniform j-subset of the other
    m - 1 rows. So ``E[I C] = (R / m) (C0 + 1 + j (R - 1) / (m - 1))`` and,
    as only relevant rows have a gain, ``E[I cg] = (R / m) G0 + (G / m) (1 + j (R - 1) / (m - 1))``.
    """
    sizes = ranking.block_sizes.astype(np.float64)
    block = np.repeat(np.arange(len(sizes)), ranking.block_sizes)
    in_block, gain_in_block = ranking.per_block(relevant), ranking.per_block(gains)
    blocks_per_query = np.diff(ranking.query_block_starts, append=len(sizes))
    relevant_above = ranking.before_in_query(in_block)  # whole numbers: exact
    gain_above = running_sums(ranking.query_block_starts, blocks_per_query, gain_in_block) - gain_in_block
    share = in_block / sizes
    spread = np.maximum(in_block - 1.0, 0.0) / np.maximum(sizes - 1.0, 1.0)
    place = (ranking.positions - ranking.block_first[block]).astype(np.float64)
    found = share[block] * (relevant_above[block] + 1.0 + place * spread[block])
    gained = share[block] * gain_above[block] + (gain_in_block / sizes)[block] * (1.0 + place * spread[block])
    return found, gained


@array_api_support(in_namespace=True)
@fill_doc
def normalized_err_score(
    y_true,
    y_score,
    *,
    qid=None,
    k=None,
    max_grade=None,
    ties="average",
    sample_weight=None,
    average=True,
    zero_division=0.0,
):
    r"""Normalised expected reciprocal rank (nERR@k): ERR@k over the ERR@k of the ideal ranking.

    Parameters
    ----------
    %(y_true_y_score)s
    %(qid)s
    %(k)s
    max_grade : float, default=None
        The top grade of the labelling scale, :math:`g_{\max}` below; None
        uses the largest label in ``y_true`` of this call. It sets the stop
        probabilities, which do not cancel in the ratio: pass it when
        comparing scores across calls (see
        :func:`expected_reciprocal_rank_score`).
    %(ties)s
    %(sample_weight)s
    %(average)s
    %(zero_division)s

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        The nERR@k, in [0, 1].

    See Also
    --------
    expected_reciprocal_rank_score : The unnormalised metric.
    ndcg_score : The same normalisation of DCG.

    Notes
    -----
    .. math:: \mathrm{nERR@k} = \frac{\mathrm{ERR@k}}{\mathrm{ERR@k}(\text{ideal})},
              \qquad \mathrm{ERR@k} = \sum_{i=1}^{\min(k, n)} \frac{R_i}{i} \prod_{j<i} (1 - R_j),
              \qquad R = \frac{2^{\mathrm{rel}} - 1}{2^{g_{\max}}}

    The ideal ranking sorts the query's own labels in descending order (the
    documents scored ``-inf`` included) and is cut at ``k``, as for nDCG. A
    query whose labels are all 0 scores ``zero_division``. With ties
    averaged, the numerator is the exact mean of ERR@k over the orderings of
    the ties (:func:`expected_reciprocal_rank_score`); the ideal has no ties
    that matter (equal labels are interchangeable). This is PT-Ranking's
    nERR@k; NTCIREVAL's nERR@l takes the stop probability
    :math:`g / (g_{\max} + 1)` of a gain value :math:`g`, so giving it the
    gain values :math:`2^{l} - 1` of the levels :math:`l` reproduces this one.

    References
    ----------
    .. [1] O. Chapelle, D. Metzler, Y. Zhang and P. Grinspan, "Expected
       reciprocal rank for graded relevance", CIKM 2009.
    .. [2] T. Sakai and R. Song, "Evaluating diversified search results using
       per-intent graded relevance", SIGIR 2011 (nERR).

    Examples
    --------
    >>> from sklearn_rankmetrics import normalized_err_score
    >>> # ERR of grades 1, 2 (R = 1/4, 3/4): 1/4 + (3/4)(3/4)/2; the ideal 2, 1: 3/4 + (1/4)(1/4)/2
    >>> round(normalized_err_score([1, 2], [0.9, 0.1]), 4)
    0.68
    >>> normalized_err_score([1, 2], [0.1, 0.9])
    1.0
    """
    return evaluate(
        _normalized_err,
        y_true,
        y_score,
        qid=qid,
        ties=ties,
        sample_weight=sample_weight,
        average=average,
        zero_division=zero_division,
        k=k,
        max_grade=max_grade,
    )


@array_api_support(in_namespace=True)
@fill_doc
def ncg_score(
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
    r"""Normalised cumulative gain (NCG@k): CG@k over the CG@k of the ideal ranking.

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
        NCG@k, in [0, 1].

    See Also
    --------
    cumulative_gain_score : The unnormalised metric.
    ndcg_score : NCG with the gain of each rank discounted.

    Notes
    -----
    .. math:: \mathrm{NCG@k} = \frac{\sum_{i=1}^{\min(k, n)} g(\mathrm{rel}_i)}
              {\sum_{i=1}^{\min(k, n^*)} g(\mathrm{rel}^*_i)}

    where :math:`\mathrm{rel}^*` are the query's labels in descending order
    (the documents scored ``-inf`` included, :math:`n^*` of them). It is the
    share of the best attainable gain that the top k holds: a recall@k for
    graded labels, used for the candidate sets of the TREC Deep Learning
    track. Without a cutoff every ranking of all the documents scores 1. A
    query whose labels are all 0 scores ``zero_division``. With ties
    averaged, a tie block that straddles rank k contributes its mean gain
    times its ranks within k, which is exact.

    Examples
    --------
    >>> from sklearn_rankmetrics import ncg_score
    >>> ncg_score([0, 3, 1, 2], [0.9, 0.8, 0.7, 0.6], k=2)  # (0 + 3) / (3 + 2)
    0.6
    """
    return evaluate(
        _ncg,
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


@array_api_support
@fill_doc
def q_measure_score(
    y_true,
    y_score,
    *,
    qid=None,
    k=None,
    beta=1.0,
    gain="linear",
    ties="average",
    sample_weight=None,
    average=True,
    zero_division=0.0,
):
    r"""Q-measure (Sakai): average precision blended with the cumulative gain of graded labels.

    Parameters
    ----------
    %(y_true_y_score)s
    %(qid)s
    k : int, default=None
        Only the top ``k`` documents of each query are examined, and the sum
        is divided by min(k, R) (NTCIREVAL's Q@l); None: all, divided by R.
        Any integer >= 1 is accepted.
    beta : float, default=1.0
        The weight of the cumulative gain in the blended ratio, any finite
        number >= 0: 0 gives average precision, and a large beta nears the
        ratio of cumulative gains (above 1 the ratio is computed divided
        through by beta, so that no product overflows, even at 1e308).
    %(gain)s
    %(ties)s
    %(sample_weight)s
    %(average)s
    %(zero_division)s

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        Q-measure (Q@k), in [0, 1].

    See Also
    --------
    mean_average_precision_score : The binary special case (``beta=0``).
    ncg_score : The ratio of cumulative gains alone.

    Notes
    -----
    .. math:: Q = \frac{1}{R} \sum_{r} I(r)\,
              \frac{C(r) + \beta\, cg(r)}{r + \beta\, cg^*(r)}

    over the ranks :math:`r` (up to k), where :math:`I(r)` is 1 when the
    document at rank r is relevant (a label above 0), :math:`C(r)` counts the
    relevant documents in the top r, :math:`cg(r)` is the cumulative gain of
    the top r and :math:`cg^*(r)` that of the ideal ranking (the query's
    labels in descending order, the documents scored ``-inf`` included; past
    its last relevant document it stays at their total). R is the number of
    relevant documents, min(k, R) with a cutoff. The gain is the label
    (``gain="linear"``) as in NTCIREVAL, whose gain values per relevance
    level this takes as labels. A query without a relevant document scores
    ``zero_division``. With ties averaged, each rank's term is exact: in a
    tie block, the chance that a rank holds a relevant document and the
    mean of :math:`C(r)` and :math:`cg(r)` given that are linear in the
    rank's place in the block, and the denominator does not depend on the
    order.

    References
    ----------
    .. [1] T. Sakai, "New performance metrics based on multigrade relevance:
       their application to question answering", NTCIR-4, 2004.
    .. [2] T. Sakai and S. Robertson, "Modelling a user population for
       designing information retrieval metrics", EVIA 2008.

    Examples
    --------
    >>> from sklearn_rankmetrics import q_measure_score
    >>> # Rank 1 (label 1): (1 + 1) / (1 + 2); rank 2 (label 2): (2 + 3) / (2 + 3); R = 2
    >>> round(q_measure_score([1, 2], [0.9, 0.1]), 4)
    0.8333
    >>> q_measure_score([1, 2], [0.1, 0.9])
    1.0
    """
    return evaluate(
        _q_measure,
        y_true,
        y_score,
        qid=qid,
        ties=ties,
        sample_weight=sample_weight,
        average=average,
        zero_division=zero_division,
        k=k,
        beta=beta,
        gain=gain,
    )
