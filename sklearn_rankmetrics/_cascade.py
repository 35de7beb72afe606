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


def size_classes(sizes):
    """Indices of the segments in each class of sizes within a factor two, in their order.

    The segments of a class share one zero-padded array, so padding at most
    doubles the work and every pass over them is a contiguous one.
    """
    classes = np.ceil(np.log2(np.maximum(sizes, 1))).astype(np.int64)
    return [np.flatnonzero(classes == size_class) for size_class in np.unique(classes)]


def inclusive_cumprod(values, positions):
    """Product of the values of each row and of the rows above it in its segment (``positions`` 0-based).

    Segments whose lengths are within a factor two of each other are laid out
    as the rows of one zero-padded array, and ``np.cumprod`` runs along them:
    a few passes over the values, whatever the segments' lengths.
    """
    starts = np.flatnonzero(positions == 0)
    sizes = np.diff(np.append(starts, len(values)))
    inclusive = np.empty_like(values)
    for members in size_classes(sizes):
        columns = np.arange(sizes[members].max())
        inside = columns < sizes[members, None]
        rows = (starts[members, None] + columns)[inside]
        padded = np.ones(inside.shape)
        padded[inside] = values[rows]
        inclusive[rows] = np.cumprod(padded, axis=1)[inside]
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
# Probabilities below this are lost to underflow (a float64's smallest normal number is 2.2e-308).
UNDERFLOW = 1e-300


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
    costs its places times that depth. Each law is checked to sum to 1; a
    block where rounding breaks that is computed directly instead.
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
    starts, sizes, first, visible, n1, depth = (a[order] for a in (starts, sizes, first, visible, n1, depth))
    rows, _, _ = segment_rows(starts, sizes)
    means = stopping_symmetric_means(go_on[rows][go_on[rows] < 1.0], n1, depth)
    width = law_support(sizes, n1)
    totals, exact = np.zeros(len(sizes)), np.zeros(len(sizes), dtype=bool)
    # Blocks of supports within a factor two share a padded array (padding holds no probability).
    for members in size_classes(width):  # still deepest first
        totals[members], exact[members] = padded_stopping_sums(
            means[members],
            sizes[members],
            n1[members],
            first[members],
            visible[members],
            depth[members],
            int(width[members].max()),
        )
    if exact.any():
        totals[exact] = small_block_stops(go_on, starts[exact], sizes[exact], first[exact], visible[exact])
    stops = np.empty_like(totals)
    stops[order] = totals
    return stops


def law_support(sizes, n1):
    """How many leading places of each block can hold probability of some P_J in floating point.

    P_J's law at a place is P_1's times ratios (see :func:`padded_stopping_sums`),
    so past the place where P_1's law underflows every P_J has none, except at
    their last possible places, m - n1 + J, whose probability is
    ``C(m - n1 + J - 1, J - 1) / C(m, n1)``: where the J = 1 term of that does
    not underflow, the whole block is kept. P_1's law is at most
    ``(n1 / m) rho**(p - 1)`` with ``rho = (m - n1) / (m - 1)``.
    """
    m, k = sizes.astype(np.float64), n1.astype(np.float64)
    last = np.exp(-(gammaln(m + 1.0) - gammaln(k + 1.0) - gammaln(m - k + 1.0)))
    with np.errstate(divide="ignore", invalid="ignore"):
        reach = 2.0 + np.log(UNDERFLOW * m / np.maximum(k, 1.0)) / np.log((m - k) / np.maximum(m - 1.0, 1.0))
    reach = np.where(np.isfinite(reach), reach, m)
    return np.where(last > 0, sizes, np.clip(np.ceil(reach), 1, sizes)).astype(np.int64)


def padded_stopping_sums(means, sizes, n1, first, visible, depth, width):
    """The sums of :func:`stopping_row_stops` for blocks sorted by decreasing depth, one row of places each.

    Returns the sums and whether a block's laws failed to sum to 1.
    """
    m, k = sizes[:, None].astype(np.float64), n1[:, None].astype(np.float64)
    p = np.arange(1.0, width + 1.0)
    # Law of P_1: (n1 / m) prod_{q < p} (m - n1 - q + 1) / (m - q), a running product along each row.
    law = np.empty((len(sizes), width))
    law[:, 0] = k[:, 0] / m[:, 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        law[:, 1:] = np.where(p[:-1] < m, np.clip((m - k - p[:-1] + 1.0) / (m - p[:-1]), 0.0, None), 0.0)
    np.cumprod(law, axis=1, out=law)
    weight = np.where(p <= visible[:, None], 1.0 / (first[:, None] + p), 0.0)
    room = m - k + 1.0 - p  # P_J's last place is m - n1 + J: place p holds mass while room + J > 0
    scratch = np.empty_like(law)
    last = np.exp(-(gammaln(sizes + 1.0) - gammaln(n1 + 1.0) - gammaln(sizes - n1 + 1.0)))
    whole = width >= sizes
    totals, inexact = np.zeros(len(sizes)), np.zeros(len(sizes), dtype=bool)
    for j in range(1, int(depth.max(initial=0)) + 1):
        a = np.count_nonzero(depth >= j)
        active = law[:a]
        # A law that lost mass to rounding or underflow passes the loss on to the laws after it, so each
        # block checks its first law and its last (the blocks whose depth is j end the active prefix).
        checked = slice(0 if j == 1 else np.count_nonzero(depth > j), a)
        inexact[checked] |= np.abs(law[checked].sum(axis=1) - 1.0) > 1e-12  # computed directly instead
        totals[:a] += (means[:a, j - 1] - means[:a, j]) * np.einsum("ij,ij->i", active, weight[:a])
        # From the law of P_j to that of P_{j+1}: C(p-1, j) C(m-p, n1-j-1) over C(p-1, j-1) C(m-p, n1-j),
        # zero at places p <= j; past P_j's last place the law is already 0 (the maximum avoids 0 / 0).
        active *= np.maximum(p - j, 0.0)
        active *= (k[:a] - j) / j
        np.maximum(np.add(room[:a], j, out=scratch[:a]), 1.0, out=scratch[:a])
        active /= scratch[:a]
        # P_{j+1}'s new last place, where P_j had no mass.
        last[:a] *= (sizes[:a] - n1[:a] + j) / j
        grows = np.flatnonzero((j < n1[:a]) & whole[:a])
        active[grows, sizes[grows] - n1[grows] + j] = last[grows]
    return totals, inexact


def stopping_symmetric_means(values, counts, depths):
    """Per block, the symmetric means of its stopping rows' ``values`` of degrees 0 .. its depth.

    The values are few distinct ones (one per label), so a block whose rows
    outnumber its distinct values times its depth is merged value by value
    (:func:`symmetric_means_of_multisets`, cost independent of its rows); the
    others add one row at a time (:func:`symmetric_means_of_blocks`). Columns
    past a block's own depth hold zeros or deeper means: nothing reads them.
    """
    distinct, which = np.unique(values, return_inverse=True)
    merged = len(distinct) * (depths + 1) < counts
    means = np.zeros((len(counts), int(depths.max(initial=0)) + 1))
    if merged.any():
        block = np.repeat(np.arange(len(counts)), counts)
        multiplicities = np.bincount(block * len(distinct) + which, minlength=len(counts) * len(distinct))
        multiplicities = multiplicities.reshape(len(counts), len(distinct))
        found = symmetric_means_of_multisets(multiplicities[merged], distinct, int(depths[merged].max()))
        means[merged, : found.shape[1]] = found
    if (~merged).any():
        kept = np.repeat(~merged, counts)
        found = symmetric_means_of_blocks(values[kept], counts[~merged], depths[~merged])
        means[~merged, : found.shape[1]] = found
    return means


def symmetric_means_of_multisets(multiplicities, distinct, depth):
    """Symmetric means of degrees 0 .. ``depth`` of multisets: ``multiplicities[b, v]`` rows of ``distinct[v]``.

    The distinct values join one at a time. With a rows merged so far and c
    rows of value v joining, a random j-subset of the union holds i of the new
    rows with the hypergeometric probability H_j(i), so
    ``E_j(new) = sum_i H_j(i) v**i E_{j-i}(old)``: positive terms only. H_j
    follows the j draws without replacement one at a time. The cost is the
    distinct values times ``depth**2`` per block, whatever its rows; degrees
    above a block's size are 0.
    """
    means = np.zeros((len(multiplicities), depth + 1))
    means[:, 0] = 1.0  # the empty multiset
    merged = np.zeros((len(multiplicities), 1))
    drawn = np.arange(depth + 1.0)  # i: rows drawn from the joining value so far
    for value, joining in zip(distinct, multiplicities.T[:, :, None].astype(np.float64), strict=True):
        powers = value**drawn
        law = np.zeros_like(means)  # H_j(i), i = 0 .. j
        law[:, 0] = 1.0
        updated = np.zeros_like(means)
        updated[:, 0] = 1.0
        for j in range(1, depth + 1):
            # Draw j: from the rows not drawn yet, old (merged - (j - 1 - i)) or joining (joining - i).
            share = law[:, :j] / np.maximum(merged + joining - (j - 1.0), 1.0)
            from_new = share * np.maximum(joining - drawn[:j], 0.0)
            np.multiply(share, np.maximum(merged - (j - 1.0) + drawn[:j], 0.0), out=law[:, :j])
            law[:, 1 : j + 1] += from_new
            updated[:, j] = np.einsum("bi,i,bi->b", law[:, : j + 1], powers[: j + 1], means[:, j::-1])
        means, merged = updated, merged + joining
    return means


def symmetric_means_of_blocks(values, counts, depths):
    """Per block, the elementary symmetric means of its ``values`` of degrees 0 .. its depth (and past it,
    up to the deepest block of its group).

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
    for members in size_classes(counts):
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
    below 1e-16 of the result, so the cost is the block's places times that
    depth (about 40 / mean(R) of those rows), plus, for the symmetric means,
    the labels present times the depth squared (or the rows times the depth,
    whichever is smaller): near-linear, and within 1e-12 of the exact
    rational value in the tests.

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
