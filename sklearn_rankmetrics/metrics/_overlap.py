"""Rank-biased overlap: between two systems' rankings, and against an ideal ranking (compatibility).

RBO (Webber et al. 2010) weighs the overlap of two rankings' top d by
:math:`p^{d-1}`. Both measures here are sums over depths d of overlaps, and
an overlap is a sum over documents of "in both tops": with ties averaged,
each document's chance of being in a top d is known in closed form, so the
expectations are exact and every sum runs over the rows once.
"""

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from .._core._array_api import array_api_support
from .._core._docs import fill_doc
from .._core._inputs import evaluate, rank_queries
from .._core._numpy_ops import rank_order, segment_accumulate
from .._core._validation import as_float_array, check_flag, check_k, check_real, check_scores
from .._core._warnings import warn
from ._tie_expectations import hypergeometric_laws


def check_no_depth(ranking, name):
    """Refuse a ranking whose depth cuts a block of tied scores (trec_eval's -M with ties='average')."""
    if ranking.depth is not None:
        raise ValueError(
            f"{name} needs the rank of every retrieved document: with a max_depth that cuts a block of tied scores "
            "under ties='average' it is not available. Use ties=None (trec_eval's order) or 'stable'."
        )


def depth_sums(p, longest):
    """Running sums over depths d = 0 .. longest of p**(d - 1) / d and of p**(d - 1) (0 at d = 0)."""
    depths = np.arange(1, longest + 1, dtype=np.float64)
    powers = p ** (depths - 1.0)
    return np.concatenate(([0.0], np.cumsum(powers / depths))), np.concatenate(([0.0], np.cumsum(powers)))


def block_extents(ranking):
    """Each row's tie block: its first position (from 0) and its size (1 for every row without ties)."""
    if not ranking.has_ties:
        return ranking.positions.astype(np.int64), np.ones(ranking.n_rows, dtype=np.int64)
    block = np.repeat(np.arange(len(ranking.block_starts)), ranking.block_sizes)
    return ranking.block_first[block].astype(np.int64), ranking.block_sizes[block].astype(np.int64)


def _compatibility(ranking, *, p=0.95, normalize=True):
    p = check_real("p", p, low=0, high=1, low_open=True)
    normalize = check_flag("normalize", normalize)
    check_no_depth(ranking, "compat")
    labels, positions = ranking.judged_labels, ranking.positions
    relevant = labels > 0
    n_relevant = ranking.query_count(relevant)
    depth = np.maximum(n_relevant, ranking.n_retrieved)  # the longer of the run and the ideal ranking
    reciprocal, powers = depth_sums(p, ranking.longest)
    # The ideal ranking: labels descending, each label's documents in the run's order (then those not
    # retrieved), so that it is the ideal ranking most compatible with the run.
    ideal_order = rank_order(ranking.query_of_row, labels)[0]
    ideal_place = np.empty(ranking.n_rows, dtype=np.int64)
    ideal_place[ideal_order] = positions + 1
    first, size = block_extents(ranking)
    shown = relevant if ranking.retrieved is None else relevant & ranking.retrieved
    limit = depth[ranking.query_of_row]
    # A relevant document is in both tops from depth max(end of its block, ideal place) on; within a tie
    # block the ideal places of a label's documents are a run, so any order of them counts right from there.
    reach = np.maximum(first + size, ideal_place)
    counted = shown & (reach <= limit)
    from_reach = np.where(counted, reciprocal[limit] - reciprocal[np.where(counted, reach, 1) - 1], 0.0)
    total = ranking.query_sum(from_reach)
    tied = shown & (size > 1)
    if tied.any():
        total += inside_tie_blocks(
            ranking, ideal_order[tied[ideal_order]], first, size, ideal_place, limit, p, reciprocal, powers
        )
    if normalize:  # the ideal ranking's own sum: min(d, R) documents in both tops at depth d
        denominator = powers[n_relevant] + n_relevant * (reciprocal[depth] - reciprocal[n_relevant])
    else:
        denominator = powers[depth]
    return total / np.where(n_relevant > 0, denominator, 1.0), n_relevant > 0


def inside_tie_blocks(ranking, rows, first, size, ideal_place, limit, p, reciprocal, powers):
    """Each query's sum over depths d of p**(d-1)/d times the expected overlap of the rows of tie blocks cut by d.

    A block of m rows from position a (from 0) is cut by the depths d with
    a < d < a + m: v = d - a of its places are in the run's top d. Its
    n relevant rows of one label hold the ideal places s0 .. s1, a run; in
    every ordering the ones in the run's top d are the first of them in the
    run's order, so min(X, d - s0 + 1) of them are in both tops, X the
    hypergeometric number of them among the v places. From depth s1 on that
    is X, of mean v n / m (a sum over d from tables of p**(d-1) and
    p**(d-1) / d); before s0 it is 0; in between, its mean comes from the
    hypergeometric law (:func:`expected_minimum`).
    """
    query = ranking.query_of_row
    a, m, places, limits = first[rows], size[rows], ideal_place[rows], limit[rows]
    # ``rows``: the relevant rows of tie blocks, in ideal order, where those of one block and one label are a run.
    key = np.stack((query[rows], a, -ranking.judged_labels[rows]))
    starts = np.flatnonzero(np.concatenate(([True], np.any(key[:, 1:] != key[:, :-1], axis=0))))
    counts = np.diff(starts, append=len(rows))
    low, high = np.minimum.reduceat(places, starts), np.maximum.reduceat(places, starts)
    # Every row, from the depth where its group is wholly in the ideal top d: v / m each.
    lo = np.maximum(np.repeat(high, counts), a + 1)
    hi = np.minimum(a + m - 1, limits)
    some = lo <= hi
    lo, hi = np.where(some, lo, 1), np.where(some, hi, 0)
    linear = ((powers[hi] - powers[lo - 1]) - a * (reciprocal[hi] - reciprocal[lo - 1])) / m
    total = np.bincount(query[rows], weights=np.where(some, linear, 0.0), minlength=ranking.n_queries)
    # Every group of two rows or more, at the depths where it is partly in the ideal top d.
    g_a, g_m, g_limit = a[starts], m[starts], limits[starts]
    d_low = np.maximum(low, g_a + 1)
    d_high = np.minimum(np.minimum(high - 1, g_a + g_m - 1), g_limit)
    n_depths = np.maximum(d_high - d_low + 1, 0)
    if not n_depths.any():
        return total
    group = np.repeat(np.arange(len(starts)), n_depths)
    d = d_low[group] + (np.arange(n_depths.sum()) - np.repeat(np.cumsum(n_depths) - n_depths, n_depths))
    slots = d - low[group] + 1  # the group's ideal places within the top d
    expected = expected_minimum(g_m[group], counts[group], d - g_a[group], slots)
    weight = p ** (d - 1.0) / d * expected
    return total + np.bincount(query[rows][starts][group], weights=weight, minlength=ranking.n_queries)


# Hoeffding's bound of the hypergeometric tails leaves at most v exp(-TAIL_EXPONENT) / max(v, 2) < 5e-18 of
# E[min(X, t)] out where the bound settles it.
TAIL_EXPONENT = 40.0


def expected_minimum(population, marked, draws, slots):
    """``E[min(X, slots)]`` for X, the marked rows among ``draws`` drawn without replacement (one per pair).

    By Hoeffding's inequality ``P(|X - E X| >= tau) <= exp(-2 tau**2 / draws)``: where ``slots`` lies
    ``tau`` above the mean, ``E[min(X, slots)] = E[X]`` but for less than ``draws exp(-2 tau**2 / draws)``,
    and ``slots`` where it lies ``tau`` below. Only the pairs in between, a window of about
    ``sqrt(draws)`` depths in each tie block, need the law.
    """
    mean = draws * marked / population
    tau = np.sqrt(draws * (np.log(np.maximum(draws, 2)) + TAIL_EXPONENT) / 2.0)
    expected = np.where(slots >= mean, mean, slots.astype(np.float64))
    window = np.flatnonzero(np.abs(slots - mean) < tau)
    if len(window):
        laws = hypergeometric_laws(population[window], marked[window], draws[window])
        for members, x, law in laws:
            expected[window[members]] = np.sum(np.minimum(x, slots[window[members], None]) * law, axis=1)
    return expected


@array_api_support
@fill_doc
def compatibility_score(
    y_true,
    y_score,
    *,
    qid=None,
    p=0.95,
    normalize=True,
    ties="average",
    sample_weight=None,
    average=True,
    zero_division=0.0,
):
    r"""Compatibility (Clarke et al. 2021): the rank-biased overlap of a ranking with an ideal ranking.

    Parameters
    ----------
    %(y_true_y_score)s
    %(qid)s
    p : float, default=0.95
        Persistence in (0, 1]: the overlap at depth d weighs
        :math:`p^{d-1}`.
    normalize : bool, default=True
        Divide by the value of the ideal ranking itself, so that it scores 1
        (the ideal ranking is finite, so its RBO is below 1); False: the
        RBO, normalised by the weights of the depths only.
    %(ties)s
    %(sample_weight)s
    %(average)s
    %(zero_division)s

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        The compatibility of each query or their mean, in [0, 1].

    See Also
    --------
    rank_biased_overlap : RBO between two systems' rankings.
    ndcg_score : Another gain-based comparison with the ideal ranking.

    Notes
    -----
    With :math:`S_d` the top d of the ranking (its retrieved documents) and
    :math:`I_d` that of the ideal ranking,

    .. math:: \mathrm{RBO} = \frac{\sum_{d=1}^{D} p^{d-1}\, |S_d \cap I_d| / d}{\sum_{d=1}^{D} p^{d-1}},
              \qquad \mathrm{compat} = \frac{\mathrm{RBO}(S, I)}{\mathrm{RBO}(I, I)}

    over the depths up to D, the longer of the two rankings. The ideal
    ranking holds the query's relevant documents (label above 0, the ones
    scored ``-inf`` included) by descending label; among documents of one
    label it follows the ranking's own order, which makes it the ideal
    ranking most compatible with the ranking, as Clarke et al. define it
    (documents that were not retrieved come after those that were).
    ir_measures' ``Compat`` gives the same value where every retrieved
    document scores above 0 and no two documents of one label tie (or,
    with ``ties="stable"``, the tied ones come in ascending docno order in
    both the rows and the qrels). It gives the documents not retrieved the
    score 0 in its ideal ranking, so with scores below 0 they come before
    retrieved documents of their label, and it breaks score ties by
    ascending docno in the ranking but in the qrels' order in the ideal
    ranking. A query without a relevant document scores ``zero_division``. With ties
    averaged, the value is the exact mean over the orderings of the tie
    blocks, which also reorder the ideal ranking's documents of one label:
    each tie block's relevant rows of one label are in both tops at depth d
    in a number whose law is hypergeometric. Only a window of depths of
    each tie block needs the law (elsewhere a tail bound settles the mean
    to within 1e-17), so that a million tied rows take a few seconds; the
    rest is linear in the rows.

    References
    ----------
    .. [1] C. L. A. Clarke, A. Vtyurina and M. D. Smucker, "Assessing top-k
       preferences", ACM TOIS 39(3), 2021.
    .. [2] W. Webber, A. Moffat and J. Zobel, "A similarity measure for
       indefinite rankings", ACM TOIS 28(4), 2010.

    Examples
    --------
    >>> from sklearn_rankmetrics import compatibility_score
    >>> compatibility_score([2, 1, 0], [0.9, 0.5, 0.1])
    1.0
    >>> # Overlaps 0, 2, 2 at depths 1 to 3, the ideal ranking's own 1, 2, 2: (0 + 1/2 (2/2) + 1/4 (2/3)) over
    >>> # (1 + 1/2 (2/2) + 1/4 (2/3))
    >>> round(compatibility_score([1, 2, 0], [0.9, 0.5, 0.1], p=0.5), 4)
    0.4
    """
    return evaluate(
        _compatibility,
        y_true,
        y_score,
        qid=qid,
        ties=ties,
        sample_weight=sample_weight,
        average=average,
        zero_division=zero_division,
        p=p,
        normalize=normalize,
    )


def interval_counts(row_starts, low, high, n_rows):
    """At each position of the queries, how many of the intervals ``[low, high]`` of depths (from 1) hold it.

    Each interval lies in the query that starts at ``row_starts``; an empty
    one (low > high) counts for nothing. Whole numbers: exact.
    """
    kept = low <= high
    steps = np.bincount(row_starts[kept] + low[kept] - 1, minlength=n_rows + 1)
    steps -= np.bincount(row_starts[kept] + high[kept], minlength=n_rows + 1)
    return np.cumsum(steps[:n_rows])


class ListRanking:
    """One system's list of the rows: its ranking, and per row (in input order) its tie block and whether it is listed.

    The list holds the retrieved rows (scores above ``-inf``) ranked above
    ``k``; ``length`` is its size per query. A tie block cut by ``k`` is
    listed, each of its rows with the share of its places above ``k``.
    """

    def __init__(self, scores, qid, ties, sample_weight, k):
        ranking, order = rank_queries(
            np.zeros(scores.shape), scores, qid=qid, ties=ties, sample_weight=sample_weight, return_order=True
        )
        self.ranking, self.order = ranking, order
        k = ranking.cutoff(k)  # no deeper than the longest list: any k (2**63 too) past it compares whole lists
        self.length = ranking.n_retrieved if k is None else np.minimum(ranking.n_retrieved, k)
        first, size = block_extents(ranking)
        self.first_here, self.size_here = first, size  # the block at each position, in rank order
        listed = first < self.length[ranking.query_of_row]
        if ranking.retrieved is not None:
            listed &= ranking.retrieved
        self.first, self.end = np.empty(ranking.n_rows, dtype=np.int64), np.empty(ranking.n_rows, dtype=np.int64)
        self.listed = np.empty(ranking.n_rows, dtype=bool)
        self.first[order], self.end[order], self.listed[order] = first, first + size, listed

    def share(self, depth):
        """Per row, its chance to be in the list's top ``depth`` (one per row) over the orderings of its tie block."""
        return np.where(self.listed, np.clip((depth - self.first) / (self.end - self.first), 0.0, 1.0), 0.0)

    def share_here(self, depth):
        """At each position, the share of the places of the block there that lie in the top ``depth`` (one each)."""
        return (depth - self.first_here) / self.size_here

    def expected_in_top(self, chances, row_starts, depth):
        """At each position d - 1 of each query, the mean number of listed rows in the top d, each row counting
        with its ``chances`` (in input order): the blocks wholly above d, and the share of the one cut by d."""
        ranking = self.ranking
        chances = np.where(self.listed, chances, 0.0)
        by_end = np.bincount(row_starts + self.end - 1, weights=chances, minlength=ranking.n_rows)
        whole = segment_accumulate(np.add, by_end[: ranking.n_rows], ranking.query_starts, ranking.query_sizes)
        in_rank_order = chances[self.order]
        if ranking.has_ties:
            in_rank_order = np.repeat(ranking.per_block(in_rank_order), ranking.block_sizes)
        cut = depth < self.first_here + self.size_here
        return whole + np.where(cut, in_rank_order * self.share_here(depth), 0.0)


@array_api_support
def rank_biased_overlap(
    y_score_a, y_score_b, *, qid=None, p=0.9, k=None, ties="average", sample_weight=None, average=True
):
    r"""Rank-biased overlap (RBO) of two systems' rankings of the same documents, per query.

    It compares rankings without labels: how much two rankers agree,
    weighted towards the top.

    Parameters
    ----------
    y_score_a, y_score_b : array-like of shape (n_samples,) or (n_queries, n_docs)
        Each system's scores of the same documents; a higher score ranks
        higher, and ``-inf`` leaves a document out of that system's list
        (the lists may differ in length). NaN and ``+inf`` are errors.
    qid : array-like of shape (n_samples,), default=None
        Query id of each row, of any comparable type; the rows of a query
        need not be contiguous. None: a single query for 1-D inputs, one
        query per row for 2-D inputs.
    p : float, default=0.9
        Persistence in (0, 1): the agreement at depth d weighs
        :math:`(1 - p) p^{d-1}`.
    k : int, default=None
        Only each list's top ``k`` is compared (the evaluation depth); None:
        the whole lists. Any integer >= 1 is accepted.
    ties : {"average", "pessimistic", "optimistic", "stable"}, default="average"
        Order of documents with equal scores in a list: ``"average"``, the
        exact mean of RBO over the orderings of every tie block of both
        lists, each system ordering its ties on its own, so that two equal
        rankings with ties score below 1; ``"stable"``, input order in both
        (equal rankings score 1). Without labels, ``"pessimistic"`` and
        ``"optimistic"`` keep input order too.
    sample_weight : array-like of shape (n_samples,) or (n_queries,), default=None
        Weight of each query in the mean, constant within a query.
    average : bool, default=True
        Return the weighted mean over queries as a float; False: an array
        with one value per query, ordered like ``np.unique(qid)``.

    Returns
    -------
    rbo : float or ndarray of shape (n_queries,)
        The extrapolated RBO, in [0, 1]: 1 for identical lists.

    See Also
    --------
    compatibility_score : RBO against the ideal ranking of judged documents.

    Notes
    -----
    With :math:`X_d` the number of documents in both lists' top d, the
    shorter list of length s and the longer of length l (Webber et al.,
    eq. 32),

    .. math:: \mathrm{RBO_{ext}} = \frac{1 - p}{p} \left( \sum_{d=1}^{l} \frac{X_d}{d} p^d
              + \sum_{d=s+1}^{l} \frac{X_s (d - s)}{s\, d} p^d \right)
              + \left( \frac{X_l - X_s}{l} + \frac{X_s}{s} \right) p^l

    which extrapolates the agreement seen at the lists' ends to the unseen
    ranks. Two empty lists score 1, one empty list 0 (as the ``rbo``
    package). With ties averaged, RBO is linear in the :math:`X_d`, and a
    document's chance to be in a list's top d is the share of its tie
    block's places within d; the tie orders of the two lists are
    independent, so the mean of :math:`X_d` is a sum of products of those
    shares, exact. (Webber et al.'s own tie-aware variant instead counts a
    whole tie block at the depth it starts.)

    References
    ----------
    .. [1] W. Webber, A. Moffat and J. Zobel, "A similarity measure for
       indefinite rankings", ACM TOIS 28(4), 2010.

    Examples
    --------
    >>> from sklearn_rankmetrics import rank_biased_overlap
    >>> rank_biased_overlap([3, 2, 1], [3, 2, 1])
    1.0
    >>> # Agreements 0, 1, 1 at depths 1 to 3: 0.1 (0.9) + 0.1 (0.81) + 0.729
    >>> round(rank_biased_overlap([3, 2, 1], [2, 3, 1]), 4)
    0.9
    """
    if p == 1:  # refused before the range, with why
        raise ValueError("p must be below 1: the extrapolated RBO with p=1 weighs every depth equally, without end.")
    p = check_real("p", p, low=0, high=1, low_open=True, high_open=True)
    k = check_k(k)
    check_flag("average", average)
    scores = []
    for name, values in (("y_score_a", y_score_a), ("y_score_b", y_score_b)):
        values = as_float_array(values, name, ndim=(1, 2))
        check_scores(values, name, minus_inf="a document that the system left out")
        scores.append(values)
    if scores[0].shape != scores[1].shape:
        raise ValueError(
            f"y_score_a and y_score_b must have the same shape, one score of each system per document; got "
            f"{scores[0].shape} and {scores[1].shape}."
        )
    a, b = (ListRanking(values, qid, ties, sample_weight, k) for values in scores)
    values = extrapolated_rbo(a, b, p)
    weights = a.ranking.query_weights
    if average and weights is not None and not weights.any():  # RBO is defined for every query: only weights lack
        warn(
            "sample_weight gives every query a weight of 0, so the mean RBO is nan. Give some query a positive "
            "weight, or pass average=False for each query's RBO.",
            UndefinedMetricWarning,
        )
        return float("nan")
    return a.ranking.aggregate(values, np.ones(len(values), dtype=bool), average=average)


def extrapolated_rbo(a, b, p):
    """Each query's extrapolated RBO of the lists ``a`` and ``b`` (:class:`ListRanking`), ties averaged."""
    ranking = a.ranking
    n_rows, query, starts = ranking.n_rows, ranking.query_of_row, ranking.query_starts
    query_in = np.empty(n_rows, dtype=np.int64)
    query_in[a.order] = query  # the queries are in the same order in both rankings
    row_starts, row_sizes = starts[query_in], ranking.query_sizes[query_in]
    depth = ranking.positions + 1.0  # of each position
    short, long = np.minimum(a.length, b.length), np.maximum(a.length, b.length)
    # X_d up to the shorter list's length: the rows in both tops for certain, and those whose block in one
    # list or both is cut by d, each in a top with its block's share of places there.
    both = a.listed & b.listed

    def count(low, high):
        return interval_counts(row_starts[both], low[both], high[both], n_rows)

    certain = count(np.maximum(a.end, b.end), row_sizes)
    cut_a, cut_b = count(np.maximum(a.first + 1, b.end), a.end - 1), count(np.maximum(b.first + 1, a.end), b.end - 1)
    cut_both = count(np.maximum(a.first, b.first) + 1, np.minimum(a.end, b.end) - 1)
    share_a, share_b = a.share_here(depth), b.share_here(depth)
    x = certain + share_a * cut_a + share_b * cut_b + share_a * share_b * cut_both
    # Past it: the shorter list's rows (each with its chance to be in it) in the longer list's top d.
    a_short = a.length <= b.length
    in_short = np.where(a_short[query_in], a.share(short[query_in]), b.share(short[query_in]))
    beyond = np.where(
        a_short[query], b.expected_in_top(in_short, row_starts, depth), a.expected_in_top(in_short, row_starts, depth)
    )
    x = np.where(depth <= short[query], x, beyond)
    x_short = np.where(short > 0, x[starts + np.maximum(short - 1, 0)], 0.0)
    x_long = np.where(long > 0, x[starts + np.maximum(long - 1, 0)], 0.0)
    weight = np.where(depth <= long[query], (1.0 - p) * p ** (depth - 1.0), 0.0)
    past = depth > short[query]
    terms = weight * x / depth + np.where(
        past, weight * x_short[query] * (1.0 / np.maximum(short[query], 1) - 1.0 / depth), 0.0
    )
    rbo = ranking.query_sum(terms)
    rbo += ((x_long - x_short) / np.maximum(long, 1) + x_short / np.maximum(short, 1)) * p ** long.astype(np.float64)
    return np.where(short > 0, rbo, np.where(long > 0, 0.0, 1.0))
