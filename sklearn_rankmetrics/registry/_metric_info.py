"""The record of a metric (:class:`MetricInfo`), and how the registry builds one."""

import inspect
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace

from ._grammar import names_metric

# What a metric takes and where its name works:
# ranking: one label per document; scorer names and ranking_report.
# diversity: an (n_samples, n_subtopics) judgement matrix; scorer names.
# curve: one value per recall level (interpolated precision); a function only.
# recommender: a users x items score matrix (the lists); a function only.
# comparison: two systems' scores, no labels (rank-biased overlap); a function only.
FAMILIES = ("ranking", "diversity", "curve", "recommender", "comparison")
# The inputs on which a peer tool's number is reproduced, where it is not on every input (a convention's "inputs").
INPUTS = {
    "tie_free": "scores without ties",
    "binary": "binary labels",
    "positive": "positive scores",
    "no_cutoff": "without a cutoff k",
    "unit_labels": "labels in [0, 1], the gains",
    "relevant": "a relevant document in every query",
}
# The keys of a convention besides the options it sets.
CONVENTION_KEYS = ("note", "inputs")


class FrozenDict(dict):
    """A dict that refuses changes: the records' mappings, shared by every caller."""

    def refuse(self, *args, **kwargs):
        raise TypeError("a metric's record is read-only")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = __ior__ = refuse

    def __reduce__(self):
        return FrozenDict, (dict(self),)

    def __hash__(self):
        return hash(tuple(sorted(self.items(), key=repr)))


class Spellings(tuple):
    """A metric's names in its peers' spellings (``"ndcg_cut_k"`` stands for ``ndcg_cut_10``, ...).

    ``name in spellings`` is True for the spellings listed and for any name
    of the same metric, such as ``"ndcg_cut.10"`` or ``"nDCG@10"``.
    """

    def __new__(cls, names):
        return super().__new__(cls, names)

    def __setattr__(self, name, value):
        raise AttributeError("a metric's record is read-only")

    __delattr__ = __setattr__

    def __reduce__(self):
        return Spellings, (tuple(self),)

    def bind(self, record):
        """Tell these spellings their record, whose grammar tells its names (once, as the record is made)."""
        object.__setattr__(self, "_record", record)

    def __contains__(self, name):
        if tuple.__contains__(self, name):
            return True
        record = getattr(self, "_record", None)
        return record is not None and names_metric(name, record)


@dataclass(frozen=True, eq=False)
class MetricInfo(Mapping):
    """What the library knows of one metric: read it by attribute or by key (``info.canonical``, ``info["canonical"]``).

    Records are built once, in the registry; :func:`metric_info` returns them. They are read-only.

    Parameters
    ----------
    canonical : str
        The metric's registered name (``"ndcg"``), the base of its scorer names.
    function : callable
        The public function that computes it.
    options : mapping
        Its keyword options and their defaults.
    aliases : tuple of str
        Every other name it answers to, in each peer tool's spelling (``k`` stands for a cutoff).
        ``name in aliases`` is True for any name of the metric, such as ``"ndcg_cut.10"``.
    definition : str
        A one-line definition.
    reference : str
        The paper or tool that defines it.
    conventions : mapping, default={}
        For each peer tool that computes it (``"lightgbm"``, ``"xgboost"``, ``"trec_eval"``, ...), the
        options that reproduce that tool's number (``"note"``: what else it takes, or what no option
        reproduces; ``"inputs"``: the inputs it is reproduced on, where not on every input, among
        ``"tie_free"``, ``"binary"``, ``"positive"`` and ``"no_cutoff"``). The options of a name
        the tool spells that way come on top (XGBoost's ``"ndcg@10-"`` sets ``zero_division=0.0``).
        The test suite runs every tool on random inputs for each of its spellings and conventions;
        a tool it cannot run says why in its note.
    spellings : mapping, default={}
        The aliases grouped by tool.
    variants : mapping, default={}
        Names that also set options (``"ndcg_exp"``: ``gain="exponential"``).
    variant_definitions : mapping, default={}
        The one-line definition of each variant that is another quantity than the metric (``"nnrbp"``, NRBP
        over its ideal value): :func:`metric_info` gives it as ``definition`` for a name that sets its options.
    peer_options : mapping, default={}
        For each peer tool, its names of options that the metric's names may use in brackets, and the option
        each stands for (ir_measures' ``INST(T=2, max_rel=3)`` is ``target=2, max_grade=3``).
    undefined : str, default="without a relevant document"
        Which queries the metric is undefined for, as in "queries without a relevant document": they score
        ``zero_division``.
    family : {"ranking", "diversity", "curve", "recommender", "comparison"}, default="ranking"
        ``"ranking"``: one label per document, with scorer names and a place in :func:`ranking_report`;
        ``"diversity"``: one column per subtopic, with scorer names; ``"curve"`` (a value per recall
        level), ``"recommender"`` (a users x items score matrix) and ``"comparison"`` (two systems'
        scores): a function only.
    array_api : bool, default=True
        Whether a ranking metric computes in the inputs' Array API namespace, on their device (False:
        with numpy, on the host).
    settings : mapping, default={}
        The options that the name given to :func:`metric_info` sets (``"ndcg_burges@10"``:
        ``{"gain": "exponential", "k": 10}``); empty for the registered name.
    kernel : callable or None, default=None
        The per-query kernel that shares one ranking with the other metrics (not a key of the record).

    See Also
    --------
    metric_info : The record of a metric, from any of its names.

    Examples
    --------
    >>> from sklearn_rankmetrics import metric_info
    >>> info = metric_info("P@10")
    >>> info.canonical, info["function"].__name__, dict(info.settings)
    ('precision', 'precision_at_k_score', {'k': 10})
    >>> info.spellings["trec_eval"]
    ('P_k', 'P.k')
    """

    canonical: str
    function: object
    options: Mapping
    aliases: tuple
    definition: str
    reference: str
    conventions: Mapping = field(default_factory=dict)
    spellings: Mapping = field(default_factory=dict)
    variants: Mapping = field(default_factory=dict)
    variant_definitions: Mapping = field(default_factory=dict)
    peer_options: Mapping = field(default_factory=dict)
    undefined: str = "without a relevant document"
    family: str = "ranking"
    array_api: bool = True
    settings: Mapping = field(default_factory=dict)
    kernel: object = field(default=None, repr=False)

    def __getitem__(self, key):
        if key not in self._keys():
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self):
        return iter(self._keys())

    def __len__(self):
        return len(self._keys())

    def _keys(self):
        return tuple(spec.name for spec in fields(self) if spec.name != "kernel")

    # A record is its metric and the options its name sets: equal records compute the same thing.
    def __eq__(self, other):
        if not isinstance(other, MetricInfo):
            return NotImplemented
        return (self.canonical, dict(self.settings)) == (other.canonical, dict(other.settings))

    def __hash__(self):
        return hash((self.canonical, FrozenDict(self.settings)))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __repr__(self):
        settings = "".join(f", {key}={value!r}" for key, value in self.settings.items())
        return f"MetricInfo({self.canonical!r}{settings}: {self.function.__name__}, {self.definition!r})"

    def with_settings(self, settings):
        """This record with the options that a name sets (the registered record itself if it sets none).

        A name that sets the options of a variant with its own definition gets that definition.
        """
        if not settings:
            return self
        definition = next(
            (
                self.variant_definitions[name]
                for name, preset in self.variants.items()
                if name in self.variant_definitions and preset.items() <= dict(settings).items()
            ),
            self.definition,
        )
        return replace(self, settings=FrozenDict(settings), definition=definition)


def keyword_defaults(function):
    """The keyword-only options of ``function`` and their defaults, read-only."""
    parameters = inspect.signature(function).parameters.values()
    return FrozenDict({p.name: p.default for p in parameters if p.kind is p.KEYWORD_ONLY})


def register(
    canonical,
    function,
    kernel,
    *,
    definition,
    reference,
    spellings,
    conventions=(),
    variants=(),
    variant_definitions=(),
    peer_options=(),
    **extra,
):
    """One metric's record: its names by tool become its aliases; every mapping is read-only."""
    if extra.get("family", "ranking") not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}; got {extra['family']!r}.")
    options = keyword_defaults(function)
    stand_for = {ours for names in dict(peer_options).values() for ours in names.values()}
    if not stand_for <= set(options) or not set(dict(variant_definitions)) <= set(dict(variants)):
        raise ValueError(
            f"{canonical}'s peer options must name options of {function.__name__}, and its variant "
            "definitions variants of it."
        )
    check_conventions(canonical, conventions, options)
    spellings = {tool: tuple(names) for tool, names in spellings.items()}
    aliases = dict.fromkeys(name for names in spellings.values() for name in names if name != canonical)
    record = MetricInfo(
        canonical=canonical,
        function=function,
        options=options,
        aliases=Spellings(aliases),
        definition=definition,
        reference=reference,
        conventions=FrozenDict({tool: FrozenDict(options) for tool, options in dict(conventions).items()}),
        spellings=FrozenDict(spellings),
        variants=FrozenDict({name: FrozenDict(preset) for name, preset in dict(variants).items()}),
        variant_definitions=FrozenDict(variant_definitions),
        peer_options=FrozenDict({tool: FrozenDict(names) for tool, names in dict(peer_options).items()}),
        kernel=kernel,
        **extra,
    )
    record.aliases.bind(record)
    return record


def check_conventions(canonical, conventions, options):
    """Refuse a convention that sets an option the metric does not have, or names inputs outside INPUTS."""
    for tool, convention in dict(conventions).items():
        unknown = sorted(set(convention) - set(options) - set(CONVENTION_KEYS))
        inputs = set(convention.get("inputs", ()))
        if unknown or not inputs <= set(INPUTS):
            raise ValueError(
                f"{canonical}'s convention for {tool} must set options of the metric and name inputs among "
                f"{sorted(INPUTS)}; got {unknown or sorted(inputs - set(INPUTS))}."
            )
