"""Every metric by its short name: the vocabulary of scorer names and reports.

A name is a base name, an optional cutoff and optional keyword options, as in
``"ndcg@10"`` or ``"map@5(denominator='capped')"``.
"""

import ast
import difflib
import inspect
import re

from ._cascade import (
    _expected_reciprocal_rank,
    _reciprocal_rank,
    expected_reciprocal_rank_score,
    mean_reciprocal_rank_score,
)
from ._cwl import _insq, _inst, insq_score, inst_score
from ._dcg import _cumulative_gain, _dcg, _ndcg, cumulative_gain_score, dcg_score, ndcg_score
from ._diversity import alpha_ndcg_score, intent_aware_err_score, subtopic_recall_score
from ._intent_aware import (
    intent_aware_average_precision_score,
    intent_aware_precision_score,
    normalized_intent_aware_err_score,
    novelty_rank_biased_precision_score,
)
from ._ir_measures import _bpref, _rank_biased_precision, bpref_score, rank_biased_precision_score
from ._normalized import (
    _ncg,
    _normalized_err,
    _q_measure,
    ncg_score,
    normalized_err_score,
    q_measure_score,
)
from ._overlap import _compatibility, compatibility_score
from ._pairs import _ordered_pair_accuracy, ordered_pair_accuracy_score
from ._precision import (
    _average_precision,
    _f1,
    _hit_rate,
    _precision,
    _r_precision,
    _recall,
    f1_at_k_score,
    hit_rate_score,
    mean_average_precision_score,
    precision_at_k_score,
    r_precision_score,
    recall_at_k_score,
)
from ._validation import plain

METRICS = {
    "cg": cumulative_gain_score,
    "dcg": dcg_score,
    "ndcg": ndcg_score,
    "map": mean_average_precision_score,
    "mrr": mean_reciprocal_rank_score,
    "precision": precision_at_k_score,
    "recall": recall_at_k_score,
    "r_precision": r_precision_score,
    "err": expected_reciprocal_rank_score,
    "hit_rate": hit_rate_score,
    "f1": f1_at_k_score,
    "bpref": bpref_score,
    "rbp": rank_biased_precision_score,
    "nerr": normalized_err_score,
    "ncg": ncg_score,
}

# Metrics of labels computed on the host (numpy): scorers and report metrics, but not in METRICS, whose
# kernels run in any Array API namespace.
HOST_METRICS = {
    "Q": q_measure_score,
    "compat": compatibility_score,
    "opa": ordered_pair_accuracy_score,
    "insq": insq_score,
    "inst": inst_score,
}

# Scorer names: a metric and the options its name implies. "ndcg_exp" is NDCG with
# LightGBM's and XGBoost's exponential gain.
SCORER_NAMES = {
    **{name: (metric, {}) for name, metric in METRICS.items()},
    "dcg_exp": (dcg_score, {"gain": "exponential"}),
    "ndcg_exp": (ndcg_score, {"gain": "exponential"}),
    # Diversity metrics take the (n_samples, n_subtopics) judgement matrix as y.
    "alpha_ndcg": (alpha_ndcg_score, {}),
    "err_ia": (intent_aware_err_score, {}),
    "s_recall": (subtopic_recall_score, {}),
    "p_ia": (intent_aware_precision_score, {}),
    "ap_ia": (intent_aware_average_precision_score, {}),
    "nerr_ia": (normalized_intent_aware_err_score, {}),
    "nrbp": (novelty_rank_biased_precision_score, {}),
    "nnrbp": (novelty_rank_biased_precision_score, {"normalize": True}),
    **{name: (metric, {}) for name, metric in HOST_METRICS.items()},
}

DIVERSITY_METRICS = (
    alpha_ndcg_score,
    intent_aware_err_score,
    subtopic_recall_score,
    intent_aware_precision_score,
    intent_aware_average_precision_score,
    normalized_intent_aware_err_score,
    novelty_rank_biased_precision_score,
)

# The names that IR users type (ir_measures, trec_eval), matched case-insensitively.
ALIASES = {
    "ap": "map",
    "rr": "mrr",
    "recip_rank": "mrr",
    "p": "precision",
    "r": "recall",
    "rprec": "r_precision",
    "success": "hit_rate",
    "hr": "hit_rate",
    "q": "Q",
    "map_ia": "ap_ia",
    "pairaccuracy": "opa",
}
# trec_eval's measures with the cutoff after an underscore: ndcg_cut_10, P_10, map_cut_5, recall_100.
TREC_CUTOFF = re.compile(r"^(?P<base>ndcg_cut|p|map_cut|recall|success)_(?P<k>[0-9]+)$")
TREC_BASES = {"ndcg_cut": "ndcg", "p": "precision", "map_cut": "map", "recall": "recall", "success": "hit_rate"}

# The per-query computation behind each public metric, for sharing one ranking.
KERNELS = {
    cumulative_gain_score: _cumulative_gain,
    dcg_score: _dcg,
    ndcg_score: _ndcg,
    mean_average_precision_score: _average_precision,
    mean_reciprocal_rank_score: _reciprocal_rank,
    precision_at_k_score: _precision,
    recall_at_k_score: _recall,
    r_precision_score: _r_precision,
    expected_reciprocal_rank_score: _expected_reciprocal_rank,
    hit_rate_score: _hit_rate,
    f1_at_k_score: _f1,
    bpref_score: _bpref,
    rank_biased_precision_score: _rank_biased_precision,
    normalized_err_score: _normalized_err,
    ncg_score: _ncg,
    q_measure_score: _q_measure,
    compatibility_score: _compatibility,
    ordered_pair_accuracy_score: _ordered_pair_accuracy,
    insq_score: _insq,
    inst_score: _inst,
}

NAME = re.compile(r"^(?P<base>[A-Za-z_][A-Za-z_0-9]*?)(?:@(?P<k>[^(]*))?(?:\((?P<options>.*)\))?$", re.DOTALL)
CUTOFF = re.compile(r"[0-9]+")
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
    clash = sorted(set(options) & set(preset))
    if clash:
        raise ValueError(f"{name!r} sets {clash[0]}, which {base!r} already sets to {preset[clash[0]]!r}.")
    cutoffs = [text for text in (k, match["k"]) if text is not None]
    if cutoffs:
        if len(cutoffs) > 1 or "k" in options:
            raise ValueError(f"{name!r} gives the cutoff k more than once; give it once.")
        options["k"] = check_cutoff(name, cutoffs[0], suggest)
    if "k" in options and "k" not in inspect.signature(score_func).parameters:
        raise ValueError(f"{name!r} gives a cutoff, but {base} examines every document: it has no k.")
    return score_func, {**preset, **options}


def check_cutoff(name, text, suggest):
    """The cutoff written ``text`` in ``name``, as an int; a ValueError saying what is wrong unless it is >= 1."""
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
        f"{', '.join(sorted(SCORER_NAMES))}, each optionally followed by @k (as in 'ndcg@10'), and the IR names AP, "
        "RR, recip_rank, P@k, R@k, Rprec, Success@k, HR@k, MAP_IA, PairAccuracy, ndcg_cut_k, P_k, map_cut_k, recall_k "
        "and success_k (in any case)."
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
        raise ValueError(
            f"{name!r} cannot share a ranking with the other metrics in {caller}: {function} has no per-query "
            "kernel. Call it on its own."
        )
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
