"""Counterfactual evaluation at scale: a click log of 1M impressions x 10 positions, and obp side by side.

    python benchmarks/bench_counterfactual.py                 # 1M impressions x 10 positions
    python benchmarks/bench_counterfactual.py --impressions 100000

The log is simulated once (a position-based model over a logging ranker);
each step is then timed once: IPS metrics of a new ranker, a bootstrap
interval, EM propensities, the click models' fits, team-draft interleaving
of every impression, and off_policy_value's SIPS beside Open Bandit
Pipeline 0.5.7's SlateStandardIPS on the same slates (obp checks its inputs
with pandas group-bys; its estimate is compared, and the ratio printed, on a
smaller log, since obp loops over slates for its interval).
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from sklearn_rankmetrics.counterfactual import (
    ClickChainModel,
    PositionBasedModel,
    estimate_position_propensity,
    interleave,
    ips_interval,
    ips_score,
    off_policy_value,
)


def timed(label, function):
    start = time.perf_counter()
    value = function()
    seconds = time.perf_counter() - start
    shown = f"{value:.4f}" if isinstance(value, float) else type(value).__name__
    print(f"{label:<55} {seconds:8.2f} s   {shown}")
    return value, seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--impressions", type=int, default=1_000_000)
    parser.add_argument("--obp-slates", type=int, default=20_000)
    args = parser.parse_args()
    n, k = args.impressions, 10
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(n), k)
    position = np.tile(np.arange(1, k + 1), n)
    docs = rng.integers(0, 100_000, n * k)
    attractiveness = rng.choice([0.02, 0.1, 0.4, 0.8], size=n * k)
    attention = 1 / np.arange(1, k + 1) ** 0.7
    print(f"{n:,} impressions x {k} positions = {n * k:,} rows")
    clicks, _ = timed(
        "simulate the log (PositionBasedModel.simulate)",
        lambda: PositionBasedModel(attention=attention).simulate(attractiveness, -position, qid=qid, random_state=0),
    )
    propensity = attention[position - 1]
    new_scores = attractiveness + rng.normal(scale=0.3, size=n * k)
    for metric in ("dcg@10", "ndcg@10", "precision@5", "mrr"):
        timed(
            f"ips_score {metric}",
            lambda m=metric: ips_score(clicks, new_scores, qid=qid, propensity=propensity, metric=m),
        )
    timed(
        "ips_score dcg@10, snips, clip=10",
        lambda: ips_score(clicks, new_scores, qid=qid, propensity=propensity, estimator="snips", clip=10.0),
    )
    timed(
        "ips_interval dcg@10 (1,000 resamples)",
        lambda: ips_interval(clicks, new_scores, qid=qid, propensity=propensity, n_resamples=1000, random_state=0),
    )
    timed(
        "estimate_position_propensity (EM, 200 iterations at most)",
        lambda: estimate_position_propensity(clicks, qid=qid, position=position, doc_id=docs),
    )
    timed("ClickChainModel.fit (EM)", lambda: ClickChainModel(max_iter=20).fit(clicks, qid=qid, doc_id=docs))
    a = np.argsort(-new_scores.reshape(n, k), axis=1)
    b = np.argsort(-attractiveness.reshape(n, k), axis=1)
    timed("interleave team_draft, every impression", lambda: interleave(a, b, method="team_draft", random_state=0))
    compare_with_obp(args.obp_slates, rng)


def compare_with_obp(n_slates, rng):
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
    theirs, obp_seconds = timed(
        f"obp SlateStandardIPS, {n_slates:,} slates",
        lambda: float(
            obp.SlateStandardIPS(len_list=length).estimate_policy_value(
                slate_id=slate, reward=reward, position=position, pscore=pscore, evaluation_policy_pscore=evaluation
            )
        ),
    )
    ours, our_seconds = timed(
        f"off_policy_value sips, {n_slates:,} slates",
        lambda: off_policy_value(reward, qid=slate, position=position + 1, pscore=pscore, evaluation_pscore=evaluation),
    )
    print(f"equal: {abs(ours - theirs) <= 1e-10 * max(1, abs(theirs))}; obp / ours: {obp_seconds / our_seconds:.1f}x")


if __name__ == "__main__":
    main()
