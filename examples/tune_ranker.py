"""
Tuning rankers on real data, and asking whether one is really better
====================================================================

Two model families are tuned by grouped NDCG@10 on LightGBM's lambdarank example data: the whole
workflow without glue. GridSearchCV runs over GroupKFold (no query is split between training and
validation) with the library's NDCG@10 scorer; LightGBM's LGBMRanker stops early inside every fold,
on queries held out whole; a pointwise HistGradientBoostingRegressor is the other candidate. The
refit models are scored on the separate test file with bootstrap intervals, compared query by query
with a paired randomization test, and drawn as NDCG@k curves.

This is what ``make example`` runs::

    python examples/tune_ranker.py                # the lambdarank data bundled with the package
    python examples/tune_ranker.py --synthetic    # make_ranking data instead
"""

import argparse
import time
from pathlib import Path

import numpy as np
import sklearn
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import GridSearchCV, GroupKFold, GroupShuffleSplit

from sklearn_rankmetrics import (
    GroupedRanker,
    RankingCurveDisplay,
    compare_rankings,
    get_ranking_scorer,
    load_lambdarank,
    make_ranking,
    ranking_report,
)

SCORER = get_ranking_scorer("ndcg@10")
FOLDS = 5


def candidates(seed):
    """(name, estimator, parameter grid) of each model family to tune."""
    yield (
        "HistGradientBoosting",
        HistGradientBoostingRegressor(early_stopping=False, random_state=seed),
        {"max_iter": [50, 150], "max_leaf_nodes": [7, 31]},
    )
    try:
        from lightgbm import LGBMRanker
    except ImportError:
        print("LightGBM is not installed: skipping LGBMRanker (pip install 'sklearn-rankmetrics[lightgbm]').\n")
        return
    ranker = GroupedRanker(
        LGBMRanker(n_estimators=400, n_jobs=1, verbose=-1, random_state=seed),
        early_stopping_rounds=20,  # on 10% of each fold's training queries, held out whole
        early_stopping_metric="ndcg@10",
        random_state=seed,
    )
    yield "LGBMRanker", ranker, {"estimator__num_leaves": [7, 31], "estimator__learning_rate": [0.05, 0.1]}


def load(args):
    """Training and test rows: LightGBM's two files (bundled with the package), or a split of synthetic data."""
    if args.synthetic:
        X, y, qid = make_ranking(n_queries=250, n_docs=(5, 40), random_state=args.seed)
        train, test = next(GroupShuffleSplit(n_splits=1, test_size=0.2, random_state=args.seed).split(X, y, qid))
        return (X[train], y[train], qid[train]), (X[test], y[test], qid[test]), "make_ranking (synthetic)"
    # Dense features, and test query ids that continue after the training ones.
    train, test = load_lambdarank(subset="train"), load_lambdarank(subset="test")
    return train, test, "LightGBM's lambdarank example (load_lambdarank)"


def describe(rows):
    X, y, qid = rows
    return f"{len(y)} documents in {len(np.unique(qid))} queries, {X.shape[1]} features"


def tune(name, estimator, grid, train):
    X, y, qid = train
    n_candidates = int(np.prod([len(values) for values in grid.values()]))
    print(f"Tuning {name}: {n_candidates} candidates x {FOLDS} folds by NDCG@10 ...", flush=True)
    start = time.perf_counter()
    search = GridSearchCV(estimator, grid, scoring=SCORER, cv=GroupKFold(n_splits=FOLDS), n_jobs=2)
    search.fit(X, y, groups=qid)
    results = search.cv_results_
    means, stds = results["mean_test_score"], results["std_test_score"]
    best = search.best_index_
    # Candidates within one standard error of the best are not distinguishable by this cross-validation.
    close = means >= means[best] - stds[best] / np.sqrt(FOLDS)
    print(f"  {time.perf_counter() - start:.1f} s. Fold mean ± std; * best, ~ within one standard error of it:")
    for i, params in enumerate(results["params"]):
        shown = ", ".join(f"{key.removeprefix('estimator__')}={value}" for key, value in params.items())
        mark = "*" if i == best else "~" if close[i] else " "
        print(f"  {mark} {shown:<42} {means[i]:.4f} ± {stds[i]:.4f}")
    if close.sum() > 1:
        print(f"  {close.sum()} candidates are within noise of each other: the pick among them is a coin toss.")
    return search


def print_comparison(comparison):
    print(f"\nIs the difference real? Paired randomization tests over the test queries, Holm-adjusted:\n{comparison}")
    for row in comparison.rows:
        if row["baseline"] is None:
            continue
        verdict = "significant" if row["pvalue_adjusted"] < 0.05 else "NOT significant: could be noise"
        interval = f"[{row['delta_ci_low']:+.4f}, {row['delta_ci_high']:+.4f}]"
        print(
            f"  {row['metric']}: {row['system']} - {row['baseline']} = {row['delta']:+.4f} {interval}, "
            f"adjusted p = {row['pvalue_adjusted']:.3f}, wins/ties/losses {row['wins']}/{row['ties']}/{row['losses']}: "
            f"{verdict}"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.strip().split("\n")[0])
    parser.add_argument("--synthetic", action="store_true", help="use make_ranking data instead of LightGBM's")
    parser.add_argument("--plot", type=Path, default=Path("ndcg_at_k.png"), help="where to save the NDCG@k curves")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    # With routing on, the `groups` given to fit reach GroupKFold, the scorer and GroupedRanker alike.
    sklearn.set_config(enable_metadata_routing=True)
    train, test, source = load(args)
    print(f"Data: {source}\n  training: {describe(train)}\n  test:     {describe(test)}\n")

    scores = {}
    for name, estimator, grid in candidates(args.seed):
        search = tune(name, estimator, grid, train)
        scores[name] = search.predict(test[0])
        print()

    _, y_test, qid_test = test
    n_queries = len(np.unique(qid_test))
    print(f"Refit models on the {n_queries} test queries (mean [95% bootstrap interval]):")
    metrics = ["ndcg@10", "map", "mrr@10"]
    for name, values in scores.items():
        report = ranking_report(y_test, values, qid=qid_test, metrics=metrics, confidence_level=0.95, random_state=0)
        cells = [f"{metric} {mean:.4f} [{low:.3f}, {high:.3f}]" for metric, (mean, low, high) in report.items()]
        print(f"  {name:<22} " + "  ".join(cells))
    if len(scores) > 1:
        baseline = next(iter(scores))
        comparison = compare_rankings(y_test, scores, qid=qid_test, metrics=metrics, baseline=baseline, random_state=0)
        print_comparison(comparison)

    try:
        import matplotlib

        matplotlib.use("Agg")
    except ImportError:
        print("\nmatplotlib is not installed: no plot (pip install 'sklearn-rankmetrics[plot]').")
        return
    display = RankingCurveDisplay.from_predictions(y_test, scores, qid=qid_test, metric="ndcg", k=range(1, 21))
    display.ax_.set_title(f"NDCG@k on {n_queries} test queries")
    display.figure_.savefig(args.plot, dpi=120, bbox_inches="tight")
    print(f"\nNDCG@k curves for k = 1..20 saved to {args.plot}")


if __name__ == "__main__":
    main()
