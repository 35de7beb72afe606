"""
Evaluating a recommender
========================

Users are queries and items documents. A matrix-factorisation-like model scores every item for
every user; the items a user interacted with in training are masked with ``-inf`` (already seen,
never recommended again), and the held-out interactions, a scipy sparse users x items matrix, are
the relevance labels. Only each user's top k and the held-out items are ranked, so the sparse
matrix is never densified.
"""

# %%
# Interactions and scores
# -----------------------
import numpy as np
import scipy.sparse as sp

from sklearn_rankmetrics import catalog_coverage, hit_rate_score, ndcg_score, ranking_report

rng = np.random.default_rng(0)
n_users, n_items, n_factors = 2_000, 1_000, 8
users = rng.normal(size=(n_users, n_factors))
items = rng.normal(size=(n_items, n_factors))
popularity = np.linspace(2, -2, n_items)  # a long tail: the first items are the most popular
affinity = users @ items.T / np.sqrt(n_factors) + popularity
interacted = rng.random((n_users, n_items)) < 1 / (1 + np.exp(6 - 2 * affinity))  # implicit feedback
seen = interacted & (rng.random(interacted.shape) < 0.8)  # 80% of interactions for training
held_out = sp.csr_matrix(interacted & ~seen)  # the rest, to evaluate

noisy = affinity + rng.normal(0, 1.0, affinity.shape)  # the model's scores: a noisy affinity
scores = np.where(seen, -np.inf, noisy)  # seen items are not recommended again
print(f"{n_users} users x {n_items} items, {held_out.nnz} held-out interactions")

# %%
# Top-k metrics
# -------------
# Users with no held-out interaction have nothing to find: ``zero_division=np.nan`` leaves them
# out of the means. With the default (they score 0), ``ranking_report`` warns how many of them
# entered each mean. Recall divides the held-out items found in the top 10 by all of the user's
# held-out items, so a user with more than 10 of them cannot reach 1; ``denominator='capped'``
# divides by at most 10, as recommender papers do.
print(f"HR@10   {hit_rate_score(held_out, scores, k=10, zero_division=np.nan):.4f}")
print(f"NDCG@10 {ndcg_score(held_out, scores, k=10, zero_division=np.nan):.4f}")
metrics = ["precision@10", "recall@10", "recall@10(denominator='capped')", "map@10", "mrr@10"]
report = ranking_report(held_out, scores, metrics=metrics)
for name, value in report.items():
    print(f"{name:<32} {value:.4f}")

# %%
# Catalogue coverage
# ------------------
# The share of the catalogue that appears in some user's top 10, from the users x items score
# matrix itself (column j is item j). Recommending by popularity alone finds fewer of the held-out
# items and shows a small corner of the catalogue.
by_popularity = np.where(seen, -np.inf, popularity)
for name, candidate in [("model", scores), ("popularity", by_popularity)]:
    coverage = catalog_coverage(y_score=candidate, k=10)
    hit_rate = hit_rate_score(held_out, candidate, k=10, zero_division=np.nan)
    print(f"{name:<10} HR@10 {hit_rate:.4f}  coverage@10 {coverage:.3f}")
