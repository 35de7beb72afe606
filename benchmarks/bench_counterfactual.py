"""Counterfactual evaluation at scale: a click log of 1M impressions x 10 positions, and obp side by side.

    python benchmarks/bench_counterfactual.py                     # 1M impressions x 10 positions
    python benchmarks/bench_counterfactual.py --impressions 100000
    python benchmarks/bench_counterfactual.py --only fit,interval  # the steps whose label holds a word

The log is simulated once (a position-based model over a logging ranker, 100,000 documents); each step is
then timed once, with the functions' defaults: IPS metrics of a new ranker, the bootstrap interval, EM
propensities, every click model's fit, log-likelihood and perplexity, every interleaving method and
multileaving of every impression (optimized interleaving of the first --optimized-queries: it solves a
linear programme per distinct pattern of the two rankings, and here nearly every query has its own), and
off_policy_value's SIPS beside Open Bandit Pipeline 0.5.7's SlateStandardIPS on the same slates (obp
checks its inputs with pandas group-bys; its estimate is compared, and the ratio printed, on a smaller log).

The machine may be shared: each step is also printed relative to a calibration (a stable argsort of as many
floats as the log has rows, timed first and last), a cost that the machine's load scales alike.
"""

import argparse
import os
import resource
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from sklearn_rankmetrics.counterfactual import (
    CascadeModel,
    ClickChainModel,
    DependentClickModel,
    DynamicBayesianNetwork,
    PositionBasedModel,
    UserBrowsingModel,
    estimate_position_propensity,
    interleave,
    ips_interval,
    ips_score,
    multileave,
    off_policy_value,
)

MODELS = (PositionBasedModel, CascadeModel, DependentClickModel, DynamicBayesianNetwork, UserBrowsingModel,
          ClickChainModel)  # fmt: skip


class Timer:
    """Times steps, printing seconds, the ratio to the calibration, the peak memory and the value."""

    def __init__(self, only, calibration_rows):
        self.only = only
        self.rows = calibration_rows
        self.unit = None

    def calibrate(self):
        values = np.random.default_rng(1).random(self.rows)
        start = time.perf_counter()
        np.argsort(values, kind="stable")
        return time.perf_counter() - start

    def __call__(self, label, function, *, always=False):
        if not always and self.only and not any(word in label for word in self.only):
            return None
        start = time.perf_counter()
        value = function()
        seconds = time.perf_counter() - start
        shown = f"{value:.4f}" if isinstance(value, float) else getattr(value, "n_iter_", type(value).__name__)
        relative = f"{seconds / self.unit:7.1f}x" if self.unit else "      -"
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
        print(f"{label:<58} {seconds:8.2f} s {relative}  peak {peak:5.2f} GB   {shown}", flush=True)
        return value


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--impressions", type=int, default=1_000_000)
    parser.add_argument("--obp-slates", type=int, default=20_000)
    parser.add_argument("--optimized-queries", type=int, default=2_000, help="queries for optimized interleaving")
    parser.add_argument("--only", default="", help="comma-separated words: time only the steps that hold one")
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # ConvergenceWarning and the like: the figures are the point here
    n, k = args.impressions, 10
    timer = Timer([word for word in args.only.split(",") if word], n * k)
    print(f"{n:,} impressions x {k} positions = {n * k:,} rows; {os.cpu_count()} CPUs, load {os.getloadavg()}")
    timer.unit = min(timer.calibrate() for _ in range(3))
    print(f"calibration (stable argsort of {n * k:,} floats): {timer.unit:.3f} s = 1x")
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(n), k)
    position = np.tile(np.arange(1, k + 1), n)
    docs = rng.integers(0, 100_000, n * k)
    attractiveness = rng.choice([0.02, 0.1, 0.4, 0.8], size=n * k)
    attention = 1 / np.arange(1, k + 1) ** 0.7
    truth = PositionBasedModel(attention=attention)
    clicks = timer(
        "simulate the log (PositionBasedModel.simulate)",
        lambda: truth.simulate(attractiveness, -position, qid=qid, random_state=0),
        always=True,
    )
    propensity = attention[position - 1]
    new_scores = attractiveness + rng.normal(scale=0.3, size=n * k)
    log = {"qid": qid, "propensity": propensity}
    for metric in ("dcg@10", "ndcg@10", "precision@5", "recall@5", "mrr", "arp", "psp@5"):
        timer(f"ips_score {metric}", lambda m=metric: ips_score(clicks, new_scores, metric=m, **log))
    timer("ips_score dcg@10, snips, clip=10", lambda: ips_score(clicks, new_scores, estimator="snips", clip=10, **log))
    timer("ips_interval dcg@10 (defaults: 2,000 resamples)", lambda: ips_interval(clicks, new_scores, **log))
    timer("ips_interval ndcg@10 (defaults)", lambda: ips_interval(clicks, new_scores, metric="ndcg@10", **log))
    timer(
        "estimate_position_propensity (defaults: EM)",
        lambda: estimate_position_propensity(clicks, qid=qid, position=position, doc_id=docs),
    )
    for model in MODELS:
        fitted = timer(f"{model.__name__}.fit (defaults)", lambda m=model: m().fit(clicks, qid=qid, doc_id=docs))
        if fitted is not None:
            for method in ("log_likelihood", "perplexity"):
                timer(
                    f"{model.__name__}.{method}",
                    lambda f=fitted, m=method: getattr(f, m)(clicks, qid=qid, doc_id=docs),
                )
    a = np.argsort(-new_scores.reshape(n, k), axis=1)
    b = np.argsort(-attractiveness.reshape(n, k) + rng.random((n, k)) * 0.1, axis=1)
    for method in ("team_draft", "balanced", "probabilistic", "optimized"):
        # Optimized interleaving solves a linear programme per distinct pattern of the two rankings; here nearly
        # every query has its own, so it is timed on a slice and the cost per pattern printed.
        rows = slice(None) if method != "optimized" else slice(0, min(n, args.optimized_queries))
        label = f"interleave {method}" + ("" if method != "optimized" else f" ({args.optimized_queries:,} queries)")
        shown = timer(label, lambda m=method, r=rows: interleave(a[r], b[r], method=m, random_state=0))
        if shown is not None:
            seen = ((rng.random(shown.ranking_.shape) < 0.1) & (shown.ranking_ >= 0)).astype(int)
            timer(f"credit {method}", lambda s=shown, c=seen: s.credit(c))
    for method in ("team_draft", "probabilistic"):
        timer(f"multileave {method}, 3 rankers", lambda m=method: multileave([a, b, a[:, ::-1]], method=m))
    slate_pscore = np.repeat(rng.uniform(0.01, 1, n), k)
    slate_evaluation = np.repeat(rng.uniform(0, 1, n), k)
    timer(
        "off_policy_value sips",
        lambda: off_policy_value(
            clicks, qid=qid, position=position, pscore=slate_pscore, evaluation_pscore=slate_evaluation
        ),
    )
    if not timer.only or any(word in "obp" for word in timer.only):
        compare_with_obp(args.obp_slates, rng, timer)
    print(f"calibration again: {min(timer.calibrate() for _ in range(3)):.3f} s; load {os.getloadavg()}")


def compare_with_obp(n_slates, rng, timer):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "counterfactual"))
    try:
        from obp_slate import load_obp_slate_estimators

        obp = load_obp_slate_estimators()
    except ImportError as error:
        print(f"obp not installed ({error}): no side-by-side timing")
        return
    length = 10
    slate = np.repeat(np.arange(n_slates), length)
    position = np.tile(np.arange(length), n_slates)
    reward = (rng.random(n_slates * length) < 0.2).astype(float)
    pscore = np.repeat(rng.uniform(0.01, 1, n_slates), length)
    evaluation = np.repeat(rng.uniform(0, 1, n_slates), length)
    estimator = obp.SlateStandardIPS(len_list=length)
    start = time.perf_counter()
    theirs = float(
        estimator.estimate_policy_value(
            slate_id=slate, reward=reward, position=position, pscore=pscore, evaluation_policy_pscore=evaluation
        )
    )
    obp_seconds = time.perf_counter() - start
    start = time.perf_counter()
    ours = off_policy_value(reward, qid=slate, position=position + 1, pscore=pscore, evaluation_pscore=evaluation)
    our_seconds = time.perf_counter() - start
    print(
        f"SIPS on {n_slates:,} slates: obp {obp_seconds:.3f} s, ours {our_seconds:.3f} s (obp / ours "
        f"{obp_seconds / our_seconds:.1f}x); equal to 1e-10: {abs(ours - theirs) <= 1e-10 * max(1, abs(theirs))}"
    )


if __name__ == "__main__":
    main()
