"""Score rankings of real learning-to-rank data by grouped metrics.

Uses the LightGBM lambdarank example (svmlight rows with a separate file of
query sizes) when it is beside the project, otherwise synthetic queries.
"""

from pathlib import Path

import numpy as np
from sklearn.datasets import load_svmlight_file

import sklearn_rankmetrics as rm

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "lightgbm-lambdarank"


def load():
    if (DATA / "rank.test").exists():
        X, y = load_svmlight_file(str(DATA / "rank.test"))
        sizes = np.loadtxt(DATA / "rank.test.query", dtype=int)
        return X.toarray(), y, np.repeat(np.arange(len(sizes)), sizes)
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(50), 20)
    X = rng.normal(size=(qid.size, 5))
    y = np.clip(np.round(X[:, 0] + rng.normal(size=qid.size)), 0, 4)
    return X, y, qid


def main():
    X, y, qid = load()
    print(f"{len(np.unique(qid))} queries, {len(y)} documents")
    for name, score in [("feature 0", X[:, 0]), ("random", np.random.default_rng(1).random(len(y)))]:
        print(
            f"{name:>10}: NDCG@10 {rm.ndcg_score(y, score, qid=qid, k=10):.4f}  "
            f"MAP {rm.mean_average_precision_score(y, score, qid=qid):.4f}  "
            f"MRR {rm.mean_reciprocal_rank_score(y, score, qid=qid):.4f}  "
            f"ERR@10 {rm.expected_reciprocal_rank_score(y, score, qid=qid, k=10):.4f}"
        )


if __name__ == "__main__":
    main()
