"""The fusion methods and normalisations by name: ranx's spellings, the usual others, and near-miss hints."""

import difflib
from dataclasses import dataclass

from .._core._validation import plain


@dataclass(frozen=True)
class Method:
    """What a fusion method reads and what it needs.

    ``kind``: ``"score"`` (combines the runs' normalised scores), ``"rank"``
    (a formula of each run's rank), ``"table"`` (a value learned per position),
    ``"borda"`` or ``"condorcet"`` (points and votes over all the candidates).
    ``params``: its own parameters and their defaults; ``trained``: the
    statistic it learns from training qrels (None: none).
    """

    name: str
    title: str
    kind: str
    params: tuple = ()
    trained: str | None = None


METHOD_TABLE = (
    Method("sum", "CombSUM", "score"),
    Method("mnz", "CombMNZ", "score"),
    Method("anz", "CombANZ", "score"),
    Method("max", "CombMAX", "score"),
    Method("min", "CombMIN", "score"),
    Method("med", "CombMED", "score"),
    Method("gmnz", "CombGMNZ", "score", (("gamma", 1.0),)),
    Method("wsum", "weighted sum (W-Sum)", "score"),
    Method("wmnz", "weighted MNZ (W-MNZ)", "score"),
    Method("mixed", "Mixed", "score"),
    Method("isr", "ISR", "rank"),
    Method("log_isr", "Log_ISR", "rank"),
    Method("logn_isr", "LogN_ISR", "rank", (("sigma", 0.01),)),
    Method("rrf", "reciprocal rank fusion (RRF)", "rank", (("k", 60),)),
    Method("rbc", "rank-biased centroid (RBC)", "rank", (("phi", 0.8),)),
    Method("mapfuse", "MAPFuse", "rank", trained="map"),
    Method("bordafuse", "BordaFuse", "borda"),
    Method("w_bordafuse", "weighted BordaFuse", "borda"),
    Method("condorcet", "Condorcet", "condorcet"),
    Method("w_condorcet", "weighted Condorcet", "condorcet"),
    Method("posfuse", "PosFuse", "table", trained="positions"),
    Method("probfuse", "ProbFuse", "table", (("n_segments", 25),), trained="segments"),
    Method("segfuse", "SegFuse", "table", trained="segfuse"),
    Method("slidefuse", "SlideFuse", "table", (("w", 5),), trained="positions"),
    Method("bayesfuse", "BayesFuse", "table", trained="log_odds"),
)
METHODS = {method.name: method for method in METHOD_TABLE}
# Every method parameter, for the messages about one given to a method that does not take it.
METHOD_PARAMS = {param: name for name, method in METHODS.items() for param, _ in method.params}

NORMALIZATIONS = ("min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda")

# Spellings other than the canonical names, compared without case, spaces, hyphens or underscores.
METHOD_ALIASES = {
    "combsum": "sum",
    "combmnz": "mnz",
    "combanz": "anz",
    "combmax": "max",
    "combmin": "min",
    "combmed": "med",
    "combmedian": "med",
    "median": "med",
    "combgmnz": "gmnz",
    "weightedsum": "wsum",
    "weightedmnz": "wmnz",
    "reciprocalrankfusion": "rrf",
    "reciprocalrank": "rrf",
    "rankbiasedcentroid": "rbc",
    "inversesquarerank": "isr",
    "borda": "bordafuse",
    "bordacount": "bordafuse",
    "weightedborda": "w_bordafuse",
    "weightedbordafuse": "w_bordafuse",
    "condorcetfuse": "condorcet",
    "weightedcondorcet": "w_condorcet",
    "weightedcondorcetfuse": "w_condorcet",
}
NORMALIZATION_ALIASES = {
    "minmaxnorm": "min-max",
    "zscore": "zmuv",
    "standard": "zmuv",
    "zmuvnorm": "zmuv",
    "maxnorm": "max",
    "sumnorm": "sum",
    "ranknorm": "rank",
    "bordanorm": "borda",
}


def folded(name):
    """A name without case, spaces, hyphens or underscores: how spellings are compared."""
    return "".join(character for character in name.lower() if character not in " -_")


METHOD_SPELLINGS = {**{folded(name): name for name in METHODS}, **METHOD_ALIASES}
NORMALIZATION_SPELLINGS = {**{folded(name): name for name in NORMALIZATIONS}, **NORMALIZATION_ALIASES}


def canonical(value, spellings, what, names):
    """The canonical name that ``value`` spells, or a ValueError naming the accepted names and the nearest."""
    if not isinstance(value, str):
        raise TypeError(
            f"{what} must be a str such as {names[0]!r}; got {plain(value)!r} of type {type(value).__name__}."
        )
    key = folded(value)
    if key in spellings:
        return spellings[key]
    close = difflib.get_close_matches(key, list(spellings), n=1, cutoff=0.6)
    hint = f" Did you mean {spellings[close[0]]!r}?" if close else ""
    raise ValueError(
        f"{what}={value!r} is not a known one; the {what}s are {', '.join(map(repr, names))} (case, spaces, hyphens "
        f"and underscores aside; 'CombSUM' and 'comb_sum' spell 'sum').{hint}"
    )


def method_name(method):
    """The canonical name of a fusion method given in any accepted spelling (a callable stays as it is)."""
    if callable(method):
        return method
    return canonical(method, METHOD_SPELLINGS, "method", tuple(METHODS))


def normalization_name(normalization):
    """The canonical name of a normalisation, or None for none (None or ``"none"``)."""
    if normalization is None or (isinstance(normalization, str) and folded(normalization) == "none"):
        return None
    return canonical(normalization, NORMALIZATION_SPELLINGS, "normalization", NORMALIZATIONS)


def method_params(method, given):
    """The parameters of ``method`` (a canonical name): ``given`` ones (None: not given) or the defaults.

    A parameter given to a method that does not take it is a ValueError, never
    silently ignored.
    """
    own = dict(METHODS[method].params) if isinstance(method, str) else {}
    for param, value in given.items():
        if value is not None and param not in own:
            owner = METHOD_PARAMS[param]
            raise ValueError(
                f"{param}={plain(value)!r} is a parameter of method {owner!r}, not of "
                f"{method if isinstance(method, str) else 'a callable'!r}; leave it None. (In a parameter grid, give "
                f"{param} only with {owner!r}: a list of dicts, one per method.)"
            )
    return {param: default if given.get(param) is None else given[param] for param, default in own.items()}
