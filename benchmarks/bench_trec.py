"""TREC evaluation from files at MS MARCO dev size: the readers against pyarrow, the command against its peers.

    python benchmarks/bench_trec.py [--trec-eval PATH] [--repeats 3] [--queries 7000] [--depth 1000]

A deterministic collection like MS MARCO passage dev (7,000 queries x 1,000
retrieved passages, about 1.1 relevant passages per query, most of them
retrieved near the top; a 231 MiB run file) is written once to a temporary
folder. Then, measured side by side in one run, every timing the best of
``--repeats`` with the tools taken in turn (the machine's load varies; the
best is the least disturbed):

- reading: :func:`~sklearn_rankmetrics.trec.read_run` and
  :func:`~sklearn_rankmetrics.trec.read_qrels` against ``pyarrow.csv.read_csv``
  (delimiter " ", types inferred) of the same file, in one process;
- end to end, each a whole process from its start to its exit (interpreter,
  imports, reading, evaluation, output), for ``-m official`` and ``-m
  ndcg_cut.10``: the command ``python -m sklearn_rankmetrics.trec_eval``, C
  trec_eval (``--trec-eval``: a binary built from usnistgov/trec_eval with
  ``cc -O2``), pytrec_eval (parse_qrel, parse_run, evaluate, the means) and ranx
  (Qrels/Run.from_file, evaluate, with the measures of the set it has: map, mrr,
  r-precision, bpref and precision at trec_eval's cutoffs for official;
  ndcg@10), with the peak resident memory of each process.

The command's output must equal C trec_eval's, line for line; pytrec_eval's
and ranx's means of map and ndcg@10 are checked against ours. Also, with
``--long-ids``, the command's peak memory on the same run with 26-byte
document ids (``msmarco_passage_00_...``) and with one document id of 20,000
bytes.

Targets (issue #29): read_run within 1.5x of pyarrow.csv.read_csv; end to end
at least 2x faster than C trec_eval and 4x faster than pytrec_eval, with a
peak memory of at most 3x the run file.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
SETS = ("official", "ndcg_cut.10")
TOOLS = ("sklearn-rankmetrics", "trec_eval (C, -O2)", "pytrec_eval", "ranx")


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


def long_id_variants(folder, qrels_path, run_path, n_rows):
    """The same collection with 26-byte document ids, and the run with one document id of 20,000 bytes."""
    long_qrels, long_run = folder / f"{qrels_path.stem}-long-ids.txt", folder / f"{run_path.stem}-long-ids.txt"
    one_long = folder / f"{run_path.stem}-one-long-id.txt"
    if not (long_qrels.exists() and long_run.exists() and one_long.exists()):
        with open(qrels_path, "rb") as source, open(long_qrels, "wb") as target:
            target.writelines(line.replace(b" 0 ", b" 0 msmarco_passage_00_", 1) for line in source)
        with open(run_path, "rb") as source, open(long_run, "wb") as target:
            target.writelines(line.replace(b" Q0 ", b" Q0 msmarco_passage_00_", 1) for line in source)
        with open(run_path, "rb") as source, open(one_long, "wb") as target:
            for index, line in enumerate(source):
                if index == n_rows // 2:
                    fields = line.split(b" ")
                    line = b" ".join([*fields[:2], b"D" * 20_000, *fields[3:]])
                target.write(line)
    return (long_qrels, long_run), (qrels_path, one_long)


READERS = """
import sys, time
import pyarrow.csv
from sklearn_rankmetrics.trec import read_qrels, read_run
qrels, run, repeats = sys.argv[1], sys.argv[2], int(sys.argv[3])

def arrow(path, names):
    return pyarrow.csv.read_csv(
        path,
        read_options=pyarrow.csv.ReadOptions(column_names=names),
        parse_options=pyarrow.csv.ParseOptions(delimiter=" "),
    )

tasks = {
    "pyarrow.csv.read_csv (run)": lambda: arrow(run, ["query_id", "Q0", "doc_id", "rank", "score", "tag"]),
    "read_run": lambda: read_run(run),
    "pyarrow.csv.read_csv (qrels)": lambda: arrow(qrels, ["query_id", "iteration", "doc_id", "relevance"]),
    "read_qrels": lambda: read_qrels(qrels),
}
best = dict.fromkeys(tasks, float("inf"))
for _ in range(repeats):
    for name, task in tasks.items():
        start = time.perf_counter()
        task()
        best[name] = min(best[name], time.perf_counter() - start)
for name, seconds in best.items():
    print(f"{name}\\t{seconds}")
"""

PYTREC_EVAL = """
import sys, pytrec_eval
qrels_path, run_path, measures = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
with open(qrels_path) as file:
    qrels = pytrec_eval.parse_qrel(file)
with open(run_path) as file:
    run = pytrec_eval.parse_run(file)
per_query = pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)
names = next(iter(per_query.values()))
for name in sorted(names):
    print(name, pytrec_eval.compute_aggregated_measure(name, [values[name] for values in per_query.values()]))
"""

RANX = """
import sys
from ranx import Qrels, Run, evaluate
qrels_path, run_path, measures = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
means = evaluate(Qrels.from_file(qrels_path, kind="trec"), Run.from_file(run_path, kind="trec"), measures)
means = means if isinstance(means, dict) else {measures[0]: means}  # one measure: its mean alone
for name, value in sorted(means.items()):
    print(name, value)
"""

PYTREC_MEASURES = {
    "official": "map,gm_map,Rprec,bpref,recip_rank,iprec_at_recall,P,num_q,num_ret,num_rel,num_rel_ret",
    "ndcg_cut.10": "ndcg_cut_10",
}
RANX_MEASURES = {
    "official": ",".join(["map", "mrr", "r-precision", "bpref"] + [f"precision@{k}" for k in CUTOFFS]),
    "ndcg_cut.10": "ndcg@10",
}


def commands(tool, measures, qrels, run, trec_eval):
    """The command line of one tool, evaluating ``measures`` (official or ndcg_cut.10) from the files."""
    if tool == "sklearn-rankmetrics":
        return [sys.executable, "-m", "sklearn_rankmetrics.trec_eval", "-m", measures, qrels, run]
    if tool == "trec_eval (C, -O2)":
        return [os.path.abspath(trec_eval), "-m", measures, qrels, run]
    if tool == "pytrec_eval":
        return [sys.executable, "-c", PYTREC_EVAL, qrels, run, PYTREC_MEASURES[measures]]
    return [sys.executable, "-c", RANX, qrels, run, RANX_MEASURES[measures]]


# Each tool starts from this small launcher, which times it and reads its peak memory: a process started
# from a larger one would report that one's memory (Linux keeps the high-water mark across exec).
LAUNCHER = """
import os, sys, time
start = time.perf_counter()
pid = os.posix_spawn(sys.argv[1], sys.argv[1:], os.environ)
_, status, usage = os.wait4(pid, 0)
print("bench:", os.waitstatus_to_exitcode(status), time.perf_counter() - start, usage.ru_maxrss, file=sys.stderr)
"""


def run_process(command):
    """Wall time of a whole process, its peak resident memory (MiB), its output, and its error (or None)."""
    result = subprocess.run([sys.executable, "-S", "-c", LAUNCHER, *command], capture_output=True, text=True)
    *errors, report = result.stderr.strip().splitlines()
    status, elapsed, peak = report.split()[1:]
    failed = errors[-1:] or ["failed"] if int(status) else None
    return float(elapsed), int(peak) / 1024, result.stdout, failed


def summary_values(tool, output):
    """map and ndcg@10 (where printed) from a tool's output, for the cross-check."""
    values = {}
    for line in output.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] == "all":  # trec_eval's layout
            values[fields[0]] = fields[2]
        elif len(fields) == 2:
            values[fields[0]] = fields[1]
    aliases = {"map": ("map",), "ndcg@10": ("ndcg_cut_10", "ndcg@10")}
    return {
        name: float(values[key])
        for name, keys in aliases.items()
        for key in keys
        if key in values and values[key].replace(".", "", 1).isdigit()
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trec-eval", default=shutil.which("trec_eval"), help="C trec_eval built with -O2")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--queries", type=int, default=7000)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--tools", nargs="*", default=list(TOOLS))
    parser.add_argument("--long-ids", action="store_true", help="also the peak memory with long document ids")
    options = parser.parse_args()
    folder = Path(tempfile.gettempdir()) / "rankmetrics-bench-trec"
    folder.mkdir(exist_ok=True)
    qrels_path, run_path = write_collection(folder, options.queries, options.depth)
    run_mib = run_path.stat().st_size / 2**20
    print(f"{options.queries} queries x {options.depth} documents: a {run_mib:.0f} MiB run file")
    print(f"Times: the best of {options.repeats}, the tools in turn.")

    print("\nReading (one process, each reader in turn):")
    result = subprocess.run(
        [sys.executable, "-c", READERS, str(qrels_path), str(run_path), str(options.repeats)],
        capture_output=True,
        text=True,
        check=True,
    )
    best = dict(line.split("\t") for line in result.stdout.strip().splitlines())
    best = {name: float(seconds) for name, seconds in best.items()}
    for kind, ours in [("run", "read_run"), ("qrels", "read_qrels")]:
        arrow = best[f"pyarrow.csv.read_csv ({kind})"]
        ratio = best[ours] / arrow
        print(f"  {ours:>10}: {best[ours]:6.3f} s, pyarrow.csv.read_csv {arrow:6.3f} s: {ratio:.2f}x its time")

    tools = [tool for tool in options.tools if tool != "trec_eval (C, -O2)" or options.trec_eval]
    if "trec_eval (C, -O2)" in options.tools and not options.trec_eval:
        print("\n(no C trec_eval: pass --trec-eval PATH, a binary built with cc -O2 from usnistgov/trec_eval)")
    for measures in SETS:
        print(f"\nEnd to end, -m {measures} (whole processes, in turn):")
        times = {tool: float("inf") for tool in tools}
        peaks, outputs, failures = {}, {}, {}
        for _ in range(options.repeats):
            for tool in tools:
                if tool in failures:
                    continue
                command = commands(tool, measures, str(qrels_path), str(run_path), options.trec_eval)
                elapsed, peak, output, failed = run_process(command)
                if failed:
                    failures[tool] = failed
                    continue
                times[tool] = min(times[tool], elapsed)
                peaks[tool] = max(peaks.get(tool, 0.0), peak)
                outputs[tool] = output
        ours = times.get("sklearn-rankmetrics")
        reference = summary_values("sklearn-rankmetrics", outputs.get("sklearn-rankmetrics", ""))
        for tool in tools:
            if tool in failures:
                print(f"  {tool:>20}: not run ({' '.join(failures[tool])})")
                continue
            ratio = f", {times[tool] / ours:5.2f}x ours" if ours and tool != "sklearn-rankmetrics" else ""
            values = summary_values(tool, outputs[tool])
            agree = all(abs(values[name] - reference[name]) < 5e-4 for name in values.keys() & reference.keys())
            check = "" if tool == "sklearn-rankmetrics" else ("; values agree" if agree else "; VALUES DIFFER")
            if tool == "trec_eval (C, -O2)":
                same = outputs[tool] == outputs.get("sklearn-rankmetrics")
                check = "; output identical" if same else "; OUTPUT DIFFERS"
            print(
                f"  {tool:>20}: {times[tool]:6.2f} s{ratio}, peak {peaks[tool]:6.0f} MiB "
                f"({peaks[tool] / run_mib:.1f}x the run file){check}"
            )

    if options.long_ids:
        print("\nPeak memory of the command (-m official) with long document ids:")
        for label, (qrels, run) in zip(
            ("26-byte document ids", "one document id of 20,000 bytes"),
            long_id_variants(folder, qrels_path, run_path, options.queries * options.depth),
            strict=True,
        ):
            command = commands("sklearn-rankmetrics", "official", str(qrels), str(run), None)
            elapsed, peak, _, _ = run_process(command)
            size = run.stat().st_size / 2**20
            share = f"{peak / size:.1f}x its {size:.0f} MiB run file"
            print(f"  {label:>32}: {elapsed:6.2f} s, peak {peak:6.0f} MiB ({share})")


if __name__ == "__main__":
    main()
