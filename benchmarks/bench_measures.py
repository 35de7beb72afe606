"""The measures of issue #29 (nERR, NCG, Q, compat, OPA, INSQ, INST, RBO, the intent-aware family): seconds, and
the multiple of ndcg_score on the same input.

    python benchmarks/bench_measures.py             # a million rows, distinct and tied scores
    python benchmarks/bench_measures.py --tools     # also the reference tools, on 300 queries

Each measure is vectorised over all queries (one sort, segment reductions) and should stay within a small
multiple of ndcg_score; none counts pairs or depths one by one. The exact tie expectations cost a little
more where they need laws over tie blocks (compat: a window of depths of each block of ties).
"""

import argparse
import time
import warnings

import numpy as np

import sklearn_rankmetrics as rm

LABEL_MEASURES = {
    "nerr@10": (rm.normalized_err_score, {"k": 10}),
    "ncg@10": (rm.ncg_score, {"k": 10}),
    "Q": (rm.q_measure_score, {}),
    "compat": (rm.compatibility_score, {}),
    "opa": (rm.ordered_pair_accuracy_score, {}),
    "insq": (rm.insq_score, {}),
    "inst": (rm.inst_score, {}),  # ties="stable": INST has no mean over the orderings of ties
}
INTENT_MEASURES = {
    "p_ia@10": (rm.intent_aware_precision_score, {"k": 10}),
    "ap_ia": (rm.intent_aware_average_precision_score, {}),
    "nerr_ia@10": (rm.normalized_intent_aware_err_score, {"k": 10}),
    "nrbp": (rm.novelty_rank_biased_precision_score, {}),
}


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        function(*args, **kwargs)
    return time.perf_counter() - start


def inputs(rng):
    """A million rows in 1,000 queries: distinct scores, scores in 50 levels (ties), and one query of 100,000 ties."""
    qid = np.repeat(np.arange(1_000), 1_000)
    labels = rng.choice(5, qid.size, p=[0.515, 0.32, 0.13, 0.025, 0.01]).astype(float)
    yield "1,000 x 1,000, distinct scores", labels, rng.random(qid.size), qid
    yield "1,000 x 1,000, scores in 50 levels", labels, rng.integers(0, 50, qid.size).astype(float), qid
    tied = rng.choice(5, 100_000, p=[0.515, 0.32, 0.13, 0.025, 0.01]).astype(float)
    yield "one query of 100,000 tied documents", tied, np.zeros(100_000), np.zeros(100_000, dtype=int)


def label_measures(rng):
    print(f"{'input':40s} {'measure':10s} {'seconds':>8s} {'x ndcg':>7s}")
    for name, labels, scores, qid in inputs(rng):
        base = timed(rm.ndcg_score, labels, scores, qid=qid, k=10)
        for measure, (function, options) in LABEL_MEASURES.items():
            ties = {"ties": "stable"} if measure == "inst" else {}
            seconds = timed(function, labels, scores, qid=qid, **options, **ties)
            print(f"{name:40s} {measure:10s} {seconds:8.2f} {seconds / base:7.1f}")
        seconds = timed(rm.ordered_pair_accuracy_score, rng.random(labels.size).round(3), scores, qid=qid)
        print(f"{name:40s} {'opa, 1,000 labels':10s} {seconds:8.2f} {seconds / base:7.1f}")
        other = rng.integers(0, 30, labels.size).astype(float)
        seconds = timed(rm.rank_biased_overlap, scores, other, qid=qid)
        print(f"{name:40s} {'rbo':10s} {seconds:8.2f} {seconds / base:7.1f}")


def intent_measures(rng):
    qid = np.repeat(np.arange(1_000), 200)
    judgements = (rng.random((qid.size, 5)) < 0.1).astype(float)
    scores = rng.random(qid.size)
    base = timed(rm.alpha_ndcg_score, judgements, scores, qid=qid, k=10)
    print(f"\n1,000 queries x 200 documents x 5 intents: alpha_ndcg@10 takes {base:.2f} s")
    for measure, (function, options) in INTENT_MEASURES.items():
        seconds = timed(function, judgements, scores, qid=qid, **options)
        print(f"{measure:12s} {seconds:8.2f} s {seconds / base:7.1f} x alpha_ndcg")


def reference_tools(rng):
    """The reference tools on 300 queries of 100 documents: their seconds against ours."""
    import ir_measures

    qid = np.repeat(np.arange(300), 100)
    labels = rng.choice(4, qid.size, p=[0.6, 0.2, 0.15, 0.05])
    scores = rng.random(qid.size)
    rows = list(enumerate(zip(qid, labels, scores, strict=True)))
    qrels = [ir_measures.Qrel(str(q), f"d{i}", int(label)) for i, (q, label, _) in rows]
    run = [ir_measures.ScoredDoc(str(q), f"d{i}", float(score)) for i, (q, _, score) in rows]
    print("\n300 queries x 100 documents, against ir_measures' providers")
    for measure, ours in (
        (ir_measures.Compat(p=0.95), lambda: rm.compatibility_score(labels, scores, qid=qid)),
        (ir_measures.INST(T=1.0, max_rel=3), lambda: rm.inst_score(labels, scores, qid=qid, max_grade=3, k=1000)),
        (ir_measures.INSQ(T=1.0, max_rel=3), lambda: rm.insq_score(labels, scores, qid=qid, max_grade=3, k=1000)),
    ):
        theirs = timed(lambda m=measure: list(ir_measures.iter_calc([m], qrels, run)))
        mine = timed(ours)
        print(f"{measure!s:24s} theirs {theirs:7.2f} s, ours {mine:6.3f} s ({theirs / mine:5.0f}x)")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tools", action="store_true", help="also time the reference tools (ir_measures)")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    label_measures(rng)
    intent_measures(rng)
    if args.tools:
        reference_tools(rng)


if __name__ == "__main__":
    main()
