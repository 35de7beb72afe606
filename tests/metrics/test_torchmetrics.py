"""Agreement with torchmetrics' retrieval metrics (installed by .ci/run beside PyTorch's CPU build).

torchmetrics averages NDCG over ties as this library does; its other retrieval metrics order tied
scores arbitrarily and count a relevant document scored <= 0 as non-relevant in AP, so they are
compared on positive, tie-free scores. Its AP@k divides by the relevant documents found in the top
k, a denominator this library does not offer (``denominator="relevant"`` or ``"capped"``).
"""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
retrieval = pytest.importorskip("torchmetrics.functional.retrieval")

from sklearn_rankmetrics import (  # noqa: E402
    hit_rate_score,
    mean_average_precision_score,
    mean_reciprocal_rank_score,
    ndcg_score,
    precision_at_k_score,
    r_precision_score,
    recall_at_k_score,
)


def queries(seed, n_queries=30, ties=False):
    rng = np.random.default_rng(seed)
    for _ in range(n_queries):
        n_docs = int(rng.integers(1, 15))
        y_true = rng.integers(0, 4, n_docs)
        y_score = rng.integers(0, 4, n_docs) / 4 if ties else rng.permutation(n_docs) + 1.0
        yield y_true, y_score


@pytest.mark.parametrize("k", [None, 1, 3, 10])
@pytest.mark.parametrize("seed", range(3))
def test_ndcg_with_ties_matches_torchmetrics(seed, k):
    for y_true, y_score in queries(seed, ties=True):
        theirs = retrieval.retrieval_normalized_dcg(torch.tensor(y_score), torch.tensor(y_true), top_k=k).item()
        assert ndcg_score(y_true, y_score, k=k) == pytest.approx(theirs, abs=1e-6)  # torchmetrics: float32


@pytest.mark.parametrize(
    ("ours", "theirs", "with_k"),
    [
        (mean_average_precision_score, retrieval.retrieval_average_precision, False),
        (r_precision_score, retrieval.retrieval_r_precision, False),
        (mean_reciprocal_rank_score, retrieval.retrieval_reciprocal_rank, True),
        (precision_at_k_score, retrieval.retrieval_precision, True),
        (recall_at_k_score, retrieval.retrieval_recall, True),
        (hit_rate_score, retrieval.retrieval_hit_rate, True),
    ],
)
@pytest.mark.parametrize("seed", range(3))
def test_binary_metrics_match_torchmetrics(ours, theirs, with_k, seed):
    for k in [1, 3, 10] if with_k else [None]:
        for y_true, y_score in queries(seed):
            relevant = torch.tensor(y_true >= 1)
            kwargs = {"k": k} if with_k else {}
            expected = theirs(torch.tensor(y_score), relevant, **{"top_k": k} if with_k else {}).item()
            assert ours(y_true, y_score, **kwargs) == pytest.approx(expected, abs=1e-6)
