"""
Comparing rankers: paired tests and a metric@k plot
===================================================

Three models are scored on every query by a model that never saw it (out-of-fold predictions over
``GroupKFold``), so that their per-query metrics can be compared pairwise. ``compare_rankings``
runs paired randomization tests with Holm's correction and bootstrap intervals;
``RankingCurveDisplay`` draws NDCG@k for every k from one sort per system, and
``QueryComparisonDisplay`` shows where, query by query, one model beats another.
"""

# %%
# Out-of-fold scores
# ------------------
# ``cross_val_predict`` over ``GroupKFold`` keeps each query whole in one fold: every row is scored
# by a model fitted on other queries only.
import matplotlib.pyplot as plt
from sklearn.dummy import DummyRegressor
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import Ridge
from sklearn.model_selection import GroupKFold, cross_val_predict

from sklearn_rankmetrics import QueryComparisonDisplay, RankingCurveDisplay, compare_rankings, make_ranking

X, y, qid = make_ranking(n_queries=300, n_docs=(5, 40), noise=1.0, random_state=0)
models = {
    "constant": DummyRegressor(),  # every score tied: its metrics are the expected value of a random order
    "ridge": Ridge(),
    "boosting": HistGradientBoostingRegressor(max_iter=60, random_state=0),
}
scores = {name: cross_val_predict(model, X, y, groups=qid, cv=GroupKFold(n_splits=5)) for name, model in models.items()}

# %%
# Paired tests against the ridge baseline
# ---------------------------------------
# Each system's per-query values are compared with the baseline's on the same queries. The
# p-values are adjusted over every (system, metric) pair tested; ``*`` marks those below 0.05.
comparison = compare_rankings(y, scores, qid=qid, metrics=["ndcg@10", "map"], baseline="ridge", random_state=0)
print(comparison)

# %%
# ``to_frame()`` has one row per system and metric (means and intervals); ``to_frame(kind="pairs")``
# one per pair tested: the intervals, p-values, effect sizes and per-query wins, ties and losses. The
# intervals of the differences are not adjusted for multiple testing; the p-values are, so an
# interval that just excludes 0 can come with an adjusted p-value above 0.05 (``significant`` is
# False): the printed table says so under it where that happens.
pairs = comparison.to_frame(kind="pairs")
columns = ["system", "metric", "delta", "delta_ci_low", "delta_ci_high", "pvalue_adjusted", "significant", "wins"]
print(pairs[columns].round(4).to_string(index=False))

# %%
# NDCG@k for every k
# ------------------
# The constant model's curve is the expected NDCG of a random order: ties are averaged exactly.
display = RankingCurveDisplay.from_predictions(y, scores, qid=qid, metric="ndcg", k=range(1, 21))
display.ax_.set_title("Out-of-fold NDCG@k, 300 queries")

# %%
# Query by query
# --------------
# The sorted per-query differences of NDCG@10 between boosting and ridge: a better mean can hide
# many queries on which the new model is worse.
fig, ax = plt.subplots(figsize=(6, 3.5))
QueryComparisonDisplay.from_comparison(comparison, metric="ndcg@10", system="boosting", ax=ax)
plt.show()
