"""The registry: every metric once, with its options, its names in every peer tool, its definition and reference.

One table is the source of the scorer names, the metrics of ``ranking_report``,
the library names that ``evaluate_run`` accepts, the error messages and the
docs' metric table. :func:`metric_info` returns a metric's record from any
spelling that a user brings from another tool (``"ndcg_cut.10"``, ``"nDCG@10"``,
``"ndcg@10-"``, ``"RetrievalNormalizedDCG"``); :mod:`._names` parses names.
"""

import inspect
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType

from ._cascade import (
    _expected_reciprocal_rank,
    _reciprocal_rank,
    expected_reciprocal_rank_score,
    mean_reciprocal_rank_score,
)
from ._dcg import _cumulative_gain, _dcg, _ndcg, cumulative_gain_score, dcg_score, ndcg_score
from ._diversity import alpha_ndcg_score, intent_aware_err_score, subtopic_recall_score
from ._fairness import expected_exposure_loss
from ._ir_measures import _bpref, _rank_biased_precision, bpref_score, rank_biased_precision_score
from ._list_diversity import intra_list_diversity_score, serendipity_score
from ._popularity import (
    average_popularity_score,
    gini_index,
    long_tail_share_score,
    novelty_score,
    shannon_entropy,
    user_coverage,
)
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

# The peer tools whose spellings and conventions the records know, in the docs' order.
TOOLS = ("trec_eval", "ir_measures", "ranx", "lightgbm", "xgboost", "torchmetrics", "ndeval", "recbole", "elliot")

# A cutoff in a spelling: "@k" (ir_measures, ranx, the boosters), "_k" or ".k" (trec_eval).
CUTOFF_MARKS = ("@k", "_k", ".k")


class Spellings(tuple):
    """A metric's names in its peers' spellings (``"ndcg_cut_k"`` stands for ``ndcg_cut_10``, ...).

    ``name in spellings`` is also True for any concrete name of the metric, such
    as ``"ndcg_cut.10"`` or ``"nDCG@10"``.
    """

    canonical = None

    def __contains__(self, name):
        if tuple.__contains__(self, name):
            return True
        from ._names import parse_metric_name

        try:
            return registered_name(parse_metric_name(name)[0]) == self.canonical
        except (ValueError, TypeError):
            return False


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
        ``name in aliases`` is also True for a concrete spelling such as ``"ndcg_cut.10"``.
    definition : str
        A one-line definition.
    reference : str
        The paper or tool that defines it.
    conventions : mapping, default={}
        For each peer tool that computes it (``"lightgbm"``, ``"xgboost"``, ``"trec_eval"``, ...), the
        options that reproduce that tool's number (``"note"``: what no option reproduces).
    spellings : mapping, default={}
        The aliases grouped by tool.
    variants : mapping, default={}
        Names that also set options (``"ndcg_exp"``: ``gain="exponential"``).
    family : {"ranking", "diversity", "recommender"}, default="ranking"
        ``"ranking"``: one label per document, with scorer names and a place in :func:`ranking_report`;
        ``"diversity"``: one column per subtopic, with scorer names; ``"recommender"``: a users x items
        score matrix (the lists), a function only.
    kernel : callable or None, default=None
        The per-query kernel that shares one ranking with the other metrics (not a key of the record).

    See Also
    --------
    metric_info : The record of a metric, from any of its names.

    Examples
    --------
    >>> from sklearn_rankmetrics import metric_info
    >>> info = metric_info("P@10")
    >>> info.canonical, info["function"].__name__
    ('precision', 'precision_at_k_score')
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
    family: str = "ranking"
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

    def __repr__(self):
        return f"MetricInfo({self.canonical!r}, {self.function.__name__}, {self.definition!r})"


def keyword_defaults(function):
    """The keyword-only options of ``function`` and their defaults, read-only."""
    parameters = inspect.signature(function).parameters.values()
    return MappingProxyType({p.name: p.default for p in parameters if p.kind is p.KEYWORD_ONLY})


def register(canonical, function, kernel, *, definition, reference, spellings, conventions=(), variants=(), **extra):
    spellings = {tool: tuple(names) for tool, names in spellings.items()}
    aliases = Spellings(dict.fromkeys(name for names in spellings.values() for name in names if name != canonical))
    aliases.canonical = canonical
    return MetricInfo(
        canonical=canonical,
        function=function,
        options=keyword_defaults(function),
        aliases=aliases,
        definition=definition,
        reference=reference,
        conventions=MappingProxyType({tool: MappingProxyType(dict(c)) for tool, c in dict(conventions).items()}),
        spellings=MappingProxyType(spellings),
        variants=MappingProxyType({name: MappingProxyType(dict(preset)) for name, preset in dict(variants).items()}),
        kernel=kernel,
        **extra,
    )


# LightGBM and XGBoost break score ties in input order and score a query without a relevant document 1.
BOOSTERS = {"ties": "stable", "zero_division": 1.0}
TORCHMETRICS = {"zero_division": 0.0, "note": "empty_target_action='neg' (its default); 'pos' is zero_division=1.0"}
TREC_EVAL = {
    "note": "evaluate_run reproduces trec_eval exactly; the function agrees with one row per judged document "
    "(-inf for those not retrieved), and on tied scores with ties='stable' after sorting ties by descending docno"
}

REGISTRY = {
    record.canonical: record
    for record in (
        register(
            "cg",
            cumulative_gain_score,
            _cumulative_gain,
            definition="Sum of the gains of the top k documents, without discount.",
            reference="Järvelin & Kekäläinen, TOIS 2002",
            spellings={},
        ),
        register(
            "dcg",
            dcg_score,
            _dcg,
            definition="Sum over the top k of gain(label) / log2(rank + 1).",
            reference="Järvelin & Kekäläinen, TOIS 2002; Burges et al., ICML 2005 (exponential gain)",
            spellings={"ranx": ("dcg", "dcg@k", "dcg_burges", "dcg_burges@k")},
            variants={"dcg_exp": {"gain": "exponential"}, "dcg_burges": {"gain": "exponential"}},
        ),
        register(
            "ndcg",
            ndcg_score,
            _ndcg,
            definition="DCG@k divided by the DCG@k of the ideal ranking of the query's labels.",
            reference="Järvelin & Kekäläinen, TOIS 2002; trec_eval's ndcg and ndcg_cut",
            spellings={
                "trec_eval": ("ndcg", "ndcg_cut_k", "ndcg_cut.k"),
                "ir_measures": ("nDCG", "nDCG@k"),
                "ranx": ("ndcg", "ndcg@k", "ndcg_burges", "ndcg_burges@k"),
                "lightgbm": ("ndcg", "ndcg@k"),
                "xgboost": ("ndcg", "ndcg@k", "ndcg-", "ndcg@k-"),
                "torchmetrics": ("RetrievalNormalizedDCG", "retrieval_normalized_dcg"),
            },
            conventions={
                "lightgbm": {"gain": "exponential", **BOOSTERS},
                "xgboost": {"gain": "exponential", **BOOSTERS, "note": "ndcg@k- scores such a query 0"},
                "torchmetrics": {**TORCHMETRICS, "note": "both average tied scores exactly"},
                "ranx": {"note": "ndcg is linear gain; ndcg_burges is gain='exponential'"},
                "trec_eval": TREC_EVAL,
            },
            variants={"ndcg_exp": {"gain": "exponential"}, "ndcg_burges": {"gain": "exponential"}},
        ),
        register(
            "map",
            mean_average_precision_score,
            _average_precision,
            definition="Mean over the relevant documents in the top k of the precision at their rank, "
            "divided by R (all relevant documents).",
            reference="trec_eval's map and map_cut; Manning et al., Introduction to IR, 2008, ch. 8",
            spellings={
                "trec_eval": ("map", "map_cut_k", "map_cut.k"),
                "ir_measures": ("AP", "AP@k"),
                "ranx": ("map", "map@k"),
                "lightgbm": ("map", "map@k"),
                "xgboost": ("map", "map@k", "map-", "map@k-"),
                "torchmetrics": ("RetrievalMAP", "retrieval_average_precision"),
            },
            conventions={
                "lightgbm": {"denominator": "capped", **BOOSTERS},
                "xgboost": {"denominator": "capped", **BOOSTERS, "note": "binary labels only; map@k- scores 0"},
                "torchmetrics": {
                    **TORCHMETRICS,
                    "note": "without top_k, on positive tie-free scores; its AP@k divides by the relevant documents "
                    "found in the top k, which no option reproduces",
                },
                "trec_eval": TREC_EVAL,
            },
        ),
        register(
            "mrr",
            mean_reciprocal_rank_score,
            _reciprocal_rank,
            definition="1 / the rank of the first relevant document in the top k (0 if none).",
            reference="Voorhees, TREC-8 QA track, 1999; trec_eval's recip_rank",
            spellings={
                "trec_eval": ("recip_rank",),
                "ir_measures": ("RR", "RR@k"),
                "ranx": ("mrr", "mrr@k"),
                "torchmetrics": ("RetrievalMRR", "retrieval_reciprocal_rank"),
            },
            conventions={"torchmetrics": TORCHMETRICS, "trec_eval": TREC_EVAL},
        ),
        register(
            "precision",
            precision_at_k_score,
            _precision,
            definition="Relevant documents in the top k, divided by k.",
            reference="trec_eval's P",
            spellings={
                "trec_eval": ("P_k", "P.k"),
                "ir_measures": ("P@k",),
                "ranx": ("precision@k",),
                "xgboost": ("pre@k",),
                "torchmetrics": ("RetrievalPrecision", "retrieval_precision"),
            },
            conventions={
                "torchmetrics": TORCHMETRICS,
                "trec_eval": TREC_EVAL,
                "xgboost": {**BOOSTERS, "note": "binary labels only"},
            },
        ),
        register(
            "recall",
            recall_at_k_score,
            _recall,
            definition="Relevant documents in the top k, divided by R.",
            reference="trec_eval's recall",
            spellings={
                "trec_eval": ("recall_k", "recall.k"),
                "ir_measures": ("R@k",),
                "ranx": ("recall@k",),
                "torchmetrics": ("RetrievalRecall", "retrieval_recall"),
            },
            conventions={"torchmetrics": TORCHMETRICS, "trec_eval": TREC_EVAL},
        ),
        register(
            "r_precision",
            r_precision_score,
            _r_precision,
            definition="Precision at rank R, the number of relevant documents.",
            reference="trec_eval's Rprec",
            spellings={
                "trec_eval": ("Rprec",),
                "ir_measures": ("Rprec",),
                "ranx": ("r-precision",),
                "torchmetrics": ("RetrievalRPrecision", "retrieval_r_precision"),
            },
            conventions={"torchmetrics": TORCHMETRICS, "trec_eval": TREC_EVAL},
        ),
        register(
            "err",
            expected_reciprocal_rank_score,
            _expected_reciprocal_rank,
            definition="Expected 1 / rank at which a cascade user stops, stopping at a document with "
            "probability (2^label - 1) / 2^max_grade.",
            reference="Chapelle et al., CIKM 2009; gdeval's err@k",
            spellings={"ir_measures": ("ERR", "ERR@k")},
        ),
        register(
            "hit_rate",
            hit_rate_score,
            _hit_rate,
            definition="1 if a relevant document is in the top k, else 0.",
            reference="trec_eval's success; ranx's hit_rate",
            spellings={
                "trec_eval": ("success_k", "success.k"),
                "ir_measures": ("Success@k",),
                "ranx": ("hit_rate@k",),
                "torchmetrics": ("RetrievalHitRate", "retrieval_hit_rate"),
                "common": ("HR@k",),
            },
            conventions={"torchmetrics": TORCHMETRICS, "trec_eval": TREC_EVAL},
        ),
        register(
            "f1",
            f1_at_k_score,
            _f1,
            definition="Harmonic mean of precision@k and recall@k.",
            reference="van Rijsbergen, Information Retrieval, 1979; ranx's f1",
            spellings={"ranx": ("f1@k",)},
        ),
        register(
            "bpref",
            bpref_score,
            _bpref,
            definition="Mean over relevant documents of 1 - (judged non-relevant ranked above) / min(R, N).",
            reference="Buckley & Voorhees, SIGIR 2004; trec_eval's bpref",
            spellings={"trec_eval": ("bpref",), "ir_measures": ("Bpref",), "ranx": ("bpref",)},
            conventions={"trec_eval": TREC_EVAL},
        ),
        register(
            "rbp",
            rank_biased_precision_score,
            _rank_biased_precision,
            definition="(1 - p) times the sum over ranks of p^(rank - 1) for each relevant document.",
            reference="Moffat & Zobel, TOIS 2008",
            spellings={"ir_measures": ("RBP",), "ranx": ("rbp",)},
        ),
        register(
            "alpha_ndcg",
            alpha_ndcg_score,
            None,
            definition="nDCG with gains discounted by (1 - alpha) for each subtopic already covered above.",
            reference="Clarke et al., SIGIR 2008; NIST ndeval's alpha-nDCG",
            spellings={"ir_measures": ("alpha_nDCG", "alpha_nDCG@k"), "ndeval": ("alpha-nDCG@k",)},
            conventions={"ndeval": {"note": "the defaults, on binary judgements and tie-free scores"}},
            family="diversity",
        ),
        register(
            "err_ia",
            intent_aware_err_score,
            None,
            definition="Mean over the query's intents, weighted, of ERR with stop probability 1/2 per "
            "relevant document.",
            reference="Chapelle et al., Information Retrieval 2011",
            spellings={},
            conventions={"ndeval": {"note": "ndeval's ERR-IA is alpha-decayed and normalised: another quantity"}},
            family="diversity",
        ),
        register(
            "s_recall",
            subtopic_recall_score,
            None,
            definition="Share of the query's subtopics covered by the top k.",
            reference="Zhai et al., SIGIR 2003; NIST ndeval's strec",
            spellings={"ir_measures": ("StRecall", "StRecall@k"), "ndeval": ("strec@k",)},
            conventions={"ndeval": {"note": "the defaults, on binary judgements and tie-free scores"}},
            family="diversity",
        ),
        register(
            "gini_index",
            gini_index,
            None,
            definition="Gini coefficient of the items' exposure counts in the users' top k over the catalogue.",
            reference="RecBole's GiniIndex; Elliot's Gini",
            spellings={"recbole": ("GiniIndex",), "elliot": ("Gini",)},
            family="recommender",
        ),
        register(
            "shannon_entropy",
            shannon_entropy,
            None,
            definition="Shannon entropy (nats) of the items' shares of all top-k places.",
            reference="RecBole's ShannonEntropy; Elliot's SEntropy",
            spellings={"recbole": ("ShannonEntropy",), "elliot": ("SEntropy",)},
            family="recommender",
        ),
        register(
            "novelty",
            novelty_score,
            None,
            definition="Mean over users of the mean -log2 p_i of the top k, p_i the item's share of training users.",
            reference="Zhou et al., PNAS 2010; Elliot's EFD without its rank discount",
            spellings={"common": ("self-information",)},
            family="recommender",
        ),
        register(
            "arp",
            average_popularity_score,
            None,
            definition="Mean over users of the mean popularity of the items in the top k.",
            reference="Abdollahpouri et al., FLAIRS 2019; RecBole's AveragePopularity; Elliot's ARP",
            spellings={"recbole": ("AveragePopularity",), "elliot": ("ARP",)},
            family="recommender",
        ),
        register(
            "aplt",
            long_tail_share_score,
            None,
            definition="Mean over users of the share of the top k from the long tail (outside the short head).",
            reference="Abdollahpouri et al., FLAIRS 2019; Elliot's APLT; RecBole's TailPercentage",
            spellings={"recbole": ("TailPercentage",), "elliot": ("APLT",)},
            family="recommender",
        ),
        register(
            "user_coverage",
            user_coverage,
            None,
            definition="Share of users whose top k shows at least min_items items.",
            reference="Elliot's UserCoverage and UserCoverageAtN",
            spellings={"elliot": ("UserCoverage", "UserCoverageAtN")},
            family="recommender",
        ),
        register(
            "ild",
            intra_list_diversity_score,
            None,
            definition="Mean over users of the mean pairwise distance between the items of the top k.",
            reference="Ziegler et al., WWW 2005; Vargas & Castells, RecSys 2011",
            spellings={"common": ("intra_list_diversity",)},
            family="recommender",
        ),
        register(
            "serendipity",
            serendipity_score,
            None,
            definition="Mean over users of the share of the top k that is relevant and not in a baseline's top k.",
            reference="Ge et al., RecSys 2010; Kaminskas & Bridge, TiiS 2016",
            spellings={"elliot": ("SRDP",)},
            family="recommender",
        ),
        register(
            "expected_exposure",
            expected_exposure_loss,
            None,
            definition="Squared distance between the items' (or groups') expected exposure and equal exposure "
            "per relevance grade.",
            reference="Diaz et al., Evaluating Stochastic Rankings with Expected Exposure, CIKM 2020",
            spellings={"common": ("EE-L", "ee_loss")},
            family="recommender",
        ),
    )
}

# Each function's record, for the names of scorers made from a function.
BY_FUNCTION = {record.function: record for record in REGISTRY.values()}
# The recommender metrics by their names, lowercased (the others' names are parsed, with their cutoffs).
BY_NAME = {
    name.lower(): record
    for record in REGISTRY.values()
    if record.family == "recommender"
    for name in (record.canonical, record.function.__name__, *record.aliases)
}

# The metrics on one label per document, by name; their per-query kernels share one ranking.
METRICS = {name: record.function for name, record in REGISTRY.items() if record.family == "ranking"}
KERNELS = {record.function: record.kernel for record in REGISTRY.values() if record.kernel is not None}
DIVERSITY_METRICS = tuple(record.function for record in REGISTRY.values() if record.family == "diversity")

# Scorer names: each metric's name and its variants, with the options they set.
SCORER_NAMES = {
    name: (record.function, dict(preset))
    for record in REGISTRY.values()
    if record.family != "recommender"
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
        Any name the library accepts (``"ndcg@10"``, ``"ndcg_exp"``) or that a peer tool uses:
        trec_eval (``"ndcg_cut_10"``, ``"ndcg_cut.10"``, ``"P_10"``, ``"P.10"``, ``"recall_100"``,
        ``"map_cut_10"``, ``"success_1"``, ``"Rprec"``, ``"recip_rank"``), ir_measures (``"nDCG@10"``,
        ``"P@10"``, ``"R@100"``, ``"AP@10"``, ``"RR"``, ``"Success@1"``), ranx (``"precision@10"``,
        ``"hit_rate@1"``, ``"r-precision"``, ``"mrr"``), LightGBM and XGBoost (``"ndcg@10"``,
        ``"map@10"``, ``"ndcg@10-"``), torchmetrics' class names (``"RetrievalNormalizedDCG"``); or a
        metric function.

    Returns
    -------
    info : MetricInfo
        The metric's record, read by attribute or key: ``canonical``, ``function``, ``options``
        (keyword options with their defaults), ``aliases`` (its names in peers' spellings, ``k``
        standing for a cutoff), ``definition``, ``reference``, ``conventions`` (per tool, the options
        that reproduce its number), ``spellings`` (the aliases by tool), ``variants`` and
        ``family``. A name's own options (its cutoff, say) are not part of the record:
        :func:`get_ranking_scorer` applies them.

    Raises
    ------
    ValueError
        If ``name`` is no metric name; the message suggests the nearest one.

    See Also
    --------
    get_ranking_scorer_names : The scorer names.

    Examples
    --------
    >>> from sklearn_rankmetrics import metric_info
    >>> info = metric_info("ndcg_cut.10")
    >>> info.canonical, info.function.__name__, info.options["gain"]
    ('ndcg', 'ndcg_score', 'linear')
    >>> dict(metric_info("map@10").conventions["lightgbm"])
    {'denominator': 'capped', 'ties': 'stable', 'zero_division': 1.0}
    >>> "nDCG@10" in metric_info("ndcg").aliases
    True
    """
    if callable(name) and name in BY_FUNCTION:
        return BY_FUNCTION[name]
    if isinstance(name, str) and name.lower() in BY_NAME:  # a recommender metric, which has no scorer name
        return BY_NAME[name.lower()]
    from ._names import parse_metric_name

    return BY_FUNCTION[parse_metric_name(name)[0]]


def metric_table():
    """The docs' metric table, in Markdown: one row per record, from the records alone."""
    rows = ["| name | function | definition | also called | reference |", "| --- | --- | --- | --- | --- |"]
    for record in REGISTRY.values():
        names = [f"`{name}`" for name in (record.canonical, *record.variants)]
        aliases = ", ".join(f"`{alias}`" for alias in record.aliases if alias not in record.variants) or "—"
        function = f"{{func}}`~sklearn_rankmetrics.{record.function.__name__}`"
        rows.append(f"| {', '.join(names)} | {function} | {record.definition} | {aliases} | {record.reference} |")
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
