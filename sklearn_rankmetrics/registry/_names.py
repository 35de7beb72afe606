"""Metric names: any name of any record -> the metric function and the options it sets; :func:`metric_info`.

The bases are the registry's names and every alias its records list, in any
case: trec_eval's ``ndcg_cut_10`` and ``P.10``, ir_measures' ``nDCG@10``,
ranx's ``r-precision``, XGBoost's ``ndcg@10-`` (a query without a relevant
document scores 0), torchmetrics' class names. The grammar of a name
(:mod:`._grammar`) is read against the one record its base names.
"""

import copyreg
import difflib
import inspect
import re

from .._core._validation import plain
from ._grammar import DECIMALS, MAX_NAME_LENGTH, NAME, SCORED, base_names, decimal_value, hint, matched, settings
from ._metric_info import MetricInfo
from ._registry import BY_FUNCTION, BY_NAME, KERNELS, REGISTRY, SCORER_NAMES, TOOLS


def aliases():
    """Every alias of the records, lowercased, and the scorer name it stands for; trec_eval's bases with a cutoff;
    the bases with an option's decimals after a dot, and the scorer name and option they stand for."""
    found, trec, decimals = {}, {}, {}
    for record in REGISTRY.values():
        if record.family not in SCORED:  # no scorer names: metric_info finds them by name
            continue
        plain_bases, with_cutoff, with_decimals = base_names(record)
        trec.update({base: scorer_name(record, preset) for base, preset in with_cutoff.items()})
        found.update({base: scorer_name(record, preset) for base, preset in plain_bases.items()})
        decimals.update({base: (scorer_name(record, {}), option) for base, option in with_decimals.items()})
    return {base: target for base, target in found.items() if base != target}, trec, decimals


def scorer_name(record, preset):
    """The scorer name of ``record``'s metric with the options ``preset`` (a variant such as "ndcg_exp")."""
    return next(
        name for name, (function, options) in SCORER_NAMES.items() if function is record.function and options == preset
    )


# The names that IR users type (trec_eval, ir_measures, ranx, the boosters, torchmetrics), matched case-insensitively.
ALIASES, TREC_BASES, DECIMAL_BASES = aliases()
# trec_eval's measures with the cutoff after an underscore or a dot: ndcg_cut_10, P.10, map_cut_5, recall_100.
TREC_CUTOFF = re.compile(rf"^(?P<base>{'|'.join(map(re.escape, sorted(TREC_BASES)))})[_.](?P<k>[0-9]+)$")
# The public functions' names, for a suggestion: "mean_average_precision_score" is "map".
FUNCTION_NAMES = {function.__name__: record.canonical for function, record in BY_FUNCTION.items()}
CUTOFF = re.compile(r"[0-9]+")
# Peer names that an error message shows, one per tool.
EXAMPLES = ("ndcg_cut_10", "P.10", "nDCG@10", "r-precision", "ndcg@10-", "RetrievalMAP")


def parse_metric_name(name):
    """The metric function and the options that a name such as ``"ndcg@10"`` stands for.

    A name states each option once: ``@k`` and a ``k=`` option, an option
    repeated, or an option that the base name already sets (``gain`` of
    ``"ndcg_exp"``) are errors, never silently overridden. An invalid name
    raises a ValueError that says what is wrong and the near valid name, if any.
    """
    return parse_name(name, suggest=near_name)


def is_metric_name(text):
    """Whether ``text`` is a valid metric name. It suggests nothing, so the suggester can test its candidates."""
    try:
        parse_name(text, suggest=None)
    except (ValueError, TypeError):
        return False
    return True


def parse_name(name, *, suggest):
    """:func:`parse_metric_name`, with ``suggest(name)`` giving the near valid name in errors (None: no hint).

    Only :func:`parse_metric_name` passes the suggester, and the suggester tests
    its candidates with :func:`is_metric_name`, which passes None: a suggestion
    never asks for another one.
    """
    if isinstance(name, str):
        name = str(name)  # a numpy string as a plain one, in every message
    match = matched(name)
    base, k, spelled = canonical_base(match["base"]) if match else (None, None, {})
    if base not in SCORER_NAMES:
        raise ValueError(unknown_name_message(name, suggest))
    score_func, preset = SCORER_NAMES[base]
    return score_func, settings(name, match, BY_FUNCTION[score_func], {**preset, **spelled}, k, suggest=suggest)


def unknown_name_message(name, suggest):
    """Why ``name`` is no metric name: a scikit-learn scorer's name, or no name at all (with the near one, if any)."""
    if isinstance(name, str) and name in sklearn_scorer_names():
        return (
            f"{name!r} is a scikit-learn scorer, which ranks all the rows of a fold as one list and ignores the query "
            "groups: it is not a ranking metric. Name one of this library's, such as 'ndcg@10' or 'map' "
            '(get_ranking_scorer_names() lists them); the user guide tells the two registries apart under "Why not '
            "scoring='ndcg@10'?\" (Model selection over query groups)."
        )
    typed = name if isinstance(name, str) else str(name)[:MAX_NAME_LENGTH]
    return (
        f"{plain(name)!r} is not a ranking metric name.{hint(typed, suggest)} Valid names are "
        f"{', '.join(sorted(SCORER_NAMES, key=str.lower))}, each optionally followed by @k (as in 'ndcg@10'), and "
        "their names in "
        f"{', '.join(TOOLS)}, in any case (such as {', '.join(EXAMPLES)}); metric_info(name) describes any of them, "
        "and the user guide's metric table lists them all."
    )


def sklearn_scorer_names():
    from sklearn.metrics import get_scorer_names

    return get_scorer_names()


def shared_kernel(name, *, caller, set_by_caller=None, caller_takes=(), options=None, cutoff=False):
    """The per-query kernel of a metric name, and the options to call it with, for a caller that ranks once.

    ranking_report, evaluate_run (and so the trec_eval command) and
    RankingCurveDisplay rank the rows once and call each metric's kernel on
    that ranking. A kernel takes the metric's own options only (and
    ``zero_division``, which the caller applies), so any other option of the
    name, or of ``options`` given beside it, is refused here with where it
    belongs: ``caller`` sets it for every metric (``set_by_caller`` maps it to
    a phrase that says how), or only the metric function takes it. Options
    in ``caller_takes`` are returned for the caller to apply (a display's
    ``ties``). With ``cutoff``, ``caller`` gives ``k`` itself: the metric must
    have a cutoff, and the name must not set one.

    Returns the metric function, its kernel and the options.
    """
    score_func, preset = parse_metric_name(name)
    function = score_func.__name__
    if score_func not in KERNELS:
        raise ValueError(no_kernel_message(name, BY_FUNCTION[score_func], preset, caller))
    kernel = KERNELS[score_func]
    clash = sorted(set(preset) & set(options or {}))
    if clash:
        raise ValueError(f"{name!r} sets {clash[0]} already; pass it once.")
    options = {**preset, **(options or {})}
    takes = set(inspect.signature(kernel).parameters) - {"ranking"} | {"zero_division", *caller_takes}
    if cutoff:
        if "k" in options:
            raise ValueError(f"{name!r} sets a cutoff; name the metric alone (as 'ndcg') and pass k= to {caller}.")
        if "k" not in takes:
            raise ValueError(
                f"{name!r} has no cutoff ({function} examines every document), but {caller} computes it at each k."
            )
    for option in options:
        if option in (set_by_caller or {}):
            raise ValueError(f"{name!r} sets {option}, which {set_by_caller[option]}.")
        if option in takes:
            continue
        if option in inspect.signature(score_func).parameters:
            raise ValueError(
                f"{name!r} sets {option}, an option of {function} that {caller} cannot pass on: it computes "
                f"every metric from one shared ranking. Call {function} itself for it."
            )
        raise ValueError(
            f"{name!r} sets {option}, which is not an option of {function}; its options are {', '.join(sorted(takes))}."
        )
    return score_func, kernel, options


# Where each caller of shared_kernel takes its labels from: one per document.
LABELS_OF = {"evaluate_run": "the qrels' grade of each document (subtopic qrels are not read)"}


def no_kernel_message(name, record, preset, caller):
    """Why ``caller`` cannot compute the metric of ``name`` beside the others, and the call that can."""
    function = record.function.__name__
    call = f"{function}(y_true, y_score, qid=qid{''.join(f', {key}={value!r}' for key, value in preset.items())})"
    if record.family == "diversity":
        labels = LABELS_OF.get(caller, "one label per document")
        return (
            f"{name!r} is an intent-aware measure: it needs an (n_samples, n_subtopics) judgement matrix, one column "
            f"per subtopic, and {caller} has {labels}. Call {call} with y_true the judgement matrix."
        )
    return f"{name!r} cannot share a ranking with the other metrics in {caller}: call {call} on its own."


def reads_as_metric_name(name):
    """Whether ``name`` reads as a ranking metric name (a known base, an optional @k and options)."""
    match = NAME.match(name) if isinstance(name, str) and len(name) <= MAX_NAME_LENGTH else None  # never raises
    return match is not None and canonical_base(match["base"])[0] in SCORER_NAMES


# Letters typed for the digits they look like, in a cutoff.
LOOKALIKE_DIGITS = str.maketrans("OoIlS", "00115")


def near_name(typed):
    """A valid name close to ``typed``, or None.

    A known base for a misspelt one (``ndgc@10``), digits for the letters that
    look like them in a cutoff (``ndcg@1O``), a cutoff without spaces or written
    as a float (``ndcg@10.0``), no ``@`` before nothing, an underscore missing in
    a trec_eval name (``ndcg_cut10``). Every candidate is tested with
    :func:`is_metric_name`, which never suggests: no recursion.
    """
    base, at, rest = typed.partition("@")
    cutoff, parenthesis, options = rest.partition("(")
    if base in FUNCTION_NAMES and FUNCTION_NAMES[base] in SCORER_NAMES:  # the function's name for the metric's
        base = FUNCTION_NAMES[base]
    trec = re.fullmatch(r"(?P<base>[A-Za-z_]*[A-Za-z])_?(?P<k>[0-9]+)", base)
    if not at and trec and TREC_CUTOFF.match(f"{trec['base']}_{trec['k']}".lower()):
        base = f"{trec['base']}_{trec['k']}"
    known = canonical_base(base)[0] in SCORER_NAMES
    if not known:
        base = closest_base(base)
        if base is None:
            return None
    cutoff = near_cutoff(cutoff)
    candidate = base + (at if cutoff else "") + cutoff + parenthesis + options
    if candidate != typed and is_metric_name(candidate):
        return candidate
    return None if known else base


def closest_base(typed):
    """The registered name or alias closest to ``typed``: a one-letter alias (P, R) only for a one-letter name."""
    if not typed or not typed.isascii():
        return None
    names = [name for name in (*SCORER_NAMES, *ALIASES) if len(name) > 1 or len(typed) <= 1]
    close = difflib.get_close_matches(typed.lower(), names, n=1)
    return close[0] if close else None


def near_cutoff(text):
    """``text`` without spaces, with digits for the letters that look like them, and ``10`` for ``10.0``."""
    fixed = "".join(text.split()).translate(LOOKALIKE_DIGITS)
    whole = re.fullmatch(r"([0-9]+)(?:\.0*)?", fixed)
    return whole[1] if whole else fixed


def canonical_base(typed):
    """The registered base name of a typed one (any case, IR aliases), the cutoff it carries, if any, and the option
    it spells (ranx's ``rbp.95``: ``{"p": 0.95}``)."""
    base = typed.lower()
    trec = TREC_CUTOFF.match(base)
    if trec:
        return TREC_BASES[trec["base"]], trec["k"], {}
    decimal = DECIMALS.match(base)
    if decimal and decimal["base"] in DECIMAL_BASES:
        scorer, option = DECIMAL_BASES[decimal["base"]]
        return scorer, None, {option: decimal_value(decimal["digits"])}
    return ALIASES.get(base, base), None, {}


def canonical_name(score_func, kwargs):
    """The registered name that fits ``score_func`` and ``kwargs`` best, and the options it implies."""
    matches = [
        (name, preset)
        for name, (function, preset) in SCORER_NAMES.items()
        if function is score_func and all(kwargs.get(key) == value for key, value in preset.items())
    ]
    if not matches:
        return score_func.__name__, {}
    return max(matches, key=lambda match: len(match[1]))


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

    Notes
    -----
    A name means one computation everywhere in the library: the scorers,
    :func:`ranking_report`, :func:`~sklearn_rankmetrics.trec.evaluate_run` and
    this record. Where a peer tool computes another number under the same
    spelling, ``conventions[tool]`` holds the options that reproduce it:
    ``"rbp"`` is this library's RBP (p=0.8, binary gains), trec_eval's ``rbp``
    is ``conventions["trec_eval"]`` (p=0.9, gains scaled by the query's largest
    judgement; ``"rbp.p=0.9"`` in ``evaluate_run``). The test suite runs every
    tool named in a record on random inputs, for each of its spellings and
    conventions.

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
    >>> {key: value for key, value in metric_info("rbp").conventions["trec_eval"].items() if key != "note"}
    {'p': 0.9, 'graded': True}
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
    function, options = parse_metric_name(name)
    record = BY_FUNCTION[function]
    unknown = sorted(set(options) - set(record.options))
    if unknown:
        raise ValueError(
            f"{name!r} sets {unknown[0]}, which is not an option of {function.__name__}; its options are "
            f"{', '.join(record.options)}."
        )
    return record.with_settings(options)


def registered_record(canonical, options):
    """The registry's own record of ``canonical`` with the options a name sets: what a pickled record becomes."""
    return metric_info(canonical).with_settings(options)


# Unpickled, a record is the registry's own (the record itself knows nothing of the registry).
copyreg.pickle(MetricInfo, lambda record: (registered_record, (record.canonical, dict(record.settings))))
