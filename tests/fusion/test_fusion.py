"""fuse, fuse_scores and normalize: definitions checked by hand and by naive loops, ties, options and bad input."""

import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sklearn_rankmetrics.fusion import METHODS, NORMALIZATIONS, fuse, fuse_scores, normalize
from sklearn_rankmetrics.trec import Run, read_run


def as_dict(run):
    nested = {}
    for query, doc, score in zip(run.query_id, run.doc_id, run.score, strict=True):
        nested.setdefault(query, {})[doc] = float(score)
    return nested


BM25 = {"q1": {"d1": 12.0, "d2": 9.5, "d3": 7.0}, "q2": {"d7": 3.0, "d8": 1.0}}
DENSE = {"q1": {"d2": 0.91, "d4": 0.85, "d1": 0.40}, "q2": {"d8": 0.7}}


def test_rrf_is_cormack_et_al_2009():
    # RRF(d) = sum over the runs that retrieve d of 1 / (k + r(d)), ranks from 1 (Cormack, Clarke and Büttcher).
    fused = as_dict(fuse([BM25, DENSE], method="rrf", k=60))
    assert fused["q1"] == pytest.approx(
        {"d1": 1 / 61 + 1 / 63, "d2": 1 / 62 + 1 / 61, "d3": 1 / 63, "d4": 1 / 62}, rel=1e-15
    )
    assert fused["q2"] == pytest.approx({"d7": 1 / 61, "d8": 1 / 62 + 1 / 61}, rel=1e-15)


def test_the_fused_run_is_in_trec_eval_order():
    fused = fuse([BM25, DENSE])
    assert fused.query_id.tolist() == ["q1"] * 4 + ["q2"] * 2
    assert fused.doc_id.tolist() == ["d2", "d1", "d4", "d3", "d8", "d7"]
    assert fused.name == "rrf"
    tied = fuse([{"q": {"a": 1.0, "b": 1.0, "c": 1.0}}, {"q": {}}])
    assert tied.doc_id.tolist() == ["c", "b", "a"]  # equal fused scores: descending document id


def test_tied_documents_share_the_average_of_their_ranks():
    run = {"q": {"a": 5.0, "b": 3.0, "c": 3.0, "d": 1.0}}
    fused = as_dict(fuse([run, {"q": {}}], method="rrf", k=60))["q"]
    assert fused == pytest.approx({"a": 1 / 61, "b": 1 / 62.5, "c": 1 / 62.5, "d": 1 / 64}, rel=1e-15)
    borda = as_dict(fuse([run, {"q": {}}], method="bordafuse"))["q"]
    # 4 candidates: 4, 2.5, 2.5, 1 points, and (4 - 0 + 1) / 2 from the empty run.
    assert borda == pytest.approx({"a": 6.5, "b": 5.0, "c": 5.0, "d": 3.5})


def test_trec_eval_ties_rank_by_descending_document_id():
    run = {"q": {"a": 3.0, "c": 3.0, "b": 3.0}}
    fused = as_dict(fuse([run, {"q": {}}], method="rrf", k=0, ties="trec_eval"))["q"]
    assert fused == pytest.approx({"c": 1.0, "b": 1 / 2, "a": 1 / 3})


def shuffled(nested, rng):
    """The same dict of dicts, its queries and each query's documents in a random order."""
    queries = list(nested)
    out = {}
    for query in (queries[i] for i in rng.permutation(len(queries))):
        items = list(nested[query].items())
        out[query] = dict(items[i] for i in rng.permutation(len(items)))
    return out


@given(
    seed=st.integers(0, 2**32 - 1),
    method=st.sampled_from(
        sorted(set(METHODS) - {"mapfuse", "posfuse", "probfuse", "segfuse", "slidefuse", "bayesfuse"})
    ),
)
def test_average_ties_never_depend_on_the_input_order(seed, method):
    rng = np.random.default_rng(seed)
    runs = [
        {f"q{q}": {f"d{d}": float(rng.integers(0, 3)) for d in rng.choice(12, 8, replace=False)} for q in range(3)}
        for _ in range(3)
    ]
    expected = as_dict(fuse(runs, method=method, normalization="min-max"))
    again = as_dict(fuse([shuffled(run, rng) for run in runs], method=method, normalization="min-max"))
    assert again.keys() == expected.keys()
    for query in expected:
        assert again[query] == pytest.approx(expected[query], rel=1e-12, abs=1e-12)


@given(
    seed=st.integers(0, 2**32 - 1),
    method=st.sampled_from(["posfuse", "probfuse", "segfuse", "slidefuse", "bayesfuse", "mapfuse"]),
)
def test_learned_methods_with_average_ties_never_depend_on_the_input_order(seed, method):
    rng = np.random.default_rng(seed)
    runs = [
        {f"q{q}": {f"d{d}": float(rng.integers(0, 3)) for d in rng.choice(12, 8, replace=False)} for q in range(3)}
        for _ in range(2)
    ]
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(0, 2)) for d in range(12)} for q in range(3)}
    options = {"n_segments": 3} if method == "probfuse" else {}
    expected = as_dict(fuse(runs, method=method, qrels=qrels, **options))
    again = as_dict(fuse([shuffled(run, rng) for run in runs], method=method, qrels=shuffled(qrels, rng), **options))
    for query in expected:
        assert again[query] == pytest.approx(expected[query], rel=1e-12, abs=1e-12)


def naive_condorcet(runs, query, weights):
    """Copeland count by a double loop: N - losses - ties / 2, votes by rank, unretrieved below retrieved."""
    docs = sorted({d for run in runs for d in run.get(query, {})})
    ranks = []
    for run in runs:
        scores = run.get(query, {})
        ranks.append(
            {
                d: 1
                + sum(s > scores[d] for s in scores.values())
                + (sum(s == scores[d] for s in scores.values()) - 1) / 2
                for d in scores
            }
        )
    out = {}
    for d in docs:
        lost = tied = 0
        for e in docs:
            if e == d:
                continue
            margin = sum(
                w * (np.sign(r.get(e, np.inf) - r.get(d, np.inf)) if not (d not in r and e not in r) else 0)
                for w, r in zip(weights, ranks, strict=True)
            )
            lost += margin < 0
            tied += margin == 0
        out[d] = len(docs) - lost - tied / 2
    return out


@pytest.mark.parametrize("weights", [[1, 1, 1, 1], [0.5, 0.25, 1.0, 2.0]])
def test_condorcet_is_a_count_of_pairwise_majorities(weights):
    rng = np.random.default_rng(4)
    runs = [
        {f"q{q}": {f"d{d}": float(rng.integers(0, 4)) for d in rng.choice(15, 9, replace=False)} for q in range(4)}
        for _ in range(4)
    ]
    fused = as_dict(fuse(runs, method="w_condorcet", weights=weights))
    for query in fused:
        assert fused[query] == pytest.approx(naive_condorcet(runs, query, weights))


def test_inputs_of_every_kind_fuse_alike(tmp_path):
    path = tmp_path / "bm25.run"
    path.write_text(
        "q1 Q0 d1 1 12 bm25\nq1 Q0 d2 2 9.5 bm25\nq1 Q0 d3 3 7 bm25\nq2 Q0 d7 1 3 bm25\nq2 Q0 d8 2 1 bm25\n"
    )
    frame = pd.DataFrame(
        {"query_id": ["q1", "q1", "q1", "q2"], "doc_id": ["d2", "d4", "d1", "d8"], "score": [0.91, 0.85, 0.4, 0.7]}
    )
    expected = as_dict(fuse([BM25, DENSE], method="sum"))
    assert as_dict(fuse([str(path), frame], method="sum")) == expected
    assert as_dict(fuse({"bm25": read_run(path), "dense": DENSE}, method="sum")) == expected
    assert as_dict(fuse([io.BytesIO(path.read_bytes()), DENSE], method="sum")) == expected


def test_weights_multiply_each_runs_contribution():
    fused = as_dict(fuse({"bm25": BM25, "dense": DENSE}, method="rrf", weights={"dense": 2.0, "bm25": 0.5}))
    assert fused["q1"]["d1"] == pytest.approx(0.5 / 61 + 2 / 63)
    assert as_dict(fuse([BM25, DENSE], method="wsum", weights=[1, 2])) == as_dict(
        fuse([BM25, DENSE], method="sum", weights=[1, 2])
    )


def test_default_minimum_fills_the_runs_lowest_score():
    # Ma et al. 2021: a document one run lacks gets that run's lowest score of the query.
    fused = as_dict(fuse([BM25, DENSE], method="sum", missing="min"))["q1"]
    assert fused == pytest.approx({"d1": 12.4, "d2": 10.41, "d3": 7.0 + 0.40, "d4": 7.0 + 0.85})
    constant = as_dict(fuse([BM25, DENSE], method="mnz", missing=-1.0))["q1"]
    assert constant["d4"] == pytest.approx((0.85 - 1.0) * 2)


def test_a_callable_method_gets_the_scores_and_ranks_of_every_run():
    def best_rank(scores, ranks):
        return -np.nanmin(ranks, axis=1)

    fused = as_dict(fuse([BM25, DENSE], method=best_rank))["q1"]
    assert fused == {"d1": -1.0, "d2": -1.0, "d3": -3.0, "d4": -2.0}


def test_depth_and_name():
    fused = fuse([BM25, DENSE], depth=2, name="hybrid")
    assert fused.doc_id.tolist() == ["d2", "d1", "d8", "d7"]
    assert fused.name == "hybrid"


def test_fuse_scores_fuses_a_table_as_fuse_fuses_runs():
    rng = np.random.default_rng(5)
    scores = rng.normal(size=(30, 3))
    scores[rng.random(scores.shape) < 0.2] = np.nan
    qid = np.repeat([3, 1, 2], 10)
    runs = [
        {
            str(q): {f"d{row}": scores[row, run] for row in np.flatnonzero(qid == q) if not np.isnan(scores[row, run])}
            for q in (1, 2, 3)
        }
        for run in range(3)
    ]
    for method in ("rrf", "mnz", "condorcet", "bordafuse"):
        expected = as_dict(fuse(runs, method=method, normalization="zmuv"))
        fused = fuse_scores(scores, qid, method=method, normalization="zmuv")
        for row in range(30):
            if np.isnan(scores[row]).all():
                assert fused[row] == -np.inf
            else:
                assert fused[row] == pytest.approx(expected[str(qid[row])][f"d{row}"], rel=1e-12)


def test_normalize_keeps_the_rows_and_their_order():
    run = Run(np.array(["q2", "q1", "q2", "q1"]), np.array(["a", "b", "c", "d"]), np.array([1.0, 5.0, 3.0, 4.0]))
    normalized = normalize(run, "min-max")
    assert normalized.doc_id.tolist() == ["a", "b", "c", "d"]
    np.testing.assert_allclose(normalized.score, [0.0, 1.0, 1.0, 0.0])
    np.testing.assert_allclose(normalize(run, "rank").score, [0.5, 1.0, 1.0, 0.5])


def test_every_spelling_of_a_name_is_accepted():
    expected = as_dict(fuse([BM25, DENSE], method="mnz", normalization="min-max"))
    for method in ("CombMNZ", "comb_mnz", "comb-mnz", "MNZ", "combmnz"):
        for normalization in ("min_max", "MinMax", "min-max"):
            assert as_dict(fuse([BM25, DENSE], method=method, normalization=normalization)) == expected
    assert as_dict(fuse([BM25, DENSE], method="W-Sum")) == as_dict(fuse([BM25, DENSE], method="wsum"))
    assert set(NORMALIZATIONS) == {"min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda"}
    assert len(METHODS) == 25


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"method": "combsun"}, ValueError, "method='combsun' is not a known one.*Did you mean 'sum'"),
        ({"method": "rff"}, ValueError, "Did you mean 'rrf'"),
        ({"normalization": "minmx"}, ValueError, "Did you mean 'min-max'"),
        ({"method": 3}, TypeError, "method must be a str"),
        ({"method": "sum", "k": 10}, ValueError, "k=10 is a parameter of method 'rrf', not of 'sum'"),
        ({"k": -1}, ValueError, "k must satisfy k >= 0; got -1"),
        ({"method": "rbc", "phi": 1.5}, ValueError, "0 < phi < 1"),
        ({"weights": [1, 2, 3]}, ValueError, r"one number per run \(2\); got shape \(3,\)"),
        ({"weights": [1, np.nan]}, ValueError, "finite"),
        ({"ties": "random"}, ValueError, "ties must be one of"),
        ({"missing": "max"}, ValueError, "missing must be None"),
        ({"method": "probfuse"}, ValueError, "learns from training judgements: give qrels="),
        ({"qrels": {"q1": {"d1": 1}}}, ValueError, "learns nothing"),
        ({"depth": 0}, ValueError, "depth must be None or an integer >= 1"),
    ],
)
def test_bad_options_are_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        fuse([BM25, DENSE], **kwargs)


def test_bad_runs_are_named(tmp_path):
    with pytest.raises(ValueError, match="fusion needs at least 2"):
        fuse([BM25])
    with pytest.raises(TypeError, match="one run dict"):
        fuse(BM25)
    with pytest.raises(TypeError, match="single str"):
        fuse("a.run")
    with pytest.raises(ValueError, match="retrieves document 'd1' twice for query 'q1'"):
        fuse([Run(np.array(["q1", "q1"]), np.array(["d1", "d1"]), np.array([1.0, 2.0]), "x"), BM25])
    with pytest.raises(ValueError, match="give finite ones"):
        fuse([{"q1": {"d1": np.inf}}, BM25])
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d2 1\n")
    with pytest.raises(ValueError, match=r"bad.run, line 2"):
        fuse([str(bad), BM25])
    with pytest.raises(ValueError, match="qrels judge document 'd1' of query 'q1' twice"):
        fuse(
            [BM25, DENSE],
            method="posfuse",
            qrels=pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d1"], "relevance": [1, 0]}),
        )


def test_inputs_are_never_modified():
    runs = [{q: dict(d) for q, d in BM25.items()}, {q: dict(d) for q, d in DENSE.items()}]
    scores = np.array([[1.0, np.nan], [2.0, 3.0]])
    fuse(runs, method="sum", normalization="zmuv", missing="min")
    fuse_scores(scores, [1, 1], normalization="min-max")
    assert runs == [BM25, DENSE]
    np.testing.assert_array_equal(scores, [[1.0, np.nan], [2.0, 3.0]])


def test_fuse_scores_without_query_ids_fuses_the_rows_as_one_query():
    scores = np.array([[12.0, 0.40], [9.5, 0.91], [7.0, np.nan], [np.nan, 0.85]])
    np.testing.assert_array_equal(fuse_scores(scores, None), fuse_scores(scores, ["q"] * 4))


def test_fuse_scores_refuses_bad_tables():
    with pytest.raises(ValueError, match="scores must be 2-D"):
        fuse_scores(np.zeros(3), [1, 1, 1])
    with pytest.raises(ValueError, match=r"one query id per row of scores \(2\)"):
        fuse_scores(np.zeros((2, 2)), [1])
    with pytest.raises(ValueError, match="ties='trec_eval' breaks ties by document id"):
        fuse_scores(np.zeros((2, 2)), [1, 1], ties="trec_eval")
    with pytest.raises(ValueError, match="NaN where a run did not retrieve"):
        fuse_scores(np.array([[np.inf, 1.0]]), [1])


def test_documents_whose_hashes_collide_stay_apart(monkeypatch):
    import sklearn_rankmetrics.fusion._lists as lists_module

    expected = as_dict(fuse([BM25, DENSE], method="mnz"))
    monkeypatch.setattr(lists_module, "id_hash", lambda ids: np.zeros(len(ids), dtype=np.uint64))
    assert as_dict(fuse([BM25, DENSE], method="mnz")) == expected


def test_runs_without_any_document_fuse_to_an_empty_run():
    for normalization in (None, "zmuv", "borda"):
        fused = fuse([{}, {"q1": {}}], method="sum", normalization=normalization)
        assert (len(fused.query_id), len(fused.doc_id), len(fused.score)) == (0, 0, 0)


def test_a_score_that_is_not_finite_is_named_by_its_ids():
    with pytest.raises(ValueError, match=r"run 'run1' gives document 'd1' of query 'q1' the score inf"):
        fuse([BM25, {"q1": {"d1": np.inf}}])


def test_weights_that_are_not_numbers_are_named():
    with pytest.raises(TypeError, match="weights must be numbers, one per run"):
        fuse([BM25, DENSE], method="wsum", weights="ab")
    with pytest.raises(TypeError, match="weights must be numbers"):
        fuse([BM25, DENSE], method="wsum", weights=[1, "x"])


def test_a_run_of_an_unknown_kind_is_named_with_the_kinds_accepted():
    class RanxLikeRun:
        def to_dict(self):
            return BM25

    with pytest.raises(TypeError, match=r"run 1 of runs is a RanxLikeRun \(a ranx Run: pass run.to_dict\(\)\)"):
        fuse([BM25, RanxLikeRun()])
    with pytest.raises(TypeError, match="run 0 of runs is a int"):
        fuse([3, BM25])


def test_learning_from_qrels_that_judge_no_training_query_is_refused():
    with pytest.raises(ValueError, match="the qrels judge none of the queries of runs: 'posfuse' would learn"):
        fuse([BM25, DENSE], method="posfuse", qrels={"q9": {"d1": 1}})
    with pytest.raises(ValueError, match="none of the queries of train_runs"):
        fuse([BM25, DENSE], method="mapfuse", qrels={"q9": {"d1": 1}}, train_runs=[BM25, DENSE])


def test_the_fused_order_is_trec_eval_order_even_where_scores_differ_in_their_last_bits():
    from sklearn_rankmetrics.fusion._fuse import fused_order, sortable_ids
    from sklearn_rankmetrics.trec._judging import trec_order

    rng = np.random.default_rng(0)
    n = 3000
    query = np.sort(rng.integers(0, 5, n))
    base = rng.choice([0.5, -0.0, 0.0, 1e-300, -2.0], n)
    score = base + rng.choice([0.0, 1e-16, 2e-16], n) * np.abs(base)  # equal leading bits, different scores
    doc = np.array([f"d{i}".encode() for i in rng.permutation(n)])
    expected = trec_order(query, score, doc)[0]
    np.testing.assert_array_equal(fused_order(query, score, sortable_ids(doc)), expected)
    wide = doc.astype("S20")  # ids longer than 8 bytes sort as strings
    np.testing.assert_array_equal(fused_order(query, score, sortable_ids(wide.astype("S20"))), expected)


def test_ids_of_wide_numpy_strings_fuse_as_their_text():
    wide = Run(np.array(["q1", "q1"], dtype="U30"), np.array(["d1", "d2"], dtype="U40"), np.array([2.0, 1.0]), "a")
    fused = fuse([wide, BM25], method="sum")
    assert as_dict(fused)["q1"] == {"d1": 14.0, "d2": 10.5, "d3": 7.0}


def test_an_id_no_trec_file_can_hold_is_named_with_its_run():
    spaced = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d 5"], "score": [2.0, 1.0]})
    with pytest.raises(ValueError, match=r"run 1 of runs: the run's doc_id holds 'd 5', with whitespace"):
        fuse([BM25, spaced])


def test_a_document_listed_twice_is_found_in_any_run():
    twice = Run(np.array(["q1"] * 3), np.array(["d5", "d6", "d5"]), np.array([3.0, 2.0, 1.0]), "late")
    with pytest.raises(ValueError, match="run 'late' retrieves document 'd5' twice for query 'q1'"):
        fuse([BM25, DENSE, twice])
