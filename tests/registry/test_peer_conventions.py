"""Every tool convention in the registry, run against the tool itself: a test generated from the records.

For each record, each peer tool it names (in its spellings or its
conventions) and each of the tool's spellings, the tool runs on random
collections (graded and binary labels, tied and distinct scores, queries
of one to fourteen documents, queries without a relevant document, judged
documents not retrieved) and its numbers are compared with the metric
function's under the name (``metric_info(spelling)``) and the tool's
convention (``info.conventions[tool]``): to 1e-12, or to the tool's own
precision where it prints fewer digits (:data:`peer_tools.PRECISION`).
A convention's ``inputs`` restrict the collections to those it claims
(``"tie_free"``: distinct scores, ...). A tool that cannot run here
says why in its note, and every other claim of a record is run: nothing in
the registry about a peer tool goes unchecked.
"""

import functools
import re

import numpy as np
import peer_tools
import pytest
from peer_tools import Collection

from sklearn_rankmetrics import metric_info
from sklearn_rankmetrics.registry._metric_info import CONVENTION_KEYS
from sklearn_rankmetrics.registry._registry import REGISTRY

# Tool -> the adapter that runs it under one of its spellings.
ADAPTERS = {
    "trec_eval": peer_tools.trec_eval,
    "ir_measures": peer_tools.ir_measures_tool,
    "ranx": peer_tools.ranx_tool,
    "lightgbm": peer_tools.lightgbm_tool,
    "xgboost": peer_tools.xgboost_tool,
    "torchmetrics": peer_tools.torchmetrics_tool,
    "ntcireval": peer_tools.ntcireval_tool,
    "ndeval": peer_tools.ndeval_tool,
    "catboost": peer_tools.catboost_tool,
}
# Tools that a record knows by convention only (no spelling of theirs is a name here): the names of ours that the
# convention applies to, and how to run the tool for each.
CONVENTION_ONLY = {
    ("cwl_eval", "inst"): [
        (f"inst(target={t})", functools.partial(peer_tools.cwl_eval_tool, "inst", target=t)) for t in (1.0, 2.5)
    ],
    ("cwl_eval", "insq"): [
        (f"insq(target={t})", functools.partial(peer_tools.cwl_eval_tool, "insq", target=t)) for t in (1.0, 2.5)
    ],
    ("sklearn", "ndcg"): [
        (f"ndcg{at}", functools.partial(peer_tools.sklearn_tool, "ndcg_score", k=k))
        for at, k in (("", None), ("@3", 3))
    ],
    ("sklearn", "dcg"): [
        (f"dcg{at}", functools.partial(peer_tools.sklearn_tool, "dcg_score", k=k)) for at, k in (("", None), ("@3", 3))
    ],
}
# Tools that take every row as a retrieved document (no qrels beside the run): no row scores -inf for them.
WITHOUT_QRELS = {"lightgbm", "xgboost", "torchmetrics", "catboost", "sklearn"}
# Tools that report only the mean over the queries they are given (torchmetrics: its classes).
MEANS_ONLY = {"lightgbm", "xgboost"}
# Not tools: names in common use.
NOT_TOOLS = {"common"}
CUTOFFS = (1, 3, 10)
# Values of the parameters a tool's spelling requires or takes (ir_measures' INST(T=2.5, max_rel=4), RBP(rel=1)).
PEER_VALUES = {"T": (1.0, 2.5), "max_rel": (4,), "rel": (1, 2)}
# ranx spells RBP's persistence as its decimals (rbp.95 is p=0.95).
DECIMALS = ("95", "8", "5")
# Recall levels of the interpolated precision: a tool's spelling takes one (trec_eval's iprec_at_recall.0.4).
LEVELS = (0.0, 0.1, 0.25, 0.4, 0.5, 0.75, 0.9, 1.0)
LEVEL_SPELLINGS = {"iprec_at_recall": "iprec_at_recall.{x}", "IPrec": "IPrec@{x}"}
# Tools whose every metric takes a cutoff that the name's "@k" gives (torchmetrics' top_k): their spellings are
# run with "@k" too, unless the convention holds without a cutoff only.
CUTOFF_BY_NAME = {"torchmetrics"}


def tool_spellings(record, tool):
    """The tool's spellings of ``record``'s metric, each with its cutoff or parameters filled in."""
    spelled = []
    for spelling in record.spellings.get(tool, ()):
        if spelling in LEVEL_SPELLINGS:
            spelled += [LEVEL_SPELLINGS[spelling].format(x=x) for x in LEVELS]
            continue
        if spelling.endswith(".p"):
            spelled += [spelling[:-1] + digits for digits in DECIMALS]
            continue
        if tool in CUTOFF_BY_NAME and "k" in record.options and "no_cutoff" not in convention(record, tool)[1]:
            spelled += [f"{spelling}@{k}" for k in CUTOFFS]
        template = re.sub(r"(@|_|\.)k(-?)$", r"\g<1>{k}\2", spelling)
        variants = [template.format(k=k) for k in CUTOFFS] if "{k}" in template else [spelling]
        parameters = record.peer_options.get(tool, {})
        if parameters:  # the first and the last value of each parameter
            settings = {", ".join(f"{name}={PEER_VALUES[name][end]}" for name in parameters) for end in (0, -1)}
            variants = [f"{name}({setting})" for name in variants for setting in sorted(settings)]
        spelled += variants
    return spelled


def claims():
    """Every (canonical, tool) that a record names, but names in common use."""
    for record in REGISTRY.values():
        for tool in dict.fromkeys((*record.spellings, *record.conventions)):
            if tool not in NOT_TOOLS:
                yield record.canonical, tool


def run_claims():
    """The claims run on collections of labelled rows (the comparison of two systems: its own test)."""
    return [
        (canonical, tool)
        for canonical, tool in claims()
        if REGISTRY[canonical].family != "comparison"
        and ((tool in ADAPTERS and REGISTRY[canonical].spellings.get(tool)) or (tool, canonical) in CONVENTION_ONLY)
    ]


def says_why_not(canonical, tool):
    return REGISTRY[canonical].conventions.get(tool, {}).get("note", "").startswith("not run here:")


def test_every_tool_is_run_or_says_why_not():
    run = {*run_claims(), *((record.canonical, "rbo") for record in REGISTRY.values() if "rbo" in record.spellings)}
    for canonical, tool in claims():
        if (canonical, tool) not in run:
            assert says_why_not(canonical, tool), f"{canonical}: {tool} is neither run nor says why not"
        else:
            assert not says_why_not(canonical, tool), f"{canonical}: {tool} is run, but its note says it is not"


def convention(record, tool):
    convention = dict(record.conventions.get(tool, {}))
    inputs = set(convention.get("inputs", ()))
    return {key: value for key, value in convention.items() if key not in CONVENTION_KEYS}, inputs


def collections(record, tool, inputs, seed, n_queries=16):
    """Two random collections for the claim, of the labels and ties that its inputs allow."""
    rng = np.random.default_rng(seed)
    for _ in range(2):
        yield random_collection(
            rng,
            binary="binary" in inputs,
            ties="tie_free" not in inputs,
            positive="positive" in inputs,
            unretrieved=tool not in WITHOUT_QRELS,
            subtopics=record.family == "diversity",
            unit="unit_labels" in inputs,
            every_relevant="relevant" in inputs,
            n_queries=n_queries,
        )


def random_collection(rng, *, binary, ties, positive, unretrieved, subtopics, unit, every_relevant=False, n_queries=16):
    """Queries of 1 to 14 rows, each with binary or graded labels (``binary``: binary), distinct or tied scores
    (``ties``: some tied), some without a relevant document; subtopic judgements are 0 or 1 (the diversity
    measures take no other). ``unit``: graded labels in [0, 1]."""
    sizes = rng.choice([1, 2, 3, 4, 6, 9, 14], n_queries)
    qid = np.repeat(np.arange(1, n_queries + 1), sizes)
    n = len(qid)
    graded = np.repeat(~binary & (rng.random(n_queries) < 0.5), sizes)
    tied = np.repeat(ties & (rng.random(n_queries) < 0.5), sizes)
    if subtopics:
        y_true = (rng.random((n, int(rng.integers(1, 4)))) < 0.3).astype(float)
    else:
        y_true = np.where(graded, rng.choice([0, 0, 1, 2, 3, 4], n) / (4.0 if unit else 1.0), rng.integers(0, 2, n))
    without = np.isin(qid, qid[rng.random(n) < 0.2])  # some queries without a relevant document
    y_true[without] = 0
    if every_relevant:  # a relevant document in every query: its first row
        y_true[np.r_[0, np.flatnonzero(np.diff(qid)) + 1]] = 1
    distinct = (rng.permutation(n) + (1.0 if positive else -n / 2)) / n
    y_score = np.where(tied, rng.integers(1 if positive else -1, 4, n) / 4.0, distinct)
    if unretrieved:
        y_score[rng.random(n) < 0.15] = -np.inf
    return Collection(y_true, y_score, qid)


def ours(name, record, options, collection, *, mean):
    """The metric function under ``name`` and the convention's options (the name's own settings win).

    A curve's spelling names one recall level (``IPrec@0.4``): the value there.
    """
    level = re.search(r"[@.]([0-9.]+)$", name) if record.family == "curve" else None
    if level:
        name, options = name[: level.start()], {**options, "recall_levels": [float(level[1])]}
    info = metric_info(name)
    settings = {**options, **info.settings}
    values = info.function(collection.y_true, collection.y_score, qid=collection.qid, average=mean, **settings)
    return values[..., 0] if level else values


def compare(name, tool, record, options, collection, theirs, precision):
    if np.ndim(theirs) == 0:  # a mean over the collection's queries
        expected = ours(name, record, options, collection, mean=True)
        assert peer_tools.isclose(expected, theirs, precision), f"{tool} {name}: ours {expected}, theirs {theirs}"
        return 1
    values = ours(name, record, options, collection, mean=False)
    given = ~np.isnan(theirs)
    bad = given & ~np.isclose(values, theirs, rtol=precision, atol=precision)
    assert not bad.any(), (
        f"{tool} {name}: queries {collection.queries[bad][:5]}: ours {values[bad][:5]}, theirs {theirs[bad][:5]}"
    )
    return int(given.sum())


def split(collection, rng):
    """The collection in pieces of one to four queries, for a tool that reports only a mean."""
    queries = collection.queries
    edges = np.cumsum(rng.integers(1, 5, len(queries)))
    for piece in np.split(queries, edges[edges < len(queries)]):
        rows = np.isin(collection.qid, piece)
        yield Collection(collection.y_true[rows], collection.y_score[rows], collection.qid[rows])


@pytest.mark.parametrize(("canonical", "tool"), run_claims())
def test_the_tool_gives_the_number_its_convention_claims(canonical, tool):
    record = REGISTRY[canonical]
    options, inputs = convention(record, tool)
    if (tool, canonical) in CONVENTION_ONLY:
        runs = CONVENTION_ONLY[tool, canonical]
    else:
        runs = [(spelling, functools.partial(ADAPTERS[tool], spelling)) for spelling in tool_spellings(record, tool)]
    assert runs, f"{canonical}: no spelling of {tool} to run"
    for index, (name, run) in enumerate(runs):
        precision = peer_tools.PRECISION.get(tool, peer_tools.DOUBLE)
        if tool == "ir_measures":
            precision = peer_tools.PRECISION.get(peer_tools.ir_measures_provider(name), peer_tools.DOUBLE)
        compared = 0
        means_only = tool in MEANS_ONLY or name.startswith("Retrieval")
        # A tool that reports means runs once per piece of a few queries: fewer queries, and every other cutoff.
        if means_only and index % 2:
            continue
        for collection in collections(record, tool, inputs, seed=index, n_queries=12 if means_only else 24):
            if means_only:
                for piece in split(collection, np.random.default_rng(index)):
                    compared += compare(name, tool, record, options, piece, run(piece), precision)
            else:
                compared += compare(name, tool, record, options, collection, run(collection), precision)
        assert compared > 0, f"{tool} {name}: the tool gave no number"


@pytest.mark.parametrize("canonical", [record.canonical for record in REGISTRY.values() if "rbo" in record.spellings])
def test_the_rbo_package_gives_the_rank_biased_overlap_its_convention_claims(canonical):
    # Two systems' scores of the same documents, no labels: the rbo package's rbo_ext of their lists.
    record = REGISTRY[canonical]
    options, inputs = convention(record, "rbo")
    assert inputs == {"tie_free"}
    rng = np.random.default_rng(0)
    compared = 0
    for spelling in record.spellings["rbo"]:
        info = metric_info(spelling)
        for trial in range(120):
            n = int(rng.integers(1, 30))
            a, b = rng.permutation(n) + 0.5, rng.permutation(n) + 0.5
            a[rng.random(n) < 0.3] = -np.inf  # lists of different lengths
            b[rng.random(n) < (0.0 if trial % 2 else 0.3)] = -np.inf
            p, k = [0.9, 0.5, 0.98][trial % 3], [None, 1, 5, 20][trial % 4]
            theirs = peer_tools.rbo_tool(a, b, p=p, k=k)
            if np.isnan(theirs):
                continue
            value = info.function(a, b, p=p, k=k, **options, **info.settings)
            assert peer_tools.isclose(value, theirs, peer_tools.DOUBLE), (spelling, p, k, value, theirs)
            compared += 1
    assert compared > 100


def test_ndeval_err_ia_is_another_quantity_than_intent_aware_err():
    # The record's reference says so: ndeval's ERR-IA decays gains by alpha and normalises them.
    from sklearn_rankmetrics import intent_aware_err_score

    collection = random_collection(
        np.random.default_rng(0), binary=True, ties=False, positive=False, unretrieved=False, subtopics=True, unit=False
    )
    theirs = peer_tools.ndeval_tool("ERR-IA@20", collection)
    values = intent_aware_err_score(collection.y_true, collection.y_score, qid=collection.qid, k=20, average=False)
    given = ~np.isnan(theirs) & (theirs > 0)
    assert given.any() and not np.allclose(values[given], theirs[given])
