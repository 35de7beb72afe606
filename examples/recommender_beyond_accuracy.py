"""
Recommenders beyond accuracy, and sampled evaluation done right
===============================================================

Three recommenders on generated implicit feedback: a latent-factor model, the most popular items,
and random items. Accuracy alone ranks popularity second; the metrics beyond accuracy show what
each one's lists are made of: coverage, popularity bias, novelty, diversity, serendipity and the
fairness of the exposure it gives item providers. Then the same models are scored the way many
papers do, on 100 sampled negatives per user, naively and with Krichene & Rendle's corrections.
"""

# %%
# Interactions and three models
# -----------------------------
import numpy as np
import scipy.sparse as sp

import sklearn_rankmetrics as rm

rng = np.random.default_rng(0)
n_users, n_items, n_factors = 1_000, 600, 8
user_factors = rng.normal(size=(n_users, n_factors))
item_factors = rng.normal(size=(n_items, n_factors))
popularity_bias = np.linspace(2, -2, n_items)  # the first items are the most popular
affinity = user_factors @ item_factors.T / np.sqrt(n_factors) + popularity_bias
interacted = rng.random(affinity.shape) < 1 / (1 + np.exp(6 - 2 * affinity))
seen = interacted & (rng.random(affinity.shape) < 0.8)  # training interactions
held_out = sp.csr_array(interacted & ~seen)  # to evaluate

share = np.maximum(seen.mean(axis=0), 1 / n_users)  # share of training users per item
counts = seen.sum(axis=0)  # training interactions per item
providers = rng.integers(0, 5, n_items)  # the provider of each item

models = {
    "latent factors": affinity + rng.normal(0, 1.0, affinity.shape),
    "popularity": np.broadcast_to(counts + rng.random(n_items) * 0.1, affinity.shape),
    "random": rng.random(affinity.shape),
}
models = {name: np.where(seen, -np.inf, scores) for name, scores in models.items()}  # never re-recommend
print(f"{n_users} users x {n_items} items, {held_out.nnz} held-out interactions")

# %%
# Accuracy and everything else
# ----------------------------
# Every metric reads the same users x items score matrix (column j is item j) and each user's top
# 10. Ties would be averaged exactly; here scores are continuous. Serendipity counts the relevant
# items that the popularity baseline would not have shown.
rows = []
for name, scores in models.items():
    rows.append(
        {
            "model": name,
            "NDCG@10": rm.ndcg_score(held_out, scores, k=10, zero_division=np.nan),
            "coverage": rm.catalog_coverage(y_score=scores, k=10),
            "Gini": rm.gini_index(scores, k=10),
            "novelty": rm.novelty_score(scores, item_popularity=share, k=10),
            "APLT": rm.long_tail_share_score(scores, item_popularity=counts, k=10),
            "ILD": rm.intra_list_diversity_score(scores, item_features=item_factors, k=10),
            "serendipity": rm.serendipity_score(scores, y_true=held_out, baseline_score=models["popularity"], k=10),
            "EE-L (providers)": rm.expected_exposure_loss(scores, y_true=held_out, item_groups=providers, k=10),
        }
    )
columns = list(rows[0])
print(" ".join(f"{column:>16}" for column in columns))
for row in rows:
    print(
        " ".join(f"{row[column]:>16}" if isinstance(row[column], str) else f"{row[column]:16.4f}" for column in columns)
    )

# %%
# The popularity model is accurate but shows a sliver of the catalogue, with a Gini index near 1
# and almost no long-tail items; random lists are diverse and novel but useless. The latent-factor
# model is both accurate and broader, and it finds relevant items the popularity baseline misses.

# %%
# Sampled evaluation
# ------------------
# Draw one candidate set, shared by every model: each user's held-out items and 100 items it has
# not seen. The naive metric on the candidates is several times too high; the corrected
# estimates come back close to the full-catalogue value here, where the full values are small (for
# accurate models they fall short: see the user guide's *Sampled evaluation*).
candidates = rm.sample_candidates(held_out, n_negatives=100, exclude=sp.csr_array(seen), random_state=0)
print(f"{'model':<16} {'full':>8} {'naive':>8} {'bv':>8} {'cls':>8}   (Recall@10)")
for name, scores in models.items():
    values = [
        rm.recall_at_k_score(held_out, scores, k=10, zero_division=np.nan),
        *(
            rm.recall_at_k_score(
                held_out, scores, k=10, candidates=candidates, sampled_correction=correction, zero_division=np.nan
            )
            for correction in (None, "bv", "cls")
        ),
    ]
    print(f"{name:<16} " + " ".join(f"{value:8.4f}" for value in values))
