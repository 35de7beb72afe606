"""Ten TREC run files compared in one call, against the trec_eval command's path run on each file.

    python benchmarks/bench_compare_runs.py [--runs 10] [--queries 250] [--depth 1000] [--repeats 3]

A deterministic TREC-like collection (``--queries`` queries with about 100
judgements each; ``--runs`` run files of ``--depth`` documents per query) is
written once to a temporary folder. Then, side by side in one process, each
timing the best of ``--repeats`` (the machine's load varies; the best is the
least disturbed), for the measures ``map`` and ``ndcg_cut.10``:

- the trec_eval command's path: ``sklearn_rankmetrics.trec_eval.main`` on each
  run file in turn (read the qrels and the run, evaluate, print), summed over
  the runs;
- :func:`compare_runs` on the folder, split into its reading and evaluation
  of every run (the whole call less the statistics) and the statistics alone
  (:func:`compare_per_query` on the same per-query values), with the t-test
  and with the default randomization test (10,000 sign flips, every pair);
- ``rankmetrics compare`` in the same process, and both commands as whole
  processes (``python -m sklearn_rankmetrics.trec_eval`` once per run, against
  ``python -m sklearn_rankmetrics compare`` once).

Target (issue 38): compare_runs reads and evaluates the runs at least as fast
as the trec_eval command's path does, one file after another (ratio <= 1).
The per-query values are checked equal to those of ``evaluate_run``.
"""

import argparse
import contextlib
import io
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from timing import best_of


def write_collection(folder, n_runs, n_queries, depth, seed=0):
    """The qrels and ``n_runs`` run files of a deterministic collection; returns their paths."""
    rng = np.random.default_rng(seed)
    n_docs = 50 * depth
    judged = {q: rng.choice(n_docs, 100, replace=False) for q in range(n_queries)}
    grades = {q: rng.choice([0, 0, 0, 1, 1, 2], 100) for q in range(n_queries)}
    qrels = folder / "qrels"
    with open(qrels, "w") as stream:
        for q in range(n_queries):
            stream.writelines(f"{400 + q} 0 doc{d} {g}\n" for d, g in zip(judged[q], grades[q], strict=True))
    (folder / "runs").mkdir()
    for run in range(n_runs):
        lines = []
        for q in range(n_queries):
            unjudged = n_docs + rng.choice(n_docs, depth, replace=False)  # ids no judgement uses
            documents = np.concatenate((judged[q][: 20 + 5 * run], unjudged))[:depth]
            scores = np.sort(rng.random(depth))[::-1] * 30
            lines += [
                f"{400 + q} Q0 doc{d} {rank} {s:.4f} run{run}\n"
                for rank, (d, s) in enumerate(zip(rng.permutation(documents), scores, strict=True), start=1)
            ]
        (folder / "runs" / f"run{run:02d}.txt").write_text("".join(lines))
    return qrels, sorted((folder / "runs").iterdir())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--queries", type=int, default=250)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from sklearn_rankmetrics import compare_per_query, compare_runs
    from sklearn_rankmetrics._command import main as rankmetrics
    from sklearn_rankmetrics.trec import evaluate_run
    from sklearn_rankmetrics.trec_eval import main as trec_eval

    measures = ["map", "ndcg_cut.10"]
    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        qrels, runs = write_collection(folder, args.runs, args.queries, args.depth)
        size = sum(path.stat().st_size for path in runs) / 2**20
        print(
            f"{args.runs} runs of {args.queries} queries x {args.depth} documents ({size:.0f} MiB), qrels of "
            f"{args.queries * 100} judgements; best of {args.repeats}\n"
        )

        def trec_eval_path():
            for run in runs:
                with contextlib.redirect_stdout(io.StringIO()):
                    assert trec_eval(["-m", "map", "-m", "ndcg_cut.10", str(qrels), str(run)]) == 0

        reference = best_of(args.repeats, trec_eval_path)[0]
        rows = [("trec_eval command's path, each run in turn", reference)]
        for test in ("t-test", "randomization"):
            whole, _, result = best_of(
                args.repeats,
                lambda test=test: compare_runs(qrels, folder / "runs", metrics=measures, test=test, random_state=0),
            )
            values = {
                name: {m: result.per_query[m][name] for m in result.per_query if m != "qid"}
                for name in result.per_query["map"]
            }
            statistics = best_of(
                args.repeats, lambda values=values, test=test: compare_per_query(values, test=test, random_state=0)
            )[0]
            rows += [
                (f"compare_runs ({test}), whole call", whole),
                ("  reading and evaluating the runs", whole - statistics),
                (f"  the statistics ({test}, every pair)", statistics),
            ]
        alone = evaluate_run(qrels, runs[0], measures, average=False)
        assert np.array_equal(result.per_query["map"][runs[0].name], alone["map"])

        compare_argv = [
            "compare",
            str(qrels),
            str(folder / "runs"),
            "-m",
            "map",
            "-m",
            "ndcg_cut.10",
            "--test",
            "t-test",
        ]

        def command():
            with contextlib.redirect_stdout(io.StringIO()):
                assert rankmetrics([*compare_argv, "--seed", "0"]) == 0

        rows.append(("rankmetrics compare (t-test), in process", best_of(args.repeats, command)[0]))

        def processes(argvs):
            for argv in argvs:
                subprocess.run([sys.executable, "-m", *argv], check=True, capture_output=True)

        each = [
            ["sklearn_rankmetrics.trec_eval", "-m", "map", "-m", "ndcg_cut.10", str(qrels), str(run)] for run in runs
        ]
        once = [["sklearn_rankmetrics", *compare_argv, "--seed", "0"]]
        rows += [
            (f"{args.runs} trec_eval processes", best_of(args.repeats, lambda: processes(each))[0]),
            ("one rankmetrics compare process (t-test)", best_of(args.repeats, lambda: processes(once))[0]),
        ]

    width = max(len(label) for label, _ in rows)
    for label, seconds in rows:
        print(f"{label:<{width}}  {seconds:8.3f} s  {seconds / reference:6.2f}x the trec_eval command's path")
    evaluation = next(seconds for label, seconds in rows if label.strip() == "reading and evaluating the runs")
    print(
        f"\nreading and evaluating {args.runs} runs: {evaluation / reference:.2f}x the trec_eval command's path "
        f"(target <= 1)"
    )


if __name__ == "__main__":
    main()
