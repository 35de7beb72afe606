"""TREC evaluation against trec_eval itself, through pytrec_eval, on random collections."""

import gzip
import io
import itertools
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval

from sklearn_rankmetrics import (
    bpref_score,
    hit_rate_score,
    mean_average_precision_score,
    ndcg_score,
    r_precision_score,
    rank_biased_precision_score,
    ranking_report,
    recall_at_k_score,
)
from sklearn_rankmetrics.trec import Qrels, Run, evaluate_run, read_qrels, read_run
from sklearn_rankmetrics.trec._measures import MEASURES
from sklearn_rankmetrics.trec_eval import format_value, main

# Every measure pytrec_eval computes per query, except relstring (a string, checked apart).
PYTREC_MEASURES = {
    "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
    "iprec_at_recall", "P", "recall", "ndcg", "ndcg_cut", "map_cut", "success", "set_P", "set_recall", "set_F",
    "set_map", "set_relative_P", "relative_P", "Rprec_mult", "11pt_avg", "num_nonrel_judged_ret", "utility",
    "gm_bpref", "binG", "G", "infAP", "ndcg_rel", "Rndcg",
}  # fmt: skip
# trec_eval 10 rounds x R to the nearest integer for these; trec_eval 9 (inside pytrec_eval) added 0.9 and truncated.
ROUNDED = ("iprec_at_recall", "11pt_avg")


def collection(seed, n_queries=25, graded=True, tied=False):
    """Qrels and a run with everything trec_eval must handle.

    Relevant documents the run misses, retrieved documents nobody judged,
    judgements of -1 (pooled, unjudged), run queries without judgements,
    judged queries missing from the run, and (``tied``) many equal scores.
    """
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for query in range(n_queries):
        qid = f"q{query}"
        docs = [f"d{doc}" for doc in rng.choice(300, rng.integers(1, 40), replace=False)]
        if rng.random() < 0.9:
            levels = [0, 0, 1, 2, 3, -1] if graded else [0, 1]
            qrels[qid] = {doc: int(rng.choice(levels)) for doc in docs[: rng.integers(1, len(docs) + 1)]}
        if rng.random() < 0.85:
            pool = docs + [f"x{doc}" for doc in range(rng.integers(0, 20))]
            n_retrieved = rng.integers(1, len(pool) + 1)
            retrieved = rng.choice(pool, n_retrieved, replace=False)
            scores = rng.integers(0, 5, n_retrieved) if tied else rng.normal(size=n_retrieved).round(4)
            run[qid] = {doc: float(score) for doc, score in zip(retrieved, scores, strict=True)}
    return qrels, run


def same_cutoffs(n_relevant):
    """Whether trec_eval 9's and 10's rounding give the same cutoffs for every standard recall level."""
    levels = np.round(np.arange(11) / 10, 1)
    return all(math.floor(x * n_relevant + 0.5) == int(x * n_relevant + 0.9) for x in levels)


def assert_same_as_pytrec_eval(qrels, run, ours, reference, measures):
    assert sorted(reference) == list(ours["qid"])
    checked = 0
    for name, values in ours.items():
        if name == "qid":
            continue
        # trec_eval divides 0 by 0 for iprec_at_recall and 11pt_avg when -J leaves a query no document;
        # this library scores such a query 0, as every other measure does.
        expected = np.nan_to_num(np.array([reference[query][name] for query in ours["qid"]]), nan=0.0)
        if name.startswith(ROUNDED):
            comparable = np.array([same_cutoffs(reference[query]["num_rel"]) for query in ours["qid"]])
            values, expected = values[comparable], expected[comparable]
        np.testing.assert_allclose(values, expected, rtol=1e-12, atol=1e-12, err_msg=name)
        checked += 1
    assert checked >= len(measures)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("judged_only", [False, True])
def test_every_measure_matches_pytrec_eval(seed, level, judged_only):
    qrels, run = collection(seed, graded=seed % 2 == 0, tied=seed % 4 == 1)
    reference = pytrec_eval.RelevanceEvaluator(
        qrels, PYTREC_MEASURES, relevance_level=level, judged_docs_only_flag=judged_only
    ).evaluate(run)
    ours = evaluate_run(
        qrels, run, sorted(PYTREC_MEASURES), relevance_level=level, judged_only=judged_only, average=False
    )
    assert_same_as_pytrec_eval(qrels, run, ours, reference, PYTREC_MEASURES)


def trec_order(documents):
    """A query's documents as trec_eval ranks them: score descending, then document id descending."""
    return sorted(documents, key=lambda doc: (documents[doc], doc), reverse=True)


@pytest.mark.parametrize("depth", [1, 3, 10])
def test_max_depth_is_a_run_cut_to_that_depth(depth):
    qrels, run = collection(3, tied=True)
    cut = {query: {doc: docs[doc] for doc in trec_order(docs)[:depth]} for query, docs in run.items()}
    reference = pytrec_eval.RelevanceEvaluator(qrels, PYTREC_MEASURES).evaluate(cut)
    ours = evaluate_run(qrels, run, sorted(PYTREC_MEASURES), max_depth=depth, average=False)
    assert_same_as_pytrec_eval(qrels, cut, ours, reference, PYTREC_MEASURES)


def test_complete_scores_the_missing_queries_as_empty_rankings():
    qrels, run = collection(5)
    missing = sorted(set(qrels) - set(run))
    assert missing
    partial = evaluate_run(qrels, run, ["map", "num_rel", "num_q", "gm_map", "P.5"], average=False)
    complete = evaluate_run(qrels, run, ["map", "num_rel", "num_q", "gm_map", "P.5"], complete=True, average=False)
    assert sorted(complete["qid"]) == sorted(qrels)
    lacking = np.isin(complete["qid"], missing)
    assert (complete["map"][lacking] == 0).all() and (complete["P_5"][lacking] == 0).all()
    np.testing.assert_array_equal(
        complete["num_rel"][lacking], [sum(v >= 1 for v in qrels[q].values()) for q in missing]
    )
    means = evaluate_run(qrels, run, ["map", "num_q", "gm_map"], complete=True)
    assert means["num_q"] == len(qrels)
    assert means["map"] == pytest.approx(partial["map"].sum() / len(qrels), rel=1e-12)
    # gm_map: each missing query contributes trec_eval's floor, 1e-5.
    logs = np.concatenate((partial["gm_map"], np.full(len(missing), np.log(1e-5))))
    assert means["gm_map"] == pytest.approx(np.exp(logs.mean()), rel=1e-12)


def write_collection(qrels, run, directory, compress):
    suffix = ".gz" if compress else ""
    opener = gzip.open if compress else open
    qrels_path, run_path = directory / f"qrels{suffix}", directory / f"run{suffix}"
    with opener(qrels_path, "wt") as file:
        for query, docs in qrels.items():
            file.writelines(f"{query} 0 {doc} {rel}\n" for doc, rel in docs.items())
    with opener(run_path, "wt") as file:
        for query, docs in run.items():
            for rank, doc in enumerate(trec_order(docs), start=1):
                file.write(f"{query}\tQ0\t{doc}\t{rank}\t{docs[doc]!r}\tmy_run\n")
    return qrels_path, run_path


@pytest.mark.parametrize("compress", [False, True])
def test_files_paths_and_file_objects_equal_the_dicts(tmp_path, compress):
    qrels, run = collection(7, tied=True)
    qrels_path, run_path = write_collection(qrels, run, tmp_path, compress)
    expected = evaluate_run(qrels, run, ["official", "ndcg_cut.10"], average=False)
    from_paths = evaluate_run(qrels_path, run_path, ["official", "ndcg_cut.10"], average=False)
    with open(qrels_path, "rb") as qrels_file, open(run_path, "rb") as run_file:
        from_files = evaluate_run(qrels_file, run_file, ["official", "ndcg_cut.10"], average=False)
    for result in (from_paths, from_files):
        assert result.keys() == expected.keys()
        for name in expected:
            np.testing.assert_array_equal(result[name], expected[name], err_msg=name)
    assert read_run(run_path).name == "my_run"


def test_dataframes_with_ir_measures_columns():
    pd = pytest.importorskip("pandas")
    qrels, run = collection(9)
    qrels_frame = pd.DataFrame(
        [(q, d, r) for q, docs in qrels.items() for d, r in docs.items()], columns=["query_id", "doc_id", "relevance"]
    )
    run_frame = pd.DataFrame(
        [(q, d, s) for q, docs in run.items() for d, s in docs.items()], columns=["query_id", "doc_id", "score"]
    )
    assert evaluate_run(qrels_frame, run_frame, ["map", "ndcg"]) == evaluate_run(qrels, run, ["map", "ndcg"])
    with pytest.raises(ValueError, match="missing: relevance"):
        evaluate_run(qrels_frame.drop(columns="relevance"), run_frame)


def test_command_prints_pytrec_eval_values_line_by_line(tmp_path, capsys):
    qrels, run = collection(11, tied=True)
    qrels_path, run_path = write_collection(qrels, run, tmp_path, compress=False)
    measures = ["map", "P.5,10", "ndcg_cut.10", "recip_rank", "num_ret", "bpref"]
    assert main(["-q", *[arg for m in measures for arg in ("-m", m)], str(qrels_path), str(run_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    reference = pytrec_eval.RelevanceEvaluator(
        qrels, {"map", "P_5", "P_10", "ndcg_cut_10", "recip_rank", "num_ret", "bpref"}
    ).evaluate(run)
    seen = set()
    for line in lines:
        name, query, value = line.split("\t")
        assert len(name) == 22 and name == name.strip().ljust(22)
        name = name.strip()
        if query == "all":
            continue
        expected = reference[query][name]
        assert value == (str(int(expected)) if name == "num_ret" else f"{expected:6.4f}"), line
        seen.add((name, query))
    assert len(seen) == len(reference) * 7
    summary = {line.split("\t")[0].strip(): line.split("\t")[2] for line in lines if "\tall\t" in line}
    assert summary["map"] == f"{np.mean([values['map'] for values in reference.values()]):6.4f}"
    assert summary["num_ret"] == str(sum(int(values["num_ret"]) for values in reference.values()))
    # trec_eval's order, not the order of -m
    assert list(summary) == ["num_ret", "map", "bpref", "recip_rank", "P_5", "P_10", "ndcg_cut_10"]


def test_command_defaults_to_the_official_measures_and_prints_the_runid(tmp_path, capsys):
    qrels, run = collection(12)
    qrels_path, run_path = write_collection(qrels, run, tmp_path, compress=True)
    assert main([str(qrels_path), str(run_path)]) == 0
    names = [line.split("\t")[0].strip() for line in capsys.readouterr().out.splitlines()]
    assert names[:6] == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map"]
    assert names[-1] == "P_1000" and "iprec_at_recall_0.50" in names


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("q1 Q0 d1 1 0.5 run\nq1 Q0 d2 2\n", r"run, line 2: expected at least 6 columns"),
        ("q1 Q0 d1 1 0.5 run\nq1 Q0 d2 2 high run\n", r"run, line 2: the score column must be a number; got 'high'"),
        ("q1 Q0 d1 1 nan run\n", r"run, line 1: the score is NaN"),
        ("q1 Q0 d1 1 0.5 run\nq1 Q0 d1 2 0.4 run\n", r"retrieves document 'd1' twice for query 'q1'"),
    ],
)
def test_bad_runs_name_the_file_and_line(tmp_path, content, message):
    (tmp_path / "run").write_text(content)
    (tmp_path / "qrels").write_text("q1 0 d1 1\n")
    with pytest.raises(ValueError, match=message):
        evaluate_run(tmp_path / "qrels", tmp_path / "run")


def test_bad_qrels_name_the_file_and_line(tmp_path):
    (tmp_path / "qrels").write_text("q1 0 d1 1\n# a comment\nq1 0 d2 x\n")
    with pytest.raises(ValueError, match=r"qrels, line 3: the relevance column must be an integer; got 'x'"):
        read_qrels(tmp_path / "qrels")
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d1 0\n")
    with pytest.raises(ValueError, match="judge document 'd1' of query 'q1' twice"):
        evaluate_run(tmp_path / "qrels", {"q1": {"d1": 1.0}})


def test_command_reports_errors_without_a_traceback(tmp_path, capsys):
    (tmp_path / "qrels").write_text("q1 0 d1\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 0.5 run\n")
    assert main([str(tmp_path / "qrels"), str(tmp_path / "run")]) == 1
    assert "qrels, line 1: expected the 4 columns" in capsys.readouterr().err


def test_comments_blank_lines_and_text_after_the_tag_are_ignored_as_by_trec_eval():
    run = read_run(io.StringIO("# header\nq1 Q0 d1 1 0.5 tag trailing words\n\n  q1\tQ0  d2 2 0.25 tag\n"))
    assert list(run.doc_id) == ["d1", "d2"] and list(run.score) == [0.5, 0.25] and run.name == "tag"


# ---- measures pytrec_eval lacks, on hand-computed examples -----------------------------------


def test_rbp_and_its_residual_by_hand():
    qrels = {"q": {"a": 1, "b": 0, "c": 2, "z": 1}}
    run = {"q": {"a": 4.0, "u": 3.0, "c": 2.0, "b": 1.0}}  # u is unjudged
    result = evaluate_run(qrels, run, ["rbp.p=0.5", "rbp_resid.p=0.5", "unj.1,2,5"])
    # Gains scaled by the largest judgement, 2: a = 1/2, c = 1. RBP = 0.5 (0.5 + 0.25 * 1).
    assert result["rbp_p=0.5"] == pytest.approx(0.5 * (0.5 + 0.25))
    # Residual: 0.5**4 past the list, plus 0.5 * 0.5**1 for the unjudged document at rank 2.
    assert result["rbp_resid_p=0.5"] == pytest.approx(0.5**4 + 0.5 * 0.5)
    assert result["unj_1"] == 0 and result["unj_2"] == 0.5 and result["unj_5"] == pytest.approx(1 / 5)


def test_library_names_work_in_evaluate_run():
    qrels, run = collection(4)
    result = evaluate_run(qrels, run, ["nDCG@10", "AP", "RR", "R@100", "Success@5", "RBP(p=0.8)", "P_10"])
    trec = evaluate_run(qrels, run, ["ndcg_cut.10", "map", "recip_rank", "recall.100", "success.5", "P.10"])
    assert result["nDCG@10"] == pytest.approx(trec["ndcg_cut_10"], rel=1e-12)
    assert result["AP"] == pytest.approx(trec["map"], rel=1e-12)
    assert result["RR"] == pytest.approx(trec["recip_rank"], rel=1e-12)
    assert result["R@100"] == pytest.approx(trec["recall_100"], rel=1e-12)
    assert result["Success@5"] == pytest.approx(trec["success_5"], rel=1e-12)
    assert result["P_10"] == pytest.approx(trec["P_10"], rel=1e-12)


@pytest.mark.parametrize("name", ["P_IA@10", "nNRBP", "alpha_nDCG@10"])
def test_intent_aware_names_say_evaluate_run_has_no_subtopic_judgements(name):
    # They need an (n_samples, n_subtopics) judgement matrix: the message says so and names the call that works.
    qrels, run = collection(4)
    with pytest.raises(ValueError, match=r"is an intent-aware measure: it needs an \(n_samples, n_subtopics\)"):
        evaluate_run(qrels, run, [name])
    with pytest.raises(ValueError, match=r"subtopic qrels are not read.*with y_true the judgement matrix"):
        evaluate_run(qrels, run, [name])


# ---- the "not retrieved" convention of the metric functions -----------------------------------


def as_rows(qrels, run):
    """One row per judged or retrieved document: labels, scores (-inf: judged, not retrieved), query ids, judged."""
    rows = []
    for query in sorted(set(qrels) & set(run)):
        judged, retrieved = qrels[query], run[query]
        for doc in sorted(set(judged) | set(retrieved)):
            rows.append((query, max(judged.get(doc, 0), 0), retrieved.get(doc, -np.inf), doc in judged))
    qid, y_true, y_score, is_judged = zip(*rows, strict=True)
    return np.array(y_true, dtype=float), np.array(y_score), np.array(qid), np.array(is_judged)


@pytest.mark.parametrize("seed", range(4))
def test_minus_inf_rows_reproduce_trec_eval(seed):
    qrels, run = collection(seed, graded=False)
    qrels = {q: {d: r for d, r in docs.items() if r >= 0} for q, docs in qrels.items()}
    y_true, y_score, qid, judged = as_rows(qrels, run)
    reference = pytrec_eval.RelevanceEvaluator(
        qrels, {"map", "ndcg", "ndcg_cut_5", "recall_10", "Rprec", "success_5", "bpref", "map_cut_10"}
    ).evaluate(run)
    queries = sorted(set(qrels) & set(run))

    def expected(name):
        return np.array([reference[query][name] for query in queries])

    order = np.random.default_rng(seed).permutation(len(qid))  # any row order must do
    y_true, y_score, qid, judged = y_true[order], y_score[order], qid[order], judged[order]
    options = {"qid": qid, "ties": "stable", "average": False}
    # Scores are distinct per query here (random normals), so any tie policy agrees with trec_eval.
    np.testing.assert_allclose(mean_average_precision_score(y_true, y_score, **options), expected("map"), rtol=1e-12)
    np.testing.assert_allclose(
        mean_average_precision_score(y_true, y_score, k=10, **options), expected("map_cut_10"), rtol=1e-12
    )
    np.testing.assert_allclose(ndcg_score(y_true, y_score, **options), expected("ndcg"), rtol=1e-12)
    np.testing.assert_allclose(ndcg_score(y_true, y_score, k=5, **options), expected("ndcg_cut_5"), rtol=1e-12)
    np.testing.assert_allclose(recall_at_k_score(y_true, y_score, k=10, **options), expected("recall_10"), rtol=1e-12)
    np.testing.assert_allclose(r_precision_score(y_true, y_score, **options), expected("Rprec"), rtol=1e-12)
    np.testing.assert_allclose(hit_rate_score(y_true, y_score, k=5, **options), expected("success_5"), rtol=1e-12)
    np.testing.assert_allclose(bpref_score(y_true, y_score, judged=judged, **options), expected("bpref"), rtol=1e-12)
    report = ranking_report(y_true, y_score, qid=qid, metrics=["map", "ndcg_cut_5", "recall_10"], average=False)
    np.testing.assert_allclose(report["map"], expected("map"), rtol=1e-12)
    np.testing.assert_allclose(report["ndcg_cut_5"], expected("ndcg_cut_5"), rtol=1e-12)
    np.testing.assert_allclose(report["recall_10"], expected("recall_10"), rtol=1e-12)


def test_a_query_that_retrieved_nothing_scores_zero_not_zero_division():
    y_true, y_score = [1, 0, 1, 1], [-np.inf, -np.inf, 2.0, 1.0]
    values = mean_average_precision_score(y_true, y_score, qid=[0, 0, 1, 1], average=False, zero_division=np.nan)
    np.testing.assert_array_equal(values, [0.0, 1.0])


def test_minus_inf_masks_seen_items_in_the_2d_layout():
    y_true = np.array([[1, 0, 1, 0], [0, 1, 0, 0]], dtype=float)
    y_score = np.array([[0.9, -np.inf, 0.1, 0.5], [0.2, 0.3, -np.inf, 0.1]])
    grouped = ndcg_score(y_true.ravel(), y_score.ravel(), qid=np.repeat([0, 1], 4), k=2, average=False)
    np.testing.assert_allclose(ndcg_score(y_true, y_score, k=2, average=False), grouped, rtol=1e-15)
    np.testing.assert_allclose(grouped, [1.0 / (1.0 + 1 / np.log2(3)), 1.0])


def test_plus_inf_and_nan_scores_stay_errors():
    with pytest.raises(ValueError, match=r"contains \+inf.*-inf for a judged document that was not retrieved"):
        ndcg_score([1, 0], [np.inf, 0.0])
    with pytest.raises(ValueError, match="contains NaN"):
        ndcg_score([1, 0], [np.nan, 0.0])


def test_rank_biased_precision_by_hand_with_residual():
    y_true, y_score = [1, 0, 1, 0], [4, 3, 2, 1]
    judged = np.array([True, False, True, True])
    score, residual = rank_biased_precision_score(y_true, y_score, p=0.5, judged=judged, return_residual=True)
    assert score == pytest.approx(0.5 * (1 + 0.25))
    assert residual == pytest.approx(0.5**4 + 0.5 * 0.5)


@pytest.mark.parametrize("k", [None, 2, 3, 5])
def test_rbp_residual_averages_tied_scores_over_their_orderings(k):
    # The residual weighed each unjudged document of a tie block by its input row's rank.
    y_true = np.array([1, 0, 0, 1, 0, 0])
    y_score = np.array([3.0, 2.0, 2.0, 2.0, 1.0, 1.0])
    judged = np.array([True, False, True, True, False, True])
    options = {"p": 0.5, "k": k, "return_residual": True}
    blocks = [np.flatnonzero(y_score == score) for score in (3.0, 2.0, 1.0)]
    residuals = []
    for ordering in itertools.product(*(itertools.permutations(block) for block in blocks)):
        rows = np.concatenate(ordering)
        distinct = np.arange(len(rows), 0, -1.0)  # the rows in this order, no tie left
        residuals.append(rank_biased_precision_score(y_true[rows], distinct, judged=judged[rows], **options)[1])
    for rows in (np.arange(6), np.arange(6)[::-1]):  # whatever the input order of the tied rows
        residual = rank_biased_precision_score(y_true[rows], y_score[rows], judged=judged[rows], **options)[1]
        assert residual == pytest.approx(np.mean(residuals), rel=1e-12)


def test_relstring_shows_the_judgements_of_the_top_documents(tmp_path, capsys):
    qrels = {"q": {"a": 2, "b": 0, "c": -1, "d": 12}}
    run = {"q": {"a": 5.0, "x": 4.0, "c": 3.0, "b": 2.0, "d": 1.0}}
    assert list(evaluate_run(qrels, run, ["relstring.4"], average=False)["relstring_4"]) == ["2-.0"]
    assert "relstring" not in evaluate_run(qrels, run, ["relstring", "map"])  # per query only
    qrels_path, run_path = write_collection(qrels, run, tmp_path, compress=False)
    assert main(["-q", "-m", "relstring", str(qrels_path), str(run_path)]) == 0
    assert capsys.readouterr().out == f"{'relstring':<22}\tq\t'2-.0>'\n"


def test_library_tie_policies_in_evaluate_run():
    qrels, run = collection(2)  # scores are distinct within each query
    measures = ["map", "ndcg_cut.10", "P.5", "recip_rank", "bpref", "Rprec"]
    trec_order = evaluate_run(qrels, run, measures)
    for ties in ("average", "stable", "pessimistic"):
        assert evaluate_run(qrels, run, measures, ties=ties) == pytest.approx(trec_order, rel=1e-12)
    tied_qrels, tied_run = collection(1, tied=True)
    averaged = evaluate_run(tied_qrels, tied_run, ["map"], ties="average")["map"]
    low = evaluate_run(tied_qrels, tied_run, ["map"], ties="pessimistic")["map"]
    high = evaluate_run(tied_qrels, tied_run, ["map"], ties="optimistic")["map"]
    assert low <= averaged <= high
    with pytest.raises(ValueError, match="infAP is defined on one ordering"):
        evaluate_run(tied_qrels, tied_run, ["infAP"], ties="average")


def test_a_query_scores_the_same_alone_and_among_thousands():
    # Running sums restart inside each query: no rounding carried over from the queries before it.
    rng = np.random.default_rng(0)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 4)) for j in range(30)} for i in range(2000)}
    run = {query: {doc: float(rng.normal()) for doc in docs} for query, docs in qrels.items()}
    measures = ["G", "ndcg_rel", "Rndcg", "ndcg", "map", "infAP"]
    everyone = evaluate_run(qrels, run, measures, average=False)
    row = list(everyone["qid"]).index("q1999")
    alone = evaluate_run({"q1999": qrels["q1999"]}, {"q1999": run["q1999"]}, measures, average=False)
    for name in measures:
        assert everyone[name][row] == alone[name][0], name


# ---- issue 24: edges of evaluate_run and of the command -----------------------------------------

# The example: d is judged 0, x is not judged, a is relevant at level 1 only, b and c at level 2.
LEVELS_QRELS = {"q1": {"a": 1, "b": 2, "c": 2, "d": 0}}
LEVELS_RUN = {"q1": {"a": 3.0, "b": 2.0, "x": 1.5, "c": 1.0}}


def test_library_names_take_the_relevance_level_of_the_trec_measures(tmp_path, capsys):
    library = ["AP", "RR", "P@2", "R@3", "Success@1", "rprec", "BPREF"]
    trec = ["map", "recip_rank", "P.2", "recall.3", "success.1", "Rprec", "bpref"]
    for level in (0, 1, 2):
        ours = evaluate_run(LEVELS_QRELS, LEVELS_RUN, library, relevance_level=level)
        expected = evaluate_run(LEVELS_QRELS, LEVELS_RUN, trec, relevance_level=level)
        assert list(ours.values()) == pytest.approx(list(expected.values()), rel=1e-15), level
    at_two = evaluate_run(LEVELS_QRELS, LEVELS_RUN, ["AP", "RR", "P@2"], relevance_level=2)
    assert at_two == {"AP": 0.5, "RR": 0.5, "P@2": 0.5}
    # A threshold the name sets itself, or graded gains, keep their meaning.
    assert evaluate_run(LEVELS_QRELS, LEVELS_RUN, ["AP(relevance_threshold=1)"], relevance_level=2)[
        "AP(relevance_threshold=1)"
    ] == pytest.approx((1 + 1 + 3 / 4) / 3)
    qrels_path, run_path = write_collection(LEVELS_QRELS, LEVELS_RUN, tmp_path, compress=False)
    assert main(["-l", "2", "-m", "AP", "-m", "map", "-m", "P@2", str(qrels_path), str(run_path)]) == 0
    assert capsys.readouterr().out.split() == ["map", "all", "0.5000", "AP", "all", "0.5000", "P@2", "all", "0.5000"]


def test_relevance_level_zero_makes_every_judged_document_relevant(tmp_path, capsys):
    # trec_eval 10 -l 0 on these files: map 0.6875, P_2 1.0000 (a, b, c and d relevant; x is not judged).
    result = evaluate_run(
        LEVELS_QRELS, LEVELS_RUN, ["map", "P.2", "num_rel", "num_rel_ret", "bpref"], relevance_level=0
    )
    assert result == {"map": 0.6875, "P_2": 1.0, "num_rel": 4, "num_rel_ret": 3, "bpref": 0.75}
    qrels_path, run_path = write_collection(LEVELS_QRELS, LEVELS_RUN, tmp_path, compress=False)
    assert main(["-l", "0", "-m", "map", "-m", "P.2", str(qrels_path), str(run_path)]) == 0
    assert capsys.readouterr().out == f"{'map':<22}\tall\t0.6875\n{'P_2':<22}\tall\t1.0000\n"
    with pytest.raises(ValueError, match="relevance_level must be an integer >= 0; got -1"):
        evaluate_run(LEVELS_QRELS, LEVELS_RUN, relevance_level=-1)
    with pytest.raises(TypeError, match="relevance_level must be an integer"):
        evaluate_run(LEVELS_QRELS, LEVELS_RUN, relevance_level=1.5)


@pytest.mark.parametrize(("ties", "expected"), [("average", 0.5), ("pessimistic", 0.0), ("optimistic", 1.0)])
@pytest.mark.parametrize("relevant_first", [True, False])
def test_max_depth_cuts_after_the_tie_policy(ties, expected, relevant_first):
    qrels = {"q": {"r": 1, "n": 0}}
    tied = {"r": 1.0, "n": 1.0} if relevant_first else {"n": 1.0, "r": 1.0}
    run = {"q": {"top": 2.0, **tied}}
    # The tie sits at ranks 2 and 3; max_depth=3 keeps both, then the policy orders them.
    assert evaluate_run(qrels, run, ["P.2"], ties=ties, max_depth=3) == {"P_2": pytest.approx(expected / 2)}
    # The tie straddles the depth: P@1 is 0.5 / 0 / 1 whatever the row order (issue 24, item 2).
    result = evaluate_run(qrels, {"q": tied}, ["P.1", "num_ret", "num_rel_ret"], ties=ties, max_depth=1)
    assert result == {"P_1": expected, "num_ret": 1, "num_rel_ret": expected}


def test_command_writes_ids_as_the_files_bytes_whatever_the_encoding_of_stdout(tmp_path, monkeypatch):
    # A qid and a run tag that are not UTF-8 (Latin-1 "café"): printed as surrogate escapes, they raised
    # UnicodeEncodeError where stdout encodes strictly (PYTHONIOENCODING=ascii, a pipe in the C locale).
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_bytes(b"caf\xe9 0 d1 1\nq2 0 d1 1\n")
    run_path.write_bytes(b"caf\xe9 Q0 d1 1 2.0 r\xfcn\nq2 Q0 d2 1 1.0 r\xfcn\n")
    expected = [
        b"map                   \tcaf\xe9\t1.0000",
        b"map                   \tq2\t0.0000",
        b"runid                 \tall\tr\xfcn",
        b"map                   \tall\t0.5000",
    ]
    arguments = ["-q", "-m", "map", "-m", "runid", str(qrels_path), str(run_path)]
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="strict")
    monkeypatch.setattr(sys, "stdout", stdout)
    assert main(arguments) == 0
    assert stdout.buffer.getvalue().splitlines() == expected
    monkeypatch.undo()
    command = [sys.executable, "-m", "sklearn_rankmetrics.trec_eval", *arguments]
    environment = {**os.environ, "PYTHONIOENCODING": "ascii", "PYTHONPATH": str(Path(__file__).parents[2])}
    finished = subprocess.run(command, capture_output=True, env=environment, check=False)
    assert (finished.returncode, finished.stderr) == (0, b"")
    assert finished.stdout.splitlines() == expected


def test_expected_counts_are_reported_as_fractions_and_printed_as_means():
    # Two queries, each a tie of a relevant and a non-relevant document cut at depth 1: half a document each.
    qrels = {"q1": {"r": 1, "n": 0}, "q2": {"r": 1, "n": 0}}
    run = {"q1": {"r": 1.0, "n": 1.0}, "q2": {"r": 1.0, "n": 1.0, "x": 0.5}}
    counts = ["num_ret", "num_rel_ret", "num_nonrel_judged_ret"]
    assert evaluate_run(qrels, run, counts, ties="average", max_depth=1) == {
        "num_ret": 2,
        "num_rel_ret": 1,
        "num_nonrel_judged_ret": 1,
    }
    per_query = evaluate_run(qrels, {"q1": run["q1"]}, counts, ties="average", max_depth=1, average=False)
    assert per_query["num_rel_ret"].tolist() == [0.5]
    assert evaluate_run(qrels, {"q1": run["q1"]}, counts, ties="average", max_depth=1)["num_rel_ret"] == 0.5
    assert format_value(MEASURES["num_rel_ret"], 0.5) == "0.5000"
    assert format_value(MEASURES["num_rel_ret"], 3.0) == "3"


def test_ties_average_averages_every_measure_over_the_orderings():
    # unj, rbp_resid (row positions) followed the input order of tied scores; relstring shows one order.
    qrels = {"q": {"a": 1, "b": 0}}
    tied = ["a", "u", "b", "v"]  # u and v are unjudged
    measures = ["unj.1,2,3", "rbp_resid.p=0.5", "rbp.p=0.5", "bpref", "P.1", "map", "ndcg_cut.2", "recip_rank"]
    orderings = list(itertools.permutations(tied))
    per_ordering = [
        evaluate_run(qrels, {"q": dict.fromkeys(order, 1.0)}, measures, ties="stable") for order in orderings
    ]
    averaged = evaluate_run(qrels, {"q": dict.fromkeys(tied, 1.0)}, measures, ties="average")
    for name, value in averaged.items():
        assert value == pytest.approx(np.mean([result[name] for result in per_ordering]), rel=1e-12), name
    with pytest.raises(ValueError, match="relstring is defined on one ordering"):
        evaluate_run(qrels, {"q": dict.fromkeys(tied, 1.0)}, ["relstring"], ties="average", average=False)


@pytest.mark.parametrize("route", ["dict", "frame", "Run", "file"])
def test_nan_scores_are_refused_by_every_input_route(route, tmp_path):
    pd = pytest.importorskip("pandas")
    qrels = {"q1": {"a": 1}}
    if route == "dict":
        run = {"q1": {"a": 1.0, "b": np.nan}}
    elif route == "frame":
        run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, np.nan]})
    elif route == "Run":
        run = Run(np.array(["q1", "q1"]), np.array(["a", "b"]), np.array([1.0, np.nan]))
    else:
        run = tmp_path / "run"
        run.write_text("q1 Q0 a 1 1.0 t\nq1 Q0 b 2 nan t\n")
    message = r"run, line 2: the score is NaN" if route == "file" else "scores document 'b' of query 'q1' NaN"
    with pytest.raises(ValueError, match=message):
        evaluate_run(qrels, run, ["map"])


def test_evaluate_run_checks_the_qrels_and_run_objects_it_is_given():
    qrels = Qrels(np.array(["q1", "q1"]), np.array(["a", "b"]), np.array([1, 0]))
    run = Run(np.array(["q1", "q1"]), np.array(["a", "b"]), np.array([2.0, 1.0]))
    assert evaluate_run(qrels, run, ["map"]) == {"map": 1.0}
    with pytest.raises(ValueError, match=r"the run's columns must have one length.*query_id 2, doc_id 1, score 2"):
        evaluate_run(qrels, Run(run.query_id, run.doc_id[:1], run.score), ["map"])
    with pytest.raises(ValueError, match=r"the qrels' columns must have one length.*relevance 3"):
        evaluate_run(Qrels(qrels.query_id, qrels.doc_id, np.array([1, 0, 1])), run, ["map"])
    with pytest.raises(ValueError, match="the run's score must be a 1-D array"):
        evaluate_run(qrels, Run(run.query_id, run.doc_id, run.score[:, None]), ["map"])
    with pytest.raises(TypeError, match=r"the run's doc_id must be str, bytes or integers.*got an array of float64"):
        evaluate_run(qrels, Run(run.query_id, np.array([1.0, 2.0]), run.score), ["map"])
    with pytest.raises(ValueError, match=r"relevance judgements must be integers.*'b' of query 'q1' 0\.5"):
        evaluate_run(Qrels(qrels.query_id, qrels.doc_id, np.array([1.0, 0.5])), run, ["map"])
    with pytest.raises(ValueError, match="run scores must be numbers; got dtype <U3"):
        evaluate_run(qrels, Run(run.query_id, run.doc_id, np.array(["2.0", "1.0"])), ["map"])
    with pytest.raises(ValueError, match="the qrels hold no judgement"):
        evaluate_run(Qrels(np.array([], dtype=str), np.array([], dtype=str), np.array([], dtype=int)), run)


@pytest.mark.parametrize(
    ("option", "value", "error"),
    [
        ("complete", "yes", TypeError),
        ("judged_only", 1, TypeError),
        ("average", None, TypeError),
        ("max_depth", 0, ValueError),
        ("max_depth", 2.0, TypeError),
        ("ties", "random", ValueError),
    ],
)
def test_evaluate_run_checks_its_options(option, value, error):
    with pytest.raises(error, match=option):
        evaluate_run(LEVELS_QRELS, LEVELS_RUN, ["map"], **{option: value})


def empty_run():
    return Run(np.array([], dtype=str), np.array([], dtype=str), np.array([]))


def test_an_empty_run_is_refused_or_with_complete_scores_every_query_zero():
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2}, "q3": {"d": -1}}
    with pytest.raises(ValueError, match="the run is empty: it retrieves no document for any query"):
        evaluate_run(qrels, empty_run(), ["map"])
    with pytest.raises(ValueError, match="the run is empty"):
        evaluate_run(qrels, {}, ["map"])
    result = evaluate_run(qrels, empty_run(), ["map", "num_q", "num_ret", "num_rel", "P.5", "gm_map"], complete=True)
    assert result == {
        "map": 0.0,
        "num_q": 3,
        "num_ret": 0,
        "num_rel": 2,
        "P_5": 0.0,
        "gm_map": pytest.approx(1e-5, rel=1e-12),
    }
    # Queries judged only negatively, with nothing retrieved, have no row at all.
    only_negative = evaluate_run({"q3": {"d": -1}}, empty_run(), ["all_trec", "nDCG@10"], complete=True)
    assert only_negative["num_q"] == 1 and only_negative["map"] == 0 and only_negative["nDCG@10"] == 0


def test_no_judged_run_query_is_an_error_or_with_complete_scores_zero(tmp_path, capsys):
    qrels, run = {"q1": {"a": 1}}, {"q9": {"a": 1.0}}
    with pytest.raises(ValueError, match="No queries with both results and relevance info"):
        evaluate_run(qrels, run, ["map"])
    assert evaluate_run(qrels, run, ["map", "num_q"], complete=True) == {"map": 0.0, "num_q": 1}
    qrels_path, run_path = write_collection(qrels, run, tmp_path, compress=False)
    assert main(["-c", "-m", "map", "-m", "num_q", str(qrels_path), str(run_path)]) == 0
    assert capsys.readouterr().out == f"{'num_q':<22}\tall\t1\n{'map':<22}\tall\t0.0000\n"
    assert main(["-m", "map", str(qrels_path), str(run_path)]) == 1
    assert "trec_eval: No queries with both results and relevance info" in capsys.readouterr().err


def test_a_run_dict_query_without_documents_is_evaluated_as_pytrec_eval_does():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    result = evaluate_run(qrels, {"q1": {"a": 1.0}, "q2": {}}, ["map", "num_q", "num_ret"], average=False)
    assert list(result["qid"]) == ["q1", "q2"] and list(result["map"]) == [1.0, 0.0]
    assert list(result["num_ret"]) == [1, 0]


def test_command_q_prints_queries_without_a_row_to_rank(tmp_path, capsys):
    # trec_eval 10 prints every evaluated query: here q2 (judged only negatively, not retrieved, under -c)
    # and q3 (-J removes its one retrieved document, which nobody judged).
    qrels = {"q1": {"a": 1}, "q2": {"b": -1}, "q3": {"c": -1}}
    run = {"q1": {"a": 1.0}, "q3": {"x": 1.0}}
    qrels_path, run_path = write_collection(qrels, run, tmp_path, compress=False)
    assert (
        main(["-q", "-c", "-J", "-m", "map", "-m", "num_ret", "-m", "relstring", str(qrels_path), str(run_path)]) == 0
    )
    lines = capsys.readouterr().out.splitlines()
    per_query = [line.split("\t") for line in lines if "\tall\t" not in line]
    assert [(name.strip(), query, value) for name, query, value in per_query] == [
        ("num_ret", "q1", "1"), ("map", "q1", "1.0000"), ("relstring", "q1", "'1'"),
        ("num_ret", "q2", "0"), ("map", "q2", "0.0000"), ("relstring", "q2", "''"),
        ("num_ret", "q3", "0"), ("map", "q3", "0.0000"), ("relstring", "q3", "''"),
    ]  # fmt: skip
    assert lines[-1] == f"{'map':<22}\tall\t{1 / 3:6.4f}"


def test_command_takes_the_first_parameters_of_a_measure_as_trec_eval(tmp_path, capsys):
    # trec_eval 10: a measure takes the parameters of its first -m NAME.PARAMS; a nickname only marks measures.
    qrels_path, run_path = write_collection(LEVELS_QRELS, LEVELS_RUN, tmp_path, compress=False)
    files = [str(qrels_path), str(run_path)]

    def names(*options):
        assert main([*options, *files]) == 0
        return [line.split("\t")[0].strip() for line in capsys.readouterr().out.splitlines()]

    assert names("-m", "P.10", "-m", "P.20") == ["P_10"]
    assert names("-m", "P", "-m", "P.20") == ["P_20"]
    for options in (("-m", "ndcg_cut.5", "-m", "all_trec"), ("-m", "all_trec", "-m", "ndcg_cut.5")):
        cut = [name for name in names(*options) if name.startswith("ndcg_cut")]
        assert cut == ["ndcg_cut_5"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["-l", "x"], "trec_eval: argument -l: invalid int value: 'x'"),
        (["-l", "-1"], "trec_eval: -l must be an integer >= 0; got -1"),
        (["-M", "0"], "trec_eval: -M must be a positive number of documents"),
        (["-m", "ndcg_cut10"], "trec_eval: 'ndcg_cut10' is neither a trec_eval measure"),
        (["-m", "P.x"], "trec_eval: bad parameters for trec_eval's P"),
        (["-m", "bpref(k=5)"], "trec_eval: 'bpref(k=5)' gives a cutoff, but bpref examines every document"),
    ],
)
def test_command_reports_bad_options_without_a_traceback(tmp_path, capsys, arguments, message):
    qrels_path, run_path = write_collection(LEVELS_QRELS, LEVELS_RUN, tmp_path, compress=False)
    assert main([*arguments, str(qrels_path), str(run_path)]) == 1
    assert capsys.readouterr().err.startswith(message)


def test_command_reports_bad_files_without_a_traceback(tmp_path, capsys):
    qrels_path, run_path = write_collection(LEVELS_QRELS, LEVELS_RUN, tmp_path, compress=True)
    truncated = tmp_path / "truncated.gz"
    truncated.write_bytes(run_path.read_bytes()[:-12])
    corrupt = tmp_path / "corrupt.gz"
    corrupt.write_bytes(run_path.read_bytes()[:12] + b"\x00" * 40)
    duplicated = tmp_path / "duplicated"
    duplicated.write_text("q1 Q0 a 1 2.0 t\nq1 Q0 a 2 1.0 t\n")
    cases = [
        (truncated, f"trec_eval: {truncated}: cannot decompress this gzip file, truncated or corrupt"),
        (corrupt, f"trec_eval: {corrupt}: cannot decompress this gzip file, truncated or corrupt"),
        (tmp_path / "missing", f"trec_eval: {tmp_path / 'missing'}: No such file or directory"),
        (tmp_path, f"trec_eval: {tmp_path}: Is a directory"),
        (duplicated, f"trec_eval: {duplicated}: the run retrieves document 'a' twice for query 'q1'"),
    ]
    for path, message in cases:
        assert main([str(qrels_path), str(path)]) == 1
        error = capsys.readouterr().err
        assert error.startswith(message) and error.count("\n") == 1, error


def test_command_names_an_empty_run_and_with_c_evaluates_it(tmp_path, capsys):
    qrels_path, run_path = write_collection(LEVELS_QRELS, {}, tmp_path, compress=False)
    run_path.write_text("# no result\n\n")  # only comment and blank lines: an empty run
    assert main(["-m", "map", str(qrels_path), str(run_path)]) == 1
    assert capsys.readouterr().err.startswith(f"trec_eval: {run_path}: the run is empty")
    assert main(["-c", "-m", "num_q", "-m", "map", "-m", "num_rel", str(qrels_path), str(run_path)]) == 0
    assert capsys.readouterr().out.split() == ["num_q", "all", "1", "num_rel", "all", "3", "map", "all", "0.0000"]


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("AP(ties='average')", "sets ties, which evaluate_run sets for every measure: pass ties= to evaluate_run"),
        ("bpref(k=5)", "'bpref\\(k=5\\)' gives a cutoff, but bpref examines every document: it has no k"),
        ("bpref(judged=(1, 0))", "sets judged, which carries the data .one value per row., not an option"),
        ("rbp(return_residual=True)", "sets return_residual, an option of rank_biased_precision_score that "
         "evaluate_run cannot pass on"),
        ("ndcg(average=False)", "sets average, which evaluate_run sets for every measure"),
        ("ndcg(foo=1)", "sets foo, which is not an option of ndcg_score; its options are discount, gain, k"),
        ("alpha_ndcg@10", "is an intent-aware measure: it needs an .n_samples, n_subtopics. judgement matrix"),
    ],
)  # fmt: skip
def test_options_a_kernel_does_not_take_are_refused_with_where_to_set_them(name, message):
    with pytest.raises(ValueError, match=message):
        evaluate_run(LEVELS_QRELS, LEVELS_RUN, [name])


@pytest.mark.parametrize(
    ("name", "suggestion"),
    [("ndcg_cut10", "ndcg_cut.10"), ("P10", "P.10"), ("mapp", "map"), ("ndcgcut.5", "ndcg_cut.5")],
)
def test_a_near_miss_measure_name_suggests_the_near_name(name, suggestion):
    assert "recall_100" in evaluate_run(LEVELS_QRELS, LEVELS_RUN, ["recall_100"])  # a library name after all
    with pytest.raises(ValueError, match=rf"{name!r} is neither a trec_eval measure.*Did you mean {suggestion!r}\?"):
        evaluate_run(LEVELS_QRELS, LEVELS_RUN, [name])


def test_a_document_retrieved_twice_is_refused_judged_or_not(tmp_path):
    # trec_eval 10: "duplicate docs"; an unjudged duplicate used to count twice in num_ret.
    qrels = {"q1": {"a": 1}}
    for doc in ("a", "x"):
        run = Run(np.array(["q1"] * 3), np.array([doc, "b", doc]), np.array([3.0, 2.0, 1.0]))
        with pytest.raises(ValueError, match=f"the run retrieves document '{doc}' twice for query 'q1'"):
            evaluate_run(qrels, run, ["num_ret"])
        # As in trec_eval, only the documents within max_depth are checked.
        assert evaluate_run(qrels, run, ["num_ret"], max_depth=2) == {"num_ret": 2}


# trec_eval's own test: the command's output must equal trec_eval 10's, as its `make quicktest` checks, on its own
# files (tests/trec/data/trec_eval_10: the inputs gzip-compressed, which the command reads as trec_eval reads them).
TREC_EVAL_TEST = Path(__file__).parent / "data" / "trec_eval_10"
QUICKTEST = [
    ("out.test", ["qrels.test", "results.test"]),
    ("out.test", ["qrels.test.with-comments", "results.test"]),
    ("out.comment.test", ["qrels.comment.test", "results.comment.test"]),
    ("out.test.a", ["-m", "all_trec", "qrels.test", "results.test"]),
    ("out.test.aq", ["-m", "all_trec", "-q", "qrels.test", "results.test"]),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"]),
    ("out.test.aqcM", ["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"]),
    ("out.test.aql", ["-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level", "results.test"]),
    ("out.test.meas_params", [
        "-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
        "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
        "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20", "qrels.test", "results.test",
    ]),
]  # fmt: skip


@pytest.mark.parametrize(("expected", "arguments"), QUICKTEST)
def test_command_prints_what_trec_eval_10_prints_on_its_own_test(expected, arguments, capsys):
    files = [
        str(TREC_EVAL_TEST / f"{name}.gz") if (TREC_EVAL_TEST / f"{name}.gz").exists() else name for name in arguments
    ]
    assert sum(name.endswith(".gz") for name in files) == 2, files
    assert main(files) == 0
    assert capsys.readouterr().out == (TREC_EVAL_TEST / expected).read_text()


@pytest.mark.parametrize("relevance", [2**63, 2**64 - 1, 2**64, -(2**63) - 1, np.uint64(2**63), 2.0**63])
@pytest.mark.parametrize("route", ["dict", "frame", "Qrels"])
def test_relevance_outside_int64_is_refused_on_every_route_not_wrapped(route, relevance):
    pd = pytest.importorskip("pandas")
    if route == "dict":
        qrels = {"q": {"b": 0, "a": relevance}}
    elif route == "frame":
        column = np.array([0, relevance], dtype=np.uint64 if isinstance(relevance, np.uint64) else None)
        qrels = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["b", "a"], "relevance": column})
    else:
        qrels = Qrels(np.array(["q", "q"]), np.array(["b", "a"]), np.array([0, relevance]))
    with pytest.raises(ValueError, match=r"integers of 64 bits .* judge document 'a' of query 'q'"):
        evaluate_run(qrels, {"q": {"a": 2.0, "b": 1.0}}, ["P.1", "num_rel", "ndcg"])


def test_relevance_at_the_ends_of_int64_is_kept_exactly():
    qrels = {"q": {"a": 2**63 - 1, "b": -(2**63)}}
    result = evaluate_run(qrels, {"q": {"a": 2.0, "b": 1.0}}, ["P.1", "num_rel"])
    assert result == {"P_1": 1.0, "num_rel": 1}


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ("a\x00", r"'a\\x00', with a NUL byte \(0x00\)"),
        (b"a\x00", r"'a\\x00', with a NUL byte \(0x00\)"),
        ("a\x00b", r"'a\\x00b', with a NUL byte"),
        ("a\x01", r"'a\\x01', with a control byte \(0x01\)"),
        ("a b", r"'a b', with whitespace \(0x20\)"),
        ("a\n", r"'a\\n', with whitespace \(0x0a\)"),
        ("", "an empty id"),
    ],
)
@pytest.mark.parametrize("route", ["dict", "frame", "Run"])
def test_ids_no_trec_file_can_hold_are_refused_on_every_route_not_merged(route, doc, message):
    # "a\x00" would match "a": a fixed-width array drops trailing NULs.
    pd = pytest.importorskip("pandas")
    if route == "dict":
        run = {"q": {"a": 2.0, doc: 1.0}}
    elif route == "frame":
        run = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", doc], "score": [2.0, 1.0]})
    else:
        run = Run(np.array(["q", "q"]), np.array(["a", doc], dtype=object), np.array([2.0, 1.0]))
    with pytest.raises(ValueError, match="the run's doc_id holds " + message):
        evaluate_run({"q": {"a": 1}}, run, ["P.1"])
    with pytest.raises(ValueError, match="the qrels' query_id holds " + message):
        evaluate_run({doc: {"a": 1}}, {"q": {"a": 1.0}}, ["P.1"])


def test_fixed_width_ids_with_a_nul_inside_or_a_control_byte_are_refused():
    qrels = Qrels(np.array([b"q", b"q"]), np.array([b"a\x00b", b"c"]), np.array([1, 0]))
    with pytest.raises(ValueError, match=r"the qrels' doc_id holds 'a\\x00b', with a NUL byte"):
        evaluate_run(qrels, {"q": {"c": 1.0}}, ["P.1"])
    qrels = Qrels(np.array(["q", "q"]), np.array(["a", "b\t"]), np.array([1, 0]))
    with pytest.raises(ValueError, match=r"the qrels' doc_id holds 'b\\t', with whitespace \(0x09\)"):
        evaluate_run(qrels, {"q": {"a": 1.0}}, ["P.1"])


def test_a_lone_surrogate_id_is_refused_with_a_clear_message():
    with pytest.raises(ValueError, match=r"the run's doc_id holds '\\ud800', with a lone surrogate"):
        evaluate_run({"q": {"a": 1}}, {"q": {"\ud800": 1.0}}, ["P.1"])


def test_a_score_beyond_float64_is_refused_naming_the_query_and_document():
    with pytest.raises(ValueError, match="the run scores document 'a' of query 'q' an integer of 401 digits"):
        evaluate_run({"q": {"a": 1}}, {"q": {"b": 1.0, "a": 10**400}}, ["P.1"])


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize(
    ("stdout", "reason"), [("full", "No space left on device"), ("closed", "standard output is closed")]
)
def test_command_that_cannot_write_its_output_says_so_without_a_traceback(tmp_path, stdout, reason):
    qrels_path, run_path = write_collection(LEVELS_QRELS, LEVELS_RUN, tmp_path, compress=False)
    command = [sys.executable, "-m", "sklearn_rankmetrics.trec_eval", str(qrels_path), str(run_path)]
    environment = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    with open("/dev/full", "wb") as full:
        options = {"stdout": full} if stdout == "full" else {"preexec_fn": lambda: os.close(1)}
        finished = subprocess.run(command, stderr=subprocess.PIPE, env=environment, check=False, **options)
    assert finished.returncode == 1
    assert finished.stderr == f"trec_eval: cannot write the output: {reason}\n".encode()


def test_num_rel_summary_under_c_counts_positive_judgements_of_the_whole_qrels_as_trec_eval(tmp_path, capsys):
    # trec_eval 10's te_calc_avg_num_rel (m_num_rel.c): with -c, num_rel's "all" counts the judgements above 0
    # over every qrels query, ignoring -l; the per-query values use -l. Expected: the binary's output.
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text("q1 0 a 1\nq1 0 b 0\nq1 0 c 2\n")
    run_path.write_text("q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\n")
    assert main(["-c", "-l", "2", "-q", "-m", "num_rel", str(qrels_path), str(run_path)]) == 0
    assert capsys.readouterr().out.split() == ["num_rel", "q1", "1", "num_rel", "all", "2"]
    assert main(["-l", "2", "-q", "-m", "num_rel", str(qrels_path), str(run_path)]) == 0
    assert capsys.readouterr().out.split() == ["num_rel", "q1", "1", "num_rel", "all", "1"]
    assert evaluate_run(qrels_path, run_path, ["num_rel"], complete=True, relevance_level=2) == {"num_rel": 2}
    assert evaluate_run(qrels_path, run_path, ["num_rel"], complete=True, relevance_level=0) == {"num_rel": 2}
    assert evaluate_run(qrels_path, run_path, ["num_rel"], relevance_level=0) == {"num_rel": 3}


def test_a_cutoff_beyond_a_long_saturates_as_trec_eval_atol_reads_it(tmp_path, capsys):
    qrels_path, run_path = write_collection(LEVELS_QRELS, LEVELS_RUN, tmp_path, compress=False)
    assert main(["-m", "P.99999999999999999999", str(qrels_path), str(run_path)]) == 0
    assert capsys.readouterr().out.split() == ["P_9223372036854775807", "all", "0.0000"]
    result = evaluate_run(LEVELS_QRELS, LEVELS_RUN, ["recall.99999999999999999999"])
    assert result == {"recall_9223372036854775807": 1.0}


def test_a_relevance_beyond_int64_in_a_dict_of_floats_is_named_exactly():
    # numpy turns [2**63, 0.5] into floats: the message still shows the int given.
    with pytest.raises(ValueError, match="judge document 'a' of query 'q' 9223372036854775808"):
        evaluate_run({"q": {"a": 2**63, "b": 0.0}}, {"q": {"a": 1.0}}, ["P.1"])


def test_the_summary_adds_the_per_query_values_in_order_as_trec_eval():
    # P_20 of 8 queries: 1, 2, 2, 0, 2, 1, 1, 2 relevant in the top 20. The exact mean 0.06875 lies on a rounding
    # tie: trec_eval's one-by-one sum prints 0.0687 where a pairwise sum prints 0.0688.
    import functools
    import operator

    found = [1, 2, 2, 0, 2, 1, 1, 2]
    qrels = {f"q{i}": {f"d{j}": 1 for j in range(n)} or {"unretrieved": 1} for i, n in enumerate(found)}
    run = {f"q{i}": {f"d{j}": float(-j) for j in range(20)} for i in range(len(found))}
    result = evaluate_run(qrels, run, ["P.20"])
    per_query = [n / 20 for n in found]
    assert result["P_20"] == functools.reduce(operator.add, per_query) / len(found)
    assert f"{result['P_20']:.4f}" == "0.0687"
