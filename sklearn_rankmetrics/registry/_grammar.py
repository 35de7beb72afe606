"""The grammar of metric names: a base, an optional cutoff and keyword options, checked against one record.

``"ndcg@10"``, ``"map@5(denominator='capped')"``, trec_eval's ``ndcg_cut_10``,
XGBoost's ``ndcg@10-``. Which record a base names is the registry's business
(:mod:`._names` looks it up among all of them); everything after that is read
from the one record, so that a record can tell whether a name is one of its
own (``"ndcg_cut.10" in metric_info("ndcg").aliases``) without the registry.
"""

import ast
import inspect
import re

# Base, "@" cutoff, XGBoost's "-" (no relevant document scores 0), options; nothing after them (\Z: not even "\n").
NAME = re.compile(
    r"^(?P<base>[A-Za-z_][A-Za-z_0-9.\-]*?)(?:@(?P<k>[^(]*?))?(?P<minus>-)?(?:\((?P<options>.*)\))?\Z", re.DOTALL
)
# trec_eval's bases that carry their cutoff after an underscore or a dot: ndcg_cut_10, P.10.
TREC_CUTOFF = re.compile(r"^(?P<base>.+)[_.](?P<k>[0-9]+)$")
# A peer's spelling that carries an option after a dot as its decimals, written with the option's name: ranx's
# "rbp.p" stands for rbp.95 (p=0.95), rbp.8 (p=0.8).
DECIMAL_SPELLING = re.compile(r"^(?P<base>.+)\.(?P<option>[a-z_]+)$")
DECIMALS = re.compile(r"^(?P<base>.+)\.(?P<digits>[0-9]+)$")
CUTOFF = re.compile(r"[0-9]+")
# Longer names are refused before parsing: options are a few short literals.
MAX_NAME_LENGTH = 500
OPTION_TYPES = (str, int, float, bool, type(None))
# The families whose names take a cutoff and options; the others' are names looked up whole.
SCORED = ("ranking", "diversity")
# The arguments that carry data, one value per row (candidates: a mask of the rows): the call gives them, never a
# name, whose options are literals.
DATA_ARGUMENTS = ("y_true", "y_score", "qid", "sample_weight", "judged", "candidates")


def matched(name):
    """The parts of ``name`` (a ``re.Match``), or None if it is not a str of the grammar's shape."""
    if not isinstance(name, str):
        return None
    if len(name) > MAX_NAME_LENGTH:
        raise ValueError(
            f"A metric name has at most {MAX_NAME_LENGTH} characters; got one of {len(name)} ({name[:40]!r}...)."
        )
    return NAME.match(name)


def base_names(record):
    """The bases that name ``record``'s metric, lowercased, each with the options it presets.

    Returns three dicts: the plain bases (the canonical name, the variants and
    every alias without its ``@k`` or XGBoost's ``-``), trec_eval's bases
    that carry a cutoff after ``_`` or ``.`` (``ndcg_cut`` of ``ndcg_cut_10``),
    and the bases that carry an option as decimals after a dot, with the
    option's name (``rbp`` of ranx's ``rbp.95``: ``"p"``).
    """
    variants = {name.lower(): dict(preset) for name, preset in record.variants.items()}
    plain_bases = {record.canonical.lower(): {}, **variants}
    with_cutoff, with_decimals = {}, {}
    for tool, spellings in record.spellings.items():
        for spelling in spellings:
            base = spelling.lower().removesuffix("-")
            decimal = DECIMAL_SPELLING.match(spelling)
            if tool != "trec_eval" and decimal and decimal["option"] in record.options and decimal["option"] != "k":
                with_decimals[decimal["base"].lower()] = decimal["option"]
                continue
            trec = tool == "trec_eval" and base[-2:] in ("_k", ".k")
            base = base[:-2] if trec or base.endswith("@k") else base
            (with_cutoff if trec else plain_bases)[base] = variants.get(base, {})
    return plain_bases, with_cutoff, with_decimals


def base_of(record, typed):
    """The options that base ``typed`` presets for ``record``, and the cutoff it carries; None if not its name."""
    plain_bases, with_cutoff, with_decimals = base_names(record)
    base = typed.lower()
    trec = TREC_CUTOFF.match(base)
    if trec and trec["base"] in with_cutoff:
        return with_cutoff[trec["base"]], trec["k"]
    decimal = DECIMALS.match(base)
    if decimal and decimal["base"] in with_decimals:
        return {with_decimals[decimal["base"]]: decimal_value(decimal["digits"])}, None
    return (plain_bases[base], None) if base in plain_bases else None


def decimal_value(digits):
    """The number that digits after a dot stand for: ``95`` is 0.95 (ranx's ``rbp.95``)."""
    return float(f"0.{digits}")


def names_metric(name, record):
    """Whether ``name`` is a valid name of ``record``'s metric (``"nDCG@10"`` of ndcg; ``"Gini"`` of gini_index)."""
    try:
        if record.family not in SCORED:
            whole = (record.canonical, record.function.__name__, *tuple.__iter__(record.aliases))
            return isinstance(name, str) and name.lower() in {alias.lower() for alias in whole}
        name = str(name) if isinstance(name, str) else name  # a numpy string as a plain one
        match = matched(name)
        found = base_of(record, match["base"]) if match else None
        if found is None:
            return False
        options = settings(name, match, record, *found, suggest=None)
    except (ValueError, TypeError):
        return False
    return set(options) <= set(record.options)


def settings(name, match, record, preset, base_cutoff, *, suggest):
    """The options that ``name`` (parts ``match``, of ``record``'s metric) sets, checked: each option given once.

    ``@k`` and a ``k=`` option, an option repeated, or an option that the
    base already sets (``gain`` of ``"ndcg_exp"``) are errors, never silently
    overridden. ``suggest(name)`` gives the near valid name in errors (None:
    no hint).
    """
    options = parse_options(match["options"], name) if match["options"] is not None else {}
    data = sorted(set(options) & set(DATA_ARGUMENTS), key=DATA_ARGUMENTS.index)
    if data:
        raise ValueError(
            f"{name!r} sets {data[0]}, which carries the data (one value per row), not an option of the metric: "
            f"name the metric without it, and pass {data[0]}= with the data (to the metric function, "
            "ranking_report or the scorer's call; evaluate_run reads it from the qrels and the run)."
        )
    options = own_option_names(options, record, name)
    clash = sorted(set(options) & set(preset))
    if clash:
        raise ValueError(f"{name!r} sets {clash[0]}, which {match['base']!r} already sets to {preset[clash[0]]!r}.")
    cutoffs = [text for text in (base_cutoff, match["k"]) if text is not None]
    if cutoffs:
        if len(cutoffs) > 1 or "k" in options:
            raise ValueError(f"{name!r} gives the cutoff k more than once; give it once.")
        options["k"] = check_cutoff(name, cutoffs[0], suggest)
    if "k" in options and "k" not in inspect.signature(record.function).parameters:
        raise ValueError(f"{name!r} gives a cutoff, but {record.canonical} examines every document: it has no k.")
    if match["minus"]:  # XGBoost's "ndcg@10-": a query without a relevant document scores 0
        if not any(spelling.endswith("-") for spelling in record.spellings.get("xgboost", ())):
            raise ValueError(
                f"{name!r} ends with '-', XGBoost's mark for ndcg and map only (a query without a relevant document "
                "scores 0); for this metric, pass zero_division=0.0."
            )
        if "zero_division" in options:
            raise ValueError(f"{name!r} sets zero_division twice: its '-' means zero_division=0.0; give it once.")
        options["zero_division"] = 0.0
    return {**preset, **options}


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


def hint(typed, suggest):
    close = suggest(typed) if suggest is not None else None
    return f" Did you mean {close!r}?" if close else ""


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
