"""The peer tools themselves, behind one interface, for the test generated from the registry's records.

Each adapter runs one tool on rows of labels, scores and query ids (a
:class:`Collection`) under one of the tool's own spellings of a metric, and
returns what the tool reports: per-query values (NaN where the tool gives
no number for a query), or its mean over the queries for a tool that
reports only that. It hands the rows to the tool the way the conventions of
the records describe: judged documents not retrieved (score -inf) go to the
qrels only; the documents of a query are named so that the tool's order for
tied scores is the rows' order where the tool has a fixed one (trec_eval and
gdeval break ties by descending docno, ndeval and ir_measures' Compat by
ascending docno); a tool that ranks a list it is given receives it in the
rows' order (score descending, then row).

``PRECISION`` is each tool's own float precision: what it prints or
computes in (gdeval prints 5 decimals), the tolerance of the comparison.
"""

import dataclasses
import logging
import math
import re
import warnings

import numpy as np
import pytest

# The tools' own precision: double precision (compared to 1e-12), or what they print.
DOUBLE = 1e-12
PRECISION = {"gdeval": 5e-6 + 1e-12, "torchmetrics": 1e-6}  # gdeval prints 5 decimals; torchmetrics is float32


@dataclasses.dataclass
class Collection:
    """Rows of one or more queries: labels (or a judgement matrix), scores (-inf: judged, not retrieved), ids."""

    y_true: np.ndarray
    y_score: np.ndarray
    qid: np.ndarray

    @property
    def queries(self):
        return np.unique(self.qid)

    def rows(self, query):
        return np.flatnonzero(self.qid == query)

    def ranked(self, query):
        """The retrieved rows of ``query`` in the rows' order: score descending, then row."""
        rows = self.rows(query)
        rows = rows[self.y_score[rows] > -np.inf]
        return rows[np.argsort(-self.y_score[rows], kind="stable")]

    def docno(self, row, *, ascending):
        """A document name whose order among its query's rows follows the rows' (or the reverse)."""
        place = row - self.rows(self.qid[row])[0]
        return f"d{place if ascending else 999 - place:03d}"

    def labels(self, row):
        return self.y_true[row]


def per_query(collection, found, missing=np.nan):
    """Values in the order of the collection's queries from a mapping of query id (str or int) to value."""
    return np.array([found.get(str(query), found.get(query, missing)) for query in collection.queries], dtype=float)


# ---- trec_eval (pytrec_eval: trec_eval 9) --------------------------------------------------


def trec_inputs(collection, ascending=False):
    """pytrec_eval's qrels (every row) and run (the retrieved rows), docnos in the rows' order of ties."""
    qrels, run = {}, {}
    for row, query in enumerate(collection.qid):
        name = collection.docno(row, ascending=ascending)
        qrels.setdefault(str(query), {})[name] = int(collection.y_true[row])
        if collection.y_score[row] > -np.inf:
            run.setdefault(str(query), {})[name] = float(collection.y_score[row])
    return qrels, run


def trec_eval(spelling, collection):
    """trec_eval's measure ``spelling`` (``ndcg_cut_5``, ``P.5``, ``iprec_at_recall.0.4``): one value per query.

    It skips a query that retrieved nothing (not in the run): no value.
    """
    pytrec_eval = pytest.importorskip("pytrec_eval")
    measure = re.sub(r"^(.*?)_([0-9]+)$", r"\1.\2", spelling)
    qrels, run = trec_inputs(collection)
    results = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)
    return per_query(collection, {query: next(iter(values.values())) for query, values in results.items()})


# ---- ir_measures (its providers as installed) --------------------------------------------


def ir_measures_inputs(collection, ascending):
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = [], []
    for row, query in enumerate(collection.qid):
        name = collection.docno(row, ascending=ascending)
        labels = collection.y_true[row]
        if np.ndim(labels):  # one judgement per subtopic
            qrels += [ir_measures.Qrel(str(query), name, int(label), str(j)) for j, label in enumerate(labels)]
        else:
            qrels.append(ir_measures.Qrel(str(query), name, int(labels)))
        if collection.y_score[row] > -np.inf:
            run.append(ir_measures.ScoredDoc(str(query), name, float(collection.y_score[row])))
    return ir_measures, qrels, run


def ir_measures_provider(spelling):
    """The provider that ir_measures picks for a measure: the first registered one that supports it."""
    ir_measures = pytest.importorskip("ir_measures")
    measure = ir_measures.parse_measure(spelling)
    for provider in ir_measures.DefaultPipeline.providers:
        if provider.is_available() and provider.supports(measure):
            return provider.NAME
    return None


def ir_measures_tool(spelling, collection):
    """ir_measures' measure ``spelling`` per query; it gives no value for a query it does not evaluate.

    Document names ascend with the rows for Compat (whose ideal ranking keeps
    the qrels' order), ndeval and MS MARCO's evaluation (RR@k), which break
    score ties by ascending docno; they descend for trec_eval and gdeval,
    which break them by descending docno.
    """
    provider = ir_measures_provider(spelling)
    logging.getLogger("ir_measures").disabled = True
    ascending = provider in ("compat", "pyndeval", "msmarco")
    ir_measures, qrels, run = ir_measures_inputs(collection, ascending=ascending)
    measure = ir_measures.parse_measure(spelling)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = {metric.query_id: metric.value for metric in ir_measures.iter_calc([measure], qrels, run)}
    return per_query(collection, found)


# ---- ranx ---------------------------------------------------------------------------------


def ranx_tool(spelling, collection):
    """ranx's metric ``spelling`` per query; a query that retrieved nothing has no value.

    ranx wants the same queries in the qrels and the run: such a query is left
    out of both (given an empty run, as make_comparable does, it makes ranx's
    bpref 0 for every query).
    """
    ranx = pytest.importorskip("ranx")
    qrels, run = trec_inputs(collection)
    qrels = {query: judged for query, judged in qrels.items() if query in run}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # Two metrics: with one, ranx 0.3.21 looks its per-query values up under the name without "@k".
        values = ranx.evaluate(
            ranx.Qrels(qrels),
            ranx.Run(run),
            [spelling, "hits"],
            return_mean=False,
            threads=1,
            save_results_in_run=False,
        )[spelling]
    # ranx sorts the queries by id as strings.
    return per_query(collection, dict(zip(sorted(qrels), np.atleast_1d(values), strict=True)))


# ---- the boosters: their evaluation of fixed scores, before any tree ----------------------


def lightgbm_tool(spelling, collection):
    """LightGBM's mean of ``ndcg@k`` or ``map@k`` over the queries: its evaluation of the scores as init_score."""
    lightgbm = pytest.importorskip("lightgbm")
    metric, k = spelling.split("@")
    sizes = np.bincount(np.searchsorted(collection.queries, collection.qid))
    data = lightgbm.Dataset(
        np.zeros((len(collection.qid), 1)), label=collection.y_true, group=sizes, init_score=collection.y_score
    )
    params = {"objective": "lambdarank", "metric": metric, "eval_at": [int(k)], "verbose": -1, "num_threads": 1}
    booster = lightgbm.Booster(params, data)
    return float(booster.eval_train()[0][2])


def xgboost_tool(spelling, collection):
    """XGBoost's mean of ``spelling`` over the queries: its evaluation of the scores as base_margin (float32)."""
    xgboost = pytest.importorskip("xgboost")
    data = xgboost.DMatrix(
        np.zeros((len(collection.qid), 1)), label=collection.y_true, qid=collection.qid, base_margin=collection.y_score
    )
    booster = xgboost.Booster({"objective": "rank:ndcg", "eval_metric": spelling, "nthread": 1}, [data])
    return float(booster.eval(data).rsplit(":", 1)[1])


# ---- torchmetrics (float64 tensors) --------------------------------------------------------

TORCHMETRICS_FUNCTIONS = {
    "RetrievalNormalizedDCG": "retrieval_normalized_dcg",
    "RetrievalMAP": "retrieval_average_precision",
    "RetrievalMRR": "retrieval_reciprocal_rank",
    "RetrievalPrecision": "retrieval_precision",
    "RetrievalRecall": "retrieval_recall",
    "RetrievalRPrecision": "retrieval_r_precision",
    "RetrievalHitRate": "retrieval_hit_rate",
}


def torchmetrics_tool(spelling, collection):
    """torchmetrics: a class (``RetrievalMAP@5``: top_k=5) gives its mean, a function each query's value."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("torchmetrics")
    import torchmetrics.functional.retrieval as functional
    import torchmetrics.retrieval as classes

    name, _, k = spelling.partition("@")
    top_k = {"top_k": int(k)} if k else {}
    relevant = (
        collection.y_true if name in ("RetrievalNormalizedDCG", "retrieval_normalized_dcg") else collection.y_true >= 1
    )
    if name in TORCHMETRICS_FUNCTIONS:
        metric = getattr(classes, name)(**top_k).set_dtype(torch.float64)
        metric.update(
            torch.tensor(collection.y_score, dtype=torch.float64),
            torch.tensor(relevant),
            indexes=torch.tensor(np.searchsorted(collection.queries, collection.qid)),
        )
        return float(metric.compute())
    function = getattr(functional, name)
    values = {}
    for query in collection.queries:
        rows = collection.rows(query)
        preds, target = torch.tensor(collection.y_score[rows], dtype=torch.float64), torch.tensor(relevant[rows])
        values[query] = float(function(preds, target, **top_k))
    return per_query(collection, values)


# ---- NTCIREVAL (pyNTCIREVAL): a ranked list and the query's counts per level ----------------

NTCIR_LEVELS = 4  # relevance levels 1 .. 4: the gain vector's top level is ERR's max_grade


def ntcireval_tool(spelling, collection):
    """pyNTCIREVAL's ``Q-measure``, ``Q@k`` or ``nERR@k`` on each query's retrieved rows in the rows' order.

    Q takes the labels as gain values, nERR 2**l - 1; a query without a
    relevant document, or that retrieved nothing, has no value (NTCIREVAL
    divides by 0, or fails).
    """
    metrics = pytest.importorskip("pyNTCIREVAL.metrics")
    name, _, k = spelling.partition("@")
    cutoff = int(k) if k else None
    values = {}
    for query in collection.queries:
        labels = collection.y_true[collection.rows(query)].astype(int)
        if not labels.any() or not len(collection.ranked(query)):
            continue
        counts = [int(np.sum(labels == level)) for level in range(NTCIR_LEVELS + 1)]
        ranked = [(f"d{row}", int(collection.y_true[row])) for row in collection.ranked(query)]
        if name == "nERR":
            metric = metrics.nERR(counts, [2**level - 1 for level in range(1, NTCIR_LEVELS + 1)], cutoff=cutoff)
        else:
            metric = metrics.QMeasure(counts, list(range(1, NTCIR_LEVELS + 1)), 1.0, cutoff=cutoff)
        values[query] = metric.compute(ranked)
    return per_query(collection, values)


# ---- ndeval (pyndeval) ---------------------------------------------------------------------


def ndeval_tool(spelling, collection):
    """NIST ndeval's measure ``spelling`` (``alpha-nDCG@5``, ``NRBP``) per query, documents named in ascending order."""
    pyndeval = pytest.importorskip("pyndeval")
    qrels, run = [], []
    for row, query in enumerate(collection.qid):
        name = collection.docno(row, ascending=True)
        qrels += [(str(query), str(j), name, int(label)) for j, label in enumerate(collection.y_true[row])]
        if collection.y_score[row] > -np.inf:
            run.append((str(query), name, float(collection.y_score[row])))
    run.sort(key=lambda record: record[0])
    found = pyndeval.RelevanceEvaluator(qrels, [spelling]).evaluate(run)
    return per_query(collection, {query: values[spelling] for query, values in found.items()})


# ---- cwl_eval ---------------------------------------------------------------------------------


def cwl_eval_tool(metric_name, collection, *, target):
    """cwl_eval's INST or INSQ with target T per query: the labels (in [0, 1]) are the gains, depth 1000."""
    pytest.importorskip("cwl")
    from cwl.ruler.measures.cwl_insq import INSQCWLMetric
    from cwl.ruler.measures.cwl_inst import INSTCWLMetric
    from cwl.ruler.ranking import Ranking

    logging.getLogger("cwl").disabled = True
    metric = {"inst": INSTCWLMetric, "insq": INSQCWLMetric}[metric_name](target)
    values = {}
    for query in collection.queries:
        ranked = collection.ranked(query)
        gains = collection.y_true[ranked]
        values[query] = metric.measure(Ranking(str(query), gains, np.ones(len(gains)), max_n=1000))
    return per_query(collection, values)


# ---- CatBoost ---------------------------------------------------------------------------------


def catboost_tool(spelling, collection):
    """CatBoost's ``PairAccuracy`` of each query (one group), its pairs those of different labels."""
    utils = pytest.importorskip("catboost.utils")
    values = {}
    for query in collection.queries:
        rows = collection.rows(query)
        labels, scores = collection.y_true[rows], collection.y_score[rows]
        pairs = [[i, j] for i in range(len(rows)) for j in range(len(rows)) if labels[i] > labels[j]]
        if pairs:
            group = np.zeros(len(rows), dtype=int)
            values[query] = utils.eval_metric(labels, scores, spelling, group_id=group, pairs=pairs, thread_count=1)[0]
    return per_query(collection, values)


# ---- scikit-learn -------------------------------------------------------------------------------


def sklearn_tool(function_name, collection, *, k=None):
    """scikit-learn's ``ndcg_score``/``dcg_score`` of each query as one row of 2-D input (it refuses one document)."""
    import sklearn.metrics

    function = getattr(sklearn.metrics, function_name)
    values = {}
    for query in collection.queries:
        rows = collection.rows(query)
        if len(rows) > 1:
            values[query] = function([collection.y_true[rows]], [collection.y_score[rows]], k=k)
    return per_query(collection, values)


def rbo_tool(a, b, *, p, k=None):
    """The rbo package's rbo_ext of two systems' lists (their rows above -inf, by score, to depth k)."""
    rbo = pytest.importorskip("rbo")
    lists = [[row for row in np.argsort(-scores, kind="stable") if scores[row] > -np.inf][:k] for scores in (a, b)]
    if not lists[0] or not lists[1]:
        return np.nan  # rbo divides by zero on an empty list
    return rbo.RankingSimilarity(*lists).rbo_ext(p=p)


def isclose(ours, theirs, precision):
    """Equal to the tool's precision (relative to values above 1, such as RBP of raw grades)."""
    return math.isclose(ours, theirs, rel_tol=precision, abs_tol=precision)
