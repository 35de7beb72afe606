"""Tune rankers by grouped NDCG@10 and MAP with GridSearchCV over query groups.

Runs on synthetic data from ``make_ranking`` by default, or on an svmlight
ranking file (``--svmlight FILE [--query FILE]``). It tunes a
HistGradientBoostingRegressor (pointwise) and, when LightGBM is installed, an
LGBMRanker through GroupedRanker, with GroupKFold so that no query is split
between training and validation, then scores the refit models on held-out
queries.

    python examples/tune_ranker.py
    python examples/tune_ranker.py --svmlight ../shared/data/lightgbm-lambdarank/rank.train
"""

import argparse
import time

import numpy as np
import sklearn
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import GridSearchCV, GroupKFold, GroupShuffleSplit

from sklearn_rankmetrics import GroupedRanker, get_ranking_scorer, load_svmlight_ranking, make_ranking

SCORING = {"NDCG@10": get_ranking_scorer("ndcg@10"), "MAP": get_ranking_scorer("map")}


def candidates():
    """(name, estimator, parameter grid) of each model family to tune."""
    yield (
        "HistGradientBoostingRegressor",
        HistGradientBoostingRegressor(max_iter=100, random_state=0),
        {"max_leaf_nodes": [7, 31], "learning_rate": [0.05, 0.2]},
    )
    try:
        from lightgbm import LGBMRanker
    except ImportError:
        print("LightGBM is not installed: skipping LGBMRanker (pip install 'sklearn-rankmetrics[lightgbm]').")
        return
    yield (
        "LGBMRanker via GroupedRanker",
        GroupedRanker(LGBMRanker(n_estimators=100, n_jobs=1, verbose=-1, random_state=0)),
        {"estimator__num_leaves": [7, 31], "estimator__learning_rate": [0.05, 0.2]},
    )


def load(args):
    if args.svmlight is None:
        X, y, qid = make_ranking(n_queries=args.n_queries, n_docs=(5, 40), random_state=args.seed)
        return X, y, qid, f"make_ranking(n_queries={args.n_queries}, random_state={args.seed})"
    X, y, qid = load_svmlight_ranking(args.svmlight, query_path=args.query)
    return X.toarray(), y, qid, args.svmlight


def print_candidates(search):
    results = search.cv_results_
    print(f"  {'':1} {'parameters':<58} {'NDCG@10':>17} {'MAP':>17}")
    for i, params in enumerate(results["params"]):
        best = "*" if i == search.best_index_ else ""
        shown = ", ".join(f"{key.removeprefix('estimator__')}={value}" for key, value in params.items())
        cells = [f"{results[f'mean_test_{name}'][i]:.4f} ± {results[f'std_test_{name}'][i]:.4f}" for name in SCORING]
        print(f"  {best:1} {shown:<58} {cells[0]:>17} {cells[1]:>17}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--svmlight", help="an svmlight ranking file (default: synthetic data)")
    parser.add_argument("--query", help="its LightGBM-style file of query sizes (default: FILE.query if present)")
    parser.add_argument("--n-queries", type=int, default=300, help="queries of synthetic data (default: 300)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    # With routing on, the `groups` given to fit reach GroupKFold, the scorers and GroupedRanker alike.
    sklearn.set_config(enable_metadata_routing=True)
    X, y, qid, source = load(args)
    train, test = next(GroupShuffleSplit(n_splits=1, test_size=0.25, random_state=args.seed).split(X, y, qid))
    print(
        f"Data: {source}: {len(y)} documents in {len(np.unique(qid))} queries; "
        f"{len(np.unique(qid[test]))} queries held out for the final test.\n"
    )

    summary = []
    for name, estimator, grid in candidates():
        n_candidates = int(np.prod([len(values) for values in grid.values()]))
        print(f"Tuning {name}: {n_candidates} candidates x 5 folds, refit on the best NDCG@10 ...", flush=True)
        start = time.perf_counter()
        search = GridSearchCV(estimator, grid, scoring=SCORING, refit="NDCG@10", cv=GroupKFold(n_splits=5), n_jobs=2)
        search.fit(X[train], y[train], groups=qid[train])
        print(f"  done in {time.perf_counter() - start:.1f} s; * marks the best candidate")
        print_candidates(search)
        test_scores = {metric: scorer(search, X[test], y[test], qid=qid[test]) for metric, scorer in SCORING.items()}
        summary.append((name, test_scores))
        print()

    print("Held-out queries, refit models:")
    for name, scores in summary:
        print(f"  {name:<32} " + "  ".join(f"{metric} {value:.4f}" for metric, value in scores.items()))


if __name__ == "__main__":
    main()
