"""Judges on qrels: do two or more sets of relevance judgements agree, item by item and as leaderboards?

Each judge's qrels (a file, a Qrels, a pytrec_eval dict or a DataFrame) is
read once; the judgements are aligned on (query, document) into one
judges x items matrix, NaN where a judge did not judge an item, and every
statistic runs on it for all queries at once.
"""

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .._core._validation import check_option, plain
from .._core._warnings import warn
from ..stats._comparison_report import import_pandas
from ..trec._evaluate import evaluate_run
from ..trec._io import Qrels, Run, text
from ..trec._sources import as_qrels, as_run, first_row, shown
from ._agreement import (
    LEVELS,
    WEIGHTS,
    cohen_kernel,
    fleiss_kernel,
    krippendorff_kernel,
    unit_counts,
    warn_if_undefined,
)
from ._leaderboards import ordering_agreement
from ._sources import read_as, read_judgements

STATISTICS = ("krippendorff", "fleiss", "cohen")
# Levels of measurement whose differences are defined between any two numbers, fractional judgements included.
NUMERIC_LEVELS = ("ordinal", "interval", "ratio")
QUERY_SETS = ("shared", "own")


@dataclass(frozen=True)
class JudgeAgreement:
    """The agreement of judges on qrels: the result of :func:`judge_agreement`.

    Parameters
    ----------
    statistic : float
        The agreement over every judged (query, document) pair.
    per_query : dict
        Query id (str) to the agreement on that query's documents (nan where
        the query has no document that two judges judged, or where it is
        undefined).
    method : str
        The statistic: ``"krippendorff-<level>"``, ``"fleiss"`` or
        ``"cohen"`` (``"cohen-linear"``, ``"cohen-quadratic"``).
    judges : list
        The judges' names, in order.
    n_items : int
        The (query, document) pairs judged by at least two judges: those
        the statistic compares.
    per_query_items : dict, default={}
        Query id (str) to its number of such pairs.

    See Also
    --------
    judge_agreement : Builds it.

    Examples
    --------
    >>> from sklearn_rankmetrics.meta import judge_agreement
    >>> human = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d4": 1, "d5": 0}}
    >>> llm = {"q1": {"d1": 2, "d2": 0, "d3": 2}, "q2": {"d4": 1, "d5": 0}}
    >>> result = judge_agreement({"human": human, "llm": llm}, statistic="cohen")
    >>> result.n_items, result.per_query["q2"]
    (5, 1.0)
    """

    statistic: float
    per_query: dict = field(repr=False)
    method: str
    judges: list
    n_items: int
    per_query_items: dict = field(default_factory=dict, repr=False)

    def __float__(self):
        return float(self.statistic)

    def to_frame(self):
        """The agreement of each query as a pandas DataFrame, as the other results' ``to_frame`` give their rows.

        Returns
        -------
        frame : pandas.DataFrame
            One row per query (index ``query_id``), with the columns
            ``n_items`` (the pairs two judges or more judged) and
            ``statistic`` (nan where undefined); the overall agreement is
            ``self.statistic``, not a row.
        """
        pd = import_pandas("JudgeAgreement.to_frame")
        queries = list(self.per_query)
        frame = pd.DataFrame(
            {
                "n_items": [int(self.per_query_items.get(query, 0)) for query in queries],
                "statistic": [self.per_query[query] for query in queries],
            },
            index=pd.Index(queries, name="query_id"),
        )
        return frame

    def __str__(self):
        defined = [value for value in self.per_query.values() if not np.isnan(value)]
        median = f"median {np.median(defined):.4f}" if defined else "undefined on every one"
        return (
            f"{self.method} agreement of {len(self.judges)} judges on {self.n_items} judged documents: "
            f"{self.statistic:.4f} (over {len(self.per_query)} quer{'y' if len(self.per_query) == 1 else 'ies'}: "
            f"{median})"
        )


def judge_sources(judges):
    """The judges' names and qrels sources from a mapping ``{name: qrels}`` or a sequence of qrels."""
    if hasattr(judges, "items"):
        names, sources = list(judges.keys()), list(judges.values())
        if sources and all(looks_like_judgements(source) for source in sources):
            raise TypeError(
                "judges looks like a single qrels {query: {document: relevance}}: give two or more sets of "
                "judgements, as [qrels_a, qrels_b] or {'human': qrels_a, 'llm': qrels_b}."
            )
    elif isinstance(judges, list | tuple):
        names, sources = [source_name(source, i) for i, source in enumerate(judges)], list(judges)
    else:
        raise TypeError(
            f"judges must be a list of qrels or a mapping {{judge: qrels}}; got {type(judges).__name__}. Each qrels "
            "is a qrels file, a Qrels, a dict {query: {document: relevance}} or a DataFrame."
        )
    if len(sources) < 2:
        raise ValueError(f"judge agreement needs the qrels of at least two judges; got {len(sources)}.")
    return names, sources


def looks_like_judgements(value):
    """Whether ``value`` is a {document: relevance} mapping (a query of a qrels dict), not a whole qrels."""
    return isinstance(value, dict) and all(not isinstance(inner, dict) for inner in value.values())


def source_name(source, index):
    """A name for the index-th qrels or run of a list: a file's name, a Run's tag, or its position."""
    if isinstance(source, str | Path):
        return Path(source).name
    if isinstance(source, Run) and source.name:
        return source.name
    return str(index)


def judgement_matrix(judges):
    """The judges' names, and their judgements aligned on (query, document).

    Returns ``(names, ratings, query_codes, query_ids, where)``: ratings of
    shape (n_judges, n_items), NaN where a judge did not judge an item
    (negative relevance, trec_eval's pooled but unjudged, counts as not
    judged); each item's query code; the query ids (str) in code order; and
    ``where(judge, item)``, the judge's name, document and query of an item
    for a message.
    """
    names, sources = judge_sources(judges)
    columns = [
        read_as(read_judgements, source, f"the qrels of judge {plain(name)!r}")
        for name, source in zip(names, sources, strict=True)
    ]
    queries = np.concatenate([query_id.astype(object) for query_id, _, _ in columns])
    docs = np.concatenate([doc_id.astype(object) for _, doc_id, _ in columns])
    query_ids, query_codes = np.unique(queries, return_inverse=True)
    doc_codes = np.unique(docs, return_inverse=True)[1]
    keys = query_codes.astype(np.int64) * (int(doc_codes.max()) + 1) + doc_codes
    items, item_of_row = np.unique(keys, return_inverse=True)
    judge_of_row = np.repeat(np.arange(len(columns)), [len(query_id) for query_id, _, _ in columns])
    check_each_judge_judged_once(names, judge_of_row, item_of_row, len(items), queries, docs)
    relevance = np.concatenate([values for _, _, values in columns])
    ratings = np.full((len(columns), len(items)), np.nan)
    ratings[judge_of_row, item_of_row] = np.where(relevance >= 0, relevance, np.nan)
    first_row_of_item = np.unique(item_of_row, return_index=True)[1]

    def where(judge, item):
        row = first_row_of_item[item]
        return f"judge {plain(names[judge])!r} on {first_row(np.arange(len(docs)) == row, queries, docs)}"

    ids = text(np.array(query_ids.tolist(), dtype=object))
    return names, ratings, query_codes[first_row_of_item], ids, where


def check_each_judge_judged_once(names, judge_of_row, item_of_row, n_items, queries, docs):
    """Refuse a judge who judged a (query, document) pair twice: which judgement would count?"""
    cells = judge_of_row.astype(np.int64) * n_items + item_of_row
    _, first, counts = np.unique(cells, return_index=True, return_counts=True)
    if (counts > 1).any():
        row = first[np.flatnonzero(counts > 1)[0]]
        raise ValueError(
            f"judge {plain(names[judge_of_row[row]])!r} judged document {shown(docs[row])} of query "
            f"{shown(queries[row])} "
            "more than once; each judge gives each document one judgement."
        )


def check_options(statistic, level, weights):
    """The statistic and its one option, refusing the option of another statistic: (statistic, level, weights)."""
    statistic = check_option("statistic", statistic, STATISTICS)
    if level is not None and statistic != "krippendorff":
        raise ValueError(
            f"level={plain(level)!r} is Krippendorff's level of measurement; statistic={statistic!r} has none "
            + ("(its disagreement weights are weights=)." if statistic == "cohen" else "(it is nominal).")
            + " Pass statistic='krippendorff' to use a level."
        )
    if weights is not None and statistic != "cohen":
        raise ValueError(
            f"weights={plain(weights)!r} are Cohen's disagreement weights; statistic={statistic!r} has none. Pass "
            "statistic='cohen' (two judges), or statistic='krippendorff' with level='ordinal' or 'interval'."
        )
    level = check_option("level", level, LEVELS) if level is not None else "nominal"
    weights = check_option("weights", weights, WEIGHTS) if weights is not None else None
    return statistic, level, weights


def check_fractional(ratings, statistic, level, where):
    """Refuse a fractional judgement where the statistic treats judgements as categories (nominal, Cohen, Fleiss)."""
    if statistic == "krippendorff" and level in NUMERIC_LEVELS:
        return
    with np.errstate(invalid="ignore"):
        fractional = ratings != np.round(ratings)
    fractional &= ~np.isnan(ratings)
    if fractional.any():
        judge, item = (int(index[0]) for index in np.nonzero(fractional))
        method = f"krippendorff level={level!r}" if statistic == "krippendorff" else f"statistic={statistic!r}"
        raise ValueError(
            f"{where(judge, item)} gives the fractional judgement {plain(ratings[judge, item])!r}, but {method} treats "
            "judgements as categories. For graded judgements on a numeric scale, pass statistic='krippendorff' "
            "with level='interval' (or 'ratio', 'ordinal')."
        )


def judge_agreement(judges, *, statistic="krippendorff", level=None, weights=None):
    """The agreement of two or more judges' qrels, over all their judgements and per query.

    Parameters
    ----------
    judges : list of qrels, or mapping of str to qrels
        Each judge's judgements: a TREC qrels file, a :class:`Qrels`, a
        pytrec_eval dict ``{query: {document: relevance}}`` or a DataFrame
        with the columns ``query_id``, ``doc_id``, ``relevance``. A list
        names its judges by file name (or position); a mapping by its keys.
    statistic : {"krippendorff", "fleiss", "cohen"}, default="krippendorff"
        Krippendorff's alpha (any number of judges, missing judgements, a
        ``level``), Fleiss' kappa (Gwet's form for missing judgements), or
        Cohen's kappa (exactly two judges, with ``weights``).
    level : {"nominal", "ordinal", "interval", "ratio"}, default=None
        Krippendorff's level of measurement (None: ``"nominal"``); for
        graded relevance, ``"ordinal"`` counts a disagreement of 0 and 2
        more than one of 1 and 2. Only for ``statistic="krippendorff"``.
    weights : {None, "linear", "quadratic"}, default=None
        Cohen's disagreement weights. Only for ``statistic="cohen"``.

    Returns
    -------
    agreement : JudgeAgreement
        ``statistic`` over every (query, document) pair two or more judges
        judged, and ``per_query``, the same statistic on each query's pairs.

    Raises
    ------
    ValueError
        For the option of another statistic (``level=`` with Cohen's or
        Fleiss' kappa, ``weights=`` with another than Cohen's), for a
        fractional judgement where the statistic treats judgements as
        categories, and for qrels that share no judged document; any
        error in reading a judge's qrels names the judge.

    See Also
    --------
    krippendorff_alpha, fleiss_kappa, cohen_kappa : The statistics on arrays.
    leaderboard_agreement : Whether the judges rank systems alike.

    Notes
    -----
    The judgements are aligned on (query, document): a judge who did not
    judge a pair has a missing judgement there, and so does a negative
    relevance (trec_eval's pooled but unjudged). Judgements are numbers:
    fractional ones (an LLM judge's 1.5) are read as they are, and
    accepted by Krippendorff's alpha at the ordinal, interval and ratio
    levels, whose differences are defined between any two values; the
    nominal level, Fleiss' and Cohen's kappa (whose weights go by the
    position of a category, not its value) refuse them. Krippendorff's alpha and
    Fleiss' kappa use every pair two judges judged; Cohen's kappa the pairs
    both judges judged, its categories (and so its weights) those of those
    pairs, for the whole qrels and every query alike (scikit-learn's
    ``labels=``). Per query, a query without such a pair, or where the
    statistic is undefined (every judgement one value), is nan. Equal, pair
    for pair, to :func:`krippendorff_alpha`, :func:`fleiss_kappa` and
    :func:`cohen_kappa` of the aligned judgements.

    Examples
    --------
    >>> from sklearn_rankmetrics.meta import judge_agreement
    >>> human = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d4": 1, "d5": 0}}
    >>> llm = {"q1": {"d1": 2, "d2": 0, "d3": 2}, "q2": {"d4": 1, "d5": 0, "d6": 1}}
    >>> result = judge_agreement([human, llm], level="ordinal")
    >>> round(result.statistic, 4), result.n_items
    (0.8898, 5)
    """
    statistic, level, weights = check_options(statistic, level, weights)
    names, ratings, query_codes, query_ids, where = judgement_matrix(judges)
    check_fractional(ratings, statistic, level, where)
    if statistic == "cohen" and len(names) != 2:
        raise ValueError(
            f"Cohen's kappa compares two judges; got {len(names)} ({plain(names)}). Use statistic='fleiss' or "
            "'krippendorff' for more."
        )
    judged = (~np.isnan(ratings)).sum(axis=0)
    n_items = int((judged >= 2).sum())
    items_per_query = np.bincount(query_codes[judged >= 2], minlength=len(query_ids))
    if statistic == "cohen":
        both = judged == 2
        ratings, query_codes = ratings[:, both], query_codes[both]
    if not n_items:
        raise ValueError(
            "no (query, document) pair was judged by two judges: the qrels share no judged document, so there "
            "is nothing to compare. Check that they use the same query and document ids."
        )
    overall, per_query = agreement_by_query(ratings, query_codes, len(query_ids), statistic, level, weights)
    method = {"krippendorff": f"krippendorff-{level}", "fleiss": "fleiss"}.get(
        statistic, "cohen" + (f"-{weights}" if weights else "")
    )
    warn_if_undefined(overall, method, "every judgement compared has one and the same value")
    return JudgeAgreement(
        statistic=float(overall),
        per_query=dict(zip(query_ids.tolist(), per_query.tolist(), strict=True)),
        method=method,
        judges=names,
        n_items=n_items,
        per_query_items=dict(zip(query_ids.tolist(), items_per_query.tolist(), strict=True)),
    )


def agreement_by_query(ratings, query_codes, n_queries, statistic, level, weights):
    """The statistic over all items, and per query (group), by one kernel call each."""
    groups = (np.zeros(len(query_codes), dtype=np.intp), 1), (query_codes, n_queries)
    if statistic == "cohen":
        categories, codes = np.unique(ratings, return_inverse=True)
        codes = codes.reshape(ratings.shape)
        overall, per_query = (
            cohen_kernel(codes[0], codes[1], len(categories), group, n, weights) for group, n in groups
        )
        return overall[0], per_query
    counts, categories = unit_counts(ratings)
    with np.errstate(divide="ignore", invalid="ignore"):
        if statistic == "fleiss":
            results = [fleiss_kernel(counts, group, n) for group, n in groups]
        else:
            results = [krippendorff_kernel(counts, categories, group, n, level) for group, n in groups]
    return results[0][0], results[1]


def leaderboard_agreement(reference, other, runs, *, measure="ndcg_cut.10", queries="shared", p=0.9, **options):
    """Do two sets of judgements rank the same runs alike? Evaluate every run with both, and compare the orderings.

    The question an LLM judge must answer before it replaces human
    assessors: not whether it labels each document as they do, but whether
    it orders the systems as they do.

    Parameters
    ----------
    reference : path, Qrels, dict or DataFrame
        The trusted judgements (human assessors), as for :func:`evaluate_run`.
    other : path, Qrels, dict or DataFrame
        The judgements to check (an LLM judge, a cheaper pool).
    runs : mapping of str to run, or list of runs
        The systems: run files, :class:`Run` objects, dicts ``{query:
        {document: score}}`` or DataFrames. A list names its runs by run
        tag, file name or position.
    measure : str, default="ndcg_cut.10"
        One measure of :func:`evaluate_run` (trec_eval's name with its
        parameters, or a ranking metric name of the library).
    queries : {"shared", "own"}, default="shared"
        The queries each leaderboard averages over: ``"shared"``, those both
        qrels judge (with a warning naming how many others were left out),
        so that the two leaderboards differ by their judgements only;
        ``"own"``, each qrels' own queries, as two separate evaluations
        would (the agreement then mixes a change of judges with a change of
        topics).
    p : float, default=0.9
        RBO's persistence.
    **options : dict
        Options of :func:`evaluate_run` (``relevance_level``, ``complete``,
        ``judged_only``, ...), the same for both judgements.

    Returns
    -------
    agreement : OrderingAgreement
        ``x`` the runs' mean ``measure`` by ``reference``, ``y`` by
        ``other``; Kendall's tau, tau_AP (``other``'s ordering judged against
        ``reference``'s), Spearman's rho, RBO and the pairs that swap.

    Warns
    -----
    UserWarning
        With ``queries="shared"``, when either qrels judges queries the
        other does not: they are left out of both leaderboards.

    See Also
    --------
    judge_agreement : The agreement document by document.
    ordering_agreement : The same from two tables of scores.

    Notes
    -----
    A judge who judged only some of the topics (an LLM run on a sample)
    would otherwise be compared on other topics than the human assessors:
    each leaderboard averages over the queries its qrels judge (trec_eval's
    mean), so the orderings could differ with the judges agreeing on every
    document. By default both qrels are cut to the queries both judge
    before any run is evaluated. Errors in reading the qrels or a run name
    it (``reference``, ``other``, the run's name).

    Examples
    --------
    >>> from sklearn_rankmetrics.meta import leaderboard_agreement
    >>> human = {"q1": {"d1": 1, "d2": 0, "d3": 1}}
    >>> llm = {"q1": {"d1": 1, "d2": 1, "d3": 0}}
    >>> runs = {"a": {"q1": {"d1": 3, "d2": 2, "d3": 1}}, "b": {"q1": {"d3": 3, "d1": 2, "d2": 1}},
    ...         "c": {"q1": {"d2": 3, "d3": 2, "d1": 1}}}
    >>> result = leaderboard_agreement(human, llm, runs, measure="P.1")
    >>> result.swaps
    [('b', 'c')]
    """
    names, sources = run_sources(runs)
    if not isinstance(measure, str):
        raise TypeError(f"measure must be one measure name, such as 'ndcg_cut.10'; got {plain(measure)!r}.")
    queries = check_option("queries", queries, QUERY_SETS)
    judgements = {role: read_as(as_qrels, qrels, role) for role, qrels in (("reference", reference), ("other", other))}
    if queries == "shared":
        judgements = on_shared_queries(judgements)
    scores = {"reference": {}, "other": {}}
    for name, source in zip(names, sources, strict=True):
        run = read_as(as_run, source, f"run {plain(name)!r}")
        for role, qrels in judgements.items():
            result = evaluate_run(qrels, run, [measure], **options)
            if len(result) != 1:
                raise ValueError(
                    f"measure={measure!r} gives {len(result)} values ({', '.join(result)}); compare one at a time."
                )
            scores[role][name] = next(iter(result.values()))
    return ordering_agreement(scores["reference"], scores["other"], p=p)


def on_shared_queries(judgements):
    """The qrels cut to the queries that all of them judge, with a warning where that leaves some out."""
    shared = np.intersect1d(*(np.unique(qrels.query_id) for qrels in judgements.values()))
    if not len(shared):
        raise ValueError(
            "reference and other judge no query in common: their leaderboards would average over different "
            "topics. Check that they use the same query ids, or pass queries='own' to compare them anyway."
        )
    dropped = {role: len(np.setdiff1d(qrels.query_id, shared)) for role, qrels in judgements.items()}
    if any(dropped.values()):
        counts = " and ".join(
            f"{role} judges {count} quer{'y' if count == 1 else 'ies'} that the other does not"
            for role, count in dropped.items()
            if count
        )
        plural = "y" if len(shared) == 1 else "ies"
        warn(
            f"{counts}: both leaderboards average over the {len(shared)} quer{plural} both judge, so that they "
            "differ by their judgements only. Pass queries='own' to average each over its own queries.",
            UserWarning,
        )
    return {
        role: Qrels(qrels.query_id[kept], qrels.doc_id[kept], qrels.relevance[kept])
        for role, qrels in judgements.items()
        for kept in [np.isin(qrels.query_id, shared)]
    }


def run_sources(runs):
    """The runs' names and sources, from a mapping ``{name: run}`` or a list of runs."""
    if hasattr(runs, "items") and not all(looks_like_judgements(run) for run in runs.values()):
        names, sources = list(runs.keys()), list(runs.values())
    elif isinstance(runs, list | tuple):
        names, sources = [source_name(run, i) for i, run in enumerate(runs)], list(runs)
        if len(set(names)) != len(names):
            names = [str(i) for i in range(len(runs))]
            warn(
                "Two runs of the list share a name (run tag or file name): they are named by position instead.",
                UserWarning,
            )
    else:
        raise TypeError(
            "runs must map run names to runs, or be a list of runs (files, Run objects, dicts or DataFrames); got "
            f"{type(runs).__name__}."
        )
    if len(sources) < 2:
        raise ValueError(f"a leaderboard needs at least two runs; got {len(sources)}.")
    return names, sources
