"""compare_per_query: per-query values from anywhere through compare_rankings' statistics; the peers' vocabularies."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from sklearn_rankmetrics import compare_per_query, compare_rankings
from sklearn_rankmetrics._core._numpy_ops import running_sum
from sklearn_rankmetrics.stats._vocabulary import CORRECTION_ALIASES, TEST_ALIASES


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def rankings(seed=0, n_queries=20, n_systems=3):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), 8)
    y_true = rng.integers(0, 3, qid.size)
    scores = {f"s{i}": 0.4 * i * y_true + rng.normal(size=qid.size) for i in range(n_systems)}
    return y_true, scores, qid


def same(first, second):
    return first.to_frame(kind="rows").equals(second.to_frame(kind="rows")) and str(first) == str(second)


@pytest.mark.parametrize("test", ["randomization", "t-test", "tukey-hsd", "randomized-tukey-hsd", "bootstrap"])
def test_per_query_values_of_compare_rankings_give_compare_rankings_result(test):
    y_true, scores, qid = rankings()
    arguments = {"test": test, "random_state": 3, "n_resamples": 2000}
    direct = quiet(compare_rankings, y_true, scores, qid=qid, metrics=["ndcg@10", "mrr"], **arguments)
    values = {name: {metric: direct.per_query[metric][name] for metric in ("ndcg@10", "mrr")} for name in scores}
    with_ids = {name: {"qid": direct.per_query["qid"], **columns} for name, columns in values.items()}
    nested = {
        name: {
            metric: dict(zip(direct.per_query["qid"].tolist(), column.tolist(), strict=True))
            for metric, column in columns.items()
        }
        for name, columns in values.items()
    }
    for layout in (values, with_ids, nested):
        assert same(quiet(compare_per_query, layout, **arguments), direct)


def test_long_frames_under_our_names_pyterriers_and_polars_give_one_result():
    pd = pytest.importorskip("pandas")
    y_true, scores, qid = rankings(1)
    direct = quiet(compare_rankings, y_true, scores, qid=qid, metrics=["ndcg@10", "mrr"], baseline="s0", random_state=0)
    records = [
        (name, metric, query, value)
        for metric in ("ndcg@10", "mrr")
        for name, column in direct.per_query[metric].items()
        for query, value in zip(direct.per_query["qid"].tolist(), column.tolist(), strict=True)
    ]
    ours = pd.DataFrame(records, columns=["system", "metric", "query", "value"]).sample(frac=1, random_state=0)
    ours = ours.sort_values("system", kind="stable")  # rows shuffled, systems in their order (of first appearance)
    pyterrier = ours.rename(columns={"system": "name", "query": "qid", "metric": "measure"})
    for frame in (ours, pyterrier):
        assert same(quiet(compare_per_query, frame, baseline="s0", random_state=0), direct)
    polars = pytest.importorskip("polars")
    assert same(quiet(compare_per_query, polars.from_pandas(ours), baseline="s0", random_state=0), direct)


def test_queries_some_system_lacks_are_left_out_of_that_metric_with_a_warning():
    values = {
        "a": {"m": {"q1": 0.1, "q2": 0.5, "q3": 0.3, "q4": 0.2}, "n": {"q1": 1.0, "q2": 0.0, "q3": 0.5, "q4": 0.5}},
        "b": {"m": {"q1": 0.3, "q2": 0.6, "q4": 0.4}, "n": {"q1": 1.0, "q2": 1.0, "q3": 0.0, "q4": np.nan}},
    }
    with pytest.warns(UserWarning) as caught:
        result = compare_per_query(values, test="t-test")
    messages = [str(warning.message) for warning in caught]
    assert any("1 of 4 queries are left out of 'm'" in m and "'b' 1" in m and "'q3'" in m for m in messages)
    assert any("1 of 4 queries are left out of 'n'" in m and "'q4'" in m for m in messages)
    pairs = result.to_frame(kind="pairs").set_index("metric")
    assert pairs.loc["m", "n_queries"] == 3 and pairs.loc["n", "n_queries"] == 3
    assert pairs.loc["m", "pvalue"] == pytest.approx(
        stats.ttest_rel([0.3, 0.6, 0.4], [0.1, 0.5, 0.2]).pvalue, rel=1e-12
    )


@pytest.mark.parametrize(
    ("values", "error", "message"),
    [
        ({"a": {"m": [0.1, 0.2]}}, ValueError, "at least two systems"),
        (
            {"a": {"m": [0.1]}, "b": {"x": [0.1]}},
            ValueError,
            r"system 'a' has no values of \['x'\]; its metrics are \['m'\]",
        ),
        ({"a": {"m": {1: 0.1}}, "b": {"m": {"1": 0.2}}}, ValueError, "mix kinds .*7 is not '7'"),
        ({"a": {"m": [0.1, np.inf]}, "b": {"m": [0.1, 0.2]}}, ValueError, "holds an infinite value"),
        ({"a": {"m": ["high", 0.2]}, "b": {"m": [0.1, 0.2]}}, TypeError, r"values\['a'\]\['m'\] must hold numbers"),
        ({"a": {"m": [True, 0.2]}, "b": {"m": [0.1, 0.2]}}, TypeError, "must hold numbers"),
        (
            {"a": {"qid": ["x", "x"], "m": [0.1, 0.2]}, "b": {"m": {"x": 0.1}}},
            ValueError,
            "two values of 'm' for query 'x'",
        ),
        ({"a": {"qid": ["x"], "m": [0.1, 0.2]}, "b": {"m": {"x": 0.1}}}, ValueError, r"one value per query id"),
        ({"a": {"m": {None: 0.1}}, "b": {"m": {None: 0.2}}}, ValueError, "a query id is missing"),
        ([0.1, 0.2], TypeError, "values must map each system"),
        ({"a": [0.1], "b": [0.2]}, TypeError, r"values\['a'\] must map metric names"),
    ],
)
def test_bad_values_are_refused_with_the_fix(values, error, message):
    with pytest.raises(error, match=message):
        compare_per_query(values)


def test_bad_frames_name_the_column_meant():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"sytem": ["a", "b"], "metric": ["m", "m"], "query": [1, 1], "value": [0.1, 0.2]})
    with pytest.raises(ValueError, match=r"needs a system column .*Did you mean to rename 'sytem' to 'system'"):
        compare_per_query(frame)
    both = pd.DataFrame({"system": ["a"], "name": ["a"], "metric": ["m"], "query": [1], "value": [0.1]})
    with pytest.raises(ValueError, match=r"the columns \['system', 'name'\], which all name the system"):
        compare_per_query(both)


def test_metrics_baseline_and_options_are_checked():
    values = {"bm25": {"map": [0.1, 0.2, 0.3]}, "dense": {"map": [0.3, 0.2, 0.5]}}
    with pytest.raises(ValueError, match=r"'bm_25' is not one of the systems .* Did you mean 'bm25'"):
        compare_per_query(values, baseline="bm_25")
    with pytest.raises(ValueError, match=r"has no values of \['mapp'\].* Did you mean 'map'"):
        compare_per_query(values, metrics=["mapp"])
    with pytest.raises(TypeError, match="got a string"):
        compare_per_query(values, metrics="map")
    with pytest.raises(ValueError, match=r"Did you mean 'fisher' \('randomization'\)"):
        compare_per_query(values, test="fishr")
    with pytest.raises(ValueError, match=r"Holm-Sidak.* is not offered"):
        compare_per_query(values, correction="holm-sidak")


@pytest.mark.parametrize(
    ("peer", "ours"),
    [
        ("fisher", "randomization"),
        ("student", "t-test"),
        ("tukey", "tukey-hsd"),
        ("t", "t-test"),
        ("T_TEST", "t-test"),
        ("randomised tukey hsd", "randomized-tukey-hsd"),
    ],
)
def test_peers_test_names_are_the_tests_they_name(peer, ours):
    y_true, scores, qid = rankings(2)
    direct = quiet(compare_rankings, y_true, scores, qid=qid, test=ours, random_state=1, n_resamples=500)
    assert same(quiet(compare_rankings, y_true, scores, qid=qid, test=peer, random_state=1, n_resamples=500), direct)
    assert TEST_ALIASES[peer.lower().replace("_", "-").replace(" ", "-")] == ours


@pytest.mark.parametrize(
    ("peer", "ours"),
    [("bh", "fdr_bh"), ("b", "bonferroni"), ("h", "holm"), ("none", None), ("fdr_i", "fdr_bh"), ("MAXT", "maxT")],
)
def test_statsmodels_correction_names_are_the_corrections_they_name(peer, ours):
    values = {f"s{i}": {"m": np.random.default_rng(i).random(12)} for i in range(3)}
    first = quiet(compare_per_query, values, correction=peer, random_state=0, n_resamples=300)
    assert first.correction == ours == CORRECTION_ALIASES[peer.lower().replace("_", "-")]
    assert same(first, quiet(compare_per_query, values, correction=ours, random_state=0, n_resamples=300))


def test_to_frame_has_one_row_per_system_and_metric_and_the_pairs_apart():
    y_true, scores, qid = rankings(3, n_systems=4)
    result = quiet(compare_rankings, y_true, scores, qid=qid, metrics=["ndcg@10", "mrr"], random_state=0)
    systems = result.to_frame()
    assert len(systems) == 4 * 2 and not systems.duplicated(["system", "metric"]).any()
    assert systems.set_index(["system", "metric"]).loc[("s3", "mrr"), "mean"] == pytest.approx(
        result.per_query["mrr"]["s3"].mean(), rel=1e-12
    )
    pairs = result.to_frame(kind="pairs")
    assert len(pairs) == 6 * 2 and list(pairs.columns[:3]) == ["baseline", "system", "metric"]
    assert (pairs["significant"] == (pairs["pvalue_adjusted"] < 0.05)).all()
    assert pairs[["wins", "ties", "losses"]].sum(axis=1).eq(pairs["n_queries"]).all()
    rows = result.to_frame(kind="rows")
    assert len(rows) == len(result.rows) and rows["wins"].dtype == "Int64"
    with pytest.raises(ValueError, match="kind must be one of 'systems', 'pairs', 'rows'"):
        result.to_frame(kind="pair")


def test_the_printed_table_explains_an_interval_that_excludes_zero_without_significance():
    values = {"a": {"m": [0.1, 0.2, 0.3]}, "b": {"m": [0.3, 0.4, 0.6]}}  # three queries: p >= 0.25 by sign flips
    result = quiet(compare_per_query, values, random_state=0)
    row = result.to_frame(kind="pairs").iloc[0]
    assert row.delta_ci_low > 0 and not row.significant
    assert "note: interval and * disagree for b - a (m)" in str(result)
    assert "bootstrap interval of that difference alone, unadjusted" in str(result)
    tukey = quiet(compare_per_query, values, test="tukey-hsd")
    assert "note:" not in str(tukey)  # Tukey's interval and its p-value agree by construction (one metric)


@settings(max_examples=25, deadline=None)
@given(
    st.integers(2, 5).flatmap(
        lambda k: st.lists(
            st.lists(st.floats(0, 1, allow_nan=False, width=32), min_size=k, max_size=k), min_size=3, max_size=25
        )
    ),
    st.randoms(use_true_random=False),
)
def test_t_test_pvalues_and_means_hold_whatever_the_order_of_the_input(matrix, random):
    matrix = np.array(matrix, dtype=np.float64)
    names = [f"s{i}" for i in range(matrix.shape[1])]
    queries = [f"q{j:02d}" for j in range(len(matrix))]
    values = {name: {"m": dict(zip(queries, matrix[:, i].tolist(), strict=True))} for i, name in enumerate(names)}
    arguments = {"test": "t-test", "correction": None, "baseline": "s0", "random_state": 0, "n_resamples": 200}
    result = quiet(compare_per_query, values, **arguments)
    shuffled = {name: {"m": dict(random.sample(list(values[name]["m"].items()), len(queries)))} for name in names}
    assert same(quiet(compare_per_query, shuffled, **arguments), result)
    frame = result.to_frame().set_index("system")
    for i, name in enumerate(names):
        assert frame.loc[name, "mean"] == running_sum(matrix[:, i]) / len(matrix)
    for row in result.to_frame(kind="pairs").itertuples():
        d = matrix[:, names.index(row.system)] - matrix[:, 0]
        if np.all(d == 0):
            assert row.pvalue == 1.0
        elif np.ptp(d) > 0:
            expected = stats.ttest_rel(matrix[:, names.index(row.system)], matrix[:, 0]).pvalue
            assert row.pvalue == pytest.approx(expected, rel=1e-9, abs=1e-300)


def test_tuple_query_ids_and_constant_metrics():
    values = {
        "a": {"m": {("t", 1): 0.1, ("t", 2): 0.3, ("t", 3): 0.2}},
        "b": {"m": {("t", 1): 0.2, ("t", 2): 0.5, ("t", 3): 0.6}},
    }
    assert quiet(compare_per_query, values, test="t-test").per_query["qid"].tolist() == [("t", 1), ("t", 2), ("t", 3)]
    with pytest.warns(UserWarning, match=r"'zero': the same value \(0\) for every system on every query"):
        compare_per_query({"a": {"zero": [0.0, 0.0]}, "b": {"zero": [0.0, 0.0]}}, test="t-test")


def test_a_pyarrow_table_in_the_long_layout_gives_the_pandas_frames_result():
    pd = pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        [(s, m, f"q{q}", rng.random()) for s in ("a", "b", "c") for m in ("map", "ndcg") for q in range(8)],
        columns=["name", "measure", "qid", "value"],  # PyTerrier's names
    )
    expected = compare_per_query(frame, test="t-test", random_state=0)
    table = compare_per_query(pa.Table.from_pandas(frame), test="t-test", random_state=0)
    assert table.to_json() == expected.to_json()
    with pytest.raises(ValueError, match=r"needs a system column .* its columns are \['sytem'"):
        compare_per_query(pa.Table.from_pandas(frame.rename(columns={"name": "sytem"})), test="t-test")


def test_a_baseline_or_metric_in_another_case_is_suggested():
    values = {"BM25": {"nDCG": [0.1, 0.2, 0.3]}, "dense": {"nDCG": [0.2, 0.1, 0.5]}}
    with pytest.raises(ValueError, match=r"baseline='bm25' is not one of the systems.*Did you mean 'BM25'\?"):
        compare_per_query(values, baseline="bm25")
    with pytest.raises(ValueError, match=r"has no values of \['ndcg'\].*Did you mean 'nDCG'\?"):
        compare_per_query(values, metrics=["ndcg"])


def test_arrays_without_query_ids_of_different_lengths_are_refused_not_paired_by_position():
    values = {"a": {"map": [0.1, 0.2, 0.3, 0.4]}, "b": {"map": [0.2, 0.3, 0.5]}}  # which query does b lack?
    with pytest.raises(ValueError, match=r"values\['b'\]\['map'\] holds 3 values and values\['a'\]\['map'\] 4"):
        compare_per_query(values)
    values["b"]["map"].append(np.nan)  # NaN says which: the last query, left out with a warning
    with pytest.warns(UserWarning, match="1 of 4 queries are left out of 'map'"):
        assert compare_per_query(values, test="t-test").to_frame()["n_queries"].tolist() == [3, 3]
