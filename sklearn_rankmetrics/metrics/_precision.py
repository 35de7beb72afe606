"""Binary-relevance metrics: precision, recall and R-precision at k, average precision."""

import numpy as np

from .._core._array_api import array_api_support
from .._core._docs import fill_doc
from .._core._inputs import evaluate
from .._core._ranking import ratio
from .._core._validation import check_k, check_option, check_real
from ._dcg import rank_weights

DENOMINATORS = ("relevant", "capped")
# P@k divides by k, or by min(k, the query's retrieved documents) ("capped", XGBoost's pre@k).
PRECISION_DENOMINATORS = ("k", "capped")


def relevance(ranking, threshold):
    """The relevant rows (label >= ``threshold``): mask, and counts per query and per block."""
    return ranking.relevance(check_real("relevance_threshold", threshold, low=0, low_open=True))


def hits(ranking, in_block, cutoff):
    """Expected number of relevant documents above ``cutoff`` (None, a scalar or one per query).

    Over the orderings of a tie block, each of its rows is relevant with the
    block's share ``in_block / size`` of relevant rows: ``in_block`` times the
    share of its places that are visible, an exact count where all are.
    """
    visible = ranking.visible(cutoff)
    # Blocks from rank k on add 0: at most the first k blocks of a query count.
    within = cutoff if isinstance(cutoff, int) else None
    if not ranking.has_ties:
        return ranking.query_total(in_block * visible, within)
    return ranking.query_total(in_block * (visible / ranking.ops.as_float(ranking.block_sizes)), within)


class RelevantRows:
    """The retrieved relevant rows (``relevant`` holds) of every query, in rank order.

    ``query`` and ``ranks`` (1-based) of each, ``precision`` there (i / rank
    for the i-th of its query), and per query their number ``n_found`` and
    where its own start among them (``found_starts``); :meth:`at` finds the
    i-th of each query.

    Where the operations keep subsets whole (:attr:`NumpyOps.compacts`), these
    are every row, with precision 0 on the others.
    """

    def __init__(self, ranking, relevant, n_relevant):
        ops, xp = ranking.ops, ranking.xp
        self.ops, self.ranking = ops, ranking
        self.n_found = n_relevant if ranking.retrieved is None else ranking.query_count(relevant)
        self.found_starts = ops.cumsum(self.n_found) - self.n_found
        if not ops.compacts:
            self.query, self.ranks = ranking.query_of_row, ops.as_float(ranking.positions) + 1.0
            # The rank of each row's relevant document among its query's, by a running count.
            self.running = ops.running_count(relevant)
            found = self.running - ops.take(self.found_starts, self.query)
            self.precision = xp.where(relevant, ops.as_float(found) / self.ranks, 0.0)
            return
        rows = ops.flatnonzero(relevant)
        self.query = ops.repeat(ops.arange(ranking.n_queries), self.n_found)
        found = ops.positions_in_segments(self.found_starts[self.n_found > 0], rows.shape[0])
        self.ranks = ops.as_float(rows - ops.take(ranking.query_starts, self.query)) + 1.0
        self.precision = (ops.as_float(found) + 1.0) / self.ranks

    def at(self, i):
        """Where the ``i``-th (from 1, one column per query row) relevant row of each query lies among these.

        ``i`` past a query's last is clipped to some valid place.
        """
        ops, xp = self.ops, self.ops.xp
        if ops.compacts:
            return xp.minimum(self.found_starts[:, None] + xp.maximum(i, 1) - 1, self.precision.shape[0] - 1)
        # The row where the running count of relevant rows reaches the query's start count plus i.
        wanted = self.found_starts[:, None] + xp.maximum(i, 1)
        found = xp.searchsorted(self.running, xp.reshape(wanted, (-1,)))
        return xp.reshape(xp.minimum(found, self.precision.shape[0] - 1), wanted.shape)


def _precision(ranking, *, k=None, relevance_threshold=1, denominator="k"):
    k = check_k(k)
    denominator = check_option("denominator", denominator, PRECISION_DENOMINATORS)
    _, n_relevant, in_block = relevance(ranking, relevance_threshold)
    per_query = ranking.n_retrieved if k is None else k  # k, even past the end of a query
    if k is not None and denominator == "capped":
        per_query = ranking.xp.minimum(ranking.n_retrieved, k)
    return ratio(hits(ranking, in_block, ranking.cutoff(k)), per_query, ranking.ops)[0], n_relevant > 0


def _hit_rate(ranking, *, k=None, relevance_threshold=1):
    ops, xp = ranking.ops, ranking.xp
    k = ranking.cutoff(k)
    _, n_relevant, in_block = relevance(ranking, relevance_threshold)
    if not ranking.has_ties:
        return ops.as_float(hits(ranking, in_block, k) > 0), n_relevant > 0
    # A relevant document in a block wholly above rank k is a sure hit. Otherwise
    # the top k misses only if the block that straddles rank k (one per query)
    # holds none of its r relevant rows, out of m, in its v visible places:
    # a hypergeometric probability, C(m - r, v) / C(m, v).
    visible, sizes = ranking.visible(k), ops.as_float(ranking.block_sizes)
    seen = (visible > 0) & (in_block > 0)
    straddling = seen & (visible < sizes)
    sure = ops.segment_counts(seen & ~straddling, ranking.query_block_starts)[0] > 0
    if not ops.compacts:  # the straddling blocks' probabilities along the rows, in place
        miss = probability_of_no_hit_in_place(ranking, straddling, in_block, k)
        return 1.0 - xp.where(sure, 0.0, miss), n_relevant > 0
    # The straddling blocks are at most one per query: scipy computes their probabilities on numpy's path.
    query, m, r, v = ranking.marked_blocks(straddling, sizes, in_block, visible)
    from scipy.stats import hypergeom  # imported here: scipy.stats takes a third of a second

    miss = np.ones(ranking.n_queries)
    miss[query] = hypergeom.pmf(0, m, r, v)
    return 1.0 - xp.where(sure, 0.0, ops.asarray(miss)), n_relevant > 0


def probability_of_no_hit_in_place(ranking, straddling, in_block, k):
    """``hypergeom.pmf(0, m, r, v)`` of each query's ``straddling`` block (1 where none), along the query's rows.

    For namespaces that keep subsets whole: C(m - r, v) / C(m, v) is the
    product of (m - r - j) / (m - j) over the block's v visible places j,
    which are its rows in the top ``k``: a product along each query's rows.
    """
    ops, xp = ranking.ops, ranking.xp
    starts, _, block, m, j, visible = ranking.top_in_blocks(k, straddling)
    factors = xp.where(visible, (m - ops.take(in_block, block) - j) / (m - j), 1.0)
    return ops.segment_prod(factors, starts)


def _f1(ranking, *, k=None, relevance_threshold=1):
    k = check_k(k)
    _, n_relevant, in_block = relevance(ranking, relevance_threshold)
    examined = ranking.ops.as_float(ranking.n_retrieved) if k is None else float(k)  # as the denominator of P@k
    # F1 = 2 P R / (P + R) = 2 hits / (k + R): linear in hits, so exact for averaged ties.
    denominator = examined + ranking.ops.as_float(n_relevant)
    return ratio(2.0 * hits(ranking, in_block, ranking.cutoff(k)), denominator, ranking.ops)[0], n_relevant > 0


def _recall(ranking, *, k=None, relevance_threshold=1, denominator="relevant"):
    k = check_k(k)
    denominator = check_option("denominator", denominator, DENOMINATORS)
    _, n_relevant, in_block = relevance(ranking, relevance_threshold)
    found = hits(ranking, in_block, ranking.cutoff(k))
    return ratio(found, capped(n_relevant, k, denominator, ranking.xp), ranking.ops)


def capped(n_relevant, k, denominator, xp):
    """The denominator of recall and AP: R, or min(R, k) for ``"capped"`` (R when k is None)."""
    return n_relevant if denominator == "relevant" or k is None else xp.minimum(n_relevant, k)


def _r_precision(ranking, *, k=None, relevance_threshold=1):
    k = ranking.cutoff(k)
    _, n_relevant, in_block = relevance(ranking, relevance_threshold)
    cutoff = n_relevant if k is None else ranking.xp.minimum(n_relevant, k)
    return ratio(hits(ranking, in_block, cutoff), n_relevant, ranking.ops)


def _average_precision(ranking, *, k=None, relevance_threshold=1, denominator="relevant"):
    ops, xp = ranking.ops, ranking.xp
    denominator = check_option("denominator", denominator, DENOMINATORS)
    normalizer_k, k = check_k(k), ranking.cutoff(k)
    relevant_rows = relevance(ranking, relevance_threshold)
    relevant, n_relevant, in_block = relevant_rows
    if not ranking.has_ties:
        # Only relevant rows add: the i-th of its query, at rank p, adds i / p.
        found = RelevantRows(ranking, relevant, n_relevant)
        terms, ranks, query = found.precision, found.ranks, found.query
        if k is not None:
            terms = xp.where(ranks > k, 0.0, terms)
        sums = ops.group_sum(terms, query, ranking.n_queries)
    else:
        visible = ranking.visible(k)
        harmonic = harmonic_sums(ranking, visible, k)
        # Placed uniformly in a block of m rows holding r relevant ones, at the
        # block's j-th place, a relevant document has on average j (r - 1) / (m - 1)
        # of the block's other relevant documents above it. Over the block's V
        # visible places from rank a + 1, with H the sum of their 1 / rank:
        # sum_j j / (a + 1 + j) = V - (a + 1) H. (Single rows: r = 1 or share 0.)
        # In place where it can be: each fresh temporary of this size costs page faults.
        sizes = ops.as_float(ranking.block_sizes)
        share = in_block / sizes
        spread = in_block - 1.0
        spread /= xp.maximum(sizes - 1.0, 1.0)
        excess = ops.as_float(ranking.block_first)  # ((a + 1) H - V) (r - 1) / (m - 1): subtracted below
        excess += 1.0
        excess *= harmonic
        excess -= visible
        excess *= spread
        # A relevant document's rank in the relevant documents: those of the blocks above, plus itself.
        found = ranking.relevant_above(relevant_rows)
        found += 1.0
        found *= harmonic
        found -= excess
        found *= share
        sums = ranking.query_total(found)
    return ratio(sums, capped(n_relevant, normalizer_k, denominator, xp), ranking.ops)


def harmonic_sums(ranking, visible, k):
    """The sum of 1 / rank over the visible places of each tie block (its ranks a + 1 .. a + ``visible``).

    numpy sums 1 / rank over each block's rows (a lookup in the short table of
    the ranks, 0 past the cutoff ``k``); a namespace looks each block up in
    the table of those sums for every first position a and number of places,
    which is small (the longest query times the longest block), instead of
    reducing over a million short blocks.
    """
    ops, xp = ranking.ops, ranking.xp
    if ops.compacts:
        inverse_rank = ops.take(
            ops.asarray(rank_weights(lambda ranks: 1.0 / ranks, ranking.longest, k)), ranking.positions
        )
        return ranking.per_block(inverse_rank)
    width = min(ranking.longest_block, k or ranking.longest) + 1  # 0 .. the most visible places
    first = ops.as_float(ops.arange(ranking.longest))[:, None]
    ranks = first + ops.as_float(ops.arange(1, width))[None, :]
    table = xp.reshape(xp.cumulative_sum(1.0 / ranks, axis=1, include_initial=True), (-1,))
    return xp.take(table, ranking.block_first * width + ops.astype(visible, xp.int64))


@array_api_support(in_namespace=True)
@fill_doc
def precision_at_k_score(
    y_true,
    y_score,
    *,
    qid=None,
    k=None,
    relevance_threshold=1,
    ties="average",
    sample_weight=None,
    average=True,
    zero_division=0.0,
    denominator="k",
):
    r"""Precision at k: the fraction of the top k documents that are relevant.

    Parameters
    ----------
    %(y_true_y_score)s
    %(qid)s
    %(k)s
    %(relevance_threshold)s
    %(ties)s
    %(sample_weight)s
    %(average)s
    %(zero_division)s
    denominator : {"k", "capped"}, default="k"
        What the relevant documents in the top k are divided by: ``"k"``,
        even when the query retrieved fewer documents (trec_eval's ``P_k``,
        ir_measures, ranx, torchmetrics); ``"capped"``, min(k, the query's
        retrieved documents), as XGBoost 3.2's ``pre@k``. Equal when ``k``
        is None.

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        P@k, in [0, 1].

    See Also
    --------
    recall_at_k_score : Divides by the number of relevant documents instead.
    r_precision_score : Precision at the number of relevant documents.

    Notes
    -----
    .. math:: \mathrm{P@k} = |\{\text{relevant in the top } k\}| / k

    The denominator is ``k`` even when a query has fewer than ``k`` documents,
    as in trec_eval's ``P_k`` (``denominator="capped"``: the fewer); with
    ``k=None`` it is the number of documents the query retrieved. With ties
    averaged, the numerator is the expected count over all orderings of the
    ties.

    Examples
    --------
    >>> from sklearn_rankmetrics import precision_at_k_score
    >>> precision_at_k_score([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6], k=2)
    0.5
    >>> precision_at_k_score([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6], k=10)
    0.2
    """
    return evaluate(
        _precision,
        y_true,
        y_score,
        qid=qid,
        ties=ties,
        sample_weight=sample_weight,
        average=average,
        zero_division=zero_division,
        k=k,
        relevance_threshold=relevance_threshold,
        denominator=denominator,
    )


@array_api_support(in_namespace=True)
@fill_doc
def recall_at_k_score(
    y_true,
    y_score,
    *,
    qid=None,
    k=None,
    relevance_threshold=1,
    ties="average",
    sample_weight=None,
    average=True,
    zero_division=0.0,
    denominator="relevant",
):
    r"""Recall at k: the fraction of a query's relevant documents in its top k.

    Parameters
    ----------
    %(y_true_y_score)s
    %(qid)s
    %(k)s
    %(relevance_threshold)s
    %(ties)s
    %(sample_weight)s
    %(average)s
    %(zero_division)s
    denominator : {"relevant", "capped"}, default="relevant"
        What a query's number of relevant documents in the top k is divided
        by: ``"relevant"``, its number :math:`R` of relevant documents
        (trec_eval's ``recall_k``, ranx, torchmetrics' ``RetrievalRecall``);
        ``"capped"``, :math:`\min(R, k)`, so that a perfect top k scores 1
        even when a query has more than k relevant documents (the recall of
        recommender papers such as Liang et al. 2018 [1]_). Equal when ``k``
        is None. The scorer name is ``"recall@10(denominator='capped')"``.

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        Recall@k, in [0, 1].

    See Also
    --------
    precision_at_k_score : Divides by ``k`` instead.

    Notes
    -----
    .. math:: \mathrm{R@k} = \frac{|\{\text{relevant in the top } k\}|}{D}

    with :math:`D = R` or :math:`\min(R, k)`, where :math:`R` counts every
    relevant document of the query: all its rows with a label >= the
    threshold, including the rows scored ``-inf`` (judged but not
    retrieved). Recall is only as right as :math:`R`: give every judged
    document a row, ``-inf`` for those the system did not return, to get
    trec_eval's ``recall_k``; the retrieved rows alone overstate it. A query
    with :math:`R = 0` scores ``zero_division``.

    References
    ----------
    .. [1] D. Liang, R. G. Krishnan, M. D. Hoffman and T. Jebara,
       "Variational Autoencoders for Collaborative Filtering", WWW 2018
       (Recall@R normalised by :math:`\min(R, |I_u|)`).

    Examples
    --------
    >>> from sklearn_rankmetrics import recall_at_k_score
    >>> round(recall_at_k_score([1, 0, 1, 1], [0.9, 0.8, 0.7, 0.6], k=2), 4)
    0.3333

    Capped, the top 2 can hold at most 2 of the 3 relevant documents:

    >>> recall_at_k_score([1, 0, 1, 1], [0.9, 0.8, 0.7, 0.6], k=2, denominator="capped")
    0.5

    A relevant document the system did not retrieve still counts in R:

    >>> round(recall_at_k_score([1, 0, 1, 1], [0.9, 0.8, 0.7, float("-inf")], k=10), 4)
    0.6667
    """
    return evaluate(
        _recall,
        y_true,
        y_score,
        qid=qid,
        ties=ties,
        sample_weight=sample_weight,
        average=average,
        zero_division=zero_division,
        k=k,
        relevance_threshold=relevance_threshold,
        denominator=denominator,
    )


@array_api_support(in_namespace=True)
@fill_doc
def r_precision_score(
    y_true,
    y_score,
    *,
    qid=None,
    k=None,
    relevance_threshold=1,
    ties="average",
    sample_weight=None,
    average=True,
    zero_division=0.0,
):
    r"""R-precision: precision at rank R, the number of relevant documents of the query.

    Parameters
    ----------
    %(y_true_y_score)s
    %(qid)s
    %(k)s
    %(relevance_threshold)s
    %(ties)s
    %(sample_weight)s
    %(average)s
    %(zero_division)s

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        R-precision, in [0, 1].

    See Also
    --------
    precision_at_k_score : Precision at a fixed rank.

    Notes
    -----
    .. math:: \mathrm{R\text{-}prec} = |\{\text{relevant in the top } R\}| / R

    as trec_eval's ``Rprec``. With ``k``, only the top ``min(R, k)``
    documents are examined and the denominator stays :math:`R`. A query with
    :math:`R = 0` scores ``zero_division``.

    Examples
    --------
    >>> from sklearn_rankmetrics import r_precision_score
    >>> round(r_precision_score([1, 0, 1, 1], [0.9, 0.8, 0.7, 0.6]), 4)
    0.6667
    """
    return evaluate(
        _r_precision,
        y_true,
        y_score,
        qid=qid,
        ties=ties,
        sample_weight=sample_weight,
        average=average,
        zero_division=zero_division,
        k=k,
        relevance_threshold=relevance_threshold,
    )


@array_api_support(in_namespace=True)
@fill_doc
def mean_average_precision_score(
    y_true,
    y_score,
    *,
    qid=None,
    k=None,
    relevance_threshold=1,
    ties="average",
    sample_weight=None,
    average=True,
    zero_division=0.0,
    denominator="relevant",
):
    r"""Mean average precision (MAP@k) of grouped rankings.

    Parameters
    ----------
    %(y_true_y_score)s
    %(qid)s
    %(k)s
    %(relevance_threshold)s
    %(ties)s
    %(sample_weight)s
    %(average)s
    %(zero_division)s
    denominator : {"relevant", "capped"}, default="relevant"
        What a query's sum of precisions is divided by: ``"relevant"``, its
        number :math:`R` of relevant documents (trec_eval, ranx); ``"capped"``,
        :math:`\min(k, R)` (LightGBM, XGBoost, CatBoost). Equal when ``k`` is
        None.

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        (M)AP@k, in [0, 1].

    See Also
    --------
    precision_at_k_score : Precision at a single rank.

    Notes
    -----
    .. math:: \mathrm{AP@k} = \frac{1}{D} \sum_{i \leq k,\ i\ \text{relevant}}
              \mathrm{P@}i

    with :math:`D = R` or :math:`\min(k, R)`. A query with :math:`R = 0`
    scores ``zero_division``. With ties averaged, the value is the exact mean
    of AP over all orderings of each tie block: a relevant document placed
    uniformly at random in a block has, on average, a fixed share of the
    block's other relevant documents above it.

    References
    ----------
    .. [1] F. McSherry and M. Najork, "Computing information retrieval
       performance measures efficiently in the presence of tied scores",
       ECIR 2008.

    Examples
    --------
    Relevance 1, 0, 0, 1, 1, 1 in rank order gives AP = (1 + 2/4 + 3/5 + 4/6) / 4:

    >>> from sklearn_rankmetrics import mean_average_precision_score
    >>> round(mean_average_precision_score([1, 0, 0, 1, 1, 1], [6, 5, 4, 3, 2, 1]), 4)
    0.6917
    """
    return evaluate(
        _average_precision,
        y_true,
        y_score,
        qid=qid,
        ties=ties,
        sample_weight=sample_weight,
        average=average,
        zero_division=zero_division,
        k=k,
        relevance_threshold=relevance_threshold,
        denominator=denominator,
    )


@array_api_support(in_namespace=True)
@fill_doc
def hit_rate_score(
    y_true,
    y_score,
    *,
    qid=None,
    k=None,
    relevance_threshold=1,
    ties="average",
    sample_weight=None,
    average=True,
    zero_division=0.0,
):
    r"""Hit rate at k (success@k): whether the top k hold at least one relevant document.

    Parameters
    ----------
    %(y_true_y_score)s
    %(qid)s
    %(k)s
    %(relevance_threshold)s
    %(ties)s
    %(sample_weight)s
    %(average)s
    %(zero_division)s

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        The share of queries with a hit; per query 1 or 0 (a probability in
        between when ties are averaged).

    See Also
    --------
    mean_reciprocal_rank_score : Also rewards an early first hit.

    Notes
    -----
    trec_eval's ``success_k`` and ir_measures' ``Success@k``; recommender
    libraries call it HitRate@k or HR@k. With ties averaged, a tie block that
    straddles rank k with :math:`v` of its :math:`m` places visible and
    :math:`r` relevant documents misses them all with the hypergeometric
    probability :math:`\binom{m-r}{v} / \binom{m}{v}`. A query without a
    relevant document scores ``zero_division``.

    Examples
    --------
    >>> from sklearn_rankmetrics import hit_rate_score
    >>> hit_rate_score([0, 0, 1, 0, 1, 0], [6, 5, 4, 3, 2, 1], qid=[1, 1, 1, 2, 2, 2], k=2, average=False)
    array([0., 1.])
    """
    return evaluate(
        _hit_rate,
        y_true,
        y_score,
        qid=qid,
        ties=ties,
        sample_weight=sample_weight,
        average=average,
        zero_division=zero_division,
        k=k,
        relevance_threshold=relevance_threshold,
    )


@array_api_support(in_namespace=True)
@fill_doc
def f1_at_k_score(
    y_true,
    y_score,
    *,
    qid=None,
    k=None,
    relevance_threshold=1,
    ties="average",
    sample_weight=None,
    average=True,
    zero_division=0.0,
):
    r"""F1 at k: the harmonic mean of precision at k and recall at k.

    Parameters
    ----------
    %(y_true_y_score)s
    %(qid)s
    %(k)s
    %(relevance_threshold)s
    %(ties)s
    %(sample_weight)s
    %(average)s
    %(zero_division)s

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        F1@k, in [0, 1].

    See Also
    --------
    precision_at_k_score, recall_at_k_score : The two means combined.

    Notes
    -----
    .. math:: \mathrm{F1@k} = \frac{2\, \mathrm{P@k}\, \mathrm{R@k}}{\mathrm{P@k} + \mathrm{R@k}}
              = \frac{2\, |\{\text{relevant in the top } k\}|}{k + R}

    with P@k's denominator ``k`` (the number of retrieved documents when ``k``
    is None: trec_eval's ``set_F``). A query with :math:`R = 0` scores
    ``zero_division``.

    Examples
    --------
    >>> from sklearn_rankmetrics import f1_at_k_score
    >>> f1_at_k_score([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6], k=2)
    0.5
    """
    return evaluate(
        _f1,
        y_true,
        y_score,
        qid=qid,
        ties=ties,
        sample_weight=sample_weight,
        average=average,
        zero_division=zero_division,
        k=k,
        relevance_threshold=relevance_threshold,
    )
