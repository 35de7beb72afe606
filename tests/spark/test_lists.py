"""Users' lists of ids as rows (sklearn_rankmetrics.spark._lists), on Arrow batches alone: no Spark, no Java."""

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")

from sklearn_rankmetrics.spark._lists import rows_of_lists  # noqa: E402

COLUMNS = {"recommendations": "rec", "relevant": "rel", "grades": None, "user": "user"}


def batch(users, recommended, relevant, grades=None):
    data = {"user": pa.array(users), "rec": pa.array(recommended), "rel": pa.array(relevant)}
    if grades is not None:
        data["grades"] = pa.array(grades)
    return pa.RecordBatch.from_pydict(data)


def naive_rows(users, recommended, relevant, grades):
    """The rows, user by user: ranks from 1 (score -rank), relevant ids not recommended at -inf."""
    rows = []
    for user, recs, rels, gs in zip(users, recommended, relevant, grades, strict=True):
        grade = dict(zip(rels, gs, strict=True))
        rows += [(user, grade.get(item, 0.0), -1.0 - rank) for rank, item in enumerate(recs)]
        rows += [(user, grade[item], -np.inf) for item in rels if item not in recs]
        if not recs and not rels:
            rows.append((user, 0.0, -np.inf))
    return sorted(rows)


@pytest.mark.parametrize("ids", ["int", "str"])
def test_rows_of_lists_equal_a_loop_over_users(ids):
    rng = np.random.default_rng(0)
    users, recommended, relevant, grades = [], [], [], []
    for user in range(50):
        recs = rng.permutation(40)[: rng.integers(0, 12)].tolist()
        rels = rng.permutation(40)[: rng.integers(0, 6)].tolist()
        if ids == "str":
            recs, rels = [f"i{item}" for item in recs], [f"i{item}" for item in rels]
        users.append(user)
        recommended.append(recs)
        relevant.append(rels)
        grades.append(rng.integers(1, 4, len(rels)).astype(float).tolist())
    y_true, y_score, qid = rows_of_lists(batch(users, recommended, relevant, grades), {**COLUMNS, "grades": "grades"})
    assert sorted(zip(qid.tolist(), y_true.tolist(), y_score.tolist(), strict=True)) == naive_rows(
        users, recommended, relevant, grades
    )
    binary = rows_of_lists(batch(users, recommended, relevant), COLUMNS)
    ones = [[1.0] * len(rels) for rels in relevant]
    assert sorted(zip(binary[2].tolist(), binary[0].tolist(), binary[1].tolist(), strict=True)) == naive_rows(
        users, recommended, relevant, ones
    )


@pytest.mark.parametrize(
    ("data", "columns", "match"),
    [
        (([1], [[5, 5]], [[5]]), COLUMNS, "recommends an id twice"),
        (([1], [[5]], [[4, 4]]), COLUMNS, "lists a relevant id twice"),
        (([1, 1], [[5], [4]], [[5], [4]]), COLUMNS, "holds a user on two rows"),
        (([1], [[5]], [None]), COLUMNS, "'rel' has 1 null arrays"),
        (([None], [[5]], [[5]]), COLUMNS, "'user' has 1 null values"),
        (([1], [[5]], [[5]], [[1.0, 2.0]]), {**COLUMNS, "grades": "grades"}, "one grade per relevant id"),
        (([1], [[5, None]], [[5]]), COLUMNS, "Column 'rec' has 1 null ids inside its arrays"),
        (([1], [[5]], [[5]], [[None]]), {**COLUMNS, "grades": "grades"}, "Column 'grades' has 1 null grades"),
        (([1], [[5]], [[{"id": 5, "grade": None}]]), COLUMNS, "Column 'rel' has 1 null grades"),
        (([1], [[5]], [["5"]]), COLUMNS, r"Columns 'rec' and 'rel' hold ids of two kinds \(int64 and object\)"),
    ],
)
def test_refused_lists(data, columns, match):
    with pytest.raises(ValueError, match=match):
        rows_of_lists(batch(*data), columns)


def test_a_batch_of_users_with_empty_lists_only_is_queries_without_a_relevant_document():
    empty = pa.list_(pa.int64())
    found = rows_of_lists(batch([3, 4], pa.array([[], []], empty), pa.array([[], []], empty)), COLUMNS)
    assert [values.tolist() for values in found] == [[0.0, 0.0], [-np.inf, -np.inf], [3, 4]]
