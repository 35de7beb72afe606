"""
One report of a recommender: accuracy and everything beyond it
===============================================================

A recommender is judged by whether the held-out items come back (accuracy) and by what its lists
show as a whole: how much of the catalogue, how popular, how varied, how surprising, how fairly
exposed. :func:`~sklearn_rankmetrics.recommender_report` computes all of it from one reading of the
users x items score matrix, each value equal to its own function's. Here: one model's full report,
then two models side by side, user by user, and on sampled candidates.
"""

# %%
# Interactions and two models
# ---------------------------
import numpy as np
import scipy.sparse as sp

import sklearn_rankmetrics as rm

rng = np.random.default_rng(0)
n_users, n_items, n_factors = 2_000, 800, 8
user_factors = rng.normal(size=(n_users, n_factors))
item_factors = rng.normal(size=(n_items, n_factors))
popularity_bias = np.linspace(2, -2, n_items)  # the first items are the most popular
affinity = user_factors @ item_factors.T / np.sqrt(n_factors) + popularity_bias
interacted = rng.random(affinity.shape) < 1 / (1 + np.exp(6 - 2 * affinity))
seen = interacted & (rng.random(affinity.shape) < 0.8)  # training interactions
held_out = sp.csr_array(interacted & ~seen)  # to evaluate

share = np.maximum(seen.mean(axis=0), 1 / n_users)  # each item's share of training users
providers = rng.integers(0, 5, n_items)  # the provider of each item
popular = np.where(seen, -np.inf, np.broadcast_to(seen.sum(axis=0), affinity.shape).astype(float))

models = {
    "latent factors": affinity + rng.normal(0, 1.0, affinity.shape),
    "popularity": np.broadcast_to(seen.sum(axis=0) + rng.random(n_items) * 0.1, affinity.shape),
}
models = {name: np.where(seen, -np.inf, scores) for name, scores in models.items()}  # never re-recommend
print(f"{n_users} users x {n_items} items, {held_out.nnz} held-out interactions")

# %%
# One model's full report
# -----------------------
# Give the report what the metrics read: the items' popularity (shares of users, for novelty, ARP
# and APLT), their features (for intra-list diversity), a baseline's scores (serendipity counts the
# relevant items it would not have shown) and the items' providers (fairness of exposure). Every
# accuracy metric is computed at the same k; a metric whose input is missing is left out, and
# ``left_out`` says why.
inputs = {"item_popularity": share, "item_features": item_factors, "baseline_score": popular, "item_groups": providers}
report = rm.recommender_report(held_out, models["latent factors"], k=10, zero_division=np.nan, **inputs)
for name, value in report.items():
    print(f"{name:>20} {value:8.4f}")
print("left out:", report.left_out)

# %%
# ``bpref`` has no cutoff: it would make the report rank every item (name it in ``metrics=`` to
# have it). Users without a held-out item have no accuracy value; ``zero_division=np.nan`` leaves
# them out of the means, as for the metrics of the lists.

# %%
# Two models compared
# -------------------
# The same metrics for both models, side by side. ``per_user`` holds each user's value of every
# metric that has one, so the models can also be compared user by user.
names = ["ndcg@10", "recall@10", "catalog_coverage", "gini_index", "novelty", "aplt", "ild", "serendipity"]
reports = {
    model: rm.recommender_report(held_out, scores, k=10, metrics=names, zero_division=np.nan, **inputs)
    for model, scores in models.items()
}
print(f"{'':>18}" + "".join(f"{name:>17}" for name in names))
for model, found in reports.items():
    print(f"{model:>18}" + "".join(f"{found[name]:17.4f}" for name in names))

latent, popularity = (reports[model].per_user["ndcg@10"] for model in models)
both = ~np.isnan(latent) & ~np.isnan(popularity)
difference = latent[both] - popularity[both]
better, worse = np.mean(difference > 0), np.mean(difference < 0)
print(
    f"NDCG@10, latent factors - popularity, over {both.sum()} users with a held-out item: mean "
    f"{difference.mean():.4f}; better for {better:.0%} of them, worse for {worse:.0%}"
)

# %%
# Popularity is not far behind in accuracy, but its lists show a sliver of the catalogue (a Gini
# index near 1), almost no long-tail items, and few relevant items that the popularity baseline
# would not have shown itself.

# %%
# On sampled candidates
# ---------------------
# Many papers rank each user's held-out items among 100 sampled ones. The report takes the same
# ``candidates=`` and ``sampled_correction=`` as the accuracy metrics: the corrected estimates of
# the full-catalogue values (uniformly drawn candidates only), while the metrics of the lists still
# describe the lists drawn from the whole catalogue.
candidates = rm.sample_candidates(held_out, n_negatives=100, exclude=sp.csr_array(seen), random_state=0)
for model, scores in models.items():
    sampled = rm.recommender_report(held_out, scores, k=10, metrics=["recall@10", "ndcg@10"], candidates=candidates,
                                    zero_division=np.nan)  # fmt: skip
    corrected = rm.recommender_report(held_out, scores, k=10, metrics=["recall@10", "ndcg@10"],
                                      candidates=candidates, sampled_correction="bv", zero_division=np.nan)  # fmt: skip
    print(
        f"{model:>16}: recall@10 full {reports[model]['recall@10']:.4f}, naive sampled {sampled['recall@10']:.4f}, "
        f"corrected {corrected['recall@10']:.4f}"
    )
