"""The thread pool: no nested waits, errors reach the caller, fresh pools after fork, one size setting.

Anything that could hang runs in a subprocess with a timeout, so a regression
fails the test instead of hanging the suite.
"""

import os
import re
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

from sklearn_rankmetrics import ndcg_score, ranking_report
from sklearn_rankmetrics._core import _parallel
from sklearn_rankmetrics._core._parallel import map_in_threads, sum_in_threads, thread_count


def run_python(code, *, threads, timeout=240):
    """Run ``code`` in a fresh interpreter with the pool forced to ``threads`` threads."""
    env = {**os.environ, "RANKMETRICS_NUM_THREADS": str(threads)}
    try:
        result = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"The code did not return within {timeout} s with {threads} threads: a hang.")
    assert result.returncode == 0, result.stderr
    return result.stdout


REPORT_CHECK = """
    import numpy as np
    import sklearn_rankmetrics as rm
    from sklearn_rankmetrics._core import _numpy_ops
    from sklearn_rankmetrics.registry._names import parse_metric_name

    n = 300_000
    assert n > 2 * _numpy_ops.CHUNK_ROWS
    rng = np.random.default_rng(0)
    qid = np.arange(n) // 100
    y_score = np.round(rng.random(n), 3)  # small tie blocks
    kinds = ["ndcg@10", "map", "mrr@10", "err@20", "precision@5", "recall@10", "r_precision", "ndcg_exp@5",
             "dcg", "cg@3", "map@10(denominator='capped')", "ndcg"]
    labels = {
        "integer": rng.integers(0, 5, n).astype(float),
        "large integer": np.where(rng.random(n) < 0.2, 100.0, 0.0),
        "real": np.where(rng.random(n) < 0.15, 1.5, 0.5),
    }
    for label_kind, y_true in labels.items():
        for n_metrics in range(1, 7):
            start = 2 * n_metrics % len(kinds)
            metrics = (kinds[start:] + kinds[:start])[:n_metrics]
            report = rm.ranking_report(y_true, y_score, qid=qid, metrics=metrics)
            for name in metrics:
                metric, options = parse_metric_name(name)
                expected = metric(y_true, y_score, qid=qid, **options)
                assert abs(report[name] - expected) <= 1e-12 * abs(expected), (label_kind, name)
    print("ok")
"""


@pytest.mark.parametrize("threads", [1, 2])
def test_report_of_many_metrics_never_waits_on_its_own_pool(threads):
    assert run_python(REPORT_CHECK, threads=threads).strip() == "ok"


ISSUE_REPRODUCER = """
    import numpy as np, sklearn_rankmetrics as rm
    n = 300_000
    y = np.full(n, 0.5); y[::7] = 1.5
    s = np.arange(n, dtype=float); qid = np.arange(n) // 100
    report = rm.ranking_report(y, s, qid=qid, metrics=["ndcg@10", "ndcg@5"])
    assert report["ndcg@10"] == rm.ndcg_score(y, s, qid=qid, k=10)
    assert report["ndcg@5"] == rm.ndcg_score(y, s, qid=qid, k=5)
    print("ok")
"""


@pytest.mark.parametrize("threads", [1, 2, 16])
def test_issue_reproducer_returns(threads):
    assert run_python(ISSUE_REPRODUCER, threads=threads, timeout=120).strip() == "ok"


FORKED_CHILD = """
    import multiprocessing as mp
    import numpy as np
    import sklearn_rankmetrics as rm

    n = 300_000
    rng = np.random.default_rng(0)
    y, s, qid = rng.integers(0, 3, n), rng.random(n), rng.integers(0, 3000, n)

    def child(_):
        return rm.ndcg_score(y, s, qid=qid, k=10), rm.ranking_report(y, s, qid=qid, metrics=["map", "mrr"])["map"]

    parent = child(None)  # the parent's pool now has threads, which a forked child does not inherit
    with mp.get_context("fork").Pool(2) as pool:
        results = pool.map(child, range(2))
    assert all(result == parent for result in results)
    from joblib import Parallel, delayed
    results = Parallel(n_jobs=2, backend="multiprocessing")(delayed(child)(i) for i in range(2))
    assert all(result == parent for result in results)
    print("ok")
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_forked_children_get_a_fresh_pool():
    assert run_python(FORKED_CHILD, threads=2, timeout=120).strip() == "ok"


def test_map_in_threads_keeps_order_and_nests_inline(monkeypatch):
    monkeypatch.setenv("RANKMETRICS_NUM_THREADS", "2")
    outer_threads = []

    def outer(i):
        outer_threads.append(threading.current_thread().name)
        # Nested work runs inline in the pool thread that asked for it.
        inner = map_in_threads(lambda j: (j, threading.current_thread().name), range(3))
        assert {name for _, name in inner} == {threading.current_thread().name}
        return i * 10 + sum(j for j, _ in inner)

    assert map_in_threads(outer, range(6)) == [3, 13, 23, 33, 43, 53]
    assert all(name.startswith("rankmetrics") for name in outer_threads)


@pytest.mark.parametrize("run", [map_in_threads, sum_in_threads])
def test_an_error_in_a_task_reaches_the_caller_with_its_traceback(monkeypatch, run):
    monkeypatch.setenv("RANKMETRICS_NUM_THREADS", "2")

    def task(i):
        if i == 30:
            raise ZeroDivisionError(f"task {i} failed")
        return i

    with pytest.raises(ZeroDivisionError, match="task 30 failed") as info:
        run(task, range(100))
    assert any(entry.name == "task" for entry in info.traceback)


def test_an_error_inside_a_report_metric_reaches_the_caller(monkeypatch):
    monkeypatch.setenv("RANKMETRICS_NUM_THREADS", "2")
    with pytest.raises(ValueError, match="denominator must be one of"):
        ranking_report([1, 0, 1], [0.3, 0.2, 0.1], metrics=["ndcg", "map(denominator='cap')"])


@pytest.mark.parametrize(
    ("environment", "expected"),
    [
        ({"RANKMETRICS_NUM_THREADS": "3", "OMP_NUM_THREADS": "1"}, 3),
        ({"OMP_NUM_THREADS": "5"}, 5),
        ({}, None),
    ],
)
def test_thread_count_has_one_source(monkeypatch, environment, expected):
    monkeypatch.delenv("RANKMETRICS_NUM_THREADS", raising=False)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    for variable, value in environment.items():
        monkeypatch.setenv(variable, value)
    if "RANKMETRICS_NUM_THREADS" not in environment:
        # Otherwise the lowest of the cores, OMP_NUM_THREADS and the loaded OpenMP runtimes' thread count
        # (which this test process set from OMP_NUM_THREADS when the runtime loaded).
        limits = [_parallel.available_cores(), expected, _parallel._openmp_threads()]
        expected = min(limit for limit in limits if limit)
    assert thread_count() == expected


@pytest.mark.parametrize(
    ("value", "limit"),
    [("4,2", 4), (" 3 , 1", 3), ("1,4", 1), ("abc", None), ("0", None), ("-2", None), ("2.5", None), ("", None)],
)
def test_metrics_run_with_any_omp_num_threads_that_openmp_runs_with(monkeypatch, value, limit):
    # OpenMP reads the first element of a list ("4,2": 4 threads, then 2 in nested regions) and ignores,
    # with a warning, a value that is not a positive integer; scikit-learn then runs normally, and so do we.
    monkeypatch.delenv("RANKMETRICS_NUM_THREADS", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", value)
    assert ndcg_score([1, 0, 2, 0], [0.1, 0.4, 0.3, 0.2], qid=[1, 1, 2, 2]) == pytest.approx((1 / np.log2(3) + 1) / 2)
    limits = [_parallel.available_cores(), limit, _parallel._openmp_threads()]
    assert thread_count() == min(limit for limit in limits if limit)


# int() accepted a sign, digit separators and other scripts' digits ("1_000", Arabic-Indic "١٢"); OpenMP reads
# OMP_NUM_THREADS as ASCII digits alone, and so is this variable read, but refused when invalid (it is ours).
@pytest.mark.parametrize("value", ["0", "two", "-1", "+2", "1_000", "\u0661\u0662", "2.5", "0x10", "4,2", "00"])
def test_thread_count_rejects_bad_settings(monkeypatch, value):
    monkeypatch.setenv("RANKMETRICS_NUM_THREADS", value)
    with pytest.raises(ValueError, match=re.escape(f"RANKMETRICS_NUM_THREADS must be an integer >= 1; got {value!r}")):
        thread_count()


@pytest.mark.parametrize("value", ["100000", "99999999999999999999"])
def test_thread_count_caps_the_threads_variable_at_four_threads_per_core(monkeypatch, value):
    # thread_count returned 1e20, and 100000 started 186 threads before the machine ran out.
    monkeypatch.setenv("RANKMETRICS_NUM_THREADS", value)
    cap = _parallel.MAX_THREADS_PER_CORE * _parallel.available_cores()
    assert thread_count() == cap
    monkeypatch.setenv("RANKMETRICS_NUM_THREADS", f" {cap - 1} ")
    assert thread_count() == cap - 1


def test_sum_in_threads_adds_every_task_with_a_few_in_flight(monkeypatch):
    # The exact randomization submitted all 2**n / 256 blocks at once and kept every future: O(2**n) memory.
    monkeypatch.setenv("RANKMETRICS_NUM_THREADS", "3")
    pulled, ahead = [0], []

    def tasks():
        for i in range(5000):
            pulled[0] += 1
            yield i

    def task(i):
        ahead.append(pulled[0] - i)  # tasks taken from the iterator beyond this one, while it runs
        return np.array([i, 1])

    assert sum_in_threads(task, tasks()).tolist() == [sum(range(5000)), 5000]
    assert max(ahead) <= 2 * 3 + 1
    assert sum_in_threads(task, range(0)) == 0
    monkeypatch.setenv("RANKMETRICS_NUM_THREADS", "1")
    assert sum_in_threads(task, range(10)).tolist() == [45, 10]


def test_one_thread_runs_everything_inline(monkeypatch):
    monkeypatch.setenv("RANKMETRICS_NUM_THREADS", "1")
    names = map_in_threads(lambda _: threading.current_thread().name, range(4))
    assert names == [threading.current_thread().name] * 4
    assert np.isfinite(ranking_report([1, 0, 1], [0.3, 0.2, 0.1], metrics=["ndcg", "map"])["map"])


def test_threads_obey_threadpoolctl_limits_and_omp_num_threads(monkeypatch):
    from threadpoolctl import threadpool_limits

    from sklearn_rankmetrics._core._parallel import available_cores, map_in_threads, thread_count

    monkeypatch.delenv("RANKMETRICS_NUM_THREADS", raising=False)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert thread_count() <= available_cores()
    with threadpool_limits(limits=1, user_api="openmp"):
        assert thread_count() == 1
        caller = threading.get_ident()
        assert map_in_threads(lambda _: threading.get_ident(), range(4)) == [caller] * 4  # inline, no pool
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert thread_count() == 1
    monkeypatch.setenv("RANKMETRICS_NUM_THREADS", "3")  # the library's own setting wins
    with threadpool_limits(limits=1):
        assert thread_count() == 3
