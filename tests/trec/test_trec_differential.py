"""evaluate_run against trec_eval (through pytrec_eval) on random collections, with every option drawn.

pytrec_eval is trec_eval 9 behind a dict interface, and it is the reference
only where it has the option: it has no -c, no -M, no tie policy (trec_eval
ranks by score, then by descending document id), refuses relevance level 0
and takes string ids. The reference here supplies the rest the way trec_eval
defines it:

- ties: the run is put in the policy's order first and handed to pytrec_eval
  with distinct scores in that order; ``ties="average"`` is the mean over
  every ordering of the tied documents;
- max_depth (-M): the top max_depth of that order are kept (trec_eval cuts
  after sorting), and with ``ties="average"`` of each ordering, so that a
  tie block cut by max_depth averages the rankings cut in every order (then
  judged_only removes the unjudged documents, as trec_eval does);
- complete (-c): a query of the qrels that the run lacks gets trec_eval's
  bogus ranking, one document outside the qrels, and then num_ret and
  utility 0, as trec_eval 10 cleans them up; so does a query that a run
  dict answers with no document (pytrec_eval evaluates it too, but crashes
  on some);
- relevance level 0: every judged document relevant, which is level 1 on
  qrels whose judgements >= 0 are raised by one (the measures that read
  the judgements as gains, which no level changes, use the qrels as given);
- numeric ids: compared as the strings pytrec_eval needs.

NaN scores must be refused and an empty run must be refused without
complete=True, whatever the input route (dict, DataFrame, Run).
"""

import io
import itertools
import math

import numpy as np
import pytest
import pytrec_eval
from hypothesis import event, given, settings
from hypothesis import strategies as st
from test_trec import PYTREC_MEASURES, same_cutoffs

from sklearn_rankmetrics.trec import Run, evaluate_run
from sklearn_rankmetrics.trec._measures import MEASURES

# Measures defined on one ordering: ties="average" refuses them.
STRICT = {"infAP", "G", "ndcg_rel", "Rndcg", "binG", "iprec_at_recall", "11pt_avg"}
# Measures that read the judgements as gains: the relevance level changes none of them.
GRADED = ("ndcg", "G", "Rndcg", "num_ret", "num_q")
BOGUS = "ceci_nest_pas_un_docno"
UNRETRIEVED = "never_retrieved"  # trec_eval's one document for a query the run lacks (-c)
# Per kind of id: the query ids, the judged documents and documents no qrels judge. Numeric ids do not sort
# as their strings do; the Latin-1 ids are not UTF-8 once written to a file, and each byte string is distinct.
IDS = {
    "text": (["q0", "q1", "q2", "q3"], [f"d{j}" for j in range(8)], ["x0", "x1", "x2"]),
    "numeric": ([5, 40, 300, 7], [1, 9, 10, 11, 100, 2, 20, 3], [1000, 1001, 1002]),
    "latin-1": (["q\xe9", "q\xe8", "q", "Q\xe9"], ["caf\xe9", "caf\xe8", "cafe", "d\xff", "d1", "d\xe9t", "d2", "d"],
                ["x\xe9", "x\xe8", "x"]),
}  # fmt: skip
UNJUDGED, NONPOOL = -2, -1


@st.composite
def collections(draw, ids="text", routes=("dict", "frame", "Run")):
    """Qrels, a run and evaluation options, as a dict of everything trec_eval must handle."""
    all_queries, documents, unjudged = IDS[ids]
    queries = all_queries[: draw(st.integers(1, 4))]
    qrels, run = {}, {}
    for query in queries:
        if draw(st.integers(0, 9)) < 8:  # some queries of the run nobody judged
            judged = draw(st.lists(st.sampled_from(documents), min_size=1, max_size=6, unique=True))
            qrels[query] = {doc: draw(st.sampled_from([-1, 0, 0, 1, 2, 3])) for doc in judged}
        if draw(st.integers(0, 9)) < 8:  # some judged queries the run lacks
            retrieved = draw(st.lists(st.sampled_from(documents + unjudged), max_size=5, unique=True))
            tied = draw(st.booleans())
            scores = st.integers(0, 2).map(float) if tied else st.floats(-5, 5, allow_nan=False)
            run[query] = {doc: draw(scores) for doc in retrieved}
    if not qrels:
        qrels[queries[0]] = {documents[0]: 1}
    return {
        "qrels": qrels,
        "run": run,
        "route": draw(st.sampled_from(routes)),
        "ties": draw(st.sampled_from([None, None, "stable", "pessimistic", "optimistic", "average"])),
        "max_depth": draw(st.none() | st.integers(1, 4)),
        "level": draw(st.integers(0, 3)),
        "complete": draw(st.booleans()),
        "judged_only": draw(st.booleans()),
        "nan": draw(st.integers(0, 9)) == 0,
    }


def as_route(qrels, run, route):
    """The qrels and the run as dicts, or the run as a DataFrame or a Run, or both as files in Latin-1.

    Only a dict holds a query without documents.
    """
    if route == "dict":
        return qrels, run
    rows = [(query, doc, score) for query, documents in run.items() for doc, score in documents.items()]
    if route == "file":
        qrels_lines = "".join(f"{q} 0 {d} {r}\n" for q, docs in qrels.items() for d, r in docs.items())
        run_lines = "".join(f"{q} Q0 {d} 1 {s!r} tag\n" for q, d, s in rows)
        return io.BytesIO(qrels_lines.encode("latin-1")), io.BytesIO(run_lines.encode("latin-1"))
    if route == "frame":
        pd = pytest.importorskip("pandas")
        return qrels, pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    query_id, doc_id, score = (np.array(column) for column in zip(*rows, strict=True)) if rows else ([], [], [])
    return qrels, Run(np.asarray(query_id), np.asarray(doc_id), np.asarray(score, dtype=np.float64))


def as_written(query_id):
    """A query id as the reference names it: ids read from a file as bytes are Latin-1 text there."""
    if isinstance(query_id, bytes):
        return query_id.decode("latin-1")
    if isinstance(query_id, str) and any("\udc80" <= character <= "\udcff" for character in query_id):
        return query_id.encode("utf-8", "surrogateescape").decode("latin-1")  # decoded losslessly
    return str(query_id)


def raw_judgement(qrels, query, doc):
    """trec_eval's code of a retrieved document: its judgement, -2 if judged negative, -1 if not in the qrels."""
    judgement = qrels.get(query, {}).get(doc)
    return NONPOOL if judgement is None else UNJUDGED if judgement < 0 else judgement


def in_policy_order(qrels, query, documents, ties):
    """(doc, score) pairs in the order of a tie policy: trec_eval's, the input's or by judgement."""
    items = list(documents.items())
    if ties is None:
        return sorted(items, key=lambda item: (item[1], str(item[0])), reverse=True)
    judgement = {doc: raw_judgement(qrels, query, doc) for doc in documents}
    sign = {"pessimistic": 1, "optimistic": -1}.get(ties, 0)
    return sorted(items, key=lambda item: (-item[1], sign * judgement[item[0]]))  # stable: input order


def orderings(ranked):
    """Every ordering of the blocks of equal scores of a ranked list (one ordering when there is no tie)."""
    blocks = [list(block) for _, block in itertools.groupby(ranked, key=lambda item: item[1])]
    for choice in itertools.product(*(itertools.permutations(block) for block in blocks)):
        yield [item for block in choice for item in block]


def pytrec_values(qrels, run, measures, level, judged_only):
    """pytrec_eval's per-query values, relevance level 0 included (as level 1 on raised judgements)."""
    text_qrels = {str(q): {str(d): r for d, r in docs.items()} for q, docs in qrels.items()}
    raised = {q: {d: r + 1 if r >= 0 else r for d, r in docs.items()} for q, docs in text_qrels.items()}
    for judgements in (*text_qrels.values(), *raised.values()):
        # trec_eval allocates nothing for a query judged only negatively and pytrec_eval then corrupts its
        # heap; a judgement 0 of a document no run retrieves changes no measure of a query without relevant
        # documents, and spares it.
        if max(judgements.values()) < 0:
            judgements[UNRETRIEVED] = 0
    by_level, by_gain = {}, {}
    # pytrec_eval 0.5.11 crashes computing infAP and gm_bpref together on a query judged only negatively.
    for group in ({"infAP"} & set(measures), set(measures) - {"infAP"}):
        if group:
            binary = pytrec_eval.RelevanceEvaluator(
                raised if level == 0 else text_qrels, group, max(level, 1), judged_only
            )
            graded = pytrec_eval.RelevanceEvaluator(text_qrels, group, 1, judged_only)
            for values, evaluator in ((by_level, binary), (by_gain, graded)):
                for query, per_query in evaluator.evaluate(run).items():
                    values.setdefault(query, {}).update(per_query)
    per_query = {
        query: {name: (by_gain if name.startswith(GRADED) else by_level)[query][name] for name in values}
        for query, values in by_level.items()
    }
    for values in per_query.values():
        if "Rndcg" in values and values["num_rel"] == 0:  # trec_eval 10 (not 9) checks num_rel at the level
            values["Rndcg"] = 0.0
    return per_query


def reference(case, measures):
    """trec_eval's per-query values for the case, through pytrec_eval: {query id as str: {measure: value}}."""
    qrels, run, ties, depth = case["qrels"], case["run"], case["ties"], case["max_depth"]
    # A query answered with no document (pytrec_eval crashes on one) scores as trec_eval's bogus ranking.
    answered = {query: run[query] or {BOGUS: 1.0} for query in qrels if query in run}
    if case["complete"]:
        answered |= {query: {BOGUS: 1.0} for query in qrels if query not in run}
    per_query = {}
    for query, documents in answered.items():
        ranked = in_policy_order(qrels, query, documents, ties)
        candidates = list(orderings(ranked)) if ties == "average" else [ranked]
        runs = []
        for ordering in candidates:
            kept = ordering[:depth] if depth else ordering
            runs.append({str(query): {str(doc): float(len(kept) - i) for i, (doc, _) in enumerate(kept)}})
        values = [
            pytrec_values({query: qrels[query]}, one, measures, case["level"], case["judged_only"])[str(query)]
            for one in runs
        ]
        per_query[str(query)] = mean = {name: np.mean([value[name] for value in values]) for name in values[0]}
        for name in ("map", "bpref"):  # the geometric means take the log of each query's (averaged) value
            mean[f"gm_{name}"] = math.log(max(mean[name], 1e-5))
        if not run.get(query):  # trec_eval 10's clean-up after the bogus ranking
            per_query[str(query)].update(num_ret=0.0, utility=0.0)
    return per_query


def check_against_pytrec_eval(case):
    measures = sorted(PYTREC_MEASURES - STRICT if case["ties"] == "average" else PYTREC_MEASURES)
    run = {q: dict(docs) for q, docs in case["run"].items()}
    if case["nan"] and any(run.values()):
        query = next(q for q, docs in run.items() if docs)
        run[query][next(iter(run[query]))] = float("nan")
    if case["route"] != "dict":  # a DataFrame or a Run has no row for a query without documents
        run = {q: docs for q, docs in run.items() if docs}
    options = {
        "relevance_level": case["level"],
        "complete": case["complete"],
        "max_depth": case["max_depth"],
        "judged_only": case["judged_only"],
        "ties": case["ties"],
    }
    evaluated = set(case["qrels"]) & set(run) | (set(case["qrels"]) if case["complete"] else set())

    def evaluate(metrics, **more):
        return evaluate_run(*as_route(case["qrels"], run, case["route"]), metrics, **options, **more)

    if case["route"] == "file" and not any(run.values()):
        return  # an empty run file: the readers' tests
    if case["nan"] and any(run.values()):
        event("NaN refused")
        with pytest.raises(ValueError, match="NaN"):
            evaluate(measures)
        return
    if not run if case["route"] == "dict" else not any(run.values()):  # a dict {query: {}} answers the query
        if not case["complete"]:
            event("empty run refused")
            with pytest.raises(ValueError, match="the run is empty"):
                evaluate(measures)
            return
    if not evaluated:
        event("no query evaluated")
        with pytest.raises(ValueError, match="No queries with both results and relevance info"):
            evaluate(measures)
        return
    event(f"compared: ties={case['ties']}, max_depth={case['max_depth'] is not None}, level={case['level']}")
    ours = evaluate(measures, average=False)
    ours["qid"] = [as_written(query) for query in ours["qid"]]
    expected = reference({**case, "run": run}, measures)
    assert sorted(ours["qid"]) == sorted(expected) == sorted(map(str, evaluated))
    for name, values in ours.items():
        if name == "qid":
            continue
        # trec_eval divides 0 by 0 for iprec_at_recall and 11pt_avg when -J leaves a query no document;
        # evaluate_run scores 0 there (documented).
        wanted = np.nan_to_num(np.array([expected[query][name] for query in ours["qid"]]), nan=0.0)
        if name.startswith(("iprec_at_recall", "11pt_avg")):  # trec_eval 9 rounds x R otherwise
            same = np.array([same_cutoffs(expected[query]["num_rel"]) for query in ours["qid"]])
            values, wanted = values[same], wanted[same]
        np.testing.assert_allclose(values, wanted, rtol=1e-9, atol=1e-12, err_msg=name)
    means = evaluate(["map", "num_q", "num_rel"])
    assert means["num_q"] == len(evaluated)
    assert math.isclose(means["map"], float(np.mean(ours["map"])), rel_tol=1e-12, abs_tol=1e-15)


@settings(max_examples=120, deadline=None)
@given(case=collections())
def test_evaluate_run_matches_pytrec_eval_with_every_option(case):
    check_against_pytrec_eval(case)


@settings(max_examples=40, deadline=None)
@given(case=collections(ids="numeric"))
def test_evaluate_run_matches_pytrec_eval_with_numeric_ids(case):
    check_against_pytrec_eval(case)


@settings(max_examples=40, deadline=None)
@given(case=collections(ids="latin-1", routes=("file",)))
def test_evaluate_run_matches_pytrec_eval_with_non_utf8_ids_from_files(case):
    check_against_pytrec_eval(case)


@settings(max_examples=20, deadline=None)
@given(case=collections(ids="latin-1"))
def test_evaluate_run_matches_pytrec_eval_with_non_ascii_ids(case):
    check_against_pytrec_eval(case)


# ---- ties="average" with a max_depth that cuts a tie block: the mean over orderings of the cut ranking ---------

# Every measure that averages ties, with cutoffs around the depth, and the library's names.
AVERAGED = [
    *(name for name in MEASURES if name not in STRICT | {"runid", "relstring"}),
    *("P.1,2,3,5", "recall.1,2,3", "ndcg_cut.1,2,3,5", "map_cut.1,2,3,5", "success.1,2,3", "relative_P.1,3"),
    *("unj.1,2,3", "Rprec_mult.0.5,1,2", "set_F.0.5", "rbp.p=0.5", "rbp_resid.p=0.5", "ndcg.1=3,2=1"),
    *("nDCG@2", "nDCG", "AP", "AP@2", "AP@2(denominator='capped')", "RR", "RR@2", "P@2", "P", "R@2"),
    *("R@2(denominator='capped')", "Success@2", "rprec", "bpref", "err@2", "err", "dcg@2", "cg@3", "f1@2"),
    *("rbp(p=0.5)", "ndcg_exp@3"),
]


@st.composite
def cut_ties(draw):
    """A collection whose run ties often (scores 0, 1, 2), a max_depth, a level and judged_only."""
    qrels, run = {}, {}
    for query in ("q0", "q1"):
        documents = draw(
            st.lists(st.sampled_from(["a", "b", "c", "d", "e", "x", "y"]), min_size=1, max_size=5, unique=True)
        )
        run[query] = {doc: float(draw(st.integers(0, 2))) for doc in documents}
        judged = draw(st.lists(st.sampled_from(["a", "b", "c", "d", "u", "v"]), min_size=1, max_size=5, unique=True))
        qrels[query] = {doc: draw(st.sampled_from([-1, 0, 1, 2, 3])) for doc in judged}
    options = {
        "max_depth": draw(st.integers(1, 4)),
        "relevance_level": draw(st.integers(0, 3)),
        "judged_only": draw(st.booleans()),
    }
    return qrels, run, options


@settings(max_examples=30, deadline=None)
@given(case=cut_ties())
def test_average_with_a_cut_tie_block_is_the_mean_over_orderings_of_the_cut_ranking(case):
    """Issue 24, item 2: each measure, per query, against its mean over every ordering of the query's tie blocks,
    each cut at max_depth (and then judged_only) and evaluated in that order (ties="stable")."""
    qrels, run, options = case
    depth = options["max_depth"]
    cut = any(len(s) > depth and s[depth - 1] == s[depth] for s in (sorted(d.values())[::-1] for d in run.values()))
    event(f"a tie block cut: {cut}, judged_only: {options['judged_only']}")
    ours = evaluate_run(qrels, run, AVERAGED, ties="average", average=False, **options)
    for row, query in enumerate(ours["qid"]):
        ranked = in_policy_order(qrels, query, run[query], "stable")
        totals, count = {}, 0
        for ordering in orderings(ranked):
            one = {**run, query: {doc: float(len(ordering) - i) for i, (doc, _) in enumerate(ordering)}}
            values = evaluate_run(qrels, one, AVERAGED, ties="stable", average=False, **options)
            at = list(values["qid"]).index(query)
            for name, per_query in values.items():
                if name != "qid":
                    totals[name] = totals.get(name, 0.0) + float(per_query[at])
            count += 1
        means = {name: total / count for name, total in totals.items()}
        for name in ("map", "bpref"):  # the geometric means take the log of each query's (averaged) value
            means[f"gm_{name}"] = math.log(max(means[name], 1e-5))
        for name, mean in means.items():
            assert ours[name][row] == pytest.approx(mean, rel=1e-12, abs=1e-12), (query, name)
