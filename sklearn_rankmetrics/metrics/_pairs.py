"""Pairwise agreement: the share of a query's differently labelled pairs that a ranking puts in order."""

import numpy as np

from .._core._array_api import array_api_support
from .._core._docs import fill_doc
from .._core._inputs import evaluate
from .._core._numpy_ops import differs_from_previous, positions_in_segments
from ._overlap import check_no_depth

# With at most this many distinct labels, pairs are counted label by label (a pass over the rows each);
# beyond, by merging sorted halves (log2 of the longest query passes).
FEW_LABELS = 16


def _ordered_pair_accuracy(ranking):
    check_no_depth(ranking, "opa")
    labels = ranking.judged_labels
    codes = np.unique(labels, return_inverse=True)[1].reshape(-1)  # dense ranks of the labels
    blocks = pair_blocks(ranking)
    # Each block's rows by ascending label: then no pair inside a block is in order, and the pairs in order
    # are the pairs of rows in different blocks whose upper row has the higher label.
    order = np.lexsort((codes, blocks))
    codes, blocks = codes[order], blocks[order]
    starts, n_queries = ranking.query_starts, ranking.n_queries
    in_order = ranking.query_sum(higher_above(codes, starts, ranking.query_sizes).astype(np.float64))
    # Differently labelled pairs: all pairs less those of equal labels, per query and per block.
    pairs = different_pairs(ranking.query_of_row, codes, ranking.query_sizes)
    block_starts = np.flatnonzero(differs_from_previous(blocks))
    block_query = ranking.query_of_row[order][block_starts]
    within = np.zeros(n_queries)
    np.add.at(within, block_query, pairs_of_runs(blocks, codes, block_starts))
    values = (in_order + 0.5 * within) / np.maximum(pairs, 1.0)
    if ranking.retrieved is not None:  # a query that retrieved nothing orders nothing: 0, not 1/2 for every pair
        values = np.where(ranking.n_retrieved > 0, values, 0.0)
    return values, pairs > 0


def pair_blocks(ranking):
    """The block of each row (in rank order) for counting pairs: its tie block, and one for all rows not retrieved.

    Documents that were not retrieved have no order among themselves: each pair of them counts 1/2.
    """
    is_start = np.zeros(ranking.n_rows, dtype=bool)
    is_start[ranking.block_starts if ranking.has_ties else slice(None)] = True
    is_start[ranking.query_starts] = True
    if ranking.retrieved is not None:
        hidden = ~ranking.retrieved
        is_start[1:] &= ~(hidden[1:] & hidden[:-1])
        is_start[ranking.query_starts] = True
    return np.cumsum(is_start) - 1


def different_pairs(query, codes, sizes):
    """Per query, the pairs of rows with different label codes: n (n - 1) / 2 less the pairs of equal codes."""
    n_codes = int(codes.max()) + 1
    keys, counts = np.unique(query.astype(np.int64) * n_codes + codes, return_counts=True)
    counts = counts.astype(np.float64)
    equal = np.bincount(keys // n_codes, weights=counts * (counts - 1.0) / 2.0, minlength=len(sizes))
    sizes = sizes.astype(np.float64)
    return sizes * (sizes - 1.0) / 2.0 - equal


def pairs_of_runs(blocks, codes, block_starts):
    """Per block, its pairs of rows with different labels (rows grouped by block and label)."""
    sizes = np.diff(np.append(block_starts, len(blocks))).astype(np.float64)
    label_starts = differs_from_previous(codes) | differs_from_previous(blocks)
    runs = np.diff(np.flatnonzero(np.append(label_starts, True))).astype(np.float64)
    block_of_run = np.cumsum(differs_from_previous(blocks))[label_starts] - 1
    equal = np.bincount(block_of_run, weights=runs * (runs - 1.0) / 2.0, minlength=len(block_starts))
    return sizes * (sizes - 1.0) / 2.0 - equal


def higher_above(codes, starts, sizes):
    """For each row, how many rows above it in its query have a higher label code (whole numbers)."""
    n_labels = int(codes.max()) + 1
    if n_labels <= FEW_LABELS:
        return higher_above_by_label(codes, starts, sizes, n_labels)
    return higher_above_by_merging(codes, starts, sizes)


def higher_above_by_label(codes, starts, sizes, n_labels):
    """:func:`higher_above` label by label: for each label, a running count of its rows above each row."""
    count = np.zeros(len(codes), dtype=np.int64)
    query_start = np.repeat(starts, sizes)
    for label in range(1, n_labels):
        is_label = codes == label
        running = np.cumsum(is_label)  # whole numbers: differences are exact
        before = running - is_label
        count += np.where(codes < label, before - (running[query_start] - is_label[query_start]), 0)
    return count


def higher_above_by_merging(codes, starts, sizes):
    """:func:`higher_above` by a bottom-up merge over each query's rows, all queries at once.

    At pass s the rows of each query form chunks of 2 ** (s + 1) places; a
    row of a chunk's second half counts the rows of its first half with a
    higher code, by a search among them (sorted: one sort of integer keys
    that hold the chunk and the code, for all chunks at once). Every pair of
    rows is in the two halves of exactly one chunk, so the counts add up:
    log2 of the longest query passes of a sort each.
    """
    positions = positions_in_segments(starts, len(codes)).astype(np.int64)
    query = np.repeat(np.arange(len(starts)), sizes)
    n_codes = int(codes.max()) + 1
    count = np.zeros(len(codes), dtype=np.int64)
    longest = int(sizes.max())
    width = 1
    while width < longest:
        chunk = positions // (2 * width)
        second = (positions // width) % 2 == 1
        # A number per chunk of each query (queries have at most longest / (2 width) + 1 chunks).
        chunk_id = (query * (longest // (2 * width) + 1) + chunk).astype(np.int64)
        keys = np.sort(chunk_id[~second] * n_codes + codes[~second])
        ends = np.searchsorted(keys, (chunk_id[second] + 1) * n_codes)
        at_most = np.searchsorted(keys, chunk_id[second] * n_codes + codes[second], side="right")
        count[second] += ends - at_most
        width *= 2
    return count


@array_api_support
@fill_doc
def ordered_pair_accuracy_score(
    y_true,
    y_score,
    *,
    qid=None,
    ties="average",
    sample_weight=None,
    average=True,
    zero_division=0.0,
):
    r"""Ordered pair accuracy (OPA): the share of a query's differently labelled pairs ranked in label order.

    Parameters
    ----------
    %(y_true_y_score)s
    %(qid)s
    %(ties)s
        With ``"average"`` a pair of tied documents counts 1/2;
        ``"pessimistic"`` counts it 0 (TF-Ranking's convention), and
        ``"optimistic"`` 1.
    %(sample_weight)s
    %(average)s
    zero_division : {0.0, 1.0, np.nan}, default=0.0
        Value of a query whose documents all have the same label (no pair to
        order): 0.0, 1.0, or ``np.nan`` to leave it out of the mean.

    Returns
    -------
    score : float or ndarray of shape (n_queries,)
        OPA, in [0, 1]: 1/2 for scores that tell nothing (all tied).

    See Also
    --------
    sklearn.metrics.roc_auc_score : OPA of each query for binary labels.

    Notes
    -----
    .. math:: \mathrm{OPA} = \frac{\sum_{y_i > y_j} \big([s_i > s_j] + \tfrac{1}{2} [s_i = s_j]\big)}
              {|\{(i, j) : y_i > y_j\}|}

    over the pairs of documents of a query. It is the mean over the
    orderings of the ties of the share of pairs in order, so that for binary
    labels it is each query's ROC AUC. Documents scored ``-inf`` rank below
    the others and count as tied among themselves, whatever ``ties``; a query
    that retrieved nothing (every row ``-inf``) scores 0. This is
    TF-Ranking's ``OPAMetric`` and CatBoost's ``PairAccuracy`` per query
    (both count tied pairs as out of order: ``ties="pessimistic"``). Pairs
    are counted by sorting, in time n log n per query (n times the number of
    distinct labels, for up to 16 of them), never n^2.

    Examples
    --------
    >>> from sklearn_rankmetrics import ordered_pair_accuracy_score
    >>> # Pairs (2, 1), (2, 0) and (1, 0): the first two in order, the last tied
    >>> ordered_pair_accuracy_score([2, 0, 1], [0.9, 0.2, 0.2])
    0.8333333333333334
    >>> ordered_pair_accuracy_score([2, 0, 1], [0.9, 0.2, 0.2], ties="pessimistic")
    0.6666666666666666
    """
    return evaluate(
        _ordered_pair_accuracy,
        y_true,
        y_score,
        qid=qid,
        ties=ties,
        sample_weight=sample_weight,
        average=average,
        zero_division=zero_division,
    )
