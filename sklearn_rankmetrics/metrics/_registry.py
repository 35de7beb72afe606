"""The registry: every metric once, with its options, its names in every peer tool, its definition and reference.

One table is the source of the scorer names, the metrics of ``ranking_report``,
the library names that ``evaluate_run`` accepts, the error messages and the
docs' metric table. :func:`metric_info` returns a metric's record from any
spelling that a user brings from another tool (``"ndcg_cut.10"``, ``"nDCG@10"``,
``"ndcg@10-"``, ``"RetrievalNormalizedDCG"``); :mod:`._names` parses names.
"""

from ._records import RECORDS

REGISTRY = {record.canonical: record for record in RECORDS}
# The peer tools whose spellings and conventions the records know, in the order they first appear.
TOOLS = tuple(
    dict.fromkeys(tool for record in RECORDS for tool in (*record.spellings, *record.conventions) if tool != "common")
)

# Each function's record, for the names of scorers made from a function.
BY_FUNCTION = {record.function: record for record in REGISTRY.values()}
# The families whose names work as scorer names (with a cutoff and options); the others' are looked up whole.
SCORED = ("ranking", "diversity")
BY_NAME = {
    name.lower(): record
    for record in REGISTRY.values()
    if record.family not in SCORED
    for name in (record.canonical, record.function.__name__, *record.aliases)
}

# The metrics on one label per document whose kernels run in any namespace (numpy, or an Array API one on its
# device), and those that compute with numpy on the host; all share one ranking through their kernels.
METRICS = {name: r.function for name, r in REGISTRY.items() if r.family == "ranking" and r.array_api}
HOST_METRICS = {name: r.function for name, r in REGISTRY.items() if r.family == "ranking" and not r.array_api}
KERNELS = {record.function: record.kernel for record in REGISTRY.values() if record.kernel is not None}
DIVERSITY_METRICS = tuple(record.function for record in REGISTRY.values() if record.family == "diversity")

# Scorer names: each metric's name and its variants, with the options they set.
SCORER_NAMES = {
    name: (record.function, dict(preset))
    for record in REGISTRY.values()
    if record.family in SCORED
    for name, preset in {record.canonical: {}, **record.variants}.items()
    if name not in ("dcg_burges", "ndcg_burges")  # ranx's names of the _exp variants: aliases, not listed twice
}


def registered_name(score_func):
    """The canonical name of a registered metric function."""
    return BY_FUNCTION[score_func].canonical


def metric_info(name):
    """Describe a metric: its canonical name, function, options, aliases, definition, reference and conventions.

    Parameters
    ----------
    name : str or callable
        Any name the library accepts (``"ndcg@10"``, ``"ndcg_exp"``, ``"gini_index"``) or that a peer
        tool uses: trec_eval (``"ndcg_cut_10"``, ``"ndcg_cut.10"``, ``"P_10"``, ``"P.10"``,
        ``"recall_100"``, ``"map_cut_10"``, ``"success_1"``, ``"Rprec"``, ``"recip_rank"``), ir_measures
        (``"nDCG@10"``, ``"P@10"``, ``"R@100"``, ``"AP@10"``, ``"RR"``, ``"Success@1"``), ranx
        (``"precision@10"``, ``"hit_rate@1"``, ``"r-precision"``, ``"mrr"``), LightGBM and XGBoost
        (``"ndcg@10"``, ``"map@10"``, ``"ndcg@10-"``), torchmetrics' class names
        (``"RetrievalNormalizedDCG"``), RecBole's and Elliot's; or a metric function, or a scorer of
        :func:`get_ranking_scorer`.

    Returns
    -------
    info : MetricInfo
        The metric's record, read by attribute or key: ``canonical``, ``function``, ``options``
        (keyword options with their defaults), ``aliases`` (its names in peers' spellings, ``k``
        standing for a cutoff), ``definition``, ``reference``, ``conventions`` (per tool, the options
        that reproduce its number), ``spellings`` (the aliases by tool), ``variants``, ``family``,
        ``array_api`` and ``settings``: the options that ``name`` itself sets (its cutoff, say), so
        that ``info.function(y_true, y_score, **info.settings)`` computes what ``name`` names.

    Raises
    ------
    ValueError
        If ``name`` is no metric name (the message suggests the nearest one), or sets an option the
        metric does not have.
    TypeError
        If ``name`` is neither a string nor a metric function or scorer.

    See Also
    --------
    get_ranking_scorer_names : The scorer names.

    Examples
    --------
    >>> from sklearn_rankmetrics import metric_info
    >>> info = metric_info("ndcg_cut.10")
    >>> info.canonical, info.function.__name__, info.options["gain"], dict(info.settings)
    ('ndcg', 'ndcg_score', 'linear', {'k': 10})
    >>> info == metric_info("nDCG@10")  # the same computation
    True
    >>> dict(metric_info("map@10").conventions["lightgbm"])
    {'denominator': 'capped', 'ties': 'stable', 'zero_division': 1.0}
    >>> "nDCG@10" in metric_info("ndcg").aliases
    True
    """
    if callable(name) and not isinstance(name, str):
        scorer = getattr(name, "_score_func", None)  # a scorer of get_ranking_scorer
        if scorer in BY_FUNCTION:
            return BY_FUNCTION[scorer].with_settings(getattr(name, "_kwargs", {}))
        if name in BY_FUNCTION:
            return BY_FUNCTION[name]
    if not isinstance(name, str):
        raise TypeError(
            f"name must be a metric name (a str such as 'ndcg@10') or a metric function; got {type(name).__name__}."
        )
    if name.lower() in BY_NAME:
        return BY_NAME[name.lower()]
    from ._names import parse_metric_name

    function, settings = parse_metric_name(name)
    record = BY_FUNCTION[function]
    unknown = sorted(set(settings) - set(record.options))
    if unknown:
        raise ValueError(
            f"{name!r} sets {unknown[0]}, which is not an option of {function.__name__}; its options are "
            f"{', '.join(record.options)}."
        )
    return record.with_settings(settings)


def metric_table():
    """The docs' metric table, in Markdown: one row per record, from the records alone."""
    rows = ["| name | function | definition | also called | reference |", "| --- | --- | --- | --- | --- |"]
    for record in REGISTRY.values():
        names = [f"`{name}`" for name in (record.canonical, *record.variants)]
        aliases = ", ".join(f"`{alias}`" for alias in record.aliases if alias not in record.variants) or "—"
        function = f"{{func}}`~sklearn_rankmetrics.{record.function.__name__}`"
        definition = " ".join([record.definition, *record.variant_definitions.values()])
        rows.append(f"| {', '.join(names)} | {function} | {definition} | {aliases} | {record.reference} |")
    return "\n".join(rows) + "\n"


def conventions_table():
    """The docs' table of the options that reproduce each peer tool's number, in Markdown, from the records."""
    rows = ["| tool | metric | options | note |", "| --- | --- | --- | --- |"]
    for tool in TOOLS:
        for record in REGISTRY.values():
            if tool in record.conventions:
                settings = dict(record.conventions[tool])
                note = settings.pop("note", "")
                options = ", ".join(f"`{key}={value!r}`" for key, value in settings.items()) or "the defaults"
                rows.append(f"| {tool} | `{record.canonical}` | {options} | {note} |")
    return "\n".join(rows) + "\n"
