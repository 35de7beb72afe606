"""DistributedRankingAccumulator: two gloo processes on the CPU give the report of all their queries."""

import os
import socket
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
distributed = pytest.importorskip("torch.distributed")
if not distributed.is_available() or not distributed.is_gloo_available():
    pytest.skip("torch.distributed with gloo is not available", allow_module_level=True)

from sklearn_rankmetrics import ranking_report  # noqa: E402
from sklearn_rankmetrics.streaming import DistributedRankingAccumulator  # noqa: E402

METRICS = ["ndcg@10", "map", "mrr"]


def log():
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(60), rng.integers(1, 15, 60))
    return rng.integers(0, 4, qid.size).astype(float), rng.normal(size=qid.size).round(1), qid


def worker(rank, world_size, port, queue):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    distributed.init_process_group("gloo", rank=rank, world_size=world_size)
    try:
        y_true, y_score, qid = log()
        # Each rank gets every other query, and both get query 0's rows, half each: held open and joined.
        mine = (qid % world_size == rank) & (qid != 0)
        zero = np.flatnonzero(qid == 0)
        mine[zero[rank::world_size]] = True
        accumulator = DistributedRankingAccumulator(METRICS)
        rows = np.flatnonzero(mine)
        starts = np.flatnonzero(np.r_[True, np.diff(qid[rows]) != 0])
        for chunk in np.split(rows, starts[[5, 15]]):  # whole queries; query 0, split between ranks, held open
            accumulator.update(torch.from_numpy(y_true[chunk]), torch.from_numpy(y_score[chunk]),
                               torch.from_numpy(qid[chunk]), open_queries=[0])  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            queue.put((rank, accumulator.compute(), accumulator.local().n_queries))
    finally:
        distributed.destroy_process_group()


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_two_gloo_ranks_report_every_query_exactly():
    context = torch.multiprocessing.get_context("spawn")
    queue = context.SimpleQueue()
    torch.multiprocessing.spawn(worker, args=(2, free_port(), queue), nprocs=2, join=True)
    results = sorted(queue.get() for _ in range(2))
    y_true, y_score, qid = log()
    zero = np.flatnonzero(qid == 0)
    order = np.r_[zero[0::2], zero[1::2], np.flatnonzero(qid != 0)]  # query 0's rows: rank 0's, then rank 1's
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = ranking_report(y_true[order], y_score[order], qid=qid[order], metrics=METRICS)
    for _, report, _ in results:
        assert report == expected
    assert sum(n for _, _, n in results) == 59  # query 0 is held open on both ranks, joined by the merge


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
def test_without_a_process_group_the_local_report():
    y_true, y_score, qid = log()
    accumulator = DistributedRankingAccumulator(["ndcg@10"]).update(y_true, y_score, torch.from_numpy(qid))
    assert accumulator.compute() == ranking_report(y_true, y_score, qid=qid, metrics=["ndcg@10"])


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
def test_the_distributed_accumulator_takes_max_grade():
    y_true, y_score, qid = log()
    metrics = ["err@5", "nerr"]
    with pytest.raises(ValueError, match="divides by the top grade"):
        DistributedRankingAccumulator(metrics)
    accumulator = DistributedRankingAccumulator(metrics, max_grade=3).update(y_true, y_score, qid)
    expected = ranking_report(y_true, y_score, qid=qid, metrics=metrics)
    assert accumulator.compute() == expected and accumulator.local().max_grade == 3
