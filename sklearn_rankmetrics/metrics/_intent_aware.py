"""The intent-aware measures of NIST's ndeval, beside alpha-nDCG: P-IA, AP-IA, nERR-IA and NRBP.

``y_true`` has one row per document and one column per intent (subtopic),
as for :func:`~sklearn_rankmetrics.alpha_ndcg_score`. A query's intents are
those some document of it is relevant to; each measure averages over them
(P-IA, AP-IA) or sums their novelty-discounted gains (nERR-IA, NRBP).
"""

import numpy as np

from .._core._array_api import array_api_support
from .._core._docs import fill_doc
from .._core._ranking import ratio
from .._core._validation import (
    as_float_array,
    check_flag,
    check_k,
    check_option,
    check_real,
    check_zero_division,
    plain,
)
from ._dcg import _dcg
from ._diversity import IDEALS, TIES_ALL, discounted_alpha_gains, ideal_alpha_dcg, rank_subtopics
from ._precision import _average_precision

STABLE_OR_AVERAGE = ("stable", "average")


def intent_weights_of(intent_weights, n_intents):
    """The weight of each intent (uniform for None), checked."""
    if intent_weights is None:
        return np.ones(n_intents)
    weights = as_float_array(intent_weights, "intent_weights")
    if weights.shape != (n_intents,) or not np.isfinite(weights).all() or (weights < 0).any():
        raise ValueError(
            f"intent_weights must hold {n_intents} finite non-negative weights, one per subtopic column of y_true; "
            f"got {plain(intent_weights)!r}."
        )
    return weights


def present_intents(by_query, ranking):
    """Per query and intent, whether some document of the query (retrieved or not) is relevant to it."""
    return np.maximum.reduceat(by_query, ranking.query_starts, axis=0) > 0


INTENT_WEIGHTS = """intent_weights : array-like of shape (n_subtopics,), default=None
        Non-negative weight P(i | q) of each intent; None: uniform (ndeval).
        In each query only the intents with a relevant document count, and
        their weights are renormalised to sum to 1."""


@array_api_support
@fill_doc
def intent_aware_precision_score(
    y_true,
    y_score,
    *,
    qid=None,
    k=None,
    intent_weights=None,
    ties="stable",
    sample_weight=None,
    average=True,
    zero_division=0.0,
):
    r"""Intent-aware precision at k (P-IA@k, Agrawal et al. 2009; NIST ndeval).

    Parameters
    ----------
    %(judgements_score)s
    %(k)s
    INTENT_WEIGHTS
    ties : {"stable", "average"}, default="stable"
        Order of documents with equal scores: input order (as ndeval takes
        the run's order), or the exact mean over all orderings of the ties.
    %(sample_weight)s
    %(average)s
    zero_division : {0.0, 1.0, np.nan}, default=0.0
        Value of a query without any relevant intent.

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        P-IA@k, in [0, 1].

    See Also
    --------
    precision_at_k_score : Precision of one intent.
    intent_aware_average_precision_score : The intent-aware AP.

    Notes
    -----
    .. math:: \mathrm{P\text{-}IA@k} = \sum_i P(i \mid q)\, \frac{|\{r \leq k : J(d_r, i) > 0\}|}{k}

    over the query's intents: a document is relevant to intent i when
    :math:`J(d, i) > 0`. As for :func:`precision_at_k_score`, the
    denominator is k even past the last document (the query's number of
    documents retrieved for ``k=None``: a query that retrieved nothing
    scores 0). With uniform weights this is ndeval's
    ``P-IA@k``. The mean over tie orderings is exact: precision is linear in
    the documents' places.

    References
    ----------
    .. [1] R. Agrawal, S. Gollapudi, A. Halverson and S. Ieong,
       "Diversifying search results", WSDM 2009.

    Examples
    --------
    >>> from sklearn_rankmetrics import intent_aware_precision_score
    >>> y_true = [[1, 1], [0, 0], [0, 1]]
    >>> intent_aware_precision_score(y_true, [3, 2, 1], k=2)  # intent 0: 1/2, intent 1: 1/2
    0.5
    """
    k = check_k(k)
    check_zero_division(zero_division)
    ranking, judgements, by_query, _ = rank_subtopics(
        y_true, y_score, qid=qid, ties=ties, sample_weight=sample_weight, allowed_ties=STABLE_OR_AVERAGE
    )
    weights = intent_weights_of(intent_weights, judgements.shape[1])
    present = present_intents(by_query, ranking)
    # Each row's weighted count of intents it is relevant to: P-IA is their (tie-averaged) sum over the top k.
    values = (judgements > 0).astype(np.float64) @ weights
    found, _ = _dcg(ranking.with_labels(values), k=k, discount=lambda ranks: np.ones_like(ranks))
    examined = ranking.n_retrieved if k is None else k
    # A query that retrieved nothing (k=None: nothing examined) scores 0; one without a relevant intent is undefined.
    relevant = present @ weights
    values, _ = ratio(found, relevant * examined)
    return ranking.aggregate(values, relevant > 0, average=average, zero_division=zero_division)


@array_api_support
@fill_doc
def intent_aware_average_precision_score(
    y_true,
    y_score,
    *,
    qid=None,
    k=None,
    intent_weights=None,
    ties="stable",
    sample_weight=None,
    average=True,
    zero_division=0.0,
):
    r"""Intent-aware average precision (AP-IA, NIST ndeval's MAP-IA per query).

    Parameters
    ----------
    %(judgements_score)s
    %(k)s
    INTENT_WEIGHTS
    ties : {"stable", "average"}, default="stable"
        Order of documents with equal scores: input order (as ndeval takes
        the run's order), or the exact mean over all orderings of the ties
        (as :func:`mean_average_precision_score`).
    %(sample_weight)s
    %(average)s
    zero_division : {0.0, 1.0, np.nan}, default=0.0
        Value of a query without any relevant intent.

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        AP-IA (AP-IA@k), in [0, 1].

    See Also
    --------
    mean_average_precision_score : AP of one intent.
    intent_aware_precision_score : The intent-aware P@k.

    Notes
    -----
    .. math:: \mathrm{AP\text{-}IA} = \sum_i P(i \mid q)\, \mathrm{AP}_i

    over the query's intents, where :math:`\mathrm{AP}_i` is the average
    precision of the documents relevant to intent i (:math:`J(d, i) > 0`),
    over all of them (retrieved or not; the ones scored ``-inf`` are not).
    With uniform weights and ``k=None`` this is ndeval's ``MAP-IA`` of a
    query (ir_measures' ``AP_IA``).

    Examples
    --------
    >>> from sklearn_rankmetrics import intent_aware_average_precision_score
    >>> y_true = [[1, 0], [0, 1], [1, 1]]
    >>> # intent 0: (1 + 2/3) / 2; intent 1: (1/2 + 2/3) / 2
    >>> round(intent_aware_average_precision_score(y_true, [3, 2, 1]), 4)
    0.7083
    """
    k = check_k(k)
    check_zero_division(zero_division)
    ranking, judgements, by_query, _ = rank_subtopics(
        y_true, y_score, qid=qid, ties=ties, sample_weight=sample_weight, allowed_ties=STABLE_OR_AVERAGE
    )
    weights = intent_weights_of(intent_weights, judgements.shape[1])
    total = np.zeros(ranking.n_queries)
    for intent, weight in enumerate(weights):
        relevant = ranking.with_labels((judgements[:, intent] > 0).astype(np.float64), whole=True)
        values, defined = _average_precision(relevant, k=k)
        total += np.where(defined, weight * values, 0.0)
    values, defined = ratio(total, present_intents(by_query, ranking) @ weights)
    return ranking.aggregate(values, defined, average=average, zero_division=zero_division)


def novelty_discounted(y_true, y_score, *, qid, k, alpha, ideal, ties, sample_weight, discount):
    """The alpha-gains of the ranking and of ndeval's ideal ranking, summed with the rank weights ``discount``.

    As :func:`~sklearn_rankmetrics.alpha_ndcg_score` with another discount:
    ``discount(n)`` gives the weights of ranks 1 .. n. Returns the ranking,
    the two sums per query, and each query's number of intents.
    """
    k = check_k(k)
    alpha = check_real("alpha", alpha, low=0, high=1)
    ideal = check_option("ideal", ideal, IDEALS)
    ranking, judgements, by_query, ties = rank_subtopics(
        y_true, y_score, qid=qid, ties=ties, sample_weight=sample_weight, allowed_ties=TIES_ALL
    )
    k = ranking.cutoff(k)
    longest = int(ranking.query_sizes.max())
    depth = min(k or longest, longest)
    weights = discount(depth)
    found = discounted_alpha_gains(judgements, ranking, alpha, weights, ties, k)
    best = ideal_alpha_dcg(by_query, ranking, alpha, weights, ideal)
    return ranking, found, best, present_intents(by_query, ranking).sum(axis=1)


NOVELTY_PARAMETERS = """alpha : float, default=0.5
        In [0, 1]: how much an intent's gain falls each time a document above
        already covered it (ndeval's redundancy intolerance)."""

IDEAL_AND_TIES = """ideal : {"greedy", "exact"}, default="greedy"
        The normaliser's ranking: ``"greedy"``, ndeval's (at each rank the
        document of the highest alpha-gain, equal gains to the later row);
        ``"exact"``, the best ranking by branch and bound (refused where it
        could enumerate more than 1e7 orderings). See
        :func:`alpha_ndcg_score`.
    ties : {"stable", "average", "pessimistic", "optimistic"}, default="stable"
        Order of documents with equal scores: input order (as ndeval); the
        exact mean over the orderings of the ties (a tied document's gain
        depends on which tied documents precede it, and its mean is a
        weighted sum of the symmetric means of the others' discounts); or at
        each rank the tied document with the lowest/highest alpha-gain."""


@array_api_support
@fill_doc
def normalized_intent_aware_err_score(
    y_true,
    y_score,
    *,
    qid=None,
    k=None,
    alpha=0.5,
    ideal="greedy",
    ties="stable",
    sample_weight=None,
    average=True,
    zero_division=0.0,
):
    r"""Normalised intent-aware expected reciprocal rank (nERR-IA@k, NIST ndeval).

    Parameters
    ----------
    %(judgements_score)s
    %(k)s
    NOVELTY_PARAMETERS
    IDEAL_AND_TIES
    %(sample_weight)s
    %(average)s
    zero_division : {0.0, 1.0, np.nan}, default=0.0
        Value of a query without any relevant intent.

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        The nERR-IA@k, non-negative; at most 1 with ``ideal="exact"``.

    See Also
    --------
    intent_aware_err_score : The unnormalised ERR-IA of Chapelle et al.
    alpha_ndcg_score : The same gains with a logarithmic discount.

    Notes
    -----
    .. math:: \mathrm{nERR\text{-}IA@k} = \frac{\sum_{r=1}^{k} G[r] / r}{\sum_{r=1}^{k} G^*[r] / r},
              \qquad G[r] = \sum_i J(d_r, i)\, (1 - \alpha)^{c_i(r)}

    where :math:`c_i(r)` sums the judgements for intent i of the documents
    above rank r, and :math:`G^*` are the gains of the ideal ranking. For
    binary judgements the numerator is the sum over intents of ERR with a
    stop probability :math:`\alpha` per relevant document, over
    :math:`\alpha`: with ``alpha=0.5`` and uniform weights this is
    :func:`intent_aware_err_score` over its value on the ideal ranking. This
    is ndeval's ``nERR-IA@k`` (ir_measures' ``nERR_IA``), whose ``ERR-IA``
    column divides by another, collection-independent normaliser.

    References
    ----------
    .. [1] O. Chapelle, D. Metzler, Y. Zhang and P. Grinspan, "Expected
       reciprocal rank for graded relevance", CIKM 2009.
    .. [2] C. L. A. Clarke, N. Craswell and I. Soboroff, "Overview of the
       TREC 2009 Web track", TREC 2009 (ndeval).

    Examples
    --------
    >>> from sklearn_rankmetrics import normalized_intent_aware_err_score
    >>> y_true = [[1, 1, 0], [1, 0, 0], [0, 0, 1]]
    >>> # gains 2, 1/2, 1 at ranks 1 to 3; the ideal's 2, 1, 1/2: (2 + 1/4 + 1/3) / (2 + 1/2 + 1/6)
    >>> round(normalized_intent_aware_err_score(y_true, [3, 2, 1]), 5)
    0.96875
    """
    check_zero_division(zero_division)
    ranking, found, best, _ = novelty_discounted(
        y_true,
        y_score,
        qid=qid,
        k=k,
        alpha=alpha,
        ideal=ideal,
        ties=ties,
        sample_weight=sample_weight,
        discount=lambda n: 1.0 / np.arange(1.0, n + 1.0),
    )
    values, defined = ratio(found, best)
    return ranking.aggregate(values, defined, average=average, zero_division=zero_division)


@array_api_support
@fill_doc
def novelty_rank_biased_precision_score(
    y_true,
    y_score,
    *,
    qid=None,
    k=None,
    alpha=0.5,
    beta=0.5,
    normalize=False,
    ideal="greedy",
    ties="stable",
    sample_weight=None,
    average=True,
    zero_division=0.0,
):
    r"""Novelty- and rank-biased precision (NRBP, Clarke et al. 2009; NIST ndeval).

    Parameters
    ----------
    %(judgements_score)s
    %(k)s
    NOVELTY_PARAMETERS
    beta : float, default=0.5
        Patience in [0, 1): the chance of reading on after each document.
    normalize : bool, default=False
        False: NRBP, normalised by its largest possible value whatever the
        judgements (ndeval's ``NRBP``); True: over the NRBP of the ideal
        ranking (ndeval's ``nNRBP``).
    IDEAL_AND_TIES
    %(sample_weight)s
    %(average)s
    zero_division : {0.0, 1.0, np.nan}, default=0.0
        Value of a query without any relevant intent.

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        NRBP (or nNRBP), non-negative: NRBP is at most 1.

    See Also
    --------
    rank_biased_precision_score : RBP of one intent.
    alpha_ndcg_score : The same gains with a logarithmic discount.

    Notes
    -----
    .. math:: \mathrm{NRBP} = \frac{1 - (1 - \alpha)\beta}{N} \sum_{r \geq 1} \beta^{r-1} G[r],
              \qquad G[r] = \sum_i J(d_r, i)\, (1 - \alpha)^{c_i(r)}

    where :math:`c_i(r)` sums the judgements for intent i of the documents
    above rank r and N is the query's number of intents: the factor makes
    the largest possible value 1 (every document relevant to every intent).
    With ``normalize=True``, the sum over the same sum of the ideal
    ranking's gains. With a cutoff k the sum stops at k, the normalisers
    unchanged. ndeval's ``NRBP`` and ``nNRBP`` (ir_measures' names) have no
    cutoff.

    References
    ----------
    .. [1] C. L. A. Clarke, M. Kolla and O. Vechtomova, "An effectiveness
       measure for ambiguous and underspecified queries", ICTIR 2009.

    Examples
    --------
    >>> from sklearn_rankmetrics import novelty_rank_biased_precision_score
    >>> y_true = [[1, 1], [1, 0], [0, 1]]
    >>> # (1 - 0.25) / 2 (2 + 0.5 (0.5) + 0.25 (0.5))
    >>> round(novelty_rank_biased_precision_score(y_true, [3, 2, 1]), 6)
    0.890625
    """
    check_zero_division(zero_division)
    if beta == 1:  # refused before the range, with why
        raise ValueError("beta must be below 1: NRBP with beta=1 weighs every rank equally and has no finite sum.")
    beta = check_real("beta", beta, low=0, high=1, high_open=True)
    normalize = check_flag("normalize", normalize)
    alpha_value = check_real("alpha", alpha, low=0, high=1)
    ranking, found, best, n_intents = novelty_discounted(
        y_true,
        y_score,
        qid=qid,
        k=k,
        alpha=alpha_value,
        ideal=ideal,
        ties=ties,
        sample_weight=sample_weight,
        discount=lambda n: beta ** np.arange(n, dtype=np.float64),
    )
    if normalize:
        values, defined = ratio(found, best)
    else:
        values, defined = ratio(found * (1.0 - (1.0 - alpha_value) * beta), n_intents)
    return ranking.aggregate(values, defined, average=average, zero_division=zero_division)


for _function in (intent_aware_precision_score, intent_aware_average_precision_score):
    _function.__doc__ = _function.__doc__.replace("INTENT_WEIGHTS", INTENT_WEIGHTS)
for _function in (normalized_intent_aware_err_score, novelty_rank_biased_precision_score):
    _function.__doc__ = _function.__doc__.replace("NOVELTY_PARAMETERS", NOVELTY_PARAMETERS)
    _function.__doc__ = _function.__doc__.replace("IDEAL_AND_TIES", IDEAL_AND_TIES)
