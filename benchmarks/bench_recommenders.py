"""Recommender evaluation: catalogue coverage, the metrics beyond accuracy, and sampled evaluation.

    python benchmarks/bench_recommenders.py [coverage] [beyond] [report] [tied] [sampled] [sampled-strong]

coverage (10,000 users x 1,000 items, 10M scores):

catalog_coverage on the users x items score matrix (dense, and sparse with 10M stored entries) against
the same scores unfolded into 10M (user, item) pairs, and against plain numpy on tie-free scores (the
items of each row's np.argpartition top k); beside them, the time of a four-metric ranking_report on
the same matrix, which coverage should not dwarf (issue #25). Medians of 3 runs.

beyond (10,000 users x 5,000 items, 50M scores, issue #30): each metric beyond accuracy at k=10 on the
dense matrix; the target is about a second each. One run each.

report (issue #38; the same 10,000 x 5,000 data as beyond): recommender_report of six accuracy metrics@10 and the ten
metrics beyond accuracy, against ranking_report of the six accuracy metrics alone; the goal is at most 1.5x. Beside
them, the report's values against ranking_report's and each function's, and the eleven calls it replaces (the
accuracy report and the ten functions one by one). Runs interleaved, medians of 5 (of 3 for the eleven calls).

tied (issue #30): gini_index and novelty_score on a 10,000 x 5,000 matrix of zeros, every row one tie block
straddling rank 10 (50M entries, each shown with chance 10 / 5,000), against the same sizes with distinct scores;
and intra_list_diversity_score on 20 users x 2,000 tied items (40M pairs of a block, computed a bounded number at a
time). Best of 3 runs, and the process's peak memory.

sampled (issue #30): on generated implicit feedback (leave one out: one held-out item per user), six
models of graded quality are scored on 100 sampled negatives per user, ten draws of the candidates;
for Recall@10 and NDCG@10 it prints the full-catalogue value of each model, the naive sampled value
and the two corrected estimates (mean over draws, and the largest error over models and draws), and
how often each keeps the full ranking's order of the models.

sampled-strong (issue #30): the same comparison, with Recall, NDCG, MRR and hit rate at 10, on stronger models (full
Recall@10 up to 0.70): 2,000 users x 3,000 items from 16 latent factors and a Zipf popularity, seen items in
proportion to popularity, one or five held-out items per user drawn in proportion to exp(1.5 x affinity); models are
the affinity plus noise of standard deviation 0.3 to 2.5, popularity, and random scores; five draws.
"""

import sys
import time
from itertools import combinations

import numpy as np
import scipy.sparse as sp

import sklearn_rankmetrics as rm

N_USERS, N_ITEMS, K = 10_000, 1_000, 10


def timed(function, *args, repeat=3, **kwargs):
    """The value of ``function(*args, **kwargs)`` and the median of ``repeat`` timings of it."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        value = function(*args, **kwargs)
        times.append(time.perf_counter() - start)
    return value, float(np.median(times))


def numpy_coverage(scores, k):
    """Tie-free scores: the share of the items in some row's top k (-inf never shown)."""
    top = np.argpartition(-scores, k - 1, axis=1)[:, :k]
    shown = top[np.take_along_axis(scores, top, axis=1) > -np.inf]
    return np.unique(shown).size / scores.shape[1]


def coverage():
    rng = np.random.default_rng(0)
    popularity = np.linspace(3, -3, N_ITEMS)  # a long tail: not every item reaches a top 10
    scores = rng.normal(size=(N_USERS, N_ITEMS)) + popularity
    seen = rng.random(scores.shape) < 0.05
    scores[seen] = -np.inf  # already seen: never recommended
    held_out = sp.csr_array(rng.random(scores.shape) < 0.01)

    matrix, matrix_time = timed(rm.catalog_coverage, y_score=scores, k=K)
    print(f"{N_USERS} users x {N_ITEMS} items, coverage@{K} = {matrix:.4f}")
    print(f"  score matrix (dense):    {matrix_time:6.3f} s")
    every_column = np.tile(np.arange(N_ITEMS), N_USERS)
    stored = sp.csr_array((scores.ravel(), every_column, np.arange(0, scores.size + 1, N_ITEMS)), shape=scores.shape)
    value, sparse_time = timed(rm.catalog_coverage, y_score=stored, k=K)
    assert value == matrix, (value, matrix)
    print(f"  score matrix (sparse):   {sparse_time:6.3f} s   ({stored.nnz:,} stored entries)")
    user_id = np.repeat(np.arange(N_USERS), N_ITEMS)
    value, pairs_time = timed(rm.catalog_coverage, every_column, scores.ravel(), qid=user_id, k=K)
    assert value == matrix, (value, matrix)
    print(f"  (user, item) pairs:      {pairs_time:6.3f} s   {pairs_time / matrix_time:5.1f}x the matrix")
    value, numpy_time = timed(numpy_coverage, scores, K)
    assert value == matrix, (value, matrix)
    print(f"  numpy argpartition:      {numpy_time:6.3f} s   {numpy_time / matrix_time:5.1f}x the matrix")
    metrics = ["ndcg@10", "recall@10(denominator='capped')", "map@10", "hit_rate@10"]
    _, report_time = timed(rm.ranking_report, held_out, scores, metrics=metrics, zero_division=np.nan)
    share = matrix_time / report_time
    print(f"  ranking_report, {len(metrics)} metrics: {report_time:6.3f} s   (coverage takes {share:.2f}x its time)")


def beyond():
    n_users, n_items = 10_000, 5_000
    rng = np.random.default_rng(0)
    scores = rng.normal(size=(n_users, n_items)) + np.linspace(3, -3, n_items)
    scores[rng.random(scores.shape) < 0.05] = -np.inf
    share = rng.uniform(0.001, 1, n_items)
    interactions = rng.integers(1, 1000, n_items)
    features = rng.normal(size=(n_items, 32))
    held_out = sp.csr_array(rng.random(scores.shape) < 0.01)
    popular = np.where(scores > -np.inf, np.linspace(3, -3, n_items), -np.inf)
    groups = rng.integers(0, 10, n_items)
    print(f"{n_users} users x {n_items} items, k={K}, dense scores (5% -inf); one run each")
    calls = [
        ("gini_index", rm.gini_index, {}),
        ("shannon_entropy", rm.shannon_entropy, {}),
        ("novelty_score", rm.novelty_score, {"item_popularity": share}),
        ("average_popularity_score", rm.average_popularity_score, {"item_popularity": interactions}),
        ("long_tail_share_score", rm.long_tail_share_score, {"item_popularity": interactions}),
        ("user_coverage", rm.user_coverage, {}),
        ("intra_list_diversity_score (32 features)", rm.intra_list_diversity_score, {"item_features": features}),
        ("serendipity_score", rm.serendipity_score, {"y_true": held_out, "baseline_score": popular}),
        ("expected_exposure_loss", rm.expected_exposure_loss, {"y_true": held_out}),
        ("expected_exposure_loss (10 groups)", rm.expected_exposure_loss, {"y_true": held_out, "item_groups": groups}),
    ]
    for name, function, options in calls:
        value, seconds = timed(function, scores, k=K, repeat=1, **options)
        print(f"  {name:<42} {seconds:6.2f} s   {value:.4f}")


ACCURACY = ["ndcg@10", "recall@10", "precision@10", "map@10", "mrr@10", "hit_rate@10"]
BEYOND = ["catalog_coverage", "gini_index", "shannon_entropy", "novelty", "arp", "aplt", "user_coverage", "ild",
          "serendipity", "expected_exposure"]  # fmt: skip


def report(repeat=5):
    import warnings

    n_users, n_items = 10_000, 5_000
    rng = np.random.default_rng(0)
    scores = rng.normal(size=(n_users, n_items)) + np.linspace(3, -3, n_items)
    scores[rng.random(scores.shape) < 0.05] = -np.inf
    inputs = {
        "item_popularity": rng.uniform(0.001, 1, n_items),  # shares of users: novelty, ARP and APLT read them
        "item_features": rng.normal(size=(n_items, 32)),
        "baseline_score": np.where(scores > -np.inf, np.linspace(3, -3, n_items), -np.inf),
        "item_groups": rng.integers(0, 10, n_items),
    }
    held_out = sp.csr_array(rng.random(scores.shape) < 0.01)
    print(f"{n_users} users x {n_items} items, k={K}, dense scores (5% -inf), sparse held-out items")
    warnings.simplefilter("ignore")  # the users without a held-out item, said once per call
    accuracy_times, report_times = [], []
    for _ in range(repeat):  # interleaved, so that the machine's load weighs on both alike
        accuracy, seconds = timed(rm.ranking_report, held_out, scores, metrics=ACCURACY, repeat=1)
        accuracy_times.append(seconds)
        full, seconds = timed(rm.recommender_report, held_out, scores, k=K, metrics=ACCURACY + BEYOND, repeat=1,
                              **inputs)  # fmt: skip
        report_times.append(seconds)
    accuracy_time, report_time = np.median(accuracy_times), np.median(report_times)
    for name in ACCURACY:
        assert abs(full[name] - accuracy[name]) <= 1e-12 * abs(accuracy[name]), (name, full[name], accuracy[name])
    print(f"  ranking_report, {len(ACCURACY)} accuracy metrics:      {accuracy_time:6.2f} s")
    print(f"  recommender_report, those and {len(BEYOND)} beyond accuracy: {report_time:6.2f} s")
    print(f"  ratio: {report_time / accuracy_time:.2f}x the accuracy report (goal: at most 1.5x)")
    calls = [
        (rm.catalog_coverage, {}),
        (rm.gini_index, {}),
        (rm.shannon_entropy, {}),
        (rm.novelty_score, {"item_popularity": inputs["item_popularity"]}),
        (rm.average_popularity_score, {"item_popularity": inputs["item_popularity"]}),
        (rm.long_tail_share_score, {"item_popularity": inputs["item_popularity"]}),
        (rm.user_coverage, {}),
        (rm.intra_list_diversity_score, {"item_features": inputs["item_features"]}),
        (rm.serendipity_score, {"y_true": held_out, "baseline_score": inputs["baseline_score"]}),
        (rm.expected_exposure_loss, {"y_true": held_out, "item_groups": inputs["item_groups"]}),
    ]
    separate = accuracy_time
    for name, (function, options) in zip(BEYOND, calls, strict=True):
        value, seconds = timed(function, scores, k=K, repeat=3, **options)
        assert value == full[name], (name, value, full[name])  # the function's value, to the last bit
        separate += seconds
    print(f"  the eleven calls it replaces:                  {separate:6.2f} s   ({separate / report_time:.1f}x)")


def tied():
    import resource

    rng = np.random.default_rng(0)
    distinct, zeros = rng.normal(size=(10_000, 5_000)), np.zeros((10_000, 5_000))
    share = np.full(5_000, 0.5)
    for label, scores in [("distinct scores", distinct), ("every score tied", zeros)]:
        for name, function, options in [
            ("gini_index", rm.gini_index, {}),
            ("novelty_score", rm.novelty_score, {"item_popularity": share}),
        ]:
            _, seconds = timed(function, scores, k=K, **options)
            print(f"  {label:<17} {name:<15} {seconds:6.2f} s")
    features = rng.normal(size=(2_000, 8))
    _, seconds = timed(rm.intra_list_diversity_score, np.zeros((20, 2_000)), item_features=features, k=K, repeat=1)
    print(f"  20 x 2,000 tied   intra_list_diversity_score {seconds:6.2f} s")
    print(f"  peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.1f} GB")


def leave_one_out(n_users, n_items, seed):
    """Latent-factor affinities with a popularity tail, seen items, and one held-out item per user."""
    rng = np.random.default_rng(seed)
    affinity = rng.normal(size=(n_users, 8)) @ rng.normal(size=(n_items, 8)).T / np.sqrt(8)
    affinity += np.linspace(2, -2, n_items)
    seen = rng.random(affinity.shape) < 1 / (1 + np.exp(5 - affinity))
    weights = np.where(seen, 0.0, np.exp(2 * affinity))
    cumulative = np.cumsum(weights, axis=1)
    draws = rng.random(n_users) * cumulative[:, -1]
    held_out = np.zeros(affinity.shape)
    held_out[np.arange(n_users), (cumulative < draws[:, None]).sum(axis=1)] = 1.0
    return affinity, seen, sp.csr_array(held_out)


def sampled(n_draws=10, n_negatives=100):
    n_users, n_items = 3_000, 2_000
    affinity, seen, held_out = leave_one_out(n_users, n_items, seed=0)
    rng = np.random.default_rng(1)
    popularity = np.linspace(2, -2, n_items)
    models = {f"noise {noise}": affinity + rng.normal(0, noise, affinity.shape) for noise in (0.6, 0.9, 1.3, 1.8, 2.5)}
    models["popularity"] = np.broadcast_to(popularity, affinity.shape) + rng.normal(0, 0.01, affinity.shape)
    models = {name: np.where(seen, -np.inf, scores) for name, scores in models.items()}
    print(
        f"{n_users} users x {n_items} items, one held-out item per user, {n_negatives} sampled negatives, "
        f"{n_draws} draws of the candidates"
    )
    metrics = [("Recall@10", rm.recall_at_k_score), ("NDCG@10", rm.ndcg_score)]
    compare_estimates(models, seen, held_out, metrics, n_draws, n_negatives)


def sampled_strong(n_draws=5, n_negatives=100):
    """Stronger models (full Recall@10 up to 0.70): 16 latent factors, a Zipf popularity, 1 or 5 held-out items."""
    n_users, n_items = 2_000, 3_000
    metrics = [
        ("Recall@10", rm.recall_at_k_score),
        ("NDCG@10", rm.ndcg_score),
        ("MRR@10", rm.mean_reciprocal_rank_score),
        ("HR@10", rm.hit_rate_score),
    ]
    for n_held in (1, 5):
        rng = np.random.default_rng(42)
        popularity = rng.permutation(-0.8 * np.log(np.arange(1, n_items + 1)))
        factors = rng.normal(size=(n_users, 16)) @ rng.normal(size=(n_items, 16)).T / 4
        truth = factors + 1.2 * popularity
        seen = rng.random(truth.shape) < 0.4 * np.exp(popularity - popularity.max())
        held_out = np.zeros(truth.shape)
        for user in range(n_users):  # data generation only: n_held items drawn in proportion to exp(1.5 truth)
            weights = np.where(seen[user], 0, np.exp(1.5 * truth[user]))
            held_out[user, rng.choice(n_items, n_held, replace=False, p=weights / weights.sum())] = 1
        models = {f"noise {noise}": truth + rng.normal(0, noise, truth.shape) for noise in (0.3, 0.8, 1.5, 2.5)}
        models["popularity"] = np.broadcast_to(popularity, truth.shape) + rng.normal(0, 1e-3, truth.shape)
        models["random"] = rng.normal(size=truth.shape)
        models = {name: np.where(seen, -np.inf, scores) for name, scores in models.items()}
        print(
            f"\n{n_users} users x {n_items} items, {n_held} held-out item(s) per user, {n_negatives} sampled "
            f"negatives, {n_draws} draws of the candidates"
        )
        compare_estimates(models, seen, sp.csr_array(held_out), metrics, n_draws, n_negatives)


def compare_estimates(models, seen, held_out, metrics, n_draws, n_negatives):
    """Per metric: each model's full value and mean estimates, then each estimate's errors and model order."""
    draws = [
        rm.sample_candidates(held_out, n_negatives=n_negatives, exclude=sp.csr_array(seen), random_state=draw)
        for draw in range(n_draws)
    ]
    for label, metric in metrics:
        full = {name: metric(held_out, scores, k=K) for name, scores in models.items()}
        estimates = {method: {name: [] for name in models} for method in ("naive", "bv", "cls")}
        start = time.perf_counter()
        for candidates in draws:
            for name, scores in models.items():
                for method in estimates:
                    correction = None if method == "naive" else method
                    value = metric(held_out, scores, k=K, candidates=candidates, sampled_correction=correction)
                    estimates[method][name].append(value)
        seconds = time.perf_counter() - start
        print(f"\n{label} ({seconds:.1f} s for {n_draws} draws x {len(models)} models x 3 estimates)")
        print(f"  {'model':<12} {'full':>8} {'naive':>8} {'bv':>8} {'cls':>8}")
        for name in models:
            means = [np.mean(estimates[method][name]) for method in estimates]
            print(f"  {name:<12} {full[name]:8.4f} " + " ".join(f"{mean:8.4f}" for mean in means))
        order = sorted(models, key=full.get)
        for method, values in estimates.items():
            errors = [abs(value - full[name]) for name in models for value in values[name]]
            worst_mean = max(abs(np.mean(values[name]) - full[name]) for name in models)
            kept = np.mean(
                [sorted(models, key=lambda name, draw=draw: values[name][draw]) == order for draw in range(n_draws)]
            )
            pairs = np.mean(
                [
                    (values[a][draw] - values[b][draw]) * (full[a] - full[b]) > 0
                    for draw in range(n_draws)
                    for a, b in combinations(models, 2)
                ]
            )
            print(
                f"  {method:<6} mean |error| {np.mean(errors):.4f}, largest {np.max(errors):.4f}, largest of a "
                f"model's mean {worst_mean:.4f}; model order kept in {kept:.0%} of the draws, pairs of models in "
                f"the full order {pairs:.0%}"
            )


SECTIONS = {
    "coverage": coverage,
    "beyond": beyond,
    "report": report,
    "tied": tied,
    "sampled": sampled,
    "sampled-strong": sampled_strong,
}

if __name__ == "__main__":
    for section in sys.argv[1:] or SECTIONS:
        SECTIONS[section]()
