"""
Comparing ten TREC runs in one call
===================================

An IR paper's table: ten run files and their qrels, every run evaluated as trec_eval does, then
Tukey's HSD over all the pairs and a LaTeX table, with ``compare_runs``, and the same from the
shell with ``rankmetrics compare``. The example writes a collection of its own: 50 queries,
graded judgements, ten runs of growing quality, two of which skip a few queries.
"""

# %%
# Ten run files and a qrels file
# ------------------------------
# Run ``i`` leans on the judgements with strength ``0.3 + 0.1 i``; ``run3`` and ``run7`` leave out some
# queries, as a run that timed out would.
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

from sklearn_rankmetrics import compare_per_query, compare_runs
from sklearn_rankmetrics.trec import evaluate_run

rng = np.random.default_rng(0)
folder = Path(tempfile.mkdtemp())
(folder / "runs").mkdir()
judgements = {}
for q in range(50):
    judged = rng.choice(500, size=80, replace=False)
    judgements[f"Q{q}"] = dict(zip((f"D{d}" for d in judged), rng.choice([0, 0, 0, 1, 2], size=80), strict=True))
(folder / "qrels.txt").write_text(
    "".join(f"{q} 0 {d} {g}\n" for q, docs in judgements.items() for d, g in docs.items())
)
for i in range(10):
    lines = []
    for q, docs in judgements.items():
        if i in (3, 7) and rng.random() < 0.1:
            continue  # this run skips the query
        merit = np.array([docs.get(f"D{d}", 0) for d in range(500)])
        retrieved = np.argsort(-((0.3 + 0.1 * i) * merit + rng.normal(0, 1, 500)))[:100]
        lines += [f"{q} Q0 D{d} {r + 1} {100 - r} run{i}\n" for r, d in enumerate(retrieved)]
    (folder / "runs" / f"run{i}.txt").write_text("".join(lines))

# %%
# One call
# --------
# ``compare_runs`` takes the folder (or a glob pattern, a list of files, a mapping of names to runs,
# DataFrames or dicts). It compares the queries that every run answers, and says how many it left
# out; ``queries="union"`` or ``"qrels"`` would score a run's missing queries 0, as trec_eval -c.
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    result = compare_runs(
        folder / "qrels.txt", folder / "runs", metrics=["ndcg_cut.10", "map"], test="tukey-hsd", random_state=0
    )
for warning in caught:
    print("warning:", warning.message)
print(result)

# %%
# The LaTeX table: a letter per run, and as superscripts the letters of the runs it beats.
latex = result.to_latex()
print(latex)

# %%
# Tidy tables: one row per run and metric, and one per pair tested.
print(result.to_frame().set_index(["system", "metric"]).round(4).head(4))
pairs = result.to_frame(kind="pairs")
print(pairs.query("metric == 'map' and baseline == 'run8.txt'")[["system", "delta", "pvalue", "significant"]])

# %%
# The same as the glue code, to the last bit
# ------------------------------------------
# Before ``compare_runs``: ``evaluate_run`` on each file, the queries that every run answers, then
# the statistics. ``compare_per_query`` takes such per-query values from anywhere; here they give
# the same table to the last bit, and each run's mean is ``evaluate_run``'s on those queries.
values = {
    path.name: evaluate_run(folder / "qrels.txt", path, ["ndcg_cut.10", "map"], average=False)
    for path in sorted((folder / "runs").iterdir())
}
common = set.intersection(*(set(v["qid"].tolist()) for v in values.values()))
values = {name: {k: column[np.isin(v["qid"], list(common))] for k, column in v.items()} for name, v in values.items()}
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    glued = compare_per_query(values, test="tukey-hsd", random_state=0)
print("same LaTeX table:", glued.to_latex() == latex)

# %%
# From the shell
# --------------
# ``rankmetrics compare`` (also ``python -m sklearn_rankmetrics compare``) reads the same files with
# the same readers; warnings go to stderr, the table to stdout.
command = [
    sys.executable,
    "-m",
    "sklearn_rankmetrics",
    "compare",
    str(folder / "qrels.txt"),
    str(folder / "runs"),
    "-m",
    "ndcg_cut.10",
    "-m",
    "map",
    "--test",
    "tukey",
    "--format",
    "latex",
    "--seed",
    "0",
]
done = subprocess.run(command, capture_output=True, text=True, check=True)
print("the command prints the same table:", done.stdout == latex)
print(done.stderr.strip())
