"""Reproducibility measures equal repro_eval 0.5's on runs it accepts; QPP's sMARE equals its definition."""

import copy
import warnings

import naive_meta
import numpy as np
import pytest
from scipy import stats

from sklearn_rankmetrics.meta import (
    delta_relative_improvement,
    effect_ratio,
    kendall_tau_union,
    qpp_evaluation,
    rank_biased_overlap_runs,
    reproduction_ttest,
    root_mean_squared_error,
    smare,
)
from sklearn_rankmetrics.trec import evaluate_run, read_run

with warnings.catch_warnings():  # repro_eval imports from scipy.stats.stats, deprecated
    warnings.simplefilter("ignore", DeprecationWarning)
    repro_eval = pytest.importorskip("repro_eval")
    from repro_eval.Evaluator import RpdEvaluator, RplEvaluator
    from repro_eval.measure.document_order import KTU, RBO

# ir_measures' notice about a name repro_eval uses.
pytestmark = pytest.mark.filterwarnings("ignore:convert_trec_name deprecated:DeprecationWarning")


def write_run(path, run, tag):
    """A TREC run file listed by descending score (ties in any order: trec_eval's order breaks them)."""
    lines = []
    for query, documents in run.items():
        ranked = sorted(documents.items(), key=lambda item: -item[1])
        lines += [f"{query} Q0 {doc} {rank} {score} {tag}\n" for rank, (doc, score) in enumerate(ranked, 1)]
    path.write_text("".join(lines))
    return str(path)


def random_runs(rng, n_queries=5, n_docs=20):
    """An original run and a reproduction of it: the same documents per query, rescored (with ties)."""
    original, reproduced = {}, {}
    for q in range(n_queries):
        docs = [f"d{d}" for d in rng.choice(60, n_docs, replace=False)]
        original[f"q{q}"] = {doc: float(np.round(rng.random() * 4, 1)) for doc in docs}
        reproduced[f"q{q}"] = {doc: float(np.round(original[f"q{q}"][doc] + rng.normal(0, 0.5), 1)) for doc in docs}
    return original, reproduced


@pytest.fixture(scope="module")
def experiment(tmp_path_factory):
    """Original and reproduced baseline and advanced runs as files, with qrels, evaluated by repro_eval."""
    folder = tmp_path_factory.mktemp("repro")
    rng = np.random.default_rng(40)
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in range(60)} for q in range(5)}
    (folder / "qrels").write_text("".join(f"{q} 0 {d} {r}\n" for q in qrels for d, r in qrels[q].items()))
    paths = {}
    for system in ("b", "a"):
        original, reproduced = random_runs(rng)
        paths[f"{system}_orig"] = write_run(folder / f"{system}_orig", original, f"{system}o")
        paths[f"{system}_rep"] = write_run(folder / f"{system}_rep", reproduced, f"{system}r")
    evaluator = RpdEvaluator(
        qrels_orig_path=str(folder / "qrels"),
        run_b_orig_path=paths["b_orig"],
        run_a_orig_path=paths["a_orig"],
        run_b_rep_path=paths["b_rep"],
        run_a_rep_path=paths["a_rep"],
    )
    evaluator.trim()
    evaluator.evaluate()
    return evaluator, paths, str(folder / "qrels")


def test_ktu_and_rbo_equal_repro_evals_evaluator(experiment):
    evaluator, paths, _ = experiment
    ktu = evaluator.ktu(per_topic=True)
    for side in ("baseline", "advanced"):
        original, reproduced = paths[f"{side[0]}_orig"], paths[f"{side[0]}_rep"]
        ours = kendall_tau_union(original, reproduced, average=False)
        assert ours == pytest.approx(ktu[side], abs=1e-12)
        assert kendall_tau_union(read_run(original), read_run(reproduced)) == pytest.approx(
            evaluator.ktu()[side], abs=1e-12
        )
        rbo = evaluator.rbo(per_topic=True)[side]
        assert rank_biased_overlap_runs(original, reproduced, average=False) == pytest.approx(rbo, abs=1e-12)


def test_score_measures_equal_repro_evals_evaluator(experiment):
    evaluator, _, _ = experiment
    scores = {
        "ob": evaluator.run_b_orig_score,
        "oa": evaluator.run_a_orig_score,
        "rb": evaluator.run_b_rep_score,
        "ra": evaluator.run_a_rep_score,
    }
    rmse, nrmse = evaluator.rmse(), evaluator.nrmse()
    for side, original, reproduced in (("baseline", "ob", "rb"), ("advanced", "oa", "ra")):
        assert root_mean_squared_error(scores[original], scores[reproduced]) == pytest.approx(rmse[side], abs=1e-12)
        ours = root_mean_squared_error(scores[original], scores[reproduced], normalize=True)
        assert ours == pytest.approx(nrmse[side], abs=1e-12, nan_ok=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = evaluator.ttest()[side]
        ours = reproduction_ttest(scores[original], scores[reproduced])
        assert ours == pytest.approx({m: 1.0 if np.isnan(p) else p for m, p in expected.items()}, abs=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        er, dri = evaluator.er(), evaluator.dri()
        ours_er = effect_ratio(scores["ob"], scores["oa"], scores["rb"], scores["ra"])
        ours_dri = delta_relative_improvement(scores["ob"], scores["oa"], scores["rb"], scores["ra"])
    improvement = {m: [scores["oa"][q][m] - scores["ob"][q][m] for q in scores["oa"]] for m in er}
    for measure in er:
        assert ours_dri[measure] == pytest.approx(dri[measure], rel=1e-12, abs=1e-12, nan_ok=True)
        if np.isfinite(ours_er[measure]):
            assert ours_er[measure] == pytest.approx(er[measure], rel=1e-12, abs=1e-12, nan_ok=True)
        else:  # the original improvement is 0 up to rounding (repro_eval divides by its rounding noise)
            assert abs(np.mean(improvement[measure])) < 1e-15
            assert not (1e-6 < abs(er[measure]) < 1e6)


def test_the_unpaired_t_test_of_a_replication(experiment):
    _, paths, qrels = experiment
    replication = RplEvaluator(
        qrels_orig_path=qrels, qrels_rpl_path=qrels, run_b_orig_path=paths["b_orig"], run_b_rep_path=paths["a_rep"]
    )
    replication.trim()
    replication.evaluate()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = replication.ttest()["baseline"]
    ours = reproduction_ttest(replication.run_b_orig_score, replication.run_b_rep_score, paired=False)
    assert ours == pytest.approx({m: 1.0 if np.isnan(p) else p for m, p in expected.items()}, abs=1e-12)


@pytest.mark.parametrize("seed", range(20))
def test_ktu_and_rbo_equal_repro_eval_on_random_runs(seed):
    rng = np.random.default_rng(seed)
    original, reproduced = random_runs(rng, n_queries=int(rng.integers(1, 6)), n_docs=int(rng.integers(2, 25)))
    # repro_eval reads a run in its listed order, breaking ties of neighbours: list them by descending score.
    listed = [
        {q: dict(sorted(run[q].items(), key=lambda item: -item[1])) for q in run} for run in (original, reproduced)
    ]
    other = random_runs(rng, n_queries=len(original), n_docs=int(rng.integers(2, 25)))[0]
    other = {q: dict(sorted(other[q].items(), key=lambda item: -item[1])) for q in other}
    for depth in (1000, 3):
        expected = KTU(copy.deepcopy(listed[0]), copy.deepcopy(listed[1]), trim_thresh=depth, per_topic=True)
        ours = kendall_tau_union(original, reproduced, depth=depth, average=False)
        assert ours == pytest.approx(expected, abs=1e-12, nan_ok=True)
    for p, depth in ((0.95, 1000), (0.7, 4), (1.0, 10)):
        expected = RBO(copy.deepcopy(listed[0]), copy.deepcopy(other), p=p, depth=depth, pbar=False, per_topic=True)
        assert rank_biased_overlap_runs(original, other, p=p, depth=depth, average=False) == pytest.approx(
            expected, abs=1e-12
        )


def test_hand_worked_ktu_and_rbo():
    original = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"a": 1.0, "b": 1.0}}
    reproduced = {"q1": {"a": 3.0, "c": 2.0, "b": 1.0}, "q2": {"b": 2.0, "a": 1.0}}
    # q1: union positions a=0 b=1 c=2; rank by rank (0, 1, 2) against (0, 2, 1): 1 discordant of 3 pairs.
    # q2: the original's tie a = b ranks b first (descending id), as the reproduction does: tau 1.
    assert kendall_tau_union(original, reproduced, average=False) == pytest.approx({"q1": 1 / 3, "q2": 1.0})
    # q1 with p = 0.5, depth 3: overlaps 1, 1, 3 at depths 1, 2, 3 -> (1 + 0.5 / 2 + 0.25) / 1.75
    assert rank_biased_overlap_runs(original, reproduced, p=0.5, depth=3, average=False)["q1"] == pytest.approx(
        (1 + 0.5 / 2 + 0.25 * 3 / 3) / 1.75
    )


def test_evaluate_runs_per_query_layout_is_accepted():
    qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 1}}
    first = evaluate_run(
        qrels, {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 1.0, "d4": 2.0}}, ["map", "P.1"], average=False
    )
    second = evaluate_run(qrels, {"q1": {"d2": 2.0, "d1": 1.0}, "q2": {"d3": 1.0}}, ["map", "P.1"], average=False)
    expected = {measure: np.sqrt(np.mean((first[measure] - second[measure]) ** 2)) for measure in ("map", "P_1")}
    assert root_mean_squared_error(first, second) == pytest.approx(expected)
    as_repro = {q: {"map": m, "P_1": p} for q, m, p in zip(first["qid"], first["map"], first["P_1"], strict=True)}
    assert root_mean_squared_error(as_repro, second) == pytest.approx(expected)


def test_reproduction_bad_inputs():
    with pytest.raises(ValueError, match="the original ranks 2 documents and the reproduction 1"):
        kendall_tau_union({"q1": {"a": 2.0, "b": 1.0}}, {"q1": {"a": 1.0}})
    with pytest.raises(ValueError, match="answers 1 query that the original does not"):
        kendall_tau_union({"q1": {"a": 1.0}}, {"q1": {"a": 1.0}, "q2": {"a": 1.0}})
    with pytest.warns(UserWarning, match="left out, as repro_eval leaves them out"):
        rank_biased_overlap_runs({"q1": {"a": 1.0}, "q2": {"a": 1.0}}, {"q1": {"a": 1.0}})
    with pytest.raises(ValueError, match="reproduced has no score for 1 of the queries of original"):
        root_mean_squared_error({"q1": 0.5, "q2": 0.4}, {"q1": 0.5})
    with pytest.raises(ValueError, match="must score the same queries; got 2 and 3"):
        root_mean_squared_error([0.1, 0.2], [0.1, 0.2, 0.3])
    with pytest.raises(TypeError, match="must both give query ids"):
        root_mean_squared_error({"q1": 0.5}, [0.5])
    with pytest.raises(ValueError, match="NaN or infinity"):
        root_mean_squared_error([0.1, np.nan], [0.1, 0.2])
    with pytest.warns(UserWarning, match="improves on its baseline by 0 on average"):
        assert np.isnan(effect_ratio([0.1, 0.2], [0.1, 0.2], [0.1, 0.2], [0.1, 0.2]))
    with pytest.raises(ValueError, match="depth must be"):
        kendall_tau_union({"q1": {"a": 1.0}}, {"q1": {"a": 1.0}}, depth=0)


# ---- query performance prediction ----------------------------------------------------------------------


def test_smare_hand_worked_example():
    # ranks by prediction 1 2 3 4, by AP 2 1 3 4: absolute errors 1 1 0 0, each over |Q| = 4, mean 2/4/4
    assert smare([0.1, 0.2, 0.3, 0.4], [0.25, 0.05, 0.5, 0.7]) == 0.125
    # ties at their average rank: prediction ranks 1.5 1.5 3, actual 1 2 3: errors 0.5 0.5 0 over 3, mean 1/9
    assert smare([0.1, 0.1, 0.9], [0.1, 0.2, 0.9]) == pytest.approx(1 / 9, abs=1e-15)
    assert smare([1, 2, 3], [1, 2, 3]) == 0.0


@pytest.mark.parametrize("seed", range(20))
def test_smare_and_correlations_against_their_definitions(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 40))
    predicted, actual = np.round(rng.random(n), 1), np.round(rng.random(n), 2)
    assert smare(predicted, actual) == pytest.approx(naive_meta.smare(predicted, actual), abs=1e-12)
    queries = [f"q{i}" for i in range(n)]
    shuffled = rng.permutation(n)
    mapped = smare(dict(zip(queries, predicted, strict=True)), {queries[i]: actual[i] for i in shuffled})
    assert mapped == pytest.approx(smare(predicted, actual), abs=1e-12)
    if n > 2 and len(set(predicted)) > 1 and len(set(actual)) > 1:
        result = qpp_evaluation(predicted, actual)
        assert result.pearson.statistic == pytest.approx(stats.pearsonr(predicted, actual).statistic, abs=1e-12)
        assert result.spearman.pvalue == pytest.approx(stats.spearmanr(predicted, actual).pvalue, abs=1e-12)
        assert result.kendall.statistic == pytest.approx(stats.kendalltau(predicted, actual).statistic, abs=1e-12)
        assert 0 <= result.smare < 1
        assert list(result.to_frame().index) == ["pearson", "spearman", "kendall", "smare"]
