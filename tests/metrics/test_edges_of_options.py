"""The edges of the newest metrics' options (issue 36, items 6, 7, 11 and 15).

A query that retrieved nothing scores 0 in OPA and P-IA; Q-measure takes any
finite beta; every metric with a cutoff takes any k (2**63 and beyond) as the
whole list; a name cannot set the data arguments.
"""

import inspect

import numpy as np
import pytest

import sklearn_rankmetrics
from sklearn_rankmetrics import (
    get_ranking_scorer,
    intent_aware_precision_score,
    metric_info,
    ordered_pair_accuracy_score,
    q_measure_score,
)
from sklearn_rankmetrics.registry._registry import REGISTRY

import naive

# ---- item 6: a query that retrieved nothing scores 0 ---------------------------------------------


def test_opa_scores_a_query_that_retrieved_nothing_0():
    # Query 0 retrieved nothing (every row -inf): no pair is ordered, 0 as documented, not 1/2 for each pair.
    y_true, y_score = [2, 0, 1, 1, 0], [-np.inf, -np.inf, -np.inf, 1.0, 0.0]
    values = ordered_pair_accuracy_score(y_true, y_score, qid=[0, 0, 0, 1, 1], average=False)
    np.testing.assert_array_equal(values, [0.0, 1.0])
    # One retrieved document: its pairs with those not retrieved are ordered; theirs among themselves count 1/2.
    assert ordered_pair_accuracy_score([2, 0, 1], [1.0, -np.inf, -np.inf]) == pytest.approx((1 + 1 + 0.5) / 3)


def test_opa_of_a_run_that_answers_nothing_is_0_under_complete():
    from sklearn_rankmetrics.trec import evaluate_run

    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2, "d": 0, "e": 1}}
    assert evaluate_run(qrels, {}, ["opa"], complete=True) == {"opa": 0.0}
    per_query = evaluate_run(qrels, {"q1": {"a": 2.0, "b": 1.0}}, ["opa"], complete=True, average=False)
    np.testing.assert_array_equal(per_query["opa"], [1.0, 0.0])


def test_p_ia_without_a_cutoff_scores_a_query_that_retrieved_nothing_0():
    judgements = [[1, 0], [0, 1], [1, 1], [0, 1]]
    y_score, qid = [-np.inf, -np.inf, 2.0, 1.0], [0, 0, 1, 1]
    values = intent_aware_precision_score(judgements, y_score, qid=qid, average=False, zero_division=np.nan)
    np.testing.assert_array_equal(values, [0.0, 0.75])  # defined: query 0 has relevant intents
    # The mean counts it (0), as P@k does; zero_division is for queries without a relevant intent only.
    assert intent_aware_precision_score(judgements, y_score, qid=qid, zero_division=np.nan) == pytest.approx(0.375)
    assert np.isnan(intent_aware_precision_score([[0, 0]], [-np.inf], zero_division=np.nan, average=False)[0])


# ---- item 7: Q-measure with a large finite beta ---------------------------------------------------


@pytest.mark.parametrize("beta", [1e10, 1e200, 1e308, np.finfo(np.float64).max])
@pytest.mark.parametrize("gain", ["linear", "exponential"])
def test_q_measure_with_a_large_finite_beta_nears_the_ratio_of_cumulative_gains(beta, gain):
    labels = [0, 2, 1, 0, 3]
    y_score = [5.0, 4.0, 3.0, 2.0, 1.0]
    value = q_measure_score(labels, y_score, beta=beta, gain=gain)
    assert np.isfinite(value)
    assert value == pytest.approx(naive.q_measure(labels, beta=beta, gain_kind=gain) if beta <= 1e10 else value)
    # The limit: the mean over the relevant ranks of cg(r) / cg*(r).
    gains = [naive.gain(label, gain) for label in labels]
    ideal = np.cumsum(sorted(gains, reverse=True))
    limit = np.mean([np.cumsum(gains)[r] / ideal[r] for r in (1, 2, 4)])
    assert value == pytest.approx(limit, rel=1e-9)
    tied = q_measure_score(labels, [2.0, 2.0, 1.0, 1.0, 1.0], beta=beta, gain=gain)  # the tie-averaged route
    assert np.isfinite(tied) and 0.0 <= tied <= 1.0


def test_q_measure_with_beta_above_one_divided_through_equals_the_oracle():
    rng = np.random.default_rng(0)
    for _ in range(50):
        labels = list(rng.choice([0, 0, 1, 2, 3], int(rng.integers(1, 9))))
        beta = float(rng.choice([1.5, 3.0, 10.0, 1e3]))
        expected = naive.q_measure(labels, beta=beta)
        value = q_measure_score(labels, np.arange(len(labels), 0, -1.0), beta=beta)
        assert value == pytest.approx(0.0 if expected is None else expected, rel=1e-13)


# ---- item 11: any k, 2**63 and beyond --------------------------------------------------------------


def calls_with_k():
    """Every registered metric with a cutoff k, with inputs of its family, as (name, call of k)."""
    rng = np.random.default_rng(0)
    labels, scores = rng.integers(0, 3, (4, 6)).astype(float), rng.random((4, 6))
    judgements, diverse_scores = (rng.random((12, 3)) < 0.4).astype(float), rng.random(12)
    popularity, features = rng.uniform(0.05, 1.0, 6), rng.random((6, 3))
    extra = {
        "novelty": {"item_popularity": popularity},
        "arp": {"item_popularity": popularity},
        "aplt": {"item_popularity": popularity},
        "ild": {"item_features": features},
        "serendipity": {"y_true": labels, "baseline_score": scores[::-1]},
        "expected_exposure": {"y_true": labels},
    }
    for record in REGISTRY.values():
        if "k" not in inspect.signature(record.function).parameters:
            continue
        function, options = record.function, extra.get(record.canonical, {})
        if record.family in ("ranking", "curve"):
            yield record.canonical, lambda k, f=function: f(labels, scores, k=k)
        elif record.family == "diversity":
            yield record.canonical, lambda k, f=function: f(judgements, diverse_scores, qid=np.arange(12) % 2, k=k)
        elif record.family == "comparison":
            yield record.canonical, lambda k, f=function: f(scores[0], scores[1], k=k)
        elif record.canonical == "catalog_coverage":
            yield record.canonical, lambda k, f=function: f(y_score=scores, k=k)
        else:
            yield record.canonical, lambda k, f=function, o=options: f(scores, k=k, **o)


@pytest.mark.parametrize(("name", "call"), list(calls_with_k()), ids=[name for name, _ in calls_with_k()])
def test_every_metric_with_a_cutoff_takes_k_beyond_2_to_the_63_as_the_whole_list(name, call):
    whole = call(10**15)  # far past every list
    for k in (2**63 - 1, 2**63, 2**70, 10**30):
        value = call(k)
        # P@k and F1@k divide by k: values of order 1/k, within 1e-15 of each other.
        np.testing.assert_allclose(value, whole, rtol=1e-12, atol=1e-14, err_msg=f"{name} at k={k}")


def test_a_name_with_a_cutoff_of_2_to_the_63_is_refused_by_the_name_and_taken_by_the_function():
    with pytest.raises(ValueError, match=r"k must be below 2\*\*63"):
        metric_info(f"ndcg@{2**63}")
    assert sklearn_rankmetrics.ndcg_score([1, 0], [2.0, 1.0], k=2**63) == 1.0


# ---- item 15: a name cannot set the data ------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "ndcg@10(qid=None)",
        "map(sample_weight=None)",
        "bpref(judged=None)",
        "ndcg(y_true=1)",
        "P@5(y_score=1)",
        "ndcg@10(candidates=1)",
        "recall@5(candidates=None)",
    ],
)
def test_a_name_that_sets_a_data_argument_is_refused_when_parsed(name):
    option = name[name.index("(") + 1 : name.index("=")]
    message = f"sets {option}, which carries the data"
    with pytest.raises(ValueError, match=message):
        metric_info(name)
    with pytest.raises(ValueError, match=message):
        get_ranking_scorer(name)
