"""Evaluate a run against qrels as trec_eval does: join, rank, measure, average."""

import numbers
import re
from dataclasses import dataclass

import numpy as np

from .._grouping import (
    Ranking,
    build_ranking,
    differs_from_previous,
    group_by_query,
    positions_in_segments,
    rank_order,
)
from .._registry import KERNELS, parse_metric_name
from .._validation import TIES, check_option
from ._io import Qrels, Run, packed, read_qrels_bytes, read_run_bytes, text
from ._measures import MEASURES, NICKNAMES, NONPOOL, UNJUDGED, JudgedRanking


def as_qrels(qrels):
    """Qrels from a Qrels, a path or file, a dict ``{qid: {docno: relevance}}`` or a DataFrame."""
    if isinstance(qrels, Qrels):
        return qrels
    if isinstance(qrels, dict):
        query_id, doc_id, relevance = flatten(qrels, "qrels")
        return Qrels(query_id, doc_id, as_integers(relevance))
    if hasattr(qrels, "columns"):
        query_id, doc_id, relevance = frame_columns(qrels, ("query_id", "doc_id", "relevance"), "qrels")
        return Qrels(query_id, doc_id, as_integers(relevance))
    return read_qrels_bytes(qrels)


def as_run(run):
    """A Run from a Run, a path or file, a dict ``{qid: {docno: score}}`` or a DataFrame."""
    if isinstance(run, Run):
        return run
    if isinstance(run, dict):
        query_id, doc_id, score = flatten(run, "run")
        return Run(query_id, doc_id, np.asarray(score, dtype=np.float64))
    if hasattr(run, "columns"):
        query_id, doc_id, score = frame_columns(run, ("query_id", "doc_id", "score"), "run")
        return Run(query_id, doc_id, np.asarray(score, dtype=np.float64))
    return read_run_bytes(run)


def flatten(nested, what):
    """The rows of a pytrec_eval-style dict ``{qid: {docno: value}}``."""
    query_id, doc_id, values = [], [], []
    for query, documents in nested.items():
        if not isinstance(documents, dict):
            raise TypeError(
                f"{what} must map each query id to a dict {{doc_id: value}}; query {query!r} maps to "
                f"{type(documents).__name__}."
            )
        query_id.extend([query] * len(documents))
        doc_id.extend(documents)
        values.extend(documents.values())
    if not query_id:
        raise ValueError(f"{what} is empty: give at least one query with one document.")
    return (
        id_bytes(query_id, f"the query ids of the {what}"),
        id_bytes(doc_id, f"the document ids of the {what}"),
        values,
    )


def frame_columns(frame, names, what):
    missing = [name for name in names if name not in frame.columns]
    if missing:
        raise ValueError(
            f"{what} must have the columns {', '.join(names)} (ir_measures' names); missing: {', '.join(missing)}."
        )
    return tuple(frame[name].to_numpy() for name in names)


def as_integers(values):
    relevance = np.asarray(values)
    if relevance.dtype.kind not in "iub" and not (
        relevance.dtype.kind == "f" and np.isfinite(relevance).all() and (relevance == np.round(relevance)).all()
    ):
        raise ValueError(f"relevance judgements must be integers; got values of dtype {relevance.dtype}.")
    return relevance.astype(np.int64)


def id_bytes(ids, what="ids"):
    """Ids as the bytes a TREC file holds, which trec_eval compares with ``strcmp``: byte by byte, unsigned.

    Bytes stay; str is UTF-8, its surrogate escapes back to the bytes they
    stand for (:func:`read_qrels` and :func:`read_run` keep non-UTF-8 bytes
    so); integers are their decimal text, so that on a tie the document 9
    ranks before 10, as "9" does in a file (trec_eval: descending ids).
    Anything else (a float such as 9.0, which would read "9.0") is a
    TypeError naming ``what``. Fixed-width when that fits, else an object
    array of bytes (see :func:`fits_fixed_width`).
    """
    kind = ids.dtype.kind if isinstance(ids, np.ndarray) else None
    if kind == "S":
        return ids
    if kind in ("i", "u"):
        # numpy's cast, as wide as the longest decimal text: that of the smallest id or of the largest.
        width = max(len(str(ids.min())), len(str(ids.max()))) if len(ids) else 1
        return ids.astype(f"S{width}")
    if kind == "U":
        try:
            return ids.astype(np.bytes_)  # ASCII, nearly always: numpy's cast
        except UnicodeEncodeError:
            pass
    elif kind not in (None, "O"):
        hint = " (convert float ids with astype(int))" if kind == "f" else ""
        raise TypeError(f"{what} must be str, bytes or integers, as in a TREC file; got an array of {ids.dtype}{hint}.")
    return packed(
        [value.encode("utf-8", "surrogateescape") if isinstance(value, str) else one_id(value, what) for value in ids]
    )


def one_id(value, what):
    """A bytes or integer id as bytes (the decimal text of an integer)."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return str(int(value)).encode()
    raise TypeError(
        f"{what} must be str, bytes or integers, as in a TREC file; got {value!r} of type {type(value).__name__}"
        + (" (convert float ids with astype(int))." if isinstance(value, float | np.floating) else ".")
    )


def comparable(first, second, field):
    """A run's and a qrels' ids of ``field`` as bytes of one kind (see :func:`id_bytes`): fixed-width, or objects."""
    first, second = id_bytes(first, f"the {field} of the run"), id_bytes(second, f"the {field} of the qrels")
    if first.dtype.kind != second.dtype.kind:
        return first.astype(object), second.astype(object)
    return first, second


def as_keys(first, second):
    """Byte-string ids of at most 8 bytes as uint64 keys that sort and compare like the strings (else unchanged).

    Zero-padded big-endian bytes read as an integer order as the strings do
    (C's strcmp), and integers search and sort several times faster.
    """
    if not (first.dtype.kind == second.dtype.kind == "S" and max(first.itemsize, second.itemsize) <= 8):
        return first, second

    def keys(ids):
        padded = np.zeros((len(ids), 8), dtype=np.uint8)
        padded[:, : ids.itemsize] = ids.view(np.uint8).reshape(len(ids), ids.itemsize)
        return padded.view(">u8").reshape(-1).astype(np.uint64)

    return keys(first), keys(second)


def as_text(ids):
    """Ids (bytes, str or numbers) as str, as :func:`read_qrels` and :func:`read_run` give them."""
    return text(id_bytes(ids))


def shown(value):
    """An id as it reads in a message: 'q1', whether it is stored as bytes, str or a number (b'caf\\xe9': not UTF-8)."""
    if isinstance(value, bytes):
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError:
            return repr(value)
    return repr(str(value))


@dataclass
class Evaluation:
    """The judged rankings of the evaluated queries and the ids of the queries."""

    judged: JudgedRanking
    query_ids: np.ndarray  # of the ranked queries, sorted
    missing_ids: np.ndarray  # qrels queries without any row to rank (complete=True), scored 0, sorted


def join(qrels, run, *, relevance_level=1, complete=False, max_depth=None, ties=None, judged_only=False, num_docs=0):
    """Join a run to its qrels: each query's retrieved documents in rank order, then its judged unretrieved ones.

    ``judged_only`` (trec_eval -J) removes the unjudged documents from the
    rankings; ``num_docs`` (-N) is the collection size for utility.
    """
    run_query, qrels_query = comparable(run.query_id, qrels.query_id, "query_id")
    run_doc, qrels_doc = as_keys(*comparable(run.doc_id, qrels.doc_id, "doc_id"))
    # Query codes: the run usually lists each query's rows together, so only the heads need looking up.
    heads = np.flatnonzero(differs_from_previous(run_query))
    vocabulary = np.unique(np.concatenate((run_query[heads], qrels_query)))
    run_code = np.repeat(np.searchsorted(vocabulary, run_query[heads]), np.diff(heads, append=len(run_query)))
    qrels_code = np.searchsorted(vocabulary, qrels_query)
    in_qrels = np.bincount(qrels_code, minlength=len(vocabulary)) > 0
    in_run = np.bincount(run_code, minlength=len(vocabulary)) > 0
    score = run.score
    if not in_qrels[run_code].all():  # trec_eval skips run queries nobody judged
        kept = np.flatnonzero(in_qrels[run_code])
        run_code, run_doc, score = run_code[kept], run_doc[kept], score[kept]

    order, retrieved_code = trec_order(run_code, score, run_doc, ties)
    if max_depth is not None:
        starts = np.flatnonzero(differs_from_previous(retrieved_code))
        shallow = positions_in_segments(starts, len(order)) < max_depth
        order, retrieved_code = order[shallow], retrieved_code[shallow]

    raw, qrels_row = judgements(
        qrels_code, qrels_doc, qrels.relevance, retrieved_code, run_doc[order], (vocabulary, qrels.doc_id)
    )
    if judged_only:
        kept = raw >= 0
        order, retrieved_code, raw = order[kept], retrieved_code[kept], raw[kept]
    # Judged documents not retrieved (or cut by max_depth) rank last; with complete=True
    # the qrels queries the run lacks are evaluated too, as rankings of such documents only.
    evaluated = in_qrels & (in_run | complete)
    unretrieved = np.ones(len(qrels_code), dtype=bool)
    unretrieved[qrels_row[qrels_row >= 0]] = False
    unretrieved &= evaluated[qrels_code] & (qrels.relevance >= 0)
    extra = np.flatnonzero(unretrieved)
    extra = extra[np.argsort(qrels_code[extra], kind="stable")]
    if ties is None:
        # Already in rank order: each query's unretrieved rows go after its retrieved ones.
        places = np.searchsorted(retrieved_code, qrels_code[extra], "right")
        codes = np.insert(retrieved_code, places, qrels_code[extra])
        raw = np.insert(raw, places, qrels.relevance[extra])
        retrieved = np.insert(np.ones(len(order), dtype=bool), places, False)
        query_starts = np.flatnonzero(differs_from_previous(codes))
        labels = np.maximum(raw, 0).astype(np.float64)
        ranking = Ranking(labels, query_starts, retrieved=None if retrieved.all() else retrieved)
    else:
        codes = np.concatenate((retrieved_code, qrels_code[extra]))
        raw = np.concatenate((raw, qrels.relevance[extra]))
        # -inf marks the unretrieved rows: a retrieved score of -inf becomes the lowest float.
        retrieved_score = np.maximum(score[order], np.finfo(np.float64).min)
        scores = np.concatenate((retrieved_score, np.full(len(extra), -np.inf)))
        ranking, grouping = build_ranking(np.maximum(raw, 0).astype(np.float64), scores, codes, ties=ties)
        raw, codes = raw[grouping], codes[grouping]
    ranked = np.zeros(len(vocabulary), dtype=bool)
    ranked[codes[ranking.query_starts]] = True
    # A lacking query whose judgements are all negative has no row at all: it scores 0.
    missing = np.flatnonzero(evaluated & ~ranked)
    judged_ranking = JudgedRanking(ranking, raw, relevance_level, num_docs)
    return Evaluation(judged_ranking, vocabulary[ranked], vocabulary[missing])


def trec_order(code, score, doc, ties):
    """The rows in rank order: by query, descending score, then (trec_eval) descending document id.

    Run files usually list each query's documents together by descending
    score: that is checked in one pass, and then only the queries need
    grouping (a radix sort) and only the runs of tied scores re-sorting.
    """
    same_query = code[1:] == code[:-1]
    contiguous = np.count_nonzero(~same_query) + 1 == np.count_nonzero(np.bincount(code))
    if ties is None and contiguous and np.all((score[1:] <= score[:-1]) | ~same_query):
        if np.any(code[1:] < code[:-1]):
            order = group_by_query(code)
            sorted_code, sorted_score = code[order], score[order]
        else:
            order, sorted_code, sorted_score = np.arange(len(code)), code, score
        tied = np.flatnonzero((sorted_score[1:] == sorted_score[:-1]) & (sorted_code[1:] == sorted_code[:-1])) + 1
    else:
        order, sorted_code, changes = rank_order(code, score, ties="stable")
        if ties is not None:
            return order, sorted_code
        tied = np.flatnonzero(~changes[1:] & (sorted_code[1:] == sorted_code[:-1])) + 1
    if len(tied):
        # Each run of equal scores, re-sorted by document id, descending: the tied rows and the row above each.
        in_run = np.zeros(len(order), dtype=bool)
        in_run[tied] = in_run[tied - 1] = True
        rows = np.flatnonzero(in_run)
        is_tied = np.zeros(len(order), dtype=bool)
        is_tied[tied] = True
        run_id = np.cumsum(~is_tied[rows])
        ascending = rows[np.lexsort((doc[order[rows]], run_id))]
        first = np.searchsorted(run_id, run_id, "left")
        after = np.searchsorted(run_id, run_id, "right")
        order[rows] = order[ascending[first + after - 1 - np.arange(len(rows))]]
    return order, sorted_code


def judgements(qrels_code, qrels_doc, relevance, retrieved_code, retrieved_doc, names):
    """Each retrieved row's judgement (or NONPOOL, UNJUDGED) and its qrels row (-1: none).

    ``names`` (the query vocabulary and the qrels' document ids) name the
    query and document of a duplicate in the error.
    """
    vocabulary, doc_names = names
    documents, doc_code = np.unique(qrels_doc, return_inverse=True)
    key = qrels_code.astype(np.int64) * len(documents) + doc_code.reshape(-1)
    by_key = np.argsort(key, kind="stable")
    sorted_key = key[by_key]
    repeated = np.flatnonzero(sorted_key[1:] == sorted_key[:-1])
    if len(repeated):
        row = by_key[repeated[0] + 1]
        raise ValueError(
            f"the qrels judge document {shown(doc_names[row])} of query {shown(vocabulary[qrels_code[row]])} twice; "
            "give each (query, document) pair one judgement."
        )
    # Most retrieved documents are judged for no query at all: only the others need the (query, document) key.
    known = maybe_among(retrieved_doc, documents)
    place = np.minimum(np.searchsorted(documents, retrieved_doc[known]), len(documents) - 1)
    exact = documents[place] == retrieved_doc[known]
    known, place = known[exact], place[exact]
    retrieved_key = retrieved_code[known].astype(np.int64) * len(documents) + place
    slot = np.minimum(np.searchsorted(sorted_key, retrieved_key), len(sorted_key) - 1)
    found = sorted_key[slot] == retrieved_key
    qrels_row = np.full(len(retrieved_doc), -1, dtype=np.int64)
    qrels_row[known[found]] = by_key[slot[found]]
    matched = qrels_row >= 0
    counts = np.bincount(qrels_row[matched], minlength=len(qrels_code))
    if (counts > 1).any():
        row = int(np.flatnonzero(counts > 1)[0])
        raise ValueError(
            f"the run retrieves document {shown(doc_names[row])} twice for query {shown(vocabulary[qrels_code[row]])}; "
            "a run lists each document once per query."
        )
    judgement = np.where(matched, relevance[np.maximum(qrels_row, 0)], NONPOOL)
    raw = np.where(judgement < 0, np.where(matched, UNJUDGED, NONPOOL), judgement)
    return raw, qrels_row


def maybe_among(values, members, bits=24):
    """Indices of the ``values`` that may be among the ``members``: all of those that are, and a few more.

    For uint64 keys, a one-hash Bloom filter of 2**bits bits (Fibonacci
    hashing) clears most of the others with one lookup each, far faster than a
    binary search; other ids are all kept, for the exact test that follows.
    """
    if values.dtype != np.uint64:
        return np.arange(len(values))
    shift = np.uint64(64 - bits)
    multiplier = np.uint64(0x9E3779B97F4A7C15)
    present = np.zeros(2**bits, dtype=bool)
    present[(members * multiplier) >> shift] = True
    return np.flatnonzero(present[(values * multiplier) >> shift])


# ---- measures: names and parameters, as trec_eval's -m ----------------------------------------


def parse_measure(spec):
    """A measure request ``NAME[.PARAMS]`` (trec_eval's -m): the measure names and parameters it stands for.

    Returns a list of (name, parameter text or None). Nicknames (``official``,
    ``all_trec``, ``set``) expand to their measures.
    """
    if not isinstance(spec, str):
        raise TypeError(f"a measure is a str such as 'map' or 'P.5,10'; got {spec!r}.")
    base, _, params = spec.partition(".")
    if base in NICKNAMES and not params:
        return [(name, None) for name in NICKNAMES[base]]
    if base in MEASURES:
        return [(base, params or None)]
    return [(spec, "library")]


def measure_values(judged, base, params):
    """The (full name, per-query values) pairs of one trec_eval measure, or of one library metric name."""
    if params == "library":
        return [(base, library_values(judged, base))]
    measure = MEASURES[base]
    if measure.compute is None:  # runid
        return []
    values = parsed_parameters(base, measure, params)
    arrays = measure.compute(judged, values)
    return list(zip(full_names(base, measure, values, params), arrays, strict=True))


def library_values(judged, name):
    score_func, options = parse_metric_name(name)
    if score_func not in KERNELS:
        raise ValueError(f"{name!r} cannot be computed from a run; use a trec_eval measure or a ranking metric name.")
    zero_division = options.pop("zero_division", 0.0)
    values, defined = KERNELS[score_func](judged.ranking, **options)
    return np.where(defined, values, zero_division)


def parsed_parameters(base, measure, params):
    if params is None:
        return measure.default if measure.parameters != "pairs" else {}
    if measure.parameters is None:
        raise ValueError(f"trec_eval's {base} takes no parameters; got {base}.{params}.")
    items = params.split(",")
    try:
        if measure.parameters == "pairs":
            pairs = dict(item.split("=", 1) for item in items)
            return {key: float(value) for key, value in pairs.items()}
        if measure.parameters == "cutoffs":
            values = sorted(leading_integer(item) for item in items)
            if values[0] <= 0 or len(set(values)) != len(values):
                raise ValueError
            return tuple(values)
        values = [float(item) for item in items]
    except ValueError:
        raise ValueError(
            f"bad parameters for trec_eval's {base}: {params!r}; expected "
            + {
                "cutoffs": "distinct positive integers, as in P.5,10",
                "levels": "distinct numbers, as in iprec_at_recall.0.1,0.5",
                "numbers": "numbers, as in set_F.0.5",
                "pairs": "name=value pairs, as in rbp.p=0.8",
            }[measure.parameters]
            + "."
        ) from None
    if measure.parameters == "levels":
        if len(set(values)) != len(values):
            raise ValueError(f"bad parameters for trec_eval's {base}: {params!r} repeats a value.")
        return tuple(sorted(values))
    return tuple(values)


def leading_integer(text):
    """The integer that C's ``atol`` reads at the start of ``text`` (trec_eval reads cutoffs so: 23.4 is 23)."""
    match = re.match(r"\s*[+-]?[0-9]+", text)
    if match is None:
        raise ValueError(text)
    return int(match.group())


def full_names(base, measure, values, params):
    """trec_eval's name of each value: ``P_5``, ``iprec_at_recall_0.10``, ``set_F`` (or ``set_F_0.5`` when given)."""
    if measure.parameters == "cutoffs":
        return [f"{base}_{value}" for value in values]
    if measure.parameters == "levels":
        return [f"{base}_{value:3.2f}" for value in values]
    return [base if params is None else f"{base}_{params}"]


def with_missing(evaluation, measure, values):
    """Per-query values followed by those of the evaluated queries without a row (``measure.missing``)."""
    missing = 0.0 if measure is None else measure.missing
    return np.concatenate((values, np.full(len(evaluation.missing_ids), missing, dtype=values.dtype)))


def summarize(measure, values, n_queries):
    """The value reported over all queries: trec_eval's mean, geometric mean, sum or count; None: the mean."""
    if measure is None:
        return float(np.mean(values))
    if measure.summary == "gm":  # the values are logs already
        return float(np.exp(np.sum(values) / n_queries)) if n_queries else 0.0
    if measure.summary == "count":
        return n_queries
    if measure.summary == "sum":
        return int(np.sum(values))
    return float(np.sum(values) / n_queries) if n_queries else 0.0


def evaluate_run(
    qrels,
    run,
    metrics=("official",),
    *,
    relevance_level=1,
    complete=False,
    max_depth=None,
    judged_only=False,
    ties=None,
    average=True,
):
    """Evaluate a run against relevance judgements, exactly as trec_eval does.

    Parameters
    ----------
    qrels : path, file object, dict, DataFrame or Qrels
        The judgements: a TREC qrels file (plain or gzip), a pytrec_eval
        dict ``{query_id: {doc_id: relevance}}``, a DataFrame with
        ir_measures' columns ``query_id``, ``doc_id``, ``relevance``, or the
        result of :func:`read_qrels`. Negative relevance marks a pooled but
        unjudged document.
    run : path, file object, dict, DataFrame or Run
        The ranked results: a TREC run file, a dict ``{query_id: {doc_id:
        score}}``, a DataFrame with columns ``query_id``, ``doc_id``,
        ``score``, or the result of :func:`read_run`.
    metrics : sequence of str, default=("official",)
        The measures, as given to trec_eval's ``-m``: names (``"map"``,
        ``"ndcg"``), names with parameters (``"P.5,10"``, ``"ndcg_cut.10"``,
        ``"rbp.p=0.8"``) and sets (``"official"``, trec_eval's default,
        ``"all_trec"``, ``"set"``); and ranking metric names of this library
        (``"nDCG@10"``, ``"AP"``, ``"RR"``, ``"R@100"``, ``"err@20"``).
    relevance_level : int, default=1
        A document is relevant when its judgement is at least this (trec_eval ``-l``).
    complete : bool, default=False
        Also score the queries of the qrels that the run does not answer, as
        0 in every measure (trec_eval ``-c``).
    max_depth : int, default=None
        Only the top ``max_depth`` documents of each query count as retrieved
        (trec_eval ``-M``). None: all.
    judged_only : bool, default=False
        Remove the unjudged documents from each ranking first (trec_eval ``-J``).
    ties : {"average", "pessimistic", "optimistic", "stable"} or None, default=None
        None: trec_eval's order, by descending score and then descending
        document id (the rank column is ignored). Otherwise the library's
        policy for equal scores (``"average"``: the exact mean over their
        orderings).
    average : bool, default=True
        Return each measure's summary over queries (a mean; sums for the
        ``num_*`` counts; a geometric mean for ``gm_map`` and ``gm_bpref``);
        False: per-query values, with the query ids under ``"qid"``.

    Returns
    -------
    results : dict
        Measure name (trec_eval's, such as ``"P_5"``) to its summary, or to
        the array of per-query values.

    See Also
    --------
    read_qrels, read_run : Read the files once to evaluate several runs or settings.
    sklearn_rankmetrics.ranking_report : The same metrics on arrays of labels and scores.

    Notes
    -----
    Every judged document counts: one that the run did not retrieve takes no
    rank but counts in the number of relevant documents and the ideal
    ranking (the library's ``-inf`` convention). Run queries without
    judgements are skipped, as in trec_eval. A document retrieved twice for
    one query, or judged twice, is an error. Ids compare as trec_eval
    compares them, byte by byte (``strcmp``): str as its UTF-8, an integer
    as its decimal text (float ids are refused), so ties rank the same
    whichever way the ids arrive; the ``"qid"`` of per-query values are str.

    Examples
    --------
    >>> from sklearn_rankmetrics.trec import evaluate_run
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1}}
    >>> run = {"q1": {"d1": 2.0, "d2": 1.0}}
    >>> evaluate_run(qrels, run, ["map", "P.1", "recall.2"])
    {'map': 0.5, 'P_1': 1.0, 'recall_2': 0.5}
    """
    if ties is not None:
        check_option("ties", ties, TIES)
    if isinstance(metrics, str):
        raise TypeError(f"metrics must be a sequence of measure names, such as [{metrics!r}]; got a string.")
    if max_depth is not None and (not isinstance(max_depth, numbers.Integral) or max_depth < 1):
        raise ValueError(f"max_depth must be None or an integer >= 1; got {max_depth!r}.")
    if not isinstance(relevance_level, numbers.Integral):
        raise TypeError(f"relevance_level must be an integer; got {relevance_level!r}.")
    evaluation = join(
        as_qrels(qrels),
        as_run(run),
        relevance_level=int(relevance_level),
        complete=complete,
        max_depth=max_depth,
        ties=ties,
        judged_only=judged_only,
    )
    return collect(evaluation, metrics, average=average)


def collect(evaluation, metrics, *, average=True):
    """Each requested measure's per-query values (missing queries included, sorted by id) or summary."""
    requests = dict.fromkeys(request for spec in metrics for request in parse_measure(spec))
    ids = np.concatenate((evaluation.query_ids, evaluation.missing_ids))
    order = np.argsort(ids, kind="stable")  # as bytes: strcmp's order, trec_eval's
    ids = as_text(ids)
    results = {} if average else {"qid": ids[order]}
    for base, params in requests:
        measure = MEASURES.get(base)
        for name, values in measure_values(evaluation.judged, base, params):
            values = with_missing(evaluation, measure, values)
            if not average:
                results[name] = values[order]
            elif measure is None or measure.summary != "none":  # relstring: per query only
                results[name] = summarize(measure, values, len(ids))
    return results
