"""
Many systems, several seeds: Tukey's HSD, maxT, power and a table for the paper
===============================================================================

Three model families are trained with three seeds each on LightGBM's lambdarank example data (bundled
with the package) and scored on its 50 test queries. ``compare_rankings`` compares all of them at once
with Sakai's randomised Tukey HSD, through each family's per-query values averaged over its seeds,
while reporting how much the seeds vary; the system x query ANOVA shows where the variation lies;
the randomization test with Westfall-Young's maxT compares two challengers with a baseline;
``queries_needed`` and ``paired_t_power`` say how many queries the undecided differences would need;
``to_markdown`` prints the table a paper shows.
"""

# %%
# Three families, three seeds each
# --------------------------------
# A system given as a list of score arrays is one run per seed: stochastic gradient descent's
# shuffling and the forests' feature sampling make every seed a different model.
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.ensemble import ExtraTreesRegressor, RandomForestRegressor
from sklearn.linear_model import SGDRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_rankmetrics import compare_rankings, load_lambdarank, paired_t_power

X_train, y_train, qid_train = load_lambdarank(subset="train")
X_test, y_test, qid_test = load_lambdarank(subset="test")
trees = {"n_estimators": 10, "max_features": 0.1, "min_samples_leaf": 5, "n_jobs": 1}
families = {
    "linear": lambda seed: make_pipeline(StandardScaler(), SGDRegressor(alpha=0.01, random_state=seed)),
    "forest": lambda seed: RandomForestRegressor(**trees, random_state=seed),
    "extra trees": lambda seed: ExtraTreesRegressor(**trees, random_state=seed),
}
runs = {
    name: [make(seed).fit(X_train, y_train).predict(X_test) for seed in range(3)] for name, make in families.items()
}

# %%
# All pairs at once: the randomised Tukey HSD
# -------------------------------------------
# Every resample permutes each query's values across the systems; a pair is significant when the
# largest permuted difference of means rarely reaches its own, so the three pairs are adjusted
# together. ``correction`` then adjusts across the two metrics. The ``±`` is the standard deviation
# of each family's mean over its seeds: the tests average the seeds away, the table does not.
metrics = ["ndcg@10", "map"]
tukey = compare_rankings(
    y_test, runs, qid=qid_test, metrics=metrics, test="randomized-tukey-hsd", random_state=0, n_resamples=5000
)
print(tukey)

# %%
# Where the variation lies
# ------------------------
# The two-way ANOVA of NDCG@10 with the seed nested in the family (``run``): the queries vary far
# more than the families, which vary far more than the seeds.
print(tukey.anova("ndcg@10").round(4))

# %%
# A baseline and two challengers: randomization test with maxT
# ------------------------------------------------------------
# maxT adjusts from the randomization test's own sign flips, so it knows that the four
# (pair, metric) tests are correlated and is never more severe than Bonferroni.
maxt = compare_rankings(
    y_test, runs, qid=qid_test, metrics=metrics, baseline="linear", correction="maxT", random_state=0
)
frame = maxt.to_frame(kind="pairs")
columns = ["system", "metric", "delta", "pvalue", "pvalue_adjusted", "effect_size", "wins", "losses"]
print(frame[columns].round(4).to_string(index=False))

# %%
# How many queries would decide?
# ------------------------------
# Fifty queries are few. For each pair, the paired t-test's topic set size for its observed
# standardized difference: the queries needed to detect a difference that large with 80% power.
# It warns where a pair is not significant and needs more queries than these 50.
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    needed = tukey.queries_needed("ndcg@10", power=0.8)
print(needed)
for warning in caught:
    print("warning:", str(warning.message)[:160], "...")

# %%
# The power of the paired t-test for each pair's observed effect size, as the number of queries grows.
values = tukey.per_query["ndcg@10"]
queries = np.arange(10, 401, 10)
fig, ax = plt.subplots(figsize=(6, 3.5))
for a, b in needed:
    d = values[b] - values[a]
    ax.plot(queries, paired_t_power(d.mean() / d.std(ddof=1), queries), label=f"{b} - {a}")
ax.axhline(0.8, color="gray", linewidth=0.8, linestyle="--")
ax.axvline(len(d), color="black", linewidth=0.8)
ax.set_xlabel("queries")
ax.set_ylabel("power of the paired t-test")
ax.set_title("NDCG@10: power to detect each observed difference")
ax.legend()

# %%
# The table for the paper
# -----------------------
# ranx-style: each system's letter, superscripts naming the systems a mean is significantly better
# than, the best mean bold, bootstrap intervals in brackets. ``to_latex()`` gives the same table for
# LaTeX, ``to_json()`` saves the whole comparison.
print(tukey.to_markdown())
plt.show()
