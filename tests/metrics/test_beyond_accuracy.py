"""Recommender metrics beyond accuracy, each against a user-by-user loop that enumerates every ordering of the ties.

The oracles follow the formulas of the libraries that define the metrics, written out here (RecBole 1.2's
``GiniIndex``, ``ShannonEntropy`` and ``AveragePopularity``; Elliot's ``Popularity`` short head and ``APLT``;
Diaz et al. 2020's expected exposure), since those libraries need their own data pipelines to run.
"""

import itertools
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import pairwise_distances

from sklearn_rankmetrics import (
    average_popularity_score,
    catalog_coverage,
    expected_exposure_loss,
    gini_index,
    intra_list_diversity_score,
    long_tail_share_score,
    novelty_score,
    serendipity_score,
    shannon_entropy,
    user_coverage,
)


def tied_scores(seed, n_users=7, n_items=6, levels=3, seen=0.2):
    """Integer scores with many ties, -inf for items already seen, and a user with nothing to recommend."""
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, levels, (n_users, n_items)).astype(float)
    scores[rng.random(scores.shape) < seen] = -np.inf
    scores[0] = -np.inf
    return scores


def top_k_sets(row, k):
    """Every top k of a row of scores over the orderings of its ties, each as likely as the others.

    The items above the tie block that straddles rank k are always shown; any v of its m items fill its
    v places with equal chance, which a uniform choice of a v-subset reproduces.
    """
    shown = [item for item in np.argsort(-row, kind="stable") if row[item] > -np.inf]
    if len(shown) <= k:
        return [set(shown)]
    kth = row[shown[k - 1]]
    above = {item for item in shown if row[item] > kth}
    block = [item for item in shown if row[item] == kth]
    return [above | set(chosen) for chosen in itertools.combinations(block, k - len(above))]


def stable_top_k(row, k):
    shown = [item for item in np.argsort(-row, kind="stable") if row[item] > -np.inf]
    return [set(shown[:k])]


def lists_of(scores, k, ties):
    return [top_k_sets(row, k) if ties == "average" else stable_top_k(row, k) for row in scores]


def naive_per_user(scores, k, ties, value):
    """Each user's mean over its possible top k of ``value(list)`` (nan for an empty list)."""
    out = []
    for lists in lists_of(scores, k, ties):
        values = [value(sorted(top)) for top in lists if top]
        out.append(np.mean(values) if values and all(v is not None for v in values) else np.nan)
    return np.array(out)


def expected_counts(scores, k, ties):
    counts = np.zeros(scores.shape[1])
    for lists in lists_of(scores, k, ties):
        for top in lists:
            for item in top:
                counts[item] += 1 / len(lists)
    return counts


def recbole_gini(counts):
    """RecBole's GiniIndex on the items' counts: sum (2 idx - n - 1) sorted_count / total / n."""
    n_items = len(counts)
    recommended = np.sort(counts[counts > 0])
    idx = np.arange(n_items - len(recommended) + 1, n_items + 1)
    return float(np.sum((2 * idx - n_items - 1) * recommended) / counts.sum() / n_items)


def recbole_entropy(counts):
    """RecBole's ShannonEntropy: -sum p ln p over the recommended items, p = count / total."""
    shares = counts[counts > 0] / counts.sum()
    return float(-np.sum(shares * np.log(shares)))


KS = [1, 2, 3, 6, 9]


@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("ties", ["average", "stable"])
@pytest.mark.parametrize("seed", range(4))
def test_gini_and_entropy_match_recbole_formulas_on_expected_counts(k, ties, seed):
    scores = tied_scores(seed)
    counts = expected_counts(scores, k, ties)
    assert gini_index(scores, k=k, ties=ties) == pytest.approx(recbole_gini(counts), rel=1e-12, abs=1e-15)
    assert shannon_entropy(scores, k=k, ties=ties) == pytest.approx(recbole_entropy(counts), rel=1e-12, abs=1e-15)


def test_gini_of_integer_lists_is_recboles_exactly():
    # Every user shows k items, ties play no part: the value RecBole's GiniIndex prints for these lists.
    scores = -np.argsort(np.random.default_rng(3).random((50, 20)), axis=1).astype(float)
    lists = np.argsort(-scores, axis=1)[:, :5]
    counts = np.bincount(lists.ravel(), minlength=20).astype(float)
    assert gini_index(scores, k=5) == pytest.approx(recbole_gini(counts), rel=1e-14)
    assert gini_index(np.zeros((3, 4)) + np.arange(4), k=4) == 0.0  # every item in every list


@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("ties", ["average", "stable"])
@pytest.mark.parametrize("seed", range(4))
def test_list_means_match_a_naive_loop(k, ties, seed):
    scores = tied_scores(seed)
    popularity = np.array([0.5, 0.25, 1.0, 0.125, 0.75, 0.05])
    counts = np.array([120, 40, 300, 10, 60, 3])
    tail = np.array([False, True, False, True, False, True])
    cases = [
        (novelty_score, {"item_popularity": popularity}, lambda top: np.mean(-np.log2(popularity[top]))),
        (average_popularity_score, {"item_popularity": counts}, lambda top: np.mean(counts[top])),
        (long_tail_share_score, {"long_tail": tail}, lambda top: np.mean(tail[top])),
    ]
    for metric, options, value in cases:
        expected = naive_per_user(scores, k, ties, value)
        ours = metric(scores, k=k, ties=ties, average=False, **options)
        np.testing.assert_allclose(ours, expected, rtol=1e-12, err_msg=metric.__name__)
        with pytest.warns(UndefinedMetricWarning, match="1 of 7 users are undefined"):
            mean = metric(scores, k=k, ties=ties, **options)
        assert mean == pytest.approx(np.nanmean(expected), rel=1e-12)


@pytest.mark.parametrize("metric_name", ["cosine", "euclidean", "manhattan", "jaccard"])
@pytest.mark.parametrize("k", [2, 3, 4, 6])
@pytest.mark.parametrize("ties", ["average", "stable"])
def test_intra_list_diversity_matches_sklearn_on_every_list(metric_name, k, ties):
    scores = tied_scores(k, n_users=6, n_items=7)
    rng = np.random.default_rng(k)
    features = rng.integers(0, 2, (7, 5)).astype(bool if metric_name == "jaccard" else float)
    features[0] = features[1]  # two items alike: a distance of 0

    def ild(top):
        if len(top) < 2:
            return None
        distances = pairwise_distances(features[top], metric=metric_name)
        return distances[np.triu_indices(len(top), 1)].mean()

    expected = naive_per_user(scores, k, ties, ild)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        ours = intra_list_diversity_score(
            scores, item_features=features, metric=metric_name, k=k, ties=ties, average=False
        )
    np.testing.assert_allclose(ours, expected, rtol=1e-9, atol=1e-12)


def test_intra_list_diversity_with_a_precomputed_matrix_sparse_features_and_a_mapping():
    scores = tied_scores(5, n_users=5, n_items=6)
    features = np.random.default_rng(0).random((6, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        expected = intra_list_diversity_score(scores, item_features=features, k=3, average=False)
        precomputed = pairwise_distances(features, metric="cosine")
        ours = intra_list_diversity_score(scores, item_features=precomputed, metric="precomputed", k=3, average=False)
        np.testing.assert_allclose(ours, expected, rtol=1e-12)
        sparse_rows = intra_list_diversity_score(scores, item_features=sp.csr_array(features), k=3, average=False)
        np.testing.assert_allclose(sparse_rows, expected, rtol=1e-12)
        mapping = {item: features[item] for item in range(6)}
        np.testing.assert_allclose(
            intra_list_diversity_score(scores, item_features=mapping, k=3, average=False), expected, rtol=1e-12
        )


@pytest.mark.parametrize("k", [1, 2, 4])
@pytest.mark.parametrize("ties", ["average", "stable"])
@pytest.mark.parametrize("seed", range(3))
def test_serendipity_matches_a_naive_loop_over_both_rankings(k, ties, seed):
    scores = tied_scores(seed)
    baseline = tied_scores(seed + 10)
    baseline[0] = 1.0
    y_true = (np.random.default_rng(seed).random(scores.shape) < 0.5).astype(float)
    expected = []
    for row, base, labels in zip(lists_of(scores, k, ties), lists_of(baseline, k, ties), y_true, strict=True):
        values = [
            len([item for item in top if item not in usual and labels[item] >= 1]) / len(top)
            for top in row
            for usual in base
            if top
        ]
        expected.append(np.mean(values) if values else np.nan)
    ours = serendipity_score(scores, y_true=y_true, baseline_score=baseline, k=k, ties=ties, average=False)
    np.testing.assert_allclose(ours, expected, rtol=1e-12)
    sparse_labels = serendipity_score(
        scores, y_true=sp.csr_array(y_true), baseline_score=baseline, k=k, ties=ties, average=False
    )
    np.testing.assert_allclose(sparse_labels, expected, rtol=1e-12)


@pytest.mark.parametrize("k", [1, 2, 4, 6])
@pytest.mark.parametrize("grouped", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_expected_exposure_matches_enumeration(k, grouped, seed):
    scores = tied_scores(seed, n_users=5, n_items=6)
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 3, scores.shape).astype(float)
    groups = np.array([0, 1, 1, 2, 0, 1]) if grouped else np.arange(6)
    expected = naive_expected_exposure_average(scores, y_true, k, 0.5, groups)
    options = {"item_groups": groups} if grouped else {}
    for column, component in enumerate(["loss", "disparity", "relevance"]):
        ours = expected_exposure_loss(scores, y_true=y_true, k=k, component=component, average=False, **options)
        np.testing.assert_allclose(ours, expected[:, column], rtol=1e-10, atol=1e-14, err_msg=component)
    sparse_scores = expected_exposure_loss(
        sp.csr_array(np.where(scores > -np.inf, scores + 1, 0)), y_true=y_true, k=k, average=False, **options
    )
    np.testing.assert_allclose(sparse_scores, expected[:, 0], rtol=1e-10, atol=1e-14)


def naive_expected_exposure_average(scores, y_true, k, patience, groups):
    """EE per user, ties of both the system and the ideal ranking averaged by enumeration."""
    out = []
    for row, labels in zip(scores, y_true, strict=True):
        shown = [item for item in range(len(row)) if row[item] > -np.inf]

        def mean_exposure(key, shown=shown):
            exposure = np.zeros(len(key))
            blocks = {}
            for item in shown:
                blocks.setdefault(key[item], []).append(item)
            per_block = [list(itertools.permutations(blocks[b])) for b in sorted(blocks, reverse=True)]
            combos = list(itertools.product(*per_block))
            for combo in combos:
                order = [item for block in combo for item in block]
                for place, item in enumerate(order[:k]):
                    exposure[item] += patience**place / len(combos)
            return exposure

        system, ideal = mean_exposure(row), mean_exposure(labels)
        eps, target = np.zeros(groups.max() + 1), np.zeros(groups.max() + 1)
        np.add.at(eps, groups, system)
        np.add.at(target, groups, ideal)
        out.append((np.sum((eps - target) ** 2), np.sum(eps**2), np.dot(eps, target)))
    return np.array(out)


def test_user_coverage_counts_users_with_a_list():
    scores = tied_scores(1)
    lengths = np.minimum((scores > -np.inf).sum(axis=1), 3)
    np.testing.assert_array_equal(user_coverage(scores, k=3, average=False), (lengths >= 1).astype(float))
    assert user_coverage(scores, k=3, min_items=3) == pytest.approx(np.mean(lengths >= 3))
    with pytest.raises(ValueError, match="min_items must be at most k"):
        user_coverage(scores, k=3, min_items=4)


def pairs_of(scores):
    """The (user, item) pairs of a matrix, shuffled, with string ids."""
    n_users, n_items = scores.shape
    rows = np.random.default_rng(0).permutation(n_users * n_items)
    users, items = np.repeat(np.arange(n_users), n_items)[rows], np.tile(np.arange(n_items), n_users)[rows]
    return users, items, rows


@pytest.mark.parametrize("k", [1, 3, 7])
def test_the_pairs_layout_equals_the_matrix(k):
    scores = tied_scores(k, n_users=6, n_items=7)
    users, items, rows = pairs_of(scores)
    pair_scores = scores.ravel()[rows]
    popularity = np.linspace(0.1, 1, 7)
    features = np.random.default_rng(1).random((7, 4))
    y_true = (np.random.default_rng(2).random(scores.shape) < 0.4).astype(float)
    baseline = tied_scores(k + 1, n_users=6, n_items=7)
    string_items = np.array([f"item{item}" for item in items])
    calls = [
        (novelty_score, {"item_popularity": popularity}, {"item_popularity": dict(enumerate(popularity))}),
        (average_popularity_score, {"item_popularity": popularity}, {"item_popularity": popularity}),
        (long_tail_share_score, {"item_popularity": popularity * 10}, {"item_popularity": popularity * 10}),
        (intra_list_diversity_score, {"item_features": features}, {"item_features": features}),
        (
            serendipity_score,
            {"y_true": y_true, "baseline_score": baseline},
            {"y_true": y_true.ravel()[rows], "baseline_score": baseline.ravel()[rows]},
        ),
        (expected_exposure_loss, {"y_true": y_true}, {"y_true": y_true.ravel()[rows]}),
        (user_coverage, {}, {}),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        for metric, matrix_options, pair_options in calls:
            expected = metric(scores, k=k, average=False, **matrix_options)
            ours = metric(pair_scores, item_id=items, qid=users, k=k, average=False, **pair_options)
            np.testing.assert_allclose(ours, expected, rtol=1e-12, err_msg=metric.__name__)
        for metric in (gini_index, shannon_entropy, catalog_coverage):
            expected = metric(y_score=scores, k=k)
            assert metric(item_id=items, y_score=pair_scores, qid=users, k=k) == pytest.approx(expected, rel=1e-12)
        # String ids with a mapping of per-item values, and a catalogue with an item no user was scored on.
        mapping = {f"item{item}": value for item, value in enumerate(popularity)}
        expected = novelty_score(scores, item_popularity=popularity, k=k, average=False)
        ours = novelty_score(pair_scores, item_id=string_items, qid=users, k=k, item_popularity=mapping, average=False)
        np.testing.assert_allclose(ours, expected, rtol=1e-12)
    wider = np.column_stack((scores, np.full(6, -np.inf)))
    catalog = [f"item{item}" for item in range(8)]
    assert gini_index(pair_scores, item_id=string_items, qid=users, k=k, catalog=catalog) == pytest.approx(
        gini_index(wider, k=k), rel=1e-12
    )


@pytest.mark.parametrize("form", [sp.csr_array, sp.coo_matrix, sp.csc_array])
def test_a_sparse_score_matrix_shows_only_its_stored_entries(form):
    scores = tied_scores(4, n_users=6, n_items=7)
    stored = np.where(scores > -np.inf, scores, 0.0)
    matrix = form(np.where(scores > -np.inf, scores + 1.0, 0.0))  # explicit entries; -inf users store nothing
    dense = np.where(scores > -np.inf, scores + 1.0, -np.inf)
    del stored
    popularity = np.linspace(0.1, 1, 7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        np.testing.assert_allclose(
            novelty_score(matrix, item_popularity=popularity, k=3, average=False),
            novelty_score(dense, item_popularity=popularity, k=3, average=False),
            rtol=1e-12,
        )
    assert gini_index(matrix, k=3) == pytest.approx(gini_index(dense, k=3), rel=1e-12)
    # An explicit zero is a candidate scored 0.
    explicit = sp.csr_array((np.array([0.0, 0.0]), (np.array([0, 0]), np.array([1, 2]))), shape=(1, 4))
    assert shannon_entropy(explicit, k=2) == pytest.approx(np.log(2))


@settings(max_examples=25, deadline=None)
@given(
    st.integers(1, 4),
    st.integers(1, 6),
    st.integers(1, 7),
    st.integers(0, 2**31 - 1),
)
def test_property_novelty_and_gini_match_the_naive_loop(n_users, n_items, k, seed):
    scores = tied_scores(seed, n_users=n_users, n_items=n_items, levels=2, seen=0.3)
    popularity = np.random.default_rng(seed).uniform(0.01, 1, n_items)
    expected = naive_per_user(scores, k, "average", lambda top: np.mean(-np.log2(popularity[top])))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        ours = novelty_score(scores, item_popularity=popularity, k=k, average=False)
        np.testing.assert_allclose(ours, expected, rtol=1e-12)
        counts = expected_counts(scores, k, "average")
        gini = gini_index(scores, k=k)
    assert (np.isnan(gini) and counts.sum() == 0) or gini == pytest.approx(recbole_gini(counts), rel=1e-12, abs=1e-15)


def test_elliot_short_head_holds_the_given_share_of_interactions():
    # Sorted by popularity: 50 + 30 = 80 of 100 interactions reach head_share=0.8; the rest is the long tail.
    popularity = np.array([10, 50, 5, 30, 5])
    scores = np.array([[5.0, 4, 3, 2, 1]])
    ours = long_tail_share_score(scores, item_popularity=popularity, k=5)
    assert ours == pytest.approx(3 / 5)  # items 0, 2 and 4
    assert long_tail_share_score(scores, item_popularity=popularity, k=5, head_share=0.5) == pytest.approx(4 / 5)


class TestHostileInputs:
    def test_every_score_minus_inf(self):
        scores = np.full((3, 4), -np.inf)
        with pytest.warns(UndefinedMetricWarning, match="No user shows any item"):
            assert np.isnan(gini_index(scores))
        with pytest.warns(UndefinedMetricWarning, match="Every user is undefined"):
            assert np.isnan(novelty_score(scores, item_popularity=np.ones(4)))
        assert user_coverage(scores) == 0.0
        assert expected_exposure_loss(scores, y_true=np.ones((3, 4))) == 0.0
        np.testing.assert_array_equal(
            novelty_score(scores, item_popularity=np.ones(4), average=False, zero_division=0.0), np.zeros(3)
        )

    def test_k_beyond_the_catalogue_shows_every_item(self):
        scores = np.array([[3.0, 1, 2], [1, 1, 1]])
        assert gini_index(scores, k=50) == gini_index(scores, k=3) == 0.0
        np.testing.assert_allclose(
            average_popularity_score(scores, item_popularity=[1, 2, 3], k=50, average=False), [2.0, 2.0]
        )

    def test_nan_scores_and_bad_per_item_inputs_are_errors(self):
        with pytest.raises(ValueError, match="y_score contains NaN"):
            gini_index([[1.0, np.nan]])
        with pytest.raises(ValueError, match=r"item_popularity must be the share in \(0, 1\]"):
            novelty_score([[1.0, 2.0]], item_popularity=[0.5, 0.0], k=2)
        with pytest.raises(ValueError, match="item_popularity has 3 values, but y_score has 2 items"):
            novelty_score([[1.0, 2.0]], item_popularity=[0.5, 0.2, 0.1])
        with pytest.raises(ValueError, match="item_popularity has no value for item 1, which some user's top k"):
            novelty_score([[1.0, 2.0]], item_popularity={0: 0.5})
        # A missing item that no top k shows needs no value.
        assert novelty_score([[1.0, 2.0, -np.inf]], item_popularity={0: 0.5, 1: 0.25}, k=5) == pytest.approx(1.5)
        with pytest.raises(ValueError, match="item ids must be integers"):
            novelty_score([1.0, 2.0], item_id=["a", "b"], item_popularity=[0.5, 0.5])
        with pytest.raises(ValueError, match="k must be an integer >= 1; got 0"):
            gini_index([[1.0]], k=0)
        with pytest.raises(ValueError, match="needs item_popularity or long_tail"):
            long_tail_share_score([[1.0]])
        with pytest.raises(ValueError, match="inconsistent numbers of rows"):
            gini_index([1.0, 2.0], item_id=[0, 1, 2])
        with pytest.raises(ValueError, match="y_true must have the shape of y_score"):
            serendipity_score([[1.0, 2.0]], y_true=[[1.0]], baseline_score=[[1.0, 2.0]])

    def test_odd_dtypes_and_inputs_left_unchanged(self):
        scores = np.array([[3, 1, 2], [1, 2, 3]], dtype=np.int8)
        copy = scores.copy()
        assert gini_index(scores, k=1) == gini_index(scores.astype(float), k=1)
        assert gini_index(scores.astype(bool), k=1) == gini_index(scores.astype(bool).astype(float), k=1)
        np.testing.assert_array_equal(scores, copy)
        assert novelty_score(np.float32([[2, 1]]), item_popularity=np.float32([0.5, 0.25]), k=1) == 1.0
