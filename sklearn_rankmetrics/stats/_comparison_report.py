"""A RankingComparison as text, Markdown, LaTeX and JSON.

Every layout shows each tested pair. The paper tables follow ranx's: one row
per system, one column per metric, each system named by a letter, and a mean
carries as superscripts the letters of the systems it is significantly better
than (adjusted p below the comparison's ``alpha``).
"""

import json
import re
import string

import numpy as np

from .._core._tolerance import equal_up_to_rounding, values_scale
from .._core._validation import check_flag, check_integer, plain
from ._notes import interval_note

FORMAT = "sklearn_rankmetrics.RankingComparison"
VERSION = 1
INTEGER_COLUMNS = ("wins", "ties", "losses", "n_queries", "n_runs")
# Infinite numbers (an effect size without spread) as JSON holds them: standard JSON has no literal for them.
INFINITIES = {"inf": np.inf, "-inf": -np.inf}
TEST_NAMES = {
    "randomization": "paired randomization test",
    "t-test": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "bootstrap": "paired bootstrap-t test",
    "tukey-hsd": "Tukey HSD",
    "randomized-tukey-hsd": "randomised Tukey HSD",
}


def import_pandas(caller):
    """pandas, or an ImportError that names the extra to install."""
    try:
        import pandas as pd
    except ImportError as error:
        raise ImportError(
            f"{caller} needs pandas: pip install 'sklearn-rankmetrics[pandas]' (or pip install pandas)."
        ) from error
    return pd


def metric_name(comparison, metric):
    """The metric named, or the comparison's first one; a ValueError naming its metrics otherwise."""
    metrics = [name for name in comparison.per_query if name != "qid"]
    if metric is None:
        return metrics[0]
    if metric not in metrics:
        raise ValueError(f"metric={plain(metric)!r} is not in the comparison; it has {plain(metrics)}.")
    return metric


def defined_values(comparison, metric):
    """A metric's per-query values on the queries every system defines, and the mask of those queries."""
    values = comparison.per_query[metric]
    defined = np.all([~np.isnan(v) for v in values.values()], axis=0)
    return {name: v[defined] for name, v in values.items()}, defined


def layout(comparison):
    """The metrics and systems of a comparison, in order, and each (system, metric)'s summary row."""
    metrics = list(dict.fromkeys(row["metric"] for row in comparison.rows))
    systems = list(dict.fromkeys(row["system"] for row in comparison.rows))
    summary = {}
    for row in comparison.rows:
        summary.setdefault((row["system"], row["metric"]), row)
    return metrics, systems, summary


def tested_rows(comparison):
    """The rows of the pairs tested, in the order of the comparison."""
    return [row for row in comparison.rows if row["baseline"] is not None]


def significant(row, alpha):
    return bool(row["pvalue_adjusted"] < alpha)


def family_text(comparison):
    """What the adjusted p-values adjust for, in words."""
    metrics, systems, _ = layout(comparison)
    correction = comparison.correction or "no correction"
    if comparison.test.endswith("tukey-hsd"):
        return f"{TEST_NAMES[comparison.test]} of {len(systems)} systems, {correction} across {len(metrics)} metrics"
    return f"{TEST_NAMES[comparison.test]}, {correction} over {len(tested_rows(comparison))} (pair, metric)"


def level_text(alpha):
    """A significance level as written: 0.0125 stays 0.0125 (the shortest repr of the float)."""
    return repr(float(alpha))


def queries_text(comparison, name=str):
    """The queries compared, in words: "30 queries", "7 of 10 queries (...)", or per metric where they differ.

    A metric leaves out the queries that some system does not define
    (``zero_division=np.nan``); each row holds how many it compared.
    ``name`` writes a metric's name (escaped for a Markdown table).
    """
    metrics, _, summary = layout(comparison)
    counts = {metric: row.get("n_queries", comparison.n_queries) for (_, metric), row in summary.items()}
    total = len(comparison.per_query["qid"]) if "qid" in comparison.per_query else comparison.n_queries
    distinct = set(counts.values())
    if len(distinct) == 1:
        text = str(*distinct)
    else:
        text = ", ".join(f"{counts[metric]} ({name(metric)})" for metric in metrics)
    if distinct == {total}:
        return f"{text} quer{'y' if total == 1 else 'ies'}"
    return f"{text} of {total} queries ({'none' if distinct == {0} else 'those'} defined for every system)"


def several_runs(comparison, summary):
    return any(row.get("n_runs", 1) > 1 for row in summary.values())


def format_text(comparison):
    """The comparison as a plain-text table: means, then every pair's difference, marked where significant."""
    metrics, systems, summary = layout(comparison)
    if not metrics:
        return "RankingComparison with no rows"
    runs = several_runs(comparison, summary)

    def mean_cell(system, metric):
        row = summary.get((system, metric))
        if row is None:
            return ""
        text = f"{row['mean']:.4f}"
        if runs and row.get("n_runs", 1) > 1:
            text += f"±{row['run_std']:.4f}"
        return text

    pairs = list(dict.fromkeys((row["system"], row["baseline"]) for row in tested_rows(comparison)))
    differences = {
        (row["system"], row["baseline"], row["metric"]): f"{row['delta']:+.4f}"
        + ("*" if significant(row, comparison.alpha) else " ")
        for row in tested_rows(comparison)
    }
    labels = [one_line(str(system)) for system in systems] + [one_line(f"{b} - {a}") for b, a in pairs]
    cells = [mean_cell(system, metric) for system in systems for metric in metrics] + list(differences.values())
    width = max(len(cell) for cell in [*cells, *metrics]) + 2
    name_width = max(len(label) for label in labels) + 2
    header = "".ljust(name_width) + "".join(one_line(str(metric)).rjust(width) for metric in metrics)
    lines = [header]
    for system in systems:
        lines.append(
            one_line(str(system)).ljust(name_width) + "".join(mean_cell(system, m).rjust(width) for m in metrics)
        )
    if pairs:
        lines.append("")
        for b, a in pairs:
            line = one_line(f"{b} - {a}").ljust(name_width)
            lines.append(line + "".join(differences.get((b, a, m), "").rjust(width) for m in metrics))
    correction = comparison.correction or "no correction"
    lines.append(
        f"means over {queries_text(comparison)}, then each pair's difference; * p < {level_text(comparison.alpha)} "
        f"({comparison.test}{'' if comparison.test.endswith('test') else ' test'}, {correction})"
    )
    if runs:
        counts = ", ".join(f"{system} {summary[(system, metrics[0])].get('n_runs', 1)}" for system in systems)
        lines.append(f"±: standard deviation of the mean over each system's runs (runs: {counts})")
    note = interval_note(comparison)  # where a difference's interval and its mark disagree, say why
    return "\n".join(lines if note is None else [*lines, note])


def letters(count):
    """Labels for ``count`` systems: a, b, ..., z, then aa, ab, ... (as spreadsheet columns)."""
    labels = []
    for index in range(count):
        label = ""
        index += 1
        while index:
            index, remainder = divmod(index - 1, 26)
            label = string.ascii_lowercase[remainder] + label
        labels.append(label)
    return labels


def paper_table(comparison, *, ci, effect_sizes, digits):
    """The cells of the paper table: per (system, metric), the mean, its interval, the systems it beats.

    ``marks`` lists, per system beaten, its letter and the absolute effect
    size (None unless ``effect_sizes``), for the layout to write.
    """
    ci, effect_sizes = check_flag("ci", ci), check_flag("effect_sizes", effect_sizes)
    digits = check_integer("digits", digits, low=0)
    metrics, systems, summary = layout(comparison)
    label = dict(zip(systems, letters(len(systems)), strict=True))
    beaten = {}
    for row in tested_rows(comparison):
        if not significant(row, comparison.alpha) or row["delta"] == 0:
            continue
        winner, loser = (row["system"], row["baseline"]) if row["delta"] > 0 else (row["baseline"], row["system"])
        beaten.setdefault((winner, row["metric"]), []).append((systems.index(loser), abs(row["effect_size"])))
    best = {metric: max(summary[(system, metric)]["mean"] for system in systems) for metric in metrics}
    scale = {metric: metric_scale(comparison, metric, summary, systems) for metric in metrics}
    cells = {}
    for system in systems:
        for metric in metrics:
            row = summary[(system, metric)]
            losers = sorted(beaten.get((system, metric), []))
            marks = [(label[systems[index]], effect if effect_sizes else None) for index, effect in losers]
            cells[(system, metric)] = {
                "mean": f"{row['mean']:.{digits}f}",
                "ci": f"[{row['ci_low']:.{digits}f}, {row['ci_high']:.{digits}f}]" if ci else "",
                "best": bool(equal_up_to_rounding(row["mean"], best[metric], scale=scale[metric])),
                "marks": marks,
            }
    return metrics, systems, label, cells


def metric_scale(comparison, metric, summary, systems):
    """The scale of a metric's means for equality up to rounding: of its per-query values and the means."""
    values = [np.ravel(values) for values in comparison.per_query.get(metric, {}).values()]
    means = [summary[(system, metric)]["mean"] for system in systems]
    return values_scale(np.concatenate([*values, means]))


def legend(comparison, *, ci, effect_sizes, name=str):
    """The sentence under a paper table that says what its marks mean (``name`` writes a metric's name)."""
    text = (
        f"Superscripts: significantly better than the system of that letter, adjusted p < "
        f"{level_text(comparison.alpha)} ({family_text(comparison)}; {queries_text(comparison, name)})."
    )
    if effect_sizes:
        tukey = comparison.test.endswith("tukey-hsd")
        scale = "the residual standard deviation" if tukey else "the standard deviation of the per-query differences"
        text += f" In parentheses: the effect size, the difference over {scale}."
    if ci:
        text += f" Brackets: {100 * comparison.confidence_level:g}% bootstrap interval of the mean."
    text += " Bold: the best mean."
    return text


def to_markdown(comparison, *, ci=True, effect_sizes=False, digits=4):
    """The comparison as a Markdown table (GitHub's dialect: superscripts as ``<sup>``)."""
    metrics, systems, label, cells = paper_table(comparison, ci=ci, effect_sizes=effect_sizes, digits=digits)
    lines = [
        "| system | " + " | ".join(map(escape_markdown, map(str, metrics))) + " |",
        "|---|" + "---:|" * len(metrics),
    ]
    for system in systems:
        parts = []
        for metric in metrics:
            cell = cells[(system, metric)]
            text = f"**{cell['mean']}**" if cell["best"] else cell["mean"]
            text += f" {cell['ci']}" if cell["ci"] else ""
            text += f"<sup>{marks_text(cell['marks'], infinity='∞')}</sup>" if cell["marks"] else ""
            parts.append(text)
        lines.append(f"| ({label[system]}) {escape_markdown(str(system))} | " + " | ".join(parts) + " |")
    note = legend(comparison, ci=ci, effect_sizes=effect_sizes, name=lambda metric: escape_markdown(str(metric)))
    return "\n".join([*lines, "", note]) + "\n"


def marks_text(marks, *, infinity):
    """The letters of the systems a mean beats, each with its effect size where shown (``infinity`` for inf)."""
    return ", ".join(
        letter if effect is None else f"{letter} ({infinity if np.isinf(effect) else f'{effect:.2f}'})"
        for letter, effect in marks
    )


# Markdown's characters that a name must not bring into a table: a backslash first (it escapes the others),
# emphasis, code, HTML, links, the cell separator, entities, strike-through, and GitHub's own: math ($), emoji
# shortcodes and URL schemes (:), issue references (#).
MARKDOWN_SPECIAL = "\\`*_{}[]<>|&~$:#"
# An @ starts a mention or an e-mail address on GitHub, but not the cutoff of a metric name (ndcg@10).
MENTION = re.compile(r"@(?!\d+(?![\w.]))")
LINE_BREAKS = re.compile(r"[\r\n]+")


def escape_markdown(text):
    """A name as literal Markdown in a GitHub table cell: its special characters escaped, line breaks as spaces."""
    escaped = "".join("\\" + character if character in MARKDOWN_SPECIAL else character for character in one_line(text))
    return MENTION.sub(r"\\@", escaped)


def one_line(text):
    """A name on one line: a line break would end a table's row (Markdown) or its paragraph (LaTeX)."""
    return LINE_BREAKS.sub(" ", text)


LATEX_SPECIAL = {c: "\\" + c for c in "&%$#_{}"} | {
    "~": r"\textasciitilde{}",
    "^": r"\^{}",
    "\\": r"\textbackslash{}",
    # Outside math mode, the default (OT1) font prints "<", ">" and "|" as other glyphs.
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}


def escape_latex(text):
    """Text as literal LaTeX: its special characters escaped, its line breaks as spaces."""
    return "".join(LATEX_SPECIAL.get(character, character) for character in one_line(text))


def to_latex(comparison, *, ci=True, effect_sizes=False, digits=4):
    """The comparison as a LaTeX ``tabular`` (booktabs rules), its legend in a comment-free final row."""
    metrics, systems, label, cells = paper_table(comparison, ci=ci, effect_sizes=effect_sizes, digits=digits)
    lines = [
        r"\begin{tabular}{l" + "r" * len(metrics) + "}",
        r"\toprule",
        "System & " + " & ".join(escape_latex(str(metric)) for metric in metrics) + r" \\",
        r"\midrule",
    ]
    for system in systems:
        parts = []
        for metric in metrics:
            cell = cells[(system, metric)]
            text = rf"\textbf{{{cell['mean']}}}" if cell["best"] else cell["mean"]
            text += rf" {{\scriptsize {cell['ci']}}}" if cell["ci"] else ""
            marks = marks_text(cell["marks"], infinity=r"$\infty$")
            text += rf"\textsuperscript{{{marks}}}" if cell["marks"] else ""
            parts.append(text)
        lines.append(f"({label[system]}) {escape_latex(str(system))} & " + " & ".join(parts) + r" \\")
    note = escape_latex(legend(comparison, ci=ci, effect_sizes=effect_sizes))
    lines += [
        r"\bottomrule",
        rf"\multicolumn{{{len(metrics) + 1}}}{{p{{0.9\linewidth}}}}{{\footnotesize {note}}} \\",
        r"\end{tabular}",
    ]
    return "\n".join(lines) + "\n"


def plain_value(value):
    """A value of a row or a per-query array as JSON holds it: nan as null, ±inf as "inf"/"-inf", numpy's as Python's.

    Standard JSON has no literal for nan and infinity; a numeric field never
    holds a string otherwise, so :func:`number` reads these back exactly.
    """
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not np.isfinite(value):
        return None if np.isnan(value) else str(value)
    return value


def number(value):
    """A number as :func:`plain_value` wrote it: null as nan, "inf" and "-inf" as infinities."""
    if value is None:
        return np.nan
    return INFINITIES[value] if isinstance(value, str) and value in INFINITIES else value


def array_to_json(values):
    values = np.asarray(values)
    return [plain_value(v) for v in values.tolist()] if values.dtype.kind == "f" else values.tolist()


def to_json(comparison):
    """The comparison as a JSON document: its settings, rows and per-query values."""
    document = {
        "format": FORMAT,
        "version": VERSION,
        "test": comparison.test,
        "correction": comparison.correction,
        "confidence_level": comparison.confidence_level,
        "alpha": comparison.alpha,
        "n_queries": comparison.n_queries,
        "rows": [{key: plain_value(value) for key, value in row.items()} for row in comparison.rows],
        "systems": check_names(systems_of(comparison)),
        "per_query": {
            "qid": array_to_json(comparison.per_query["qid"]),
            **{
                metric: [array_to_json(values[system]) for system in systems_of(comparison)]
                for metric, values in comparison.per_query.items()
                if metric != "qid"
            },
        },
        "run_values": {
            metric: [[array_to_json(run) for run in runs[system]] for system in systems_of(comparison)]
            for metric, runs in comparison.run_values.items()
        },
    }
    try:
        return json.dumps(document, allow_nan=False)
    except TypeError as error:
        raise TypeError(
            f"RankingComparison.to_json writes query ids and system names as JSON strings or numbers: {error}. "
            "Use ids of those types (convert them with str)."
        ) from error


def systems_of(comparison):
    """The systems of a comparison's per-query values, in order."""
    metric = next((name for name in comparison.per_query if name != "qid"), None)
    return list(comparison.per_query[metric]) if metric is not None else []


def check_names(systems):
    """The system names, if JSON keeps them as they are (strings and numbers)."""
    for name in map(plain, systems):
        if not isinstance(name, str | int | float) or isinstance(name, bool):
            raise TypeError(
                f"RankingComparison.to_json writes system names as JSON strings or numbers; got {plain(name)!r} of "
                f"type {type(name).__name__}. Name the systems with strings."
            )
    return [plain(name) for name in systems]


def float_array(values):
    return np.array([number(v) for v in values], dtype=np.float64)


def from_json(cls, text):
    """The RankingComparison that :func:`to_json` wrote."""
    try:
        document = json.loads(text)
    except (TypeError, json.JSONDecodeError) as error:
        raise ValueError(f"RankingComparison.from_json needs the text that to_json wrote: {error}.") from error
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ValueError(
            "RankingComparison.from_json needs the text that RankingComparison.to_json wrote (its 'format' is "
            f"{FORMAT!r}); got {plain(str(text)[:60])!r}."
        )
    version = document.get("version", VERSION)
    if not isinstance(version, int) or version > VERSION:
        raise ValueError(
            f"This JSON was written by a newer sklearn-rankmetrics (format version {version!r}; this one reads up "
            f"to {VERSION}). Upgrade to read it."
        )
    try:
        return restore(cls, document)
    except KeyError as error:
        raise ValueError(
            f"RankingComparison.from_json: the JSON lacks the entry {error} that to_json writes; it is not a whole "
            "comparison (was it edited or cut short?)."
        ) from error
    except (TypeError, ValueError, AttributeError) as error:
        raise ValueError(
            f"RankingComparison.from_json: the JSON does not hold a comparison as to_json writes it: {error}."
        ) from error


def restore(cls, document):
    """The RankingComparison of a JSON document of :func:`to_json` (KeyError where an entry is missing)."""
    names = ("system", "metric", "baseline", *INTEGER_COLUMNS)
    rows = [{key: value if key in names else number(value) for key, value in row.items()} for row in document["rows"]]
    systems = document["systems"]
    per_query = {
        name: np.asarray(values) if name == "qid" else dict(zip(systems, map(float_array, values), strict=True))
        for name, values in document["per_query"].items()
    }
    run_values = {
        metric: {
            system: np.array([float_array(run) for run in runs])
            for system, runs in zip(systems, by_system, strict=True)
        }
        for metric, by_system in document["run_values"].items()
    }
    return cls(
        rows=rows,
        test=document["test"],
        correction=document["correction"],
        confidence_level=document["confidence_level"],
        n_queries=document["n_queries"],
        per_query=per_query,
        alpha=document["alpha"],
        run_values=run_values,
    )
