"""Metric names: a base, an optional cutoff and keyword options, as ``"ndcg@10"`` or ``"map@5(denominator='capped')"``.

The bases are the registry's names and every alias its records list, in any
case: trec_eval's ``ndcg_cut_10`` and ``P.10``, ir_measures' ``nDCG@10``,
ranx's ``r-precision``, XGBoost's ``ndcg@10-`` (a query without a relevant
document scores 0), torchmetrics' class names.
"""

import ast
import difflib
import inspect
import re

from .._core._validation import plain
from ._registry import BY_FUNCTION, KERNELS, REGISTRY, SCORED, SCORER_NAMES, TOOLS


def aliases():
    """Every alias of the records, lowercased, and the scorer name it stands for; trec_eval's bases with a cutoff."""
    found, trec = {}, {}
    for record in REGISTRY.values():
        if record.family not in SCORED:  # no scorer names: metric_info finds them by name
            continue
        for tool, spellings in record.spellings.items():
            for spelling in spellings:
                base = spelling.lower().removesuffix("-")
                with_cutoff = tool == "trec_eval" and base[-2:] in ("_k", ".k")
                base = base[:-2] if with_cutoff or base.endswith("@k") else base
                target = scorer_name(record, record.variants.get(base, {}))
                if with_cutoff:
                    trec[base] = target
                elif base != target:
                    found[base] = target
    return found, trec


def scorer_name(record, preset):
    """The scorer name of ``record``'s metric with the options ``preset`` (a variant such as "ndcg_exp")."""
    return next(
        name for name, (function, options) in SCORER_NAMES.items() if function is record.function and options == preset
    )


# The names that IR users type (trec_eval, ir_measures, ranx, the boosters, torchmetrics), matched case-insensitively.
ALIASES, TREC_BASES = aliases()
# trec_eval's measures with the cutoff after an underscore or a dot: ndcg_cut_10, P.10, map_cut_5, recall_100.
TREC_CUTOFF = re.compile(rf"^(?P<base>{'|'.join(map(re.escape, sorted(TREC_BASES)))})[_.](?P<k>[0-9]+)$")

# Base, "@" cutoff, XGBoost's "-" (no relevant document scores 0), options; nothing after them (\Z: not even "\n").
NAME = re.compile(
    r"^(?P<base>[A-Za-z_][A-Za-z_0-9.\-]*?)(?:@(?P<k>[^(]*?))?(?P<minus>-)?(?:\((?P<options>.*)\))?\Z", re.DOTALL
)
# The metrics whose names take XGBoost's "-": those that XGBoost spells so.
MINUS = {
    record.function for record in REGISTRY.values() for name in record.spellings.get("xgboost", ()) if name[-1] == "-"
}
# The public functions' names, for a suggestion: "mean_average_precision_score" is "map".
FUNCTION_NAMES = {function.__name__: record.canonical for function, record in BY_FUNCTION.items()}
CUTOFF = re.compile(r"[0-9]+")
# Peer names that an error message shows, one per tool.
EXAMPLES = ("ndcg_cut_10", "P.10", "nDCG@10", "r-precision", "ndcg@10-", "RetrievalMAP")
# Longer names are refused before parsing: options are a few short literals.
MAX_NAME_LENGTH = 500
OPTION_TYPES = (str, int, float, bool, type(None))


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
        if len(name) > MAX_NAME_LENGTH:
            raise ValueError(
                f"A metric name has at most {MAX_NAME_LENGTH} characters; got one of {len(name)} ({name[:40]!r}...)."
            )
    match = NAME.match(name) if isinstance(name, str) else None
    base, k = canonical_base(match["base"]) if match else (None, None)
    if base not in SCORER_NAMES:
        raise ValueError(unknown_name_message(name, suggest))
    score_func, preset = SCORER_NAMES[base]
    options = parse_options(match["options"] or "", name) if match["options"] is not None else {}
    options = own_option_names(options, BY_FUNCTION[score_func], name)
    clash = sorted(set(options) & set(preset))
    if clash:
        typed = match["base"]
        raise ValueError(f"{name!r} sets {clash[0]}, which {typed!r} already sets to {preset[clash[0]]!r}.")
    cutoffs = [text for text in (k, match["k"]) if text is not None]
    if cutoffs:
        if len(cutoffs) > 1 or "k" in options:
            raise ValueError(f"{name!r} gives the cutoff k more than once; give it once.")
        options["k"] = check_cutoff(name, cutoffs[0], suggest)
    if "k" in options and "k" not in inspect.signature(score_func).parameters:
        raise ValueError(f"{name!r} gives a cutoff, but {base} examines every document: it has no k.")
    if match["minus"]:  # XGBoost's "ndcg@10-": a query without a relevant document scores 0
        if score_func not in MINUS:
            raise ValueError(
                f"{name!r} ends with '-', XGBoost's mark for ndcg and map only (a query without a relevant document "
                "scores 0); for this metric, pass zero_division=0.0."
            )
        if "zero_division" in options:
            raise ValueError(f"{name!r} sets zero_division twice: its '-' means zero_division=0.0; give it once.")
        options["zero_division"] = 0.0
    return score_func, {**preset, **options}


def own_option_names(options, record, name):
    """``options`` under the metric function's own names: a peer tool's name of an option (ir_measures' ``T`` of
    INST, the record's ``peer_options``) stands for the option it names, and each option is set once."""
    peers = {peer: ours for names in record.peer_options.values() for peer, ours in names.items()}
    own, given_as = {}, {}
    for option, value in options.items():
        ours = option if option in record.options else peers.get(option, option)
        if ours in own:
            raise ValueError(f"{name!r} sets {ours} twice (as {given_as[ours]} and as {option}); give it once.")
        own[ours], given_as[ours] = value, option
    return own


def check_cutoff(name, text, suggest):
    """The cutoff written ``text`` in ``name``, as an int; a ValueError saying what is wrong unless it is >= 1."""
    if CUTOFF.fullmatch(text) and (len(text) > 19 or int(text) >= 2**63):
        raise ValueError(f"{name!r} has a cutoff of {len(text)} digits; k must be below 2**63 (as in 'ndcg@10').")
    if CUTOFF.fullmatch(text) and int(text) >= 1:
        return int(text)
    said = f"k={int(text)}" if CUTOFF.fullmatch(text) else f"the cutoff {text!r}" if text else "nothing after '@'"
    raise ValueError(f"{name!r} has {said}, but k must be an integer >= 1 (as in 'ndcg@10').{hint(name, suggest)}")


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


def hint(typed, suggest):
    close = suggest(typed) if suggest is not None else None
    return f" Did you mean {close!r}?" if close else ""


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
    match = NAME.match(name) if isinstance(name, str) and len(name) <= MAX_NAME_LENGTH else None
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
    """The registered base name of a typed one (any case, IR aliases) and the cutoff it carries, if any."""
    base = typed.lower()
    trec = TREC_CUTOFF.match(base)
    if trec:
        return TREC_BASES[trec["base"]], trec["k"]
    return ALIASES.get(base, base), None


def parse_options(text, name):
    """Keyword options written as in a Python call, ``a=1, b='x'``: each once, each a plain literal.

    ``nan`` and ``inf`` (signed or not) stand for those floats.
    """
    try:
        call = ast.parse(f"f({text})", mode="eval").body
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "f"):
            raise ValueError("not a single call")
        if call.args or any(keyword.arg is None for keyword in call.keywords):
            raise ValueError("positional option")
        pairs = [(keyword.arg, literal(keyword.value)) for keyword in call.keywords]
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError) as error:
        raise ValueError(
            f"The options of {name!r} must be keyword=literal pairs (strings, numbers, True, False, None, nan), "
            'as in "ndcg@10(zero_division=1.0)".'
        ) from error
    keys = [key for key, _ in pairs]
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    if repeated:
        raise ValueError(f"{name!r} sets {repeated[0]} twice; give each option once.")
    return dict(pairs)


def literal(node):
    """The value of a literal option: a string, number, bool or None, ``nan``/``inf``, or a flat tuple of numbers."""
    if isinstance(node, ast.Tuple | ast.List):
        values = tuple(literal(element) for element in node.elts)
        if not all(isinstance(value, int | float) and not isinstance(value, bool) for value in values):
            raise ValueError("a sequence of values that are not all numbers")
        return values
    sign = 1.0
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        sign = -1.0 if isinstance(node.op, ast.USub) else 1.0
        node = node.operand
    if isinstance(node, ast.Name) and node.id in ("nan", "inf"):
        return sign * float(node.id)
    if not (isinstance(node, ast.Constant) and isinstance(node.value, OPTION_TYPES)):
        raise ValueError("not a literal")
    if sign < 0:
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise ValueError("a minus sign before a value that is not a number")
        return -node.value
    return node.value


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
