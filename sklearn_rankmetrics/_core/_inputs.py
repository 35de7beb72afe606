"""The one input step: labels, scores, query ids, weights and masks become a validated :class:`Ranking`.

Every metric, the report, the scorers and the comparison enter here once:
numpy rows, 2-D layouts, sparse users x items matrices, subtopic judgement
matrices and arrays of another namespace (on their device) all become one
:class:`~sklearn_rankmetrics._core._ranking.Ranking`. The TREC evaluation
builds its Ranking in ``trec/_judging`` instead, since trec_eval's order of
ties, its depth and its unjudged rows come before the ranking.
"""

from collections import namedtuple

import numpy as np

from ._array_api import is_foreign, namespace_of, to_numpy
from ._device_graphs import options_key, run_steps
from ._namespace_ops import ArrayApiOps
from ._numpy_ops import group_by_query
from ._query_ids import encode_qid
from ._ranking import Ranking, build_ranking, judged_in_rank_order, reported_means
from ._sparse import candidate_rows, canonical_csr, is_sparse
from ._validation import (
    TIES,
    as_float_array,
    check_finite,
    check_flag,
    check_labels,
    check_option,
    check_sample_weight,
    check_scores,
    check_zero_division,
)


def rank_queries(y_true, y_score, *, qid=None, ties="average", sample_weight=None, return_order=False, depth=None):
    """Validate the inputs of a metric and return their :class:`Ranking` (and the order that sorts them).

    ``y_true`` and ``y_score`` are 1-D with one row per document and ``qid`` the
    query of each row (None: a single query), or 2-D with one query per row and
    ``qid=None``, the layout of :func:`sklearn.metrics.ndcg_score`. A 2-D
    ``y_true`` may be a scipy sparse matrix: when the metrics look no deeper
    than ``depth`` (and the order is not wanted), only the rows they can see
    are ranked; otherwise it is made dense. Arrays of another namespace
    (which reach a metric only under ``array_api_dispatch``) are ranked in
    that namespace, on their device (:func:`rank_in_namespace`).
    """
    ties = check_option("ties", ties, TIES)
    found = namespace_of((y_true, y_score, qid, sample_weight))
    if found is not None:
        ranking, order = rank_in_namespace(
            y_true, y_score, qid=qid, ties=ties, sample_weight=sample_weight, ops=ArrayApiOps(*found)
        )
        return (ranking, order) if return_order else ranking
    if is_sparse(y_true):
        if depth is not None and not return_order and 0 not in y_true.shape:  # an empty one: the dense checks name it
            return rank_sparse(y_true, y_score, qid=qid, ties=ties, sample_weight=sample_weight, depth=depth)
        y_true = y_true.toarray()
    y_true = as_float_array(y_true, "y_true", ndim=(1, 2))
    y_score = as_float_array(y_score, "y_score", ndim=(1, 2))
    if y_true.shape != y_score.shape:
        raise ValueError(
            f"y_true and y_score must have the same shape; got {y_true.shape} and {y_score.shape}. "
            "Give one label and one score per document."
        )
    check_labels(y_true)
    check_scores(y_score)
    if y_true.ndim == 2:
        if qid is not None:
            raise ValueError(
                "qid must be None when y_true and y_score are 2-D (one query per row); "
                "to pass qid, give 1-D arrays with one row per document."
            )
        n_queries, n_docs = y_true.shape
        codes = np.repeat(np.arange(n_queries), n_docs)
        weight = check_sample_weight(sample_weight, n_queries)
        weight = None if weight is None else np.repeat(weight, n_docs)
        y_true, y_score = y_true.ravel(), y_score.ravel()
    else:
        n_rows = len(y_true)
        codes = np.zeros(n_rows, dtype=np.int64) if qid is None else encode_qid(qid, n_rows)
        weight = check_sample_weight(sample_weight, n_rows)

    ranking, order = build_ranking(y_true, y_score, codes, ties=ties, weight=weight, qid=qid)
    return (ranking, order) if return_order else ranking


def rank_sparse(y_true, y_score, *, qid, ties, sample_weight, depth):
    """The :class:`Ranking` of a sparse users x items ``y_true``, for metrics at cutoffs up to ``depth``."""
    y_true, y_score = canonical_csr(y_true), as_float_array(y_score, "y_score", ndim=(2,))
    if qid is not None or y_true.shape != y_score.shape:
        raise ValueError(
            f"a sparse y_true is a users x items matrix: give qid=None and a y_score of the same shape; got shapes "
            f"{y_true.shape} and {y_score.shape}{' and a qid' if qid is not None else ''}."
        )
    check_labels(np.concatenate((sparse_values(y_true), [0.0])))
    check_scores(y_score)
    weight = check_sample_weight(sample_weight, y_score.shape[0])
    labels, scores, users = candidate_rows(y_true, y_score, depth)
    return build_ranking(labels, scores, users, ties=ties, weight=None if weight is None else weight[users])[0]


def sparse_values(matrix):
    """The stored values of a scipy sparse matrix, as float64."""
    return np.asarray(matrix.tocoo().data, dtype=np.float64)


def evaluate(metric, y_true, y_score, *, qid, ties, sample_weight, average, zero_division, judged=None, **params):
    """Validate the inputs, rank them, apply ``metric`` and reduce over queries.

    ``metric(ranking, **params)`` returns each query's value and whether the
    query has a relevant document (where it is undefined otherwise). A
    ``judged`` mask (one bool per row) reaches the metric in rank order.
    Arrays of another namespace (passed on under dispatch by
    ``array_api_support(in_namespace=True)``) are ranked and measured in that
    namespace, on their device.
    """
    check_zero_division(zero_division)
    check_flag("average", average)
    found = namespace_of((y_true, y_score, qid, sample_weight))
    if found is not None and judged is None:
        ties = check_option("ties", ties, TIES)
        measured = measure_in_namespace(
            [(metric, params, zero_division)],
            (y_true, y_score, qid, sample_weight),
            ties=ties,
            namespace=found,
            average=average,
        )
        return measured.means[0] if average else measured.values[0]
    options = {"qid": qid, "ties": ties, "sample_weight": sample_weight, "depth": params.get("k")}
    if judged is None:
        ranking = rank_queries(y_true, y_score, **options)
    else:  # the order too, to bring the mask into rank order
        ranking, order = rank_queries(y_true, y_score, return_order=True, **options)
        params["judged"] = judged_in_rank_order(judged, order, ranking.n_rows, ranking.ops)
    values, defined = metric(ranking, **params)
    return ranking.aggregate(values, defined, average=average, zero_division=zero_division)


class Measured(namedtuple("Measured", ["values", "first_rows", "means", "n_undefined", "n_queries"])):
    """What :func:`measure_in_namespace` found: each metric's per-query values and the first row of each query
    (on the device), or their means and how many queries entered each undefined (read on the host)."""


def measure_in_namespace(requests, inputs, *, ties, namespace, average=True, for_report=False):
    """Several metrics of one ranking of arrays of another ``namespace``, there: device steps around one read.

    ``requests`` holds ``(metric, params, zero_division)`` triples, each
    metric as :func:`evaluate` takes it. The rows are checked and sorted
    (:func:`sort_in_namespace`) and the host reads their facts
    (:func:`read_facts`). Then each metric measures on the ranking built from
    them (:func:`ranking_in_namespace`) and stages the sums of its mean
    (``average``), which the host reads last, in one copy. Each device step
    launches the same operations whenever the inputs' shapes, the facts and
    the options are the same: :func:`~._device_graphs.run_steps` replays them
    as CUDA graphs on PyTorch's GPUs, each metric's measure on its own (one
    that must read back, such as ERR's with ties, does not keep the others
    from replaying). Each step makes its own operations (their caches).
    ``for_report``: the report's extras too, how many queries entered each
    mean undefined or (``average=False``) the first row of each query in
    rank order, for its id.
    """

    def sort(y_true, y_score, qid, sample_weight):
        return sort_in_namespace(y_true, y_score, qid, sample_weight, ties=ties, ops=ArrayApiOps(*namespace))

    def read(rows):
        return read_facts(rows, inputs, ties=ties, ops=ArrayApiOps(*namespace))

    def measuring(metric, params, zero_division):
        def measure(rows, facts):
            ops = ArrayApiOps(*namespace)
            ranking = ranking_in_namespace(rows, facts, ties=ties, ops=ops)[0]
            values, defined = metric(ranking, **params)
            values, weights = ranking.fill_undefined(values, defined, zero_division), ranking.query_weights
            if not average:
                return values, weights, ops.stage()
            undefined = [ops.xp.sum(ops.astype(~defined, ops.xp.int64))] if for_report else []
            return values, weights, ops.stage(*ops.weighted_sums([values], weights), *undefined)

        return measure

    def first_rows(rows, facts):  # of each query in rank order, where the report finds its id
        ops = ArrayApiOps(*namespace)
        ranking = ranking_in_namespace(rows, facts, ties=ties, ops=ops)[0]
        return ops.xp.take(rows.order, ranking.query_starts), None, ops.stage()

    def conclude(measured):
        ops = ArrayApiOps(*namespace)
        found = iter(ops.fetch(*(staged for _, _, staged in measured)))  # and the metrics' checks raise
        n_queries = measured[0][0].shape[0] if measured else 0  # each measure's values are per query
        if not average:
            values = [values for values, _, _ in measured]
            return Measured(values[: len(requests)], values[-1] if for_report else None, None, None, n_queries)
        means, n_undefined = [], []
        for values, weights, _ in measured:
            sums = [next(found), next(found)]  # the values' (weighted) sum and the total weight
            means += ops.means_of_sums(sums, [values], weights)
            n_undefined += [int(next(found))] if for_report else []
        return Measured(None, None, reported_means(means), n_undefined, n_queries)

    measures = [measuring(*request) for request in requests]
    keys = [
        options_key(metric, average, zero_division, for_report, params=params)
        for metric, params, zero_division in requests
    ]
    if for_report and not average:
        measures, keys = [*measures, first_rows], [*keys, ("first rows",)]
    return run_steps(inputs, sort, read, measures, conclude, keys=((ties,), keys))


def rank_in_namespace(y_true, y_score, *, qid, ties, sample_weight, ops):
    """The :class:`Ranking` of arrays of another namespace and the order that sorts them, built in ``ops``.

    Three steps (:func:`sort_in_namespace`, :func:`read_facts`,
    :func:`ranking_in_namespace`): the rows are checked and sorted on their
    device, the host reads what it needs in one copy, and the ranking is built
    on the device from that.
    """
    rows = sort_in_namespace(y_true, y_score, qid, sample_weight, ties=ties, ops=ops)
    facts = read_facts(rows, (y_true, y_score, qid, sample_weight), ties=ties, ops=ops)
    return ranking_in_namespace(rows, facts, ties=ties, ops=ops)


class SortedRows:
    """Rows of another namespace sorted on their device: the arrays a :class:`Ranking` is built from, and what
    the host must read first (``staged``, see :meth:`ArrayApiOps.stage`)."""

    def __init__(self, **arrays):
        self.__dict__.update(arrays)


def sort_in_namespace(y_true, y_score, qid, sample_weight, *, ties, ops):
    """Check and sort the rows on their device: a :class:`SortedRows`, or None when shapes or types are wrong.

    The rows stay on their device: only query ids that are not an array of the
    namespace (strings, lists) are encoded on the host. The inputs are checked
    through their extremes (NaN propagates to them), which are staged for the
    host with the facts it needs (the numbers of queries and tie blocks, the
    longest query and block, the largest label), to come back in one copy.
    Every run of rows (a query, a tie block) is numbered by a running count of
    its starts, and the first row of each run is found by one search for every
    number up to the rows': the runs' bounds, whose first entries are the
    starts once their number is known, so that no shape depends on the data.
    Nothing here waits for the device.
    """
    xp = ops.xp
    rows = rows_in_namespace(y_true, y_score, qid, sample_weight, ops)
    if rows is None:
        return None
    labels, scores, codes, weight, extremes = rows
    n_rows = labels.shape[0]
    order, sorted_codes, sorted_scores = ops.sort_rows(codes, scores, ties=ties, y_true=labels)
    places = ops.arange(n_rows + 1)
    new_query = sorted_codes[1:] != sorted_codes[:-1]
    query_of_row, query_bounds = numbered_runs(new_query, places, ops)
    query_start_of_row = xp.take(query_bounds, query_of_row)
    positions = places[:-1] - query_start_of_row
    facts = [query_of_row[-1], xp.max(positions)]  # the last query's number, the longest query's last place
    sorted_weight = None if weight is None else xp.take(weight, order)
    if sorted_weight is not None:  # constant within each query, or the host names the query
        extremes.append(xp.any(sorted_weight != xp.take(sorted_weight, query_start_of_row)))
    found = SortedRows(
        labels=xp.take(labels, order),
        order=order,
        sorted_scores=sorted_scores,
        query_of_row=query_of_row,
        query_bounds=query_bounds,
        positions=positions,
        sorted_weight=sorted_weight,
        n_extremes=len(extremes),
    )
    if ties == "average":
        new_block = new_query | (sorted_scores[1:] != sorted_scores[:-1])
        block_of_row, block_bounds = numbered_runs(new_block, places, ops)
        block_sizes = block_bounds[1:] - block_bounds[:-1]  # 0 past the last block
        # The blocks above each row's in its query: the most, at a query's last row, is one less than its blocks.
        blocks_above = block_of_row - xp.take(block_of_row, query_start_of_row)
        facts += [block_of_row[-1], xp.max(block_sizes), xp.max(blocks_above)]
        found.__dict__.update(block_of_row=block_of_row, block_bounds=block_bounds, block_sizes=block_sizes)
    found.staged = ops.stage(*extremes, *facts)
    return found


def read_facts(rows, inputs, *, ties, ops):
    """What the host learns of :func:`sort_in_namespace`'s rows, in one copy: the facts the ranking's shapes and
    branches follow (a tuple of numbers, see :func:`ranking_in_namespace`).

    Invalid ``inputs`` (labels, scores, query ids, weights) are handed to
    :func:`rank_queries` on the host, whose errors name the fix.
    """
    read = None if rows is None else ops.fetch(rows.staged)
    if read is None or not valid(*read[: rows.n_extremes]):
        y_true, y_score, qid, sample_weight = map(to_numpy, inputs)
        rank_queries(y_true, y_score, qid=qid, ties=ties, sample_weight=sample_weight)
        raise AssertionError("the host validation accepted inputs that the namespace's refused")  # pragma: no cover
    _, label_top, fraction, score_low = read[:4]
    counts = tuple(int(value) for value in read[rows.n_extremes :])
    return (float(label_top), fraction == 0.0, score_low == -np.inf, *counts)


def ranking_in_namespace(rows, facts, *, ties, ops):
    """The :class:`Ranking` of :func:`sort_in_namespace`'s rows, and the order that sorts them, built on their
    device from the host's ``facts`` (:func:`read_facts`) alone: whatever the host decides here follows from
    them, so that the same facts launch the same operations."""
    xp = ops.xp
    label_top, labels_whole, some_not_retrieved, last_query, longest_place, *block_facts = facts
    n_rows, n_queries, longest = rows.labels.shape[0], last_query + 1, longest_place + 1
    ops.label_top, ops.labels_whole = np.float64(label_top), labels_whole  # for the ranking's labels and subsets
    query_bounds, query_of_row = rows.query_bounds, rows.query_of_row
    query_starts = query_bounds[:n_queries]
    ops.register(query_starts, n_rows, longest, query_of_row, bounds=query_bounds[: n_queries + 1])
    ops.register_groups(query_of_row, query_starts)
    retrieved = rows.sorted_scores > -np.inf if some_not_retrieved else None
    query_weights = None if rows.sorted_weight is None else xp.take(rows.sorted_weight, query_starts)
    block_starts = None
    if ties == "average" and block_facts[0] + 1 < n_rows:
        n_blocks, longest_block, most_blocks = block_facts[0] + 1, block_facts[1], block_facts[2] + 1
        block_bounds = rows.block_bounds
        block_starts = block_bounds[:n_blocks]
        ops.register(
            block_starts,
            n_rows,
            longest_block,
            rows.block_of_row,
            bounds=block_bounds[: n_blocks + 1],
            sizes=rows.block_sizes,
        )
    ranking = Ranking(rows.labels, query_starts, block_starts, query_weights, retrieved, ops=ops)
    ranking.whole_labels = labels_whole and label_top * n_rows < 2**53  # sums of labels exact in float64
    ranking.label_bound = ops.label_top
    # What the host learnt and the device built on the way, for the ranking's cached properties.
    ranking.__dict__.update(positions=rows.positions, longest=longest, top_label=ops.label_top)
    ranking.__dict__.update(query_of_row=query_of_row)
    if block_starts is not None:
        # The first block of each query: the first block that starts at or after the query's start (the last
        # bound, n_rows, finds n_blocks).
        query_block_bounds = xp.searchsorted(block_bounds, query_bounds[: n_queries + 1])
        query_block_starts = query_block_bounds[:n_queries]
        ops.register(
            query_block_starts,
            n_blocks,
            most_blocks,
            lambda: xp.take(query_of_row, block_starts),
            bounds=query_block_bounds,
        )
        ranking.__dict__.update(query_block_starts=query_block_starts, longest_block=longest_block)
    return ranking, rows.order


def valid(label_low, label_top, fraction, score_low, score_top, *others):
    """Whether the extremes of the inputs (:func:`rows_in_namespace`) show them valid: labels finite and >= 0,
    scores below +inf, query ids finite, weights finite and >= 0 and constant within each query.

    A NaN anywhere makes its array's extremes NaN, which fail every comparison;
    the weights' low extreme is the root of their minimum, NaN if one is negative.
    """
    checks = [label_low >= 0.0, label_top < np.inf, score_top < np.inf]
    others = list(others)
    if len(others) % 2:  # the weights varied inside a query
        checks.append(not others.pop())
    for low, top in zip(others[::2], others[1::2], strict=True):  # query ids, weights
        checks.append(-np.inf < low and top < np.inf)
    return all(checks)


def numbered_runs(new_run, places, ops):
    """The run of equal values of each element (numbered from 0) and the runs' bounds.

    ``new_run`` marks the elements after the first that start a run, and
    ``places`` are 0 .. n (n elements). A running count numbers the runs; a
    search of every number up to n finds each run's first element: the
    bounds hold the runs' starts, then n from the place of the last run on.
    No shape depends on the data.
    """
    number = ops.running_count(ops.concat((ops.constant(False, ops.bool), new_run)))
    return number, ops.xp.searchsorted(number, places)


def rows_in_namespace(y_true, y_score, qid, sample_weight, ops):
    """Labels, scores, query codes and row weights (or None) as 1-D arrays of ``ops``, and their extremes.

    The extremes are 0-d arrays for :func:`valid`: the smallest and largest
    label, the largest fraction of a label (0 when all are whole numbers), the
    smallest and largest score, then those of floating query ids and of the
    weights. None when the shapes or types are already wrong.
    """
    xp = ops.xp
    if any(xp.isdtype(values.dtype, "complex floating") for values in (y_true, y_score) if is_foreign(values)):
        return None  # the host's validation refuses them, saying why
    y_true, y_score = (ops.asarray(values, dtype=ops.float64) for values in (y_true, y_score))
    if y_true.ndim not in (1, 2) or y_true.shape != y_score.shape or 0 in y_true.shape:
        return None
    n_rows = y_true.shape[0]
    if y_true.ndim == 1:
        codes, n_docs = query_codes_in_namespace(qid, n_rows, ops), 1
    elif qid is None:  # one query per row, whose sample_weight has one value per query
        n_docs, y_true, y_score = y_true.shape[1], xp.reshape(y_true, (-1,)), xp.reshape(y_score, (-1,))
        codes = xp.repeat(ops.arange(n_rows), n_docs), []
    else:
        return None
    if codes is None:
        return None
    codes, code_extremes = codes
    extremes = [xp.min(y_true), xp.max(y_true), xp.max(xp.remainder(y_true, 1.0)), xp.min(y_score), xp.max(y_score)]
    extremes += code_extremes
    if sample_weight is None:
        return y_true, y_score, codes, None, extremes
    weight = ops.asarray(sample_weight, dtype=ops.float64)
    if weight.shape != (n_rows,):
        return None
    extremes += [xp.sqrt(xp.min(weight)), xp.max(weight)]  # the root of a negative weight is NaN: refused
    return y_true, y_score, codes, weight if n_docs == 1 else xp.repeat(weight, n_docs), extremes


def query_codes_in_namespace(qid, n_rows, ops):
    """Query codes that sort like ``qid`` in ``ops``'s namespace, and the extremes to check of them (a list);
    None if invalid.

    An array of the namespace with numbers sorts as it is; other ids (strings,
    lists, numpy arrays) are encoded on the host as :func:`encode_qid` does.
    """
    xp = ops.xp
    if qid is None:
        return ops.zeros(n_rows, dtype=xp.int64), []
    if not is_foreign(qid):
        return ops.asarray(encode_qid(qid, n_rows)), []
    if qid.ndim != 1 or qid.shape[0] != n_rows or not xp.isdtype(qid.dtype, ("bool", "integral", "real floating")):
        return None
    if xp.isdtype(qid.dtype, "bool"):
        return xp.astype(qid, xp.int64), []
    if xp.isdtype(qid.dtype, "real floating"):
        return qid, [xp.min(qid), xp.max(qid)]
    return qid, []


def rank_subtopics(y_true, y_score, *, qid, ties, sample_weight, allowed_ties):
    """The input step of the diversity metrics: an (n_samples, n_subtopics) judgement matrix.

    Returns the Ranking (its labels: each row's best judgement), J in rank order,
    J grouped by query in input order (for the ideal, which must not depend on
    the scores) and the ties option.
    """
    ties = check_option("ties", ties, allowed_ties)
    judgements = as_float_array(y_true, "y_true", ndim=(1, 2))
    if judgements.ndim != 2:
        raise ValueError(
            f"y_true must be 2-D of shape (n_samples, n_subtopics), one column per subtopic; got shape "
            f"{judgements.shape}. For a single subtopic, pass y_true.reshape(-1, 1)."
        )
    check_finite(judgements, "y_true")
    if judgements.min() < 0 or judgements.max() > 1:
        raise ValueError(
            f"y_true must hold subtopic judgements in [0, 1]; got values from {judgements.min():g} to "
            f"{judgements.max():g}."
        )
    y_score = as_float_array(y_score, "y_score")
    if len(y_score) != len(judgements):
        raise ValueError(
            f"y_true has {len(judgements)} rows but y_score has {len(y_score)}; give one score per document."
        )
    check_scores(y_score)
    n_rows = len(y_score)
    codes = np.zeros(n_rows, dtype=np.int64) if qid is None else encode_qid(qid, n_rows)
    weight = check_sample_weight(sample_weight, n_rows)
    block_ties = "average" if ties in ("average", "pessimistic", "optimistic") else "stable"
    ranking, order = build_ranking(judgements.max(axis=1), y_score, codes, ties=block_ties, weight=weight, qid=qid)
    return ranking, judgements[order], judgements[group_by_query(codes)], ties
