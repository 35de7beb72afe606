"""Exact expectations over the orderings of tied documents, for all tie blocks at once.

A block of tied scores is read in every order with equal chance. The metrics
whose value is not linear in the order (reciprocal rank, ERR, cutoffs that cut
a block, bpref, trec_eval's depth) need the laws of where the block's
documents land: elementary symmetric means, hypergeometric and log-concave
laws, evaluated per block on padded arrays.
"""

import numpy as np

from .._core._numpy_ops import size_classes


def symmetric_means(values, starts, sizes, width):
    """Elementary symmetric means of the values of each block, one row per block, degrees 0 .. width - 1.

    For block b (rows ``starts[b]`` to ``starts[b] + sizes[b] - 1``) and
    degree j, the mean over the j-subsets of the block of the product of
    their values: the probability that none of the first j rows of a random
    ordering of the block stops the user (0 above the block's size). Built by
    adding one row at a time with the convex recurrence
    ``e_j(n) = ((n - j) e_j(n-1) + j v_n e_{j-1}(n-1)) / n``, all blocks at
    once, largest first, so the loop runs once per row of the largest block
    and each step reads one value per block.
    """
    by_size = np.argsort(-sizes, kind="stable")
    j = np.arange(1.0, width)[:, None]
    means = np.empty((len(sizes), width))
    # Chunks of blocks that fit in cache; one row per degree, one column per block, by decreasing size:
    # the blocks still growing are a prefix of the columns.
    for chunk in cache_chunks(by_size, width):
        block_starts, block_sizes = starts[chunk], sizes[chunk]
        chunk_means = np.zeros((width, len(chunk)))
        chunk_means[0] = 1.0
        n_active = np.searchsorted(-block_sizes, -np.arange(block_sizes[0] + 1), side="right")
        for n in range(1, block_sizes[0] + 1):
            active = chunk_means[:, : n_active[n]]
            joining = active[:-1] * values[block_starts[: n_active[n]] + n - 1]
            joining *= j
            active[1:] *= n - j  # whole coefficients, one division: the weights sum to exactly n
            active[1:] += joining
            active[1:] /= n
        means[chunk] = chunk_means.T
    return means


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
    """:func:`tied_reciprocal_stops` of blocks, all at once, in time rows x visible places.

    Blocks of sizes within a factor two share a padded array of means.
    """
    stops = np.empty(len(sizes))
    for members in size_classes(sizes):
        means = symmetric_means(go_on, starts[members], sizes[members], int(visible[members].max()) + 1)
        places = np.arange(means.shape[1] - 1)
        weights = np.where(places < visible[members, None], 1.0 / (first[members, None] + places + 1.0), 0.0)
        stops[members] = np.einsum("ij,ij->i", means[:, :-1] - means[:, 1:], weights)
    return stops


# Tie blocks of up to this many rows take their expectations on a device (:func:`padded_block_stops`: one
# step per row of the longest); the larger ones, rare, take numpy's routes above.
DEVICE_BLOCK = 64


def padded_block_stops(ops, go_on, sizes, first, k=None):
    """:func:`tied_reciprocal_stops` of blocks given as the columns of a zero-padded matrix, in ``ops``'s namespace.

    Column b of ``go_on`` holds the continuation probabilities of block b
    (``sizes[b]`` of them, at most DEVICE_BLOCK), then zeros. The symmetric
    polynomials e_j of a block are the coefficients of ``prod (1 + v t)`` over
    its values, and a padding zero multiplies by 1: one step per row serves
    every block at once. The coefficients are kept up to the most visible
    places, below one leading zero (e_{-1}, e_{-2}, ...) per step still to
    come, so that each step is ``A[1:] + v A[:-1]``: two operations on whole
    rows, with no shape of its own. Positive terms only, none above
    C(DEVICE_BLOCK, 32) < 2**61: the means ``e_j / C(m, j)`` keep their
    precision. The stops then follow as in :func:`small_block_stops`.
    """
    xp = ops.xp
    longest, n_blocks = go_on.shape
    width = (longest if k is None else min(longest, k)) + 1  # degrees 0 .. the most visible places
    start = ops.as_float(ops.arange(longest + width) == longest)  # e_0 = 1 below `longest` leading zeros
    coefficients = xp.broadcast_to(start[:, None], (longest + width, n_blocks))
    for row in range(longest):
        coefficients = coefficients[1:, ...] + go_on[row, ...] * coefficients[:-1, ...]
    m, degree = ops.as_float(sizes), ops.as_float(ops.arange(1, width))[:, None]
    binomials = xp.cumulative_prod(xp.maximum(m - degree + 1.0, 0.0) / degree, axis=0)  # C(m, j), 0 past m
    binomials = xp.concat((ops.ones((1, n_blocks)), binomials))
    means = coefficients / xp.where(binomials > 0.0, binomials, 1.0)  # e_j = 0 past m too
    place, first = degree - 1.0, ops.as_float(first)
    visible = m if k is None else xp.minimum(m, k - first)
    weights = xp.where(place < visible, 1.0 / (first + place + 1.0), 0.0)
    return xp.sum((means[:-1, ...] - means[1:, ...]) * weights, axis=0)


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
    that bound is NEGLIGIBLE next to the first stop's probability.
    """
    # Each block's stopping rows, counted with running totals over the rows (blocks are runs of rows), and
    # their mean go-on probability (which only bounds the depth, with a place to spare).
    stopping = (go_on < 1.0) & runs_mask(starts, sizes, len(go_on))
    n1 = run_totals(stopping, starts, sizes)
    mean = np.clip(run_totals(np.where(stopping, go_on, 0.0), starts, sizes) / np.maximum(n1, 1), 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = np.ceil(np.log(NEGLIGIBLE * (1.0 - mean)) / np.log(mean)) + 1.0
    bound = np.where(mean == 0.0, 1.0, np.where(mean < 1.0, bound, np.inf))
    depth = np.minimum(np.minimum(n1, visible), bound).astype(np.int64)
    stops = np.zeros(len(sizes))
    some = np.flatnonzero(depth > 0)  # a block without a stopping row in view adds nothing (none in `stopping`)
    values = go_on[stopping]
    # Blocks of depths within a factor two share padded arrays of means and places.
    for members in (some[group] for group in size_classes(depth[some])):
        in_group = np.zeros(len(sizes), dtype=bool)
        in_group[members] = True
        means = stopping_symmetric_means(values[np.repeat(in_group, n1)], n1[members], depth[members])
        places = expected_reciprocal_places(
            sizes[members], n1[members], first[members], visible[members], depth[members]
        )
        in_depth = np.arange(1, means.shape[1]) <= depth[members, None]
        stops[members] = np.sum(np.where(in_depth, (means[:, :-1] - means[:, 1:]) * places[:, 1:], 0.0), axis=1)
    return stops


def runs_mask(starts, sizes, n_rows):
    """Which of ``n_rows`` rows lie in the runs ``starts[i] .. starts[i] + sizes[i] - 1`` (disjoint, in order)."""
    if len(starts) == 1 and sizes[0] == n_rows:
        return np.ones(n_rows, dtype=bool)
    steps = np.zeros(n_rows + 1, dtype=np.int8)
    steps[starts] += 1
    steps[starts + sizes] -= 1
    return np.cumsum(steps[:-1], dtype=np.int8).astype(bool)


def run_totals(values, starts, sizes):
    """The sum of ``values`` over each run of rows (disjoint runs, in order), from one running total."""
    running = np.cumsum(values)
    return running[starts + sizes - 1] - running[starts] + values[starts]


def expected_reciprocal_places(sizes, n1, first, visible, depth):
    """``u[b, J] = E[1 / (first + P_J); P_J <= visible]`` for J = 1 .. depth[b] (column 0 unused).

    P_J is the place of the J-th of n1 marked rows among m in a random order.
    Its law satisfies, at every place p, with ``A_J = m - n1 + J + 1 + first``,
    ``J (A_J - (first + p)) P(P_{J+1} = p) = (n1 - J) ((first + p) - (first + J)) P(P_J = p)``;
    dividing by ``first + p`` and summing over the visible places gives
    ``J A_J u_{J+1} - J F_{J+1} = (n1 - J) F_J - (n1 - J)(first + J) u_J``,
    with ``F_J = P(P_J <= visible)``. That recurrence carries an error in u_J
    to u_{J+1} times ``a_J = (n1 - J)(first + J) / (J A_J)``, which falls with
    J: it runs forward where ``a_J <= 1`` and backward where not, from one
    u computed from its law (:func:`place_laws`), so rounding never grows.
    The cost is the block's places once, plus its depth.
    """
    width = int(depth.max()) + 1
    m, k, f = sizes.astype(np.float64), n1.astype(np.float64), first.astype(np.float64)
    # The anchor: the first J with a_J <= 1, the larger root of 2 J**2 - b J - n1 first = 0 (the last J in
    # depth when it lies deeper).
    b = 2.0 * k - 2.0 * f - m - 1.0
    anchor = np.clip(np.ceil((b + np.sqrt(b * b + 8.0 * k * f)) / 4.0), 1, depth).astype(np.int64)
    places = np.zeros((len(sizes), width))
    for members, place, law in place_laws(sizes, n1, anchor):
        seen = np.where(place <= visible[members, None], 1.0 / (first[members, None] + place), 0.0)
        places[members, anchor[members]] = np.einsum("ij,ij->i", law, seen)
    # Both directions as x_s = c_s + r_s x_{s-1}, one row per step s and one column per block.
    cut = cutoff_probabilities(sizes, n1, visible, width)
    blocks = np.arange(len(sizes))
    for forward, n_steps in ((True, (depth - anchor).max()), (False, (anchor - 1).max())):
        s = np.arange(1, n_steps + 1)[:, None]
        source = anchor + s - 1 if forward else anchor - s  # the J of the step's coefficients
        target = source + 1 if forward else source
        valid = (target >= 1) & (target <= depth)
        j = np.where(valid, source, 1)
        if cut is None:  # F_J = F_{J+1} = 1 at every J of a step (J < n1)
            given = k
        else:
            at = blocks * (width + 1) + j
            given = (k - j) * cut.ravel()[at] + j * cut.ravel()[at + 1]  # (n1 - J) F_J + J F_{J+1}
        with np.errstate(divide="ignore", invalid="ignore"):
            later, earlier = j * (m - k + j + 1.0 + f), (k - j) * (f + j)  # J A_J and (n1 - J)(first + J)
            constant = np.where(valid, given / (later if forward else earlier), 0.0)
            ratio = np.where(valid, -(earlier / later if forward else later / earlier), 0.0)
        values = np.empty_like(constant)
        value = places[blocks, anchor]
        for step in range(n_steps):
            value = values[step] = constant[step] + ratio[step] * value
        places[np.nonzero(valid)[1], target[valid]] = values[valid]
    return places


def cutoff_probabilities(sizes, n1, visible, width):
    """``F[b, J] = P(P_J <= visible)`` for J = 0 .. width: at least J marked rows among the first visible places.

    That count follows the hypergeometric law; each upper tail is summed from
    the top count down, the smallest terms first. None when the cutoff stops
    none of the first ``width`` marked rows of any block (F = 1 up to n1).
    """
    # Blocks whose cutoff stops none of the first `width` marked rows keep F = 1 up to n1.
    shown = np.flatnonzero(visible < sizes - n1 + np.minimum(n1, width))
    if not len(shown):
        return None
    j = np.arange(width + 1)
    cut = (j <= n1[:, None]).astype(np.float64)
    for members, count, law in hypergeometric_laws(sizes[shown], n1[shown], visible[shown]):
        tails = np.cumsum(law[:, ::-1], axis=1)[:, ::-1]  # the padding (law 0) comes first: it adds nothing
        past = j - count[:, :1]  # J's column; past the last one, F = 0 (padding holds 0 too)
        at = np.clip(past, 0, law.shape[1] - 1)
        cut[shown[members]] = np.where(
            past < 0, 1.0, np.where(past < law.shape[1], np.take_along_axis(tails, at, 1), 0.0)
        )
    return cut


def place_laws(sizes, n1, j):
    """:func:`log_concave_laws` of P_J, the place (1-based) of the J-th of n1 marked rows among m.

    Its support is p = J .. m - n1 + J and
    ``P(P_J = p + 1) / P(P_J = p) = p (m - p - n1 + J) / ((p - J + 1) (m - p))``:
    it rises while ``p (n1 - 1) <= m (J - 1)``.
    """
    m, k = sizes.astype(np.float64), n1.astype(np.float64)
    mode = np.where(n1 > 1, np.floor(m * (j - 1) / np.maximum(k - 1.0, 1.0)) + 1.0, j)

    def ratio(block, p):
        return p * (m[block] - p - k[block] + j[block]) / ((p - j[block] + 1.0) * (m[block] - p))

    return log_concave_laws(j, sizes - n1 + j, mode.astype(np.int64), ratio)


def hypergeometric_laws(population, marked, draws, *, together=False):
    """:func:`log_concave_laws` of the marked rows among ``draws`` drawn without replacement.

    Its support is max(0, draws - unmarked) .. min(marked, draws) and
    ``P(x + 1) / P(x) = (marked - x)(draws - x) / ((x + 1)(unmarked - draws + x + 1))``.
    """
    n, k, d = population.astype(np.float64), marked.astype(np.float64), draws.astype(np.float64)
    low, high = np.maximum(0, draws - (population - marked)), np.minimum(marked, draws)
    mode = np.floor((d + 1.0) * (k + 1.0) / (n + 2.0)).astype(np.int64)

    def ratio(block, x):
        return (k[block] - x) * (d[block] - x) / ((x + 1.0) * (n[block] - k[block] - d[block] + x + 1.0))

    return log_concave_laws(low, high, mode, ratio, together=together)


def log_concave_laws(low, high, mode, ratio, *, together=False):
    """Per segment, a log-concave law over the integers low .. high (at least one), from its ratios.

    ``ratio(segment, x)`` gives ``P(x + 1) / P(x)`` (broadcasting), which
    does not rise with x. Each support is first narrowed to where the law
    holds more than NEGLIGIBLE_MASS of its mode (:func:`trimmed_support`).
    The products of ratios then run outward from the mode (any place near it
    does), so none overflows and only probabilities too small to count
    underflow; each segment is normalised to sum 1. Segments within a factor
    two in length share a zero-padded array, so every pass is a contiguous
    one (all of them share one if ``together``: short segments in great
    number).

    Yields, for each chunk of such a group, the segments' indices, their
    values x (one row each, from its first kept value) and their laws (0 in
    the padding).
    """
    low, high = trimmed_support(low, high, np.clip(mode, low, high), ratio)
    lengths = high - low + 1
    peaks = np.clip(mode, low, high) - low
    for group in [np.arange(len(low))] if together else size_classes(lengths):
        # Chunks of about LAW_CELLS values each: bounded memory, and passes that stay in cache.
        width = int(lengths[group].max())
        for members in cache_chunks(group, width):
            yield members, *padded_law(low[members], lengths[members], peaks[members], width, members, ratio)


# Values per chunk of padded arrays: a few arrays of them fit a core's cache.
LAW_CELLS = 2**16


def cache_chunks(items, width):
    """``items`` in consecutive chunks of about LAW_CELLS / ``width`` each (at least one item per chunk)."""
    return np.array_split(items, max(1, min(len(items), -(-len(items) * width // LAW_CELLS))))


def padded_law(low, lengths, peak, width, members, ratio):
    """:func:`log_concave_laws` of some segments, as the rows of one zero-padded array: their values and law."""
    columns = np.arange(width)
    x = low[:, None] + columns
    inside, peak = columns < lengths[:, None], peak[:, None]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        step = np.where(inside[:, 1:], ratio(members[:, None], x[:, :-1].astype(np.float64)), 1.0)
        law = np.ones(inside.shape)
        law[:, 1:] = np.where(columns[1:] > peak, step, 1.0)  # P(x) / P(x - 1) above the mode
        np.cumprod(law, axis=1, out=law)
        if peak.any():
            down = np.ones(inside.shape)
            down[:, :-1] = np.where(columns[:-1] < peak, 1.0 / step, 1.0)  # P(x) / P(x + 1) below it
            law = np.where(columns >= peak, law, np.cumprod(down[:, ::-1], axis=1)[:, ::-1])
    law[~inside] = 0.0
    law /= law.sum(axis=1, keepdims=True)
    return x, law


# Supports shorter than this cost less to compute whole than to narrow.
SHORT_SUPPORT = 64
# The mass a law may lose on each side when its support is narrowed, relative to its mode: far below
# what float64 resolves, so no result changes.
NEGLIGIBLE_MASS = 1e-30


def trimmed_support(low, high, mode, ratio):
    """The part of each support low .. high outside which a log-concave law holds NEGLIGIBLE_MASS of its mode.

    Past any x0 above the mode, ``P(x0 + t) <= P(x0) r(x0)**t`` (the ratios
    fall), so the mass from ``x0 + T`` on is at most
    ``P(mode) r(x0)**T / (1 - r(x0))``; the same holds below the mode with
    ``1 / r``. The tightest T over x0 = mode + 0, 1, 2, 4, ... (and below)
    bounds each side. Supports of up to SHORT_SUPPORT values are kept whole.
    """
    long = np.flatnonzero(high - low >= SHORT_SUPPORT)
    if len(long) < len(low):
        low, high = low.copy(), high.copy()
        if len(long):
            low[long], high[long] = trimmed_support(low[long], high[long], mode[long], lambda s, x: ratio(long[s], x))
        return low, high
    segment = np.arange(len(low))[:, None]
    reach = np.concatenate(([0], 2 ** np.arange(int(np.max(high - low, initial=0)).bit_length())))

    def kept(x0, r):  # how many values from x0 on to keep, when each next one is at most r times the last
        with np.errstate(divide="ignore", invalid="ignore"):
            count = np.ceil(np.log(NEGLIGIBLE_MASS * (1.0 - r)) / np.log(r))
        return np.where(r <= 0.0, 1.0, np.where(r < 1.0, count, np.inf))

    with np.errstate(divide="ignore", invalid="ignore"):
        x0 = np.minimum(mode[:, None] + reach, high[:, None] - 1)
        last = np.where(x0 >= mode[:, None], x0 + kept(x0, ratio(segment, x0.astype(np.float64))) - 1, np.inf)
        x0 = np.maximum(mode[:, None] - reach, low[:, None] + 1)
        down = 1.0 / ratio(segment, x0 - 1.0)
        first = np.where(x0 <= mode[:, None], x0 - kept(x0, down) + 1, -np.inf)
    return np.maximum(low, first.max(axis=1)).astype(np.int64), np.minimum(high, last.min(axis=1)).astype(np.int64)


def stopping_symmetric_means(values, counts, depths):
    """Per block, the symmetric means of its stopping rows' ``values`` of degrees 0 .. its depth.

    The values are few distinct ones (one per label). A block of up to
    POLYNOMIAL_ROWS stopping rows multiplies the polynomials of its labels
    (:func:`symmetric_means_of_polynomials`); a larger one whose other labels
    than its most frequent one hold that few rows draws them against it
    (:func:`symmetric_means_of_dominated`); the others merge their labels
    through hypergeometric probabilities (:func:`symmetric_means_of_multisets`)
    where the labels other than the most frequent one, times the depth, cost
    less than the rows, and add one row at a time otherwise
    (:func:`symmetric_means_of_blocks`). Each route costs about the depth
    times the rows of labels other than the most frequent one. Columns past a
    block's own depth hold zeros or deeper means: nothing reads them.
    """
    distinct, which = np.unique(values, return_inverse=True)
    block = np.repeat(np.arange(len(counts)), counts)
    multiplicities = np.bincount(block * len(distinct) + which, minlength=len(counts) * len(distinct))
    multiplicities = multiplicities.reshape(len(counts), len(distinct))
    most = multiplicities.max(axis=1)
    others = np.minimum(multiplicities, depths[:, None] + 1).sum(axis=1) - np.minimum(most, depths + 1)
    # The dominated route's first law, C(most, J) / C(counts, J), must not underflow at the depth, where it is
    # smallest: far below (most / counts)**J when J nears most (1 / C(1200, 600) at J = most = 600 is 1e-360).
    dominated = (counts - most <= POLYNOMIAL_ROWS) & (depths <= most) & (first_law_log(most, counts, depths) > -600)
    routes = np.select(
        [counts <= POLYNOMIAL_ROWS, dominated, 4 * (others + len(distinct)) < counts], [0, 1, 2], default=3
    )
    means = np.zeros((len(counts), int(depths.max(initial=0)) + 1))
    means_of = (symmetric_means_of_polynomials, symmetric_means_of_dominated, symmetric_means_of_multisets)
    for route, means_of_route in enumerate(means_of):
        if (routes == route).any():
            found = means_of_route(multiplicities[routes == route], distinct, int(depths[routes == route].max()))
            means[routes == route, : found.shape[1]] = found
    if (routes == 3).any():
        found = symmetric_means_of_blocks(
            values[np.repeat(routes == 3, counts)], counts[routes == 3], depths[routes == 3]
        )
        means[routes == 3, : found.shape[1]] = found
    return means


def first_law_log(most, counts, depths):
    """``log(C(most, J) / C(counts, J))`` at J = ``depths`` (at most ``most``): the chance that a random J-subset
    of ``counts`` rows holds only rows of the ``most`` of one value, to about 0.01 (it decides a route)."""
    most, counts, depths = (np.asarray(x, dtype=np.float64) for x in (most, counts, depths))
    return log_factorial(most) - log_factorial(most - depths) - log_factorial(counts) + log_factorial(counts - depths)


def log_factorial(n):
    """``log(n!)`` by Stirling's series, to 0.003 at n = 1 and closer above (scipy stays unimported here: the
    command's evaluation imports this module)."""
    n = np.maximum(n, 1.0)
    return n * np.log(n) - n + 0.5 * np.log(2.0 * np.pi * n) + 1.0 / (12.0 * n)


def symmetric_means_of_dominated(multiplicities, distinct, depth):
    """Symmetric means of degrees 0 .. ``depth`` of multisets where one value v0 (c0 rows) dominates.

    The other values hold at most POLYNOMIAL_ROWS rows, whose means E_i come
    from :func:`symmetric_means_of_polynomials`. A random j-subset holds i of
    them with the hypergeometric probability H_j(i), so
    ``E_j = sum_i H_j(i) E_i v0**(j - i)``: positive terms only. H_j(0) is
    ``C(c0, j) / C(n, j)``, a running product over j (the caller makes sure it
    does not underflow and that ``depth <= c0``), and each step in i
    multiplies by ``(n - c0 - i)(j - i) / ((i + 1)(c0 - j + i + 1))``; the
    cost is the depth times the other rows.
    """
    n = multiplicities.sum(axis=1)
    top = multiplicities.argmax(axis=1)
    c0, v0 = multiplicities[np.arange(len(n)), top], distinct[top]
    rest = multiplicities.copy()
    rest[np.arange(len(n)), top] = 0
    width = int(min(rest.sum(axis=1).max(), depth)) + 1
    drawn = symmetric_means_of_polynomials(rest, distinct, width - 1)  # E_i of the other rows
    j = np.arange(depth + 1.0)[:, None]
    means = np.empty((len(n), depth + 1))
    # Chunks of blocks whose arrays fit in cache; one row per degree j, one column per block.
    for chunk in cache_chunks(np.arange(len(n)), depth + 1):
        total, main, other = n[chunk].astype(np.float64), c0[chunk].astype(np.float64), rest[chunk].sum(axis=1)
        law = np.ones((depth + 1, len(chunk)))
        law[1:] = (main - j[:-1]) / (total - j[:-1])
        np.cumprod(law, axis=0, out=law)  # H_j(0)
        with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
            powers = v0[chunk] ** j
        found = law * powers
        for i in range(1, width):
            # From H_j(i - 1) to H_j(i); it is 0 for j < i (the factor j - i + 1 vanishes at j = i - 1).
            law *= np.maximum(other - i + 1.0, 0.0) * (j - i + 1.0) / (i * np.maximum(main - j + i, 1.0))
            found[i:] += law[i:] * drawn[chunk, i] * powers[: depth + 1 - i]
        means[chunk] = found.T
    return means


# Up to this many rows, every binomial coefficient C(n, j) < 1e300: polynomials of counts do not overflow.
POLYNOMIAL_ROWS = 1000


def symmetric_means_of_polynomials(multiplicities, distinct, depth):
    """Symmetric means of degrees 0 .. ``depth`` of multisets of at most POLYNOMIAL_ROWS values.

    The symmetric polynomial e_j of a block is the coefficient of t**j in
    ``prod_v (1 + v t)**c_v``: each binomial is expanded (``C(c, i) v**i``)
    and the polynomials are multiplied, the most frequent value over the
    blocks first (its expansion is free), truncated at ``depth``. All terms are positive, so
    each coefficient keeps its relative precision, and no coefficient exceeds
    ``C(n, j) < 1e300``. The means are ``e_j / C(n, j)``; the cost is the
    block's depth times its rows of values other than the first.
    """
    order = np.argsort(-multiplicities.sum(axis=0), kind="stable")
    distinct, multiplicities = distinct[order], multiplicities[:, order]
    means = np.empty((len(multiplicities), depth + 1))
    # Chunks of blocks whose polynomials fit in cache; one row per degree, one column per block.
    for chunk in cache_chunks(np.arange(len(multiplicities)), depth + 1):
        polynomial = None
        for value, count in zip(distinct, multiplicities[chunk].T, strict=True):
            width = int(min(count.max(), depth)) + 1
            terms = binomials(count, width).T * value ** np.arange(width, dtype=np.float64)[:, None]
            if polynomial is None:  # the most frequent value: its expansion is the first polynomial
                polynomial = np.zeros((depth + 1, len(chunk)))
                polynomial[:width] = terms
                continue
            product = polynomial * terms[0]
            for i in range(1, width):
                product[i:] += terms[i] * polynomial[: depth + 1 - i]
            polynomial = product
        total = binomials(multiplicities[chunk].sum(axis=1), depth + 1).T
        means[chunk] = np.divide(polynomial, total, out=np.zeros_like(polynomial), where=total > 0).T
    return means


def binomials(n, width):
    """``C(n[b], i)`` for i = 0 .. width - 1 (0 past n[b]), as running products of ``(n - i + 1) / i``."""
    i = np.arange(1.0, width)
    coefficients = np.ones((len(n), width))
    coefficients[:, 1:] = np.maximum(n[:, None] - i + 1.0, 0.0) / i
    return np.cumprod(coefficients, axis=1, out=coefficients)


def symmetric_means_of_multisets(multiplicities, distinct, depth):
    """Symmetric means of degrees 0 .. ``depth`` of multisets: ``multiplicities[b, v]`` rows of ``distinct[v]``.

    The distinct values join one at a time, the most frequent first. With a
    rows merged so far and c rows of value v joining, a random j-subset of the
    union holds i of the new rows with the hypergeometric probability H_j(i),
    so ``E_j(new) = sum_i H_j(i) v**i E_{j-i}(old)``: positive terms only, all
    degrees at once. The cost is the distinct values times ``depth**2`` per
    block at most, whatever its rows; degrees above a block's size are 0.
    """
    n_blocks = len(multiplicities)
    block, degree = np.divmod(np.arange(n_blocks * (depth + 1)), depth + 1)
    means = np.zeros(n_blocks * (depth + 1))
    means[degree == 0] = 1.0  # the empty multiset
    merged = np.zeros(n_blocks, dtype=np.int64)
    # The most frequent value first: each later one is a small share of the union, so its law is narrow.
    order = np.argsort(-multiplicities.sum(axis=0), kind="stable")
    for value, joining in zip(distinct[order], multiplicities.T[order].astype(np.int64), strict=True):
        if not joining.any():
            continue
        powers = value ** np.arange(2 * depth + 2.0)  # drawn counts reach past depth in the padding
        if not merged.any():  # the first value: its j-subsets all have the product v**j
            means, merged = np.where(degree <= joining[block], powers[degree], 0.0), joining
            continue
        # Degrees above the union's size have no subset: they stay 0.
        held = np.flatnonzero(degree <= (merged + joining)[block])
        updated = np.zeros_like(means)
        laws = hypergeometric_laws((merged + joining)[block[held]], joining[block[held]], degree[held], together=True)
        for members, drawn, law in laws:
            entry = held[members, None]
            # E_{j-i}(old) of the same block; drawn counts past the law's support have probability 0.
            updated[held[members]] = np.einsum("ij,ij,ij->i", law, powers[drawn], means[np.maximum(entry - drawn, 0)])
        means, merged = updated, merged + joining
    return means.reshape(n_blocks, depth + 1)


def symmetric_means_of_blocks(values, counts, depths):
    """Per block, the elementary symmetric means of its ``values`` of degrees 0 .. its depth (and past it,
    up to the deepest block).

    ``values`` holds the blocks' values end to end, ``counts[b]`` of block b.
    The means follow the convex recurrence of :func:`symmetric_means`, one row
    at a time: every step is a weighted mean of numbers in [0, 1], so rounding
    never grows, whatever the block's size. (The running sums
    ``E_j(i) = E_j(i-1) + v_i E_{j-1}(i-1) j / (n - j + 1)`` multiply by
    factors up to n: past a thousand rows, a mean that underflowed at some
    degree came back amplified, and ERR of a tie block of 1,200 rows was
    -4e21.)
    """
    return symmetric_means(values, np.cumsum(counts) - counts, counts, int(depths.max(initial=0)) + 1)
