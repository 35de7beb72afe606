"""Agreement with independent implementations: scikit-learn, trec_eval and worked examples."""

import numpy as np
import pytest
import pytrec_eval
import sklearn.metrics

from sklearn_rankmetrics import (
    cumulative_gain_score,
    dcg_score,
    expected_reciprocal_rank_score,
    mean_average_precision_score,
    mean_reciprocal_rank_score,
    ndcg_score,
    precision_at_k_score,
    r_precision_score,
    recall_at_k_score,
)


def padded_with_ties(seed, n_queries=40, n_docs=9):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 5, (n_queries, n_docs)).astype(float)
    y_score = rng.integers(0, 4, (n_queries, n_docs)) / 4.0  # many ties
    return y_true, y_score


@pytest.mark.parametrize("k", [None, 1, 3, 5])
@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize(
    ("ours", "theirs"), [(ndcg_score, sklearn.metrics.ndcg_score), (dcg_score, sklearn.metrics.dcg_score)]
)
def test_matches_sklearn_in_2d_and_grouped_form(ours, theirs, k, seed):
    y_true, y_score = padded_with_ties(seed)
    expected = theirs(y_true, y_score, k=k)
    assert ours(y_true, y_score, k=k) == pytest.approx(expected, rel=1e-12)
    qid = np.repeat(np.arange(len(y_true)), y_true.shape[1])
    rows = np.random.default_rng(seed).permutation(y_true.size)  # rows of a query need not be contiguous
    grouped = ours(y_true.ravel()[rows], y_score.ravel()[rows], qid=qid[rows], k=k)
    assert grouped == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_matches_sklearn_with_sample_weight_and_ignore_ties(seed):
    y_true, y_score = padded_with_ties(seed)
    weight = np.random.default_rng(seed).uniform(0, 2, len(y_true))
    expected = sklearn.metrics.ndcg_score(y_true, y_score, k=4, sample_weight=weight)
    assert ndcg_score(y_true, y_score, k=4, sample_weight=weight) == pytest.approx(expected, rel=1e-12)
    # sklearn's ignore_ties=True reverses an unstable ascending sort: comparable without ties only
    distinct = y_score + np.random.default_rng(seed).permutation(y_score.size).reshape(y_score.shape) * 1e-6
    expected = sklearn.metrics.ndcg_score(y_true, distinct, k=4, ignore_ties=True)
    for ties in ("stable", "average", "pessimistic"):
        assert ndcg_score(y_true, distinct, k=4, ties=ties) == pytest.approx(expected, rel=1e-12)


def tie_free_queries(seed, n_queries=30):
    """Ragged queries with distinct scores, some without any relevant document."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 25, n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    y_true = rng.choice([0, 0, 0, 1, 2, 3], qid.size).astype(float)
    y_true[qid == 0] = 0  # a judged query without relevant documents
    y_score = rng.permutation(qid.size) / qid.size
    return y_true, y_score, qid


def trec_eval(y_true, y_score, qid, measures):
    """Per-query trec_eval values, in the order of np.unique(qid)."""
    qrels, run = {}, {}
    for row, (label, score, q) in enumerate(zip(y_true, y_score, qid, strict=True)):
        qrels.setdefault(str(q), {})[f"d{row}"] = int(label)
        run.setdefault(str(q), {})[f"d{row}"] = float(score)
    names = {m.split(".")[0] if "." not in m else m for m in measures}
    results = pytrec_eval.RelevanceEvaluator(qrels, names).evaluate(run)
    return {key: np.array([results[str(q)][key] for q in np.unique(qid)]) for key in next(iter(results.values()))}


CUTOFFS = [1, 3, 5, 10, 20]
MEASURES = [
    f"ndcg_cut.{','.join(map(str, CUTOFFS))}",
    "ndcg",
    "map",
    f"map_cut.{','.join(map(str, CUTOFFS))}",
    f"P.{','.join(map(str, CUTOFFS))}",
    f"recall.{','.join(map(str, CUTOFFS))}",
    "recip_rank",
    "Rprec",
]


@pytest.mark.parametrize("seed", range(6))
def test_matches_trec_eval(seed):
    y_true, y_score, qid = tie_free_queries(seed)
    reference = trec_eval(y_true, y_score, qid, MEASURES)
    ours = {
        "ndcg": ndcg_score(y_true, y_score, qid=qid, average=False),
        "map": mean_average_precision_score(y_true, y_score, qid=qid, average=False),
        "recip_rank": mean_reciprocal_rank_score(y_true, y_score, qid=qid, average=False),
        "Rprec": r_precision_score(y_true, y_score, qid=qid, average=False),
    }
    for k in CUTOFFS:
        ours[f"ndcg_cut_{k}"] = ndcg_score(y_true, y_score, qid=qid, k=k, average=False)
        ours[f"map_cut_{k}"] = mean_average_precision_score(y_true, y_score, qid=qid, k=k, average=False)
        ours[f"P_{k}"] = precision_at_k_score(y_true, y_score, qid=qid, k=k, average=False)
        ours[f"recall_{k}"] = recall_at_k_score(y_true, y_score, qid=qid, k=k, average=False)
    for name, values in ours.items():
        np.testing.assert_allclose(values, reference[name], rtol=1e-12, atol=1e-15, err_msg=name)


@pytest.mark.parametrize("threshold", [2, 3])
def test_relevance_threshold_matches_trec_eval_relevance_level(threshold):
    y_true, y_score, qid = tie_free_queries(7)
    qrels, run = {}, {}
    for row, (label, score, q) in enumerate(zip(y_true, y_score, qid, strict=True)):
        qrels.setdefault(str(q), {})[f"d{row}"] = int(label)
        run.setdefault(str(q), {})[f"d{row}"] = float(score)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P.5", "recip_rank"}, relevance_level=threshold)
    results = evaluator.evaluate(run)
    queries = np.unique(qid)
    for name, ours in [
        ("map", mean_average_precision_score(y_true, y_score, qid=qid, relevance_threshold=threshold, average=False)),
        ("P_5", precision_at_k_score(y_true, y_score, qid=qid, k=5, relevance_threshold=threshold, average=False)),
        (
            "recip_rank",
            mean_reciprocal_rank_score(y_true, y_score, qid=qid, relevance_threshold=threshold, average=False),
        ),
    ]:
        np.testing.assert_allclose(ours, [results[str(q)][name] for q in queries], rtol=1e-12, err_msg=name)


class TestWorkedExamples:
    def test_average_precision(self):
        # rel = 1, 0, 0, 1, 1, 1 in rank order: (1 + 2/4 + 3/5 + 4/6) / 4
        ap = mean_average_precision_score([1, 0, 0, 1, 1, 1], [6, 5, 4, 3, 2, 1])
        assert ap == pytest.approx((1 + 2 / 4 + 3 / 5 + 4 / 6) / 4, rel=1e-15)
        assert round(ap, 4) == 0.6917

    def test_capped_average_precision(self):
        # top 3: rel = 1, 0, 0 -> 1 / min(3, 4)
        kwargs = {"k": 3, "denominator": "capped"}
        assert mean_average_precision_score([1, 0, 0, 1, 1, 1], [6, 5, 4, 3, 2, 1], **kwargs) == pytest.approx(1 / 3)
        kwargs = {"k": 3, "denominator": "relevant"}
        assert mean_average_precision_score([1, 0, 0, 1, 1, 1], [6, 5, 4, 3, 2, 1], **kwargs) == pytest.approx(1 / 4)

    def test_exponential_dcg(self):
        # sum (2**rel - 1) / log2(rank + 1): scikit-learn's dcg_score (linear gain) of the gains 2**rel - 1.
        rank_order = [6, 5, 4, 3, 2, 1]
        for labels in ([3, 1, 2, 3, 2, 0], [3, 3, 2, 2, 1, 0]):
            expected = sklearn.metrics.dcg_score([2 ** np.array(labels) - 1], [rank_order])
            assert dcg_score(labels, rank_order, gain="exponential") == pytest.approx(expected, rel=1e-12)
        assert dcg_score([3, 1, 2, 3, 2, 0], rank_order, gain="exponential") == pytest.approx(13.3062240818, abs=1e-10)
        assert dcg_score([3, 3, 2, 2, 1, 0], rank_order, gain="exponential") == pytest.approx(14.5953907565, abs=1e-10)
        assert ndcg_score([3, 1, 2, 3, 2, 0], rank_order, gain="exponential") == pytest.approx(0.9116730277, abs=1e-10)

    def test_jarvelin_discount(self):
        # DCG = rel_1 + sum_{i >= 2} rel_i / log2(i): 3 + 2/1 + 3/log2(3)
        expected = 3 + 2 + 3 / np.log2(3)
        assert dcg_score([3, 2, 3], [3, 2, 1], discount="jarvelin") == pytest.approx(expected, rel=1e-15)

    def test_callable_discount(self):
        assert dcg_score([3, 2, 3], [3, 2, 1], discount=lambda ranks: 1 / ranks) == pytest.approx(3 + 1 + 1)

    def test_cumulative_gain(self):
        assert cumulative_gain_score([3, 2, 3], [3, 2, 1], k=2) == 5
        assert cumulative_gain_score([3, 2, 3], [3, 2, 1], k=2, gain="exponential") == 10

    def test_err(self):
        # R = (2**g - 1) / 2**3 for grades 3, 2, 0, 1: 7/8, 3/8, 0, 1/8
        expected = 7 / 8 + (1 / 8) * (3 / 8) / 2 + (1 / 8) * (5 / 8) * 1 * (1 / 8) / 4
        assert expected_reciprocal_rank_score([3, 2, 0, 1], [4, 3, 2, 1]) == pytest.approx(expected, rel=1e-15)
        explicit = expected_reciprocal_rank_score([3, 2, 0, 1], [4, 3, 2, 1], max_grade=4)
        assert explicit == pytest.approx(7 / 16 + (9 / 16) * (3 / 16) / 2 + (9 / 16) * (13 / 16) * (1 / 16) / 4)

    def test_precision_divides_by_k_beyond_the_list(self):
        assert precision_at_k_score([1, 1, 0], [3, 2, 1], k=10) == 0.2
