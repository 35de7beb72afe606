"""Every fusion method and normalisation equals ranx 0.3.21's, to 1e-12, on random runs.

Without ties under the default ``ties="average"``; with many ties under
``ties="ranx"`` (numba's quicksort order, lists longer than 16 documents so
that it is not the input order). Where the definitions differ on purpose
(Condorcet where the majority relation is no order, rank-based methods after
a Borda normalisation), the tests say so and check ours elsewhere.
"""

import warnings

import numpy as np
import pytest

from sklearn_rankmetrics.fusion import fuse

ranx = pytest.importorskip("ranx")
from ranx import fusion as ranx_fusion  # noqa: E402

WEIGHTS = [0.2, 0.5, 0.3]
# method, its parameters in ranx's params and in ours
UNSUPERVISED = [
    ("sum", {}, {}),
    ("mnz", {}, {}),
    ("anz", {}, {}),
    ("max", {}, {}),
    ("min", {}, {}),
    ("med", {}, {}),
    ("gmnz", {"gamma": 0.5}, {"gamma": 0.5}),
    ("wsum", {"weights": WEIGHTS}, {"weights": WEIGHTS}),
    ("wmnz", {"weights": WEIGHTS}, {"weights": WEIGHTS}),
    ("mixed", {"weights": WEIGHTS}, {"weights": WEIGHTS}),
    ("isr", {}, {}),
    ("log_isr", {}, {}),
    ("logn_isr", {"sigma": 0.1}, {"sigma": 0.1}),
    ("rrf", {"k": 10}, {"k": 10}),
    ("rbc", {"phi": 0.7}, {"phi": 0.7}),
    ("bordafuse", {}, {}),
    ("w_bordafuse", {"weights": WEIGHTS}, {"weights": WEIGHTS}),
]
NORMALIZATIONS = [None, "min-max", "max", "sum", "zmuv", "rank", "borda", "min-max-inverted"]
RANK_BASED = {"isr", "log_isr", "logn_isr", "rrf", "rbc", "bordafuse", "w_bordafuse"}


def random_runs(seed, *, ties, n_runs=3, n_queries=5):
    """Runs of 20 to 50 documents per query from a pool of 70, and judgements of 30 documents per query."""
    rng = np.random.default_rng(seed)
    runs = []
    for _ in range(n_runs):
        run = {}
        for query in range(n_queries):
            size = int(rng.integers(20, 50))
            docs = rng.choice(70, size, replace=False)
            scores = rng.integers(0, 5, size).astype(float) if ties else rng.normal(size=size)
            run[f"q{query}"] = {f"d{doc}": float(score) for doc, score in zip(docs, scores, strict=True)}
        runs.append(run)
    qrels = {
        f"q{query}": {f"d{doc}": int(rng.integers(0, 3)) for doc in rng.choice(70, 30, replace=False)}
        for query in range(n_queries)
    }
    return runs, qrels


def as_dict(run):
    nested = {}
    for query, doc, score in zip(run.query_id, run.doc_id, run.score, strict=True):
        nested.setdefault(query, {})[doc] = score
    return nested


def assert_same(ours, theirs):
    theirs = theirs.to_dict()
    ours = as_dict(ours)
    assert ours.keys() == theirs.keys()
    for query in theirs:
        assert ours[query].keys() == theirs[query].keys()
        docs = list(theirs[query])
        np.testing.assert_allclose(
            [ours[query][doc] for doc in docs], [theirs[query][doc] for doc in docs], rtol=1e-12, atol=1e-12
        )


def both(seed, ties):
    runs, qrels = random_runs(seed, ties=ties)
    return (
        runs,
        qrels,
        [ranx.Run(run, name=f"r{index}") for index, run in enumerate(runs)],
        "ranx" if ties else "average",
    )


@pytest.fixture(scope="module")
def tie_free():
    return both(0, ties=False)


@pytest.fixture(scope="module")
def tied():
    return both(1, ties=True)


@pytest.fixture(scope="module", params=[False, True], ids=["no ties", "ties"])
def runs(request, tie_free, tied):
    return tied if request.param else tie_free


def cases():
    """Every method after min-max; every normalisation through CombSUM, CombMNZ, CombMED and RRF; and, on runs
    with ties, the methods that read ranks (the others are order-free), without and with a reversing
    normalisation. ranx ranks Borda's filled documents in Python's set order: rank-based methods after a Borda
    normalisation are left out (ours leaves them unranked)."""
    by_name = {method: (theirs, ours) for method, theirs, ours in UNSUPERVISED}
    for method in by_name:
        yield False, method, "min-max"
    for normalization in NORMALIZATIONS:
        for method in ("sum", "mnz", "med", "rrf"):
            if normalization != "min-max" and not (normalization == "borda" and method in RANK_BASED):
                yield False, method, normalization
    for method in sorted(RANK_BASED):
        for normalization in (None, "min-max-inverted"):
            yield True, method, normalization


CASES = list(cases())


@pytest.mark.parametrize(("with_ties", "method", "normalization"), CASES, ids=[f"{m}-{n}-{t}" for t, m, n in CASES])
def test_equals_ranx(tie_free, tied, with_ties, method, normalization):
    runs, _, ranx_runs, ties = tied if with_ties else tie_free
    theirs, ours = next((t, o) for m, t, o in UNSUPERVISED if m == method)
    expected = ranx.fuse(ranx_runs, norm=normalization, method=method, params=theirs)
    assert_same(fuse(runs, method=method, normalization=normalization, ties=ties, **ours), expected)


SUPERVISED = [  # method, what ranx learns, its other parameters in ranx's params and in ours, ranx's training
    ("posfuse", "probs", {}, {}, lambda q, r: ranx_fusion.posfuse_train(q, r)),
    ("slidefuse", "probs", {"w": 3}, {"w": 3}, lambda q, r: ranx_fusion.slidefuse_train(q, r)),
    ("segfuse", "probs", {}, {}, lambda q, r: ranx_fusion.segfuse_train(q, r)),
    ("bayesfuse", "log_odds", {}, {}, lambda q, r: ranx_fusion.bayesfuse_train(q, r)),
    ("mapfuse", "map_scores", {}, {}, lambda q, r: ranx_fusion.mapfuse_train(q, r)),
    ("probfuse", "probs", {}, {"n_segments": 7}, lambda q, r: ranx_fusion.probfuse_train(q, r, 7)),
]


@pytest.mark.parametrize(("method", "key", "theirs", "ours", "learn"), SUPERVISED, ids=[m for m, *_ in SUPERVISED])
def test_supervised_methods_equal_ranx(runs, method, key, theirs, ours, learn):
    runs, qrels, ranx_runs, ties = runs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ranx's numba casts
        learned = learn(ranx.Qrels(qrels), ranx_runs)
        expected = ranx.fuse(ranx_runs, norm="min-max", method=method, params={key: learned, **theirs})
    assert_same(fuse(runs, method=method, normalization="min-max", qrels=qrels, ties=ties, **ours), expected)


def test_supervised_methods_learn_on_training_runs_and_fuse_others():
    (train_a, train_b), qrels = random_runs(2, ties=False, n_runs=2)
    (test_a, test_b), _ = random_runs(3, ties=False, n_runs=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ranx's numba casts
        learned = ranx_fusion.probfuse_train(ranx.Qrels(qrels), [ranx.Run(train_a), ranx.Run(train_b)], 4)
        test_runs = [ranx.Run(test_a), ranx.Run(test_b)]
        expected = ranx.fuse(test_runs, norm=None, method="probfuse", params={"probs": learned})
    ours = fuse([test_a, test_b], method="probfuse", n_segments=4, qrels=qrels, train_runs=[train_a, train_b])
    assert_same(ours, expected)


def majority_order_runs(seed, n_queries=6, n_docs=25):
    """Three runs over the same documents, each a noisy copy of one ranking."""
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(n_queries, n_docs))
    runs = []
    for _ in range(3):
        scores = base + 0.2 * rng.normal(size=base.shape)
        runs.append(
            {f"q{q}": {f"d{d}": float(scores[q, d]) for d in rng.permutation(n_docs)} for q in range(n_queries)}
        )
    return runs


@pytest.mark.parametrize(("method", "weights"), [("condorcet", None), ("w_condorcet", [0.5, 0.3, 0.4])])
def test_condorcet_equals_ranx_where_the_majority_is_an_order(method, weights):
    runs = majority_order_runs(1)
    ours = as_dict(fuse(runs, method=method, weights=weights))
    theirs = ranx.fuse(
        [ranx.Run(run) for run in runs], norm=None, method=method, params={"weights": weights} if weights else {}
    ).to_dict()
    compared = 0
    for query, scores in ours.items():
        values = sorted(scores.values())
        if values != list(range(1, len(values) + 1)):  # votes cycle in this query: no order to agree on
            continue
        compared += 1
        assert scores == pytest.approx(theirs[query], abs=1e-12)
    assert compared >= 2
