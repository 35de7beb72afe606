"""The checks of test_common.py for the label metrics computed on the host (Q, compat, OPA, INSQ, INST).

They are scorer and report metrics but not in ``METRICS`` (whose kernels run in any Array API
namespace): the same checks, driven by ``HOST_METRICS``, against the textbook loops of ``naive``.
"""

import inspect

import numpy as np
import pandas as pd
import pytest
from test_common import BAD_INPUTS, random_queries

from sklearn_rankmetrics import get_ranking_scorer, ranking_report
from sklearn_rankmetrics.metrics._cwl import inst_score
from sklearn_rankmetrics.registry._names import parse_metric_name
from sklearn_rankmetrics.registry._registry import HOST_METRICS

import naive

ORACLES = {
    "Q": naive.q_measure,
    "compat": naive.compatibility,
    "opa": naive.ordered_pair_accuracy,
    "insq": naive.insq,
    "inst": naive.inst,
}
# The C/W/L measures normalise over the ranks 1 .. k: the oracles need a finite k.
CWL = {"insq", "inst"}
WITHOUT_CUTOFF = {name for name, metric in HOST_METRICS.items() if "k" not in inspect.signature(metric).parameters}


def cutoffs(name):
    return [None] if name in WITHOUT_CUTOFF else [3, 5, 30] if name in CWL else [None, 1, 2, 3, 5]


def oracle(name, y_true, y_score, qid, k=None):
    options = {} if name in WITHOUT_CUTOFF else {"k": k}
    if name in CWL:  # the default top grade is the largest label of the whole call
        options["max_grade"] = y_true.max()
    return naive.grouped(ORACLES[name], y_true, y_score, qid, **options)


def call(name, y_true, y_score, **options):
    if name in WITHOUT_CUTOFF:
        options.pop("k", None)
    return HOST_METRICS[name](y_true, y_score, **options)


def test_every_host_metric_has_an_oracle():
    assert sorted(ORACLES) == sorted(HOST_METRICS)


@pytest.mark.parametrize("name", sorted(HOST_METRICS))
@pytest.mark.parametrize("seed", range(25))
def test_ties_average_equals_mean_over_all_orderings(name, seed):
    y_true, y_score, qid = random_queries(seed)
    if name == "inst":  # defined on one ordering: the ties broken, for the oracle as for the metric
        y_score = y_score + np.arange(len(y_score)) * 1e-3
    for k in cutoffs(name):
        ours = call(name, y_true, y_score, qid=qid, k=k, average=False)
        np.testing.assert_allclose(ours, oracle(name, y_true, y_score, qid, k), rtol=1e-12, atol=1e-14)


def test_inst_averages_ties_whose_order_cannot_change_it():
    # Documents not retrieved (-inf, however many), tied documents of one label, and ties wholly below k give one
    # value in every order: ties="average" is that value, in the function, the report and evaluate_run.
    from sklearn_rankmetrics.trec import evaluate_run

    y_true = np.array([2, 0, 1, 1, 1, 3, 0, 2, 1, 0.0])
    y_score = np.array([0.9, 0.8, 0.5, 0.5, 0.5, -np.inf, -np.inf, 0.1, 0.1, 0.3])
    qid = np.array([1, 1, 1, 1, 1, 1, 1, 2, 2, 2])
    for k in (None, 1000, 6, 1):  # query 2's tie of labels 2 and 1 is below k=1 only
        stable = inst_score(y_true, y_score, qid=qid, k=k, ties="stable", average=False)
        if k != 1:  # query 2 ties labels 2 and 1 above k: refused, see the next test
            y = np.where(qid == 2, 1.0, y_true)
            stable = inst_score(y, y_score, qid=qid, k=k, ties="stable", average=False)
            averaged = inst_score(y, y_score, qid=qid, k=k, ties="average", average=False)
        else:
            averaged = inst_score(y_true, y_score, qid=qid, k=k, ties="average", average=False)
        np.testing.assert_allclose(averaged, stable, rtol=1e-15)
    y = np.where(qid == 2, 1.0, y_true)
    report = ranking_report(y, y_score, qid=qid, metrics=["inst", "INST(T=2, max_rel=3)"], average=False)
    np.testing.assert_allclose(report["inst"], inst_score(y, y_score, qid=qid, ties="stable", average=False))
    expected = inst_score(y, y_score, qid=qid, target=2, max_grade=3, ties="stable", average=False)
    np.testing.assert_allclose(report["INST(T=2, max_rel=3)"], expected)
    # evaluate_run: the qrels' documents not retrieved, and a depth that cuts a tie block of one label.
    qrels = {str(q): {f"d{row}": int(y[row]) for row in np.flatnonzero(qid == q)} for q in (1, 2)}
    run = {
        str(q): {f"d{row}": y_score[row] for row in np.flatnonzero((qid == q) & (y_score > -np.inf))} for q in (1, 2)
    }
    for depth in (None, 3, 4):
        found = evaluate_run(qrels, run, ["inst"], ties="average", max_depth=depth, average=False)["inst"]
        cut = y_score.copy()
        if depth is not None:  # the top `depth` of each query, in the run's order (the tied rows are alike)
            for q in (1, 2):
                rows = np.flatnonzero(qid == q)
                cut[rows[np.argsort(-y_score[rows], kind="stable")[depth:]]] = -np.inf
        np.testing.assert_allclose(found, inst_score(y, cut, qid=qid, average=False), rtol=1e-14)


def test_inst_refuses_ties_that_change_it_and_names_the_query():
    # Tied documents of different labels above k: the mean over their orders has no closed form.
    y_true, y_score, qid = [1, 0, 2, 0], [0.5, 0.5, 0.9, 0.9], ["a", "a", "b", "b"]
    message = (
        r"query 1 of 2 \(in the order of the per-query values\) has 2 documents tied from rank 1, with labels 0, 1"
    )
    with pytest.raises(ValueError, match=message):
        inst_score(y_true, y_score, qid=qid, ties="average")
    with pytest.raises(ValueError, match=message):
        ranking_report(y_true, y_score, qid=qid, metrics=["inst"])
    with pytest.raises(ValueError, match="query 1 of 2"):  # a tie block cut by k changes the top k
        inst_score(y_true, y_score, qid=qid, ties="average", k=1)
    assert ranking_report(y_true, y_score, qid=qid, metrics=["inst"], ties="stable")["inst"] == inst_score(
        y_true, y_score, qid=qid
    )


@pytest.mark.parametrize("name", sorted(HOST_METRICS))
@pytest.mark.parametrize("ties", ["pessimistic", "optimistic", "stable"])
def test_ties_orders_tied_documents(name, ties):
    y_true = np.array([0, 2, 1, 0, 3, 1.0])
    y_score = np.array([1, 1, 1, 0.5, 0.5, 0.2])
    by_ties = {"pessimistic": [0, 1, 2, 0, 3, 1], "optimistic": [2, 1, 0, 3, 0, 1], "stable": [0, 2, 1, 0, 3, 1]}
    options = {} if name in WITHOUT_CUTOFF else {"k": 30 if name in CWL else None}
    expected = ORACLES[name]([float(v) for v in by_ties[ties]], **options)
    assert call(name, y_true, y_score, ties=ties, **options) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("name", sorted(HOST_METRICS))
def test_average_is_the_weighted_mean_of_per_query_values(name):
    y_true, y_score, qid = random_queries(3, n_rows=40, n_queries=6)
    ties = "stable" if name == "inst" else "average"
    weight = qid + 1.0
    per_query = HOST_METRICS[name](y_true, y_score, qid=qid, ties=ties, average=False)
    expected = np.average(per_query, weights=np.unique(qid) + 1.0)
    assert HOST_METRICS[name](y_true, y_score, qid=qid, ties=ties, sample_weight=weight) == pytest.approx(expected)
    assert isinstance(HOST_METRICS[name](y_true, y_score, qid=qid, ties=ties), float)


@pytest.mark.parametrize("name", sorted(HOST_METRICS))
def test_zero_division_applies_to_queries_without_relevant_documents(name):
    y_true = np.array([0, 0, 0, 1, 2, 0.0])
    y_score = np.array([3, 2, 1, 3, 2, 1.0])
    qid = np.array([1, 1, 1, 2, 2, 2])
    metric = HOST_METRICS[name]
    undefined, defined = metric(y_true, y_score, qid=qid, average=False, zero_division=1.0)
    assert undefined == 1.0
    assert metric(y_true, y_score, qid=qid, zero_division=0.0) == pytest.approx(defined / 2)
    assert metric(y_true, y_score, qid=qid, zero_division=np.nan) == pytest.approx(defined)
    with pytest.warns(UserWarning, match="Every query is undefined"):
        assert np.isnan(metric([0, 0], [1, 2], zero_division=np.nan))


def test_opa_is_undefined_where_every_label_is_the_same():
    # A query of relevant documents only has relevant documents but no pair to order.
    assert HOST_METRICS["opa"]([2, 2, 2], [3, 2, 1], zero_division=1.0) == 1.0
    assert HOST_METRICS["opa"]([2, 2, 2], [3, 2, 1]) == 0.0


@pytest.mark.parametrize("name", sorted(HOST_METRICS))
def test_single_document_query_is_scored(name):
    # OPA has no pair in a single document. INSQ (T = 1) reaches rank i with (2 / (i + 1))**2, of sum
    # 4 (pi**2 / 6 - 1); INST, whose gain is found at rank 1, with 1 / i**2 (C(1) = 1/4, C(i) = (i / (i + 1))**2).
    if name == "opa":
        with pytest.warns(UserWarning, match="Every query is undefined"):
            assert np.isnan(HOST_METRICS[name]([1], [0.3], zero_division=np.nan))
        return
    value = HOST_METRICS[name]([1], [0.3])
    if name in CWL:
        total = {"insq": 4 * (np.pi**2 / 6 - 1), "inst": np.pi**2 / 6}[name]
        assert value == pytest.approx(1 / total, rel=1e-14)
    else:
        assert value == 1.0


@pytest.mark.parametrize("name", ["Q", "compat", "opa"])
def test_perfect_ranking_scores_one(name):
    y_true = np.array([3, 2, 2, 1, 0, 0, 1, 1, 0.0])
    qid = np.array([1, 1, 1, 1, 1, 2, 2, 2, 2])
    assert HOST_METRICS[name](y_true, y_true, qid=qid) == pytest.approx(1.0, rel=1e-15)


@pytest.mark.parametrize("name", sorted(HOST_METRICS))
def test_qid_of_any_comparable_type_gives_the_same_values(name):
    y_true, y_score, codes = random_queries(11, n_rows=30, n_queries=5)
    ties = "stable" if name == "inst" else "average"
    expected = HOST_METRICS[name](y_true, y_score, qid=codes, ties=ties, average=False)
    names = np.array(["q0", "q1", "q2", "q3", "q4"])[codes]
    for qid in (
        names,
        names.astype(object),
        pd.Series(names),
        pd.Categorical(names),
        codes * 1_000_000_007,
        list(codes),
    ):
        values = HOST_METRICS[name](y_true, y_score, qid=qid, ties=ties, average=False)
        np.testing.assert_allclose(values, expected)


@pytest.mark.parametrize("name", sorted(HOST_METRICS))
def test_invariant_to_row_order(name):
    y_true, y_score, qid = random_queries(4, n_rows=60, n_queries=5, n_scores=6)
    ties = "pessimistic" if name == "inst" else "average"
    rows = np.random.default_rng(0).permutation(60)
    expected = HOST_METRICS[name](y_true, y_score, qid=qid, ties=ties, average=False)
    shuffled = HOST_METRICS[name](y_true[rows], y_score[rows], qid=qid[rows], ties=ties, average=False)
    np.testing.assert_allclose(shuffled, expected, rtol=1e-13)


@pytest.mark.parametrize("name", sorted(HOST_METRICS))
def test_2d_form_equals_grouped_form(name):
    rng = np.random.default_rng(2)
    y_true, y_score = rng.integers(0, 4, (5, 6)).astype(float), rng.integers(0, 3, (5, 6)).astype(float)
    ties = "stable" if name == "inst" else "average"
    qid = np.repeat(np.arange(5), 6)
    two_d = HOST_METRICS[name](y_true, y_score, ties=ties, average=False)
    grouped = HOST_METRICS[name](y_true.ravel(), y_score.ravel(), qid=qid, ties=ties, average=False)
    np.testing.assert_allclose(two_d, grouped, rtol=1e-15)


@pytest.mark.parametrize("name", sorted(HOST_METRICS))
def test_inputs_are_not_modified(name):
    y_true, y_score, qid = random_queries(5, n_rows=20)
    copies = [a.copy() for a in (y_true, y_score, qid)]
    HOST_METRICS[name](y_true, y_score, qid=qid, sample_weight=np.ones(20), ties="stable")
    for array, copy in zip((y_true, y_score, qid), copies, strict=True):
        np.testing.assert_array_equal(array, copy)


@pytest.mark.parametrize("name", sorted(HOST_METRICS))
@pytest.mark.parametrize(("change", "error", "message"), BAD_INPUTS)
def test_bad_input_raises_a_clear_error(name, change, error, message):
    arguments = {"y_true": [1, 0, 2], "y_score": [0.3, 0.2, 0.1], **change}
    with pytest.raises(error, match=message):
        HOST_METRICS[name](arguments.pop("y_true"), arguments.pop("y_score"), **arguments)


@pytest.mark.parametrize(
    ("name", "options", "error", "message"),
    [
        ("Q", {"beta": -1}, ValueError, r"beta must be in \[0, inf\); got -1.0"),
        ("Q", {"gain": "cubic"}, ValueError, "gain must be one of 'linear', 'exponential'; got 'cubic'"),
        ("Q", {"k": 0}, ValueError, "k must be None or an integer >= 1; got 0"),
        ("compat", {"p": 0}, ValueError, r"p must be in \(0, 1\]; got 0.0"),
        ("compat", {"p": 1.5}, ValueError, r"p must be in \(0, 1\]; got 1.5"),
        ("compat", {"normalize": "yes"}, TypeError, "normalize must be True or False; got 'yes'"),
        ("insq", {"target": 0}, ValueError, r"target must be in \(0, inf\); got 0.0"),
        ("inst", {"max_grade": 1}, ValueError, "y_true has a label of 2, above max_grade=1"),
        ("insq", {"k": 2.5}, TypeError, "k must be None or an integer >= 1; got 2.5 of type float"),
        ("inst", {"target": 0.4}, ValueError, r"INST needs target >= 0.5; got 0.4.*a probability"),
    ],
)
def test_bad_metric_options_raise(name, options, error, message):
    with pytest.raises(error, match=message):
        HOST_METRICS[name]([1, 0, 2], [0.3, 0.2, 0.1], **options)


@pytest.mark.parametrize(
    ("name", "function", "options"),
    [
        ("nerr@10", "normalized_err_score", {"k": 10}),
        ("nERR@10", "normalized_err_score", {"k": 10}),
        ("ncg@10", "ncg_score", {"k": 10}),
        ("NCG@5", "ncg_score", {"k": 5}),
        ("Q", "q_measure_score", {}),
        ("q@5(beta=0.5)", "q_measure_score", {"k": 5, "beta": 0.5}),
        ("compat", "compatibility_score", {}),
        ("Compat(p=0.8, normalize=False)", "compatibility_score", {"p": 0.8, "normalize": False}),
        ("opa", "ordered_pair_accuracy_score", {}),
        ("PairAccuracy", "ordered_pair_accuracy_score", {}),
        ("OPAMetric", "ordered_pair_accuracy_score", {}),
        ("ordered_pair_accuracy", "ordered_pair_accuracy_score", {}),
        ("INSQ(target=2.0)", "insq_score", {"target": 2.0}),
        ("INSQ(T=2.0)", "insq_score", {"target": 2.0}),
        ("INST(T=2, max_rel=3)", "inst_score", {"target": 2, "max_grade": 3}),
        ("INST@1000", "inst_score", {"k": 1000}),
        ("P_IA@10", "intent_aware_precision_score", {"k": 10}),
        ("AP_IA", "intent_aware_average_precision_score", {}),
        ("MAP_IA", "intent_aware_average_precision_score", {}),
        ("nERR_IA@20", "normalized_intent_aware_err_score", {"k": 20}),
        ("NRBP(alpha=0.3)", "novelty_rank_biased_precision_score", {"alpha": 0.3}),
        ("nNRBP", "novelty_rank_biased_precision_score", {"normalize": True}),
    ],
)
def test_names_of_the_new_measures_in_each_tool_spelling(name, function, options):
    metric, parsed = parse_metric_name(name)
    assert metric.__name__ == function
    assert parsed == options


def test_peer_option_names_stand_for_the_options_they_name_once():
    # ir_measures writes INST(T=..., max_rel=...): the record's peer option names, each option set once.
    assert parse_metric_name("inst(max_rel=4, k=1000)") == (inst_score, {"max_grade": 4, "k": 1000})
    with pytest.raises(ValueError, match=r"'INST\(T=2, target=3\)' sets target twice \(as T and as target\)"):
        parse_metric_name("INST(T=2, target=3)")
    with pytest.raises(TypeError, match="ndcg_score takes no option 'T'"):
        get_ranking_scorer("ndcg(T=2)")  # only the metrics whose peers name options so


@pytest.mark.parametrize("k", [2**31, 2**62, 10**18])
def test_q_measure_accepts_any_cutoff(k):
    # Q@k divides by min(R, k): a cutoff beyond int32 (or any query) divides by R, as Q without a cutoff.
    y_true, y_score, qid = random_queries(3, n_rows=30)
    expected = HOST_METRICS["Q"](y_true, y_score, qid=qid, average=False)
    np.testing.assert_allclose(HOST_METRICS["Q"](y_true, y_score, qid=qid, k=k, average=False), expected)
    report = ranking_report(y_true, y_score, qid=qid, metrics=[f"Q@{k}"], average=False)
    np.testing.assert_allclose(report[f"Q@{k}"], expected)


def test_scorer_names_round_trip():
    assert repr(get_ranking_scorer("Q@10")) == "Q@10"
    assert repr(get_ranking_scorer("nnrbp")) == "nnrbp"
    assert repr(get_ranking_scorer("nerr@10(max_grade=4)")) == "nerr@10(max_grade=4)"


def test_cwl_measures_reach_their_limits_at_extreme_targets():
    # A user who wants almost nothing reads one document; one who wants everything reads on without end
    # (every weight nears 0 without a cutoff, and 1/k within the top k).
    assert HOST_METRICS["insq"]([1, 0], [2.0, 1.0], target=1e-300) == 1.0
    assert HOST_METRICS["insq"]([1, 0], [1.0, 2.0], target=1e-300) == 0.0
    assert HOST_METRICS["insq"]([1, 1, 0], [3, 2, 1], target=1e300) == pytest.approx(0.0, abs=1e-290)
    assert HOST_METRICS["inst"]([1, 1, 0], [3, 2, 1], target=1e300, k=4) == pytest.approx(0.5, rel=1e-12)
    assert HOST_METRICS["inst"]([1, 1, 0], [3, 2, 1], target=0.5) == pytest.approx(1.0, rel=1e-12)
