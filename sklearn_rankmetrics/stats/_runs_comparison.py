"""TREC runs compared in one call: compare_runs evaluates each run as evaluate_run does, then compares.

The runs are joined to the qrels by :mod:`..trec` itself (the same readers,
judging, relevance level, ``-c`` and depth as :func:`evaluate_run` and the
trec_eval command); this module only names the runs, chooses the queries to
compare and hands the per-query values to the statistics of
:func:`compare_rankings` (:func:`._compare.comparison_of`).
"""

import os
from collections.abc import Iterable

import numpy as np

from .._core._numpy_ops import differs_from_previous
from .._core._validation import check_option, plain
from .._core._warnings import warn
from ..trec._evaluate import check_options, evaluate_checked, measure_specs, parse_measure
from ..trec._io import Run
from ..trec._measures import NICKNAMES
from ..trec._run_files import names_of_paths, run_files
from ..trec._sources import InputError, answered_without_rows, as_qrels, as_run, as_text
from ._compare import check_settings, comparison_of
from ._per_query import check_baseline, shared_doc, warn_if_constant, warn_if_same_values

QUERY_SETS = ("common", "union", "qrels")
# trec_eval's measures that give no number per query to compare.
NOT_PER_QUERY = {
    "runid": "the run's tag, not a value per query",
    "num_q": "1 for every query",
    "relstring": "a string per query",
}
# trec_eval's measures of the qrels alone: each run has the same value on every query, a test of nothing.
SAME_FOR_EVERY_RUN = {"num_rel": "the number of relevant documents the qrels judge for each query"}
SHOWN = 5


@shared_doc
def compare_runs(
    qrels,
    runs,
    *,
    metrics,
    baseline=None,
    test="randomization",
    correction="holm",
    queries="common",
    relevance_level=1,
    max_depth=None,
    judged_only=False,
    ties=None,
    n_resamples=10_000,
    confidence_level=0.95,
    alpha=0.05,
    random_state=None,
):
    """Compare TREC runs on their qrels in one call: trec_eval's evaluation of each, then paired tests.

    Parameters
    ----------
    qrels : path, file object, dict, DataFrame or Qrels
        The judgements, as for :func:`evaluate_run`: a qrels file (plain or
        gzip), ``{query_id: {doc_id: relevance}}``, a DataFrame with the
        columns ``query_id``, ``doc_id``, ``relevance`` (or PyTerrier's
        ``qid``, ``docno``, ``label``), or a :class:`Qrels`. Read once.
    runs : mapping, sequence, folder or glob pattern
        The runs: a mapping ``{name: run}``, each run as for
        :func:`evaluate_run` (a run file, ``{query_id: {doc_id: score}}``, a
        DataFrame with ``query_id``, ``doc_id``, ``score`` or PyTerrier's
        ``qid``, ``docno``, ``score``, or a :class:`Run`); a sequence of
        run files (named by their file names; by as much of their paths as
        tells them apart where two share a name) or of :class:`Run` objects
        (named by their tags); a folder (every file in it that does not
        start with a dot; not its subfolders); or a glob pattern such as
        ``"runs/*.gz"``. A folder or pattern may hold the qrels file too:
        it is not taken for a run. At least two runs.
    metrics : sequence of str
        The measures, as for :func:`evaluate_run` (trec_eval's ``-m``):
        ``"map"``, ``"ndcg_cut.10"``, ``"P.5,10"`` (two metrics, ``P_5`` and
        ``P_10``), the library's names (``"nDCG@10"``); a set such as
        ``"official"`` gives its measures but ``runid``, ``num_q`` and
        ``relstring``, which have no number per query to compare, and
        ``num_rel``, a count of the qrels that every run shares (asked
        for by name, they are an error). The comparison names each metric
        as :func:`evaluate_run` does (``"ndcg_cut_10"``).
    baseline : str, default=None
        The name of the run every other one is compared with; None: every
        pair.
    test : str, default="randomization"
        As for :func:`compare_per_query`; ranx's and PyTerrier's names too.
    correction : str or None, default="holm"
        As for :func:`compare_per_query`.
    queries : {"common", "union", "qrels"}, default="common"
        The queries compared. ``"common"``: those judged in the qrels that
        every run answers (each run scored as :func:`evaluate_run` scores
        it); a warning says how many queries some runs answer and others
        do not, and which runs lack them. ``"union"``: the judged queries
        that at least one run answers, a run that does not answer one
        scoring it as trec_eval's ``-c`` does (0 in every measure).
        ``"qrels"``: every query of the qrels, as ``-c``
        (``evaluate_run(..., complete=True)``) for every run.
    relevance_level : int, default=1
        As for :func:`evaluate_run` (trec_eval's ``-l``).
    max_depth : int, default=None
        As for :func:`evaluate_run` (``-M``).
    judged_only : bool, default=False
        As for :func:`evaluate_run` (``-J``).
    ties : {"average", "pessimistic", "optimistic", "stable"} or None, default=None
        As for :func:`evaluate_run`: None is trec_eval's order.
    %(settings)s

    Returns
    -------
    %(returns)s
        Its ``per_query`` holds each run's values on the compared queries
        (``"qid"``: their ids, as str).

    Raises
    ------
    ValueError
        For fewer than two runs, two runs of one name, a folder or pattern
        that names no file, a measure without a number per query or the
        same for every run (``num_rel``), no query
        to compare, a malformed file (named, with its line), and the errors
        of :func:`evaluate_run` (each naming its run).
    TypeError
        For an option of the wrong type, and qrels or a run of none of the
        kinds above (the message lists them).
    FileNotFoundError
        For a run path that names no file, folder or glob pattern's match,
        and a missing qrels file.

    Warns
    -----
    UserWarning
        Where ``queries="common"`` leaves out queries that some runs answer
        (how many, and which runs lack them); where a run answers none of
        the queries compared (its ids may not be the qrels'); and every
        warning of :func:`compare_rankings`.

    See Also
    --------
    evaluate_run : The evaluation of one run, which this repeats for each.
    compare_per_query : The same statistics on per-query values from anywhere.
    compare_rankings : The same statistics from labels and scores.

    Notes
    -----
    Each run is evaluated as :func:`evaluate_run` evaluates it (the same
    readers, judging, relevance level, depth and tie order), so a run's
    per-query values are :func:`evaluate_run`'s, and its mean is the
    average that :func:`evaluate_run` reports for the run restricted to the
    compared queries, to the last bit: the sum of the values in query
    order (trec_eval's order of ids) over their number. Measures whose
    trec_eval summary is not a mean are compared on their per-query values
    too: the counts (``num_ret``, ``num_rel_ret``, ...) on their mean per
    query (trec_eval prints their sum), ``gm_map`` and ``gm_bpref`` on the
    floored logs that ``evaluate_run(..., average=False)`` reports (their
    mean is the log of trec_eval's geometric mean).

    Every run is tested on the same queries: a paired test needs each
    query's value for every system. trec_eval evaluates a run on the
    judged queries it answers, so runs that answer different queries have
    different averages; ``queries="common"`` compares them where all
    answer, ``"union"`` and ``"qrels"`` score the missing ones 0, as
    ``-c`` does (a run that skips a query then loses on it).

    With many runs and no baseline, the pairs grow as the square of the
    runs (45 for 10 runs, 4,950 for 100) and the corrections with them: a
    baseline, or a Tukey test, asks fewer or better-suited questions.

    Examples
    --------
    >>> from sklearn_rankmetrics import compare_runs
    >>> qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 1, "d4": 1}, "q3": {"d5": 1}}
    >>> runs = {
    ...     "bm25": {"q1": {"d2": 2.0, "d1": 1.0}, "q2": {"d3": 1.0, "d9": 2.0}, "q3": {"d5": 1.0}},
    ...     "dense": {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 2.0, "d4": 1.0}, "q3": {"d5": 1.0}},
    ... }
    >>> result = compare_runs(qrels, runs, metrics=["map", "P.1"], baseline="bm25", test="t-test")
    >>> result.to_frame().round(4)[["system", "metric", "mean"]]
      system metric    mean
    0   bm25    map  0.5833
    1  dense    map  1.0000
    2   bm25    P_1  0.3333
    3  dense    P_1  1.0000
    """
    settings = check_settings(test, correction, alpha, n_resamples, confidence_level, random_state)
    queries = check_option("queries", queries, QUERY_SETS)
    options = check_options(
        relevance_level=relevance_level,
        complete=queries != "common",
        max_depth=max_depth,
        judged_only=judged_only,
        ties=ties,
    )
    requests = comparable_requests(metrics)
    sources = named_runs(runs, qrels)
    check_baseline(baseline, list(sources))
    checked_qrels = as_qrels(qrels)
    evaluations = {name: evaluated(name, source, checked_qrels, requests, options) for name, source in sources.items()}
    reports = compared_queries(evaluations, queries)
    metric_names = [name for name in next(iter(reports.values())) if name != "qid"]
    warn_if_constant(reports, metric_names, hint=constant_hint(checked_qrels, options["relevance_level"]))
    warn_if_same_values(reports, metric_names)
    return comparison_of({name: [report] for name, report in reports.items()}, metric_names, baseline, **settings)


# ---- the measures: those with a number per query ----


def comparable_requests(metrics):
    """The (measure, parameters) requests of ``metrics``, sets expanded without the measures of NOT_PER_QUERY."""
    requests = {}
    for spec in measure_specs(metrics):
        nickname = isinstance(spec, str) and spec in NICKNAMES
        for base, params in parse_measure(spec, library_names=True):
            if base in NOT_PER_QUERY or base in SAME_FOR_EVERY_RUN:
                if nickname:
                    continue
                if base in SAME_FOR_EVERY_RUN:
                    raise ValueError(
                        f"{spec!r} is {SAME_FOR_EVERY_RUN[base]}, the same for every run: no test can tell the runs "
                        "apart on it, and it would count as a hypothesis of the correction. evaluate_run reports it."
                    )
                raise ValueError(
                    f"{spec!r} has no number per query to compare ({NOT_PER_QUERY[base]}); compare_runs compares "
                    "measures such as 'map', 'ndcg_cut.10' or 'P.10'."
                )
            requests.setdefault((base, params), None)
    return requests


# ---- the runs: names and sources ----


def named_runs(runs, qrels=None):
    """``{name: source}`` of the runs given as a mapping, a sequence, a folder or a glob pattern (which may hold the
    qrels file too: it is no run)."""
    if hasattr(runs, "items"):
        named = dict(runs.items())
    elif isinstance(runs, str | os.PathLike):
        named = names_of_paths(run_files(runs, besides=qrels))
    elif isinstance(runs, Iterable) and not isinstance(runs, bytes):
        named = names_of_sequence(list(runs), qrels)
    else:
        raise TypeError(
            "runs must be a mapping {name: run}, a sequence of run files or Run objects, a folder or a glob pattern; "
            f"got {type(runs).__name__}."
        )
    if len(named) < 2:
        raise ValueError(
            f"compare_runs needs at least two runs; got {len(named)}: {plain(list(named))}. Give a mapping "
            "{name: run}, a sequence of run files, a folder of them or a glob pattern such as 'runs/*.txt'."
        )
    return named


def names_of_sequence(runs, qrels=None):
    """Names for a sequence of runs: file names for paths (folders and glob patterns expanded), tags for Runs."""
    paths, named = [], {}
    for index, run in enumerate(runs):
        if isinstance(run, str | os.PathLike):
            paths += run_files(run, besides=qrels)  # a folder or a glob pattern gives its files
        elif isinstance(run, Run):
            if not run.name:
                raise ValueError(
                    f"runs[{index}] is a Run without a tag to name it by: pass a mapping {{name: run}} instead."
                )
            if run.name in named:
                raise ValueError(
                    f"runs[{index}] has the tag {run.name!r} of another run: pass a mapping {{name: run}} to name "
                    "them apart."
                )
            named[run.name] = run
        else:
            kind = f"{type(run).__module__}.{type(run).__qualname__}".removeprefix("builtins.")
            raise TypeError(
                f"runs[{index}] is a {kind}, which has no name: pass a mapping {{name: run}} (a sequence holds run "
                "files or sklearn_rankmetrics.trec.Run objects)."
            )
    by_path = names_of_paths(paths) if paths else {}
    clash = sorted(set(by_path) & set(named))
    if clash:
        raise ValueError(f"two runs are named {clash[0]!r} (a file and a Run's tag): pass a mapping {{name: run}}.")
    return {**by_path, **named}


# ---- evaluation and the queries compared ----


def evaluated(name, source, qrels, requests, options):
    """A run's per-query values (``{"qid": ids, measure: values}``) and the ids of the queries it answers (None
    where the evaluation's own ids suffice: without ``complete``, those it evaluates)."""
    try:
        run = as_run(source)
        extra = answered_without_rows(source)  # a dict's queries answered with no document
        if not len(run.score) and extra is None and not options["complete"]:  # evaluate_run would name its own option
            raise ValueError(
                "the run is empty: it retrieves no document for any query, so it answers no query to "
                "compare. Pass queries='union' (or 'qrels'; --queries union or -c on the command line) to score its "
                "queries 0, as trec_eval -c does."
            )
        values = evaluate_checked(qrels, run, requests, options, answered=extra, average=False)
    except InputError as error:
        if error.source == "qrels":
            raise
        raise ValueError(f"run {plain(name)!r}: {error}") from error
    except (ValueError, TypeError, OSError) as error:
        raise naming_the_run(error, name) from error
    if not options["complete"]:
        return values, None
    heads = run.query_id[differs_from_previous(run.query_id)]  # a run lists each query's rows together, mostly
    answered = np.unique(heads) if extra is None else np.unique(np.concatenate((heads.astype(object), extra)))
    return values, set(as_text(answered).tolist())


def naming_the_run(error, name):
    """The error again, its message led by the run's name (of its own type where that type takes a message)."""
    message = f"run {plain(name)!r}: {error}"
    try:
        return type(error)(message)
    except TypeError:  # a type that needs more than a message (UnicodeDecodeError): its nearest plain base
        return next(kind for kind in (OSError, TypeError, ValueError) if isinstance(error, kind))(message)


def constant_hint(qrels, relevance_level):
    """What to check where every run scores one value on every query: a relevance level above every judgement."""
    top = int(qrels.relevance.max())
    if top < relevance_level:
        fix = ": lower the level." if top > 0 else "."
        return (
            f" The qrels judge no document relevant at relevance_level={relevance_level} (their largest judgement "
            f"is {top}){fix}"
        )
    return " Check that the qrels judge relevant documents and that the runs' document ids are the qrels'."


def compared_queries(evaluations, queries):
    """Each run's report on the queries compared (the same ids, in trec_eval's order), after the warnings they
    call for."""
    names = list(evaluations)
    if queries == "common":
        evaluated_ids = {name: set(values["qid"].tolist()) for name, (values, _) in evaluations.items()}
        kept = set.intersection(*evaluated_ids.values())
        seen = set.union(*evaluated_ids.values())
        if not kept:
            raise ValueError(
                "No judged query is answered by every run, so no query can be compared pairwise. Pass "
                "queries='union' (or 'qrels') to score a run's missing queries 0, as trec_eval -c does; runs "
                f"answer {', '.join(f'{plain(n)!r} {len(evaluated_ids[n])}' for n in names)} judged queries."
            )
        if len(kept) < len(seen):
            warn_left_out(seen - kept, {name: seen - ids for name, ids in evaluated_ids.items()}, len(seen))
    else:
        first = evaluations[names[0]][0]["qid"]
        answered = {name: set(first.tolist()) & ids for name, (_, ids) in evaluations.items()}
        kept = set(first.tolist()) if queries == "qrels" else set.union(*answered.values())
        if not kept:
            raise ValueError("No run answers a query of the qrels: there is nothing to compare (check the ids).")
        for name in names:
            if not answered[name] & kept:
                warn(
                    f"Run {plain(name)!r} answers none of the {len(kept)} queries compared: it scores 0 on every "
                    "one (trec_eval -c). Check that its query ids are the qrels' (their format, a prefix).",
                    UserWarning,
                )
    kept = np.array(sorted(kept), dtype=object)
    # Every run's values come in trec_eval's order of the ids (strcmp's), so the same ids keep one order.
    return {
        name: {metric: column[np.isin(values["qid"], kept)] for metric, column in values.items()}
        for name, (values, _) in evaluations.items()
    }


def warn_left_out(left_out, lacking, n_seen):
    """Warn that ``queries="common"`` leaves out the queries some runs answer and others do not."""
    shown = ", ".join(repr(query) for query in sorted(left_out)[:SHOWN])
    more = "" if len(left_out) <= SHOWN else f" and {len(left_out) - SHOWN} more"
    counts = ", ".join(f"{plain(name)!r} {len(ids)}" for name, ids in lacking.items() if ids)
    warn(
        f"{len(left_out)} of the {n_seen} judged queries that some run answers are left out, as not every run "
        f"answers them ({shown}{more}; missing per run: {counts}). queries='union' scores a run's missing "
        "queries 0, as trec_eval -c does, and compares them all.",
        UserWarning,
    )
