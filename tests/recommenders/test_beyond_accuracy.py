"""Recommender metrics beyond accuracy, each against a user-by-user loop that enumerates every ordering of the ties.

The oracles follow the formulas of the libraries that define the metrics, written out here (RecBole 1.2's
``GiniIndex``, ``AveragePopularity`` and ``ShannonEntropy``'s ``get_entropy``, which our textbook entropy is not;
Elliot's ``Popularity`` short head and ``APLT``; Diaz et al. 2020's expected exposure), since those libraries need
their own data pipelines to run.
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


def textbook_entropy(counts):
    """Shannon's entropy of the items' shares of all places: -sum p ln p, p = count / total."""
    shares = counts[counts > 0] / counts.sum()
    return float(-np.sum(shares * np.log(shares)))


def recbole_get_entropy(item_matrix):
    """RecBole 1.2's ShannonEntropy.get_entropy on a users x k matrix of recommended items, written out."""
    counts = {}
    for item in item_matrix.ravel().tolist():
        counts[item] = counts.get(item, 0) + 1
    total = item_matrix.size
    return sum(-count / total * np.log(count / total) for count in counts.values()) / len(counts)


KS = [1, 2, 3, 6, 9]


@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("ties", ["average", "stable"])
@pytest.mark.parametrize("seed", range(4))
def test_gini_and_entropy_match_their_formulas_on_expected_counts(k, ties, seed):
    scores = tied_scores(seed)
    counts = expected_counts(scores, k, ties)
    assert gini_index(scores, k=k, ties=ties) == pytest.approx(recbole_gini(counts), rel=1e-12, abs=1e-15)
    assert shannon_entropy(scores, k=k, ties=ties) == pytest.approx(textbook_entropy(counts), rel=1e-12, abs=1e-15)


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
        pandas = pytest.importorskip("pandas")  # a DataFrame is a table of rows, not a mapping of its columns
        frame = intra_list_diversity_score(scores, item_features=pandas.DataFrame(features), k=3, average=False)
        np.testing.assert_allclose(frame, expected, rtol=1e-12)


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
        with pytest.warns(UndefinedMetricWarning, match="1 of 5 users are undefined"):
            mean = expected_exposure_loss(scores, y_true=y_true, k=k, component=component, **options)
        assert mean == pytest.approx(np.nanmean(expected[:, column]), rel=1e-10, abs=1e-14)
        ours = expected_exposure_loss(scores, y_true=y_true, k=k, component=component, average=False, **options)
        np.testing.assert_allclose(ours, expected[:, column], rtol=1e-10, atol=1e-14, err_msg=component)
    sparse_scores = expected_exposure_loss(
        sp.csr_array(np.where(scores > -np.inf, scores + 1, 0)), y_true=y_true, k=k, average=False, **options
    )
    np.testing.assert_allclose(sparse_scores, expected[:, 0], rtol=1e-10, atol=1e-14)


def naive_expected_exposure_average(scores, y_true, k, patience, groups):
    """EE per user, ties of both the system and the ideal ranking averaged by enumeration (nan: nothing to rank)."""
    out = []
    for row, labels in zip(scores, y_true, strict=True):
        shown = [item for item in range(len(row)) if row[item] > -np.inf]
        if not shown:
            out.append((np.nan, np.nan, np.nan))
            continue

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
        with pytest.warns(UndefinedMetricWarning, match="nothing to recommend"):
            assert np.isnan(expected_exposure_loss(scores, y_true=np.ones((3, 4))))
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
        with pytest.raises(ValueError, match=r"item_id holds 'a', not an integer 0..1"):
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


# Issue #30, second round: each test below failed before its fix.


def test_the_short_head_comes_from_every_item_of_item_popularity_in_both_layouts():
    # Item 0 alone is the short head (80% of the interactions); the pairs leave it out (seen, -inf).
    popularity = np.array([80.0, 10, 6, 4])
    scores = np.array([[-np.inf, 3.0, 2.0, 1.0]])
    matrix = long_tail_share_score(scores, item_popularity=popularity, k=2)
    assert matrix == 1.0  # items 1 and 2, both in the long tail
    pairs = {"item_id": np.array([1, 2, 3]), "qid": np.zeros(3)}
    assert long_tail_share_score(np.array([3.0, 2, 1]), item_popularity=popularity, k=2, **pairs) == matrix
    mapping = dict(enumerate(popularity))
    assert long_tail_share_score(np.array([3.0, 2, 1]), item_popularity=mapping, k=2, **pairs) == matrix
    # Every item's count is needed, shown or not: the head depends on all of them.
    with pytest.raises(ValueError, match="short head is found among all of them; got nan for item 3"):
        long_tail_share_score(scores, item_popularity=[80.0, 10, 6, np.nan], k=1)


def test_shannon_entropy_is_the_textbook_entropy_and_recboles_divides_it_by_the_items_shown():
    rng = np.random.default_rng(0)
    scores = rng.random((30, 12))
    k = 4
    lists = np.argsort(-scores, axis=1)[:, :k]
    counts = np.bincount(lists.ravel(), minlength=12).astype(float)
    ours = shannon_entropy(scores, k=k)
    assert ours == pytest.approx(textbook_entropy(counts), rel=1e-14)
    n_shown = catalog_coverage(y_score=scores, k=k, ties="stable") * 12
    assert ours / n_shown == pytest.approx(recbole_get_entropy(lists), rel=1e-12)
    assert ours != pytest.approx(recbole_get_entropy(lists))  # not RecBole's value


def test_duplicate_sparse_entries_are_summed_as_scipy_defines_them():
    # Item 1 stored twice in the scores (1 + 1 = 2), item 0 twice in the labels (0.5 + 0.5 = 1).
    scores = sp.coo_array((np.array([3.0, 1.0, 1.0, 0.5]), (np.zeros(4, int), np.array([0, 1, 1, 2]))), shape=(1, 4))
    canonical = sp.csr_array(np.array([[3.0, 2.0, 0.5, 0.0]]))
    canonical.eliminate_zeros()
    labels = sp.coo_array((np.array([0.5, 0.5]), (np.zeros(2, int), np.zeros(2, int))), shape=(1, 4))
    y_true = np.array([[1.0, 0, 0, 0]])
    before = (scores.data.copy(), scores.row.copy(), labels.data.copy())
    for k in (1, 2, 3):
        assert expected_exposure_loss(scores, y_true=y_true, k=k) == expected_exposure_loss(
            canonical, y_true=y_true, k=k
        )
        dense = np.array([[4.0, 3, 2, 1]])
        assert expected_exposure_loss(dense, y_true=labels, k=k) == expected_exposure_loss(dense, y_true=y_true, k=k)
        assert gini_index(scores, k=k) == gini_index(canonical, k=k)
    baseline = np.array([[1.0, 2, 3, 4]])
    assert serendipity_score(dense, y_true=labels, baseline_score=baseline, k=2) == serendipity_score(
        dense, y_true=y_true, baseline_score=baseline, k=2
    )
    for array, copy in zip((scores.data, scores.row, labels.data), before, strict=True):
        np.testing.assert_array_equal(array, copy)  # the inputs are left as they were


def test_serendipity_checks_baseline_score_against_y_score():
    scores, y_true = np.array([[0.9, 0.8, 0.1, 0.3], [0.2, -np.inf, 0.7, 0.5]]), np.ones((2, 4))
    for shape in [(3, 4), (1, 4), (2, 5), (2, 3)]:
        with pytest.raises(ValueError, match=rf"baseline_score must have the shape of y_score, \(2, 4\).*{shape}"):
            serendipity_score(scores, y_true=y_true, baseline_score=np.ones(shape), k=2)
    with pytest.raises(ValueError, match="baseline_score must have the shape"):
        serendipity_score(scores, y_true=y_true, baseline_score=sp.csr_array(np.ones((3, 4))), k=2)
    with pytest.raises(ValueError, match="baseline_score contains NaN"):
        serendipity_score(scores, y_true=y_true, baseline_score=[[np.nan, 1, 1, 1], [1, 1, 1, 1]], k=2)
    pairs = {"item_id": [0, 1, 2], "qid": [0, 0, 0], "k": 1}
    with pytest.raises(ValueError, match="item_id has 3, baseline_score has 5"):
        serendipity_score(np.array([3.0, 2, 1]), y_true=np.ones(3), baseline_score=np.ones(5), **pairs)
    for labels in (np.ones(5), np.ones(2), np.ones((1, 3))):
        with pytest.raises(ValueError, match=r"one label per .user, item. pair, 3 like item_id"):
            serendipity_score(np.array([3.0, 2, 1]), y_true=labels, baseline_score=np.ones(3), **pairs)


def test_expected_exposure_leaves_out_users_with_nothing_to_recommend():
    scores, y_true = np.array([[4.0, 3, 2, 1], [-np.inf] * 4]), np.array([[1.0, 1, 0, 0], [1, 0, 0, 0]])
    np.testing.assert_array_equal(expected_exposure_loss(scores, y_true=y_true, k=2, average=False), [0.125, np.nan])
    with pytest.warns(UndefinedMetricWarning, match="1 of 2 users are undefined .nothing to recommend"):
        assert expected_exposure_loss(scores, y_true=y_true, k=2) == 0.125  # user 0 alone, not (0.125 + 0) / 2
    assert expected_exposure_loss(scores, y_true=y_true, k=2, zero_division=0.0) == 0.0625
    sparse_scores = sp.csr_array(np.array([[4.0, 3, 2, 1], [0, 0, 0, 0]]))  # user 1 stores nothing
    sparse_scores.eliminate_zeros()
    values = expected_exposure_loss(sparse_scores, y_true=y_true, k=2, average=False)
    np.testing.assert_array_equal(values, [0.125, np.nan])


def test_long_tail_must_be_a_boolean_mask():
    scores = np.array([[0.9, 0.8, 0.1, 0.3], [0.2, -np.inf, 0.7, 0.5]])
    as_bool = long_tail_share_score(scores, long_tail=[False, True, True, True], k=2)
    assert long_tail_share_score(scores, long_tail=[0, 1, 1, 1], k=2) == as_bool  # 0/1 is a mask too
    assert long_tail_share_score(scores, long_tail={0: False, 1: True, 2: True, 3: True}, k=2) == as_bool
    with pytest.raises(ValueError, match=r"long_tail must be a boolean mask .True/False, or 0/1.; got the value 2"):
        long_tail_share_score(scores, long_tail=[0, 1, 2, 3], k=2)
    with pytest.raises(ValueError, match=r"long_tail must be a boolean mask.*'yes'"):
        long_tail_share_score(scores, long_tail=["yes", "no", "no", "no"], k=2)
    with pytest.raises(ValueError, match="long_tail must be a boolean mask"):
        long_tail_share_score(scores, long_tail={0: 0.5, 1: 1, 2: 1, 3: 1}, k=2)


def test_precomputed_distances_in_the_pairs_layout_are_checked():
    features = np.random.default_rng(0).normal(size=(5, 3))
    distances = pairwise_distances(features, metric="cosine")
    scores = np.array([[5.0, 4, 3, 2, 1], [1, 2, 3, 4, 5]])
    users, items = np.nonzero(np.ones((2, 5)))
    options = {"metric": "precomputed", "k": 3, "average": False}
    expected = intra_list_diversity_score(scores, item_features=features, k=3, average=False)
    pairs = {"item_id": items, "qid": users}
    np.testing.assert_allclose(
        intra_list_diversity_score(scores.ravel(), item_features=distances, **pairs, **options), expected, rtol=1e-12
    )
    subset = items > 0  # item 0 absent: rows and columns still indexed by item id
    ours = intra_list_diversity_score(
        scores.ravel()[subset], item_id=items[subset], qid=users[subset], item_features=distances, **options
    )
    reference = intra_list_diversity_score(
        scores.ravel()[subset], item_id=items[subset], qid=users[subset], item_features=features, k=3, average=False
    )
    np.testing.assert_allclose(ours, reference, rtol=1e-12)
    for bad in (np.hstack([distances, np.ones((5, 3))]), distances[:, :4]):
        with pytest.raises(ValueError, match=r"must be a square .n_items, n_items. distance matrix"):
            intra_list_diversity_score(scores.ravel(), item_features=bad, **pairs, **options)
    with pytest.raises(ValueError, match="item_id holds 4"):
        intra_list_diversity_score(scores.ravel(), item_features=distances[:4, :4], **pairs, **options)
    names = np.array(list("abcde"))[items]
    with pytest.raises(ValueError, match="a mapping's rows have no column order"):
        mapping = {name: distances[index] for index, name in enumerate("abcde")}
        intra_list_diversity_score(scores.ravel(), item_id=names, qid=users, item_features=mapping, **options)


def test_metrics_scaled_by_the_rows_they_are_given_are_refused():
    with pytest.raises(ValueError, match="metric='seuclidean' estimates its scale from the rows"):
        intra_list_diversity_score([[3.0, 2, 1]], item_features=np.eye(3), metric="seuclidean", k=3)


def test_a_fully_tied_row_is_one_block_and_its_pairs_come_in_bounded_chunks(monkeypatch):
    from sklearn_rankmetrics.recommenders import _list_diversity

    rng = np.random.default_rng(1)
    scores = np.zeros((4, 60))
    scores[1, :3] = 1.0  # three items above a tie block of 57 that straddles rank 10
    scores[2] = rng.integers(0, 3, 60)
    scores[3, ::2] = -np.inf
    features = rng.normal(size=(60, 4))
    expected = intra_list_diversity_score(scores, item_features=features, k=10, average=False)
    users, items, rows = pairs_of(scores)
    pairs = intra_list_diversity_score(scores.ravel()[rows], item_id=items, qid=users, item_features=features, k=10)
    assert np.mean(expected) == pytest.approx(pairs, rel=1e-12)
    # The pairs of a block: m (m - 1) / 2 of them, handled at most a budget at a time, to the same value.
    original = _list_diversity.list_pairs
    for budget, chunks in ((2**20, whole := []), (97, small := [])):
        monkeypatch.setattr(
            _list_diversity,
            "list_pairs",
            lambda exposure, budget=budget, chunks=chunks: (
                chunks.append(len(c[0])) or c for c in original(exposure, budget)
            ),
        )
        chunked = intra_list_diversity_score(scores, item_features=features, k=10, average=False)
        np.testing.assert_allclose(chunked, expected, rtol=1e-12)
    assert max(small) <= 97 < max(whole) and sum(small) == sum(whole)
    # Ties in the lowest block only: the same exposure as the pairs layout's full sort.
    for metric in (gini_index, shannon_entropy):
        assert metric(scores, k=10) == pytest.approx(metric(scores.ravel()[rows], item_id=items, qid=users, k=10))


def test_per_item_messages_name_the_bad_id_and_value():
    with pytest.raises(ValueError, match=r"item_popularity is an array with 4 values, .* but item_id holds 7"):
        novelty_score(np.ones(3), item_id=[0, 1, 7], qid=[0, 0, 0], item_popularity=[0.5, 0.25, 0.125, 0.0625])
    with pytest.raises(ValueError, match=r"got 0.0 for item 1, which a top k shows"):
        novelty_score([[1.0, 2.0]], item_popularity=[0.5, 0.0], k=1)
    with pytest.raises(ValueError, match="got inf for item 'b'"):
        average_popularity_score([1.0, 2.0], item_id=["a", "b"], item_popularity={"a": 1, "b": np.inf}, k=1)
    with pytest.raises(ValueError, match="has the key 7, but the items of a users x items matrix are its columns"):
        novelty_score([[1.0, 2.0]], item_popularity={0: 0.5, 1: 0.5, 7: 0.5})
    with pytest.raises(ValueError, match=r"item_groups is an array with 3 values, .* but item_id holds 7"):
        expected_exposure_loss(np.ones(3), item_id=[0, 1, 7], y_true=np.ones(3), item_groups=["a", "b", "a"])
    with pytest.raises(ValueError, match="item_groups has no group for item 'c'"):
        expected_exposure_loss(np.ones(3), item_id=["a", "b", "c"], y_true=np.ones(3), item_groups={"a": 1, "b": 2})


def test_a_user_item_pair_given_twice_is_refused():
    with pytest.raises(ValueError, match=r"user .qid. 0 and item 0 appear in rows 0 and 2: each .user, item. pair"):
        novelty_score(np.array([3.0, 2, 1]), item_id=[0, 1, 0], qid=[0, 0, 0], item_popularity=[0.5, 0.5], k=2)
    with pytest.raises(ValueError, match="item 'b' appear in rows 1 and 2"):
        gini_index(np.array([3.0, 2, -np.inf]), item_id=["a", "b", "b"], k=2)  # a -inf repeat too
    # The same item for two users is no repeat.
    assert gini_index(np.array([3.0, 2, 1, 0]), item_id=[0, 1, 0, 1], qid=[0, 0, 1, 1], k=1) == 0.5


def test_gini_of_equal_exposure_is_exactly_zero():
    scores = np.tile(np.arange(7.0), (3, 1))
    scores[1] = np.roll(scores[1], 3)
    scores[2] = np.roll(scores[2], 5)
    assert gini_index(scores, k=7) == 0.0
    assert gini_index(np.zeros((5, 13)), k=3) == 0.0  # every item shown with the same chance
