"""Cascade metrics: reciprocal rank and expected reciprocal rank (ERR).

A user reads down the ranking and stops at a document with probability R, its
stop probability (1 for a relevant document in reciprocal rank). The metrics
are sums of stop probabilities divided by the rank.
"""

import numpy as np

from .._core._array_api import array_api_support
from .._core._docs import fill_doc
from .._core._inputs import evaluate
from .._core._numpy_ops import segment_accumulate, segment_rows
from .._core._validation import check_real
from ._dcg import MAX_EXPONENTIAL_LABEL, of_labels
from ._precision import relevance
from ._tie_expectations import DEVICE_BLOCK, padded_block_stops, tied_reciprocal_stops


def expected_first_reciprocal_rank(first, sizes, n_relevant, k=None):
    """Mean over the orderings of each tie block of 1 / rank of its first relevant row (0 past rank k).

    A block of m rows holding r relevant ones, from 0-based position a: its
    first relevant row is at the block's place j with probability
    ``P_j = C(m - 1 - j, r - 1) / C(m, r) = (r / m) prod_{i<j} (m - r - i) / (m - 1 - i)``,
    for j = 0 .. m - r. The sum of ``P_j / (a + j + 1)`` over those places
    within the cutoff has at most min(m - r + 1, k - a) terms, evaluated for
    all blocks at once with one segmented product: time near-linear in the rows.
    """
    n_relevant = n_relevant.astype(np.int64)
    places = sizes - n_relevant + 1
    if k is not None:
        places = np.minimum(places, k - first)
    _, block_starts, j = segment_rows(np.zeros_like(places), places)
    m, r = np.repeat(sizes, places).astype(np.float64), np.repeat(n_relevant, places).astype(np.float64)
    # Factor j (j >= 1) of the product is (m - r - j + 1) / (m - j); P_0 = r / m.
    factors = np.where(j == 0, r / m, (m - r - j + 1.0) / (m - j))
    probability = segment_accumulate(np.multiply, factors, block_starts, places)
    return np.add.reduceat(probability / (np.repeat(first, places) + j + 1.0), block_starts)


def _reciprocal_rank(ranking, *, k=None, relevance_threshold=1):
    ops, xp = ranking.ops, ranking.xp
    k = ranking.cutoff(k)
    relevant_rows = relevance(ranking, relevance_threshold)
    relevant, n_relevant, in_block = relevant_rows
    limit = ranking.longest if k is None else k
    if not ranking.has_ties:
        # The first relevant row at or after each query's start: the query's own where it has one.
        found = (n_relevant if ranking.retrieved is None else ranking.query_count(relevant)) > 0
        first = xp.maximum(ops.first_true_from(relevant, ranking.query_starts) - ranking.query_starts, 0)
        return xp.where(found & (first < limit), 1.0 / (ops.as_float(first) + 1.0), 0.0), n_relevant > 0
    # The first block that holds a relevant document decides (at most one per query): numpy computes
    # its expectation over the deciding blocks alone, other namespaces along the rows in place.
    deciding = (in_block > 0) & (ranking.relevant_above(relevant_rows) == 0) & (ranking.block_first < limit)
    if not ops.compacts:
        return expected_first_reciprocal_rank_in_place(ranking, deciding, in_block, k), n_relevant > 0
    query, first, sizes, relevant_in_block = ranking.marked_blocks(
        deciding, ranking.block_first, ranking.block_sizes, in_block
    )
    first, sizes = first.astype(np.int64), sizes.astype(np.int64)
    value = 1.0 / (first + 1.0)
    tied = sizes > 1
    if tied.any():
        value[tied] = expected_first_reciprocal_rank(first[tied], sizes[tied], relevant_in_block[tied], k)
    reciprocal_rank = np.zeros(ranking.n_queries)
    reciprocal_rank[query] = value
    return ops.asarray(reciprocal_rank), n_relevant > 0


def expected_first_reciprocal_rank_in_place(ranking, deciding, in_block, k):
    """:func:`expected_first_reciprocal_rank` of each query's ``deciding`` block, along the query's rows.

    For namespaces that keep subsets whole: the block's place j is its j-th
    row, so ``P_j`` is a running product along each query's top ``k`` rows
    (the rows outside the block's first m - r + 1 factor 1 and weigh 0), and
    the expectation a sum over them. Nothing leaves the device.
    """
    ops, xp = ranking.ops, ranking.xp
    starts, positions, block, m, j, in_deciding = ranking.top_in_blocks(k, deciding)
    r = ops.take(in_block, block)
    place = in_deciding & (j <= m - r)
    # Factor j (j >= 1) of the product is (m - r - j + 1) / (m - j); P_0 = r / m.
    factors = xp.where(place, xp.where(j == 0.0, r / m, (m - r - j + 1.0) / (m - j)), 1.0)
    probability = ops.segment_exclusive_cumprod(factors, starts, within=k) * factors
    return ops.segment_sum(xp.where(place, probability / (ops.as_float(positions) + 1.0), 0.0), starts, within=k)


def _expected_reciprocal_rank(ranking, *, k=None, max_grade=None):
    ops, xp = ranking.ops, ranking.xp
    k = ranking.cutoff(k)
    labels = ranking.labels
    top = ranking.top_label
    if max_grade is None:
        max_grade = top
    else:
        max_grade = check_real("max_grade", max_grade, low=0)
        if top > max_grade:
            raise ValueError(
                f"y_true has a label of {top:g}, above max_grade={max_grade:g}; pass the largest "
                "possible grade of the labelling scale (or None to use the largest label given)."
            )
    if max_grade > MAX_EXPONENTIAL_LABEL:
        raise ValueError(
            f"ERR computes 2**label, which overflows float64 for labels above {MAX_EXPONENTIAL_LABEL}; "
            f"got max_grade={max_grade:g}. Rescale the labels."
        )
    scale = float(np.exp2(max_grade))

    def stop(rows):  # (2**g - 1) / 2**max_grade, only for the rows that can matter
        return of_labels(lambda grade: (ops.exp2(grade) - 1.0) / scale, ops.take(labels, rows), ops)

    if not ranking.has_ties:
        rows, starts, positions = ranking.top(k)
        # The places past a query's end (with whole subsets, see Ranking.top) lie past the cutoff: no stop.
        stops = xp.where(positions < (k or ranking.longest), stop(rows), 0.0)
        contribution = ops.segment_exclusive_cumprod(1.0 - stops, starts) * stops / (ops.as_float(positions) + 1.0)
        return ops.segment_sum(contribution, starts), ranking.has_relevant()
    if not ops.compacts:
        return expected_reciprocal_rank_of_blocks(ranking, stop(None), k), ranking.has_relevant()
    # The blocks that start above rank k (a prefix of each query's), each reached with the product of
    # the go-on probabilities of the blocks above it; a tie block gives its expected value.
    blocks, rows, offsets, first_blocks = ranking.blocks_above(k or ranking.n_rows)
    stops = stop(rows)
    go_on = 1.0 - stops
    # Only the blocks above k count: at most the first k of a query.
    reach = ops.segment_exclusive_cumprod(ops.segment_prod(go_on, offsets), first_blocks, within=k)
    sizes, first = ops.take(ranking.block_sizes, blocks), ops.take(ranking.block_first, blocks)
    # Only the blocks above k count (all of them, unless subsets are kept whole: see Ranking.blocks_above).
    above = first < (k or ranking.n_rows)
    value = xp.where(above, ops.take(stops, offsets) / (ops.as_float(first) + 1.0), 0.0)
    tied = (sizes > 1) & above
    n_tied, n_tied_rows = ops.read(xp.sum(ops.astype(tied, xp.int64)), xp.sum(xp.where(tied, sizes, 0)))
    if n_tied:
        tied_stops = tied_block_stops(ops, go_on, offsets, sizes, first, tied, k, int(n_tied), int(n_tied_rows))
        value = xp.where(tied, tied_stops, value)
    return ops.segment_sum(reach * value, first_blocks, within=k), ranking.has_relevant()


def expected_reciprocal_rank_of_blocks(ranking, stops, k):
    """ERR@k of each query with ties averaged, from its blocks above rank ``k`` taken out, for namespaces that
    keep subsets whole.

    One read gives the number of those blocks (at most ``k`` per query, in
    order) and the longest, up to DEVICE_BLOCK rows. Their rows' go-on
    probabilities fill a zero-padded matrix, one column per block, from which
    each block's expected stop over its places (:func:`padded_block_stops`)
    and its product come at once; a single row's value is its own stop, as on
    numpy's path. Blocks of more rows, rare, take numpy's routes on the host.
    Each block is then reached with the product of the blocks above it in its
    query, and the blocks of a query add up
    (:meth:`~sklearn_rankmetrics._core._namespace_ops.ArrayApiOps.segment_sum_after_products`).
    """
    ops, xp = ranking.ops, ranking.xp
    go_on = 1.0 - stops
    block_starts, sizes, first = ranking.block_starts, ranking.block_sizes, ranking.block_first
    n_blocks = block_starts.shape[0]
    above = first < (k or ranking.n_rows)
    # The blocks above k before each block, from 0: the taken blocks' places, and their number at the end.
    running = ops.running_count(ops.concat((ops.constant(False, ops.bool), above)))
    facts = [running[-1], xp.max(xp.where(above, xp.minimum(sizes, DEVICE_BLOCK), 0))]
    large = above & (sizes > DEVICE_BLOCK) if ranking.longest_block > DEVICE_BLOCK else None
    if large is not None:
        facts += [xp.sum(ops.astype(large, xp.int64)), xp.sum(xp.where(large, sizes, 0))]
    n_taken, longest, *n_large = (int(value) for value in ops.read(*facts))
    blocks = xp.searchsorted(running[1:], ops.arange(1, n_taken + 1))
    # Each query's taken blocks, in order: where they start among them, then their number.
    query_block_layout = ops.layout(ranking.query_block_starts, n_blocks)
    bounds = xp.take(running, query_block_layout.bounds)
    most = query_block_layout.longest if k is None else min(k, query_block_layout.longest)
    starts = ops.register(bounds[:-1], n_taken, most, bounds=bounds)
    block_sizes, offsets, block_first = (xp.take(values, blocks) for values in (sizes, block_starts, first))
    places = ops.arange(longest)[:, None]
    inside = places < block_sizes[None, :]
    gathered = xp.take(go_on, xp.reshape(xp.where(inside, offsets[None, :] + places, 0), (-1,)))
    gathered = xp.reshape(gathered, inside.shape)
    counted = block_sizes if not n_large or not n_large[0] else xp.minimum(block_sizes, longest)
    value = padded_block_stops(ops, xp.where(inside, gathered, 0.0), counted, block_first, k)
    product = xp.prod(xp.where(inside, gathered, 1.0), axis=0)
    value = xp.where(block_sizes == 1, xp.take(stops, offsets) / (ops.as_float(block_first) + 1.0), value)
    if n_large and n_large[0]:
        found = tied_block_stops(
            ops, go_on, block_starts, sizes, first, large, k, n_large[0], n_large[1], with_products=True
        )
        in_large = xp.take(large, blocks)
        value = xp.where(in_large, xp.take(found[0], blocks), value)
        product = xp.where(in_large, xp.take(found[1], blocks), product)
    return ops.segment_sum_after_products(value, product, starts, within=k)


def tied_block_stops(ops, go_on, offsets, sizes, first, tied, k, n_tied, n_tied_rows, *, with_products=False):
    """:func:`tied_reciprocal_stops` of the ``tied`` blocks, on the host, spread back over all the blocks.

    Their exact expectations are numpy code: only the rows of the ``n_tied``
    tied blocks (``n_tied_rows`` in all) travel to the host, in one copy, and
    the results come back in ``ops``'s namespace, each at its block (the
    other blocks get 0). ``with_products``: also each block's product of
    ``go_on``.
    """
    xp = ops.xp
    blocks = ops.flatnonzero(tied, count=n_tied)
    tied_offsets, tied_sizes = ops.take(offsets, blocks), ops.take(sizes, blocks)
    if ops.compacts:
        rows = segment_rows(tied_offsets, tied_sizes, ops)[0]
    else:  # every row is in a block: those of the tied blocks, found by their count
        in_tied = xp.take(tied, ops.segment_of(offsets, go_on.shape[0]))
        rows = ops.flatnonzero(in_tied, count=n_tied_rows)
    tied_first = ops.as_float(ops.take(first, blocks))
    copied = ops.to_host(ops.concat((ops.take(go_on, rows), ops.as_float(tied_sizes), tied_first)))
    host_go_on, host_sizes, host_first = np.split(copied, [n_tied_rows, n_tied_rows + n_tied])
    host_sizes, host_first = host_sizes.astype(np.int64), host_first.astype(np.int64)
    host_starts = np.cumsum(host_sizes) - host_sizes
    columns = [tied_reciprocal_stops(host_go_on, host_starts, host_sizes, host_first, k)]
    if with_products:
        columns.append(np.multiply.reduceat(host_go_on, host_starts))
    found = ops.asarray(np.concatenate((np.zeros((1, len(columns))), np.stack(columns, axis=1))))
    # Block b takes the values of the tied block it is (its rank among them, from 1), the others the 0s in front.
    spread = xp.take(found, xp.where(tied, ops.cumsum(ops.astype(tied, xp.int64)), 0), axis=0)
    return (spread[:, 0], spread[:, 1]) if with_products else spread[:, 0]


@array_api_support(in_namespace=True)
@fill_doc
def mean_reciprocal_rank_score(
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
    r"""Mean reciprocal rank (MRR@k): one over the rank of the first relevant document.

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
        (M)RR@k, in [0, 1].

    See Also
    --------
    expected_reciprocal_rank_score : The graded cascade generalisation.

    Notes
    -----
    .. math:: \mathrm{RR@k} = 1 / \mathrm{rank}_1 \ \text{if}\ \mathrm{rank}_1 \leq k,\ \text{else}\ 0

    where :math:`\mathrm{rank}_1` is the 1-based rank of the first relevant
    document, as trec_eval's ``recip_rank`` (which has no cutoff). A query
    without a relevant document scores ``zero_division``. With ties averaged,
    the value is the exact mean over all orderings of the ties: in a block of
    m documents holding r relevant ones, the first relevant document is at the
    block's j-th place (j = 0, 1, ...) with probability
    :math:`\binom{m-1-j}{r-1}/\binom{m}{r}`, a running product over j, so the
    cost is near-linear in the rows whatever the size of the tie blocks.

    Examples
    --------
    >>> from sklearn_rankmetrics import mean_reciprocal_rank_score
    >>> mean_reciprocal_rank_score([0, 0, 1, 1, 0, 0], [3, 2, 1, 3, 2, 1], qid=[1, 1, 1, 2, 2, 2])
    0.6666666666666666
    >>> round(mean_reciprocal_rank_score([0, 1], [1, 1]), 4)  # the tie is averaged: (1 + 1/2) / 2
    0.75
    """
    return evaluate(
        _reciprocal_rank,
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
def expected_reciprocal_rank_score(
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
    r"""Expected reciprocal rank (ERR@k) of graded rankings (Chapelle et al. 2009).

    Parameters
    ----------
    %(y_true_y_score)s
    %(qid)s
    %(k)s
    max_grade : float, default=None
        The top grade of the labelling scale, :math:`g_{\max}` below. None uses
        the largest label in ``y_true`` of this call. Pass it explicitly when
        comparing scores across calls, such as cross-validation folds: a fold
        whose best document happens to be a 3 on a 0-4 scale would otherwise
        treat 3 as perfect, and fold scores would be on different scales.
    %(ties)s
    %(sample_weight)s
    %(average)s
    %(zero_division)s

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        ERR@k, in [0, 1].

    See Also
    --------
    mean_reciprocal_rank_score : The binary special case.

    Notes
    -----
    .. math:: \mathrm{ERR@k} = \sum_{i=1}^{\min(k, n)} \frac{1}{i}\, R_i
              \prod_{j<i} (1 - R_j),
              \qquad R = \frac{2^{\mathrm{rel}} - 1}{2^{g_{\max}}}

    A query whose labels are all 0 scores ``zero_division``. With ties
    averaged, the value is the exact mean over all orderings of each tie
    block, computed from the elementary symmetric means of :math:`1 - R`
    over the block (no sampling). A small block costs its rows times its
    ranks within k. A large one goes through its rows with :math:`R > 0`:
    the user stops at the J-th of them with a probability given by their
    symmetric means alone, at a place :math:`P_J` that follows a negative
    hypergeometric law; the sum over J stops once Maclaurin's bound on what
    is left falls below 1e-16 of the result (a depth of about 40 / mean(R)).
    :math:`E[1/\mathrm{rank}]` of every :math:`P_J` comes from one of them
    through an exact recurrence between consecutive laws, run in the direction
    in which rounding shrinks; the symmetric means of the stopping rows are
    multiplied or merged label by label (positive terms only). A block costs
    its rows once, plus its depth times its stopping rows outside its most
    frequent label (at most the labels present times the depth squared):
    linear in the rows, with a factor that grows as the stop probabilities
    shrink (``benchmarks/bench_ties.py --shapes`` measures it). The tests
    check the result against exact rational arithmetic to 1e-12 (it agrees
    to about 1e-15). Arrays on a device (under ``array_api_dispatch``) take
    the blocks of up to 64 rows above k there: their symmetric polynomials
    are the coefficients of :math:`\prod (1 + (1 - R) t)`, one step per row
    for all the blocks at once; larger blocks take the routes above on the
    host.

    References
    ----------
    .. [1] O. Chapelle, D. Metzler, Y. Zhang and P. Grinspan, "Expected
       reciprocal rank for graded relevance", CIKM 2009.

    Examples
    --------
    >>> from sklearn_rankmetrics import expected_reciprocal_rank_score
    >>> round(expected_reciprocal_rank_score([2, 1, 0], [0.9, 0.5, 0.1]), 4)
    0.7812
    """
    return evaluate(
        _expected_reciprocal_rank,
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
