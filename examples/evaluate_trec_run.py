"""
Evaluating a TREC run
=====================

A run file and its qrels are evaluated as trec_eval does, from Python with
``sklearn_rankmetrics.trec.evaluate_run`` and from the command line with
``python -m sklearn_rankmetrics.trec_eval``. The example writes a small collection of its own:
40 queries, 100 retrieved documents each, graded judgements of which some were never retrieved.
"""

# %%
# A collection on disk
# --------------------
# Qrels lines are ``qid iter docno rel``; run lines ``qid Q0 docno rank score tag``. Either file
# may be gzipped.
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from sklearn_rankmetrics import mean_average_precision_score
from sklearn_rankmetrics.trec import evaluate_run, read_qrels, read_run

rng = np.random.default_rng(0)
folder = Path(tempfile.mkdtemp())
qrels_lines, run_lines = [], []
for q in range(40):
    docs = [f"D{q}-{d}" for d in range(300)]
    judged = rng.choice(300, size=60, replace=False)
    grades = rng.choice([0, 0, 0, 1, 2], size=60)
    qrels_lines += [f"Q{q} 0 {docs[d]} {g}" for d, g in zip(judged, grades, strict=True)]
    merit = np.zeros(300)
    merit[judged] = grades
    retrieved = np.argsort(-(merit + rng.normal(0, 1.2, 300)))[:100]  # a noisy system, 100 documents
    run_lines += [f"Q{q} Q0 {docs[d]} {r + 1} {100 - r:.1f} demo" for r, d in enumerate(retrieved)]
(folder / "qrels.txt").write_text("\n".join(qrels_lines) + "\n")
(folder / "run.txt").write_text("\n".join(run_lines) + "\n")

qrels, run = read_qrels(folder / "qrels.txt"), read_run(folder / "run.txt")
print(f"{len(qrels.query_id)} judgements, {len(run.query_id)} retrieved documents")

# %%
# trec_eval's measures from Python
# --------------------------------
# The default is trec_eval's ``official`` set; any of its measures with parameters works, and so do
# this library's metric names (``nDCG@10``, ``AP``, ``RR@10``). Judged documents that the run did
# not retrieve count in recall, MAP and NDCG's ideal ranking.
means = evaluate_run(qrels, run, ["map", "P.5,10", "ndcg_cut.10", "recall.100", "bpref", "nDCG@10"])
for name, value in means.items():
    print(f"{name:<12} {value:.4f}")

# %%
# Per-query values come with ``average=False``.
per_query = evaluate_run(qrels, run, ["map", "recip_rank"], average=False)
print(per_query["qid"][:5], per_query["map"][:5].round(4))

# %%
# The same values from the metric functions
# -----------------------------------------
# Joining the run to the qrels and evaluating only the joined rows overstates MAP: the relevant
# documents that were not retrieved are missing. Giving each of them a row scored ``-inf`` (judged,
# not retrieved) restores trec_eval's value.
judgement = {(q, d): r for q, d, r in zip(qrels.query_id, qrels.doc_id, qrels.relevance, strict=True)}
retrieved = {(q, d): s for q, d, s in zip(run.query_id, run.doc_id, run.score, strict=True)}
joined = [(q, judgement.get((q, d), 0), s) for (q, d), s in retrieved.items()]
qid, y_true, y_score = map(np.array, zip(*joined, strict=True))
print(f"joined rows only:              MAP {mean_average_precision_score(y_true, y_score, qid=qid):.4f}")
missing = [(q, r, -np.inf) for (q, d), r in judgement.items() if (q, d) not in retrieved]
qid, y_true, y_score = map(np.array, zip(*(joined + missing), strict=True))
print(f"with -inf for the unretrieved: MAP {mean_average_precision_score(y_true, y_score, qid=qid):.4f}")

# %%
# The command that replaces trec_eval
# -----------------------------------
# It takes trec_eval's options (``-q`` per query, ``-c``, ``-l``, ``-M``, ``-m measure.params``) and
# prints its three-column output, line for line.
command = [sys.executable, "-m", "sklearn_rankmetrics.trec_eval", "-m", "map", "-m", "P.10", "-m", "ndcg_cut.10"]
output = subprocess.run(
    [*command, folder / "qrels.txt", folder / "run.txt"], capture_output=True, text=True, check=True
)
print(output.stdout)
