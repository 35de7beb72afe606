"""The evaluation's shortcuts from files give exactly the values of the plain computation.

Rankings cut below each query's last judged document: when every measure
asked for is one of ``TAIL_FREE``, the evaluation ranks only the documents
down to each query's last judged one and counts the rest in num_ret. Asking
for ``unj`` too (which looks at every unjudged document) keeps the whole
rankings: the two evaluations of the other measures must be identical, on
runs listed by query and score (cut before ranking) and in any other order
(cut after), with every option. And the ids: hashed alike whatever the width
of their arrays (the Bloom filter that finds the judged documents), read as
their own bytes in a strided slice.
"""

import numpy as np
import pytest
import pytrec_eval

from sklearn_rankmetrics.trec import Run, _tails, evaluate_run
from sklearn_rankmetrics.trec._judging import id_hash, join
from sklearn_rankmetrics.trec._measures import MEASURES, TAIL_FREE
from sklearn_rankmetrics.trec._sources import as_qrels, as_run

# trec_eval's rbp is "rbp.p=0.9" in evaluate_run, whose "rbp" is the library's RBP (one meaning of the name).
TAIL_FREE_MEASURES = [*sorted(TAIL_FREE - {"runid", "rbp"}), "rbp.p=0.9"]


def random_collection(rng, *, sorted_run):
    """A qrels dict and a run dict: queries of up to 300 documents, few judged, rounded scores (ties)."""
    qrels, run = {}, {}
    for query in range(int(rng.integers(1, 6))):
        documents = [f"d{doc}" for doc in rng.choice(3000, int(rng.integers(1, 300)), replace=False)]
        scores = np.round(rng.normal(0, 1, len(documents)), int(rng.integers(0, 3)))
        pairs = list(zip(documents, scores.tolist(), strict=True))
        if sorted_run:
            pairs.sort(key=lambda pair: -pair[1])
        run[f"q{query}"] = dict(pairs)
        judged = rng.choice(3000, int(rng.integers(0, 10)), replace=False)
        qrels[f"q{query}"] = {f"d{doc}": int(rng.integers(-1, 4)) for doc in judged}
    qrels = {query: judgements for query, judgements in qrels.items() if judgements} or {"q0": {"d0": 1}}
    return qrels, run


def random_options(rng, trial):
    options = {
        "ties": [None, "stable", "pessimistic", "optimistic"][trial % 4],
        "relevance_level": int(rng.integers(0, 3)),
        "judged_only": bool(rng.random() < 0.3),
        "complete": bool(rng.random() < 0.3),
    }
    if rng.random() < 0.3:
        options["max_depth"] = int(rng.integers(1, 50))
    return options


@pytest.mark.parametrize("sorted_run", [True, False])
def test_cut_rankings_give_the_values_of_whole_ones(sorted_run):
    rng = np.random.default_rng(int(sorted_run))
    compared = 0
    for trial in range(60):
        qrels, run = random_collection(rng, sorted_run=sorted_run)
        options = random_options(rng, trial)
        try:
            cut = evaluate_run(qrels, run, TAIL_FREE_MEASURES, average=False, **options)
        except ValueError as error:  # nothing to evaluate: both say so
            with pytest.raises(ValueError, match="No queries"):
                evaluate_run(qrels, run, [*TAIL_FREE_MEASURES, "unj.5"], average=False, **options)
            assert "No queries" in str(error)
            continue
        whole = evaluate_run(qrels, run, [*TAIL_FREE_MEASURES, "unj.5"], average=False, **options)
        for name, values in cut.items():
            np.testing.assert_array_equal(values, whole[name], err_msg=f"{name} {options}")
        compared += 1
    assert compared > 40


def test_a_run_listed_by_query_and_score_is_cut_before_it_is_ranked(monkeypatch):
    rng = np.random.default_rng(0)
    qrels, run = random_collection(rng, sorted_run=True)
    cuts = []
    cut_before = _tails.down_to_last_judged_tie
    monkeypatch.setattr(
        "sklearn_rankmetrics.trec._judging.down_to_last_judged_tie",
        lambda *args: cuts.append(cut_before(*args)) or cuts[-1],
    )
    evaluation = join(as_qrels(qrels), as_run(run), tail_free=True)
    n_rows = sum(len(documents) for query, documents in run.items() if query in qrels)
    assert cuts and cuts[0] is not None and len(cuts[0]) < n_rows
    assert evaluation.parts[0].judged.ranking.n_rows < n_rows
    # num_ret counts every document retrieved all the same.
    num_ret = evaluate_run(qrels, run, ["num_ret"], average=False)["num_ret"]
    np.testing.assert_array_equal(num_ret, [len(run[query]) for query in sorted(qrels) if query in run])


def test_a_query_with_nothing_judged_retrieved_keeps_its_count():
    qrels = {"q1": {"d1": 1}, "q2": {"x": 1}}
    run = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d4": 2.0, "d5": 1.0}}
    cut = evaluate_run(qrels, run, ["num_ret", "P.5", "map"], average=False)
    assert cut["num_ret"].tolist() == [3, 2] and cut["P_5"].tolist() == [0.2, 0.0] and cut["map"].tolist() == [1, 0]


def run_of(query, rows):
    """A Run of one query's (document, score) rows, listed as given."""
    return Run(np.array([query] * len(rows)), np.array([doc for doc, _ in rows]), np.array([s for _, s in rows]))


def test_a_document_retrieved_twice_below_the_last_judged_one_is_still_refused():
    qrels = {"q1": {"d1": 1}}
    run_rows = [("d1", 5.0), ("d2", 4.0), ("d3", 3.0), ("d2", 2.0)]
    for measures in (["map"], ["map", "unj.5"]):  # cut or whole rankings
        with pytest.raises(ValueError, match="retrieves document 'd2' twice for query 'q1'"):
            evaluate_run(qrels, run_of("q1", run_rows), measures)
    # Below max_depth, trec_eval never sees the second one.
    assert evaluate_run(qrels, run_of("q1", run_rows), ["map"], max_depth=3) == {"map": 1.0}


def test_cut_rankings_from_files_match_trec_eval(tmp_path):
    # An MS MARCO-like collection written as files: a few relevant passages per query, most retrieved near
    # the top; trec_eval (through pytrec_eval) on the whole run, ours on the cut rankings.
    rng = np.random.default_rng(7)
    qrels, run = {}, {}
    for query in range(40):
        documents = [f"p{doc}" for doc in rng.choice(100_000, 200, replace=False)]
        relevant = [documents[min(int(rng.exponential(20)), 199)] for _ in range(int(rng.integers(1, 3)))]
        qrels[f"{query}"] = {doc: 1 for doc in relevant} | {f"p{rng.integers(10**6)}x": 1}
        scores = np.round(np.sort(rng.normal(20, 3, 200))[::-1], 2)
        run[f"{query}"] = dict(zip(documents, scores.tolist(), strict=True))
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {r}\n" for q, docs in qrels.items() for d, r in docs.items()))
    (tmp_path / "run").write_text(
        "".join(f"{q} Q0 {d} {i} {s} r\n" for q, docs in run.items() for i, (d, s) in enumerate(docs.items()))
    )
    ours = evaluate_run(tmp_path / "qrels", tmp_path / "run", ["official", "ndcg_cut.10"], average=False)
    names = {"map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "ndcg_cut_10", "num_ret"}
    reference = pytrec_eval.RelevanceEvaluator(qrels, names).evaluate(run)
    assert list(ours["qid"]) == sorted(reference)
    for name in ["map", "Rprec", "bpref", "recip_rank", "P_5", "P_1000", "iprec_at_recall_0.50", "ndcg_cut_10"]:
        np.testing.assert_allclose(ours[name], [reference[q][name] for q in ours["qid"]], rtol=1e-12, err_msg=name)
    np.testing.assert_array_equal(ours["num_ret"], [reference[q]["num_ret"] for q in ours["qid"]])


def test_the_measures_that_look_at_every_unjudged_document_are_not_tail_free():
    assert {"unj", "relstring", "rbp_resid"}.isdisjoint(TAIL_FREE) and TAIL_FREE <= set(MEASURES)
    # relstring shows the documents absent from the qrels, wherever the last judged one is.
    qrels = {"q1": {"d1": 1}}
    run = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    assert evaluate_run(qrels, run, ["relstring", "map"], average=False)["relstring"].tolist() == ["1--"]


def test_a_slice_of_ids_evaluates_as_its_copy():
    # Ids in a strided view (every other row of an array) read as their own bytes, not the array's.
    ids = np.array([b"d1", b"x", b"d2", b"x", b"d3", b"x"])
    run = Run(np.array([b"q1"] * 6)[::2], ids[::2], np.array([3.0, 2.0, 1.0]))
    qrels = {"q1": {"d1": 1, "d3": 1}}
    assert evaluate_run(qrels, run, ["map", "P.2"]) == evaluate_run(
        qrels, {"q1": {"d1": 3, "d2": 2, "d3": 1}}, ["map", "P.2"]
    )


def test_ids_hash_alike_whatever_the_width_of_their_arrays():
    rng = np.random.default_rng(0)
    ids = list({bytes(rng.integers(33, 256, size=int(rng.integers(1, 30))).astype(np.uint8)) for _ in range(3000)})
    hashes = id_hash(np.array(ids))
    for width in (30, 31, 40, 64, 65):
        np.testing.assert_array_equal(id_hash(np.array(ids, dtype=f"S{width}")), hashes)
    short = np.array([value[:7] for value in ids], dtype="S7")
    np.testing.assert_array_equal(id_hash(short), id_hash(short.astype("S25")))
    assert len(set(hashes.tolist())) == len(ids)


def test_a_judged_document_is_found_among_wider_ids():
    # The run's ids are wider than the qrels' (one long id): d1 is judged all the same.
    qrels = {"q1": {"d1": 1, "d2": 0}}
    run = {"q1": {"d1": 2.0, "x" * 20: 1.5, "d2": 1.0}}
    assert evaluate_run(qrels, run, ["map", "num_rel_ret", "bpref"]) == {"map": 1.0, "num_rel_ret": 1, "bpref": 1.0}
    qrels = {"q1": {"d1" + "0" * 30: 1}}
    run = {"q1": {"d1" + "0" * 30: 2.0, "d2": 1.0}}
    assert evaluate_run(qrels, run, ["map"]) == {"map": 1.0}


def test_a_run_whose_queries_interleave_is_cut_after_it_is_ranked(monkeypatch):
    # Rows of q1 and q2 alternate: not listed query by query, so the cut waits for the ranking.
    rng = np.random.default_rng(5)
    docs = [f"d{doc}" for doc in range(200)]
    query_id = np.array(["q1", "q2"] * 100)
    run = Run(query_id, np.array(docs), rng.normal(size=200).round(1))
    qrels = {"q1": {"d4": 1, "d50": 0}, "q2": {"d7": 2, "d101": 1}}
    cuts = []
    cut_before = _tails.down_to_last_judged_tie
    monkeypatch.setattr(
        "sklearn_rankmetrics.trec._judging.down_to_last_judged_tie", lambda *args: cuts.append(cut_before(*args))
    )
    cut = evaluate_run(qrels, run, TAIL_FREE_MEASURES, average=False)
    assert cuts == [None]
    whole = evaluate_run(qrels, run, [*TAIL_FREE_MEASURES, "unj.5"], average=False)
    for name, values in cut.items():
        np.testing.assert_array_equal(values, whole[name], err_msg=name)
