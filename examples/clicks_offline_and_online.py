"""
Is the new ranker better? Offline from clicks, and online by interleaving
=========================================================================

A production ranker logged clicks; a new ranker is proposed. Offline, the logged clicks estimate the new
ranker's DCG by inverse propensity scoring (IPS), once the position bias is estimated from the same log.
Online, interleaving shows both rankers' results in one list and counts whose documents get the clicks;
a power curve says how many queries it needs. Users here follow a known position-based click model, so
every estimate can be checked against the truth.
"""

# %%
# A click log from a known position-based model
# ---------------------------------------------
# 20,000 impressions of 8 documents; the production ranker varies its order (documents appear at several
# positions), and users examine position r with probability ``attention[r]`` and click an examined document
# with its attractiveness (0.05, 0.3 or 0.8 by its relevance grade).
import matplotlib.pyplot as plt
import numpy as np

from sklearn_rankmetrics.counterfactual import (
    PositionBasedModel,
    estimate_position_propensity,
    interleave,
    ips_interval,
    ips_score,
)

rng = np.random.default_rng(0)
n, k = 20_000, 8
attention = 1 / np.arange(1, k + 1) ** 0.8
qid = np.repeat(np.arange(n), k)
grade = rng.integers(0, 3, n * k)
attractiveness = np.array([0.05, 0.3, 0.8])[grade]
production = grade + rng.normal(scale=1.5, size=n * k)  # a weak ranker
position = np.empty(n * k, dtype=int)
position[np.lexsort((-production, qid))] = np.tile(np.arange(1, k + 1), n)
users = PositionBasedModel(attention=attention)
clicks = users.simulate(attractiveness, production, qid=qid, random_state=1)
doc_id = grade * 1000 + rng.integers(0, 50, n * k)  # 150 documents recur across impressions (EM needs that)

# %%
# Offline: propensities, then IPS
# -------------------------------
# EM on the position-based model recovers the attention relative to position 1.
propensity_by_rank = estimate_position_propensity(clicks, qid=qid, position=position, doc_id=doc_id, max_iter=100)
print("estimated:", propensity_by_rank.round(2))
print("true:     ", (attention / attention[0]).round(2))
propensity = propensity_by_rank[position - 1]

new = grade + rng.normal(scale=0.5, size=n * k)  # the candidate: closer to the grades
for name, scores in (("production", production), ("new", new)):
    estimate = ips_score(clicks, scores, qid=qid, propensity=propensity, metric="dcg@5")
    low, high = ips_interval(
        clicks, scores, qid=qid, propensity=propensity, metric="dcg@5", n_resamples=500, random_state=0
    )
    ranks = np.empty(n * k, dtype=int)
    ranks[np.lexsort((-scores, qid))] = np.tile(np.arange(1, k + 1), n)
    truth = np.sum(attractiveness * (ranks <= 5) / np.log2(ranks + 1)) / n / attention[0]
    print(f"{name:>10}: IPS DCG@5 {estimate:.3f} [{low:.3f}, {high:.3f}], true {truth:.3f}")

# %%
# Online: interleave the two rankers
# ----------------------------------
# Team-draft interleaving shows each query one list drawn from both rankings; the simulated users click it
# and ``credit`` counts the wins. Power: how often a sign test at 5% detects the better ranker with n queries.
production_lists = np.argsort(-production.reshape(n, k), axis=1)
new_lists = np.argsort(-new.reshape(n, k), axis=1)
appeal = attractiveness.reshape(n, k)


def detects(n_queries, seed):
    pick = np.random.default_rng(seed).choice(n, n_queries, replace=False)
    shown = interleave(new_lists[pick], production_lists[pick], method="team_draft", random_state=seed)
    rows = np.arange(n_queries)[:, None]
    session_qid = np.repeat(np.arange(n_queries), k)
    order = -np.tile(np.arange(k, dtype=float), n_queries)
    seen = users.simulate(appeal[pick][rows, shown.ranking_].reshape(-1), order, qid=session_qid, random_state=seed)
    outcome = shown.credit(seen.reshape(n_queries, k).astype(int))
    return outcome.pvalue < 0.05 and outcome.wins > outcome.losses


sizes = [25, 50, 100, 200, 400]
power = [np.mean([detects(size, seed) for seed in range(40)]) for size in sizes]
for size, value in zip(sizes, power, strict=False):
    print(f"{size:>4} queries: power {value:.2f}")

fig, ax = plt.subplots(figsize=(5, 3.5))
ax.plot(sizes, power, marker="o")
ax.set_xscale("log")
ax.set_xlabel("queries interleaved")
ax.set_ylabel("power (sign test, 5%)")
ax.set_title("Team-draft interleaving: new vs production")
plt.show()
