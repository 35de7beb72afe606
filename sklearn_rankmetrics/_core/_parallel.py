"""Where work runs: the library's one pool of threads, and how many threads it has.

numpy releases the GIL in its sorts and loops, so independent pieces of work
(chunks of queries to sort, the metrics of a report) run side by side on the
cores. Three rules keep that safe:

- Work submitted from inside a pool thread runs inline in that thread. A pool
  task never waits on the same pool, so nested parallel calls (a report's
  metric that sorts) cannot deadlock, whatever the pool's size.
- A child process made by ``fork`` gets a fresh pool: the parent's threads do
  not exist there.
- The number of threads is decided by :func:`thread_count` alone.
"""

import collections
import os
import threading
from concurrent.futures import ThreadPoolExecutor

THREADS_VARIABLE = "RANKMETRICS_NUM_THREADS"
# The most threads RANKMETRICS_NUM_THREADS may start per core: the pool never grows without bound.
MAX_THREADS_PER_CORE = 4

_pools = {}  # one per size asked for: a pool in use is never shut down under its callers
_pools_lock = threading.Lock()
_in_pool = threading.local()


def available_cores():
    """The number of cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _explicit_thread_count():
    """The thread count ``RANKMETRICS_NUM_THREADS`` asks for, or None where it is not set.

    The value must be ASCII digits making an integer >= 1, as OpenMP reads
    ``OMP_NUM_THREADS`` (no sign, separator or other script's digits); the
    variable is the library's own, so anything else is refused.
    """
    text = os.environ.get(THREADS_VARIABLE, "").strip()
    if not text:
        return None
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise ValueError(
            f"The environment variable {THREADS_VARIABLE} must be an integer >= 1; got {text!r}. "
            "Write the number of threads in the digits 0-9 alone, such as 4."
        )
    return int(text)


def _omp_num_threads():
    """The thread count ``OMP_NUM_THREADS`` sets, read as the OpenMP runtimes read it, or None.

    A list such as ``"4,2"`` sets each nesting level: the first element is
    the count of the outer level, the one that matters here. A value that is
    not a positive integer (``"abc"``, ``"0"``) is ignored, as the runtimes
    ignore it (with a warning of their own), and scikit-learn runs normally.
    """
    first = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    if first.isascii() and first.isdecimal() and int(first) > 0:
        return int(first)
    return None


def thread_count():
    """How many threads the library's work may use: the one place that decides it.

    ``RANKMETRICS_NUM_THREADS`` if set, at most ``MAX_THREADS_PER_CORE`` (4)
    threads per available core: more only adds threads that wait. Otherwise
    the limits scikit-learn's own parallel code obeys: the OpenMP thread
    count, as ``threadpoolctl``'s ``threadpool_limits`` sets it, and
    ``OMP_NUM_THREADS`` (joblib's workers set it to their share of the
    cores; its first element, as OpenMP reads it), whichever is lower, at
    most the cores.
    """
    explicit = _explicit_thread_count()
    if explicit:
        return min(explicit, MAX_THREADS_PER_CORE * available_cores())
    limits = [available_cores(), _omp_num_threads(), _openmp_threads()]
    return min(limit for limit in limits if limit)


_openmp = []  # threadpoolctl's controllers of the OpenMP runtimes loaded, found once


def _openmp_threads():
    """The lowest thread count of the loaded OpenMP runtimes (what threadpool_limits changes), or None."""
    if not _openmp:
        from threadpoolctl import ThreadpoolController

        _openmp.append([lib for lib in ThreadpoolController().lib_controllers if lib.user_api == "openmp"])
    counts = [lib.num_threads for lib in _openmp[0]]
    return min(counts) if counts else None


def _mark_in_pool():
    _in_pool.active = True


def _get_pool(size):
    with _pools_lock:
        if size not in _pools:
            _pools[size] = ThreadPoolExecutor(size, thread_name_prefix="rankmetrics", initializer=_mark_in_pool)
        return _pools[size]


def map_in_threads(function, *arguments):
    """``list(map(function, *arguments))``, run on the pool when that can help.

    Inline for a single task, a single thread, or a call from inside a pool
    thread. An exception raised by a task reaches the caller, with the task's
    traceback, once every task has finished or been cancelled.
    """
    size = thread_count()
    if size < 2 or len(arguments[0]) < 2 or getattr(_in_pool, "active", False):
        return list(map(function, *arguments))
    futures = [_get_pool(size).submit(function, *task) for task in zip(*arguments, strict=True)]
    try:
        return [future.result() for future in futures]
    finally:
        settle(futures)


def sum_in_threads(function, tasks):
    """``sum(map(function, tasks))``, run on the pool a few tasks at a time, for any number of tasks.

    ``tasks`` may be a lazy iterable (a ``range`` of millions). At most two
    tasks per thread are in flight, and each result is added as it comes (in
    task order), so memory holds a few results whatever the number of tasks.
    Inline where :func:`map_in_threads` runs inline. An exception raised by a
    task reaches the caller once the tasks in flight have finished or been
    cancelled.
    """
    size = thread_count()
    total = 0
    if size < 2 or getattr(_in_pool, "active", False):
        for task in tasks:
            total = total + function(task)
        return total
    pool, in_flight = _get_pool(size), collections.deque()
    try:
        for task in tasks:
            if len(in_flight) == 2 * size:
                total = total + in_flight.popleft().result()
            in_flight.append(pool.submit(function, task))
        while in_flight:
            total = total + in_flight.popleft().result()
        return total
    finally:
        settle(in_flight)


def settle(futures):
    """After a failure (a no-op otherwise): cancel the tasks not started, and wait for those running."""
    for future in futures:
        future.cancel()
    for future in futures:
        if not future.cancelled():
            future.exception()


def _forget_pools_in_child():
    global _pools_lock
    _pools.clear()
    _pools_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pools_in_child)
