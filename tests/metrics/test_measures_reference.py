"""The measures of issue #29 against their reference tools, each where it is installed.

pyNTCIREVAL (Q-measure, nERR), ir_measures (Compat, and the spellings of the others), cwl_eval (INST,
INSQ), scikit-learn and CatBoost (OPA) and pyndeval, NIST's ndeval in a Python module (P-IA, AP-IA,
nERR-IA, NRBP, nNRBP). Each is a test-only reference; a test skips without it. The rbo package (RBO) is
run by the test generated from the records (tests/registry/test_peer_conventions.py).
"""

import logging

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from sklearn_rankmetrics import alpha_ndcg_score, intent_aware_err_score
from sklearn_rankmetrics.metrics._cwl import insq_score, inst_score
from sklearn_rankmetrics.metrics._intent_aware import (
    intent_aware_average_precision_score,
    intent_aware_precision_score,
    normalized_intent_aware_err_score,
    novelty_rank_biased_precision_score,
)
from sklearn_rankmetrics.metrics._normalized import ncg_score, normalized_err_score, q_measure_score
from sklearn_rankmetrics.metrics._overlap import compatibility_score
from sklearn_rankmetrics.metrics._pairs import ordered_pair_accuracy_score
from sklearn_rankmetrics.registry._metric_info import CONVENTION_KEYS


def graded_collection(seed, n_queries=30, levels=(0, 0, 1, 2, 3), unretrieved=0.15):
    """Ragged queries with distinct positive scores; some documents judged but not retrieved (-inf)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 40, n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    y_true = rng.choice(levels, qid.size).astype(float)
    y_score = rng.permutation(qid.size) / qid.size + 0.5
    y_score[rng.random(qid.size) < unretrieved] = -np.inf
    return y_true, y_score, qid


def ranked_lists(y_true, y_score, qid):
    """Per query: the retrieved rows in rank order, and all of its rows."""
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        retrieved = rows[y_score[rows] > -np.inf]
        yield q, retrieved[np.argsort(-y_score[retrieved])], rows


@pytest.mark.parametrize("seed", range(4))
def test_q_measure_and_nerr_match_ntcireval(seed):
    metrics = pytest.importorskip("pyNTCIREVAL.metrics")
    y_true, y_score, qid = graded_collection(seed)
    for k in (None, 1, 5, 20):
        for beta in (1.0, 0.5, 3.0):
            expected = []
            for _, ranked, rows in ranked_lists(y_true, y_score, qid):
                labels = y_true[rows]
                xrelnum = [int(np.sum(labels == level)) for level in range(4)]
                ranked_list = [(f"d{row}", int(y_true[row])) for row in ranked]
                # NTCIREVAL's gain values per relevance level: the labels themselves.
                value = metrics.QMeasure(xrelnum, [1, 2, 3], beta, cutoff=k).compute(ranked_list) if labels.max() else 0
                expected.append(value)
            ours = q_measure_score(y_true, y_score, qid=qid, k=k, beta=beta, average=False)
            np.testing.assert_allclose(ours, expected, rtol=1e-12, atol=1e-15, err_msg=f"k={k}, beta={beta}")
        if k is None:
            continue
        expected = []
        for _, ranked, rows in ranked_lists(y_true, y_score, qid):
            labels = y_true[rows]
            xrelnum = [int(np.sum(labels == level)) for level in range(4)]
            ranked_list = [(f"d{row}", int(y_true[row])) for row in ranked]
            # Its stop probability g / (g_max + 1) of the gain values 2**l - 1 is ERR's (2**l - 1) / 2**3.
            expected.append(metrics.nERR(xrelnum, [1, 3, 7], cutoff=k).compute(ranked_list) if labels.max() else 0)
        ours = normalized_err_score(y_true, y_score, qid=qid, k=k, max_grade=3, average=False)
        np.testing.assert_allclose(ours, expected, rtol=1e-12, atol=1e-15, err_msg=f"nERR@{k}")


def ir_measures_inputs(y_true, y_score, qid):
    ir_measures = pytest.importorskip("ir_measures")
    qrels = [
        ir_measures.Qrel(str(q), f"d{row}", int(label)) for row, (q, label) in enumerate(zip(qid, y_true, strict=True))
    ]
    run = [
        ir_measures.ScoredDoc(str(q), f"d{row}", float(score))
        for row, (q, score) in enumerate(zip(qid, y_score, strict=True))
        if score > -np.inf
    ]
    return ir_measures, qrels, run


def per_query(ir_measures, measure, qrels, run, queries, missing=0.0):
    found = {metric.query_id: metric.value for metric in ir_measures.iter_calc([measure], qrels, run)}
    return np.array([found.get(str(q), missing) for q in queries])


@pytest.mark.parametrize("seed", range(3))
def test_compatibility_matches_ir_measures_compat(seed):
    y_true, y_score, qid = graded_collection(seed)
    ir_measures, qrels, run = ir_measures_inputs(y_true, y_score, qid)
    from ir_measures.providers import registry

    assert registry["compat"].supports(ir_measures.Compat)  # the one provider of Compat
    for p in (0.95, 0.8, 0.5):
        for normalize in (True, False):
            measure = ir_measures.Compat(p=p, normalize=normalize)
            expected = per_query(ir_measures, measure, qrels, run, np.unique(qid))
            ours = compatibility_score(y_true, y_score, qid=qid, p=p, normalize=normalize, average=False)
            np.testing.assert_allclose(ours, expected, rtol=1e-12, atol=1e-15, err_msg=str(measure))


def test_compatibility_equals_ir_measures_where_its_conventions_say():
    # The record: ties='stable' with the rows and the qrels in ascending docno order, positive scores. Score ties of
    # one label included; below 0, ir_measures puts the documents not retrieved (score 0) above retrieved ones.
    compatibility = pytest.importorskip("ir_measures.providers.compat_provider").compatibility
    from sklearn_rankmetrics import metric_info

    settings = {
        key: value
        for key, value in metric_info("Compat").conventions["ir_measures"].items()
        if key not in CONVENTION_KEYS
    }
    rng = np.random.default_rng(5)
    for trial in range(300):
        n = int(rng.integers(1, 12))
        y_true, y_score = rng.choice([0, 1, 2, 3], n), rng.integers(1, 4, n).astype(float)  # ties
        y_score[rng.random(n) < 0.2] = -np.inf
        if not (y_true > 0).any() or not (y_score > -np.inf).any():
            continue
        qrels = {f"d{row:03d}": int(y_true[row]) for row in range(n)}  # ascending docno order, as the rows
        run = {f"d{row:03d}": y_score[row] for row in range(n) if y_score[row] > -np.inf}
        p, normalize = [0.5, 0.9, 0.95][trial % 3], bool(trial % 2)
        expected = compatibility(qrels, run, p, normalize)
        assert compatibility_score(y_true, y_score, p=p, normalize=normalize, **settings) == pytest.approx(expected)
    # Scores below 0: the document not retrieved is the first of label 1 in ir_measures' ideal ranking, not ours.
    expected = compatibility({"d0": 1, "d1": 1, "d2": 0}, {"d0": -1.0, "d2": -2.0}, 0.5, True)
    assert compatibility_score([1, 1, 0], [-1.0, -np.inf, -2.0], p=0.5, **settings) != pytest.approx(expected)
    assert compatibility_score([1, 1, 0], [1.0, -np.inf, 0.5], p=0.5, **settings) == pytest.approx(
        compatibility({"d0": 1, "d1": 1, "d2": 0}, {"d0": 1.0, "d2": 0.5}, 0.5, True)
    )


def cwl_rankings(y_true, y_score, qid, max_grade, depth):
    ranking = pytest.importorskip("cwl.ruler.ranking")
    logging.getLogger("cwl").disabled = True
    for _, ranked, _ in ranked_lists(y_true, y_score, qid):
        gains = y_true[ranked] / max_grade
        yield ranking.Ranking("q", gains, np.ones(len(gains)), max_n=depth)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("target", [1.0, 2.5, 0.5])
@pytest.mark.parametrize("depth", [1000, 7])
def test_inst_and_insq_match_cwl_eval(seed, target, depth):
    pytest.importorskip("cwl")
    from cwl.ruler.measures.cwl_insq import INSQCWLMetric
    from cwl.ruler.measures.cwl_inst import INSTCWLMetric

    y_true, y_score, qid = graded_collection(seed)
    for ours, metric in ((inst_score, INSTCWLMetric), (insq_score, INSQCWLMetric)):
        expected = [metric(target).measure(r) for r in cwl_rankings(y_true, y_score, qid, 3.0, depth)]
        values = ours(y_true, y_score, qid=qid, target=target, max_grade=3, k=depth, average=False)
        np.testing.assert_allclose(values, expected, rtol=1e-12, atol=1e-15, err_msg=ours.__name__)


def test_inst_and_insq_match_ir_measures_spellings():
    y_true, y_score, qid = graded_collection(9)
    ir_measures, qrels, run = ir_measures_inputs(y_true, y_score, qid)
    pytest.importorskip("cwl")
    from sklearn_rankmetrics import metric_info

    for name in ("INST(T=2.0, max_rel=3)", "INSQ(T=2.0, max_rel=3)"):
        # ir_measures' own spelling, and the record's conventions for it (k=1000), give its number.
        info = metric_info(name)
        convention = {
            key: value for key, value in info.conventions["ir_measures"].items() if key not in CONVENTION_KEYS
        }
        expected = per_query(ir_measures, ir_measures.parse_measure(name), qrels, run, np.unique(qid))
        values = info.function(y_true, y_score, qid=qid, **info.settings, **convention, average=False)
        np.testing.assert_allclose(values, expected, rtol=1e-12, atol=1e-15, err_msg=name)


@pytest.mark.parametrize("name", ["insq", "inst"])
def test_cwl_without_a_cutoff_is_the_limit_of_deeper_cutoffs(name):
    # The ranks past the documents weigh about 1/k in all, so the distance to the limit shrinks like 1/k.
    metric = {"insq": insq_score, "inst": inst_score}[name]
    y_true, y_score, qid = graded_collection(3)
    limit = metric(y_true, y_score, qid=qid, average=False)
    for k in (10**3, 10**5, 10**7):
        distance = np.max(np.abs(metric(y_true, y_score, qid=qid, k=k, average=False) - limit))
        assert distance < 4.0 / k


def test_opa_is_each_query_roc_auc_for_binary_labels():
    rng = np.random.default_rng(1)
    qid = rng.integers(0, 30, 3000)
    y_true = (rng.random(3000) < 0.2).astype(float)
    y_score = rng.integers(0, 8, 3000).astype(float)  # many ties, each counted 1/2 by both
    expected = [
        roc_auc_score(y_true[qid == q], y_score[qid == q]) if 0 < y_true[qid == q].mean() < 1 else 0.0
        for q in np.unique(qid)
    ]
    ours = ordered_pair_accuracy_score(y_true, y_score, qid=qid, average=False)
    np.testing.assert_allclose(ours, expected, rtol=1e-13)


def test_opa_with_pessimistic_ties_is_catboost_pair_accuracy():
    catboost_utils = pytest.importorskip("catboost.utils")
    rng = np.random.default_rng(2)
    y_true, y_score = rng.integers(0, 4, 60).astype(float), rng.integers(0, 5, 60).astype(float)
    pairs = [[i, j] for i in range(60) for j in range(60) if y_true[i] > y_true[j]]
    expected = catboost_utils.eval_metric(
        y_true, y_score, "PairAccuracy", group_id=np.zeros(60, dtype=int), pairs=pairs, thread_count=1
    )[0]
    assert ordered_pair_accuracy_score(y_true, y_score, ties="pessimistic") == pytest.approx(expected, rel=1e-14)


def test_opa_matches_tf_ranking_documented_examples():
    # TF-Ranking's OPAMetric docstring: y_true [[0, 1, 2]], y_pred [[3, 1, 2]] gives 1/3.
    assert ordered_pair_accuracy_score([[0.0, 1.0, 2.0]], [[3.0, 1.0, 2.0]]) == pytest.approx(1 / 3)


def subtopic_collection(seed, n_queries=8):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 30, n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    judgements = (rng.random((qid.size, int(rng.integers(1, 5)))) < 0.25).astype(float)
    y_score = rng.permutation(qid.size) + 1.0
    y_score[rng.random(qid.size) < 0.15] = -np.inf
    return judgements, y_score, qid


def ndeval_values(judgements, y_score, qid, measures, alpha, beta):
    pyndeval = pytest.importorskip("pyndeval")
    n_subtopics = judgements.shape[1]
    qrels = [
        (str(q), str(j), f"d{row:05d}", int(judgements[row, j]))
        for row, q in enumerate(qid)
        for j in range(n_subtopics)
    ]
    run = sorted(
        (
            (str(q), f"d{row:05d}", float(score))
            for row, (q, score) in enumerate(zip(qid, y_score, strict=True))
            if score > -np.inf
        ),
        key=lambda record: record[0],
    )
    found = pyndeval.RelevanceEvaluator(qrels, measures, alpha=alpha, beta=beta).evaluate(run)
    # A query that retrieved nothing is not in the run; ndeval's nNRBP of one without relevant intents is 0 / 0.
    return {
        measure: np.nan_to_num([found[str(q)][measure] if str(q) in found else 0.0 for q in np.unique(qid)])
        for measure in measures
    }


@pytest.mark.parametrize("seed", range(6))
def test_intent_aware_measures_match_ndeval(seed):
    judgements, y_score, qid = subtopic_collection(seed)
    alpha, beta = [(0.5, 0.5), (0.3, 0.8), (0.9, 0.2)][seed % 3]
    cutoffs = (1, 5, 10, 20)  # ndeval computes to depth 20
    measures = [f"{name}@{k}" for name in ("P-IA", "nERR-IA") for k in cutoffs] + ["NRBP", "nNRBP", "MAP-IA"]
    expected = ndeval_values(judgements, y_score, qid, measures, alpha, beta)
    options = {"qid": qid, "average": False}
    ours = {"NRBP": novelty_rank_biased_precision_score(judgements, y_score, alpha=alpha, beta=beta, **options)}
    ours["nNRBP"] = novelty_rank_biased_precision_score(
        judgements, y_score, alpha=alpha, beta=beta, normalize=True, **options
    )
    ours["MAP-IA"] = intent_aware_average_precision_score(judgements, y_score, **options)
    for k in cutoffs:
        ours[f"P-IA@{k}"] = intent_aware_precision_score(judgements, y_score, k=k, **options)
        ours[f"nERR-IA@{k}"] = normalized_intent_aware_err_score(judgements, y_score, k=k, alpha=alpha, **options)
    for measure in measures:
        np.testing.assert_allclose(ours[measure], expected[measure], rtol=1e-12, atol=1e-15, err_msg=measure)


def test_intent_aware_measures_match_ir_measures_spellings():
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("pyndeval")
    judgements, y_score, qid = subtopic_collection(11)
    qrels = [
        ir_measures.Qrel(str(q), f"d{row:05d}", int(judgements[row, j]), str(j))
        for row, q in enumerate(qid)
        for j in range(judgements.shape[1])
    ]
    run = [
        ir_measures.ScoredDoc(str(q), f"d{row:05d}", float(score))
        for row, (q, score) in enumerate(zip(qid, y_score, strict=True))
        if score > -np.inf
    ]
    options = {"qid": qid, "average": False}
    cases = [
        (ir_measures.P_IA @ 10, intent_aware_precision_score(judgements, y_score, k=10, **options)),
        (ir_measures.AP_IA, intent_aware_average_precision_score(judgements, y_score, **options)),
        (ir_measures.nERR_IA @ 20, normalized_intent_aware_err_score(judgements, y_score, k=20, **options)),
        (ir_measures.NRBP, novelty_rank_biased_precision_score(judgements, y_score, **options)),
        (ir_measures.nNRBP, novelty_rank_biased_precision_score(judgements, y_score, normalize=True, **options)),
        (ir_measures.alpha_nDCG @ 10, alpha_ndcg_score(judgements, y_score, k=10, **options)),
    ]
    for measure, ours in cases:
        expected = per_query(ir_measures, measure, qrels, run, np.unique(qid))
        np.testing.assert_allclose(ours, expected, rtol=1e-12, atol=1e-15, err_msg=str(measure))


def test_nerr_ia_is_err_ia_over_its_ideal_value():
    # With binary judgements and alpha = 1/2 the numerator is twice ERR-IA's sum over the intents.
    judgements, y_score, qid = subtopic_collection(4)
    y_score[~np.isfinite(y_score)] = 0.0
    err_ia = intent_aware_err_score(judgements, y_score, qid=qid, k=10, average=False)
    ideal_scores = np.zeros_like(y_score)
    nerr_ia = normalized_intent_aware_err_score(judgements, y_score, qid=qid, k=10, average=False)
    # On the ranking that nERR-IA calls ideal it scores 1; ERR-IA's ratio to its value there is the same.
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        if not judgements[rows].any():
            continue
        order = greedy_ideal_order(judgements[rows])
        ideal_scores[rows[order]] = -np.arange(len(order), dtype=float)
    ideal_err_ia = intent_aware_err_score(judgements, ideal_scores, qid=qid, k=10, average=False)
    defined = ideal_err_ia > 0
    np.testing.assert_allclose(nerr_ia[defined], err_ia[defined] / ideal_err_ia[defined], rtol=1e-12)


def greedy_ideal_order(judgements, alpha=0.5):
    """ndeval's ideal: at each rank the document of the highest alpha-gain, equal gains to the later row."""
    seen = np.zeros(judgements.shape[1])
    free, order = list(range(len(judgements))), []
    while free:
        gains = [float(np.sum(judgements[row] * (1 - alpha) ** seen)) for row in free]
        best = max(range(len(free)), key=lambda i: (gains[i], free[i]))
        order.append(free.pop(best))
        seen += judgements[order[-1]]
    return np.array(order)


class TestWorkedExamples:
    def test_ncg(self):
        # CG@3 of 0, 3, 1 is 4; the ideal's 3, 2, 1 is 6.
        assert ncg_score([0, 3, 1, 2], [4, 3, 2, 1], k=3) == pytest.approx(4 / 6, rel=1e-15)
        assert ncg_score([0, 3, 1, 2], [4, 3, 2, 1]) == 1.0  # the whole ranking holds every gain

    def test_q_measure(self):
        # labels 0, 2, 1 ranked; the ideal 2, 1: cg* = 2, 3, 3. Rank 2: (1 + 2) / (2 + 3); rank 3: (2 + 3) / (3 + 3).
        expected = (3 / 5 + 5 / 6) / 2
        assert q_measure_score([0, 2, 1], [3, 2, 1]) == pytest.approx(expected, rel=1e-15)
        # Q@2 divides by min(2, R) = 2 and stops at rank 2.
        assert q_measure_score([0, 2, 1], [3, 2, 1], k=2) == pytest.approx(3 / 5 / 2, rel=1e-15)
        # beta = 0 is average precision.
        assert q_measure_score([0, 2, 1], [3, 2, 1], beta=0) == pytest.approx((1 / 2 + 2 / 3) / 2, rel=1e-15)

    def test_nerr(self):
        # Grades 0, 1 (R = 0, 1/2) ranked; the ideal 1, 0: (1/2 / 2) / (1/2).
        assert normalized_err_score([0, 1], [2, 1]) == pytest.approx(0.5, rel=1e-15)

    def test_tied_q_measure_by_hand(self):
        # A tie of labels 1 and 0 over ranks 1-2, then a 2: the orderings 1, 0, 2 and 0, 1, 2 (cg* = 2, 3, 3).
        first = ((1 + 1) / (1 + 2) + (2 + 3) / (3 + 3)) / 2
        second = ((1 + 1) / (2 + 3) + (2 + 3) / (3 + 3)) / 2
        assert q_measure_score([1, 0, 2], [5, 5, 1]) == pytest.approx((first + second) / 2, rel=1e-15)
