"""Many systems at once: 10 systems x 3 metrics x 2,000 queries, all 45 pairs (issue #27).

    python benchmarks/bench_compare_many.py [--resamples 10000]

Times compare_rankings with the randomised Tukey HSD (10,000 resamples), Tukey's HSD, and the randomization
test with maxT, Holm and Benjamini-Hochberg, beside ranx's ``compare(stat_test="tukey")`` and statsmodels'
``multipletests`` (the corrections PyTerrier applies). Every time includes the per-query metrics (one sort per
system) and the bootstrap intervals. Checks: our Benjamini-Hochberg and Holm equal statsmodels' on the same
p-values; ranx's Tukey is scipy's one-way ``tukey_hsd``, which ignores that the systems share the queries.
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy import stats

import sklearn_rankmetrics as rm

sys.path.insert(0, str(Path(__file__).parent))
from bench_metrics import make_data

METRICS = ["ndcg@10", "map", "mrr"]
N_SYSTEMS, N_QUERIES = 10, 2000


def systems_of(y_true, base):
    """Ten systems of slowly increasing quality: each adds a little more of the labels to the same noise."""
    rng = np.random.default_rng(1)
    return {f"s{i}": base + 0.02 * i * y_true + rng.normal(0, 0.5, len(base)) for i in range(N_SYSTEMS)}


REPEAT = 3  # the best of three runs: the machine is shared


def timed(label, function, repeat=None):
    times = []
    for _ in range(repeat or REPEAT):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    print(f"{label:>62}: {min(times):7.2f} s")
    return result


def ranx_tukey(y_true, systems, qid):
    """ranx's compare with Tukey's HSD, from its own Qrels and Runs (built outside the timing)."""
    import pandas as pd
    from ranx import Qrels, Run, compare

    frame = pd.DataFrame(
        {
            "q_id": pd.Series(qid.astype(str), dtype=object),
            "doc_id": pd.Series(np.arange(len(y_true)).astype(str), dtype=object),
        }
    )
    relevant = frame[y_true > 0].assign(score=y_true[y_true > 0].astype(np.int64))
    qrels = Qrels.from_df(relevant, q_id_col="q_id", doc_id_col="doc_id", score_col="score")
    runs = []
    for name, score in systems.items():
        run = Run.from_df(frame.assign(score=score), q_id_col="q_id", doc_id_col="doc_id", score_col="score")
        run.name = name
        runs.append(run)
    return lambda: compare(qrels, runs, metrics=METRICS, stat_test="tukey", max_p=0.05)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3, help="report the best of this many runs")
    arguments = parser.parse_args()
    global REPEAT
    REPEAT = arguments.repeat
    warnings.filterwarnings("ignore", module="ranx")  # numba's type-safety chatter
    warnings.filterwarnings("ignore", message="Significant, but the effect is negligible")
    y_true, base, qid = make_data(N_QUERIES, "grouped")
    systems = systems_of(y_true, base)
    common = {"qid": qid, "metrics": METRICS, "n_resamples": arguments.resamples, "random_state": 0}
    shape = f"{N_SYSTEMS} systems x {len(METRICS)} metrics x {N_QUERIES:,} queries, 45 pairs"
    print(f"{shape}, {arguments.resamples:,} resamples")
    timed(
        "reports alone (one sort per system)",
        lambda: [rm.ranking_report(y_true, s, qid=qid, metrics=METRICS, average=False) for s in systems.values()],
    )
    randomized = timed(
        "randomized-tukey-hsd", lambda: rm.compare_rankings(y_true, systems, test="randomized-tukey-hsd", **common)
    )
    tukey = timed("tukey-hsd", lambda: rm.compare_rankings(y_true, systems, test="tukey-hsd", **common))
    maxt = timed("randomization, maxT", lambda: rm.compare_rankings(y_true, systems, correction="maxT", **common))
    holm = timed("randomization, holm", lambda: rm.compare_rankings(y_true, systems, correction="holm", **common))
    fdr = timed("randomization, fdr_bh", lambda: rm.compare_rankings(y_true, systems, correction="fdr_bh", **common))

    from statsmodels.stats.multitest import multipletests

    multipletests([0.5], method="holm")  # warm up: the first call imports the rest of statsmodels
    raw = np.array([row["pvalue"] for row in holm.rows if row["baseline"] is not None])
    for method, result in (("holm", holm), ("fdr_bh", fdr)):
        theirs = timed(
            f"statsmodels multipletests({method}) of the 135 p-values", lambda m=method: multipletests(raw, method=m)[1]
        )
        ours = np.array([row["pvalue_adjusted"] for row in result.rows if row["baseline"] is not None])
        assert np.allclose(ours, theirs, rtol=1e-12), method
    adjusted = np.array([row["pvalue_adjusted"] for row in maxt.rows if row["baseline"] is not None])
    assert (adjusted >= raw).all() and (adjusted <= np.minimum(raw * len(raw), 1) + 1e-12).all()

    try:
        run_ranx = ranx_tukey(y_true, systems, qid)
    except ImportError:
        print("ranx is not installed: pip install ranx")
    else:
        timed("ranx compare(stat_test='tukey'), first call (numba compiles)", run_ranx, repeat=1)
        timed("ranx compare(stat_test='tukey'), later calls", run_ranx)
        # ranx's Tukey is scipy's one-way tukey_hsd: the within-system variance, not the system x query residual.
        one_way = {metric: stats.tukey_hsd(*[tukey.per_query[metric][s] for s in systems]).pvalue for metric in METRICS}
        names = list(systems)
        significant = {"two-way (ours)": 0, "one-way (ranx, scipy)": 0}
        for row in tukey.rows:
            if row["baseline"] is not None:
                significant["two-way (ours)"] += row["pvalue"] < 0.05
                i, j = names.index(row["baseline"]), names.index(row["system"])
                significant["one-way (ranx, scipy)"] += one_way[row["metric"]][i, j] < 0.05
        print(f"{'pairs significant at 0.05 out of 135':>62}: " + ", ".join(f"{k} {v}" for k, v in significant.items()))
    counts = {
        name: sum(row["pvalue_adjusted"] < 0.05 for row in result.rows if row["baseline"] is not None)
        for name, result in (
            ("randomized Tukey", randomized),
            ("Tukey", tukey),
            ("maxT", maxt),
            ("Holm", holm),
            ("BH", fdr),
        )
    }
    print(f"{'adjusted p < 0.05, out of 135':>62}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))


if __name__ == "__main__":
    main()
