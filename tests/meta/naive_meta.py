"""Direct implementations of the meta-evaluation statistics from their papers: loops, no vectorisation."""

import itertools
import math

import numpy as np


def tau_ap(reference, estimate):
    """Yilmaz et al. (2008), eq. 1, for scores without ties: the systems in the order of ``estimate``."""
    n = len(reference)
    order = sorted(range(n), key=lambda i: -estimate[i])
    total = 0.0
    for rank in range(1, n):  # rank i + 1 = 2 .. n
        current = order[rank]
        correct = sum(1 for above in order[:rank] if reference[above] > reference[current])
        total += correct / rank
    return 2.0 / (n - 1) * total - 1.0


def tau_ap_over_tie_orders(reference, estimate):
    """tau_AP averaged over every ordering that breaks the ties of both scores (each equally likely)."""
    n = len(reference)

    def orderings(scores):
        # Every strict ranking consistent with the scores, as a list of rank keys (higher first).
        blocks = sorted(set(scores), reverse=True)
        groups = [[i for i in range(n) if scores[i] == value] for value in blocks]
        for choice in itertools.product(*(itertools.permutations(group) for group in groups)):
            key = [0.0] * n
            position = 0
            for group in choice:
                for i in group:
                    key[i] = n - position
                    position += 1
            yield key

    values = [tau_ap(ref, est) for ref in orderings(list(reference)) for est in orderings(list(estimate))]
    return float(np.mean(values))


def kendall_tau_a(x, y):
    """(concordant - discordant) / (n choose 2)."""
    n, s = len(x), 0
    for i, j in itertools.combinations(range(n), 2):
        s += np.sign(x[i] - x[j]) * np.sign(y[i] - y[j])
    return s / (n * (n - 1) / 2)


def swaps(systems, x, y):
    """The pairs (a, b) ranked a above b by x and b above a by y."""
    found = []
    for i, j in itertools.combinations(range(len(x)), 2):
        if (x[i] - x[j]) * (y[i] - y[j]) < 0:
            found.append((systems[i], systems[j]) if x[i] > x[j] else (systems[j], systems[i]))
    return found


def smare(predicted, actual):
    """Faggioli et al.: mean over queries of |rank by prediction - rank by AP| / |Q|, ties at their average rank."""
    n = len(actual)

    def ranks(values):
        return [
            1 + sum(v < values[i] for v in values) + (sum(v == values[i] for v in values) - 1) / 2 for i in range(n)
        ]

    rp, re = ranks(list(predicted)), ranks(list(actual))
    return sum(abs(a - b) / n for a, b in zip(rp, re, strict=True)) / n


def fleiss_gwet(ratings):
    """Fleiss' kappa with missing ratings (Gwet 2014): ratings judges x items, NaN missing, by loops."""
    ratings = np.asarray(ratings, dtype=float)
    categories = sorted(set(ratings[~np.isnan(ratings)].tolist()))
    agreements, shares = [], {c: [] for c in categories}
    for item in ratings.T:
        given = [v for v in item if not math.isnan(v)]
        m = len(given)
        if m == 0:
            continue
        for c in categories:
            shares[c].append(given.count(c) / m)
        if m >= 2:
            agreements.append(sum(given.count(c) * (given.count(c) - 1) for c in categories) / (m * (m - 1)))
    observed = np.mean(agreements)
    chance = sum(np.mean(shares[c]) ** 2 for c in categories)
    return (observed - chance) / (1 - chance)


def standardize(matrix, reference):
    """Webber et al.: per topic (row), z = (x - mean of reference) / sd of reference (ddof=1)."""
    out = np.empty_like(matrix, dtype=float)
    for t in range(len(matrix)):
        mean = sum(reference[t]) / len(reference[t])
        sd = math.sqrt(sum((v - mean) ** 2 for v in reference[t]) / (len(reference[t]) - 1))
        out[t] = [(v - mean) / sd for v in matrix[t]]
    return out


def tau_ap_over_estimate_tie_orders(reference, estimate):
    """tau_AP,a (Urbano & Marrero 2017): tau_AP averaged over every ordering that breaks the ties of ``estimate``."""
    n = len(estimate)
    blocks = sorted(set(estimate), reverse=True)
    groups = [[i for i in range(n) if estimate[i] == value] for value in blocks]
    values = []
    for choice in itertools.product(*(itertools.permutations(group) for group in groups)):
        key = [0.0] * n
        for position, i in enumerate(i for group in choice for i in group):
            key[i] = n - position
        values.append(tau_ap(reference, key))
    return float(np.mean(values))


def tau_ap_b(x, y):
    """tau_AP,b (Urbano & Marrero 2017): the mean of the two directions, each over the other's tie blocks."""

    def direction(judge, traversed):
        n, total, below_top = len(judge), 0.0, 0
        for i in range(n):
            above = [j for j in range(n) if traversed[j] > traversed[i]]  # the systems of the blocks above i's
            if not above:
                continue  # i is in the first block
            below_top += 1
            total += sum(1 for j in above if judge[j] > judge[i]) / len(above)
        return 2.0 * total / below_top - 1.0

    return (direction(x, y) + direction(y, x)) / 2


def webber_rbo(x, y, p):
    """Extrapolated RBO of two complete orderings with Webber et al.'s ties: a tie block enters at its first depth.

    Per depth d: S_d and L_d, the systems whose block starts above depth d; agreement 2 |S_d & L_d| / (|S_d| + |L_d|);
    RBO = (1 - p) / p * sum_d A_d p^d + A_n p^n (Webber et al. eq. 32 with l = s = n, X_n / n = 1).
    """
    n = len(x)

    def prefix(scores, depth):
        return {i for i in range(n) if sum(1 for j in range(n) if scores[j] > scores[i]) < depth}

    total = 0.0
    for d in range(1, n + 1):
        top_x, top_y = prefix(x, d), prefix(y, d)
        total += 2 * len(top_x & top_y) / (len(top_x) + len(top_y)) * p**d
    return (1 - p) / p * total + p**n
