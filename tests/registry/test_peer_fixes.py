"""The peer conventions that issue 36 found wrong or missing, each pinned on its own case.

The generated test (test_peer_conventions.py) runs every record's claims on
random collections; these are the cases the issue names, by hand.
"""

import numpy as np
import pytest

from sklearn_rankmetrics import (
    expected_reciprocal_rank_score,
    get_ranking_scorer,
    interpolated_precision_score,
    metric_info,
    precision_at_k_score,
    rank_biased_precision_score,
    ranking_report,
)
from sklearn_rankmetrics.registry._metric_info import CONVENTION_KEYS


def options_of(name, tool):
    info = metric_info(name)
    convention = {key: value for key, value in info.conventions[tool].items() if key not in CONVENTION_KEYS}
    return info, {**convention, **info.settings}


def test_xgboost_pre_at_k_divides_by_the_documents_and_scores_a_query_without_relevant_0():
    xgboost = pytest.importorskip("xgboost")
    # Queries of 2, 5 and 3 documents, the second without a relevant one; pre@3.
    qid = np.repeat([0, 1, 2], [2, 5, 3])
    y_true = np.array([1, 1, 0, 0, 0, 0, 0, 1, 0, 0], dtype=float)
    y_score = np.array([2, 1, 5, 4, 3, 2, 1, 3, 2, 1], dtype=float)
    data = xgboost.DMatrix(np.zeros((10, 1)), label=y_true, qid=qid, base_margin=y_score)
    booster = xgboost.Booster({"objective": "rank:ndcg", "eval_metric": "pre@3", "nthread": 1}, [data])
    theirs = float(booster.eval(data).rsplit(":", 1)[1])
    assert theirs == pytest.approx((2 / 2 + 0 + 1 / 3) / 3, abs=1e-15)
    info, options = options_of("pre@3", "xgboost")
    assert options["denominator"] == "capped" and options["zero_division"] == 0.0
    assert info.function(y_true, y_score, qid=qid, **options) == pytest.approx(theirs, abs=1e-15)
    assert precision_at_k_score(y_true, y_score, qid=qid, k=3) == pytest.approx((2 / 3 + 0 + 1 / 3) / 3)


def test_ir_measures_err_fixes_the_top_grade_at_4():
    ir_measures = pytest.importorskip("ir_measures")
    # Binary labels: our ERR takes the call's largest label (1) as the top grade, gdeval always 4.
    y_true, y_score = np.array([0, 1, 1, 0]), np.array([4.0, 3.0, 2.0, 1.0])
    qrels = [ir_measures.Qrel("1", f"d{row}", int(label)) for row, label in enumerate(y_true)]
    run = [ir_measures.ScoredDoc("1", f"d{row}", float(score)) for row, score in enumerate(y_score)]
    theirs = ir_measures.calc_aggregate([ir_measures.parse_measure("ERR@10")], qrels, run)[ir_measures.ERR @ 10]
    info, options = options_of("ERR@10", "ir_measures")
    assert options == {"max_grade": 4, "ties": "stable", "k": 10}
    assert info.function(y_true, y_score, **options) == pytest.approx(theirs, abs=5e-6)  # gdeval: 5 decimals
    assert expected_reciprocal_rank_score(y_true, y_score, k=10) / theirs > 5  # 6x apart without the convention


def test_ranx_rbp_spelling_carries_its_persistence_and_raw_grades():
    ranx = pytest.importorskip("ranx")
    info = metric_info("rbp.95")
    assert info.canonical == "rbp" and dict(info.settings) == {"p": 0.95}
    assert dict(metric_info("rbp.8@10").settings) == {"p": 0.8, "k": 10}
    assert dict(metric_info("rbp@10").settings) == {"k": 10}  # '@' is a cutoff here, as everywhere
    with pytest.raises(ValueError, match=r"'rbp\.95' already sets"):
        metric_info("rbp.95(p=0.5)")
    qrels = {"q": {"a": 3, "b": 0, "c": 1, "d": 2}}
    run = {"q": {"a": 0.4, "b": 0.3, "c": 0.2, "d": 0.1}}
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), "rbp.95")
    _, options = options_of("rbp.95", "ranx")
    ours = rank_biased_precision_score([3, 0, 1, 2], [0.4, 0.3, 0.2, 0.1], **options)
    assert ours == pytest.approx(0.05 * (3 + 0.95**2 * 1 + 0.95**3 * 2), rel=1e-12)
    assert ours == pytest.approx(theirs, rel=1e-12)
    with pytest.raises(ValueError, match="graded must be False, True or 'raw'"):
        rank_biased_precision_score([1, 0], [2, 1], graded="linear")


def test_rbp_is_one_computation_in_every_entry_point():
    from sklearn_rankmetrics.trec import evaluate_run

    qrels = {"q1": {"a": 2, "b": 0, "c": 1, "d": 3, "e": 1}, "q2": {"a": 1, "x": 0}}
    run = {"q1": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}, "q2": {"x": 2.0, "a": 1.0}}
    # The same rows as arrays: every judged document, -inf where not retrieved; labels at relevance level 1.
    y_true = np.array([2, 0, 1, 3, 1, 1, 0], dtype=float)
    y_score = np.array([4, 3, 2, 1, -np.inf, 1, 2], dtype=float)
    qid = np.array([1, 1, 1, 1, 1, 2, 2])
    info = metric_info("rbp")
    assert dict(info.settings) == {} and "binary gains" in info.definition
    expected = rank_biased_precision_score(y_true, y_score, qid=qid)
    values = evaluate_run(qrels, run, ["rbp", "RBP", "rbp.p=0.9"])
    assert values["rbp"] == values["RBP"] == pytest.approx(expected, rel=1e-15)
    assert ranking_report(y_true, y_score, qid=qid, metrics=["rbp"])["rbp"] == pytest.approx(expected, rel=1e-15)
    scorer = get_ranking_scorer("rbp")
    assert scorer._score_func is info.function and scorer._kwargs == {}
    # trec_eval's rbp is another computation, named 'rbp.p=0.9' in evaluate_run: the record's trec_eval convention.
    trec = {key: value for key, value in info.conventions["trec_eval"].items() if key not in CONVENTION_KEYS}
    assert trec == {"p": 0.9, "graded": True}
    trec_value = rank_biased_precision_score(y_true, y_score, qid=qid, **trec)
    assert values["rbp_p=0.9"] == pytest.approx(trec_value, rel=1e-15) and trec_value != pytest.approx(expected)
    assert evaluate_run(qrels, run, ["all_trec"])["rbp_p=0.9"] == values["rbp_p=0.9"]
    assert "rbp" not in evaluate_run(qrels, run, ["all_trec"])


def test_the_trec_eval_command_keeps_trec_evals_rbp(tmp_path, capsys):
    from sklearn_rankmetrics.trec import evaluate_run
    from sklearn_rankmetrics.trec_eval import main

    (tmp_path / "qrels").write_text("q1 0 a 2\nq1 0 b 0\nq1 0 c 1\n")
    (tmp_path / "run").write_text("q1 Q0 a 1 3.0 r\nq1 Q0 b 2 2.0 r\nq1 Q0 c 3 1.0 r\n")
    assert main(["-m", "rbp", str(tmp_path / "qrels"), str(tmp_path / "run")]) == 0
    line = capsys.readouterr().out.split()
    trec = evaluate_run({"q1": {"a": 2, "b": 0, "c": 1}}, {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}}, ["rbp.p=0.9"])
    assert line[0] == "rbp" and float(line[2]) == pytest.approx(trec["rbp_p=0.9"], abs=5e-5)


@pytest.mark.parametrize("seed", range(3))
def test_interpolated_precision_trec_eval9_is_pytrec_evals_and_ir_measures(seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ir_measures = pytest.importorskip("ir_measures")
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(1, 31), rng.integers(1, 25, 30))
    y_true = rng.choice([0, 0, 0, 1, 2], len(qid))
    y_score = rng.permutation(len(qid)) / len(qid)
    y_score[rng.random(len(qid)) < 0.1] = -np.inf  # judged, not retrieved
    levels = (0.0, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1.0)
    qrels, run = {}, {}
    for row, query in enumerate(qid):
        qrels.setdefault(str(query), {})[f"d{row}"] = int(y_true[row])
        if y_score[row] > -np.inf:
            run.setdefault(str(query), {})[f"d{row}"] = float(y_score[row])
    spec = "iprec_at_recall." + ",".join(map(str, levels))
    found = pytrec_eval.RelevanceEvaluator(qrels, {spec}).evaluate(run)
    queries = [query for query in np.unique(qid) if str(query) in found]
    rows = np.isin(qid, queries)
    ours = interpolated_precision_score(
        y_true[rows], y_score[rows], qid=qid[rows], recall_levels=levels, interpolation="trec_eval9", average=False
    )
    expected = np.array([[found[str(query)][f"iprec_at_recall_{level:.2f}"] for level in levels] for query in queries])
    np.testing.assert_allclose(ours, expected, rtol=0, atol=1e-15)
    ten = interpolated_precision_score(y_true[rows], y_score[rows], qid=qid[rows], recall_levels=levels, average=False)
    assert not np.allclose(ten, expected)  # trec_eval 10's rounding differs somewhere
    measure = ir_measures.parse_measure("IPrec@0.25")
    by_query = {metric.query_id: metric.value for metric in ir_measures.iter_calc([measure], qrels, run)}
    np.testing.assert_allclose(ours[:, levels.index(0.25)], [by_query[str(query)] for query in queries], atol=1e-15)


@pytest.mark.parametrize("correction", [None, "bv", "cls"])
def test_precision_capped_divides_by_the_recommendable_items_through_candidates_too(correction):
    # Every item a candidate: the sampled route (corrected or not) equals the direct one, for k past the catalogue.
    rng = np.random.default_rng(1)
    y_true, y_score = (rng.random((6, 10)) < 0.3).astype(float), rng.random((6, 10))
    candidates = np.ones_like(y_true, dtype=bool)
    for k in (3, 20):
        direct = precision_at_k_score(y_true, y_score, k=k, denominator="capped")
        sampled = precision_at_k_score(
            y_true, y_score, k=k, denominator="capped", candidates=candidates, sampled_correction=correction
        )
        assert sampled == pytest.approx(direct, rel=1e-12)
    assert precision_at_k_score(y_true, y_score, k=20, denominator="capped") == pytest.approx(
        2 * precision_at_k_score(y_true, y_score, k=20)
    )
    with pytest.raises(ValueError, match="denominator must be one of 'k', 'capped'"):
        precision_at_k_score(y_true, y_score, k=3, denominator="relevant")


def test_interpolation_names_its_two_rules():
    with pytest.raises(ValueError, match="interpolation must be one of 'trec_eval10', 'trec_eval9'; got 'trec_eval8'"):
        interpolated_precision_score([1, 0, 1], [3, 2, 1], interpolation="trec_eval8")
    # Recall 0.1 of 5 relevant documents: round(0.5) = 1 (halves up) and floor(0.5 + 0.9) = 1 agree; 0.25 of 5
    # does not: round(1.25) = 1 against floor(2.15) = 2. Relevant at ranks 1, 3, 4, 6, 7.
    y_true, y_score = [1, 0, 1, 1, 0, 1, 1], np.arange(7, 0, -1.0)
    ten = interpolated_precision_score(y_true, y_score, recall_levels=[0.1, 0.25])
    nine = interpolated_precision_score(y_true, y_score, recall_levels=[0.1, 0.25], interpolation="trec_eval9")
    assert ten[0] == nine[0] == 1.0  # the first relevant document
    assert ten[1] == 1.0 and nine[1] == pytest.approx(3 / 4)  # the best precision from the 1st, from the 2nd
