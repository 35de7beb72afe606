"""TREC collections written as files, for the tests of compare_runs and the rankmetrics command.

Graded judgements with some pooled but unjudged documents (-1), runs whose
scores tie (trec_eval breaks ties by document id), runs that skip some judged
queries or answer queries nobody judged, and the glue code a user writes
without compare_runs: evaluate_run on each run, then the queries every run
answers.
"""

import numpy as np

from sklearn_rankmetrics.trec import evaluate_run


def collection(seed=0, *, n_queries=30, n_docs=60, n_runs=10, skip=0.0, strength=0.08, decimals=1):
    """qrels ``{q: {d: rel}}`` and runs ``{name: {q: {d: score}}}``: run i leans on the judgements by i * strength.

    ``skip`` is the share of judged queries each run leaves out (at random); scores are rounded to ``decimals``
    (ties, which trec_eval breaks by document id), or not (None).
    One query of the runs ("q_unjudged") is in no qrels.
    """
    rng = np.random.default_rng(seed)
    qrels = {}
    for q in range(n_queries):
        docs = rng.choice(n_docs, 20, replace=False)
        qrels[f"q{q}"] = {f"d{d}": int(rng.choice([-1, 0, 0, 1, 1, 2])) for d in docs}
    runs = {}
    for i in range(n_runs):
        run = {}
        for q in [*qrels, "q_unjudged"]:
            if q in qrels and rng.random() < skip:
                continue
            docs = rng.choice(n_docs, 30, replace=False)
            judged = qrels.get(q, {})
            gains = np.array([max(judged.get(f"d{d}", 0), 0) for d in docs])
            scores = rng.normal(size=30) + i * strength * gains
            scores = scores if decimals is None else np.round(scores, decimals)
            run[q] = {f"d{d}": float(s) for d, s in zip(docs, scores, strict=True)}
        runs[f"run{i}"] = run
    return qrels, runs


def write_collection(folder, qrels, runs):
    """The qrels and runs as TREC files in ``folder``: ``qrels`` and ``runs/<name>.txt``; returns their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "runs").mkdir(exist_ok=True)
    qrels_path = folder / "qrels"
    qrels_path.write_text("".join(f"{q} 0 {d} {r}\n" for q, docs in qrels.items() for d, r in docs.items()))
    paths = {}
    for name, run in runs.items():
        path = folder / "runs" / f"{name}.txt"
        lines = []
        for q, docs in run.items():
            ranked = sorted(docs.items(), key=lambda item: -item[1])
            lines += [f"{q} Q0 {d} {rank} {s} {name}\n" for rank, (d, s) in enumerate(ranked, start=1)]
        path.write_text("".join(lines))
        paths[name] = path
    return qrels_path, paths


def glue(qrels, runs, metrics, **options):
    """The glue route: each run's evaluate_run(average=False), on the queries every run answers, in its order.

    Returns ``{name: {"qid": ids, metric: values}}``, ready for compare_per_query.
    """
    values = {name: evaluate_run(qrels, run, metrics, average=False, **options) for name, run in runs.items()}
    common = set.intersection(*(set(v["qid"].tolist()) for v in values.values()))
    return {
        name: {key: column[np.isin(v["qid"], list(common))] for key, column in v.items()} for name, v in values.items()
    }
