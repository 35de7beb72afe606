"""Sampled evaluation: one set of candidates for every model, and the full-catalogue metric estimated from it.

Many recommender papers rank each user's relevant items among 100 sampled
negatives rather than the whole catalogue. :func:`sample_candidates` draws
that set once, so that every model is scored on the same negatives. The
accuracy metrics take it as ``candidates=`` (the mechanism is one decorator,
:func:`accepts_candidates`): the ranking is restricted to the candidates, and
with ``sampled_correction`` the full-catalogue value is estimated by Krichene
& Rendle's corrected estimators (KDD 2020).

The estimators. A relevant item with ``x`` of the user's ``N`` other
recommendable items above it in the full ranking has, among ``m`` negatives
drawn uniformly without replacement, ``x~`` of them above it, with the
hypergeometric law ``A[x, x~] = C(x, x~) C(N - x, m - x~) / C(N, m)``. A metric
that sums, over the relevant items, a function ``M(x)`` of that rank is
estimated by a table ``M^(x~)`` applied to the sampled ranks: with a uniform
prior ``p(x) = 1 / (N + 1)``,

* ``"bv"`` (bias-variance trade-off) minimises
  ``sum_x p(x) [(E[M^ | x] - M(x))^2 + gamma Var(M^ | x)]``, whose solution is
  ``M^ = ((1 - gamma) A'PA + gamma diag(c))^-1 A'P M`` with ``P = diag(p)`` and
  ``c = A'p`` (gamma = 0.01);
* ``"cls"`` (constrained least squares) minimises the bias alone,
  ``sum_x p(x) (E[M^ | x] - M(x))^2``, with every ``M^(x~)`` held within the
  range of ``M``.
"""

import functools

import numpy as np
from scipy import sparse
from scipy.optimize import lsq_linear
from scipy.special import gammaln
from sklearn.exceptions import UndefinedMetricWarning
from threadpoolctl import threadpool_limits

from .._core._inputs import rank_queries
from .._core._numpy_ops import NUMPY
from .._core._ranking import weighted_mean
from .._core._resampling import random_state_from
from .._core._validation import (
    TIES,
    check_flag,
    check_k,
    check_option,
    check_real,
    check_zero_division,
    plain,
)
from .._core._warnings import warn
from ._candidates import label_matrix, mask_matrix
from ._exposure import PerItem

# The bias-variance trade-off of "bv": on generated leave-one-out data (benchmarks/bench_recommenders.py) 0.01
# keeps Recall@10 within 0.005 of the full value where 0.1 shrinks good models by up to 0.04.
BV_GAMMA = 0.01


def sample_candidates(
    y_true, *, n_negatives=100, strategy="uniform", item_popularity=None, exclude=None, random_state=None
):
    """Draw one set of candidates per user: every relevant item and ``n_negatives`` sampled others.

    Score every model on the same candidates (``candidates=`` of the
    accuracy metrics), so that all of them meet the same negatives.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_users, n_items)
        Relevance labels (held-out interactions): every item with a label
        > 0 is a candidate of its user.
    n_negatives : int, default=100
        How many other items to draw for each user, without replacement; a
        user with fewer eligible items gets them all.
    strategy : {"uniform", "popularity"}, default="uniform"
        ``"uniform"``: every eligible item equally likely (the law that
        ``sampled_correction`` assumes); ``"popularity"``: draws in
        proportion to ``item_popularity`` (weighted sampling without
        replacement: successive draws among the items left), for the
        metric on the candidates only: ``sampled_correction`` refuses such
        candidates (see Notes).
    item_popularity : array-like of shape (n_items,) or mapping, default=None
        Non-negative weights of the items for ``"popularity"`` (an item of
        weight 0 is never drawn): one per column, or a mapping from column
        to weight with every column. None: each item's number of users with
        a positive label in ``y_true`` or an entry in ``exclude``.
    exclude : array-like of bool or sparse matrix of shape (n_users, n_items), default=None
        Items never to draw for a user (already seen in training): a mask
        (True/False, or 0/1), or a sparse matrix of such values, whose
        stored True (or 1) entries are excluded (a stored False or 0 is
        not, as an entry not stored is not).
    random_state : int, RandomState instance, numpy Generator or None, default=None
        Seeds the draws, for reproducible candidates.

    Returns
    -------
    candidates : CandidateSet of shape (n_users, n_items)
        A ``scipy.sparse.csr_array`` of bool, True for each user's
        candidates, whose ``strategy`` attribute says how they were drawn
        (``"uniform"`` or ``"popularity"``).

    See Also
    --------
    recall_at_k_score : Takes ``candidates=`` and ``sampled_correction=``.

    Notes
    -----
    The draws use exponential keys (Efraimidis & Spirakis 2006): each
    eligible item gets ``E / w`` with ``E`` exponential and ``w`` its weight,
    and the ``n_negatives`` smallest win, a few thousand users at a time.

    The corrected estimators (``sampled_correction``) read each relevant
    item's sampled rank through the hypergeometric law of uniform draws.
    Under popularity draws the chance that a negative above the item is
    drawn depends on the weights of the very items above it, which only
    the full ranking tells, so no table of the sampled rank corrects them;
    the candidates of ``strategy="popularity"`` are marked (their class,
    kept by scipy's copies, slices and ``astype``) and refused there with
    that reason. The mark lives on the returned object: a mask made from
    it (``toarray``, ``tocoo``, ``scipy.sparse.csr_array(...)``), like any
    mask made by hand, is taken as uniformly drawn.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics import sample_candidates
    >>> y_true = np.array([[1, 0, 0, 0, 0], [0, 0, 1, 0, 0]])
    >>> candidates = sample_candidates(y_true, n_negatives=2, random_state=0)
    >>> candidates.sum(axis=1)  # the relevant item and 2 others
    array([3, 3])
    >>> bool(candidates[0, 0]), bool(candidates[1, 2])
    (True, True)
    """
    strategy = check_option("strategy", strategy, ("uniform", "popularity"))
    if isinstance(n_negatives, bool | np.bool_) or not isinstance(n_negatives, int | np.integer) or n_negatives < 0:
        raise ValueError(f"n_negatives must be an integer >= 0; got {plain(n_negatives)!r}.")
    positives = label_matrix(y_true, "y_true") > 0
    n_users, n_items = positives.shape
    excluded = (
        sparse.csr_array((n_users, n_items), dtype=bool)
        if exclude is None
        else mask_matrix(exclude, positives.shape, "exclude")
    )
    weights = np.ones(n_items)
    if strategy == "popularity":
        if item_popularity is None:
            weights = np.asarray((positives.astype(bool) + excluded).astype(np.float64).sum(axis=0)).reshape(-1)
        else:
            weights = draw_weights(item_popularity, n_items)
    elif item_popularity is not None:
        raise ValueError('item_popularity is only used by strategy="popularity"; leave it None for "uniform".')
    random = random_state_from(random_state)
    rows, columns = [positives.nonzero()[0]], [positives.nonzero()[1]]
    step = max(1, 2**22 // max(n_items, 1))
    with np.errstate(divide="ignore"):
        inverse_weight = np.where(weights > 0, 1.0 / weights, np.inf)
    for start in range(0, n_users, step):
        stop = min(start + step, n_users)
        keys = random.standard_exponential((stop - start, n_items)) * inverse_weight
        blocked = (positives[start:stop] + excluded[start:stop]).nonzero()
        keys[blocked] = np.inf
        take = min(n_negatives, n_items)
        if take == 0:
            continue
        chosen = (
            np.argpartition(keys, take - 1, axis=1)[:, :take]
            if take < n_items
            else np.tile(np.arange(n_items), (stop - start, 1))
        )
        finite = np.isfinite(np.take_along_axis(keys, chosen, axis=1))
        users = np.repeat(np.arange(start, stop), take).reshape(stop - start, take)
        rows.append(users[finite])
        columns.append(chosen[finite])
    rows, columns = np.concatenate(rows), np.concatenate(columns)
    drawn = PopularityCandidateSet if strategy == "popularity" else CandidateSet
    return drawn((np.ones(len(rows), dtype=bool), (rows, columns)), shape=(n_users, n_items))


class CandidateSet(sparse.csr_array):
    """Candidates drawn by :func:`sample_candidates`: a csr_array of bool that says how its negatives were drawn.

    ``strategy`` is ``"uniform"``; :class:`PopularityCandidateSet` is
    ``"popularity"``. The mark is the class, so that scipy's copies, slices
    and ``astype`` keep it.
    """

    strategy = "uniform"


class PopularityCandidateSet(CandidateSet):
    """Candidates drawn in proportion to the items' popularity: the corrected estimators refuse them."""

    strategy = "popularity"


def check_uniform(candidates):
    """Refuse candidates drawn by popularity for the corrected estimators, with the reason (uniform law assumed)."""
    if getattr(candidates, "strategy", "uniform") != "uniform":
        raise ValueError(
            "sampled_correction assumes negatives drawn uniformly, but these candidates were drawn by popularity "
            "(sample_candidates(strategy='popularity')). The estimators read a relevant item's sampled rank through "
            "the hypergeometric law of uniform draws; under popularity draws the chance of drawing a negative above "
            "the item depends on the weights of the very items above it, which only the full ranking tells, so no "
            "correction by the sampled rank is exact. Draw the candidates with strategy='uniform' for "
            "sampled_correction, or pass sampled_correction=None for the metric on these candidates."
        )


def draw_weights(item_popularity, n_items):
    """The weight of every item (column) for popularity draws: an array, or a mapping from column to weight."""
    weights = PerItem(item_popularity, "item_popularity").at(
        n_items, None, needed=np.arange(n_items), needed_as="which may be drawn (0 never draws it)", matrix="y_true"
    )
    bad = np.flatnonzero(~np.isfinite(weights) | (weights < 0))
    if len(bad):
        raise ValueError(
            f"item_popularity must hold a finite weight >= 0 for every item; got {plain(weights[bad[0]])!r} for "
            f"item {bad[0]}."
        )
    return weights


def one_thread(function):
    """Run ``function`` with BLAS on one thread: its matrices are small, and threads only contend for them."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with threadpool_limits(limits=1, user_api="blas"):
            return function(*args, **kwargs)

    return wrapper


# The accuracy metrics ----------------------------------------------------------------------------------------------


class Form:
    """A metric as a sum over the relevant items: ``norm_u * gain_i * kappa(a_i) * f(rank_i)``.

    ``f`` depends on the 1-based full rank only; ``kappa`` on ``a``, the
    relevant items ranked above (AP's ``a + 1``; MRR and hit rate count the
    first relevant item only); ``gain`` on the label; ``norm`` on the user.
    """

    def __init__(self, f, *, kappa=None, graded=False, norm=None):
        self.f, self.kappa, self.graded, self.norm = f, kappa, graded, norm
        self.key = None  # what fixes f: the metric's name and options, so that its tables can be cached


def cutoff_ones(k):
    return lambda ranks: (ranks <= (np.inf if k is None else k)).astype(np.float64)


def cutoff_inverse(k):
    return lambda ranks: np.where(ranks <= (np.inf if k is None else k), 1.0 / ranks, 0.0)


def discount_of(discount, k):
    from ..metrics._dcg import rank_weights

    def f(ranks):
        top = int(ranks.max()) if len(ranks) else 1
        return rank_weights(discount, top, k)[ranks.astype(np.intp) - 1]

    return f


def binary_norm(kind, capped=False):
    """P@k divides by k (by the user's recommendable items when k is None, or ``capped`` below k); F1@k by
    (k + R) / 2.

    With k None the full ranking examines every recommendable item: N and
    the relevant ones not scored -inf (R counts them all).
    """

    def norm(catalogue, k, ideal):
        recommendable = (catalogue.other + catalogue.recommendable_relevant).astype(np.float64)
        if k is None:
            examined = recommendable
        else:
            examined = np.minimum(float(k), recommendable) if capped else float(k)
        if kind == "precision":
            return 1.0 / np.maximum(examined, 1.0)
        return 2.0 / np.maximum(examined + catalogue.relevant, 1.0)

    return norm


def forms(name, options):
    """The :class:`Form` of metric ``name`` with its ``options``; None if it is not such a sum."""
    k = check_k(options.get("k"))
    denominator = options.get("denominator", "relevant")

    def recall_norm(catalogue, k_, ideal):
        n_relevant = catalogue.relevant
        capped = n_relevant if denominator == "relevant" or k is None else np.minimum(n_relevant, k)
        return 1.0 / np.maximum(capped, 1)

    first = lambda a: (a == 0).astype(np.float64)  # noqa: E731  the first relevant item alone
    table = {
        "precision_at_k_score": lambda: Form(cutoff_ones(k), norm=binary_norm("precision", denominator == "capped")),
        "recall_at_k_score": lambda: Form(cutoff_ones(k), norm=recall_norm),
        "f1_at_k_score": lambda: Form(cutoff_ones(k), norm=binary_norm("f1")),
        "hit_rate_score": lambda: Form(cutoff_ones(k), kappa=first),
        "mean_reciprocal_rank_score": lambda: Form(cutoff_inverse(k), kappa=first),
        "mean_average_precision_score": lambda: Form(cutoff_inverse(k), kappa=lambda a: a + 1.0, norm=recall_norm),
        "cumulative_gain_score": lambda: Form(cutoff_ones(k), graded=True),
        "dcg_score": lambda: Form(discount_of(options.get("discount", "log2"), k), graded=True),
        "ndcg_score": lambda: Form(
            discount_of(options.get("discount", "log2"), k), graded=True, norm=lambda catalogue, k_, ideal: 1.0 / ideal
        ),
    }
    if name not in table:
        return None
    form = table[name]()
    form.key = (name, k, options.get("discount", "log2") if form.graded else None)
    return form


def corrected_metric(name, rows, correction, signature, arguments):
    """The corrected estimate of metric ``name`` over the full catalogue, from the candidates in ``rows``."""
    options = {**{key: p.default for key, p in signature.parameters.items()}, **arguments}
    form = forms(name, options)
    if form is None:
        supported = "precision, recall, F1, hit rate, MRR, MAP, CG, DCG and NDCG"
        raise ValueError(
            f"sampled_correction is not available for {name}: only metrics that sum, over the relevant items, a "
            f"function of each one's rank can be corrected ({supported}). Pass sampled_correction=None to compute "
            "it on the candidates."
        )
    from ..metrics._dcg import gain_values

    ties = check_option("ties", options["ties"], TIES)
    check_flag("average", options["average"])
    zero_division = check_zero_division(options["zero_division"])
    k = check_k(options.get("k"))
    gain = options.get("gain", "linear")
    threshold = (
        None if form.graded else check_real("relevance_threshold", options["relevance_threshold"], low=0, low_open=True)
    )

    def is_relevant(labels):
        return labels > 0 if form.graded else labels >= threshold

    catalogue = rows.catalogue(is_relevant)
    shown = rows.scores > -np.inf
    relevant_rows = is_relevant(rows.labels) & shown
    missing = catalogue.recommendable_relevant - np.bincount(rows.users[relevant_rows], minlength=rows.n_users)
    if (missing > 0).any():
        user = int(np.flatnonzero(missing > 0)[0])
        raise ValueError(
            f"sampled_correction needs every relevant item among the candidates, but user {user} has "
            f"{int(missing[user])} relevant item(s) outside them (sample_candidates includes them all)."
        )
    users, labels, scores = rows.users[shown], rows.labels[shown], rows.scores[shown]
    sampled = np.bincount(users[~is_relevant(labels)], minlength=rows.n_users)  # m per user
    if (sampled > catalogue.other).any():
        user = int(np.flatnonzero(sampled > catalogue.other)[0])
        raise ValueError(
            f"user {user} has {sampled[user]} candidates that are not relevant but only {catalogue.other[user]} "
            "such items in its catalogue: n_items is too small."
        )
    gains = gain_values(labels, gain) if form.graded else is_relevant(labels).astype(np.float64)
    values = block_estimates(
        form, correction, users, labels, scores, gains, is_relevant, ties, catalogue.other, sampled, rows.n_users
    )
    ideal = None
    if form.graded:
        label_users, all_labels = rows.user_labels()
        ideal = ideal_dcg_per_user(label_users, all_labels, rows.n_users, gain, options.get("discount", "log2"), k)
        defined = (
            ideal > 0 if name == "ndcg_score" else np.bincount(label_users[all_labels > 0], minlength=rows.n_users) > 0
        )
    else:
        defined = catalogue.relevant > 0
    if form.norm is not None:
        values = values * form.norm(catalogue, k, None if ideal is None else np.where(ideal > 0, ideal, 1.0))
    values = np.where(defined, values, zero_division)
    if not options["average"]:
        return values
    weight = rows.user_weights(options.get("sample_weight"))
    kept = ~np.isnan(values)
    if not kept.any() or (weight is not None and not weight[kept].any()):
        warn(
            "Every query is undefined (no relevant document) or has zero weight, so the mean is nan. "
            "Pass zero_division=0.0 or 1.0 to score such queries.",
            UndefinedMetricWarning,
        )
        return float("nan")
    return weighted_mean(values[kept], None if weight is None else weight[kept])


def ideal_dcg_per_user(users, labels, n_users, gain, discount, k):
    """Each user's ideal DCG@k: its labels in decreasing order."""
    from ..metrics._dcg import gain_values, rank_weights

    order = np.lexsort((-labels, users))
    users, labels = users[order], labels[order]
    starts = np.searchsorted(users, users)
    positions = np.arange(len(users)) - starts
    weights = rank_weights(discount, int(positions.max()) + 1 if len(positions) else 1, k)
    return np.bincount(users, weights=gain_values(labels, gain) * weights[positions], minlength=n_users)


def block_estimates(form, correction, users, labels, scores, gains, is_relevant, ties, n_other, sampled, n_users):
    """Each user's corrected sum over its relevant items (before the user's norm), ties averaged exactly.

    The candidates are ranked per user; in a tie block with ``r`` relevant
    and ``s`` other rows, below ``a0`` relevant and ``x0`` other rows, a
    relevant row has ``h`` of the block's relevant rows above it with
    chance 1/r, and then ``g`` of its other rows with the negative
    hypergeometric chance ``C(h+g, h) C(r-1-h + s-g, r-1-h) / C(r+s, r)``:
    one term per (block, h, g), a single one per relevant row without ties.
    A user without a relevant candidate sums to 0.
    """
    if not is_relevant(labels).any():
        return np.zeros(n_users)
    ranking, order = rank_queries(labels, scores, qid=users, ties=ties, return_order=True)
    relevant = is_relevant(labels[order]).astype(np.float64)
    if ranking.has_ties:
        starts, sizes = ranking.block_starts, ranking.block_sizes
    else:
        starts, sizes = np.arange(len(order)), np.ones(len(order), dtype=np.intp)
    in_block = np.add.reduceat(relevant, starts)
    gain_block = np.add.reduceat(gains[order] * relevant, starts)
    query_block = np.searchsorted(starts, ranking.query_starts)
    before_relevant = NUMPY.segment_exclusive_cumsum(in_block, query_block).astype(np.intp)
    before_other = NUMPY.segment_exclusive_cumsum(sizes - in_block, query_block).astype(np.intp)
    blocks = np.flatnonzero(in_block > 0)
    user = users[order][starts[blocks]]
    r, s = in_block[blocks].astype(np.intp), (sizes[blocks] - in_block[blocks]).astype(np.intp)
    # One correction table per catalogue (N, m), laid end to end.
    keys, key_of_block = np.unique(np.stack((n_other[user], sampled[user])), axis=1, return_inverse=True)
    key_of_block = key_of_block.reshape(-1)
    depth = np.zeros(keys.shape[1], dtype=np.intp)
    np.maximum.at(depth, key_of_block, before_relevant[blocks] + r)
    tables = [cached_table(form, correction, int(n), int(m), int(d)) for (n, m), d in zip(keys.T, depth, strict=True)]
    offsets = np.cumsum([0] + [table.size for table in tables])[:-1]
    flat = np.concatenate([table.ravel() for table in tables])
    # Expand every block into its (h, g) terms.
    n_terms = r * (s + 1)
    term_block = np.repeat(np.arange(len(blocks)), n_terms)
    place = np.arange(n_terms.sum()) - np.repeat(np.cumsum(n_terms) - n_terms, n_terms)
    width = (s + 1)[term_block]
    h, g = place // width, place % width
    rr, ss = r[term_block], s[term_block]
    chance = np.exp(log_comb(h + g, h) + log_comb(rr - 1 - h + ss - g, rr - 1 - h) - log_comb(rr + ss, rr)) / rr
    a = before_relevant[blocks][term_block] + h
    sampled_rank = before_other[blocks][term_block] + g
    columns = sampled[user][term_block] + 1
    kappa = 1.0 if form.kappa is None else form.kappa(a)
    estimate = flat[offsets[key_of_block][term_block] + a * columns + sampled_rank]
    contribution = gain_block[blocks][term_block] * chance * kappa * estimate
    return np.bincount(user[term_block], weights=contribution, minlength=n_users)


@functools.lru_cache(maxsize=512)
def second_moments(n, m):
    return moments_of_law(n, m)


@one_thread
def moments_of_law(n, m):
    """``A'PA`` and ``c = A'p`` of the hypergeometric law of the sampled rank, under the uniform prior ``p``."""
    law = hypergeometric(n, m, np.arange(n + 1))
    return law.T @ law / (n + 1), law.sum(axis=0) / (n + 1)


def hypergeometric(n, m, full):
    """``A[x, x~]``: the chance of ``x~`` of ``m`` draws among ``n`` items to fall among the ``x`` above."""
    drawn = np.arange(m + 1)
    x, j = full[:, None].astype(np.float64), drawn[None, :].astype(np.float64)
    valid = (j <= x) & (m - j <= n - x)
    with np.errstate(invalid="ignore"):
        log = log_comb(x, j) + log_comb(n - x, m - j) - log_comb(np.float64(n), np.float64(m))
    return np.where(valid, np.exp(np.where(valid, log, 0.0)), 0.0)


def log_comb(a, b):
    return gammaln(a + 1) - gammaln(b + 1) - gammaln(np.maximum(a - b, 0) + 1)


TABLES = {}
# Tables kept for the next call: a benchmark of several models on one candidate set meets the same (N, m).
MAX_TABLES = 4096


def cached_table(form, correction, n, m, depth):
    """:func:`correction_table`, kept per (metric, options, correction, N, m) for the calls that follow."""
    try:
        key = (form.key, correction, n, m)
        hash(key)
    except TypeError:  # an unhashable discount
        return correction_table(form, correction, n, m, depth)
    table = TABLES.get(key)
    if table is None or len(table) < depth:
        if len(TABLES) >= MAX_TABLES:
            TABLES.clear()
        table = TABLES[key] = correction_table(form, correction, n, m, depth)
    return table[:depth]


@one_thread
def correction_table(form, correction, n, m, depth):
    """``T[a, x~]``: the corrected value of ``f(1 + a + x)`` from a sampled rank ``x~``, for ``a < depth``.

    Only the full ranks where some ``f(1 + a + x)`` is not 0 (those above
    the cutoff) take part in ``A'PM``; ``A'PA`` is cached per (N, m).
    """
    full = np.arange(n + 1)
    targets = form.f((1 + np.arange(depth)[None, :] + full[:, None]).ravel().astype(np.float64))
    targets = targets.reshape(n + 1, depth)  # M_a(x), one column per a
    used = np.flatnonzero(targets.any(axis=1))
    moments = hypergeometric(n, m, used).T @ targets[used] / (n + 1)  # A'P M
    gram, marginal = second_moments(n, m)
    if correction == "bv":
        system = (1.0 - BV_GAMMA) * gram + BV_GAMMA * np.diag(marginal)
        return np.linalg.solve(system, moments).T
    # "cls": sum_x p(x) ((A t)_x - M(x))^2 = t'Gt - 2 t'A'PM + const, each t held in the range of M.
    eigenvalues, vectors = np.linalg.eigh(gram)
    keep = eigenvalues > eigenvalues.max() * 1e-12
    root = np.sqrt(eigenvalues[keep])
    design = root[:, None] * vectors[:, keep].T
    table = np.empty((depth, m + 1))
    for a in range(depth):
        low, high = targets[:, a].min(), targets[:, a].max()
        if low == high:
            table[a] = low
            continue
        response = (vectors[:, keep].T @ moments[:, a]) / root
        table[a] = lsq_linear(design, response, bounds=(low, high), method="bvls").x
    return table
