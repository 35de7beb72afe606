"""Reading TREC run files: speed on an ordinary run, memory with one very long document id.

    python benchmarks/bench_trec_io.py [--repeats 7]

Writes, once, to a temporary folder: a run of 1,400 queries x 1,000 documents
(about 50 MB, MS MARCO-like ids and scores) and a run of 560 queries x 1,000
documents (about 20 MB) where one document id is 20,000 bytes long. Each file
is then read in a fresh process, by the reader ``evaluate_run`` uses (ids as
bytes) and by :func:`read_run` (ids as str): the median wall time of a few
reads, the peak of memory allocated during one read (tracemalloc, which
numpy's arrays report to) and the peak resident set of the process.

Targets (issue #24): memory of the order of the file whatever the id lengths
(fixed-width ids as wide as the longest took 2.8 GB for a 1 MB run with a
20,000-byte id), and the ordinary run read no slower than before.
"""

import argparse
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np


def write_run(path, n_queries, depth, long_id=0, seed=0):
    """A deterministic run file (written once); with ``long_id``, one document id of that many bytes."""
    if path.exists():
        return path
    rng = np.random.default_rng(seed)
    query_ids = np.sort(rng.choice(1_100_000, n_queries, replace=False))
    with open(path, "w") as run:
        for index, query in enumerate(query_ids):
            documents = rng.choice(8_841_823, depth, replace=False).astype(str).astype(object)
            if long_id and index == n_queries // 2:
                documents[depth // 2] = "D" * long_id
            scores = np.round(np.sort(rng.normal(20, 3, depth))[::-1], 3)
            run.write(
                "".join(
                    f"{query} Q0 {doc} {rank} {score} bench\n"
                    for rank, (doc, score) in enumerate(zip(documents, scores, strict=True), start=1)
                )
            )
    return path


MEASURE = """
import resource, statistics, time, tracemalloc
from sklearn_rankmetrics.trec import _io
reader = getattr(_io, {reader!r})
times = []
for _ in range({repeats}):
    start = time.perf_counter()
    reader({path!r})
    times.append(time.perf_counter() - start)
tracemalloc.start()
run = reader({path!r})
peak = tracemalloc.get_traced_memory()[1]
resident = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(statistics.median(times), peak, resident, run.doc_id.dtype)
"""


def measure(reader, path, repeats):
    code = textwrap.dedent(MEASURE.format(reader=reader, path=str(path), repeats=repeats))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    median, peak, resident, dtype = result.stdout.split()
    return float(median), int(peak), int(resident), dtype


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    options = parser.parse_args()
    folder = Path(tempfile.gettempdir()) / "rankmetrics-bench-trec-io"
    folder.mkdir(exist_ok=True)
    runs = {
        "ordinary": write_run(folder / "run-1400x1000.txt", 1400, 1000),
        "one 20,000-byte id": write_run(folder / "run-560x1000-long.txt", 560, 1000, long_id=20_000),
    }
    for label, path in runs.items():
        size = path.stat().st_size
        print(f"{label} run: {size / 1e6:.1f} MB")
        for reader in ("read_run_bytes", "read_run"):
            median, peak, resident, dtype = measure(reader, path, options.repeats)
            print(
                f"  {reader:>15}: {median * 1000:6.0f} ms (median of {options.repeats}); peak allocated "
                f"{peak / 1e6:6.1f} MB ({peak / size:.1f}x the file), peak resident {resident / 2**20:5.0f} MiB; "
                f"doc_id {dtype}"
            )


if __name__ == "__main__":
    main()
