"""
Fusing a lexical and a dense run
================================

Hybrid search fuses the result lists of a lexical retriever (BM25) and a dense one. The
example builds both runs for 60 queries of a collection of its own, fuses them with
reciprocal rank fusion and with a weighted sum of normalised scores, and then tunes the
weighted sum by grouped cross-validation: each weight is scored on queries held out from
the ones that chose it.
"""

# %%
# Two runs that are right about different documents
# -------------------------------------------------
# Each query has 300 documents, some relevant (grades 1 and 2). The lexical run scores exact
# matches: sharp on some relevant documents, blind to others. The dense run sees every
# relevant document a little, with more noise. Each retrieves its top 100.
import numpy as np

from sklearn_rankmetrics.fusion import fuse, optimize_fusion
from sklearn_rankmetrics.trec import evaluate_run

rng = np.random.default_rng(0)
qrels, lexical, dense = {}, {}, {}
for q in range(60):
    grades = rng.choice([0, 0, 0, 0, 0, 0, 1, 2], size=300)
    matched = rng.random(300) < 0.5  # the relevant documents that share the query's words
    bm25 = 3.0 * grades * matched + rng.gumbel(0, 1.0, 300)
    embedding = 1.2 * grades + rng.normal(0, 1.0, 300)
    qid = f"q{q}"
    qrels[qid] = {f"d{d}": int(g) for d, g in enumerate(grades) if g > 0}
    lexical[qid] = {f"d{d}": float(bm25[d]) for d in np.argsort(-bm25)[:100]}
    dense[qid] = {f"d{d}": float(embedding[d]) for d in np.argsort(-embedding)[:100]}

measures = ["ndcg_cut.10", "map"]
for name, run in (("lexical", lexical), ("dense", dense)):
    values = evaluate_run(qrels, run, measures)
    print(f"{name:<22} nDCG@10 {values['ndcg_cut_10']:.4f}  MAP {values['map']:.4f}")

# %%
# Fusing them
# -----------
# RRF needs no scale: it adds 1 / (k + rank) over the runs. A weighted sum needs the scores on
# one scale first: min-max normalisation per run and query. Tied scores share the average of
# their ranks, so the fused run never depends on the order of the input.
rrf = fuse({"lexical": lexical, "dense": dense}, method="rrf", k=60)
wsum = fuse({"lexical": lexical, "dense": dense}, method="wsum", normalization="min-max")
for name, run in (("RRF (k=60)", rrf), ("W-Sum (0.5, 0.5)", wsum)):
    values = evaluate_run(qrels, run, measures)
    print(f"{name:<22} nDCG@10 {values['ndcg_cut_10']:.4f}  MAP {values['map']:.4f}")

# %%
# Tuning the weights on held-out queries
# --------------------------------------
# optimize_fusion searches ranx's grid of weights (multiples of 0.1 summing to 1) with 5-fold
# GroupKFold over the queries. Its held-out score scores each fold with the weights that the
# other folds chose: an honest estimate of what tuning gives on new queries. The best weights'
# own mean chose itself on those folds, and is optimistic.
search = optimize_fusion([lexical, dense], qrels, method="wsum", normalization="min-max", metric="ndcg@10")
print(search.validation)
print(
    f"best weights {search.best_params['weights']}: held-out nDCG@10 {search.held_out_score:.4f}, "
    f"its own mean {search.best_score:.4f}"
)
scores = search.cv_results["mean_test_score"]
for weights, score in zip(search.cv_results["params"], scores, strict=True):
    print(f"  weights {weights['weights']}: {score:.4f}")

# %%
# The same search scores each setting on the queries it tunes on with ``cv=None``, as ranx's
# optimize_fusion does: its best score is higher, and optimistic (it warns).
import warnings  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    in_sample = optimize_fusion([lexical, dense], qrels, method="wsum", normalization="min-max", cv=None)
print(f"tuned and scored on the same queries: {in_sample.best_params['weights']}, {in_sample.best_score:.4f}")
fused = search.fuse([lexical, dense])
values = evaluate_run(qrels, fused, measures)
print(f"{'W-Sum (tuned)':<22} nDCG@10 {values['ndcg_cut_10']:.4f}  MAP {values['map']:.4f}")
