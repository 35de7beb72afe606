"""Cascade metrics: reciprocal rank and expected reciprocal rank (ERR).

A user reads down the ranking and stops at a document with probability R, its
stop probability (1 for a relevant document in reciprocal rank). The metrics
are sums of stop probabilities divided by the rank.
"""

import numpy as np
from scipy.special import gammaln

from ._array_api import array_api_support
from ._dcg import MAX_EXPONENTIAL_LABEL
from ._docs import fill_doc
from ._grouping import evaluate, positions_in_segments, segment_rows
from ._precision import relevance
from ._validation import check_real


def inclusive_cumprod(values, positions):
    """Product of the values of each row and of the rows above it in its segment (``positions`` 0-based).

    A log-depth scan (Hillis & Steele) over all segments at once: in step s
    every row multiplies in the row s places above it when that row is in the
    same segment, which ``positions >= s`` tells.
    """
    inclusive = values.copy()
    step = 1
    while step <= positions.max(initial=0):
        same = positions[step:] >= step
        inclusive[step:][same] *= inclusive[:-step][same]
        step *= 2
    return inclusive


def exclusive_cumprod(values, positions):
    """Product of the values of the rows above each row in its segment (1 for a segment's first row)."""
    exclusive = np.ones_like(values)
    exclusive[1:] = inclusive_cumprod(values, positions)[:-1]
    exclusive[positions == 0] = 1.0
    return exclusive


def symmetric_means(values, starts, sizes, degrees):
    """Elementary symmetric means of the values of each block.

    For block b (rows ``starts[b]`` to ``starts[b] + sizes[b] - 1``) and
    j = 0..``degrees[b]``, the mean over the j-subsets of the block of the
    product of their values: the probability that none of the first j rows of a
    random ordering of the block stops the user. Built by adding one row at a
    time with the convex recurrence
    ``e_j(n) = ((n - j) e_j(n-1) + j v_n e_{j-1}(n-1)) / n``, all blocks at
    once, largest first, so the loop runs once per row of the largest block.

    Returns the flat array of means and the offset of each block's j = 0 entry.
    """
    by_size = np.argsort(-sizes, kind="stable")
    sizes, starts, widths = sizes[by_size], starts[by_size], degrees[by_size] + 1
    ends = np.cumsum(widths)
    means = np.zeros(ends[-1])
    means[ends - widths] = 1.0
    j = positions_in_segments(ends - widths, ends[-1]).astype(np.float64)
    first_row = np.repeat(starts, widths)  # each entry's block's first row
    n_active = np.searchsorted(-sizes, -np.arange(sizes[0] + 1), side="right")
    for n in range(1, sizes[0] + 1):
        end = ends[n_active[n] - 1]
        value = values[first_row[1:end] + n - 1]
        # Entry j takes degree j - 1 from its left neighbour; at j = 0 that
        # neighbour belongs to another block but its coefficient j is 0.
        means[1:end] = ((n - j[1:end]) * means[1:end] + j[1:end] * value * means[: end - 1]) / n
    offsets = np.empty_like(ends)
    offsets[by_size] = ends - widths
    return means, offsets


def tied_reciprocal_stops(go_on, starts, sizes, first, k=None):
    """For each tie block, the expected stop probability over rank inside it, once the block is reached.

    Over the orderings of a block, the user stops at its j-th place with
    probability ``e_j - e_{j+1}``, where ``e_j`` are the symmetric means of the
    continuation probabilities ``go_on`` of its rows: the sum over the places
    within the cutoff of that probability over the rank ``first + j + 1``.
    Small blocks compute that directly; the others take the route of their
    stopping rows (:func:`stopping_row_stops`).
    """
    visible = sizes if k is None else np.minimum(sizes, k - first)
    large = sizes.astype(np.int64) * visible > SMALL_BLOCK
    stops = np.zeros(len(sizes))
    if (~large).any():
        stops[~large] = small_block_stops(go_on, starts[~large], sizes[~large], first[~large], visible[~large])
    if large.any():
        stops[large] = stopping_row_stops(go_on, starts[large], sizes[large], first[large], visible[large])
    return stops


# Blocks whose rows times visible places stay below this are computed directly.
SMALL_BLOCK = 2**12
# What is left of a sum over the stopping rows, relative to its first term, when the sum stops.
NEGLIGIBLE = 1e-16


def small_block_stops(go_on, starts, sizes, first, visible):
    """:func:`tied_reciprocal_stops` of blocks, all at once, in time rows x visible places."""
    means, offsets = symmetric_means(go_on, starts, sizes, visible)
    entry, block_starts, places = segment_rows(offsets, visible)
    terms = (means[entry] - means[entry + 1]) / (np.repeat(first, visible) + places + 1.0)
    return np.add.reduceat(terms, block_starts)


def stopping_row_stops(go_on, starts, sizes, first, visible):
    """:func:`tied_reciprocal_stops` of large blocks, through the rows that can stop the user.

    Rows with ``go_on == 1`` (label 0) never stop the user: they only push the
    others down. Over the orderings of a block of m rows with n1 stopping
    rows, the user stops at the J-th stopping row (in block order) with
    probability ``m'_{J-1} - m'_J``, the symmetric means of the stopping rows
    alone, and that row's place P_J follows the negative hypergeometric law of
    the J-th of n1 marked rows among m. The value is the sum over J of
    ``(m'_{J-1} - m'_J) E[1 / (first + P_J); P_J <= visible]``. By
    Maclaurin's inequality ``m'_J <= mean(go_on)**J``, so the sum stops once
    that bound is NEGLIGIBLE next to the first stop's probability: each block
    costs its rows times that depth. All blocks advance together, deepest
    first. Each law is checked to sum to 1; a block where rounding breaks that
    is computed directly instead.
    """
    # Each block's stopping rows and their mean go-on probability, from running totals over all rows
    # (the mean only bounds the depth, with a place to spare).
    stops_before = np.concatenate(([0], np.cumsum(go_on < 1.0)))
    go_on_before = np.concatenate(([0.0], np.cumsum(np.where(go_on < 1.0, go_on, 0.0))))
    n1 = stops_before[starts + sizes] - stops_before[starts]
    mean = np.clip((go_on_before[starts + sizes] - go_on_before[starts]) / np.maximum(n1, 1), 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = np.ceil(np.log(NEGLIGIBLE * (1.0 - mean)) / np.log(mean)) + 1.0
    bound = np.where(mean == 0.0, 1.0, np.where(mean < 1.0, bound, np.inf))
    depth = np.minimum(np.minimum(n1, visible), bound).astype(np.int64)
    # Blocks in order of decreasing depth: those still summing at depth J are a prefix.
    order = np.argsort(-depth, kind="stable")
    sizes, first, visible, n1, depth = sizes[order], first[order], visible[order], n1[order], depth[order]
    rows, offsets, places = segment_rows(starts[order], sizes)
    stopping = go_on[rows] < 1.0
    means = symmetric_means_of_blocks(go_on[rows][stopping], n1, depth)
    block = np.repeat(np.arange(len(sizes)), sizes)
    m, k1, p = sizes[block].astype(np.float64), n1[block].astype(np.float64), places + 1.0
    # Law of P_1: (n1 / m) prod_{i < p - 1} (m - n1 - i) / (m - 1 - i), a product within each block.
    with np.errstate(divide="ignore", invalid="ignore"):
        step = np.where(p < m, np.clip((m - k1 - p + 1.0) / (m - p), 0.0, None), 0.0)
    law = exclusive_cumprod(step, places) * (k1 / m)
    # P_j's last possible place, m - n1 + j, has probability C(m - n1 + j - 1, j - 1) / C(m, n1).
    last = np.exp(-(gammaln(sizes + 1.0) - gammaln(n1 + 1.0) - gammaln(sizes - n1 + 1.0)))
    # Where the law of P_1 underflowed to 0, every later law stays 0 (each is the one before times a
    # ratio): only the places before need computing, unless the last places carry mass.
    reached = np.maximum.reduceat(np.where(law > 0, p, 0.0), offsets).astype(np.int64)
    window = np.where(last > 0, sizes, reached)
    kept = p <= window[block]
    law, m, k1, p, block = law[kept], m[kept], k1[kept], p[kept], block[kept]
    offsets = np.cumsum(window) - window
    weight = np.where(p <= visible[block], 1.0 / (first[block] + p), 0.0)
    totals = np.zeros(len(sizes))
    exact = np.zeros(len(sizes), dtype=bool)
    for j in range(1, int(depth.max(initial=0)) + 1):
        n_active = np.count_nonzero(depth >= j)
        end = offsets[n_active] if n_active < len(sizes) else len(law)
        sums = np.add.reduceat(law[:end], offsets[:n_active])
        exact[:n_active] |= np.abs(sums - 1.0) > 1e-12  # rounding: computed directly below
        stop_here = means[:n_active, j - 1] - means[:n_active, j]
        totals[:n_active] += stop_here * np.add.reduceat(law[:end] * weight[:end], offsets[:n_active])
        # From the law of P_j to that of P_{j+1}: C(p-1, j) C(m-p, n1-j-1) over C(p-1, j-1) C(m-p, n1-j),
        # except at P_{j+1}'s new last place, where P_j had no mass.
        mj, kj, pj = m[:end], k1[:end], p[:end]
        inside = (pj > j) & (pj < mj - kj + j + 1.0)
        law[:end] *= np.where(inside, (pj - j) * (kj - j), 0.0) / np.where(inside, j * (mj - pj - kj + j + 1.0), 1.0)
        last[:n_active] *= (sizes[:n_active] - n1[:n_active] + j) / j
        grows = np.flatnonzero((j < n1[:n_active]) & (window[:n_active] == sizes[:n_active]))
        law[offsets[grows] + sizes[grows] - n1[grows] + j] = last[grows]
    if exact.any():
        totals[exact] = small_block_stops(go_on, starts[order][exact], sizes[exact], first[exact], visible[exact])
    stops = np.empty_like(totals)
    stops[order] = totals
    return stops


def symmetric_means_of_blocks(values, counts, depths):
    """Per block, the elementary symmetric means of its ``values`` of degrees 0 .. its depth (0 past it).

    ``values`` holds the blocks' values end to end, ``counts[b]`` of block b.
    With E_j(i) the degree-j symmetric polynomial of a block's first i values
    over C(n, j): ``E_j(i) = E_j(i-1) + v_i E_{j-1}(i-1) j / (n - j + 1)``, one
    running sum per degree, no term above 1. Blocks are padded with zeros
    (which change no symmetric polynomial) to the longest of a group of
    blocks within a factor two in length, so the sums stay within each block.
    """
    means = np.zeros((len(counts), int(depths.max(initial=0)) + 1))
    means[:, 0] = 1.0
    starts = np.cumsum(counts) - counts
    groups = np.ceil(np.log2(np.maximum(counts, 1))).astype(np.int64)
    for group in np.unique(groups):
        members = np.flatnonzero(groups == group)
        length = int(counts[members].max(initial=0))
        padded = np.zeros((len(members), length))
        columns = np.arange(length)
        inside = columns < counts[members, None]
        padded[inside] = values[(starts[members, None] + columns)[inside]]
        previous = np.ones((len(members), length + 1))
        n = counts[members].astype(np.float64)
        for j in range(1, int(depths[members].max(initial=0)) + 1):
            current = np.zeros_like(previous)
            np.cumsum(padded * previous[:, :-1], axis=1, out=current[:, 1:])
            factor = np.where(j <= n, j / np.maximum(n - j + 1.0, 1.0), 0.0)
            current *= factor[:, None]
            means[members, j] = current[:, -1]
            previous = current
    return means


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
    probability = inclusive_cumprod(factors, j)
    return np.add.reduceat(probability / (np.repeat(first, places) + j + 1.0), block_starts)


def _reciprocal_rank(ranking, *, k=None, relevance_threshold=1):
    k = ranking.cutoff(k)
    relevant, n_relevant, in_block = relevance(ranking, relevance_threshold)
    limit = ranking.query_sizes.max() if k is None else k
    if not ranking.has_ties:
        # The first relevant row of each query that has one.
        found = (n_relevant if ranking.retrieved is None else ranking.query_count(relevant)) > 0
        relevant_rows = np.flatnonzero(relevant)
        first = relevant_rows[np.searchsorted(relevant_rows, ranking.query_starts[found])] - ranking.query_starts[found]
        reciprocal_rank = np.zeros(ranking.n_queries)
        reciprocal_rank[found] = np.where(first < limit, 1.0 / (first + 1.0), 0.0)
        return reciprocal_rank, n_relevant > 0
    # The first block that holds a relevant document decides.
    deciding = (in_block > 0) & (ranking.before_in_query(in_block) == 0) & (ranking.block_first < limit)
    blocks = np.flatnonzero(deciding)
    first, sizes = ranking.block_first[blocks], ranking.block_sizes[blocks]
    value = 1.0 / (first + 1.0)
    tied = sizes > 1
    if tied.any():
        value[tied] = expected_first_reciprocal_rank(first[tied], sizes[tied], in_block[blocks[tied]], k)
    reciprocal_rank = np.zeros(ranking.n_queries)
    reciprocal_rank[ranking.query_of_block[blocks]] = value
    return reciprocal_rank, n_relevant > 0


def _expected_reciprocal_rank(ranking, *, k=None, max_grade=None):
    k = ranking.cutoff(k)
    labels = ranking.labels
    top = ranking.judged_labels.max()
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

    def stop(rows):  # (2**g - 1) / 2**max_grade, only for the rows that can matter
        return (np.exp2(labels[rows]) - 1.0) / np.exp2(max_grade)

    if not ranking.has_ties:
        rows, starts, positions = ranking.top(k)
    else:
        # The rows of the blocks that start above rank k: a prefix of each query.
        blocks, rows, offsets = ranking.blocks_above(k or ranking.n_rows)
        starts = offsets[np.searchsorted(blocks, ranking.query_block_starts)]
        positions = ranking.positions[rows]
    stops = stop(rows)
    go_on = 1.0 - stops
    reach = exclusive_cumprod(go_on, positions)
    contribution = reach * stops / (positions + 1.0)
    if not ranking.has_ties:
        return np.add.reduceat(contribution, starts), ranking.has_relevant()
    # Rows of tie blocks give way to the block's expected value.
    sizes = ranking.block_sizes[blocks]
    tied = sizes > 1
    contribution[np.repeat(tied, sizes)] = 0.0
    err = np.add.reduceat(contribution, starts)
    if tied.any():
        first = offsets[tied]
        value = reach[first] * tied_reciprocal_stops(go_on, first, sizes[tied], ranking.block_first[blocks[tied]], k)
        err += np.bincount(ranking.query_of_block[blocks[tied]], weights=value, minlength=ranking.n_queries)
    return err, ranking.has_relevant()


@array_api_support
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


@array_api_support
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
    symmetric means alone, at a place that follows a negative hypergeometric
    law; the sum over J stops once Maclaurin's bound on what is left falls
    below 1e-16 of the result, so the cost is the block's rows times that
    depth (about 40 / mean(R) of those rows): near-linear, and within 1e-12
    of the exact rational value in the tests.

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
