"""Textbook implementations of each metric on one ranked list, written for clarity, not speed.

They serve as an independent oracle: a list of labels in rank order goes in, a
float comes out. ``tie_averaged`` enumerates every ordering of the tie blocks.
"""

import itertools
import math

import numpy as np

# Fractional grades (a label between 0 and 1 gains without being relevant at threshold 1), for the generators.
FRACTIONAL_GRADES = (0.0, 0.5, 1.0, 1.5, 2.25, 3.0)


def random_queries(seed, n_rows=7, n_queries=3, n_labels=4, n_scores=3):
    """Rows of a few small queries for the oracle tests, four kinds by ``seed % 4``.

    Even seeds: whole labels 0 .. n_labels - 1; odd: fractional grades
    (:data:`FRACTIONAL_GRADES`). Seeds 0 and 1 mod 4: scores from
    ``n_scores`` values (many ties); 2 and 3: distinct scores, so that
    cutoffs fall between documents, never inside a tie block.
    """
    rng = np.random.default_rng(seed)
    qid = rng.integers(0, n_queries, n_rows)
    if seed % 2:
        y_true = rng.choice(FRACTIONAL_GRADES[: max(n_labels, 2) + 2], n_rows)
    else:
        y_true = rng.integers(0, n_labels, n_rows).astype(float)
    if seed % 4 >= 2:
        y_score = rng.permutation(n_rows).astype(float)
    else:
        y_score = rng.integers(0, n_scores, n_rows).astype(float)
    return y_true, y_score, qid


def gain(label, kind="linear"):
    return label if kind == "linear" else 2.0**label - 1.0


def discount(rank, kind="log2"):
    if kind == "log2":
        return 1.0 / math.log2(rank + 1)
    return 1.0 if rank <= 2 else 1.0 / math.log2(rank)


def dcg(labels, k=None, gain_kind="linear", discount_kind="log2"):
    top = labels[:k] if k else labels
    return sum(gain(rel, gain_kind) * discount(i, discount_kind) for i, rel in enumerate(top, start=1))


def cumulative_gain(labels, k=None, gain_kind="linear"):
    top = labels[:k] if k else labels
    return sum(gain(rel, gain_kind) for rel in top)


def ndcg(labels, k=None, gain_kind="linear", discount_kind="log2"):
    ideal = dcg(sorted(labels, reverse=True), k, gain_kind, discount_kind)
    return dcg(labels, k, gain_kind, discount_kind) / ideal if ideal > 0 else None


def precision(labels, k=None, threshold=1):
    k = k or len(labels)
    return sum(rel >= threshold for rel in labels[:k]) / k


def recall(labels, k=None, threshold=1, denominator="relevant"):
    n_relevant = sum(rel >= threshold for rel in labels)
    if n_relevant == 0:
        return None
    found = sum(rel >= threshold for rel in labels[:k])
    return found / (n_relevant if denominator == "relevant" or k is None else min(k, n_relevant))


def r_precision(labels, k=None, threshold=1):
    n_relevant = sum(rel >= threshold for rel in labels)
    examined = n_relevant if k is None else min(k, n_relevant)
    return sum(rel >= threshold for rel in labels[:examined]) / n_relevant if n_relevant else None


def average_precision(labels, k=None, threshold=1, denominator="relevant"):
    n_relevant = sum(rel >= threshold for rel in labels)
    if n_relevant == 0:
        return None
    found, total = 0, 0.0
    for rank, rel in enumerate(labels[:k] if k else labels, start=1):
        if rel >= threshold:
            found += 1
            total += found / rank
    return total / (n_relevant if denominator == "relevant" or k is None else min(k, n_relevant))


def reciprocal_rank(labels, k=None, threshold=1):
    if not any(rel >= threshold for rel in labels):
        return None
    for rank, rel in enumerate(labels[:k] if k else labels, start=1):
        if rel >= threshold:
            return 1.0 / rank
    return 0.0


def err(labels, k=None, max_grade=None):
    max_grade = max(labels) if max_grade is None else max_grade
    if max(labels) == 0:
        return None
    total, go_on = 0.0, 1.0
    for rank, rel in enumerate(labels[:k] if k else labels, start=1):
        stop = (2.0**rel - 1.0) / 2.0**max_grade
        total += go_on * stop / rank
        go_on *= 1.0 - stop
    return total


def orderings(labels, scores):
    """Every distinct label list obtained by reordering documents with equal scores.

    Each distinct arrangement of a multiset stands for the same number of
    permutations, so a plain mean over them is the mean over all orderings.
    """
    blocks = {}
    for label, score in zip(labels, scores, strict=True):
        blocks.setdefault(score, []).append(label)
    per_block = [sorted(set(itertools.permutations(blocks[s]))) for s in sorted(blocks, reverse=True)]
    for combination in itertools.product(*per_block):
        yield [label for block in combination for label in block]


def tie_averaged(metric, labels, scores, **kwargs):
    """Mean of ``metric`` over all orderings of the tie blocks (None if undefined)."""
    values = [metric(ordering, **kwargs) for ordering in orderings(labels, scores)]
    return None if values[0] is None else float(np.mean(values))


def grouped(metric, y_true, y_score, qid, zero_division=0.0, **kwargs):
    """Per-query values in ``np.unique(qid)`` order, ties averaged by enumeration."""
    y_true, y_score, qid = map(np.asarray, (y_true, y_score, qid))
    out = []
    for q in np.unique(qid):
        rows = qid == q
        value = tie_averaged(metric, list(y_true[rows]), list(y_score[rows]), **kwargs)
        out.append(zero_division if value is None else value)
    return np.array(out)


def hit_rate(labels, k=None, threshold=1):
    if not any(rel >= threshold for rel in labels):
        return None
    return float(any(rel >= threshold for rel in (labels[:k] if k else labels)))


def f1(labels, k=None, threshold=1):
    n_relevant = sum(rel >= threshold for rel in labels)
    if n_relevant == 0:
        return None
    examined = k or len(labels)
    return 2 * sum(rel >= threshold for rel in labels[:examined]) / (examined + n_relevant)


def bpref(labels, k=None, threshold=1):
    """Buckley & Voorhees' bpref, every document judged; ``k`` is ignored (bpref has no cutoff)."""
    n_relevant = sum(rel >= threshold for rel in labels)
    n_nonrelevant = len(labels) - n_relevant
    if n_relevant == 0:
        return None
    total, above = 0.0, 0
    for rel in labels:
        if rel >= threshold:
            total += 1.0 if above == 0 else 1.0 - min(above, n_relevant) / min(n_nonrelevant, n_relevant)
        else:
            above += 1
    return total / n_relevant


def rbp(labels, k=None, threshold=1, p=0.8):
    if not any(rel >= threshold for rel in labels):
        return None
    return (1 - p) * sum((rel >= threshold) * p**i for i, rel in enumerate(labels[:k] if k else labels))


def interpolated_precision(labels, levels, threshold=1):
    """Interpolated precision at recall levels, as trec_eval 10 defines it (rounding x R half up)."""
    n_relevant = sum(rel >= threshold for rel in labels)
    precisions, found = [], 0
    for rank, rel in enumerate(labels, start=1):
        if rel >= threshold:
            found += 1
            precisions.append(found / rank)
    values = []
    for level in levels:
        needed = math.floor(level * n_relevant + 0.5)
        values.append(max(precisions[max(needed, 1) - 1 :]) if precisions and needed <= len(precisions) else 0.0)
    return values


def normalized_err(labels, k=None, max_grade=None):
    max_grade = max(labels) if max_grade is None else max_grade
    if max(labels) == 0:
        return None
    return err(labels, k, max_grade) / err(sorted(labels, reverse=True), k, max_grade)


def normalized_cumulative_gain(labels, k=None, gain_kind="linear"):
    ideal = cumulative_gain(sorted(labels, reverse=True), k, gain_kind)
    return cumulative_gain(labels, k, gain_kind) / ideal if ideal > 0 else None


def q_measure(labels, k=None, beta=1.0, gain_kind="linear"):
    """Sakai's Q: over the relevant ranks r, (C(r) + beta cg(r)) / (r + beta cg*(r)), over R (min(k, R) at k)."""
    gains = [gain(label, gain_kind) for label in labels]
    ideal = sorted(gains, reverse=True)
    n_relevant = sum(label > 0 for label in labels)
    if n_relevant == 0:
        return None
    total, found, gained, ideal_gained = 0.0, 0, 0.0, 0.0
    for rank, (label, value) in enumerate(zip(labels, gains, strict=True), start=1):
        if k is not None and rank > k:
            break
        gained += value
        ideal_gained += ideal[rank - 1]
        if label > 0:
            found += 1
            total += (found + beta * gained) / (rank + beta * ideal_gained)
    return total / (n_relevant if k is None else min(k, n_relevant))


def rank_biased_overlap_of_lists(ranking, ideal, p, depth):
    """ir_measures' normalised truncated RBO of two lists of document ids, to ``depth``."""
    seen_ranking, seen_ideal, total, weights, weight = set(), set(), 0.0, 0.0, 1.0
    for d in range(1, depth + 1):
        seen_ranking.update(ranking[d - 1 : d])
        seen_ideal.update(ideal[d - 1 : d])
        total += weight * len(seen_ranking & seen_ideal) / d
        weights += weight
        weight *= p
    return total / weights


def compatibility(labels, p=0.95, normalize=True):
    """RBO of the ranking with the ideal ranking (labels descending, a label's documents in ranking order)."""
    relevant = [rank for rank, label in enumerate(labels) if label > 0]
    if not relevant:
        return None
    ideal = sorted(relevant, key=lambda rank: (-labels[rank], rank))
    depth = max(len(labels), len(ideal))
    value = rank_biased_overlap_of_lists(list(range(len(labels))), ideal, p, depth)
    return value / rank_biased_overlap_of_lists(ideal, ideal, p, depth) if normalize else value


def ordered_pair_accuracy(labels):
    """The share of the pairs with different labels whose upper document has the higher label."""
    pairs = [(labels[i], labels[j]) for i in range(len(labels)) for j in range(i + 1, len(labels))]
    different = [(upper, lower) for upper, lower in pairs if upper != lower]
    return sum(upper > lower for upper, lower in different) / len(different) if different else None


def cwl_rate(labels, go_on, k, max_grade=None):
    """C/W/L expected rate of gain over ranks 1 .. k, with C(i) = go_on(i, gain up to i): gains label / max grade."""
    max_grade = max(labels) if max_grade is None else max_grade
    if max(labels) == 0:
        return None
    gains = [label / max_grade for label in labels[:k]] + [0.0] * max(k - len(labels), 0)
    reach, found, total, rate = 1.0, 0.0, 0.0, 0.0
    for rank, value in enumerate(gains, start=1):
        total += reach
        rate += reach * value
        found += value
        reach *= go_on(rank, found)
    return rate / total


def insq(labels, k, target=1.0, max_grade=None):
    return cwl_rate(labels, lambda i, found: ((i + 2 * target - 1) / (i + 2 * target)) ** 2, k, max_grade)


def inst(labels, k, target=1.0, max_grade=None):
    def go_on(i, found):
        wanted = target - found
        return ((i + target + wanted - 1) / (i + target + wanted)) ** 2

    return cwl_rate(labels, go_on, k, max_grade)
