"""Per-query values computed anywhere, through the statistics of compare_rankings: compare_per_query."""

import difflib
import numbers
from collections.abc import Mapping

import numpy as np

from .._core._docs import doc_filler
from .._core._frames import column_labels, column_named, frame_library
from .._core._query_ids import factorize_query_ids, is_pandas_labels, query_id_array
from .._core._tolerance import equal_up_to_rounding
from .._core._validation import plain
from .._core._warnings import warn
from ._compare import check_settings, comparison_of

# The long layout's columns, and the names peers give them: PyTerrier's per-query frame (name, qid, measure, value),
# ir_measures' per-query results (query_id, measure, value).
LONG_COLUMNS = {
    "system": ("system", "name", "run"),
    "metric": ("metric", "measure"),
    "query": ("query", "qid", "query_id"),
    "value": ("value",),
}
SHOWN = 5


# Descriptions that compare_per_query and compare_runs share, filled in by shared_doc.
SHARED_DOC = {
    "settings": """n_resamples : int, default=10_000
        Resamples of the randomization, bootstrap and randomised Tukey tests
        and of the bootstrap intervals.
    confidence_level : float, default=0.95
        Level of the intervals.
    alpha : float, default=0.05
        A difference is marked significant when its adjusted p-value is
        below it.
    random_state : int, RandomState instance, numpy Generator or None, default=None
        Seeds the resampling; an int makes results reproducible.""",
    "returns": """comparison : RankingComparison
        The object :func:`compare_rankings` returns: printed table,
        ``to_frame()`` (one row per system and metric) and
        ``to_frame(kind="pairs")`` (one per pair tested), ``to_markdown()``,
        ``to_latex()``, ``to_json()``, ``anova()``, ``queries_needed()`` and
        its Display.""",
}


shared_doc = doc_filler(SHARED_DOC)


@shared_doc
def compare_per_query(
    values,
    *,
    metrics=None,
    baseline=None,
    test="randomization",
    correction="holm",
    n_resamples=10_000,
    confidence_level=0.95,
    alpha=0.05,
    random_state=None,
):
    """Compare systems from their per-query values, computed anywhere, with the tests of compare_rankings.

    Parameters
    ----------
    values : mapping or pandas DataFrame
        The per-query values, in any of these layouts:

        - a mapping ``{system: {metric: {query: value}}}``;
        - a mapping ``{system: {"qid": query_ids, metric: values, ...}}``, as
          :func:`evaluate_run` and :func:`ranking_report` return them with
          ``average=False`` (``values`` aligned with ``query_ids``);
        - a mapping ``{system: {metric: values}}`` of arrays without ids: the
          same queries in the same order for every system and metric
          (query ids 0, 1, ...);
        - a long DataFrame (pandas, Polars, a pyarrow Table, or any frame
          whose columns convert with ``numpy.asarray``) with the columns
          ``system``, ``metric``, ``query`` and ``value``, one row per
          (system, metric, query); also
          under PyTerrier's names (``name``, ``qid``, ``measure``,
          ``value``: ``pt.Experiment(..., perquery=True)``) and ir_measures'
          (``query_id``, ``measure``), or ``run`` for the system.

        A value is a real number; NaN marks a query undefined for that
        system and metric. At least two systems, each with every metric.
    metrics : sequence of str, default=None
        The metrics to compare, in this order; None: every metric of
        ``values``, in the order they first appear.
    baseline : str, default=None
        The system every other one is compared with; None: every pair.
    test : str, default="randomization"
        As for :func:`compare_rankings`: ``"randomization"``, ``"t-test"``,
        ``"wilcoxon"``, ``"bootstrap"``, ``"tukey-hsd"`` or
        ``"randomized-tukey-hsd"``; peers' names are accepted too: ranx's
        ``"fisher"`` (randomization), ``"student"`` (t-test) and
        ``"tukey"`` (tukey-hsd, see Notes), PyTerrier's ``"t"``.
    correction : str or None, default="holm"
        As for :func:`compare_rankings`: ``"holm"``, ``"bonferroni"``,
        ``"fdr_bh"``, ``"maxT"`` or None; statsmodels' and PyTerrier's
        spellings too (``"bh"``, ``"b"``, ``"h"``, ``"none"``).
    %(settings)s

    Returns
    -------
    %(returns)s

    Raises
    ------
    ValueError
        For fewer than two systems, a system without one of the metrics, a
        (system, metric, query) given twice, arrays without query ids of
        different lengths, an infinite value, query ids
        of mixed kinds (numbers and strings, which never match), an
        unknown baseline, test or correction (a near miss names the one
        meant).
    TypeError
        For a layout that is none of the above, or a value that is not a
        number.

    Warns
    -----
    UserWarning
        Where queries are left out because some system lacks them (or has
        NaN) for a metric, with their number and the systems concerned;
        and every warning of :func:`compare_rankings`.

    See Also
    --------
    compare_rankings : The same statistics from labels and scores.
    compare_runs : The same from TREC runs and qrels, joined by trec_eval's conventions.

    Notes
    -----
    Queries are matched by id (compared as Python compares them: ``"7"`` is
    not ``7``) and sorted. A metric compares the queries that every system
    has, with a value that is not NaN: the others are left out of it, with a
    warning, and each row's ``n_queries`` says how many it compared. The
    mean of a system is the sum of its values in query order over their
    number, as trec_eval and :func:`evaluate_run` average, so that the means
    of :func:`evaluate_run`'s per-query values equal its averages to the
    last bit.

    ranx's ``"tukey"`` calls ``scipy.stats.tukey_hsd`` on the systems'
    values as independent samples; here it names ``"tukey-hsd"``, the
    two-way test of the system x query ANOVA, which knows that every system
    answers the same queries: its p-values are not ranx's (usually much
    smaller). ranx's ``"fisher"`` estimates its p-value as a share of 1,000
    permutations; ``"randomization"`` counts the observed one among them,
    :math:`(1 + \\#)/(1 + B)`, or enumerates every sign flip when they fit in
    ``n_resamples``.

    Examples
    --------
    >>> from sklearn_rankmetrics import compare_per_query
    >>> values = {
    ...     "bm25": {"map": {"q1": 0.2, "q2": 0.4, "q3": 0.1, "q4": 0.3}},
    ...     "dense": {"map": {"q1": 0.5, "q2": 0.6, "q3": 0.2, "q4": 0.6}},
    ... }
    >>> result = compare_per_query(values, baseline="bm25", test="student")
    >>> print(result)
              map
    bm25   0.2500
    dense  0.4750
    <BLANKLINE>
    dense - bm25  +0.2250*
    means over 4 queries, then each pair's difference; * p < 0.05 (t-test, holm)
    >>> round(float(result.to_frame(kind="pairs")["pvalue"].iloc[0]), 4)  # scipy.stats.ttest_rel's
    0.0182
    """
    settings = check_settings(test, correction, alpha, n_resamples, confidence_level, random_state)
    table = per_query_table(values)
    metrics = chosen_metrics(table, metrics)
    check_baseline(baseline, list(table))
    ids, aligned = align(table, metrics)
    warn_if_left_out(ids, aligned, metrics)
    warn_if_constant(aligned, metrics)
    warn_if_same_values(aligned, metrics)
    run_reports = {system: [{"qid": ids, **aligned[system]}] for system in aligned}
    return comparison_of(run_reports, metrics, baseline, **settings)


# ---- the layouts in: one table {system: {metric: {query: value}}} ----


def per_query_table(values):
    """``{system: {metric: (ids, values)}}`` from any accepted layout of ``values``."""
    if (hasattr(values, "columns") or frame_library(values)) and not isinstance(values, Mapping):  # a DataFrame
        return long_frame_table(values)
    if not hasattr(values, "items"):
        raise TypeError(
            "values must map each system to its per-query values ({system: {metric: {query: value}}}), or be a long "
            f"DataFrame with the columns system, metric, query, value; got {type(values).__name__}."
        )
    table = {}
    for system, entry in values.items():
        if not hasattr(entry, "items"):
            raise TypeError(
                f"values[{plain(system)!r}] must map metric names to per-query values ({{metric: {{query: value}}}}, "
                f"or evaluate_run's {{'qid': ids, metric: values}}); got {type(entry).__name__}."
            )
        table[system] = system_entry(system, entry)
    if len(table) < 2:
        raise ValueError(f"compare_per_query needs at least two systems in values; got {len(table)}.")
    check_positional_lengths(values)
    return table


def check_positional_lengths(values):
    """A ValueError where arrays without query ids differ in length: by position, no query can be told missing."""
    lengths = {
        f"values[{plain(system)!r}][{plain(metric)!r}]": len(column)
        for system, entry in values.items()
        if "qid" not in entry
        for metric, column in entry.items()
        if not hasattr(column, "items")
    }
    if len(set(lengths.values())) > 1:
        (short, n_short), (long, n_long) = (
            min(lengths.items(), key=lambda i: i[1]),
            max(lengths.items(), key=lambda i: i[1]),
        )
        raise ValueError(
            f"{short} holds {n_short} values and {long} {n_long}, without query ids: arrays without ids pair the "
            "queries by position, so each needs a value for every query (NaN where undefined). Give the ids: "
            "{query: value}, or {'qid': ids, metric: values}."
        )


def system_entry(system, entry):
    """One system's ``{metric: (ids, values)}`` from ``{metric: {query: value}}``, ``{"qid": ids, metric: values}``
    or ``{metric: values}``."""
    where = f"values[{plain(system)!r}]"
    if "qid" in entry:  # evaluate_run's and ranking_report's per-query output
        ids = query_id_array(entry["qid"], f"{where}['qid']")
        columns = {metric: column for metric, column in entry.items() if metric != "qid"}
        for metric, column in columns.items():
            if np.ndim(column) != 1 or len(column) != len(ids):
                raise ValueError(
                    f"{where}[{plain(metric)!r}] must hold one value per query id of {where}['qid'] ({len(ids)}); "
                    f"got shape {np.shape(column)}."
                )
        return {metric: (ids, numbers_of(f"{where}[{plain(metric)!r}]", column)) for metric, column in columns.items()}
    found = {}
    for metric, column in entry.items():
        name = f"{where}[{plain(metric)!r}]"
        if hasattr(column, "items"):
            found[metric] = (query_id_array(list(column), name), numbers_of(name, list(column.values())))
        elif np.ndim(column) == 1:  # an array without ids: the queries 0, 1, ... in the same order everywhere
            found[metric] = (np.arange(len(column)), numbers_of(name, column))
        else:
            raise TypeError(f"{name} must map query ids to values, or be a 1-D array; got {type(column).__name__}.")
    return found


def long_frame_table(frame):
    """The table of a long DataFrame: one row per (system, metric, query), under our names or a peer's.

    Systems and metrics keep the order in which they first appear.
    """
    names = {role: frame_column(frame, role) for role in LONG_COLUMNS}
    value = numbers_of(f"the column {names['value']!r}", np.asarray(column_of(frame, names["value"])))
    (systems, system_code), (metrics, metric_code) = (
        first_appearance(column_of(frame, names[role]), names[role]) for role in ("system", "metric")
    )
    if len(systems) < 2:
        raise ValueError(
            f"compare_per_query needs at least two systems in the column {names['system']!r}; got {len(systems)}."
        )
    key = system_code * len(metrics) + metric_code
    order = np.argsort(key, kind="stable")
    starts = np.flatnonzero(np.diff(key[order], prepend=-1))
    queries = np.asarray(column_of(frame, names["query"]))
    table = {system: {} for system in systems}
    for rows in np.split(order, starts[1:]):
        system, metric = divmod(int(key[rows[0]]), len(metrics))
        table[systems[system]][metrics[metric]] = (queries[rows], value[rows])
    return table


def column_of(frame, name):
    """The column ``name`` of a DataFrame: pandas' own Series (its categories factorize fast), else a numpy array."""
    return frame[name] if hasattr(frame, "iloc") else column_named(frame, name)


def first_appearance(column, name):
    """The distinct values of a frame's column in the order they first appear, and each row's index among them."""
    column = column if is_pandas_labels(column) else np.asarray(column, dtype=object)  # pandas factorizes its own
    try:
        distinct, codes = factorize_query_ids(column)
    except (TypeError, ValueError) as error:
        raise ValueError(f"the column {name!r}: {error}") from None
    first = np.full(len(distinct), len(codes))
    np.minimum.at(first, codes, np.arange(len(codes)))
    order = np.argsort(first, kind="stable")
    rank = np.empty(len(order), dtype=np.intp)
    rank[order] = np.arange(len(order))
    return distinct[order].tolist(), rank[codes]


def frame_column(frame, role):
    """The column of ``frame`` that holds ``role``, under our name or a peer's; a ValueError naming the near miss."""
    present = column_labels(frame) if frame_library(frame) else list(frame.columns)
    found = [name for name in LONG_COLUMNS[role] if name in present]
    if len(found) > 1:
        raise ValueError(f"values has the columns {found}, which all name the {role}: keep one (or rename the others).")
    if found:
        return found[0]
    accepted = " or ".join(repr(name) for name in LONG_COLUMNS[role])
    present = [str(name) for name in present]
    close = difflib.get_close_matches(LONG_COLUMNS[role][0], present, n=1) or difflib.get_close_matches(
        LONG_COLUMNS[role][-1], present, n=1
    )
    hint = f" Did you mean to rename {close[0]!r} to {LONG_COLUMNS[role][0]!r}?" if close else ""
    raise ValueError(f"values, a long DataFrame, needs a {role} column ({accepted}); its columns are {present}.{hint}")


def numbers_of(name, column):
    """A column of per-query values as float64: real numbers, NaN for undefined; never infinite."""
    raw = np.asarray(column)
    if raw.dtype.kind == "b" or (
        isinstance(column, list | tuple) and any(isinstance(v, bool | np.bool_) for v in column)
    ):
        raise TypeError(f"{name} must hold numbers (NaN for an undefined query); got booleans.")
    if raw.dtype.kind not in "fiu":
        if raw.dtype.kind != "O" or not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in raw):
            bad = next((v for v in raw.tolist() if not isinstance(v, numbers.Real) or isinstance(v, bool)), raw.dtype)
            raise TypeError(f"{name} must hold numbers (NaN for an undefined query); got {plain(bad)!r}.")
    floats = raw.astype(np.float64)
    if np.isinf(floats).any():
        raise ValueError(
            f"{name} holds an infinite value; per-query values must be finite numbers (NaN for an undefined query)."
        )
    return floats


# ---- choosing and aligning ----


def chosen_metrics(table, metrics):
    """The metrics compared: ``metrics`` (each one every system has), or every metric of the table in order."""
    present = list(dict.fromkeys(metric for entry in table.values() for metric in entry))
    if metrics is None:
        metrics = present
    elif isinstance(metrics, str):
        raise TypeError(f"metrics must be a sequence of metric names, such as [{metrics!r}]; got a string.")
    metrics = list(metrics)
    if not metrics:
        raise ValueError("metrics is empty: give at least one metric name, or None for every metric of values.")
    if len(set(metrics)) != len(metrics):
        raise ValueError(f"metrics names a metric twice: {plain(metrics)}; give each once.")
    for system, entry in table.items():
        missing = [metric for metric in metrics if metric not in entry]
        if missing:
            close = nearest(missing[0], entry)
            raise ValueError(
                f"system {plain(system)!r} has no values of {plain(missing)}; its metrics are {plain(list(entry))}."
                + (f" Did you mean {plain(close)!r}?" if close is not None else "")
                + " Every system needs every metric compared."
            )
    return metrics


def check_baseline(baseline, systems):
    if baseline is not None and baseline not in systems:
        close = nearest(baseline, systems)
        raise ValueError(
            f"baseline={plain(baseline)!r} is not one of the systems {plain(systems)}."
            + (f" Did you mean {plain(close)!r}?" if close is not None else "")
        )


def nearest(name, choices):
    """The choice nearest to ``name`` as text, upper and lower case alike (``"BM25"`` for ``"bm25"``); None if none
    is near."""
    by_text = {str(choice).lower(): choice for choice in reversed(list(choices))}  # the first of two alike wins
    close = difflib.get_close_matches(str(name).lower(), list(by_text), n=1)
    return by_text[close[0]] if close else None


def align(table, metrics):
    """The sorted query ids of every (system, metric), and each one's values on them (NaN where it lacks one)."""
    parts = [(system, metric, *entry[metric]) for system, entry in table.items() for metric in metrics]
    ids, inverse = distinct_ids([query_ids for _, _, query_ids, _ in parts])
    aligned, offset = {system: {} for system in table}, 0
    for system, metric, query_ids, values in parts:
        places, offset = inverse[offset : offset + len(query_ids)], offset + len(query_ids)
        counts = np.bincount(places, minlength=len(ids))
        if (counts > 1).any():
            raise ValueError(
                f"system {plain(system)!r} has two values of {plain(metric)!r} for query "
                f"{plain(ids[np.flatnonzero(counts > 1)[0]])!r}: give each (system, metric, query) once."
            )
        column = np.full(len(ids), np.nan)
        column[places] = values
        aligned[system][metric] = column
    return ids, aligned


def distinct_ids(parts):
    """The distinct query ids of every part, sorted, and each id's index among them (parts one after another).

    A ValueError where an id is missing (None, NaN) or the ids mix numbers
    and strings, which never match. The ids are told apart by hashing
    (:func:`factorize_query_ids`), the distinct ones alone sorted.
    """
    every = np.concatenate([np.asarray(part, dtype=object) for part in parts]) if parts else np.zeros(0, object)
    found = set(map(type, every))
    if type(None) in found:
        raise ValueError("a query id is missing (None): every value needs the id of its query.")
    kinds = {"number" if issubclass(kind, numbers.Real) else kind.__name__ for kind in found}
    if len(kinds) > 1:
        raise ValueError(
            f"the query ids mix kinds ({', '.join(sorted(kinds))}), which never match one another (7 is not '7'): "
            "give every system's ids one type, e.g. with str()."
        )
    try:
        distinct, codes = factorize_query_ids(every)
    except (TypeError, ValueError) as error:  # NaN ids, or ids that cannot be sorted
        raise ValueError(f"the query ids: {error}") from None
    return distinct, codes


def warn_if_left_out(ids, aligned, metrics):
    """Warn where a metric leaves queries out because some system lacks them or has NaN there."""
    for metric in metrics:
        missing = {system: np.isnan(columns[metric]) for system, columns in aligned.items()}
        left_out = np.any(list(missing.values()), axis=0)
        if not left_out.any():
            continue
        lacking = ", ".join(f"{plain(system)!r} {int(mask.sum())}" for system, mask in missing.items() if mask.any())
        shown = ", ".join(repr(plain(query)) for query in ids[left_out][:SHOWN].tolist())
        more = "" if left_out.sum() <= SHOWN else f" and {int(left_out.sum()) - SHOWN} more"
        warn(
            f"{int(left_out.sum())} of {len(ids)} queries are left out of {plain(metric)!r}: some system has no value "
            f"(or NaN) there (queries without a value: {lacking}); left out: {shown}{more}. Each row's n_queries "
            "says how many were compared.",
            UserWarning,
        )


def warn_if_same_values(reports, metrics):
    """Warn where two metrics give every system the same value on every query: one question counted twice.

    ``compare_rankings`` refuses two spellings of one metric by name; values
    from elsewhere (``"map"`` and ``"AP"`` of evaluate_run) are told by their
    values, equal up to rounding (``"ndcg_cut.10"`` and ``"nDCG@10"`` sum in
    two orders). Each would count as a hypothesis of the correction.
    """
    varying = [metric for metric in metrics if metric not in constant_metrics(reports, [metric])]
    twins = [
        (a, b)
        for i, a in enumerate(varying)
        for b in varying[i + 1 :]
        if all(same_values(report[a], report[b]) for report in reports.values())
    ]
    if twins:
        shown = ", ".join(f"{plain(a)!r} and {plain(b)!r}" for a, b in twins[:SHOWN])
        warn(
            f"The metrics {shown} give every system the same value on every query: each counts as a hypothesis of "
            "the correction (and a column of the tables), which only weakens the tests. Compare one of each.",
            UserWarning,
        )


def same_values(first, second):
    """Whether two per-query arrays are equal up to rounding, NaN where NaN."""
    missing = np.isnan(first)
    return bool(
        np.array_equal(missing, np.isnan(second)) and equal_up_to_rounding(first[~missing], second[~missing]).all()
    )


def constant_metrics(reports, metrics):
    """The metrics that take one value for every system on every query compared (the values that are not NaN)."""
    found = []
    for metric in metrics:
        values = np.concatenate([np.asarray(report[metric], dtype=np.float64) for report in reports.values()])
        values = values[~np.isnan(values)]
        if len(values) and (values == values[0]).all():
            found.append(metric)
    return found


def warn_if_constant(reports, metrics, hint=""):
    """Warn where a metric takes one value for every system on every query: no test can tell the systems apart."""
    constant = constant_metrics(reports, metrics)
    if constant:
        values = next(np.asarray(report[constant[0]], dtype=np.float64) for report in reports.values())
        value = f"{values[~np.isnan(values)][0]:g}" + ("" if len(constant) == 1 else f" for {plain(constant[0])!r}")
        names = ", ".join(repr(plain(metric)) for metric in constant)
        warn(
            f"{names}: the same value ({value}) for every system on every query compared, so no test can tell the "
            f"systems apart there.{hint}",
            UserWarning,
        )
