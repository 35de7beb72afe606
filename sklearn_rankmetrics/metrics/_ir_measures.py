"""Measures of IR test collections: bpref, rank-biased precision, interpolated precision.

They come from TREC practice, where judgements are incomplete: a run retrieves
documents nobody judged. ``judged`` marks the rows that were; the others are
skipped by bpref and make up the residual of RBP.
"""

import numpy as np

from .._core._array_api import array_api_support
from .._core._docs import fill_doc
from .._core._inputs import evaluate, rank_queries
from .._core._ranking import judged_in_rank_order, ratio
from .._core._validation import as_float_array, check_flag, check_option, check_real, check_zero_division, plain
from ._dcg import _dcg
from ._precision import RelevantRows, relevance
from ._tie_expectations import cutoff_probabilities

STRICT_TIES = ("stable", "pessimistic", "optimistic")
# RBP's gains: binary (False), each label over its query's largest (True, trec_eval), the label itself ("raw", ranx).
GRADED = (False, True, "raw")
# trec_eval's 11 standard recall levels.
ELEVEN_POINTS = tuple(np.round(np.arange(11) / 10, 1))
# How a recall level x becomes the number of relevant documents to reach: trec_eval 10 rounds x R (halves up), trec_eval
# 9 (inside pytrec_eval and so ir_measures) takes the integer part of x R + 0.9.
INTERPOLATIONS = {"trec_eval10": 0.5, "trec_eval9": 0.9}


def _bpref(ranking, *, relevance_threshold=1, judged=None):
    ops, xp = ranking.ops, ranking.xp
    _, n_relevant, in_block = relevance(ranking, relevance_threshold)
    nonrelevant = ranking.judged_labels < relevance_threshold
    if judged is not None:
        nonrelevant &= judged
    n_nonrelevant = ranking.query_count(nonrelevant)  # retrieved or not
    if ranking.retrieved is not None:
        nonrelevant &= ranking.retrieved
    nonrelevant_in_block = ranking.per_block(ops.as_float(nonrelevant), whole=True)
    above = ranking.before_in_query(nonrelevant_in_block)
    # A relevant document placed uniformly in its tie block has each of
    # 0..s of the block's s judged non-relevant documents above it with the
    # same chance (unjudged ones are skipped): the mean of min(above + x, R).
    limit = ops.as_float(ops.take(n_relevant, ranking.query_of_block))
    below_limit = xp.minimum(xp.maximum(limit - above, 0.0), nonrelevant_in_block + 1.0)
    capped = (
        below_limit * above + below_limit * (below_limit - 1) / 2 + (nonrelevant_in_block + 1 - below_limit) * limit
    )
    capped /= nonrelevant_in_block + 1
    scale = ops.as_float(ops.take(xp.minimum(n_nonrelevant, n_relevant), ranking.query_of_block))
    kept = 1.0 - ratio(capped, scale, ops)[0]
    if ranking.depth is not None:
        kept = kept_above_depth(ranking, kept, in_block, nonrelevant_in_block, above, limit, scale)
    return ratio(ranking.query_total(in_block * kept), n_relevant, ops)


def kept_above_depth(ranking, kept, in_block, nonrelevant_in_block, above, limit, scale):
    """bpref's mean term of a relevant document of each block, counting only the places above the depth.

    In a block of m rows, s of them judged non-relevant, whose first v
    places lie above the depth, a relevant document and those s take a
    uniform (s + 1)-subset of the places, in which the document's rank is
    uniform: it has x of them above it and a place above the depth with
    chance P(Y > x) / (s + 1), Y hypergeometric (m places, s + 1 marked, v
    drawn). A block wholly above keeps its mean term, one wholly below adds 0.
    """
    ops, xp = ranking.ops, ranking.xp
    visible = ranking.visible(None)
    sizes = ops.as_float(ranking.block_sizes) if ranking.has_ties else ops.ones(ranking.n_rows)
    kept = xp.where(visible > 0, kept, 0.0)
    cut = ops.flatnonzero((in_block > 0) & (visible > 0) & (visible < sizes))  # at most one block per query
    if cut.shape[0] == 0:
        return kept
    m, s, v, c, limit, scale = (
        ops.to_host(ops.take(values, cut)) for values in (sizes, nonrelevant_in_block, visible, above, limit, scale)
    )
    m, s, v = m.astype(np.int64), s.astype(np.int64), v.astype(np.int64)
    x = np.arange(int(s.max()) + 1)
    placed = cutoff_probabilities(m, s + 1, v, len(x))[:, 1:]  # P(Y > x), x = 0 .. max s (0 past s)
    with np.errstate(divide="ignore", invalid="ignore"):
        lost = np.where(scale[:, None] > 0, np.minimum(c[:, None] + x, limit[:, None]) / scale[:, None], 0.0)
    result = np.array(ops.to_host(kept), dtype=np.float64)
    result[ops.to_host(cut)] = np.sum(placed * (1.0 - lost), axis=1) / (s + 1.0)
    return ops.asarray(result)


def _rank_biased_precision(ranking, *, p=0.8, k=None, relevance_threshold=1, graded=False):
    ops, xp = ranking.ops, ranking.xp
    if p == 1:  # refused before the range, with why
        raise ValueError("p must be below 1: RBP with p=1 weighs every rank equally and has no finite sum.")
    p = check_real("p", p, low=0, high=1, low_open=True, high_open=True)
    graded = check_graded(graded)
    labels = ranking.judged_labels
    if graded is True:
        # Gains in [0, 1]: each label over its query's largest (trec_eval's scaling).
        top = ops.segment_max(labels, ranking.query_starts)
        gains = labels / ops.take(xp.maximum(top, 1.0), ranking.query_of_row)
    else:
        threshold = check_real("relevance_threshold", relevance_threshold, low=0, low_open=True)
        gains = xp.where(labels >= threshold, labels, 0.0) if graded == "raw" else ops.as_float(labels >= threshold)
    bound = None if graded == "raw" else 1.0
    ranking = ranking.with_labels(gains, whole=graded is False, bound=bound)
    dcg, defined = _dcg(ranking, k=k, discount=lambda ranks: p ** (ranks - 1.0))
    return (1.0 - p) * dcg, defined


def check_graded(graded):
    """RBP's ``graded``: False, True or "raw" (a numpy bool as a bool)."""
    if isinstance(graded, bool | np.bool_):
        return bool(graded)
    if isinstance(graded, str) and graded == "raw":
        return graded
    raise ValueError(f"graded must be False, True or 'raw'; got {plain(graded)!r}.")


def rbp_residual(ranking, *, p=0.8, k=None, judged=None):
    """The most RBP could rise if every unjudged retrieved document, and every rank past the list, were relevant.

    The weight past the list is p ** (documents examined); the unjudged
    documents' weights, (1 - p) p ** (rank - 1) each, are a DCG of the
    unjudged ones with that discount, which averages tied scores exactly.
    """
    examined = ranking.n_retrieved if k is None else ranking.xp.minimum(ranking.n_retrieved, k)
    residual = p ** ranking.ops.as_float(examined)
    if judged is not None:
        unjudged = ranking.with_labels(ranking.ops.as_float(~judged), bound=1.0)
        residual = residual + (1.0 - p) * _dcg(unjudged, k=k, discount=lambda ranks: p ** (ranks - 1.0))[0]
    return residual


def _interpolated_precision(
    ranking, *, recall_levels=ELEVEN_POINTS, relevance_threshold=1, interpolation="trec_eval10"
):
    if ranking.has_ties:
        raise ValueError(
            "interpolated precision is defined on one ordering of the documents and cannot average ties; "
            "use ties='stable', 'pessimistic' or 'optimistic' (or, for TREC runs, ties=None)."
        )
    ops, xp = ranking.ops, ranking.xp
    levels = ops.asarray(check_recall_levels(recall_levels))
    offset = INTERPOLATIONS[check_option("interpolation", interpolation, tuple(INTERPOLATIONS))]
    relevant, n_relevant, _ = relevance(ranking, relevance_threshold)
    found = RelevantRows(ranking, relevant, n_relevant)
    n_found, n_rows = found.n_found, found.precision.shape[0]
    if n_rows == 0:
        return ops.zeros((ranking.n_queries, levels.shape[0])), n_relevant > 0
    # Interpolated precision at the j-th relevant document: the best precision at it or below.
    starts = found.found_starts[n_found > 0] if ops.compacts else ranking.query_starts
    best_below = ops.segment_suffix_max(found.precision, starts)
    # trec_eval's cutoff for recall level x: the round(x R)-th relevant document (trec_eval 9: floor(x R + 0.9)).
    needed = ops.astype(xp.floor(ops.as_float(n_relevant)[:, None] * levels[None, :] + offset), xp.int64)
    reached = (needed <= n_found[:, None]) & (n_found[:, None] > 0)
    index = found.at(needed)
    values = xp.where(reached, xp.reshape(ops.take(best_below, xp.reshape(index, (-1,))), index.shape), 0.0)
    return values, n_relevant > 0


def check_recall_levels(recall_levels):
    levels = as_float_array(recall_levels, "recall_levels")
    if not (np.all((levels >= 0) & (levels <= 1)) and len(np.unique(levels)) == len(levels)):
        raise ValueError(f"recall_levels must be distinct numbers in [0, 1]; got {plain(recall_levels)!r}.")
    return levels


@array_api_support(in_namespace=True)
@fill_doc
def bpref_score(
    y_true,
    y_score,
    *,
    qid=None,
    judged=None,
    relevance_threshold=1,
    ties="average",
    sample_weight=None,
    average=True,
    zero_division=0.0,
):
    r"""Binary preference (bpref): how rarely judged non-relevant documents outrank relevant ones.

    Parameters
    ----------
    %(y_true_y_score)s
    %(qid)s
    judged : array-like of bool of shape (n_samples,), default=None
        Whether each row was judged; unjudged rows are skipped (neither
        relevant nor non-relevant), as bpref intends for incomplete
        judgements. None: every row was judged.
    %(relevance_threshold)s
    %(ties)s
    %(sample_weight)s
    %(average)s
    %(zero_division)s

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        The bpref of each query or their mean, in [0, 1].

    See Also
    --------
    mean_average_precision_score : Penalises every document above a relevant one.

    Notes
    -----
    .. math:: \mathrm{bpref} = \frac{1}{R} \sum_{r} \left(1 - \frac{\min(n_r, R)}{\min(N, R)}\right)

    over the retrieved relevant documents :math:`r`, where :math:`n_r` counts
    the judged non-relevant documents ranked above :math:`r`, :math:`R` the
    relevant documents of the query and :math:`N` its judged non-relevant
    ones (retrieved or not: rows scored ``-inf`` count). A term is 1 when
    :math:`n_r = 0`. This is trec_eval's ``bpref``. With ties averaged, a
    relevant document in a block with :math:`s` judged non-relevant ones has
    0 to :math:`s` of them above it with equal chance, so the mean is exact.
    A query without a relevant document scores ``zero_division``.

    References
    ----------
    .. [1] C. Buckley and E. M. Voorhees, "Retrieval evaluation with
       incomplete information", SIGIR 2004.

    Examples
    --------
    Relevant, non-relevant, relevant: the second relevant document is outranked
    by the one judged non-relevant document, so bpref = (1 + 0) / 2.

    >>> from sklearn_rankmetrics import bpref_score
    >>> bpref_score([1, 0, 1], [3, 2, 1])
    0.5
    """
    return evaluate(
        _bpref,
        y_true,
        y_score,
        qid=qid,
        ties=ties,
        sample_weight=sample_weight,
        average=average,
        zero_division=zero_division,
        judged=judged,
        relevance_threshold=relevance_threshold,
    )


@array_api_support(in_namespace=True)
@fill_doc
def rank_biased_precision_score(
    y_true,
    y_score,
    *,
    qid=None,
    p=0.8,
    k=None,
    relevance_threshold=1,
    graded=False,
    judged=None,
    return_residual=False,
    ties="average",
    sample_weight=None,
    average=True,
    zero_division=0.0,
):
    r"""Rank-biased precision (RBP): the gain per document of a user who reads on with probability p.

    Parameters
    ----------
    %(y_true_y_score)s
    %(qid)s
    p : float, default=0.8
        Persistence: the probability of reading on after each document, in
        (0, 1). 0.8 as ir_measures; trec_eval's ``rbp`` uses 0.9.
    %(k)s
    %(relevance_threshold)s
    graded : {False, True, "raw"}, default=False
        False: the gain of a document is 1 when it is relevant, else 0.
        True: its label over the largest label of its query (when that is
        above 1), trec_eval's scaling of graded gains into [0, 1].
        ``"raw"``: its label itself when it is relevant, else 0, as ranx's
        ``rbp.95`` (RBP can then exceed 1).
    judged : array-like of bool of shape (n_samples,), default=None
        Whether each row was judged; only used for the residual. None: all.
    return_residual : bool, default=False
        Also return the residual: the most RBP could rise if every unjudged
        retrieved document within ``k`` and every rank past the examined list
        had gain 1.
    %(ties)s
    %(sample_weight)s
    %(average)s
    %(zero_division)s

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        RBP, in [0, 1] (up to the largest label with ``graded="raw"``).
    residual : float or ndarray of shape (n_queries,)
        Only with ``return_residual``: the residual, averaged like ``score``.

    See Also
    --------
    dcg_score : The same sum with a logarithmic discount.
    expected_reciprocal_rank_score : A cascade model where relevant documents end the search.

    Notes
    -----
    .. math:: \mathrm{RBP} = (1 - p) \sum_{i \ge 1} g_i\, p^{i-1}

    With ties averaged, each document of a tie block gets the block's mean
    gain, as for DCG, and the residual is its exact mean over the orderings
    too: each unjudged document of a block gets the block's mean weight. RBP
    has no normalisation, but a query without any gain still scores
    ``zero_division``, like DCG.

    The name ``"rbp"`` is this function with its defaults everywhere in the
    library, :func:`~sklearn_rankmetrics.trec.evaluate_run` included.
    trec_eval's ``rbp`` is ``p=0.9, graded=True``: ``"rbp.p=0.9"`` in
    ``evaluate_run``, ``-m rbp`` in the trec_eval command. ranx's ``rbp.95``
    is ``p=0.95, graded="raw"``; ir_measures' ``RBP(rel=1)`` the defaults.

    References
    ----------
    .. [1] A. Moffat and J. Zobel, "Rank-biased precision for measurement of
       retrieval effectiveness", ACM TOIS 27(1), 2008.

    Examples
    --------
    >>> from sklearn_rankmetrics import rank_biased_precision_score
    >>> round(rank_biased_precision_score([1, 0, 1], [3, 2, 1], p=0.5), 4)  # 0.5 (1 + 0.25)
    0.625
    """
    check_flag("return_residual", return_residual)
    options = {"qid": qid, "ties": ties, "sample_weight": sample_weight}
    metric = {"p": p, "k": k, "relevance_threshold": relevance_threshold, "graded": graded}
    if not return_residual:
        return evaluate(
            _rank_biased_precision, y_true, y_score, **options, average=average, zero_division=zero_division, **metric
        )
    check_flag("average", average)
    check_zero_division(zero_division)
    ranking, order = rank_queries(y_true, y_score, return_order=True, **options)
    values, defined = _rank_biased_precision(ranking, **metric)
    judged = judged_in_rank_order(judged, order, ranking.n_rows, ranking.ops)
    residual = rbp_residual(ranking, p=p, k=ranking.cutoff(k), judged=judged)
    both = [ranking.fill_undefined(each, defined, zero_division) for each in (values, residual)]
    if not average:
        ranking.ops.flush()
        return tuple(both)
    return tuple(ranking.means(both))  # one read from a device


@array_api_support(in_namespace=True)
@fill_doc
def interpolated_precision_score(
    y_true,
    y_score,
    *,
    qid=None,
    recall_levels=ELEVEN_POINTS,
    relevance_threshold=1,
    interpolation="trec_eval10",
    ties="stable",
    sample_weight=None,
    average=True,
    zero_division=0.0,
):
    r"""Interpolated precision at recall levels: the points of the standard recall-precision graph.

    Parameters
    ----------
    %(y_true_y_score)s
    %(qid)s
    recall_levels : array-like of float, default=(0.0, 0.1, ..., 1.0)
        Distinct recall levels in [0, 1]; the default is trec_eval's 11 points.
    %(relevance_threshold)s
    interpolation : {"trec_eval10", "trec_eval9"}, default="trec_eval10"
        Which relevant document a recall level x asks for, among the query's
        R: ``"trec_eval10"``, the round(x R)-th (halves up), as trec_eval 10's
        ``iprec_at_recall`` (and :func:`~sklearn_rankmetrics.trec.evaluate_run`);
        ``"trec_eval9"``, the floor(x R + 0.9)-th, as trec_eval 9, whose values
        pytrec_eval and ir_measures' ``IPrec@x`` report.
    ties : {"stable", "pessimistic", "optimistic"}, default="stable"
        Order of documents with equal scores: input order, worst label first
        or best label first. (A maximum over ranks has no exact average over
        the orderings of ties that is cheap to compute, so ``"average"`` is
        not offered.)
    %(sample_weight)s
    average : bool, default=True
        Return the weighted mean over queries, one value per level; False:
        one row per query, ordered like ``np.unique(qid)``.
    %(zero_division)s

    Returns
    -------
    score : ndarray of shape (n_levels,) or (n_queries, n_levels)
        Interpolated precision at each recall level, in [0, 1].

    See Also
    --------
    mean_average_precision_score : The area under the uninterpolated curve.

    Notes
    -----
    The interpolated precision at recall :math:`x` is the highest precision
    at any rank at or below the :math:`\mathrm{round}(xR)`-th relevant
    document (the first for :math:`x = 0`), and 0 when fewer relevant
    documents were retrieved, as trec_eval 10's ``iprec_at_recall`` (rounding
    halves up; ``interpolation="trec_eval9"``: the
    :math:`\lfloor xR + 0.9 \rfloor`-th, which is 0 and so the first too for
    small :math:`x`). Its mean over the 11 default levels is trec_eval's
    ``11pt_avg``. A query without a relevant document scores
    ``zero_division``.

    Examples
    --------
    >>> from sklearn_rankmetrics import interpolated_precision_score
    >>> interpolated_precision_score([1, 0, 1, 0], [4, 3, 2, 1], recall_levels=[0.0, 0.5, 1.0])
    array([1.        , 1.        , 0.66666667])

    With three relevant documents, recall 0.4 asks for the first (round(1.2))
    in trec_eval 10 and the second (floor(1.2 + 0.9)) in trec_eval 9:

    >>> y_true, y_score = [1, 0, 1, 1], [4, 3, 2, 1]
    >>> float(interpolated_precision_score(y_true, y_score, recall_levels=[0.4])[0])
    1.0
    >>> nine = interpolated_precision_score(y_true, y_score, recall_levels=[0.4], interpolation="trec_eval9")
    >>> round(float(nine[0]), 4)
    0.75
    """
    check_option("ties", ties, STRICT_TIES)
    check_zero_division(zero_division)
    check_flag("average", average)
    ranking = rank_queries(y_true, y_score, qid=qid, ties=ties, sample_weight=sample_weight)
    values, defined = _interpolated_precision(
        ranking, recall_levels=recall_levels, relevance_threshold=relevance_threshold, interpolation=interpolation
    )
    values = ranking.fill_undefined(values, defined[:, None], zero_division)
    if not average:
        ranking.ops.flush()
        return values
    means = ranking.means([values[:, level] for level in range(values.shape[1])])  # one read from a device
    return ranking.ops.asarray(np.array(means))
