"""Evaluate a run against qrels as trec_eval does: join, rank, measure, average."""

import difflib
import inspect
import numbers
import re

import numpy as np

from .._core._numpy_ops import running_sum
from .._core._validation import TIES, check_flag, check_option
from ._judging import join
from ._measures import MEASURES, MIN_GEO_MEAN, NICKNAMES, TAIL_FREE
from ._sources import answered_without_rows, as_qrels, as_run, as_text

# ---- measures: names and parameters, as trec_eval's -m ----------------------------------------

# trec_eval's measures whose bare name is also a ranking metric name of the library for another computation, and the
# parameters that name trec_eval's measure in evaluate_run. A name means one computation everywhere in the library:
# evaluate_run(..., ["rbp"]) is the library's RBP, as metric_info("rbp"), the scorers and ranking_report; trec_eval's
# rbp (p=0.9, graded) is "rbp.p=0.9" there. The trec_eval command keeps trec_eval's names (-m rbp).
LIBRARY_NAMES = {"rbp": "p=0.9"}


def parse_measure(spec, *, library_names=False):
    """A measure request ``NAME[.PARAMS]`` (trec_eval's -m): the measure names and parameters it stands for.

    Returns a list of (name, parameter text or None). Nicknames (``official``,
    ``all_trec``, ``set``) expand to their measures; a ranking metric name of
    the library stands for itself, with ``"library"`` as its parameters. The
    parameters and the options are checked here, before any evaluation.
    With ``library_names`` (evaluate_run), a bare name of :data:`LIBRARY_NAMES`
    is the library's metric, and trec_eval's measure of that name takes its
    parameters explicitly, in a nickname too (``rbp_p=0.9``).
    """
    if not isinstance(spec, str):
        raise TypeError(f"a measure is a str such as 'map' or 'P.5,10'; got {spec!r}.")
    base, dot, params = spec.partition(".")
    if dot and not params and (base in MEASURES or base in NICKNAMES):
        raise ValueError(f"{spec!r} has a dot but no parameters: give them (as in 'P.5,10') or drop the dot.")
    renamed = LIBRARY_NAMES if library_names else {}
    if base in NICKNAMES and not params:
        return [(name, renamed.get(name)) for name in NICKNAMES[base]]
    # The library's names among them: the bare name, or ranx's rbp.95 (trec_eval's parameters are name=value pairs).
    library = base in renamed and "=" not in params
    if base in MEASURES and not library:
        parsed_parameters(base, MEASURES[base], params or None)
        return [(base, params or None)]
    # The library's metric names, imported here: the registry imports every metric, and scikit-learn.
    from ..registry._names import reads_as_metric_name, shared_kernel

    if not reads_as_metric_name(spec) and "@" not in spec and "(" not in spec:
        close = near_measure(spec)
        hint = f" Did you mean {close!r}?" if close and close != spec else ""
        raise ValueError(
            f"{spec!r} is neither a trec_eval measure nor a ranking metric name.{hint} trec_eval's measures "
            "take their parameters after a dot (as in 'P.5,10', 'ndcg_cut.10' or 'rbp.p=0.8'); its sets are "
            f"{', '.join(NICKNAMES)}; ranking metric names read as 'nDCG@10', 'AP' or 'R@100'."
        )
    shared_kernel(spec, caller="evaluate_run", set_by_caller=SET_BY_THE_EVALUATION)
    return [(spec, "library")]


def near_measure(spec):
    """The request closest to a mistyped one: ``ndcg_cut10`` -> ``ndcg_cut.10``, ``mapp`` -> ``map``."""
    base, _, params = spec.partition(".")
    run_on = re.fullmatch(r"(?P<base>.*?[A-Za-z])_?(?P<params>[0-9][0-9.,]*)", spec)  # parameters without the dot
    if not params and run_on:
        base, params = run_on["base"], run_on["params"]
    if params:
        with_parameters = [name for name, measure in MEASURES.items() if measure.parameters]
        close = difflib.get_close_matches(base, with_parameters, n=1)
        if close:
            return f"{close[0]}.{params}"
    close = difflib.get_close_matches(spec, [*MEASURES, *NICKNAMES], n=1)
    return close[0] if close else None


def measure_values(judged, base, params):
    """The (full name, per-query values) pairs of one trec_eval measure, or of one library metric name."""
    if params == "library":
        return [(base, library_values(judged, base))]
    measure = MEASURES[base]
    if measure.compute is None:  # runid
        return []
    values = parsed_parameters(base, measure, params)
    names = full_names(base, measure, values, params)
    if not judged.ranking.n_queries:  # every evaluated query lacks a row: each takes the value of a missing one
        return [(name, np.zeros(0, dtype=object if measure.summary == "none" else np.float64)) for name in names]
    return list(zip(names, measure.compute(judged, values), strict=True))


def evaluation_values(evaluation, base, params):
    """:func:`measure_values` of the ranked queries: each query's values weighted over the parts it is in."""
    summary = MEASURES[base].summary if base in MEASURES else None
    first = evaluation.parts[0]
    if first.queries is None:  # one part, of weight 1
        pairs = measure_values(first.judged, base, params)
    elif summary == "none":
        raise ValueError(
            f"{base} is defined on one ordering of the documents; with ties='average', judged_only and a "
            "max_depth that cuts a tie block it is not available (its strings have no mean)."
        )
    else:
        pairs = None
        for part in evaluation.parts:
            values_of_part = measure_values(part.judged, base, params)
            if pairs is None:
                pairs = [(name, np.zeros(len(evaluation.query_ids))) for name, _ in values_of_part]
            for (_, total), (_, values) in zip(pairs, values_of_part, strict=True):
                total[part.queries] += values if part.weights is None else part.weights * values
    if summary == "gm":  # the floored log of each query's value (of its mean over orderings), as pytrec_eval reports
        pairs = [(name, np.log(np.maximum(values, MIN_GEO_MEAN))) for name, values in pairs]
    return pairs


# What the evaluation sets for every library metric it computes, for the message that refuses it in a name.
SET_BY_THE_EVALUATION = {
    "ties": "evaluate_run sets for every measure: pass ties= to evaluate_run",
    "average": "evaluate_run sets for every measure: pass average= to evaluate_run",
}


def library_values(judged, name):
    """A ranking metric's per-query values on the judged ranking, with trec_eval's relevance level.

    A metric with a relevance threshold counts as relevant what the
    trec_eval measures do (a judgement at least the level, 0 included),
    unless its name sets a threshold itself or asks for graded gains; bpref
    learns which documents are judged.
    """
    from ..registry._names import shared_kernel

    _, kernel, options = shared_kernel(name, caller="evaluate_run", set_by_caller=SET_BY_THE_EVALUATION)
    zero_division = options.pop("zero_division", 0.0)
    takes = inspect.signature(kernel).parameters
    if not judged.ranking.n_queries:
        return np.zeros(0)
    if "judged" in takes:
        options["judged"] = judged.judged
    ranking = judged.ranking
    if "relevance_threshold" in takes and "relevance_threshold" not in options and not options.get("graded"):
        ranking, options["relevance_threshold"] = judged.binary, 1
    values, defined = kernel(ranking, **options)
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
    """The integer that C's ``atol`` reads at the start of ``text`` (trec_eval reads cutoffs so: 23.4 is 23).

    Like ``atol`` (glibc's ``strtol``), it saturates at the ends of a 64-bit ``long``.
    """
    match = re.match(r"\s*[+-]?[0-9]+", text)
    if match is None:
        raise ValueError(text)
    return min(max(int(match.group()), -(2**63)), 2**63 - 1)


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


def summary_of(evaluation, name, measure, values, n_queries):
    """The value reported over all queries for the values of ``name``: trec_eval's (see :func:`summarize`)."""
    if name in evaluation.summaries:
        return evaluation.summaries[name]
    return summarize(measure, values, n_queries)


def summarize(measure, values, n_queries):
    """The value reported over all queries: trec_eval's mean, geometric mean, sum or count; None: the mean.

    Every mean is the per-query values' sum in query order (:func:`running_sum`, as trec_eval adds them) over
    the number of queries, for trec_eval's measures and the library's names alike.
    """
    summary = "mean" if measure is None else measure.summary
    if summary == "gm":  # the values are logs already
        return float(np.exp(running_sum(values) / n_queries)) if n_queries else 0.0
    if summary == "count":
        return n_queries
    if summary == "sum":  # a count: whole, but where a mean over the orderings of a tie block is not
        total = running_sum(values)
        return int(total) if total.is_integer() else total
    return running_sum(values) / n_queries if n_queries else 0.0


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
        The judgements: a TREC qrels file (see :func:`read_qrels`), a pytrec_eval
        dict ``{query_id: {doc_id: relevance}}``, a DataFrame with
        ir_measures' columns ``query_id``, ``doc_id``, ``relevance``, or the
        result of :func:`read_qrels`. Negative relevance marks a pooled but
        unjudged document.
    run : path, file object, dict, DataFrame or Run
        The ranked results: a TREC run file, a dict ``{query_id: {doc_id:
        score}}``, a DataFrame with columns ``query_id``, ``doc_id``,
        ``score``, or the result of :func:`read_run`. Scores are numbers
        (``inf`` and ``-inf`` rank first and last); NaN is an error, whatever
        the input. A dict's query that maps to no document is evaluated, with
        nothing retrieved, as pytrec_eval does.
    metrics : sequence of str, default=("official",)
        The measures, as given to trec_eval's ``-m``: names (``"map"``,
        ``"ndcg"``), names with parameters (``"P.5,10"``, ``"ndcg_cut.10"``,
        ``"rbp.p=0.8"``) and sets (``"official"``, trec_eval's default,
        ``"all_trec"``, ``"set"``); and ranking metric names of this library
        (``"nDCG@10"``, ``"AP"``, ``"RR"``, ``"R@100"``, ``"err@20"``). Each
        measure is computed once, with the parameters of every request: a
        list ``["P.5", "P.10"]`` gives ``P_5`` and ``P_10`` (the command, as
        trec_eval, keeps the first parameters of a repeated ``-m``). A name
        means one computation everywhere in the library: ``"rbp"`` is the
        library's RBP (p=0.8, binary gains), as in :func:`metric_info`, and
        trec_eval's rbp (p=0.9, graded) is ``"rbp.p=0.9"`` (``rbp_p=0.9``,
        in ``"all_trec"`` too); the trec_eval command's ``-m rbp`` is trec_eval's.
    relevance_level : int, default=1
        A document is relevant when its judgement is at least this (trec_eval
        ``-l``), for trec_eval's measures and the library's names alike
        (``"AP"`` is ``"map"``), unless a name sets its own
        ``relevance_threshold``. 0: every judged document is relevant, and
        neither an unjudged one nor one absent from the qrels is.
    complete : bool, default=False
        Also score the queries of the qrels that the run does not answer, as
        0 in every measure (trec_eval ``-c``); an empty run then scores every
        query 0 (without it, an empty run is an error). As in trec_eval, the
        summary of ``num_rel`` then counts the judgements above 0 of the
        whole qrels, whatever ``relevance_level`` (the per-query values use it).
    max_depth : int, default=None
        Only the top ``max_depth`` documents of each query count as retrieved
        (trec_eval ``-M``), taken in the order of ``ties``: trec_eval's, or
        the tie policy's. With ``ties="average"``, a block of tied scores
        that straddles the depth fills the places above it with some of its
        documents, and each measure is its exact mean, over the orderings of
        the block, on the ranking cut at ``max_depth`` (P@1 of a tie between
        a relevant and a non-relevant document is 0.5); counts of retrieved
        documents (``num_rel_ret``, ``num_nonrel_judged_ret``) are then
        expected counts, which can be fractions; ``gm_map`` and ``gm_bpref``
        take the log of each query's mean. None: all.
    judged_only : bool, default=False
        Remove the unjudged documents from each ranking (trec_eval ``-J``),
        after the cut at ``max_depth``, as trec_eval does. With
        ``ties="average"`` and a tie block cut by ``max_depth``, the number of
        judged documents above the depth depends on the block's order too:
        the mean also runs over its (hypergeometric) law.
    ties : {"average", "pessimistic", "optimistic", "stable"} or None, default=None
        None: trec_eval's order, by descending score and then descending
        document id (the rank column is ignored). Otherwise the library's
        policy for equal scores: ``"average"``, the exact mean over their
        orderings (the measures defined on one ordering, ``infAP``,
        ``iprec_at_recall``, ``11pt_avg``, ``relstring``, ``binG``, ``G``,
        ``ndcg_rel`` and ``Rndcg``, refuse it where scores tie, a cut at
        ``max_depth`` or not); ``"pessimistic"``
        and ``"optimistic"``, the lowest and the highest judgement first (a
        document judged negatively, then one absent from the qrels, below a
        judgement of 0); ``"stable"``, the input order.
    average : bool, default=True
        Return each measure's summary over queries (a mean; sums for the
        ``num_*`` counts; a geometric mean for ``gm_map`` and ``gm_bpref``);
        False: per-query values, with the query ids under ``"qid"``.

    Returns
    -------
    results : dict
        Measure name (trec_eval's, such as ``"P_5"``) to its summary, or to
        the array of per-query values.

    Raises
    ------
    ValueError
        For a malformed file (naming it and the line), an input whose
        columns differ in length, a NaN score, an empty run (without
        ``complete``), a bad measure name or option (a near miss names the
        measure it resembles).
    TypeError
        For an option of the wrong type, such as ``complete="yes"``.

    See Also
    --------
    read_qrels, read_run : Read the files once to evaluate several runs or settings.
    sklearn_rankmetrics.ranking_report : The same metrics on arrays of labels and scores.

    Notes
    -----
    Every judged document counts: one that the run did not retrieve takes no
    rank but counts in the number of relevant documents and the ideal
    ranking (the library's ``-inf`` convention). The library's measures that
    scale gains by a top grade (ERR, nERR, INST and INSQ without
    ``max_grade``) take it from the qrels: their largest judgement, over every
    query, so that a query's value never depends on which other queries the
    run answers (or ``complete`` adds). Run queries without
    judgements are skipped, as in trec_eval; when no query of the run is
    judged, there is nothing to evaluate (an error) unless ``complete``. A
    document retrieved twice for one query (within ``max_depth``), or judged
    twice, is an error, as in trec_eval. Ids compare as trec_eval compares
    them, byte by byte (``strcmp``): str as its UTF-8, an integer as its
    decimal text (float ids are refused), so ties rank the same whichever
    way the ids arrive; the ``"qid"`` of per-query values are str. Every
    input route takes only what a TREC file can hold: nonempty ids without
    whitespace or control bytes (``"a\\x00"`` is refused, never merged with
    ``"a"``), relevance within int64 (never wrapped around), finite-sized
    scores.

    Differences from trec_eval 10 (see the user guide for all): with
    ``judged_only``, a query left with no retrieved document scores 0 in
    ``iprec_at_recall`` and ``11pt_avg``, where trec_eval divides 0 by 0
    and prints ``-nan`` (for the levels whose cutoff rounds to 0
    documents, and in their means); ``Rndcg`` at ``relevance_level=0``
    scores 0 where trec_eval prints ``-nan``; qrels queries without a row
    in the run are skipped (without ``complete``), where trec_eval 10 stops
    ("result qid not found in qrels") and trec_eval 9 skips them.

    Examples
    --------
    >>> from sklearn_rankmetrics.trec import evaluate_run
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1}}
    >>> run = {"q1": {"d1": 2.0, "d2": 1.0}}
    >>> evaluate_run(qrels, run, ["map", "P.1", "recall.2"])
    {'map': 0.5, 'P_1': 1.0, 'recall_2': 0.5}
    """
    options = check_options(
        relevance_level=relevance_level, complete=complete, max_depth=max_depth, judged_only=judged_only, ties=ties
    )
    average = check_flag("average", average)
    requests = parsed_requests(metrics)
    return evaluate_checked(
        as_qrels(qrels), as_run(run), requests, options, answered=answered_without_rows(run), average=average
    )


def evaluate_checked(qrels, run, requests, options, *, answered=None, average=True):
    """:func:`evaluate_run` of checked Qrels and Run (:func:`as_qrels`, :func:`as_run`), parsed requests and
    checked options (:func:`check_options`).

    ``answered``: the ids of the queries the run answers with no document
    (see :func:`join`). ``compare_runs`` and ``rankmetrics evaluate``
    evaluate each run through here, against qrels read and checked once.
    """
    evaluation = join(qrels, run, **options, answered=answered, tail_free=tail_free(requests))
    return collect(evaluation, requests, average=average)


def check_options(*, relevance_level, complete, max_depth, judged_only, ties):
    """evaluate_run's options for :func:`join`, checked (also for the evaluations of ``compare_runs``)."""
    if ties is not None:
        check_option("ties", ties, TIES)
    if max_depth is not None and (not isinstance(max_depth, numbers.Integral) or isinstance(max_depth, bool)):
        raise TypeError(f"max_depth must be None or an integer >= 1; got {max_depth!r}.")
    if max_depth is not None and max_depth < 1:
        raise ValueError(f"max_depth must be None or an integer >= 1; got {max_depth!r}.")
    return {
        "relevance_level": check_relevance_level(relevance_level, "relevance_level"),
        "complete": check_flag("complete", complete),
        "max_depth": max_depth,
        "ties": ties,
        "judged_only": check_flag("judged_only", judged_only),
    }


def parsed_requests(metrics):
    """The (measure, parameters) requests of a sequence of measure names, each once, in order (checked).

    A bare name that is also the library's (``"rbp"``) is the library's metric, as everywhere in the library
    but the trec_eval command.
    """
    return dict.fromkeys(
        request for spec in measure_specs(metrics) for request in parse_measure(spec, library_names=True)
    )


def measure_specs(metrics):
    """The measure names of ``metrics`` as a list: a sequence (not a string) of at least one."""
    if isinstance(metrics, str):
        raise TypeError(f"metrics must be a sequence of measure names, such as [{metrics!r}]; got a string.")
    metrics = list(metrics)
    if not metrics:
        raise ValueError("metrics is empty: give at least one measure, such as ['map'] or ['ndcg_cut.10'].")
    return metrics


def tail_free(requests):
    """Whether every requested (measure, parameters) is a trec_eval measure of TAIL_FREE (see :func:`join`)."""
    return all(base in TAIL_FREE and params != "library" for base, params in requests)


def check_relevance_level(level, name):
    """The relevance level: an integer >= 0 (0: every judged document is relevant)."""
    if not isinstance(level, numbers.Integral) or isinstance(level, bool):
        raise TypeError(f"{name} must be an integer >= 0; got {level!r}.")
    if level < 0:
        raise ValueError(
            f"{name} must be an integer >= 0; got {level}. Negative judgements mark pooled documents left "
            "unjudged, which no level makes relevant."
        )
    return int(level)


def query_table(evaluation, requests):
    """The evaluated queries' ids, as bytes in strcmp's order (trec_eval's), and per request its measure and
    (name, per-query values) pairs.

    The values follow the ids, the queries without a row included; the
    measure is None for a ranking metric name of the library.
    """
    ids = np.concatenate((evaluation.query_ids, evaluation.missing_ids))
    order = np.argsort(ids, kind="stable")
    table = []
    for base, params in requests:
        measure = MEASURES.get(base)
        pairs = evaluation_values(evaluation, base, params)
        table.append(
            (base, measure, [(name, with_missing(evaluation, measure, values)[order]) for name, values in pairs])
        )
    return ids[order], table


def collect(evaluation, requests, *, average=True):
    """Each requested (measure, parameters)'s per-query values (missing queries included, sorted by id) or summary."""
    ids, table = query_table(evaluation, requests)
    results = {} if average else {"qid": as_text(ids)}
    for _, measure, pairs in table:
        for name, values in pairs:
            if not average:
                results[name] = values
            elif measure is None or measure.summary != "none":  # relstring: per query only
                results[name] = summary_of(evaluation, name, measure, values, len(ids))
    return results
