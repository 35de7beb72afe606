"""Novelty and diversity: alpha-nDCG, intent-aware ERR and subtopic recall.

``y_true`` has one row per document and one column per subtopic (intent):
J(d, i) in [0, 1], 1 when document d is relevant to subtopic i.
"""

import math

import numpy as np
from scipy.stats import hypergeom

from .._core._array_api import array_api_support
from .._core._docs import fill_doc
from .._core._inputs import rank_subtopics
from .._core._numpy_ops import size_classes
from .._core._ranking import ratio
from .._core._validation import as_float_array, check_k, check_option, check_real, check_zero_division, plain
from ._cascade import _expected_reciprocal_rank
from ._tie_expectations import stopping_symmetric_means

IDEALS = ("greedy", "exact")
TIES_ALL = ("stable", "average", "pessimistic", "optimistic")
# The exact ideal enumerates at most this many orderings of distinct documents per query.
MAX_EXACT_ORDERINGS = 10**7


def exclusive_counts(judgements, ranking):
    """For each row and subtopic, the sum of the judgements of the rows above it in its query."""
    above = np.cumsum(judgements, axis=0)
    above -= judgements
    sizes = ranking.query_sizes
    above -= np.repeat(above[ranking.query_starts], sizes, axis=0)
    return above


def alpha_gains(judgements, ranking, alpha):
    """G = sum_i J(d, i) (1 - alpha)^r_i, r_i the judgements for subtopic i above d in its query."""
    return (judgements * (1.0 - alpha) ** exclusive_counts(judgements, ranking)).sum(axis=1)


def greedy(judgements, starts, sizes, depth, alpha, *, maximize=True, blocks=None, later_wins=False):
    """Greedy choice of the first ``depth`` rows of each query by their alpha gain at that point.

    Rows are grouped by query. At each rank every query takes, among its rows
    still free (and, with ``blocks``, in the block of the rank being filled),
    the one with the highest (or lowest) gain; equal gains go to the earlier
    row, or to the later one with ``later_wins``. One pass over all queries per
    rank: O(depth * n * n_subtopics).

    Returns the chosen rows (n_queries, depth), -1 past a query's end, and
    their gains.
    """
    n_queries = len(starts)
    query = np.repeat(np.arange(n_queries), sizes)
    rows = np.arange(len(query))
    factor = np.ones((n_queries, judgements.shape[1]))
    free = np.ones(len(query), dtype=bool)
    chosen = np.full((n_queries, depth), -1)
    gains = np.zeros((n_queries, depth))
    for rank in range(depth):
        active = np.flatnonzero(sizes > rank)
        gain = (judgements * factor[query]).sum(axis=1)
        eligible = free.copy()
        if blocks is not None:
            eligible &= blocks == blocks[np.minimum(starts + rank, starts + sizes - 1)][query]
        value = np.where(eligible, gain if maximize else -gain, -np.inf)
        best = np.maximum.reduceat(value, starts)
        winners = eligible & (value == best[query])
        if later_wins:
            first = np.maximum.reduceat(np.where(winners, rows, -1), starts)[active]
        else:
            first = np.minimum.reduceat(np.where(winners, rows, len(rows)), starts)[active]
        chosen[active, rank] = first
        gains[active, rank] = gain[first]
        free[first] = False
        factor[active] *= (1.0 - alpha) ** judgements[first]
    return chosen, gains


def tie_order(judgements, ranking, alpha, ties, k):
    """Rows in rank order, tied documents ordered worst or best gain first at each rank."""
    blocks = np.repeat(np.arange(len(ranking.block_starts)), ranking.block_sizes)
    depth = k or ranking.query_sizes.max()  # k is no deeper than the longest query
    chosen, _ = greedy(
        judgements,
        ranking.query_starts,
        ranking.query_sizes,
        depth,
        alpha,
        maximize=ties == "optimistic",
        blocks=blocks,
    )
    # Each query: its chosen rows in rank order, then the others in score order.
    rank = ranking.positions + depth
    taken = chosen >= 0
    rank[chosen[taken]] = np.nonzero(taken)[1]
    return np.lexsort((rank, ranking.query_of_row))


def discounted_alpha_gains(judgements, ranking, alpha, weights, ties, k):
    """Per query, the sum over ranks r of ``weights[r - 1]`` G[r] (0 past ``len(weights)``), in the order of ``ties``.

    ``judgements`` are in rank order. ``"stable"`` keeps it; ``"pessimistic"``
    and ``"optimistic"`` order each tie block greedily (:func:`tie_order`);
    ``"average"`` is the exact mean over the orders of the tie blocks
    (:func:`averaged_alpha_gains`).
    """
    if ties == "average" and ranking.has_ties:
        return averaged_alpha_gains(ranking.shown(judgements), ranking, alpha, weights)
    if ties != "stable" and ranking.has_ties:
        judgements = judgements[tie_order(judgements, ranking, alpha, ties, k)]
    depth = len(weights)
    gains = alpha_gains(ranking.shown(judgements), ranking, alpha)
    top = ranking.positions < depth
    return ranking.query_sum(np.where(top, gains * weights[np.minimum(ranking.positions, depth - 1)], 0.0))


def averaged_alpha_gains(judgements, ranking, alpha, weights):
    """:func:`discounted_alpha_gains` averaged over the orders of the tie blocks, exactly.

    A block of m tied rows from position a is reached with the judgements
    of the blocks above counted whole, C_i for intent i, in every order. Its
    row d lands at place j (from 0) with chance 1/m, with a uniform j-subset
    S of the other rows above it, so its mean weighted gain for intent i is

    ``J(d, i) (1 - alpha)**C_i / m * sum_j weights[a + j] e_j``,

    with e_j the elementary symmetric mean of degree j of the values
    ``(1 - alpha)**J(e, i)`` of the block's rows but d
    (:func:`~._tie_expectations.stopping_symmetric_means`). The rows of a
    block with one judgement u > 0 for intent i share those means: one
    computation per (block, intent, judgement) above the cutoff.
    """
    discount, depth = 1.0 - alpha, len(weights)
    counted = exclusive_counts(judgements, ranking)  # at a block's first row: the blocks above it, whole
    block = np.repeat(np.arange(len(ranking.block_starts)), ranking.block_sizes)
    alone = ranking.block_sizes[block] == 1
    shown = alone & (ranking.positions < depth)
    gains = (judgements[shown] * discount ** counted[shown]).sum(axis=1)
    total = np.bincount(
        ranking.query_of_row[shown],
        weights=gains * weights[ranking.positions[shown]],
        minlength=ranking.n_queries,
    )
    reached = ~alone & (ranking.block_first[block] < depth)
    rows, intents = np.nonzero((judgements > 0) & reached[:, None])
    if len(rows) == 0:
        return total
    # One triple (block, intent, judgement) per run of equal keys.
    values = judgements[rows, intents]
    order = np.lexsort((values, intents, block[rows]))
    rows, intents, values = rows[order], intents[order], values[order]
    keys = np.stack((block[rows], intents, values))
    starts = np.flatnonzero(np.concatenate(([True], np.any(keys[:, 1:] != keys[:, :-1], axis=0))))
    t_block, t_intent, t_value = block[rows[starts]], intents[starts], values[starts]
    t_sum = np.add.reduceat(values, starts)  # the judgements u of the rows of the triple, summed
    size, first = ranking.block_sizes[t_block], ranking.block_first[t_block]
    degrees = np.minimum(size - 1, depth - 1 - first)  # the places a + j above the cutoff: j <= degrees
    place_sums = np.empty(len(starts))
    block_starts = ranking.block_starts[t_block]
    for members in size_classes(degrees + 1):  # padded arrays of degrees within a factor two
        place_sums[members] = weighted_symmetric_means(
            judgements,
            block_starts[members],
            size[members],
            t_intent[members],
            t_value[members],
            discount,
            first[members],
            degrees[members],
            weights,
        )
    above = discount ** counted[block_starts, t_intent]
    contribution = t_sum * above * place_sums / size
    return total + np.bincount(ranking.query_of_block[t_block], weights=contribution, minlength=ranking.n_queries)


def weighted_symmetric_means(judgements, starts, sizes, intents, values, discount, first, degrees, weights):
    """Per triple, ``sum_{j <= degrees} weights[first + j] e_j`` (:func:`averaged_alpha_gains`).

    The e_j are the symmetric means of the values ``discount**J(e, intent)``
    of the rows of a block (``starts`` .. ``starts + sizes - 1``) but one of
    judgement ``value`` for that intent.
    """
    member = np.repeat(np.arange(len(starts)), sizes)
    offsets = np.cumsum(sizes) - sizes
    place = np.arange(int(sizes.sum())) - offsets[member]
    judged = judgements[starts[member] + place, intents[member]]
    left_out = np.minimum.reduceat(np.where(judged == values[member], place, sizes.max()), offsets)
    kept = place != left_out[member]
    means = stopping_symmetric_means(discount ** judged[kept], sizes - 1, degrees)
    columns = np.arange(means.shape[1])
    at = np.minimum(first[:, None] + columns, len(weights) - 1)
    return np.where(columns <= degrees[:, None], weights[at] * means, 0.0).sum(axis=1)


def ideal_alpha_dcg(judgements, ranking, alpha, weights, ideal_kind):
    """The ideal alpha-DCG of each query: greedy, or the exact maximum by branch and bound."""
    relevant = judgements.max(axis=1) > 0
    query = ranking.query_of_row[relevant]
    sizes = np.bincount(query, minlength=ranking.n_queries)
    ideal = np.zeros(ranking.n_queries)
    judged = np.flatnonzero(sizes)  # queries with a relevant document
    if len(judged) == 0:
        return ideal
    sizes = sizes[judged]
    starts = np.cumsum(sizes) - sizes
    depth = min(len(weights), sizes.max())
    candidates = judgements[relevant]
    # As ndeval, which resolves equal gains in favour of the larger docno.
    _, gains = greedy(candidates, starts, sizes, depth, alpha, later_wins=True)
    ideal[judged] = gains @ weights[:depth]
    if ideal_kind == "exact":
        slices = [candidates[start : start + size] for start, size in zip(starts, sizes, strict=True)]
        check_exact_feasible(slices, len(weights))
        ideal[judged] = [
            exact_alpha_dcg(query, weights[:depth], alpha, floor)
            for query, floor in zip(slices, ideal[judged], strict=True)
        ]
    return ideal


def check_exact_feasible(queries, depth):
    """Refuse the exact ideal where branch and bound could enumerate too many orderings of a query."""
    for query in queries:
        distinct = len(np.unique(query, axis=0))
        orderings = math.perm(distinct, min(depth, distinct))
        if orderings > MAX_EXACT_ORDERINGS:
            raise ValueError(
                f"ideal='exact' could enumerate {orderings:.3g} orderings for a query with {distinct} distinct "
                f"relevant documents at k={depth}; it is feasible up to {MAX_EXACT_ORDERINGS:.0e} "
                "(about k <= 5 with 25 distinct documents, or k <= 10 with 12). Lower k or use ideal='greedy'."
            )


def exact_alpha_dcg(candidates, weights, alpha, floor):
    """The maximum alpha-DCG over orderings of one query's relevant documents (branch and bound).

    Documents with equal subtopic vectors are interchangeable, so the search
    branches over distinct vectors. A document's gain only falls as others are
    placed, so the current gains, sorted, bound what the remaining ranks can add.
    """
    vectors, counts = np.unique(candidates, axis=0, return_counts=True)
    best = [floor]
    discount = 1.0 - alpha

    def search(factor, counts, rank, value):
        if rank == len(weights) or not counts.any():
            best[0] = max(best[0], value)
            return
        gains = (vectors * factor).sum(axis=1)
        available = np.repeat(gains, counts)
        top = np.sort(available)[::-1][: len(weights) - rank]
        if value + top @ weights[rank : rank + len(top)] <= best[0]:
            return
        for vector in np.argsort(-gains, kind="stable"):
            if counts[vector]:
                counts[vector] -= 1
                search(factor * discount ** vectors[vector], counts, rank + 1, value + gains[vector] * weights[rank])
                counts[vector] += 1

    search(np.ones(vectors.shape[1]), counts.copy(), 0, 0.0)
    return best[0]


@array_api_support
@fill_doc
def alpha_ndcg_score(
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
    r"""Alpha-nDCG@k: NDCG that rewards novelty across subtopics (Clarke et al. 2008).

    Parameters
    ----------
    %(judgements_score)s
    %(k)s
    alpha : float, default=0.5
        In [0, 1]: how much a subtopic's gain falls each time a document above
        already covered it. 0 gives NDCG with gain = number of subtopics.
    ideal : {"greedy", "exact"}, default="greedy"
        The normaliser. ``"greedy"`` (as NIST's ndeval and the paper): at each
        rank the document with the highest gain given those above. Equal gains
        go to the later row, as ndeval gives them to the larger docno (rows
        standing for documents in docno order); this reproduces ndeval and the
        example below. The greedy ideal is not always optimal, so scores can
        exceed 1.
        ``"exact"``: the true maximum alpha-DCG@k by branch and bound, so
        scores never exceed 1; refused where it could enumerate more than 1e7
        orderings of a query's distinct relevant documents.
    ties : {"stable", "average", "pessimistic", "optimistic"}, default="stable"
        Order of documents with equal scores: ``"stable"``, input order (as
        ndeval takes the run's order); ``"average"``, the exact mean over the
        orderings of the ties; ``"pessimistic"``/``"optimistic"``: at each
        rank, the tied document with the lowest/highest gain at that point
        (a greedy order, not the worst/best of all orderings).
    %(sample_weight)s
    %(average)s
    zero_division : {0.0, 1.0, np.nan}, default=0.0
        Value of a query without any relevant subtopic (ideal alpha-DCG of 0):
        0.0 as ndeval, 1.0, or ``np.nan`` to leave it out of the mean.

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        The alpha-nDCG@k, non-negative; at most 1 with ``ideal="exact"``.

    See Also
    --------
    ndcg_score : Graded relevance without subtopics.
    subtopic_recall_score : The share of subtopics covered.

    Notes
    -----
    The gain of the document at rank k is

    .. math:: G[k] = \sum_i J(d_k, i)\, (1 - \alpha)^{r_{i,k-1}}

    where :math:`r_{i,k-1} = \sum_{j<k} J(d_j, i)` counts the documents above
    rank k relevant to subtopic i (the sum of their judgements for fractional
    J). alpha-DCG@k sums :math:`G[j] / \log_2(1 + j)` over the top k, and
    alpha-nDCG@k divides it by the ideal alpha-DCG@k. The greedy ideal costs
    O(k n) per query; the exact one is exponential in k in the worst case.

    References
    ----------
    .. [1] C. L. A. Clarke et al., "Novelty and diversity in information
       retrieval evaluation", SIGIR 2008.

    Examples
    --------
    Documents relevant to subtopics {1, 2}, {1}, {3}: the second adds less than
    the third, so ranking the third second scores higher.

    >>> from sklearn_rankmetrics import alpha_ndcg_score
    >>> y_true = [[1, 1, 0], [1, 0, 0], [0, 0, 1]]
    >>> round(alpha_ndcg_score(y_true, [3, 2, 1]), 4)
    0.9773
    >>> alpha_ndcg_score(y_true, [3, 1, 2])
    1.0

    The greedy ideal is not optimal: here it takes d3, d1, d0 (gains 2, 1.5,
    1.5) while the ranking d0, d1, d3 earns 2, 2, 1.

    >>> y_true = [[0, 1, 0, 1], [1, 0, 1, 0], [0, 0, 0, 1], [1, 0, 0, 1], [0, 0, 0, 0]]
    >>> y_score = [5, 4, 1, 3, 0]
    >>> round(alpha_ndcg_score(y_true, y_score, k=3), 4)
    1.0177
    >>> alpha_ndcg_score(y_true, y_score, k=3, ideal="exact")
    1.0
    """
    k = check_k(k)
    alpha = check_real("alpha", alpha, low=0, high=1)
    ideal = check_option("ideal", ideal, IDEALS)
    check_zero_division(zero_division)
    ranking, judgements, by_query, ties = rank_subtopics(
        y_true, y_score, qid=qid, ties=ties, sample_weight=sample_weight, allowed_ties=TIES_ALL
    )
    k = ranking.cutoff(k)
    depth = min(k or ranking.query_sizes.max(), ranking.query_sizes.max())
    weights = 1.0 / np.log2(np.arange(2.0, depth + 2.0))
    dcg = discounted_alpha_gains(judgements, ranking, alpha, weights, ties, k)
    values, defined = ratio(dcg, ideal_alpha_dcg(by_query, ranking, alpha, weights, ideal))
    return ranking.aggregate(values, defined, average=average, zero_division=zero_division)


@array_api_support
@fill_doc
def intent_aware_err_score(
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
    r"""Intent-aware expected reciprocal rank (ERR-IA@k, Chapelle et al. 2011).

    Parameters
    ----------
    %(judgements_score)s
    %(k)s
    intent_weights : array-like of shape (n_subtopics,), default=None
        Non-negative weight P(i | q) of each intent; None: uniform. In each
        query only the intents with a relevant document count, and their
        weights are renormalised to sum to 1.
    ties : {"stable", "average"}, default="stable"
        Order of documents with equal scores: input order, or the exact mean
        over all orderings of the ties (as :func:`expected_reciprocal_rank_score`).
    %(sample_weight)s
    %(average)s
    zero_division : {0.0, 1.0, np.nan}, default=0.0
        Value of a query without any relevant intent.

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        ERR-IA@k, in [0, 1].

    See Also
    --------
    expected_reciprocal_rank_score : ERR of a single graded intent.

    Notes
    -----
    .. math:: \mathrm{ERR\text{-}IA@k} = \sum_i P(i \mid q)\, \mathrm{ERR}_i@k

    where :math:`\mathrm{ERR}_i` is ERR with binary per-intent relevance on
    a 0-1 scale: stop probability :math:`R = (2^{J} - 1) / 2`, so 1/2 for a
    relevant document.

    References
    ----------
    .. [1] O. Chapelle, S. Ji, C. Liao, E. Velipasaoglu, L. Lai and S.-L. Wu,
       "Intent-based diversification of web search results: metrics and
       algorithms", Information Retrieval 14(6), 2011.

    Examples
    --------
    >>> from sklearn_rankmetrics import intent_aware_err_score
    >>> y_true = [[1, 0], [0, 1], [1, 0]]
    >>> # intent 0: 1/2 + (1/2)(1/2)/3; intent 1: (1/2)/2; uniform weights
    >>> round(intent_aware_err_score(y_true, [3, 2, 1]), 4)
    0.4167
    """
    k = check_k(k)
    check_zero_division(zero_division)
    ranking, judgements, _, _ = rank_subtopics(
        y_true, y_score, qid=qid, ties=ties, sample_weight=sample_weight, allowed_ties=("stable", "average")
    )
    k = ranking.cutoff(k)
    n_intents = judgements.shape[1]
    weights = np.ones(n_intents) if intent_weights is None else as_float_array(intent_weights, "intent_weights")
    if weights.shape != (n_intents,) or not np.isfinite(weights).all() or (weights < 0).any():
        raise ValueError(
            f"intent_weights must hold {n_intents} finite non-negative weights, one per subtopic "
            f"column of y_true; got {plain(intent_weights)!r}."
        )
    total = np.zeros(ranking.n_queries)
    weight_sum = np.zeros(ranking.n_queries)
    for intent, weight in enumerate(weights):
        values, relevant = _expected_reciprocal_rank(ranking.with_labels(judgements[:, intent]), k=k, max_grade=1)
        total += np.where(relevant, weight * values, 0.0)
        weight_sum += np.where(relevant, weight, 0.0)
    values, defined = ratio(total, weight_sum)
    return ranking.aggregate(values, defined, average=average, zero_division=zero_division)


@array_api_support
@fill_doc
def subtopic_recall_score(
    y_true,
    y_score,
    *,
    qid=None,
    k=None,
    ties="stable",
    sample_weight=None,
    average=True,
    zero_division=0.0,
):
    r"""Subtopic recall (S-recall@k, Zhai et al. 2003): the share of a query's subtopics covered in its top k.

    Parameters
    ----------
    %(judgements_score)s
    %(k)s
    ties : {"stable", "average", "pessimistic", "optimistic"}, default="stable"
        Order of documents with equal scores: input order; the exact mean over
        all orderings of the ties; or at each rank the tied document covering
        the fewest (most) new subtopics first. These greedy orders are not the
        worst (best) of all orderings, so they need not bound the input order.
    %(sample_weight)s
    %(average)s
    zero_division : {0.0, 1.0, np.nan}, default=0.0
        Value of a query whose documents cover no subtopic.

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        S-recall@k, in [0, 1].

    See Also
    --------
    alpha_ndcg_score : Rewards coverage rank by rank.

    Notes
    -----
    .. math:: \mathrm{S\text{-}recall@k} = \frac{|\bigcup_{j \leq k} \{i : J(d_j, i) > 0\}|}
              {|\{i : J(d, i) > 0 \text{ for a document } d \text{ of the query}\}|}

    With ties averaged, a block of m tied documents of which v fall within
    the top k covers a subtopic held by c of them with probability
    :math:`1 - \binom{m-c}{v} / \binom{m}{v}`.

    References
    ----------
    .. [1] C. Zhai, W. Cohen and J. Lafferty, "Beyond independent relevance:
       methods and evaluation metrics for subtopic retrieval", SIGIR 2003.

    Examples
    --------
    >>> from sklearn_rankmetrics import subtopic_recall_score
    >>> y_true = [[1, 1, 0], [1, 0, 0], [0, 0, 1]]
    >>> round(subtopic_recall_score(y_true, [3, 2, 1], k=2), 4)
    0.6667
    """
    k = check_k(k)
    check_zero_division(zero_division)
    ranking, judgements, by_query, ties = rank_subtopics(
        y_true, y_score, qid=qid, ties=ties, sample_weight=sample_weight, allowed_ties=TIES_ALL
    )
    k = ranking.cutoff(k)
    covers = ranking.shown((judgements > 0).astype(np.float64))
    if ties in ("pessimistic", "optimistic") and ranking.has_ties:
        # With alpha = 1 a document's alpha gain is the number of subtopics it adds.
        covers = covers[tie_order(covers, ranking, 1.0, ties, k)]
    present = np.maximum.reduceat(by_query, ranking.query_starts, axis=0) > 0
    n_subtopics = present.sum(axis=1)
    depth = ranking.query_sizes.max() if k is None else k
    if ties == "average" and ranking.has_ties:
        seen = 1.0 - averaged_misses(covers, ranking, depth)
    else:
        top = (ranking.positions < depth)[:, None]
        seen = np.add.reduceat(covers * top, ranking.query_starts, axis=0) > 0
    covered = (seen * present).sum(axis=1)
    values, defined = ratio(covered, n_subtopics)
    return ranking.aggregate(values, defined, average=average, zero_division=zero_division)


def averaged_misses(covers, ranking, depth):
    """Per query and subtopic, the probability that the top ``depth`` misses it, over orderings of the ties.

    Blocks wholly above the cutoff are always seen, blocks below never; in the
    block that straddles it, v of its m rows are seen, and a subtopic that c of
    them cover is missed with the hypergeometric probability C(m - c, v) / C(m, v),
    evaluated in constant time per block and subtopic (scipy's hypergeometric
    distribution, accurate to a few units in the last place).
    """
    sizes = ranking.block_sizes
    seen_rows = np.clip(depth - ranking.block_first, 0, sizes)
    held = np.add.reduceat(covers, ranking.block_starts, axis=0)
    miss = np.where(seen_rows[:, None] > 0, (held == 0).astype(np.float64), 1.0)
    partial = np.flatnonzero((seen_rows > 0) & (seen_rows < sizes))
    miss[partial] = hypergeom.pmf(0, sizes[partial, None], held[partial], seen_rows[partial, None])
    return np.multiply.reduceat(miss, ranking.query_block_starts, axis=0)
