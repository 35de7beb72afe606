"""recommender_report: every value against the metric's own function, on many random cases.

The oracle of each value is the metric's public function called alone with the same inputs (each of them is
checked against its own independent references in test_beyond_accuracy.py, test_recommenders.py and
test_sampled.py). The metrics of the lists read the same top k as their functions: equal to the last bit. The
accuracy metrics rank only the rows their cutoffs can see, as a sparse y_true makes their functions do: equal up to
rounding (1e-12).
"""

import inspect
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rankmetrics as rm
from sklearn_rankmetrics import recommender_report
from sklearn_rankmetrics.recommenders import recommender_report as from_the_floor
from sklearn_rankmetrics.recommenders._report import LIST_METRICS
from sklearn_rankmetrics.registry._registry import BY_FUNCTION

LIST_FUNCTIONS = {BY_FUNCTION[function].canonical: function for function in LIST_METRICS}


def case(seed, n_users=9, n_items=8, levels=4, seen=0.2):
    """Integer scores with many ties, -inf items, a user with nothing to recommend and users without relevant items;
    graded labels (some on -inf items); the inputs of every metric of the lists."""
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, levels, (n_users, n_items)).astype(float)
    scores[rng.random(scores.shape) < seen] = -np.inf
    scores[0] = -np.inf
    labels = rng.integers(0, 3, (n_users, n_items)) * (rng.random((n_users, n_items)) < 0.3)
    labels[1] = 0
    inputs = {
        "item_popularity": rng.uniform(0.05, 1.0, n_items),  # shares: novelty, ARP and APLT all read them
        "item_features": rng.normal(size=(n_items, 3)),
        "baseline_score": rng.integers(0, levels, (n_users, n_items)).astype(float),
        "item_groups": rng.integers(0, 3, n_items),
    }
    return labels.astype(float), scores, inputs, rng.uniform(0.5, 2.0, n_users)


def own_value(name, y_true, y_score, *, k, ties, inputs, average, sample_weight=None, **layout):
    """The value of metric ``name`` from its own function, with the inputs that function takes."""
    if name in LIST_FUNCTIONS:
        function = LIST_FUNCTIONS[name]
        takes = inspect.signature(function).parameters
        given = {"y_true": y_true, **inputs, **layout, "k": k, "ties": ties, "average": average}
        if function is rm.long_tail_share_score and inputs.get("long_tail") is not None:
            given.pop("item_popularity")
        return function(y_score, **{key: value for key, value in given.items() if key in takes and value is not None})
    info = rm.metric_info(name)
    scores = y_score.toarray() if sp.issparse(y_score) else y_score
    if sp.issparse(y_score):  # the accuracy functions take dense scores: what is not stored is never shown
        scores = np.where(np.isin(np.arange(scores.size), flat_stored(y_score)).reshape(scores.shape), scores, -np.inf)
    options = {key: value for key, value in layout.items() if key == "qid"}
    return info.function(
        y_true, scores, ties=ties, average=average, sample_weight=sample_weight, **options, **info.settings
    )


def flat_stored(matrix):
    coo = sp.coo_array(matrix)
    return coo.row.astype(np.int64) * matrix.shape[1] + coo.col


def assert_equal_to_the_functions(report, y_true, y_score, *, k, ties, inputs, sample_weight=None, **layout):
    """Every value of the report equals its function's, mean and per user: the lists bitwise, accuracy to 1e-12."""
    assert report.k == k
    for name, value in report.items():
        expected = own_value(name, y_true, y_score, k=k, ties=ties, inputs=inputs, average=True,
                             sample_weight=sample_weight, **layout)  # fmt: skip
        if name in LIST_FUNCTIONS:
            assert value == expected or (np.isnan(value) and np.isnan(expected)), (name, value, expected)
        else:
            assert value == pytest.approx(expected, rel=1e-12, abs=1e-15, nan_ok=True), name
        if name in report.per_user:
            each = own_value(name, y_true, y_score, k=k, ties=ties, inputs=inputs, average=False, **layout)
            if name in LIST_FUNCTIONS:
                np.testing.assert_array_equal(report.per_user[name], each, err_msg=name)
            else:
                np.testing.assert_allclose(report.per_user[name], each, rtol=1e-12, atol=1e-15, err_msg=name)


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        warnings.simplefilter("ignore", UserWarning)
        return function(*args, **kwargs)


@pytest.mark.parametrize("k", [1, 3, 20])
@pytest.mark.parametrize("ties", ["average", "stable", "pessimistic"])
@pytest.mark.parametrize("labels_form", [np.asarray, sp.csr_array])
@pytest.mark.parametrize("seed", range(3))
def test_every_value_of_a_dense_matrix_is_its_functions(k, ties, labels_form, seed):
    y_true, y_score, inputs, weights = case(seed)
    report = quiet(recommender_report, labels_form(y_true), y_score, k=k, ties=ties, **inputs)
    assert list(report.left_out) == ["bpref"]
    assert len(report) == 12 + 10  # every accuracy metric with a cutoff, every metric of the lists
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        assert_equal_to_the_functions(report, labels_form(y_true), y_score, k=k, ties=ties, inputs=inputs)
    weighted = quiet(recommender_report, y_true, y_score, k=k, ties=ties, sample_weight=weights, **inputs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        assert_equal_to_the_functions(weighted, y_true, y_score, k=k, ties=ties, inputs=inputs, sample_weight=weights)


@pytest.mark.parametrize("form", [sp.csr_array, sp.csc_matrix, sp.coo_array])
@pytest.mark.parametrize("k", [2, 5])
def test_a_sparse_score_matrix_gives_the_functions_values(form, k):
    y_true, y_score, inputs, _ = case(7 + k)
    stored = form(np.where(y_score > -np.inf, y_score + 1.0, 0.0))  # explicit entries; a -inf entry is not stored
    inputs["baseline_score"] = form(inputs["baseline_score"] + 1.0)
    report = quiet(recommender_report, sp.csr_array(y_true), stored, k=k, **inputs)
    assert len(report) == 22
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        assert_equal_to_the_functions(report, sp.csr_array(y_true), stored, k=k, ties="average", inputs=inputs)


@pytest.mark.parametrize("k", [1, 4])
def test_the_pairs_layout_gives_the_functions_values(k):
    y_true, y_score, inputs, weights = case(11)
    n_users, n_items = y_score.shape
    rows = np.random.default_rng(3).permutation(n_users * n_items)[:-5]  # shuffled, some pairs never scored
    users = np.array([f"user{user}" for user in np.repeat(np.arange(n_users), n_items)[rows]])
    items = np.tile(np.arange(n_items), n_users)[rows]
    pairs = {  # the catalogue holds two items no user was scored on: the per-item arrays cover them
        "baseline_score": inputs["baseline_score"].ravel()[rows],
        "item_popularity": dict(enumerate(inputs["item_popularity"])),
        "item_features": np.vstack((inputs["item_features"], np.ones((2, 3)))),
        "item_groups": np.concatenate((inputs["item_groups"], [0, 1])),
    }
    per_row = np.repeat(weights, n_items)[rows]
    layout = {"item_id": items, "qid": users}
    report = quiet(recommender_report, y_true.ravel()[rows], y_score.ravel()[rows], k=k, sample_weight=per_row,
                   catalog=np.arange(n_items + 2), **layout, **pairs)  # fmt: skip
    assert list(report.per_user["qid"]) == sorted(set(users))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        assert_equal_to_the_functions(report, y_true.ravel()[rows], y_score.ravel()[rows], k=k, ties="average",
                                      inputs=pairs, sample_weight=per_row, catalog=np.arange(n_items + 2),
                                      **layout)  # fmt: skip


@settings(max_examples=25, deadline=None)
@given(
    n_users=st.integers(1, 6),
    n_items=st.integers(1, 7),
    k=st.integers(1, 9),
    depth=st.sampled_from([None, 1, 2, 6, 30]),
    seed=st.integers(0, 2**16),
)
def test_property_any_cutoffs_shape_and_ties(n_users, n_items, k, depth, seed):
    rng = np.random.default_rng(seed)
    y_score = rng.integers(0, 3, (n_users, n_items)).astype(float)
    y_score[rng.random(y_score.shape) < 0.3] = -np.inf
    y_true = (rng.random(y_score.shape) < 0.4) * rng.integers(1, 3, y_score.shape).astype(float)
    accuracy = ["ndcg", "map", "recall(denominator='capped')"] if depth is None else [f"ndcg@{depth}", f"mrr@{depth}"]
    metrics = [*accuracy, "precision@3", "catalog_coverage", "gini_index", "novelty", "user_coverage", "ild"]
    inputs = {"item_popularity": rng.uniform(0.1, 1, n_items), "item_features": rng.normal(size=(n_items, 2))}
    report = quiet(recommender_report, sp.csr_array(y_true), y_score, k=k, metrics=metrics, **inputs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        assert_equal_to_the_functions(report, y_true, y_score, k=k, ties="average", inputs=inputs)


def test_importable_from_the_top_and_from_recommenders():
    assert from_the_floor is recommender_report
    assert "recommender_report" in rm.__all__ and "recommender_report" in rm.recommenders.__all__


def test_metrics_without_their_inputs_are_left_out_with_the_reason():
    y_true, y_score, inputs, _ = case(1)
    counts = inputs["item_popularity"] * 100
    report = quiet(recommender_report, y_true, y_score, k=3, item_popularity=counts)
    assert report.left_out == {
        "bpref": "has no cutoff: it ranks every item (name it in metrics= to compute it)",
        "novelty": report.left_out["novelty"],
        "ild": "needs item_features",
        "serendipity": "needs baseline_score",
    }
    assert report.left_out["novelty"].startswith("item_popularity holds counts (up to ")
    assert {"arp", "aplt", "expected_exposure", "ndcg@3"} <= set(report)
    without_labels = recommender_report(None, y_score, k=3)
    assert set(without_labels) == {"catalog_coverage", "gini_index", "shannon_entropy", "user_coverage"}
    assert without_labels.left_out["ndcg@3"] == "needs y_true"
    assert without_labels.left_out["expected_exposure"] == "needs y_true"
    assert without_labels.per_user.keys() == {"qid", "user_coverage"}
    # long_tail serves APLT instead of item_popularity's short head.
    tail = np.arange(y_score.shape[1]) % 2 == 0
    report = quiet(recommender_report, y_true, y_score, k=3, item_popularity=counts, long_tail=tail, metrics=["aplt"])
    assert report["aplt"] == quiet(rm.long_tail_share_score, y_score, long_tail=tail, k=3)


@pytest.mark.parametrize(
    ("metrics", "inputs", "message"),
    [
        (["ild"], {}, "'ild' cannot be computed: it needs item_features."),
        (["serendipity"], {"y_true": None}, "'serendipity' cannot be computed: it needs y_true."),
        (["ndcg@10"], {"y_true": None}, "'ndcg@10' cannot be computed: it needs y_true."),
        (["aplt"], {}, "'aplt' cannot be computed: it needs long_tail or item_popularity."),
        (["novelty"], {"item_popularity": np.full(8, 3.0)}, "'novelty' cannot be computed: it item_popularity holds"),
        (["novelty@5"], {}, "'novelty@5' sets a cutoff, but the metrics of the lists share the report's k=10"),
        (["ild(k=5)"], {}, "'ild\\(k=5\\)' sets k, which the report sets once for every metric: pass k="),
        (["ild(item_features=1)"], {}, "sets item_features, which the report takes once for every metric"),
        (["ild(metrik='cosine')"], {}, "sets metrik, which is not an option of intra_list_diversity_score in a "),
        (["gini_index(zero_division=0)"], {}, "its options are none"),
        (["ndcg@10(candidates=1)"], {}, "sets candidates, which carries the data"),
        (
            ["ndcg@10(ties='stable')"],
            {},
            "sets ties, which the report sets once for every metric: pass ties= to recomm",
        ),
        (["alpha_ndcg@10"], {}, "is an intent-aware measure"),
        (["nonsense"], {}, "recommender_report computes the metrics of the lists \\(catalog_coverage, gini_index"),
        ([], {}, "metrics names no metric"),
    ],
)
def test_bad_metric_names_and_missing_inputs_are_errors_that_name_the_fix(metrics, inputs, message):
    y_true, y_score, _, _ = case(2)
    arguments = {"y_true": y_true, **inputs}
    with pytest.raises(ValueError, match=message):
        recommender_report(arguments.pop("y_true"), y_score, metrics=metrics, **arguments)


def test_metric_options_in_names_and_zero_division():
    y_true, y_score, inputs, _ = case(3)
    metrics = [
        "ild(metric='euclidean')",
        "aplt(head_share=0.5)",
        "expected_exposure(component='disparity', patience=0.8)",
        "user_coverage(min_items=2)",
        "serendipity(relevance_threshold=2, zero_division=0.0)",
        "EE-L",
        "ItemCoverage",
        "novelty@4",
        "ndcg@2(zero_division=1.0)",
    ]
    report = quiet(recommender_report, y_true, y_score, k=4, metrics=metrics, **inputs)
    assert list(report) == metrics
    ild = quiet(rm.intra_list_diversity_score, y_score, item_features=inputs["item_features"], metric="euclidean", k=4)
    assert report["ild(metric='euclidean')"] == ild
    disparity = quiet(rm.expected_exposure_loss, y_score, y_true=y_true, item_groups=inputs["item_groups"], k=4,
                      component="disparity", patience=0.8)  # fmt: skip
    assert report["expected_exposure(component='disparity', patience=0.8)"] == disparity
    assert report["user_coverage(min_items=2)"] == rm.user_coverage(y_score, k=4, min_items=2)
    serendipity = rm.serendipity_score(y_score, y_true=y_true, baseline_score=inputs["baseline_score"], k=4,
                                       relevance_threshold=2, zero_division=0.0)  # fmt: skip
    assert report["serendipity(relevance_threshold=2, zero_division=0.0)"] == serendipity
    assert report["ItemCoverage"] == rm.catalog_coverage(y_score, k=4)
    assert report["ndcg@2(zero_division=1.0)"] == pytest.approx(rm.ndcg_score(y_true, y_score, k=2, zero_division=1.0))
    # One zero_division for every metric that has one.
    zeroed = quiet(recommender_report, y_true, y_score, k=4, zero_division=0.0, metrics=["novelty", "mrr@4"], **inputs)
    assert zeroed["novelty"] == rm.novelty_score(y_score, k=4, item_popularity=inputs["item_popularity"],
                                                 zero_division=0.0)  # fmt: skip
    assert zeroed.per_user["novelty"][0] == 0.0  # user 0 has nothing to recommend


def test_one_warning_names_every_metric_with_undefined_users():
    y_true, y_score, inputs, _ = case(4)
    with pytest.warns(UndefinedMetricWarning) as caught:
        recommender_report(y_true, y_score, k=3, metrics=["ndcg@3", "novelty", "catalog_coverage"], **inputs)
    assert len(caught) == 1
    message = str(caught[0].message)
    no_relevant = int(np.count_nonzero(y_true.sum(axis=1) == 0))
    assert f"ndcg@3: {no_relevant} users without a relevant document, scored 0" in message
    assert "novelty: 1 user with no item to recommend: every score -inf, left out of the mean" in message
    # One phrase for the metrics that share it; none for undefined users left out by the caller's choice.
    with pytest.warns(UndefinedMetricWarning, match=f"ndcg@3, mrr@3: {no_relevant} users without a relevant"):
        recommender_report(y_true, y_score, k=3, metrics=["ndcg@3", "mrr@3"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        recommender_report(y_true, y_score, k=3, metrics=["ndcg@3", "novelty"], zero_division=np.nan, **inputs)
    with pytest.warns(UndefinedMetricWarning, match="gini_index: nan, as no user shows any item"):
        recommender_report(None, np.full((2, 3), -np.inf), metrics=["gini_index"])
    with pytest.warns(UserWarning, match="sample_weight weighs the users in the accuracy metrics' means only"):
        quiet_undefined(recommender_report, y_true, y_score, sample_weight=np.ones(9), **inputs)


def quiet_undefined(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return function(*args, **kwargs)


@pytest.mark.parametrize("correction", [None, "bv", "cls"])
@pytest.mark.parametrize("layout", ["matrix", "pairs"])
def test_candidates_reach_the_accuracy_metrics_as_their_own_candidates_option(correction, layout):
    rng = np.random.default_rng(5)
    y_true = np.zeros((30, 40))
    y_true[np.arange(30), rng.integers(0, 40, 30)] = 1
    y_true[0] = 0
    y_score = rng.normal(size=y_true.shape)
    y_score[rng.random(y_score.shape) < 0.1] = -np.inf
    candidates = rm.sample_candidates(y_true, n_negatives=6, random_state=0)
    weights = rng.uniform(0.5, 2, 30)
    layout_options, inputs = {}, (y_true, y_score, candidates, weights)
    if layout == "pairs":
        qid = np.repeat(np.arange(30), 40)
        layout_options = {"qid": qid}
        inputs = (y_true.ravel(), y_score.ravel(), candidates.toarray().ravel(), np.repeat(weights, 40))
        report = quiet(recommender_report, inputs[0], inputs[1], item_id=np.tile(np.arange(40), 30), qid=qid, k=5,
                       candidates=inputs[2], sampled_correction=correction, sample_weight=inputs[3])  # fmt: skip
    else:
        report = quiet(recommender_report, y_true, y_score, k=5, candidates=candidates,
                       sampled_correction=correction, sample_weight=weights)  # fmt: skip
    accuracy = [name for name in report if name not in LIST_FUNCTIONS]
    assert accuracy and (correction is None or set(report.left_out) >= {"r_precision@5", "err@5", "rbp@5"})
    for name in accuracy:
        info = rm.metric_info(name)
        expected = quiet(info.function, inputs[0], inputs[1], candidates=inputs[2], sampled_correction=correction,
                         sample_weight=inputs[3], **layout_options, **info.settings)  # fmt: skip
        assert report[name] == pytest.approx(expected, rel=1e-12, abs=1e-15), name
    # The metrics of the lists describe the lists of the whole catalogue.
    assert report["catalog_coverage"] == rm.catalog_coverage(
        inputs[1],
        k=5,
        **({} if layout == "matrix" else {"item_id": np.tile(np.arange(40), 30), "qid": layout_options["qid"]}),
    )


def test_with_only_the_candidates_scored_the_metrics_of_the_lists_are_left_out():
    rng = np.random.default_rng(6)
    y_true = np.zeros((20, 30))
    y_true[np.arange(20), rng.integers(0, 30, 20)] = 1
    candidates = rm.sample_candidates(y_true, n_negatives=5, random_state=1)
    scores = np.where(candidates.toarray(), rng.normal(size=y_true.shape), np.nan)
    report = quiet(recommender_report, y_true, scores, k=3, candidates=candidates, sampled_correction="bv")
    assert "catalog_coverage" in report.left_out and "recall@3" in report
    assert report.left_out["gini_index"].startswith("describes the lists drawn from the whole catalogue")
    with pytest.raises(ValueError, match="'gini_index' cannot be computed: it describes the lists drawn"):
        recommender_report(y_true, scores, metrics=["gini_index"], candidates=candidates)


def test_popularity_drawn_candidates_are_refused_for_corrections_everywhere():
    rng = np.random.default_rng(7)
    y_true = np.zeros((20, 30))
    y_true[np.arange(20), rng.integers(0, 30, 20)] = 1
    scores = rng.normal(size=y_true.shape)
    drawn = rm.sample_candidates(y_true, n_negatives=5, strategy="popularity", random_state=0)
    assert drawn.strategy == "popularity" and drawn.copy().strategy == "popularity"
    assert drawn[2:5].strategy == "popularity" and drawn.astype(bool).strategy == "popularity"
    assert rm.sample_candidates(y_true, n_negatives=5, random_state=0).strategy == "uniform"
    said = "sampled_correction assumes negatives drawn uniformly, but these candidates were drawn by popularity"
    calls = [
        lambda: rm.recall_at_k_score(y_true, scores, k=3, candidates=drawn, sampled_correction="bv"),
        lambda: rm.ranking_report(y_true, scores, metrics=["recall@3"], candidates=drawn, sampled_correction="cls"),
        lambda: recommender_report(y_true, scores, k=3, candidates=drawn, sampled_correction="bv"),
    ]
    for call in calls:
        with pytest.raises(ValueError, match=said):
            call()
    # On the candidates themselves (no correction) they are fine; a mask made from them is taken as uniform.
    assert rm.recall_at_k_score(y_true, scores, k=3, candidates=drawn) >= 0
    assert np.isfinite(rm.recall_at_k_score(y_true, scores, k=3, candidates=drawn.toarray(), sampled_correction="bv"))


def test_simulation_popularity_draws_bias_the_uniform_corrections():
    """Why popularity-drawn candidates are refused: the uniform law misreads their sampled ranks.

    600 users rank 200 items alike, each with one relevant item at a full rank drawn uniformly (the prior of the
    estimators); the popular items are those ranked high, as with real models. The BV estimate of Recall@50 from
    uniform candidates lands near the full value; from popularity draws (taken as uniform through a plain mask) it
    is far below, since those draws pick the items above the relevant one far more often.
    """
    rng = np.random.default_rng(0)
    y_true = np.zeros((600, 200))
    y_true[np.arange(600), rng.integers(0, 200, 600)] = 1
    scores = np.tile(-np.arange(200, dtype=float), (600, 1))
    popularity = 1.0 / (1 + np.arange(200))
    full = rm.recall_at_k_score(y_true, scores, k=50)
    estimates = {"uniform": [], "popularity": []}
    for seed in range(3):
        for strategy, values in estimates.items():
            weights = popularity if strategy == "popularity" else None
            drawn = rm.sample_candidates(y_true, n_negatives=20, strategy=strategy, item_popularity=weights,
                                         random_state=seed).toarray()  # fmt: skip
            values.append(rm.recall_at_k_score(y_true, scores, k=50, candidates=drawn, sampled_correction="bv"))
    assert abs(np.mean(estimates["uniform"]) - full) < 0.03
    assert abs(np.mean(estimates["popularity"]) - full) > 0.15


def test_ranking_report_takes_candidates_as_each_metric_does():
    rng = np.random.default_rng(8)
    y_true = np.zeros((40, 25))
    y_true[np.arange(40), rng.integers(0, 25, 40)] = rng.integers(1, 3, 40)
    y_true[0] = 0
    y_score = rng.integers(0, 6, y_true.shape).astype(float)  # ties among the candidates
    candidates = rm.sample_candidates(y_true, n_negatives=7, random_state=2)
    names = ["ndcg@5", "recall@5(denominator='capped')", "map@5", "mrr", "precision@3", "hit_rate@4", "f1@5"]
    weights = rng.uniform(0.5, 2.0, 40)
    for correction in (None, "bv", "cls"):
        report = quiet(rm.ranking_report, y_true, y_score, metrics=names, candidates=candidates,
                       sampled_correction=correction, sample_weight=weights)  # fmt: skip
        per_user = quiet(rm.ranking_report, y_true, y_score, metrics=names, candidates=candidates,
                         sampled_correction=correction, average=False)  # fmt: skip
        for name in names:
            function, options = rm.metric_info(name).function, dict(rm.metric_info(name).settings)
            own = dict(candidates=candidates, sampled_correction=correction, **options)
            assert report[name] == quiet(function, y_true, y_score, sample_weight=weights, **own), name
            np.testing.assert_array_equal(per_user[name], quiet(function, y_true, y_score, average=False, **own))
    interval = quiet(rm.ranking_report, y_true, y_score, metrics=["recall@5"], candidates=candidates,
                     sampled_correction="bv", confidence_level=0.9, random_state=0)["recall@5"]  # fmt: skip
    assert interval[1] <= interval[0] <= interval[2]
    with pytest.raises(ValueError, match="sets sampled_correction, which the report sets once for every metric: pass"):
        rm.ranking_report(y_true, y_score, metrics=["recall@5(sampled_correction='bv')"])
    with pytest.raises(ValueError, match="sampled_correction serves the estimate of the full-catalogue metric"):
        rm.ranking_report(y_true, y_score, sampled_correction="bv")
    with pytest.raises(ValueError, match="sampled_correction is not available for bpref_score"):
        rm.ranking_report(y_true, y_score, metrics=["bpref"], candidates=candidates, sampled_correction="bv")


def test_scorers_take_candidates_as_metadata_and_sampled_correction_as_an_option():
    import sklearn
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GroupKFold, cross_validate

    rng = np.random.default_rng(9)
    n_users, n_items = 40, 20
    X = rng.normal(size=(n_users * n_items, 3))
    qid = np.repeat(np.arange(n_users), n_items)
    y = np.zeros(len(X))
    y[np.arange(n_users) * n_items + rng.integers(0, n_items, n_users)] = 1
    mask = rm.sample_candidates(y.reshape(n_users, n_items), n_negatives=6, random_state=0).toarray().ravel()
    model = Ridge().fit(X, y)
    corrected = rm.get_ranking_scorer("recall@5(sampled_correction='bv')")
    assert repr(corrected) == "recall@5(sampled_correction='bv')"
    expected = rm.recall_at_k_score(y, model.predict(X), qid=qid, k=5, candidates=mask, sampled_correction="bv")
    assert corrected(model, X, y, qid=qid, candidates=mask) == expected
    naive = rm.make_ranking_scorer(rm.recall_at_k_score, k=5)
    assert naive(model, X, y, qid=qid, candidates=mask) == rm.recall_at_k_score(
        y, model.predict(X), qid=qid, k=5, candidates=mask
    )
    with sklearn.config_context(enable_metadata_routing=True):
        assert corrected.get_metadata_routing().consumes("score", ["candidates"]) == {"candidates"}
        assert not naive.get_metadata_routing().consumes("score", ["candidates"])
        scoring = {"corrected": corrected, "naive": naive.set_score_request(candidates=True)}
        folds = cross_validate(Ridge(), X, y, cv=GroupKFold(2), scoring=scoring, params={"groups": qid,
                               "candidates": mask})  # fmt: skip
    for fold, (train, test) in enumerate(GroupKFold(2).split(X, y, qid)):
        fitted = Ridge().fit(X[train], y[train])
        own = rm.recall_at_k_score(y[test], fitted.predict(X[test]), qid=qid[test], k=5, candidates=mask[test],
                                   sampled_correction="bv")  # fmt: skip
        assert folds["test_corrected"][fold] == own
    with pytest.raises(TypeError, match="candidates are one value per row, which cross-validation splits into folds"):
        rm.make_ranking_scorer(rm.recall_at_k_score, k=5, candidates=mask)
    with pytest.raises(TypeError, match="A scorer takes n_items as one int for every user"):
        rm.make_ranking_scorer(rm.recall_at_k_score, k=5, sampled_correction="bv", n_items=[20, 20])
    with pytest.raises(ValueError, match="sampled_correction must be one of 'bv', 'cls'"):
        rm.make_ranking_scorer(rm.recall_at_k_score, k=5, sampled_correction="uniform")


def test_catalog_coverage_refuses_the_old_argument_order_with_the_new_call():
    scores, items, users = [3.0, 2.0, 1.0, 1.0], ["a", "b", "a", "b"], [0, 0, 1, 1]
    with pytest.raises(TypeError, match=r"catalog_coverage\(y_score, item_id=item_id, qid=qid, k=k\)"):
        rm.catalog_coverage(items, scores, qid=users, k=1)
    with pytest.raises(TypeError, match="got 1 positional argument\\(s\\) and y_score="):
        rm.catalog_coverage(items, y_score=scores, qid=users, k=1)
    assert rm.catalog_coverage(scores, item_id=items, qid=users, k=1) == 0.75  # user 1 ties a and b
    assert rm.catalog_coverage(y_score=scores, item_id=items, qid=users, k=1) == 0.75
    # Every metric of the lists takes the scores first, and the rest as keywords.
    for function in LIST_METRICS:
        parameters = list(inspect.signature(function).parameters.values())
        assert parameters[0].name == "y_score" and all(p.kind is p.KEYWORD_ONLY for p in parameters[1:]), function


def test_the_report_pickles_and_reads_as_a_dict():
    import pickle

    y_true, y_score, inputs, _ = case(9)
    report = quiet(recommender_report, y_true, y_score, k=2, **inputs)
    again = pickle.loads(pickle.dumps(report))
    assert dict(again) == dict(report) and again.left_out == report.left_out and again.k == 2
    np.testing.assert_array_equal(again.per_user["ndcg@2"], report.per_user["ndcg@2"])


def test_hostile_inputs_huge_k_float32_no_interactions_and_no_recommendable_item():
    y_true, y_score, inputs, _ = case(12, n_users=6, n_items=5)
    # A k beyond the catalogue lists every recommendable item, in the report as in each function.
    huge, whole = (quiet(recommender_report, y_true, y_score, k=k, **inputs) for k in (10**12, 5))
    per_place = ("precision@", "f1@")  # they divide by k itself
    same = [name for name in whole if not name.startswith(per_place)]
    assert [huge[name.replace("@5", f"@{10**12}")] for name in same] == pytest.approx(
        [whole[name] for name in same], rel=1e-12, nan_ok=True
    )
    for function in (rm.expected_exposure_loss, rm.gini_index, rm.intra_list_diversity_score):
        takes = inspect.signature(function).parameters
        options = {key: value for key, value in {"y_true": y_true, **inputs}.items() if key in takes}
        assert quiet(function, y_score, k=2**63, **options) == quiet(function, y_score, k=5, **options)
    pairs = {"item_id": np.tile(np.arange(5), 6), "qid": np.repeat(np.arange(6), 5)}
    assert rm.gini_index(y_score.ravel(), k=10**12, **pairs) == rm.gini_index(y_score, k=5)
    with pytest.raises(ValueError, match="k must be below 2\\*\\*63; got 9223372036854775808"):
        recommender_report(y_true, y_score, k=2**63)
    # float32 scores and labels: the values of float64.
    narrow = quiet(recommender_report, y_true.astype(np.float32), y_score.astype(np.float32), k=3, **inputs)
    assert narrow == quiet(recommender_report, y_true, y_score, k=3, **inputs)
    # No interaction at all (a sparse y_true storing nothing), and no item to recommend at all.
    nothing = sp.csr_array(y_true.shape)
    report = quiet(recommender_report, nothing, y_score, k=3, **inputs)
    assert report["ndcg@3"] == quiet(rm.ndcg_score, nothing, y_score, k=3) == 0.0
    assert report["serendipity"] == quiet(rm.serendipity_score, y_score, y_true=nothing, k=3,
                                          baseline_score=inputs["baseline_score"])  # fmt: skip
    blocked = np.full(y_score.shape, -np.inf)
    report = quiet(recommender_report, nothing, blocked, k=3, **inputs)
    assert report["catalog_coverage"] == 0.0 and report["user_coverage"] == 0.0
    assert np.isnan(report["gini_index"]) and np.isnan(report["novelty"]) and report["recall@3"] == 0.0
