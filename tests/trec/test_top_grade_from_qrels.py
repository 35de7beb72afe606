"""A query's value in evaluate_run never depends on the other queries (issue 36, item 4).

ERR, nERR, INST and INSQ scale their gains by a top grade. evaluate_run and
the trec_eval command take it from the qrels (their largest judgement over
every query), not from the queries the run happens to answer.
"""

import numpy as np
import pytest

from sklearn_rankmetrics import expected_reciprocal_rank_score, insq_score, inst_score, normalized_err_score
from sklearn_rankmetrics.trec import evaluate_run

GRADED = ["err@5", "nerr@5", "ERR", "INST(T=2.0)", "INSQ(T=2.0)", "inst(target=1.0, k=10)"]


def collection(seed, n_queries=8):
    """Qrels of graded queries, one of them the only one with the top grade 6; a run answering every query."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        docs = [f"d{j}" for j in range(int(rng.integers(2, 12)))]
        qrels[f"q{q}"] = {doc: int(rng.choice([0, 0, 1, 2, 3])) for doc in docs}
        run[f"q{q}"] = {doc: float(score) for doc, score in zip(docs, rng.permutation(len(docs)), strict=True)}
    qrels["q0"]["d0"] = 6  # the qrels' top grade, in one query
    return qrels, run


@pytest.mark.parametrize("seed", range(4))
def test_adding_or_removing_other_queries_leaves_a_querys_value_unchanged(seed):
    qrels, run = collection(seed)
    whole = evaluate_run(qrels, run, GRADED, average=False)
    rng = np.random.default_rng(seed)
    for _ in range(6):
        # A run answering some of the queries (q0, the one with the top grade, answered or not).
        answered = sorted(rng.choice(sorted(run), int(rng.integers(1, len(run))), replace=False))
        part = evaluate_run(qrels, {q: run[q] for q in answered}, GRADED, average=False)
        rows = np.searchsorted(whole["qid"], part["qid"])
        for name in GRADED:
            np.testing.assert_array_equal(part[name], whole[name][rows], err_msg=f"{name}, queries {answered}")
        # With complete=True the missing queries are evaluated too (as rankings of nothing): still unchanged.
        complete = evaluate_run(qrels, {q: run[q] for q in answered}, GRADED, average=False, complete=True)
        for name in GRADED:
            np.testing.assert_array_equal(complete[name][rows], whole[name][rows], err_msg=name)


def test_the_top_grade_is_the_largest_judgement_of_the_qrels():
    qrels, run = collection(0)
    alone = {"q3": run["q3"]}  # a query whose own largest grade is at most 3
    values = evaluate_run(qrels, alone, GRADED, average=False)
    labels = np.array([qrels["q3"][doc] for doc in run["q3"]], dtype=float)
    scores = np.array([run["q3"][doc] for doc in run["q3"]])
    assert labels.max() < 6
    expected = {
        "err@5": expected_reciprocal_rank_score(labels, scores, k=5, max_grade=6),
        "nerr@5": normalized_err_score(labels, scores, k=5, max_grade=6),
        "ERR": expected_reciprocal_rank_score(labels, scores, max_grade=6),
        "INST(T=2.0)": inst_score(labels, scores, target=2.0, max_grade=6),
        "INSQ(T=2.0)": insq_score(labels, scores, target=2.0, max_grade=6),
        "inst(target=1.0, k=10)": inst_score(labels, scores, target=1.0, max_grade=6, k=10),
    }
    for name, value in expected.items():
        assert values[name][0] == pytest.approx(value, rel=1e-12), name
    # The query's own top grade would give another value.
    assert values["err@5"][0] != pytest.approx(expected_reciprocal_rank_score(labels, scores, k=5))


def test_the_trec_eval_command_takes_the_top_grade_from_the_qrels(tmp_path, capsys):
    from sklearn_rankmetrics.trec_eval import main

    qrels, run = collection(1)
    (tmp_path / "qrels").write_text(
        "".join(f"{q} 0 {doc} {grade}\n" for q, docs in qrels.items() for doc, grade in docs.items())
    )
    for answered in (["q2"], ["q0", "q2", "q5"]):
        (tmp_path / "run").write_text(
            "".join(f"{q} Q0 {doc} 0 {score} r\n" for q in answered for doc, score in run[q].items())
        )
        assert main(["-q", "-m", "err@5", str(tmp_path / "qrels"), str(tmp_path / "run")]) == 0
        lines = [line.split() for line in capsys.readouterr().out.splitlines()]
        value = {query: float(text) for name, query, text in lines if query == "q2"}["q2"]
        assert value == pytest.approx(evaluate_run(qrels, run, ["err@5"], average=False)["err@5"][2], abs=5e-5)
