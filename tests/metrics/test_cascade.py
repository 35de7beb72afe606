"""Reciprocal rank with ties averaged: enumeration on small blocks, exact rationals on large ones."""

from fractions import Fraction
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_rankmetrics import mean_reciprocal_rank_score

import naive


@pytest.mark.parametrize("size", range(2, 8))
@pytest.mark.parametrize("n_above", [0, 2])
def test_tied_blocks_of_up_to_seven_documents_equal_enumeration_at_every_k(size, n_above):
    rng = np.random.default_rng(size * 10 + n_above)
    for n_relevant in range(size + 1):
        labels = np.array([0.0] * n_above + [1.0] * n_relevant + [0.0] * (size - n_relevant))
        rng.shuffle(labels[n_above:])
        scores = np.array([2.0 + i for i in range(n_above)][::-1] + [1.0] * size)
        for k in [None, *range(1, n_above + size + 2)]:
            expected = naive.tie_averaged(naive.reciprocal_rank, labels, scores, k=k)
            expected = 0.0 if expected is None else expected  # no relevant document: zero_division
            assert mean_reciprocal_rank_score(labels, scores, k=k) == pytest.approx(expected, rel=1e-13, abs=1e-15)


def exact_expected_reciprocal_rank(above, size, n_relevant, k=None):
    """The mean over orderings in rationals: first relevant at place j with probability C(m-1-j, r-1) / C(m, r)."""
    total = comb(size, n_relevant)
    places = size - n_relevant + 1 if k is None else min(size - n_relevant + 1, k - above)
    return sum(Fraction(comb(size - 1 - j, n_relevant - 1), total * (above + j + 1)) for j in range(places))


@pytest.mark.parametrize(
    ("above", "size", "n_relevant", "k"),
    [
        (0, 3000, 1, None),
        (0, 3000, 2, None),
        (5, 2500, 7, None),
        (0, 4000, 40, None),
        (3, 3000, 3, 1000),
        (0, 2000, 1999, None),
        (10, 3000, 300, 20),
    ],
)
def test_large_tied_blocks_equal_exact_rational_arithmetic(above, size, n_relevant, k):
    labels = np.zeros(above + size)
    labels[above:][np.random.default_rng(size).permutation(size)[:n_relevant]] = 1.0
    scores = np.concatenate([np.arange(above, 0, -1.0) + 1.0, np.ones(size)])
    expected = float(exact_expected_reciprocal_rank(above, size, n_relevant, k))
    assert mean_reciprocal_rank_score(labels, scores, k=k) == pytest.approx(expected, rel=1e-12)


def test_every_query_of_a_large_tied_input_at_once():
    # Many tie blocks of different sizes in one call: the segmented product restarts at every block.
    rng = np.random.default_rng(0)
    sizes = rng.integers(2, 400, 60)
    qid = np.repeat(np.arange(60), sizes)
    labels = (rng.random(len(qid)) < 0.05).astype(float)
    per_query = mean_reciprocal_rank_score(labels, np.zeros(len(qid)), qid=qid, average=False)
    for query, size in enumerate(sizes):
        n_relevant = int(labels[qid == query].sum())
        expected = float(exact_expected_reciprocal_rank(0, size, n_relevant)) if n_relevant else 0.0
        assert per_query[query] == pytest.approx(expected, rel=1e-12, abs=1e-300)


@pytest.mark.parametrize(
    ("size", "n_relevant", "visible"), [(3000, 1, 10), (3000, 30, 100), (2500, 200, 2400), (4000, 7, 3999)]
)
def test_hypergeometric_misses_of_large_tied_blocks_equal_exact_rationals(size, n_relevant, visible):
    from sklearn_rankmetrics import hit_rate_score, subtopic_recall_score

    exact_miss = Fraction(comb(size - n_relevant, visible), comb(size, visible))
    labels = np.zeros(size)
    labels[np.random.default_rng(size).permutation(size)[:n_relevant]] = 1.0
    assert hit_rate_score(labels, np.ones(size), k=visible) == pytest.approx(float(1 - exact_miss), rel=1e-12)
    # S-recall of one subtopic that those documents cover: the same probability.
    assert subtopic_recall_score(labels[:, None], np.ones(size), k=visible, ties="average") == pytest.approx(
        float(1 - exact_miss), rel=1e-12
    )


def exact_block_err(labels, max_grade, first, visible):
    """A tie block's expected reciprocal stop, in rationals: stop probabilities (2**g - 1) / 2**max_grade."""
    scale = 2**max_grade
    # prod_x (scale + q_x z), q_x = scale - (2**g_x - 1): the symmetric polynomials of the go-on numerators.
    polynomial = [1]
    for label in labels:
        q = scale - (2 ** int(label) - 1)
        polynomial = [scale * a + q * b for a, b in zip([*polynomial, 0], [0, *polynomial], strict=True)]
    m = len(labels)
    # polynomial[t] = scale**(m - t) e_t(q): the mean of the go-on products is e_t(q) / (scale**t C(m, t)).
    means = [Fraction(polynomial[t], scale ** (m - t) * scale**t * comb(m, t)) for t in range(m + 1)]
    return sum((means[t] - means[t + 1]) / (first + t + 1) for t in range(visible))


@pytest.mark.parametrize(
    ("size", "zero_share", "first", "visible", "seed"),
    [(5, 0.4, 0, 5, 0), (7, 0.0, 2, 4, 1), (7, 0.9, 0, 7, 2), (60, 0.5, 3, 60, 3), (400, 0.5, 0, 400, 4),
     (400, 0.97, 10, 400, 5), (300, 0.2, 0, 100, 6),
     (1500, 0.5, 5, 1500, 8), (1500, 0.1, 0, 700, 9),  # stopping rows outnumber values x depth: merged
     # Deep blocks and blocks of almost only stopping rows run the recurrence of the places backward.
     (800, 0.0, 10**6, 800, 10), (800, 0.02, 3000, 40, 11), (600, 0.999, 10**5, 600, 12), (700, 0.9, 0, 3, 13),
     (1300, "dominated", 4, 1300, 14), (1300, "dominated", 0, 200, 15)],  # one label holds 90% of the rows
)  # fmt: skip
def test_err_of_large_tie_blocks_equals_exact_rationals(size, zero_share, first, visible, seed):
    from sklearn_rankmetrics.metrics._tie_expectations import stopping_row_stops

    rng = np.random.default_rng(seed)
    if zero_share == "dominated":  # more than POLYNOMIAL_ROWS stopping rows, 90% of them of label 1
        labels = rng.choice(5, size, p=[0.02, 0.882, 0.05, 0.028, 0.02])
    else:
        labels = rng.choice(5, size, p=[zero_share] + [(1 - zero_share) / 4] * 4)
    go_on = 1.0 - (2.0**labels - 1.0) / 16.0
    expected = float(exact_block_err(labels, 4, first, visible))
    value = stopping_row_stops(go_on, np.array([0]), np.array([size]), np.array([first]), np.array([visible]))[0]
    assert value == pytest.approx(expected, rel=1e-12, abs=1e-300)


def test_many_large_blocks_at_once_equal_the_direct_route():
    from sklearn_rankmetrics.metrics._tie_expectations import small_block_stops, stopping_row_stops

    rng = np.random.default_rng(11)
    sizes = rng.integers(50, 400, 40)
    starts = np.cumsum(sizes) - sizes
    labels = rng.choice(5, sizes.sum(), p=[0.8, 0.1, 0.05, 0.03, 0.02])
    labels[starts[3] : starts[3] + sizes[3]] = 0  # a block that cannot stop the user
    go_on = 1.0 - (2.0**labels - 1.0) / 16.0
    first = rng.integers(0, 30, 40)
    visible = np.minimum(sizes, rng.integers(1, 500, 40))
    np.testing.assert_allclose(
        stopping_row_stops(go_on, starts, sizes, first, visible),
        small_block_stops(go_on, starts, sizes, first, visible),
        rtol=1e-12,
        atol=1e-300,
    )


@pytest.mark.parametrize("zero_share", [0.0, 0.5, 0.99])
def test_err_with_one_large_tie_block_equals_the_quadratic_route(zero_share):
    from sklearn_rankmetrics import expected_reciprocal_rank_score
    from sklearn_rankmetrics.metrics._tie_expectations import small_block_stops

    rng = np.random.default_rng(7)
    labels = rng.choice(5, 3000, p=[zero_share] + [(1 - zero_share) / 4] * 4).astype(float)
    labels[0] = 4.0  # the top grade: ERR's scale is the largest label
    scores = np.concatenate([[2.0, 2.0], np.ones(2998)])  # a block of 2 above a block of 2998
    go_on = 1.0 - (2.0 ** labels[2:] - 1.0) / 16.0
    block = small_block_stops(go_on, np.array([0]), np.array([2998]), np.array([2]), np.array([2998]))[0]
    top = (2.0 ** labels[:2] - 1.0) / 16.0
    value = expected_reciprocal_rank_score(labels, scores)
    # The two top rows, averaged over their two orders, then the large block reached with both gone on.
    top_block = sum(top[i] + (1 - top[i]) * top[1 - i] / 2 for i in range(2)) / 2
    assert value == pytest.approx(top_block + (1 - top[0]) * (1 - top[1]) * block, rel=1e-12)


EVERY_MULTISET = [[0, 40, 0, 25], [1, 3, 70, 1], [0, 0, 0, 9], [30, 100, 80, 120]]
DOMINATED = [[0, 40, 0, 25], [1, 3, 70, 1], [0, 0, 0, 300], [3, 5, 2, 200]]  # the most frequent >= depth


@pytest.mark.parametrize(
    ("route", "multiplicities"),
    [
        ("symmetric_means_of_multisets", EVERY_MULTISET),
        ("symmetric_means_of_polynomials", EVERY_MULTISET),
        ("symmetric_means_of_dominated", DOMINATED),
    ],
)
def test_symmetric_means_of_multisets_equal_exact_rationals(route, multiplicities):
    from sklearn_rankmetrics.metrics import _tie_expectations

    distinct = np.array([0.0625, 0.5, 0.8125, 0.9375])
    multiplicities = np.array(multiplicities)
    depth = 30
    means = getattr(_tie_expectations, route)(multiplicities, distinct, depth)
    for row, counts in zip(means, multiplicities, strict=True):
        values = np.repeat(distinct, counts)
        polynomial = [Fraction(1)]  # prod (1 + v z), exactly
        for v in values:
            polynomial = [a + Fraction(v) * b for a, b in zip([*polynomial, 0], [0, *polynomial], strict=True)]
        exact = [float(polynomial[j] / comb(len(values), j)) if j <= len(values) else 0.0 for j in range(depth + 1)]
        np.testing.assert_allclose(row, exact, rtol=1e-13, atol=0)


def assert_law_is_exact(values, law, exact_probability, rtol=1e-13):
    """The law at its first and last kept values and at 30 between, against the exact rational probability."""
    rng = np.random.default_rng(0)
    for i in {0, len(law) - 1, *rng.integers(0, len(law), 30).tolist()}:
        exact = float(exact_probability(int(values[i])))
        assert law[i] == pytest.approx(exact, rel=rtol, abs=1e-300)


@pytest.mark.parametrize(
    ("population", "marked", "draws"),
    [(10, 3, 4), (200, 199, 100), (5000, 2500, 2500), (10**6, 5 * 10**5, 4000), (10**5, 30, 10**4), (7, 7, 7)],
)
def test_hypergeometric_laws_equal_exact_rationals_and_scipy(population, marked, draws):
    from scipy.stats import hypergeom

    from sklearn_rankmetrics.metrics._tie_expectations import NEGLIGIBLE_MASS, hypergeometric_laws

    [(_, count, law)] = hypergeometric_laws(np.array([population]), np.array([marked]), np.array([draws]))
    total = comb(population, draws)
    assert_law_is_exact(
        count[0], law[0], lambda x: Fraction(comb(marked, x) * comb(population - marked, draws - x), total)
    )
    # scipy agrees as far as its own accuracy goes (about 1e-10 relative on a million rows), and the
    # support was narrowed only where the law is negligible.
    expected = hypergeom(population, marked, draws).pmf(count[0])
    np.testing.assert_allclose(law[0], expected, rtol=1e-9, atol=1e-250)
    assert 1.0 - expected.sum() < 2 * NEGLIGIBLE_MASS + 1e-9


@pytest.mark.parametrize(("size", "n1", "j"), [(10, 4, 1), (10, 4, 4), (3000, 1500, 700), (10**5, 40, 20), (500, 1, 1)])
def test_place_laws_equal_the_negative_hypergeometric_law(size, n1, j):
    from scipy.stats import nhypergeom

    from sklearn_rankmetrics.metrics._tie_expectations import place_laws

    [(_, place, law)] = place_laws(np.array([size]), np.array([n1]), np.array([j]))
    total = comb(size, n1)
    assert_law_is_exact(place[0], law[0], lambda p: Fraction(comb(p - 1, j - 1) * comb(size - p, n1 - j), total))
    # The J-th marked row's place is J plus the unmarked rows drawn before it.
    expected = nhypergeom(size, size - n1, j).pmf(place[0] - j)
    np.testing.assert_allclose(law[0], expected, rtol=1e-9, atol=1e-250)


def exact_reciprocal_places(size, n1, first, visible, depth):
    """E[1 / (first + P_J); P_J <= visible] for J = 1 .. depth, in rationals."""
    total = comb(size, n1)
    return [
        sum(Fraction(comb(p - 1, j - 1) * comb(size - p, n1 - j), total * (first + p)) for p in range(j, visible + 1))
        for j in range(1, depth + 1)
    ]


def test_reciprocal_places_equal_exact_rationals_forward_and_backward():
    from sklearn_rankmetrics.metrics._tie_expectations import expected_reciprocal_places

    rng = np.random.default_rng(3)
    cases = [(300, 290, 0, 300), (300, 10, 10**6, 300), (400, 200, 50, 30), (250, 60, 7, 249), (50, 50, 3, 50)]
    cases += [(int(m), int(rng.integers(1, m + 1)), int(rng.choice([0, 5, 500, 10**5])), int(rng.integers(1, m + 1)))
              for m in rng.integers(2, 300, 25)]  # fmt: skip
    sizes, n1, first, visible = (np.array(column) for column in zip(*cases, strict=True))
    depth = np.minimum(n1, visible)
    places = expected_reciprocal_places(sizes, n1, first, visible, depth)
    for b, case in enumerate(cases):
        exact = [float(value) for value in exact_reciprocal_places(*case, depth[b])]
        # Each u_J to 1e-12 of the largest, u_1 (the recurrence's errors are absolute ones).
        np.testing.assert_allclose(places[b, 1 : depth[b] + 1], exact, rtol=1e-12, atol=1e-13 * exact[0])


@settings(max_examples=25)
@given(
    sizes=st.lists(st.integers(65, 260), min_size=1, max_size=6),
    shares=st.lists(st.floats(0.0, 1.0), min_size=5, max_size=5),
    first=st.lists(st.sampled_from([0, 1, 7, 100, 10**6]), min_size=6, max_size=6),
    cut=st.lists(st.floats(0.0, 1.0), min_size=6, max_size=6),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_stopping_row_route_equals_the_direct_route(sizes, shares, first, cut, seed):
    # Blocks of any mix of labels, offsets and cutoffs: the route of large blocks (laws, recurrences,
    # polynomials or merges) against the direct quadratic recurrence over all rows.
    from sklearn_rankmetrics.metrics._tie_expectations import small_block_stops, stopping_row_stops

    sizes = np.array(sizes)
    starts = np.cumsum(sizes) - sizes
    probabilities = np.array(shares) + 1e-3
    labels = np.random.default_rng(seed).choice(5, sizes.sum(), p=probabilities / probabilities.sum())
    go_on = 1.0 - (2.0**labels - 1.0) / 16.0
    first = np.array(first[: len(sizes)])
    visible = np.maximum(1, np.ceil(np.array(cut[: len(sizes)]) * sizes)).astype(np.int64)
    np.testing.assert_allclose(
        stopping_row_stops(go_on, starts, sizes, first, visible),
        small_block_stops(go_on, starts, sizes, first, visible),
        rtol=1e-11,
        atol=1e-300,
    )


@pytest.mark.parametrize("k", [None, 1, 50, 700])
def test_err_through_the_large_block_route_equals_the_direct_route_end_to_end(k, monkeypatch):
    # Whole queries: several tie blocks each, tie-free rows between them, documents not retrieved (-inf),
    # shuffled rows, labels up to 4. With the direct route forced for every block, the values agree.
    from sklearn_rankmetrics import expected_reciprocal_rank_score
    from sklearn_rankmetrics.metrics import _tie_expectations

    rng = np.random.default_rng(k or 0)
    qid = rng.permutation(np.repeat(np.arange(12), rng.integers(100, 900, 12)))
    labels = rng.choice(5, len(qid), p=[0.6, 0.2, 0.1, 0.06, 0.04]).astype(float)
    scores = np.where(rng.random(len(qid)) < 0.6, rng.choice([0.0, 1.0, 2.0], len(qid)), rng.random(len(qid)))
    scores[rng.random(len(qid)) < 0.05] = -np.inf
    large_route = expected_reciprocal_rank_score(labels, scores, qid=qid, k=k, average=False)
    monkeypatch.setattr(_tie_expectations, "SMALL_BLOCK", np.inf)
    direct = expected_reciprocal_rank_score(labels, scores, qid=qid, k=k, average=False)
    np.testing.assert_allclose(large_route, direct, rtol=1e-11, atol=1e-300)
