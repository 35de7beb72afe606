"""sklearn_rankmetrics.spark's partitions without Spark: Arrow batches in, pickled states merged on the driver.

Spark's part is the shuffle by query and the transport; the rest (measuring a partition's Arrow batches, merging
the states, the messages of refused rows) is plain Python, checked here on many random partitionings in a second.
"""

import numpy as np
import pytest
from spark_logs import log, quiet

from sklearn_rankmetrics import ranking_report, recommender_report

pa = pytest.importorskip("pyarrow")

from sklearn_rankmetrics.spark._report import ROW, measure_lists, measure_partition, report_of_states  # noqa: E402

METRICS = ["ndcg@10", "map", "mrr@10", "err@20", "recall@5(zero_division=1.0)", "ndcg_exp@5", "precision@3"]
ROWS = {"qid": "qid", "label": "label", "score": "score", "weight": "w"}
LISTS = {"recommendations": "recommendations", "relevant": "relevant", "grades": None, "user": "user"}


def states(table, owner, measure, rng, **options):
    """Spark's route: the rows of each partition (``owner``) in Arrow batches of random sizes, measured, as rows."""
    found = []
    for part in range(owner.max() + 1):
        rows = table.take(np.flatnonzero(owner == part))
        cuts = np.sort(rng.integers(0, rows.num_rows + 1, rng.integers(0, 4)))
        bounds = zip(np.r_[0, cuts], np.r_[cuts, rows.num_rows], strict=True)
        batches = [batch for start, stop in bounds for batch in rows.slice(start, stop - start).to_batches()]
        for state in measure(iter(batches), **options):
            found += state.to_pylist()
    return found


def spark_like_report(rows, seed, *, ties="average", average=True, **options):
    """The report of ``rows`` dealt to random partitions by query (and shuffled within each), as Spark deals them."""
    rng = np.random.default_rng(seed)
    distinct, codes = np.unique(rows["qid"], return_inverse=True)
    owner = rng.integers(0, rng.integers(1, 12), len(distinct))[codes]  # some partitions empty
    table = pa.Table.from_pandas(rows.assign(**{ROW: np.arange(len(rows))}), preserve_index=False)
    table = table.take(rng.permutation(len(rows)))  # the shuffle's order: ties="stable" goes back by ROW
    columns = ROWS if ties != "stable" else {**ROWS, "row": ROW}
    names = {"metrics": options.pop("metrics"), "ties": ties, "zero_division": 0.0, "max_grade": rows["label"].max()}
    found = states(table, owner[table.column(ROW).to_numpy()], measure_partition, rng, columns=columns, options=names)
    return quiet(report_of_states, found, names, average, **options)


def test_random_partitionings_give_the_in_memory_report_to_the_last_bit():
    for seed in range(5):
        rows = log(seed)
        weight = rows["w"].to_numpy()
        expected = quiet(ranking_report, rows["label"], rows["score"], qid=rows["qid"], metrics=METRICS,
                         sample_weight=weight, confidence_level=0.9, n_resamples=200, random_state=1)  # fmt: skip
        found = spark_like_report(rows, seed, metrics=METRICS, confidence_level=0.9, n_resamples=200, random_state=1)
        assert found == expected  # whole grades up to 64: the same floats


@pytest.mark.parametrize("ties", ["average", "stable"])
def test_string_ids_per_query_tables_and_stable_ties(ties):
    rows = log(7, n_queries=60).assign(qid=lambda frame: "q" + frame["qid"].astype(str))
    expected = quiet(ranking_report, rows["label"], rows["score"], qid=rows["qid"], metrics=METRICS[:3], ties=ties,
                     sample_weight=rows["w"], average=False)  # fmt: skip
    found = spark_like_report(rows, 8, metrics=METRICS[:3], ties=ties, average=False, confidence_level=None,
                              n_resamples=10, random_state=None)  # fmt: skip
    assert found["qid"].tolist() == expected["qid"].tolist()
    for name in METRICS[:3]:
        np.testing.assert_array_equal(found[name], expected[name])


def user_lists(seed=3, n_users=40, n_items=30):
    """Users' recommended ids (best first) and relevant ids with grades; user 0 has neither."""
    rng = np.random.default_rng(seed)
    users = []
    for user in range(n_users):
        recommended = rng.permutation(n_items)[: rng.integers(0, 10)].tolist() if user else []
        relevant = rng.permutation(n_items)[: rng.integers(0 if user % 9 else 1, 6)].tolist() if user else []
        users.append((user, recommended, relevant, rng.integers(1, 4, len(relevant)).astype(float).tolist()))
    return users


def structs(ids, grades):
    return [{"item": item, "grade": grade} for item, grade in zip(ids, grades, strict=True)]


def test_lists_equal_the_in_memory_recommender_metrics_on_any_partitioning():
    users = user_lists()
    n_items = 30
    y_true, y_score = np.zeros((len(users), n_items)), np.full((len(users), n_items), -np.inf)
    for user, recommended, relevant, grades in users:
        y_score[user, recommended] = -1.0 - np.arange(len(recommended))
        y_true[user, relevant] = grades
    metrics = ["ndcg@5", "map", "recall@5", "precision@5", "mrr", "err@5"]
    expected = quiet(recommender_report, y_true, y_score, k=5, metrics=metrics, zero_division=0.0)
    table = pa.table(
        {
            "user": [user for user, *_ in users],
            "recommendations": [recommended for _, recommended, _, _ in users],
            "relevant": [structs(relevant, grades) for _, _, relevant, grades in users],
        }
    )
    options = {"metrics": metrics, "ties": "average", "zero_division": 0.0, "max_grade": 3.0}
    for seed in range(4):
        rng = np.random.default_rng(seed)
        owner = rng.integers(0, rng.integers(1, 6), len(users))
        found = states(table, owner, measure_lists, rng, columns=LISTS, options=options)
        report = quiet(report_of_states, found, options, True, None, 10, None)
        assert report.keys() == {name: None for name in metrics}.keys()
        for name in metrics:
            assert report[name] == pytest.approx(expected[name], abs=1e-12), name


def test_refused_rows_are_said_on_the_driver_and_no_rows_is_an_error():
    options = {"metrics": ["ndcg"], "ties": "average", "zero_division": 0.0}
    table = pa.table({"qid": [1, 1], "label": pa.array([1.0, None]), "score": [0.5, 0.2]})
    found = states(table, np.zeros(2, dtype=int), measure_partition, np.random.default_rng(0),
                   columns={**ROWS, "weight": None}, options=options)  # fmt: skip
    with pytest.raises(ValueError, match=r"Column 'label' has 1 null values.*na.drop"):
        report_of_states(found, options, True, None, 10, None)
    with pytest.raises(ValueError, match="df has no rows"):
        report_of_states([], options, True, None, 10, None)
    twice = pa.table({"user": [1, 1], "recommendations": [[5], [3]], "relevant": [[5], [3]]})
    found = states(twice, np.array([0, 1]), measure_lists, np.random.default_rng(0), columns=LISTS, options=options)
    with pytest.raises(ValueError, match=r"measured twice.*On Spark: a user on two rows of the lists"):
        report_of_states(found, options, True, None, 10, None)
