"""Grouped ranking metrics side by side with peers, on MSLR-like data.

    python benchmarks/bench_metrics.py             # 1k, 10k and 31.5k queries (several minutes)
    python benchmarks/bench_metrics.py --quick     # 1k and 10k queries
    python benchmarks/bench_metrics.py --device cuda  # from PyTorch tensors (and CuPy arrays) on a GPU

Every implementation goes from numpy arrays (labels, scores, query ids) to a
float: building a peer's own input format (dicts, DataFrames, a padded matrix,
a LightGBM Dataset, grouping shuffled rows for LightGBM) is part of its time.
The implementations run interleaved in one process, the median of --repeats
runs is reported, and every value is first checked against this library's on
tie-free scores so that the comparison is apples to apples. Peak memory is the
growth of the resident set while the implementation runs once, in a fresh
interpreter after a warm-up call on small data: what other implementations
left in the allocator does not count against it.
"""

import argparse
import ctypes
import gc
import multiprocessing
import os
import platform
import sys
import threading
import time
import warnings

if "--device" in sys.argv:  # scikit-learn's array_api_dispatch needs it before scipy is first imported
    os.environ.setdefault("SCIPY_ARRAY_API", "1")

import numpy as np

import sklearn_rankmetrics as rm
from sklearn_rankmetrics._core._device_graphs import SWITCH as GRAPHS_SWITCH

LIBC = ctypes.CDLL("libc.so.6")
LABEL_SHARES = np.array([0.515, 0.32, 0.13, 0.025, 0.01])
LAYOUTS = ("grouped", "shuffled", "ties")


def make_data(n_queries, layout, seed=0):
    """MSLR-WEB30K-like rows: mean 120 documents per query, a tail to ~1,250, labels 0-4."""
    rng = np.random.default_rng(seed)
    sizes = np.clip(np.round(rng.lognormal(np.log(95), 0.7, n_queries)), 1, 1250).astype(np.int64)
    qid = np.repeat(np.arange(n_queries, dtype=np.int64) * 7 + 1000, sizes)
    y = rng.choice(5, qid.size, p=LABEL_SHARES / LABEL_SHARES.sum()).astype(np.float64)
    score = 0.4 * y + rng.normal(size=qid.size)
    if layout == "shuffled":
        rows = rng.permutation(qid.size)
        qid, y, score = qid[rows], y[rows], score[rows]
    elif layout == "ties":
        score = np.round(score, 1)
    return y, score, qid


# --- peers -----------------------------------------------------------------------------------


def bare_sort(y, score, qid):
    """One stable argsort of a single float key (query rank, score): the floor of any exact method."""
    codes = qid - qid.min()
    return np.argsort(codes * 2.0 + (score.max() - score) / (score.max() - score.min()), kind="stable")


def lightgbm_metric(metric, k):
    import lightgbm

    params = {"objective": "lambdarank", "metric": metric, "verbose": -1, "num_threads": os.cpu_count()}
    quiet = {"verbose": -1}
    train = lightgbm.Dataset(np.zeros((2, 1)), np.array([0.0, 1.0]), group=[2], params=quiet)

    def run(y, score, qid):
        order = None if np.all(qid[1:] >= qid[:-1]) else np.argsort(qid, kind="stable")  # LightGBM needs groups
        if order is not None:
            y, score, qid = y[order], score[order], qid[order]
        sizes = np.diff(np.flatnonzero(np.r_[True, qid[1:] != qid[:-1], True]))
        valid = lightgbm.Dataset(np.zeros((len(y), 1)), y, group=sizes, init_score=score, reference=train, params=quiet)
        booster = lightgbm.Booster({**params, "eval_at": [k or int(sizes.max())]}, train)
        booster.add_valid(valid, "valid")
        return booster.eval_valid()[0].metric_value

    return run


def pytrec_metric(measure, key):
    import pytrec_eval

    def run(y, score, qid):
        qrels, runs = {}, {}
        for row, (label, value, q) in enumerate(zip(y.tolist(), score.tolist(), qid.tolist(), strict=True)):
            q = str(q)
            qrels.setdefault(q, {})[str(row)] = int(label)
            runs.setdefault(q, {})[str(row)] = value
        results = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(runs)
        return float(np.mean([values[key] for values in results.values()]))

    return run


def ranx_metric(metric):
    import pandas as pd
    from ranx import Qrels, Run, evaluate

    def run(y, score, qid):
        frame = pd.DataFrame(
            {
                "q_id": pd.Series(qid.astype(str), dtype=object),  # ranx wants object columns
                "doc_id": pd.Series(np.arange(len(y)).astype(str), dtype=object),
            }
        )
        relevant = frame[y > 0].assign(score=y[y > 0].astype(np.int64))
        qrels = Qrels.from_df(relevant, q_id_col="q_id", doc_id_col="doc_id", score_col="score")
        ranking = Run.from_df(frame.assign(score=score), q_id_col="q_id", doc_id_col="doc_id", score_col="score")
        value = evaluate(qrels, ranking, metric)
        # ranx only knows queries with a relevant document; the others score 0 here.
        return value * len(qrels.keys()) / len(np.unique(qid))

    return run


def sklearn_padded_ndcg(y, score, qid):
    """sklearn.metrics.ndcg_score on a padded (n_queries, max_docs) matrix, ties averaged."""
    from sklearn.metrics import ndcg_score

    order = np.argsort(qid, kind="stable")
    y, score, qid = y[order], score[order], qid[order]
    starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
    sizes = np.diff(np.r_[starts, len(qid)])
    position = np.arange(len(qid)) - np.repeat(starts, sizes)
    labels = np.zeros((len(starts), sizes.max()))
    scores = np.full_like(labels, score.min() - 1.0)  # padding ranks last with gain 0
    row = np.repeat(np.arange(len(starts)), sizes)
    labels[row, position], scores[row, position] = y, score
    return ndcg_score(labels, scores, k=10)


def pandas_ndcg(y, score, qid):
    """Sort and group with pandas: the usual hand-written version."""
    import pandas as pd

    frame = pd.DataFrame({"qid": qid, "y": y, "score": score})
    discount = 1.0 / np.log2(np.arange(2, 12))

    def top_dcg(by):
        ranked = frame.sort_values(["qid", by], ascending=[True, False])
        rank = ranked.groupby("qid").cumcount().to_numpy()
        top = rank < 10
        return pd.Series(ranked["y"].to_numpy()[top] * discount[rank[top]]).groupby(ranked["qid"].to_numpy()[top]).sum()

    dcg, ideal = top_dcg("score"), top_dcg("y")
    return float(np.mean(np.where(ideal > 0, dcg / ideal.where(ideal > 0, 1), 0.0)))


def peers(verbose=True):
    """Per metric: (name, function of (y, score, qid), our call with the peer's conventions)."""
    table = {
        "ndcg@10": [
            ("ours", lambda y, s, q: rm.ndcg_score(y, s, qid=q, k=10), None),
            ("sklearn padded 2-D", sklearn_padded_ndcg, {}),
            ("pandas sort+groupby", pandas_ndcg, {}),
        ],
        "map": [("ours", lambda y, s, q: rm.mean_average_precision_score(y, s, qid=q), None)],
        "mrr": [("ours", lambda y, s, q: rm.mean_reciprocal_rank_score(y, s, qid=q), None)],
        "err@20": [("ours", lambda y, s, q: rm.expected_reciprocal_rank_score(y, s, qid=q, k=20), None)],
        "precision@10": [("ours", lambda y, s, q: rm.precision_at_k_score(y, s, qid=q, k=10), None)],
        "recall@10": [("ours", lambda y, s, q: rm.recall_at_k_score(y, s, qid=q, k=10), None)],
    }
    optional = [
        ("ndcg@10", "lightgbm", lambda: lightgbm_metric("ndcg", 10), {"gain": "exponential", "zero_division": 1.0}),
        ("map", "lightgbm", lambda: lightgbm_metric("map", None), {"denominator": "capped", "zero_division": 1.0}),
        ("ndcg@10", "pytrec_eval", lambda: pytrec_metric("ndcg_cut.10", "ndcg_cut_10"), {}),
        ("map", "pytrec_eval", lambda: pytrec_metric("map", "map"), {}),
        ("mrr", "pytrec_eval", lambda: pytrec_metric("recip_rank", "recip_rank"), {}),
        ("precision@10", "pytrec_eval", lambda: pytrec_metric("P.10", "P_10"), {}),
        ("recall@10", "pytrec_eval", lambda: pytrec_metric("recall.10", "recall_10"), {}),
        ("ndcg@10", "ranx", lambda: ranx_metric("ndcg@10"), {}),
        ("map", "ranx", lambda: ranx_metric("map"), {}),
        ("mrr", "ranx", lambda: ranx_metric("mrr"), {}),
    ]
    for metric, name, build, conventions in optional:
        try:
            table[metric].append((name, build(), conventions))
        except ImportError:
            if verbose:
                print(f"({name} is not installed: left out)")
    for rows in table.values():
        rows.append(("bare numpy sort", bare_sort, None))
    return table


OUR_CALLS = {
    "ndcg@10": lambda y, s, q, **c: rm.ndcg_score(y, s, qid=q, k=10, **c),
    "map": lambda y, s, q, **c: rm.mean_average_precision_score(y, s, qid=q, **c),
    "mrr": lambda y, s, q, **c: rm.mean_reciprocal_rank_score(y, s, qid=q, **c),
    "precision@10": lambda y, s, q, **c: rm.precision_at_k_score(y, s, qid=q, k=10, **c),
    "recall@10": lambda y, s, q, **c: rm.recall_at_k_score(y, s, qid=q, k=10, **c),
}


# --- measuring --------------------------------------------------------------------------------


def check_agreement(table, n_queries):
    """Every peer gives our value under its conventions on tie-free scores."""
    y, score, qid = make_data(n_queries, "shuffled", seed=1)
    for metric, rows in table.items():
        for name, function, conventions in rows:
            if conventions is None:
                continue
            theirs = function(y, score, qid)
            ours = OUR_CALLS[metric](y, score, qid, ties="stable", **conventions)
            status = "ok" if abs(theirs - ours) < 1e-9 else "MISMATCH"
            print(f"  {metric:<13} {name:<20} {theirs:.12f} vs ours {ours:.12f}  {status}")
            if status != "ok":
                raise SystemExit(f"{name} disagrees on {metric}: the comparison would not be apples to apples.")


def resident_bytes():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def peak_memory(function, *arrays):
    """Growth of the resident set (bytes) while ``function`` runs once, sampled every 0.5 ms.

    Freed heap is handed back to the system first (glibc's malloc_trim) so that
    the baseline is the memory really in use. Works for C++ peers too, which
    tracemalloc would not see.
    """
    gc.collect()
    LIBC.malloc_trim(0)
    baseline = resident_bytes()
    peak, running = [baseline], [True]

    def sample():
        while running[0]:
            peak[0] = max(peak[0], resident_bytes())
            time.sleep(0.0005)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        function(*arrays)
        peak[0] = max(peak[0], resident_bytes())
    finally:
        running[0] = False
        sampler.join()
    return peak[0] - baseline


def peak_memory_in_fresh_process(metric, name, n_queries, layout):
    """Peak memory of one implementation, as a multiple of the input size, measured in a new interpreter."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(fresh_process_peak, (metric, name, n_queries, layout))


def fresh_process_peak(metric, name, n_queries, layout):
    function = {row[0]: row[1] for row in peers(verbose=False)[metric]}[name]
    function(*make_data(2_000, layout))  # imports, JIT compilation, thread pools
    arrays = make_data(n_queries, layout)
    return peak_memory(function, *arrays) / sum(a.nbytes for a in arrays)


def time_interleaved(rows, arrays, repeats):
    """Median seconds of each implementation, running them in turn (A/B/A/B) in one process."""
    times = {name: [] for name, _, _ in rows}
    for repeat in range(repeats):
        turn = rows[repeat % len(rows) :] + rows[: repeat % len(rows)]
        for name, function, _ in turn:
            gc.collect()
            start = time.perf_counter()
            function(*arrays)
            times[name].append(time.perf_counter() - start)
    return {name: float(np.median(values)) for name, values in times.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1k and 10k queries only")
    parser.add_argument("--repeats", type=int, default=5, help="runs per implementation (median; default 5)")
    parser.add_argument("--device", help="time the metrics from PyTorch tensors on this device (cuda, cpu)")
    parser.add_argument(
        "--profile", action="append", default=[], help="with --device cuda: the profiler's table of this metric"
    )
    args = parser.parse_args()
    if args.device:
        device_benchmark(args.device, 1_000 if args.quick else 31_500, args.repeats, args.profile)
        return
    warnings.filterwarnings("ignore", module="ranx")  # numba's type-safety chatter
    scales = (1_000, 10_000) if args.quick else (1_000, 10_000, 31_500)
    print(f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, numpy {np.__version__}")
    table = peers()
    print("Agreement on tie-free scores (1,000 queries):")
    check_agreement(table, 1_000)

    results = {}
    for n_queries in scales:
        for layout in LAYOUTS:
            arrays = make_data(n_queries, layout)
            input_bytes = sum(a.nbytes for a in arrays)
            print(f"\n{n_queries} queries, {len(arrays[0])} rows, layout {layout!r}")
            for metric, rows in table.items():
                medians = time_interleaved(rows, arrays, args.repeats)
                memory = {name: peak_memory_in_fresh_process(metric, name, n_queries, layout) for name, _, _ in rows}
                print_table(metric, medians, memory, input_bytes)
                results[n_queries, layout, metric] = medians, memory["ours"]
            shared = time_interleaved(REPORT, arrays, args.repeats)
            results[n_queries, layout, "report"] = shared
            print(
                f"  ranking_report of 5 metrics: {shared['five']:.4f} s, {shared['five'] / shared['one']:.2f}x ndcg@10"
            )
    print_scaling(results, scales, list(table))
    print_targets(results, scales[-1], list(table))


def torch_reference(y, score, qid, k=10):
    """NDCG@k and MAP in plain torch: two stable sorts and segment sums (ties in input order, not averaged)."""
    import torch

    def grouped_order(key):  # rows by query, then by key descending, stably
        order = torch.argsort(key, descending=True, stable=True)
        return order[torch.argsort(qid[order], stable=True)]

    # Both orders group the queries alike (by id), so the rows of a query sit at the same places in each.
    ideal = y[grouped_order(y)]
    order = grouped_order(score)
    y, query_ids = y[order], qid[order]
    _, counts = torch.unique_consecutive(query_ids, return_counts=True)
    query = torch.repeat_interleave(torch.arange(len(counts), device=y.device), counts)
    position = (torch.arange(len(y), device=y.device) - (torch.cumsum(counts, 0) - counts)[query]).to(y.dtype)
    discount = torch.where(position < k, 1.0 / torch.log2(position + 2.0), 0.0)

    def per_query(values):
        return torch.zeros(len(counts), dtype=values.dtype, device=y.device).index_add_(0, query, values)

    dcg, idcg = per_query(y * discount), per_query(ideal * discount)
    relevant = (y >= 1).to(y.dtype)
    running = torch.cumsum(relevant, 0)
    found = running - (running - relevant)[torch.cumsum(counts, 0) - counts][query]  # relevant rows so far
    n_relevant = per_query(relevant)
    ap = torch.where(n_relevant > 0, per_query(relevant * found / (position + 1.0)) / n_relevant, 0.0)
    return torch.where(idcg > 0, dcg / idcg, 0.0).mean(), ap.mean()


# The metrics of the device targets (ties averaged), each alone, and the target on an H100.
DEVICE_METRICS = [
    ("NDCG@10", lambda y, s, q: rm.ndcg_score(y, s, qid=q, k=10), 3),
    ("MAP", lambda y, s, q: rm.mean_average_precision_score(y, s, qid=q), 3),
    ("MRR@10", lambda y, s, q: rm.mean_reciprocal_rank_score(y, s, qid=q, k=10), 3),
    ("P@10", lambda y, s, q: rm.precision_at_k_score(y, s, qid=q, k=10), 3),
    ("recall@100", lambda y, s, q: rm.recall_at_k_score(y, s, qid=q, k=100), 3),
    ("R-prec", lambda y, s, q: rm.r_precision_score(y, s, qid=q), 3),
    ("RBP", lambda y, s, q: rm.rank_biased_precision_score(y, s, qid=q), 5),
    ("ERR@20", lambda y, s, q: rm.expected_reciprocal_rank_score(y, s, qid=q, k=20), 10),
    (
        "report of 5",
        lambda y, s, q: rm.ranking_report(y, s, qid=q, metrics=["ndcg@10", "map", "mrr@10", "err@20", "precision@10"]),
        12,
    ),
]


def device_benchmark(device, n_queries, repeats, profile=()):
    """Our metrics from PyTorch tensors on ``device`` (and CuPy arrays on a GPU), plain torch and torchmetrics.

    Ours ranks and measures on the tensors' device under ``array_api_dispatch``
    (no copy of the rows to the host). Each metric is timed alone, and on a
    GPU the torch profiler counts its device-to-host copies and kernels.

    Ours averages ties exactly; the plain-torch reference orders them by input
    row and torchmetrics arbitrarily, so their values are compared on
    tie-free positive scores first, then all are timed on tied scores.
    """
    import sklearn
    import torch

    cuda = torch.device(device).type == "cuda"
    cupy = importable("cupy") if cuda else None

    def synchronized(function):
        def run(*arrays):
            value = function(*arrays)
            if cuda:
                torch.cuda.synchronize()
            return value

        return run

    def dispatched(function):
        def run(*arrays):
            with sklearn.config_context(array_api_dispatch=True):
                return function(*arrays)

        return run

    def on_device(arrays):
        return [torch.as_tensor(a, device=device) for a in arrays]

    def ours(y, s, q):
        return rm.ndcg_score(y, s, qid=q, k=10), rm.mean_average_precision_score(y, s, qid=q)

    implementations = {"ours": dispatched(ours), "plain torch (ties not averaged)": torch_reference}
    try:
        from torchmetrics.retrieval import RetrievalMAP, RetrievalNormalizedDCG

        def torchmetrics(y, s, q):
            ndcg = RetrievalNormalizedDCG(top_k=10, empty_target_action="neg").to(device)
            ap = RetrievalMAP(empty_target_action="neg").to(device)
            return ndcg(s, y.long(), indexes=q), ap(s, y >= 1, indexes=q)

        implementations["torchmetrics"] = torchmetrics
    except ImportError:
        print("torchmetrics is not installed: its column is left out")
    name = torch.cuda.get_device_name() if cuda else platform.machine()
    print(f"{name}, torch {torch.__version__}" + (f", CuPy {cupy.__version__}" if cupy else ""))
    y, score, qid = make_data(300, "grouped")
    # Positive scores: torchmetrics' AP drops relevant documents scored <= 0 (the order is unchanged).
    check = on_device([y, score - score.min() + 1.0, qid])
    expected = implementations["ours"](*check)
    for label, function in implementations.items():
        found = [float(value) for value in function(*check)]
        agree = np.allclose(found, [float(value) for value in expected], rtol=1e-6)
        print(f"  {label:<32} NDCG@10 {found[0]:.6f}  MAP {found[1]:.6f}  {'agrees' if agree else 'DIFFERS'}")
    data = make_data(n_queries, "ties")
    arrays = on_device(data)
    as_cupy = [cupy.from_dlpack(array) for array in arrays] if cupy else None
    print(f"{n_queries} queries, {len(data[0])} rows, tied scores, on {device} (median of {repeats} warm calls):")

    header = f"  {'metric':<12} {'ours':>9} {'target':>7}"
    if cuda:
        header += f" {'no graphs':>9} {'recording':>9} {'DtoH':>5} {'HtoD':>5} {'kernels':>7}"
    if cupy:
        header += f" {'CuPy':>9}"
    print(header)
    times = {}
    for label, function, target in DEVICE_METRICS:
        run = dispatched(function)
        if cuda:  # each call launches its operations, then the same calls with its steps recorded as CUDA graphs
            os.environ[GRAPHS_SWITCH] = "0"
            eager = median_time(synchronized(run), arrays, repeats)
            os.environ[GRAPHS_SWITCH] = "1"
            synchronized(run)(*arrays)  # the first sight of these shapes: run as it is
            start = time.perf_counter()
            synchronized(run)(*arrays)  # the second: recorded, then replayed
            recording = time.perf_counter() - start
        times[label] = median_time(synchronized(run), arrays, repeats)
        line = f"  {label:<12} {times[label] * 1e3:7.2f} ms {target:>4} ms"
        if cuda:
            to_host, to_device, kernels = profiled_counts(run, arrays, table=label in profile)
            line += f" {eager * 1e3:6.2f} ms {recording * 1e3:6.1f} ms {to_host:>5} {to_device:>5} {kernels:>7}"
        if cupy:
            line += f" {cupy_time(cupy, run, as_cupy, data, repeats):>9}"
        print(line + ("" if not cuda else "  PASS" if times[label] * 1e3 <= target else "  FAIL"))

    both = {}
    for label, function in implementations.items():
        if label == "torchmetrics":
            both[label], note = torchmetrics_time(synchronized(function), data, on_device)
        else:
            both[label], note = median_time(synchronized(function), arrays, repeats), ""
        print(f"  NDCG@10 and MAP, {label:<32} {both[label]:9.4f} s{note}")
    if "torchmetrics" in both:
        print(f"  ours: {both['torchmetrics'] / both['ours']:.0f}x faster than torchmetrics (target >= 5000x)")


def importable(module):
    try:
        return __import__(module)
    except ImportError:
        print(f"({module} is not installed: its column is left out)")
        return None


def median_time(run, arrays, repeats):
    run(*arrays)  # warm-up: kernels, caches
    durations = []
    for _ in range(repeats):
        start = time.perf_counter()
        run(*arrays)
        durations.append(time.perf_counter() - start)
    return float(np.median(durations))


def profiled_counts(run, arrays, table=False):
    """Copies to the host, copies to the device and kernels of one call, as the torch profiler (CUPTI) records them."""
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as profiler:
        run(*arrays)
    if table:
        print(profiler.key_averages().table(sort_by="cuda_time_total", row_limit=25))
    events = [event for event in profiler.events() if event.device_type == DeviceType.CUDA]
    to_host = sum("Memcpy DtoH" in event.name for event in events)
    to_device = sum("Memcpy HtoD" in event.name for event in events)
    kernels = sum(not event.name.startswith(("Memcpy", "Memset")) for event in events)
    return to_host, to_device, kernels


def cupy_time(cupy, run, arrays, data, repeats):
    """Milliseconds of one of our metrics from CuPy arrays, checked against numpy; or why it failed."""

    def synchronized(*arrays):
        value = run(*arrays)
        cupy.cuda.Device().synchronize()
        return value

    try:
        found = synchronized(*arrays)
    except Exception as error:  # the table says why
        return f"{type(error).__name__}"
    expected = run(*data)
    same = all(np.allclose(to_float(a), to_float(b), rtol=1e-12) for a, b in pairs(found, expected))
    return f"{median_time(synchronized, arrays, repeats) * 1e3:6.2f} ms" + ("" if same else " DIFFERS")


def pairs(found, expected):
    if isinstance(found, dict):
        return [(found[key], expected[key]) for key in expected]
    return [(found, expected)]


def to_float(value):
    return value.get() if hasattr(value, "get") else value


def torchmetrics_time(run, data, on_device):
    """torchmetrics' seconds, timed on all the queries or, if that would take over a minute, scaled from a tenth.

    Its retrieval metrics loop over queries, so the time is linear in their number.
    """
    y, score, qid = data
    tenth = qid < np.quantile(qid, 0.1)
    start = time.perf_counter()
    run(*on_device([y[tenth], score[tenth], qid[tenth]]))
    estimate = (time.perf_counter() - start) * len(qid) / np.count_nonzero(tenth)
    if estimate > 60:
        return estimate, f" (scaled from {np.count_nonzero(tenth)} rows, a tenth of the queries)"
    start = time.perf_counter()
    run(*on_device(data))
    return time.perf_counter() - start, " (one run)"


REPORT = [
    ("one", lambda y, s, q: rm.ndcg_score(y, s, qid=q, k=10), None),
    (
        "five",
        lambda y, s, q: rm.ranking_report(y, s, qid=q, metrics=["ndcg@10", "map", "mrr", "err@20", "precision@10"]),
        None,
    ),
]


def print_table(metric, medians, memory, input_bytes):
    fastest_peer = min((t for name, t in medians.items() if name not in ("ours", "bare numpy sort")), default=None)
    print(f"  {metric}")
    for name, seconds in sorted(medians.items(), key=lambda item: item[1]):
        peer = f"{seconds / fastest_peer:6.2f}x" if fastest_peer else "     -"
        bare = seconds / medians["bare numpy sort"]
        mib = memory[name] * input_bytes / 2**20
        print(
            f"    {name:<22} {seconds:9.4f} s  {peer} fastest peer  {bare:6.2f}x bare sort  "
            f"peak {mib:7.1f} MiB ({memory[name]:4.2f}x inputs)"
        )


def print_scaling(results, scales, metrics):
    """Seconds per million rows of ours at each scale: flat means n log n with no per-query cost."""
    print("\nOurs, seconds per million rows at " + ", ".join(f"{n} queries" for n in scales) + ":")
    for layout in LAYOUTS:
        for metric in metrics:
            per_million = [results[n, layout, metric][0]["ours"] / (len(make_data(n, layout)[0]) / 1e6) for n in scales]
            print(f"  {layout:<9} {metric:<13} " + "  ".join(f"{value:.4f}" for value in per_million))


def print_targets(results, scale, metrics):
    """The performance issue's targets at the largest scale, on every layout."""
    print(f"\nTargets at {scale} queries:")
    for layout in LAYOUTS:
        for metric in metrics:
            medians, memory = results[scale, layout, metric]
            ours = medians["ours"]
            limit = 2.0 if metric in ("ndcg@10", "map") else 2.5
            checks = [(f"<= {limit}x bare sort", medians["bare numpy sort"] * limit / ours)]
            if "lightgbm" in medians:
                checks.append(("<= 1.0x LightGBM", medians["lightgbm"] / ours))
            if "pytrec_eval" in medians and metric in ("ndcg@10", "map"):
                checks.append((">= 10x faster than pytrec_eval", medians["pytrec_eval"] / (10 * ours)))
            checks.append(("peak memory <= 3x inputs", 3 / memory))
            for text, margin in checks:
                print(f"  {'PASS' if margin >= 1 else 'FAIL'}  {layout:<9} {metric:<13} {text:<32} margin {margin:.2f}")
        shared = results[scale, layout, "report"]
        margin = 2 * shared["one"] / shared["five"]
        verdict = "PASS" if margin >= 1 else "FAIL"
        print(f"  {verdict}  {layout:<9} {'5 metrics':<13} {'< 2x one metric':<32} margin {margin:.2f}")


if __name__ == "__main__":
    main()
