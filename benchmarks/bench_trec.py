"""TREC evaluation from files at MS MARCO dev size, against pytrec_eval and ranx.

    python benchmarks/bench_trec.py [--queries 7000] [--depth 1000]

A deterministic collection like MS MARCO passage dev (7,000 queries x 1,000
retrieved passages, about 1.1 relevant passages per query, most of them
retrieved) is written once to a temporary folder. Each tool then runs in a
fresh process, from the files to the mean of every measure: trec_eval's
standard ("official") measures plus ndcg_cut_10 and recall_1000 for this
library and pytrec_eval; for ranx, the measures it has (map, mrr, r-precision,
bpref, precision at trec_eval's 9 cutoffs, ndcg@10, recall@1000). Prints wall
time from the files to the means (the imports timed apart), peak memory
(maximum resident set) and the ratios.

Targets (issue #10): at least 20x faster than pytrec_eval including its file
parsing, and faster than ranx.
"""

import argparse
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np

CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


def write_collection(folder, n_queries, depth, seed=0):
    """qrels and run files of a deterministic MS MARCO-like collection (written once)."""
    qrels_path, run_path = folder / f"qrels-{n_queries}.txt", folder / f"run-{n_queries}x{depth}.txt"
    if qrels_path.exists() and run_path.exists():
        return qrels_path, run_path
    rng = np.random.default_rng(seed)
    query_ids = np.sort(rng.choice(1_100_000, n_queries, replace=False))
    n_relevant = 1 + (rng.random(n_queries) < 0.1) + (rng.random(n_queries) < 0.01)
    with open(qrels_path, "w") as qrels, open(run_path, "w") as run:
        for query, n_rel in zip(query_ids, n_relevant, strict=True):
            documents = rng.choice(8_841_823, depth + n_rel, replace=False)
            relevant = documents[depth:]
            qrels.writelines(f"{query} 0 {doc} 1\n" for doc in relevant)
            ranked = documents[:depth].copy()
            for doc in relevant:  # most relevant passages are retrieved, near the top
                if rng.random() < 0.8:
                    ranked[min(int(rng.exponential(20)), depth - 1)] = doc
            scores = np.round(np.sort(rng.normal(20, 3, depth))[::-1], 3)  # rounded: some ties
            run.write(
                "".join(
                    f"{query} Q0 {doc} {rank} {score} bench\n"
                    for rank, (doc, score) in enumerate(zip(ranked, scores, strict=True), start=1)
                )
            )
    return qrels_path, run_path


# Per tool: its imports (timed apart: importing scikit-learn alone takes about a second here), then the
# work from the files to the mean of every measure.
PROGRAMS = {
    "sklearn-rankmetrics": (
        "from sklearn_rankmetrics.trec import evaluate_run",
        """
        means = evaluate_run(QRELS, RUN, ["official", "ndcg_cut.10", "recall.1000"])
        summary = (means["map"], means["ndcg_cut_10"], means["recall_1000"])
        """,
    ),
    "pytrec_eval": (
        "import pytrec_eval",
        """
        with open(QRELS) as file:
            qrels = pytrec_eval.parse_qrel(file)
        with open(RUN) as file:
            run = pytrec_eval.parse_run(file)
        measures = {"map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "num_q", "num_ret",
                    "num_rel", "num_rel_ret", "ndcg_cut_10", "recall_1000"}
        per_query = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
        names = next(iter(per_query.values()))
        means = {name: pytrec_eval.compute_aggregated_measure(name, [v[name] for v in per_query.values()])
                 for name in names}
        summary = (means["map"], means["ndcg_cut_10"], means["recall_1000"])
        """,
    ),
    "ranx": (
        "from ranx import Qrels, Run, evaluate",
        """
        qrels = Qrels.from_file(QRELS, kind="trec")
        run = Run.from_file(RUN, kind="trec")
        metrics = ["map", "mrr", "r-precision", "bpref", "ndcg@10", "recall@1000"] + [
            f"precision@{k}" for k in CUTOFFS]
        means = evaluate(qrels, run, metrics)
        summary = (means["map"], means["ndcg@10"], means["recall@1000"])
        """,
    ),
}

MEASURE = """
import resource, time
start = time.perf_counter()
{imports}
imported = time.perf_counter()
{program}
elapsed = time.perf_counter() - imported
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{{elapsed}} {{imported - start}} {{peak}} {{summary[0]}} {{summary[1]}} {{summary[2]}}")
"""


def run_tool(name, qrels_path, run_path):
    imports, program = PROGRAMS[name]
    code = f"QRELS, RUN, CUTOFFS = {str(qrels_path)!r}, {str(run_path)!r}, {CUTOFFS!r}\n" + MEASURE.format(
        imports=imports, program=textwrap.dedent(program)
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if result.returncode:
        return None, result.stderr.strip().splitlines()[-1]
    elapsed, imported, peak, *summary = map(float, result.stdout.split())
    return (elapsed, imported, peak, summary), None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=7000)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--tools", nargs="*", default=list(PROGRAMS))
    options = parser.parse_args()
    folder = Path(tempfile.gettempdir()) / "rankmetrics-bench-trec"
    folder.mkdir(exist_ok=True)
    qrels_path, run_path = write_collection(folder, options.queries, options.depth)
    print(f"{options.queries} queries x {options.depth} documents ({run_path.stat().st_size / 2**20:.0f} MiB run file)")
    results = {}
    for name in options.tools:
        results[name], error = run_tool(name, qrels_path, run_path)
        if error:
            print(f"{name:>20}: not run ({error})")
            continue
        elapsed, imported, peak, summary = results[name]
        print(
            f"{name:>20}: {elapsed:6.2f} s (+ {imported:4.2f} s of imports), peak {peak:6.0f} MiB; "
            f"map {summary[0]:.4f}, ndcg@10 {summary[1]:.4f}, recall@1000 {summary[2]:.4f}"
        )
    ours = results.get("sklearn-rankmetrics")
    for name, result in results.items():
        if ours and result and name != "sklearn-rankmetrics":
            print(f"{name} / sklearn-rankmetrics: {result[0] / ours[0]:.1f}x the time")


if __name__ == "__main__":
    main()
