"""The timing the benchmark scripts share: the best of a few calls, in wall-clock and CPU seconds."""

import time


def best_of(repeats, function):
    """The smallest wall-clock and CPU times of ``repeats`` calls of ``function`` (CPU summed over threads), and the
    last call's result."""
    walls, cpus = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = function()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - start_cpu)
    return min(walls), min(cpus), result
