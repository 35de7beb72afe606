"""RankingAccumulator: the in-memory report to the last bit, whatever the batching, the merges and the pickling."""

import functools
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_rankmetrics import RankingAccumulator, ranking_report

METRICS = [
    "ndcg@10",
    "map",
    "mrr",
    "err@5(max_grade=3)",
    "recall@3(zero_division=1.0)",
    "precision@5",
    "ndcg_exp",
    "opa",
]


def log(seed=0, n_queries=150, ids="int"):
    """Rows ordered by query (a stream), with ties, -inf scores, queries without a relevant document."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 25, n_queries)
    qid = np.repeat(rng.permutation(n_queries) * 3 + 5, sizes)
    if ids == "str":
        qid = np.array([f"q{value}" for value in qid], dtype=object)
    y_true = rng.choice([0, 0, 0, 1, 2, 3], qid.size).astype(float)
    y_score = rng.integers(0, 6, qid.size).astype(float)
    y_score[rng.random(qid.size) < 0.05] = -np.inf
    return y_true, y_score, qid, rng


def report(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return ranking_report(*args, **kwargs)


def computed(accumulator, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return accumulator.compute(**kwargs)


def cuts(rng, n_rows, n_batches):
    bounds = np.sort(rng.choice(np.arange(1, n_rows), n_batches - 1, replace=False))
    return list(zip(np.r_[0, bounds], np.r_[bounds, n_rows], strict=True))


def assert_same(found, expected):
    assert found.keys() == expected.keys()
    for name, value in expected.items():
        np.testing.assert_array_equal(found[name], value)  # to the last bit


@pytest.mark.parametrize("ties", ["average", "pessimistic", "stable"])
@pytest.mark.parametrize("ids", ["int", "str"])
def test_any_batching_gives_the_report_to_the_last_bit(ties, ids):
    y_true, y_score, qid, rng = log(1, ids=ids)
    expected = report(y_true, y_score, qid=qid, metrics=METRICS, ties=ties)
    table = report(y_true, y_score, qid=qid, metrics=METRICS, ties=ties, average=False)
    for n_batches in (1, 2, 7, 40):
        accumulator = RankingAccumulator(METRICS, ties=ties)
        for start, stop in cuts(rng, qid.size, n_batches):
            accumulator.update(y_true[start:stop], y_score[start:stop], qid[start:stop], open_queries="last")
        assert_same(computed(accumulator), expected)
        found = computed(accumulator, average=False)
        assert found["qid"].tolist() == table["qid"].tolist()
        assert_same({k: v for k, v in found.items() if k != "qid"}, {k: v for k, v in table.items() if k != "qid"})


def test_intervals_weights_and_nan_zero_division_as_the_report():
    y_true, y_score, qid, rng = log(2)
    weight = (qid % 4 + 1).astype(float)
    options = {"metrics": METRICS, "sample_weight": weight, "zero_division": np.nan}
    expected = report(y_true, y_score, qid=qid, confidence_level=0.9, n_resamples=500, random_state=3, **options)
    accumulator = RankingAccumulator(METRICS, zero_division=np.nan)
    for start, stop in cuts(rng, qid.size, 9):
        part = slice(start, stop)
        accumulator.update(y_true[part], y_score[part], qid[part], sample_weight=weight[part], open_queries="last")
    assert_same(computed(accumulator, confidence_level=0.9, n_resamples=500, random_state=3), expected)


def partitions(seed, n_parts):
    """Whole queries dealt at random to ``n_parts`` accumulators, each fed in several batches."""
    y_true, y_score, qid, rng = log(seed)
    owner = rng.integers(0, n_parts, qid.max() + 1)[qid]
    parts = []
    for part in range(n_parts):
        rows = np.flatnonzero(owner == part)
        accumulator = RankingAccumulator(METRICS)
        for chunk in np.array_split(rows, 3):
            accumulator.update(y_true[chunk], y_score[chunk], qid[chunk], open_queries="last")
        parts.append(accumulator)
    return parts, report(y_true, y_score, qid=qid, metrics=METRICS)


def test_merges_in_any_order_and_grouping_are_exact():
    parts, expected = partitions(3, 5)
    rng = np.random.default_rng(0)
    for _ in range(5):
        shuffled = [pickle.loads(pickle.dumps(parts[i])) for i in rng.permutation(len(parts))]
        assert_same(computed(functools.reduce(lambda a, b: a.merge(b), shuffled)), expected)
    copies = [pickle.loads(pickle.dumps(part)) for part in parts]
    tree = copies[0].merge(copies[1]).merge(copies[2].merge(copies[3].merge(copies[4])))
    assert_same(computed(tree), expected)


def test_a_query_split_between_workers_joins_when_held_open():
    y_true, y_score, qid, _ = log(4, n_queries=20)
    rows = np.flatnonzero(qid == qid[0])
    half = rows[: len(rows) // 2 + 1]
    first, second = RankingAccumulator(METRICS), RankingAccumulator(METRICS)
    mine = qid % 2 == 0
    mine[rows] = False
    mine[half] = True
    first.update(y_true[mine], y_score[mine], qid[mine], open_queries=[qid[0]])
    second.update(y_true[~mine], y_score[~mine], qid[~mine], open_queries=[qid[0]])
    expected = report(np.r_[y_true[mine], y_true[~mine]], np.r_[y_score[mine], y_score[~mine]],
                      qid=np.r_[qid[mine], qid[~mine]], metrics=METRICS)  # fmt: skip
    assert_same(computed(first.merge(second)), expected)


def test_a_query_in_two_batches_without_open_queries_is_refused_by_name():
    accumulator = RankingAccumulator(["ndcg"]).update([1, 0], [0.2, 0.1], ["a", "b"])
    accumulator.update([1], [0.5], ["b"])
    with pytest.raises(ValueError, match=r"Query 'b' was measured twice \(in updates 1 and 2.*open_queries"):
        accumulator.compute()
    with pytest.raises(ValueError, match="measured twice"):
        RankingAccumulator(["ndcg"]).update([1], [1.0], [7]).merge(
            RankingAccumulator(["ndcg"]).update([1], [1], [7])
        ).compute()


def test_open_queries_all_then_closed_and_held_queries_counted_provisionally():
    y_true, y_score, qid, rng = log(5, n_queries=30)
    shuffled = rng.permutation(qid.size)  # rows in any order: every query open until the end
    accumulator = RankingAccumulator(METRICS, ties="stable")
    for chunk in np.array_split(shuffled, 4):
        accumulator.update(y_true[chunk], y_score[chunk], qid[chunk], open_queries="all")
    assert accumulator.n_queries == 0 and len(accumulator.open_queries) == 30
    expected = report(y_true[shuffled], y_score[shuffled], qid=qid[shuffled], metrics=METRICS, ties="stable")
    assert_same(computed(accumulator), expected)  # held queries count with the rows so far
    accumulator.update([], [], np.array([], dtype=qid.dtype))  # an update without open queries closes them
    assert accumulator.n_queries == 30 and len(accumulator.open_queries) == 0
    assert_same(computed(accumulator), expected)


def test_pickling_mid_stream_keeps_held_rows():
    y_true, y_score, qid, rng = log(6)
    expected = report(y_true, y_score, qid=qid, metrics=METRICS)
    accumulator = RankingAccumulator(METRICS)
    for start, stop in cuts(rng, qid.size, 12):
        accumulator.update(y_true[start:stop], y_score[start:stop], qid[start:stop], open_queries="last")
        accumulator = pickle.loads(pickle.dumps(accumulator))
    assert_same(computed(accumulator), expected)


def test_two_dimensional_batches_one_id_per_query():
    rng = np.random.default_rng(7)
    y_true, y_score = rng.integers(0, 3, (12, 6)), rng.normal(size=(12, 6))
    accumulator = RankingAccumulator(["ndcg@3", "map"])
    accumulator.update(y_true[:5], y_score[:5], qid=np.arange(5))
    accumulator.update(y_true[5:], y_score[5:], qid=np.arange(5, 12), sample_weight=np.ones(7))
    assert_same(computed(accumulator), report(y_true, y_score, metrics=["ndcg@3", "map"], sample_weight=np.ones(12)))


def test_window_of_last_queries_and_of_last_batches():
    y_true, y_score, qid, _ = log(8, n_queries=40)
    starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
    batches = np.split(np.arange(qid.size), starts[::5][1:])  # 8 batches of 5 whole queries
    by_queries, by_batches = (
        RankingAccumulator(METRICS, window=7),
        RankingAccumulator(METRICS, window=2, window_by="batches"),
    )
    for rows in batches:
        by_queries.update(y_true[rows], y_score[rows], qid[rows])
        by_batches.update(y_true[rows], y_score[rows], qid[rows])
    last_two = np.concatenate(batches[-2:])
    assert_same(computed(by_batches), report(y_true[last_two], y_score[last_two], qid=qid[last_two], metrics=METRICS))
    last = np.concatenate(batches[-2:])
    kept = np.isin(qid[last], np.r_[np.unique(qid[batches[-2]])[-2:], np.unique(qid[batches[-1]])])
    rows = last[kept]
    assert by_queries.n_queries == 7
    assert_same(computed(by_queries), report(y_true[rows], y_score[rows], qid=qid[rows], metrics=METRICS))
    other = RankingAccumulator(METRICS, window=2, window_by="batches").update(y_true[:3], y_score[:3], qid[:3] + 10**6)
    assert by_batches.merge(other).n_batches == 8  # batch 1 of the other worker is out of the window
    with pytest.raises(ValueError, match="window of the last queries do not merge"):
        by_queries.merge(RankingAccumulator(METRICS, window=7))


def test_empty_accumulator_reports_nan_with_a_warning_and_reset_empties():
    accumulator = RankingAccumulator(["ndcg"])
    with pytest.warns(UndefinedMetricWarning, match="holds no query"):
        assert np.isnan(accumulator.compute()["ndcg"])
    assert accumulator.compute(average=False)["ndcg"].shape == (0,)
    accumulator.update([1, 0], [0.3, 0.1], [1, 1]).reset()
    assert accumulator.n_queries == 0 and accumulator.n_batches == 0


def test_a_refused_batch_leaves_the_state_unchanged():
    accumulator = RankingAccumulator(["ndcg"]).update([1, 0], [0.3, 0.1], [1, 1], open_queries="last")
    with pytest.raises(ValueError, match="NaN"):
        accumulator.update([1, 0], [np.nan, 0.1], [2, 2])
    assert accumulator.n_batches == 1 and accumulator.open_queries.tolist() == [1]


def test_held_rows_are_checked_by_the_update_that_brings_them():
    accumulator = RankingAccumulator(["ndcg"])
    with pytest.raises(ValueError, match="y_true"):
        accumulator.update([np.nan, 1], [0.3, 0.1], [1, 1], open_queries="all")
    with pytest.raises(ValueError, match="qid"):
        accumulator.update([0, 1], [0.3, 0.1], [None, 1], open_queries="all")
    assert accumulator.n_batches == 0 and not len(accumulator.open_queries)


def test_bytes_and_str_ids_across_batches_are_refused_as_the_report_refuses_them():
    with pytest.raises(TypeError, match="qid mixes values that cannot be compared"):
        ranking_report([1, 0], [0.3, 0.1], qid=np.array([b"a", "a"], dtype=object), metrics=["mrr"])
    held = RankingAccumulator(["mrr"]).update([1, 0], [0.3, 0.1], np.array([b"a", b"a"]), open_queries="all")
    with pytest.raises(TypeError, match="qid mixes values that cannot be compared"):
        held.update([0, 1], [0.3, 0.1], np.array(["a", "a"]))  # b"a" and "a" are two ids, never one query
    assert held.open_queries.tolist() == [b"a"]
    closed = RankingAccumulator(["mrr"]).update([1, 0], [0.3, 0.1], np.array([b"a", b"a"]))
    with pytest.raises(TypeError, match="qid mixes values that cannot be compared"):
        closed.update([0, 1], [0.3, 0.1], np.array(["a", "a"])).compute()


def test_int64_and_uint64_ids_across_batches_stay_exact():
    big = 2**53  # as floats, 2**53 and 2**53 + 1 are one number
    accumulator = RankingAccumulator(["mrr"]).update([1, 0], [0.3, 0.1], np.array([big + 1] * 2, dtype=np.uint64))
    accumulator.update([0, 1], [0.3, 0.1], np.array([big, big], dtype=np.int64))
    table = computed(accumulator, average=False)
    assert table["qid"].tolist() == [big, big + 1] and table["mrr"].tolist() == [0.5, 1.0]


def test_mixed_id_types_across_batches_stay_apart_from_text():
    accumulator = RankingAccumulator(["mrr"]).update([1, 0], [0.3, 0.1], [1, 1]).update([0, 1], [0.3, 0.1], ["1", "1"])
    with pytest.raises((TypeError, ValueError)):
        accumulator.compute()  # 1 and "1": ids of two types, refused as the report refuses them


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda a: a.update([1], [1.0], None), TypeError, "qid is required"),
        (lambda a: a.update([1, 0], [1.0], [1, 1]), ValueError, "same shape"),
        (lambda a: a.update([1, 0], [1.0, 0.0], [1]), ValueError, "qid has 1 values but y_true has 2 rows"),
        (lambda a: a.update([1], [1.0], [1], open_queries="first"), ValueError, "open_queries must be 'last', 'all'"),
        (lambda a: a.update([1], [1.0], [1], open_queries=[2]), ValueError, "open_queries names 2, which has no row"),
        (lambda a: a.merge({}), TypeError, "merge takes a RankingAccumulator"),
        (lambda a: a.merge(a), ValueError, "cannot merge itself"),
        (lambda a: a.merge(RankingAccumulator(["map"])), ValueError, r"differ in metrics=\('ndcg',\) and \('map',\)"),
        (lambda a: a.compute(average=False, confidence_level=0.9), ValueError, "confidence_level needs average=True"),
    ],
)
def test_bad_input_is_refused_clearly(call, error, match):
    with pytest.raises(error, match=match):
        call(RankingAccumulator(["ndcg"]))


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"metrics": "ndcg"}, "sequence of metric names"),
        ({"metrics": ["nope"]}, "not a ranking metric name"),
        ({"ties": "random"}, "ties"),
        ({"window": 0}, "window"),
        ({"window_by": "seconds"}, "window_by"),
        ({"zero_division": 0.5}, "zero_division"),
        ({"metrics": ["err"], "max_grade": "4"}, "max_grade must be a real number"),
        ({"metrics": ["err"], "max_grade": np.nan}, r"max_grade must be in \[0, inf\)"),
    ],
)
def test_bad_options_are_refused(options, match):
    with pytest.raises((TypeError, ValueError), match=match):
        RankingAccumulator(**options)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 30), st.integers(1, 4))
def test_property_batchings_and_merges_equal_the_report(seed, n_batches, n_workers):
    y_true, y_score, qid, rng = log(seed, n_queries=25)
    expected = report(y_true, y_score, qid=qid, metrics=METRICS[:4], ties="stable")
    bounds = cuts(rng, qid.size, min(n_batches, qid.size)) if n_batches > 1 else [(0, qid.size)]
    sequential = RankingAccumulator(METRICS[:4], ties="stable")
    for start, stop in bounds:
        sequential.update(y_true[start:stop], y_score[start:stop], qid[start:stop], open_queries="last")
    assert_same(computed(sequential), expected)
    # Workers taking consecutive batches hold every query open; merged left to right, rows join in log order.
    workers = [RankingAccumulator(METRICS[:4], ties="stable") for _ in range(n_workers)]
    for index, (start, stop) in enumerate(bounds):
        workers[index * n_workers // len(bounds)].update(
            y_true[start:stop], y_score[start:stop], qid[start:stop], open_queries="all"
        )
    assert_same(computed(functools.reduce(lambda a, b: a.merge(b), workers)), expected)


def test_metrics_that_divide_by_the_top_grade_need_it():
    with pytest.raises(ValueError, match=r"'err@5' divides by the top grade.*max_grade="):
        RankingAccumulator(["err@5"])
    y_true, y_score, qid, _ = log(9)
    accumulator = RankingAccumulator(["err@5", "nerr", "insq"], max_grade=3).update(y_true, y_score, qid)
    assert_same(computed(accumulator), report(y_true, y_score, qid=qid, metrics=["err@5", "nerr", "insq"]))
    restored = pickle.loads(pickle.dumps(accumulator))
    assert_same(computed(restored), computed(accumulator))


def test_fractional_labels_elsewhere_leave_ndcg_equal_to_rounding():
    """Documented: a batch of small whole grades sums its ideal DCG by grade, the whole data by rank."""
    y_true, y_score, qid, rng = log(10)
    y_true[qid > qid.max() // 2] += 0.5
    expected = report(y_true, y_score, qid=qid, metrics=["ndcg@10"], average=False)["ndcg@10"]
    accumulator = RankingAccumulator(["ndcg@10"])
    for start, stop in cuts(rng, qid.size, 6):
        accumulator.update(y_true[start:stop], y_score[start:stop], qid[start:stop], open_queries="last")
    np.testing.assert_allclose(computed(accumulator, average=False)["ndcg@10"], expected, rtol=1e-14, atol=0)


def test_nan_zero_division_accumulators_merge():
    first = RankingAccumulator(["map"], zero_division=np.nan).update([1, 0], [0.3, 0.1], [1, 1])
    second = RankingAccumulator(["map"], zero_division=np.nan).update([0, 0], [0.3, 0.1], [2, 2])
    assert computed(first.merge(second)) == {"map": 1.0}
