"""The registry: the indexes that derive from the table of records (:mod:`._records`).

One table is the source of the scorer names, the metrics of ``ranking_report``,
the library names that ``evaluate_run`` accepts, the error messages and the
docs' metric table. :func:`._names.metric_info` returns a metric's record from any
spelling that a user brings from another tool (``"ndcg_cut.10"``, ``"nDCG@10"``,
``"ndcg@10-"``, ``"RetrievalNormalizedDCG"``).
"""

from ._grammar import SCORED
from ._metric_info import INPUTS
from ._records import RECORDS

REGISTRY = {record.canonical: record for record in RECORDS}
# The peer tools whose spellings and conventions the records know, in the order they first appear.
TOOLS = tuple(
    dict.fromkeys(tool for record in RECORDS for tool in (*record.spellings, *record.conventions) if tool != "common")
)

# Each function's record, for the names of scorers made from a function.
BY_FUNCTION = {record.function: record for record in REGISTRY.values()}
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
    """The docs' table of the options that reproduce each peer tool's number, in Markdown, from the records.

    One row per tool and metric that a record names (a spelling, or a convention), with the tool's spellings, the
    options, the inputs they hold on and the note.
    """
    rows = ["| tool | metric | its names | options | on | note |", "| --- | --- | --- | --- | --- | --- |"]
    for tool in TOOLS:
        for record in REGISTRY.values():
            if tool in record.conventions or tool in record.spellings:
                settings = dict(record.conventions.get(tool, {}))
                note, inputs = settings.pop("note", ""), settings.pop("inputs", ())
                options = ", ".join(f"`{key}={value!r}`" for key, value in settings.items()) or "the defaults"
                names = ", ".join(f"`{name}`" for name in record.spellings.get(tool, ())) or "—"
                on = ", ".join(INPUTS[name] for name in inputs) or "any input"
                rows.append(f"| {tool} | `{record.canonical}` | {names} | {options} | {on} | {note} |")
    return "\n".join(rows) + "\n"
