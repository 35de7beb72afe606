"""
Does an LLM judge rank systems like humans?
===========================================

Relevance judgements made by a large language model (TREC's UMBRELA qrels, the LLMJudge challenge) cost a
fraction of human assessments. Before they replace them, two questions: do the judges agree document by
document, and, what an evaluation needs, do they order the systems the same way? This example generates a
collection with human judgements, an LLM judge that is lenient and noisy, and twenty systems of varied
quality, and answers both with ``sklearn_rankmetrics.meta``.
"""

# %%
# A collection, two judges and twenty systems
# -------------------------------------------
# Each of 50 queries has 100 pooled documents with a true grade 0-3. The human assessor errs on a few of
# them; the LLM judge over-grades (a grade 0 document called 1 one time in four) and is noisier.
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from sklearn_rankmetrics.meta import judge_agreement, leaderboard_agreement

rng = np.random.default_rng(0)
n_queries, n_docs = 50, 100
queries = np.repeat([f"q{q}" for q in range(n_queries)], n_docs)
docs = np.array([f"d{d}" for d in range(n_docs)] * n_queries)
truth = rng.choice(4, size=n_queries * n_docs, p=[0.6, 0.2, 0.12, 0.08])


def judge(noise, leniency):
    """A judge's grades: the truth, off by one where it errs, one grade up where it is lenient."""
    errors = rng.random(len(truth)) < noise
    grades = np.clip(truth + errors * rng.choice([-1, 1], len(truth)), 0, 3)
    return grades + ((grades == 0) & (rng.random(len(truth)) < leniency))


human = pd.DataFrame({"query_id": queries, "doc_id": docs, "relevance": judge(noise=0.05, leniency=0.0)})
llm = pd.DataFrame({"query_id": queries, "doc_id": docs, "relevance": judge(noise=0.25, leniency=0.25)})

# Each system scores a document by its true grade times its skill, plus noise: better systems rank
# relevant documents higher.
skill = np.linspace(0.2, 2.0, 20)
runs = {
    f"system{i:02d}": pd.DataFrame(
        {"query_id": queries, "doc_id": docs, "score": skill[i] * truth + rng.normal(0, 1, len(truth))}
    )
    for i in range(20)
}

# %%
# Do the judges agree on the documents?
# -------------------------------------
# Cohen's kappa with quadratic weights, and Krippendorff's alpha on the ordinal scale of the grades:
# over all judgements, and per query.
kappa = judge_agreement({"human": human, "llm": llm}, statistic="cohen", weights="quadratic")
alpha = judge_agreement({"human": human, "llm": llm}, level="ordinal")
print(kappa)
print(alpha)

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.hist(list(alpha.per_query.values()), bins=15, color="tab:blue")
ax.axvline(alpha.statistic, color="black", linestyle="--", label=f"all queries: {alpha.statistic:.3f}")
ax.set_xlabel("Krippendorff's alpha (ordinal) of one query")
ax.set_ylabel("queries")
ax.legend()
fig.tight_layout()

# %%
# Do they rank the systems alike?
# -------------------------------
# Every run is evaluated with both sets of judgements (nDCG@10, as trec_eval computes ``ndcg_cut.10``),
# and the two leaderboards are compared: Kendall's tau, tau_AP (which weighs the top of the LLM's ordering
# more) and the pairs of systems whose order flips.
agreement = leaderboard_agreement(human, llm, runs, measure="ndcg_cut.10")
print(agreement)

fig, ax = plt.subplots(figsize=(5, 5))
ax.scatter(agreement.x, agreement.y, color="tab:orange")
ax.set_xlabel("nDCG@10, human judgements")
ax.set_ylabel("nDCG@10, LLM judgements")
ax.set_title(f"Kendall's tau {agreement.kendall_tau.statistic:.3f}, {agreement.n_swaps} swapped pairs")
fig.tight_layout()

# %%
# The LLM's scores are higher (it calls more documents relevant), and its judgements disagree with the
# human ones on single documents far more than on the ordering of systems: the swaps concern systems of
# nearly equal skill. A tau above 0.9 is the threshold Voorhees (2000) proposed for "equivalent" rankings.
low, high = agreement.kendall_tau.confidence_interval()
print(f"tau {agreement.kendall_tau.statistic:.3f}, 95% interval [{low:.3f}, {high:.3f}]")
print("swapped pairs:", agreement.swaps)
