"""QueryGroupWarning: every leak the library can detect warns, once per cause per run; sound evaluations stay silent."""

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import sklearn
from sklearn.compose import ColumnTransformer
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.linear_model import Ridge
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    HalvingGridSearchCV,
    HalvingRandomSearchCV,
    KFold,
    cross_val_score,
    cross_validate,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_rankmetrics import GroupedRanker, QueryGroupWarning, get_ranking_scorer, make_ranking
from sklearn_rankmetrics.model_selection._guards import query_digests, row_fingerprints

NDCG10 = get_ranking_scorer("ndcg@10")


@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


def caught(function, *args, **kwargs):
    """The messages of the QueryGroupWarnings that ``function(*args, **kwargs)`` raises, each shown."""
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        function(*args, **kwargs)
    return [str(record.message) for record in records if issubclass(record.category, QueryGroupWarning)]


def silent(function, *args, **kwargs):
    """Call ``function``; fail if it raises a QueryGroupWarning (even where a search would turn an error into nan)."""
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        result = function(*args, **kwargs)
    assert [str(r.message) for r in records if issubclass(r.category, QueryGroupWarning)] == []
    return result


def by_position_within_query(X, y, qid):
    """The rows ordered by position within their query, then by query: KFold(2) cuts every query in halves."""
    order = np.argsort(qid, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(qid[order]) != 0])
    position = np.empty(len(qid), dtype=int)
    position[order] = np.arange(len(qid)) - np.repeat(starts, np.diff(np.r_[starts, len(qid)]))
    rows = np.lexsort((qid, position))
    return X[rows], y[rows], qid[rows]


# Leaky splits (24.7).
@pytest.mark.parametrize("n_splits", [2, 5])
def test_a_row_level_split_into_equal_halves_of_each_query_warns(routing, n_splits):
    X, y, qid = by_position_within_query(*make_ranking(n_queries=20, n_docs=4, n_features=4, random_state=0))
    messages = caught(
        cross_val_score, GroupedRanker(Ridge()), X, y, scoring=NDCG10, cv=KFold(n_splits), params={"groups": qid}
    )
    assert any("were also in the training data of this GroupedRanker" in message for message in messages)
    assert all("np.int64" not in message for message in messages)


def test_scoring_the_training_queries_themselves_in_any_row_order_stays_silent():
    X, y, qid = make_ranking(n_queries=20, n_docs=4, n_features=4, random_state=0)
    model = GroupedRanker(Ridge()).fit(X, y, qid=qid)
    shuffled = np.random.default_rng(0).permutation(len(y))
    silent(model.score, X[shuffled], y[shuffled], qid=qid[shuffled])
    with pytest.warns(QueryGroupWarning, match=r"with other documents"):
        model.score(X + 1.0, y, qid=qid)  # the same number of documents, but other ones


def test_a_group_split_with_train_scores_stays_silent(routing):
    X, y, qid = make_ranking(n_queries=30, n_features=4, random_state=0)
    search = GridSearchCV(
        GroupedRanker(Ridge()), {"estimator__alpha": [1.0, 10.0]}, scoring=NDCG10, cv=GroupKFold(3)
    ).set_params(return_train_score=True)
    silent(search.fit, X, y, groups=qid)
    silent(search.best_estimator_.score, X, y, qid=qid)


def test_training_queries_scored_beside_unseen_ones_warn():
    X, y, qid = make_ranking(n_queries=20, n_features=4, random_state=0)
    train = qid < 10
    model = GroupedRanker(Ridge()).fit(X[train], y[train], qid=qid[train])
    silent(model.score, X[~train], y[~train], qid=qid[~train])
    with pytest.warns(QueryGroupWarning, match=r"10 of the 20 queries scored are training queries .* beside 10 unseen"):
        model.score(X, y, qid=qid)


def test_a_pipeline_ending_in_a_grouped_ranker_detects_a_leaky_split(routing):
    X, y, qid = by_position_within_query(*make_ranking(n_queries=20, n_docs=4, n_features=4, random_state=0))
    model = make_pipeline(StandardScaler(), GroupedRanker(Ridge()))
    leaky = caught(cross_val_score, model, X, y, scoring=NDCG10, cv=KFold(2), params={"groups": qid})
    assert any("with other documents" in message for message in leaky)
    silent(
        cross_validate, model, X, y, scoring=NDCG10, cv=GroupKFold(2), params={"groups": qid}, return_train_score=True
    )


# Nested cross-validation (issue 36, class C): a search keeps its best estimator's training queries.
def nested_search(qid_column=None):
    grid = {"estimator__alpha": [0.1, 10.0]}
    return GridSearchCV(GroupedRanker(Ridge(), qid_column=qid_column), grid, scoring=NDCG10, cv=GroupKFold(3))


@pytest.mark.parametrize("tool", [cross_val_score, cross_validate])
def test_an_outer_split_of_queries_around_a_search_warns_as_around_a_bare_grouped_ranker(routing, tool):
    X, y, qid = by_position_within_query(*make_ranking(n_queries=30, n_docs=4, n_features=4, random_state=0))
    leak = "were also in the training data of this GroupedRanker"
    bare = caught(tool, GroupedRanker(Ridge()), X, y, scoring=NDCG10, cv=KFold(2), params={"groups": qid})
    nested = caught(tool, nested_search(), X, y, scoring=NDCG10, cv=KFold(2), params={"groups": qid})
    assert [message for message in bare if leak in message]
    assert [message for message in nested if leak in message]
    silent(tool, nested_search(), X, y, scoring=NDCG10, cv=GroupKFold(2), params={"groups": qid})


def test_an_outer_split_of_queries_around_a_search_warns_with_routing_off_and_the_qid_column():
    X, y, qid = by_position_within_query(*make_ranking(n_queries=30, n_docs=4, n_features=4, random_state=0))
    with_qid = np.column_stack([qid, X])
    nested = caught(cross_val_score, nested_search(0), with_qid, y, scoring=NDCG10, cv=KFold(2), params={"groups": qid})
    assert any("were also in the training data of this GroupedRanker" in message for message in nested)
    outer = {"cv": GroupKFold(2), "groups": qid}  # routing off: groups= to the outer splitter, params= to the search
    silent(cross_val_score, nested_search(0), with_qid, y, scoring=NDCG10, params={"groups": qid}, **outer)


# Item 16: a leak confined to one query is found, and named.
@pytest.mark.parametrize("ids", ["integers", "strings"])
@pytest.mark.parametrize("where", ["highest", "middle", "lowest"])
def test_a_leak_confined_to_one_query_warns_and_names_that_query(ids, where):
    X, y, qid = make_ranking(n_queries=20, n_docs=4, n_features=4, random_state=0)
    if ids == "strings":
        qid = np.array([f"q{q:02d}" for q in qid])
    distinct = np.unique(qid)
    leaky = {"highest": distinct[-1], "middle": distinct[7], "lowest": distinct[0]}[where]
    model = GroupedRanker(Ridge()).fit(X, y, qid=qid)
    other_documents = X.copy()
    other_documents[qid == leaky, 0] += 1.0  # the same number of documents, other ones, in that query alone
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        model.score(other_documents, y, qid=qid)
    messages = [str(r.message) for r in records if issubclass(r.category, QueryGroupWarning)]
    assert messages == [
        f"1 of the 20 queries scored were also in the training data of this GroupedRanker (for example query "
        f"{leaky.item()!r}) with other documents: the split divides queries between training and test, which leaks "
        "(use GroupKFold or StratifiedGroupKFold), or the query ids of two files collide (load them with distinct "
        "qid_offset)."
    ]
    silent(model.score, X, y, qid=qid)  # the training queries themselves


# The query id column (25.4 a, c).
@pytest.fixture
def frame():
    X, y, qid = make_ranking(n_queries=30, n_features=4, random_state=0)
    return pd.DataFrame(X, columns=["a", "b", "c", "d"]).assign(qid=qid), y, qid


def test_a_qid_column_that_the_final_grouped_ranker_drops_does_not_warn(frame):
    lightgbm = pytest.importorskip("lightgbm")
    X, y, qid = frame
    passthrough = ColumnTransformer([("scaled", StandardScaler(), ["a", "b"])], remainder="passthrough")
    model = make_pipeline(
        passthrough.set_output(transform="pandas"),
        GroupedRanker(lightgbm.LGBMRanker(n_estimators=5, verbose=-1, n_jobs=1), qid_column="remainder__qid"),
    )
    scorer = get_ranking_scorer("ndcg@10(qid_column='qid')")
    silent(cross_validate, model, X, y, scoring=scorer, cv=GroupKFold(3), groups=qid)
    assert "remainder__qid" not in model.fit(X, y)[-1].estimator_.feature_name_


@pytest.mark.parametrize("leaky", ["plain", "passthrough"])
def test_a_qid_column_reaching_the_model_warns_with_routing_on(frame, routing, leaky):
    X, y, qid = frame
    model = Ridge() if leaky == "plain" else make_pipeline(ColumnTransformer([], remainder="passthrough"), Ridge())
    messages = caught(cross_val_score, model, X, y, scoring=NDCG10, cv=GroupKFold(3), params={"groups": qid})
    assert messages == [
        "The estimator was fitted on the query id column 'qid' of X, so it learns from the id and the column is "
        "reported as a feature. Wrap it as GroupedRanker(estimator, qid_column='qid'), which drops the column before "
        "the estimator sees X, or drop it in a ColumnTransformer (remainder='drop'). (Reported once for this whole "
        "run, not per fold.)"
    ]
    dropped = GroupedRanker(Ridge(), qid_column="qid")
    silent(cross_val_score, dropped, X, y, scoring=NDCG10, cv=GroupKFold(3), params={"groups": qid})


def test_a_qid_column_of_an_array_reaching_the_model_warns(routing):
    X, y, qid = make_ranking(n_queries=30, n_features=4, random_state=0)
    with_qid = np.column_stack([X, qid])
    with pytest.warns(QueryGroupWarning, match="fitted on the query id column 4 of X"):
        NDCG10(Ridge().fit(with_qid, y), with_qid, y, qid=qid)
    silent(NDCG10, GroupedRanker(Ridge(), qid_column=4).fit(with_qid, y), with_qid, y, qid=qid)


def with_qid_column(layout, position):
    """X with the query ids as a column at ``position``, the name of that column, y, qid and the feature columns."""
    X, y, qid = make_ranking(n_queries=30, n_features=4, random_state=0)
    columns = np.insert(X, position % 5, qid, axis=1)
    if layout == "array":
        column = position
        features = [j for j in range(5) if j != position % 5]
        return columns, column, y, qid, features
    labels = ["a", "b", "c", "d"]
    labels.insert(position % 5, "qid")
    return pd.DataFrame(columns, columns=labels), "qid", y, qid, [label for label in labels if label != "qid"]


def scaler(layout):
    return StandardScaler().set_output(transform="pandas" if layout == "frame" else "default")


# What each nesting passes to its model: whether the query id column reaches it.
NESTINGS = {
    "GroupedRanker": (False, lambda layout, column, features: GroupedRanker(Ridge(), qid_column=column)),
    "GroupedRanker(Pipeline)": (
        False,
        lambda layout, column, features: GroupedRanker(make_pipeline(StandardScaler(), Ridge()), qid_column=column),
    ),
    "Pipeline(GroupedRanker)": (
        False,
        lambda layout, column, features: make_pipeline(scaler(layout), GroupedRanker(Ridge(), qid_column=column)),
    ),
    "Pipeline(GroupedRanker(Pipeline))": (
        False,
        lambda layout, column, features: make_pipeline(
            scaler(layout), GroupedRanker(make_pipeline(StandardScaler(), Ridge()), qid_column=column)
        ),
    ),
    "ColumnTransformer(remainder='drop')": (
        False,
        lambda layout, column, features: make_pipeline(ColumnTransformer([("s", StandardScaler(), features)]), Ridge()),
    ),
    "Ridge": (True, lambda layout, column, features: Ridge()),
    "Pipeline": (True, lambda layout, column, features: make_pipeline(StandardScaler(), Ridge())),
    "GroupedRanker(Pipeline) with qid routed": (
        True,
        lambda layout, column, features: GroupedRanker(make_pipeline(StandardScaler(), Ridge())),
    ),
    "ColumnTransformer(remainder='passthrough')": (
        True,
        lambda layout, column, features: make_pipeline(
            ColumnTransformer([("s", StandardScaler(), features)], remainder="passthrough"), Ridge()
        ),
    ),
}


@pytest.mark.parametrize("nesting", list(NESTINGS))
@pytest.mark.parametrize("position", [0, 2, -1])
@pytest.mark.parametrize("layout", ["array", "frame"])
def test_the_qid_column_guard_warns_exactly_when_the_column_reaches_the_model(layout, position, nesting):
    # A GroupedRanker drops its column before its inner steps name theirs: x0 of an inner pipeline is not column 0.
    X, column, y, qid, features = with_qid_column(layout, position)
    reaches, build = NESTINGS[nesting]
    model = build(layout, column, features)
    model.fit(X, y, **({"qid": qid} if nesting.endswith("routed") else {}))
    for scorer, metadata in [(get_ranking_scorer(f"ndcg@10(qid_column={column!r})"), {}), (NDCG10, {"qid": qid})]:
        messages = caught(scorer, model, X, y, **metadata)
        assert any("fitted on the query id column" in message for message in messages) == reaches, (scorer, messages)


def test_a_search_over_a_grouped_ranker_of_a_pipeline_does_not_blame_the_dropped_column():
    X, _, y, qid, _ = with_qid_column("array", 0)
    search = GridSearchCV(
        GroupedRanker(make_pipeline(StandardScaler(), Ridge()), qid_column=0),
        {"estimator__ridge__alpha": [0.1, 1.0]},
        scoring=get_ranking_scorer("ndcg@10(qid_column=0)"),
        cv=GroupKFold(3),
    )
    silent(search.fit, X, y, groups=qid)


@pytest.mark.parametrize(
    ("sizes", "start"),
    [([1], "The only query scored has a single document"), ([1] * 20, "100% of the 20 queries scored have a single")],
)
def test_the_single_document_warning_counts_queries_in_good_english(sizes, start):
    qid = np.repeat(np.arange(len(sizes)), sizes)
    X, y = np.arange(len(qid), dtype=float)[:, None], np.ones(len(qid))
    assert caught(NDCG10, Ridge().fit(X, y), X, y, qid=qid)[0].startswith(start)


# Once per cause per run (25.4 b).
def test_each_cause_warns_once_per_fit_of_a_search(routing):
    X, y, qid = make_ranking(n_queries=60, n_docs=(5, 10), n_features=4, random_state=0)
    search = HalvingRandomSearchCV(
        GroupedRanker(Ridge()),
        {"estimator__alpha": np.logspace(-3, 3, 20)},
        scoring=NDCG10,
        n_candidates=20,
        resource="n_samples",
        cv=GroupKFold(3),
        random_state=0,
    )
    for _ in range(2):  # each fit of the search reports again
        messages = caught(search.fit, X, y, groups=qid)
        assert sorted(message.split(" ")[1] for message in messages) == ["of", "subsamples"]
        assert all(message.endswith("(Reported once for this whole run, not per fold.)") for message in messages)


def test_a_halving_grid_search_on_rows_warns_of_partial_queries(routing):
    X, y, qid = make_ranking(n_queries=40, n_docs=(20, 30), n_features=4, random_state=0)
    search = HalvingGridSearchCV(
        GroupedRanker(Ridge()), {"estimator__alpha": [0.1, 1.0, 10.0]}, scoring=NDCG10, cv=GroupKFold(3)
    )
    messages = caught(search.fit, X, y, groups=qid)
    assert len(messages) == 1
    assert messages[0].startswith("HalvingGridSearchCV(resource='n_samples') subsamples rows")
    assert "resource='estimator__n_estimators'" in messages[0]


# Row fingerprints.
def test_row_fingerprints_agree_dense_sparse_and_frame_and_tell_rows_apart():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(200, 6)).astype(float)
    dense = row_fingerprints(X)
    np.testing.assert_array_equal(row_fingerprints(sp.csr_matrix(X)), dense)
    np.testing.assert_array_equal(row_fingerprints(sp.csc_matrix(X)), dense)
    np.testing.assert_array_equal(row_fingerprints(pd.DataFrame(X)), dense)
    np.testing.assert_array_equal(row_fingerprints(-0.0 * (X == 0) + X), dense)
    distinct_rows = len(np.unique(X, axis=0))
    assert len(np.unique(dense)) == distinct_rows
    assert not np.array_equal(row_fingerprints(X[:, ::-1]), dense)  # columns are not interchangeable


def test_query_digests_ignore_row_order_and_see_rows_swapped_between_queries():
    X = np.array([[1.0, 2.0], [3.0, 4.0], [1.0, 4.0], [3.0, 2.0]])
    qid = np.array([0, 0, 1, 1])
    digests = query_digests(X, qid)
    np.testing.assert_array_equal(query_digests(X[::-1], qid[::-1]), digests)
    assert digests[0] != digests[1]  # the same values in each column, in other rows
    text = pd.DataFrame({"a": ["x", "y", "x", "y"], "b": [1, 2, 2, 1]})
    assert len(set(query_digests(text, qid))) == 2
