"""compare_runs: TREC runs evaluated by evaluate_run's own steps, then compared: the glue route's result to the bit."""

import warnings

import numpy as np
import pytest
from run_files import collection, glue, write_collection
from scipy import stats

from sklearn_rankmetrics import compare_per_query, compare_rankings, compare_runs
from sklearn_rankmetrics._core._numpy_ops import running_sum
from sklearn_rankmetrics._core._tolerance import equal_up_to_rounding
from sklearn_rankmetrics.trec import evaluate_run, read_run

METRICS = ["ndcg_cut.10", "map", "P.5", "recip_rank", "nDCG@10"]
NAMES = ["ndcg_cut_10", "map", "P_5", "recip_rank", "nDCG@10"]


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def rows_equal(first, second):
    """Every row of two comparisons equal to the last bit (nan where nan)."""
    assert len(first.rows) == len(second.rows)
    for a, b in zip(first.rows, second.rows, strict=True):
        assert a.keys() == b.keys()
        for key in a:
            if isinstance(a[key], float) and np.isnan(a[key]):
                assert isinstance(b[key], float) and np.isnan(b[key]), key
            else:
                assert a[key] == b[key], (key, a[key], b[key])


def test_ten_run_files_with_tukey_and_latex_in_one_call_equal_the_glue_route_to_the_bit(tmp_path):
    qrels, runs = collection(0, skip=0.03)
    qrels_path, paths = write_collection(tmp_path, qrels, runs)
    with pytest.warns(UserWarning, match="judged queries that some run answers are left out"):
        result = compare_runs(qrels_path, paths, metrics=METRICS, test="tukey-hsd", random_state=0)
    # The glue route: evaluate_run on each file, the queries every run answers, the same statistics.
    by_hand = quiet(compare_per_query, glue(qrels_path, paths, METRICS), test="tukey-hsd", random_state=0)
    rows_equal(result, by_hand)
    assert result.to_latex() == by_hand.to_latex() and result.to_json() == by_hand.to_json()
    assert result.to_latex().count(r"\\") == 1 + 10 + 1  # the header, a row per run, the legend
    # The per-query values and the means are evaluate_run's, to the last bit, on the common queries.
    ids = result.per_query["qid"]
    for name, path in paths.items():
        alone = evaluate_run(qrels_path, path, METRICS, average=False)
        on_common = np.isin(alone["qid"], ids)
        restricted = {q: docs for q, docs in runs[name].items() if q in set(ids)}
        means = evaluate_run(qrels_path, restricted, METRICS)
        for metric in NAMES:
            assert np.array_equal(result.per_query[metric][name], alone[metric][on_common])
            row = next(r for r in result.rows if r["system"] == name and r["metric"] == metric)
            assert row["mean"] == means[metric], (name, metric)


def test_the_glue_route_through_compare_rankings_agrees_up_to_rounding():
    """The 15 lines a user wrote before: every (query, document) a row, unretrieved judged ones at -inf."""
    qrels, runs = collection(1, n_runs=4, decimals=None)  # no tie: trec_eval breaks them by document id
    runs = {name: {q: docs for q, docs in run.items() if q in qrels} for name, run in runs.items()}
    keys = sorted(
        {(q, d) for run in runs.values() for q, docs in run.items() for d in docs}
        | {(q, d) for q, docs in qrels.items() for d in docs}
    )
    qid = np.array([q for q, _ in keys])
    y_true = np.array([max(qrels[q].get(d, 0), 0) for q, d in keys])
    scores = {name: np.array([run.get(q, {}).get(d, -np.inf) for q, d in keys]) for name, run in runs.items()}
    glued = quiet(compare_rankings, y_true, scores, qid=qid, metrics=["ndcg@10", "ap"], test="t-test", ties="stable")
    ours = quiet(compare_runs, qrels, runs, metrics=["ndcg_cut.10", "map"], test="t-test")
    for metric, theirs in (("ndcg_cut_10", "ndcg@10"), ("map", "ap")):
        for name in runs:
            assert equal_up_to_rounding(ours.per_query[metric][name], glued.per_query[theirs][name]).all()
    pvalues = [row["pvalue"] for row in ours.rows if row["baseline"] is not None]
    assert pvalues == pytest.approx([row["pvalue"] for row in glued.rows if row["baseline"] is not None], rel=1e-9)


def test_every_way_to_give_the_runs_gives_the_same_comparison(tmp_path):
    pd = pytest.importorskip("pandas")
    qrels, runs = collection(2, n_runs=3, n_queries=12)
    qrels_path, paths = write_collection(tmp_path, qrels, runs)
    arguments = {"metrics": ["map", "P.5"], "test": "t-test"}
    expected = quiet(compare_runs, qrels, runs, **arguments)
    frames = {
        name: pd.DataFrame(
            [(q, d, s) for q, docs in run.items() for d, s in docs.items()], columns=["qid", "docno", "score"]
        )
        for name, run in runs.items()
    }
    qrels_frame = pd.DataFrame(
        [(q, d, r) for q, docs in qrels.items() for d, r in docs.items()], columns=["query_id", "doc_id", "relevance"]
    )
    named_files = {f"{name}.txt": path for name, path in paths.items()}
    for qrels_source, runs_source in [
        (qrels_path, named_files),
        (qrels_frame, {f"{name}.txt": frame for name, frame in frames.items()}),
        (qrels_path, list(paths.values())),
        (qrels_path, tmp_path / "runs"),
        (qrels_path, str(tmp_path / "runs" / "run*.txt")),
        (qrels_path, [read_run(path) for path in paths.values()]),  # named by their tags
    ]:
        result = quiet(compare_runs, qrels_source, runs_source, **arguments)
        assert [name.replace(".txt", "") for name in result.per_query["map"]] == list(runs)
        for metric in ("map", "P_5"):
            for a, b in zip(result.per_query[metric].values(), expected.per_query[metric].values(), strict=True):
                assert np.array_equal(a, b)


def test_runs_of_one_file_name_in_two_folders_are_named_by_their_folders(tmp_path):
    qrels, runs = collection(3, n_runs=2, n_queries=8)
    _, first = write_collection(tmp_path / "bm25", qrels, {"run": runs["run0"]})
    qrels_path, second = write_collection(tmp_path / "dense", qrels, {"run": runs["run1"]})
    result = quiet(
        compare_runs, qrels_path, [first["run"], second["run"]], metrics=["map"], baseline="dense/runs/run.txt"
    )
    assert list(result.per_query["map"]) == ["bm25/runs/run.txt", "dense/runs/run.txt"]
    with pytest.raises(ValueError, match="is given twice"):
        compare_runs(qrels_path, [first["run"], first["run"]], metrics=["map"])


@pytest.mark.parametrize(
    ("runs", "error", "message"),
    [
        ("folder/*.nothing", ValueError, "matches no run file"),
        ("empty", ValueError, "a folder with no run file"),
        ("one", ValueError, "needs at least two runs; got 1"),
        (42, TypeError, "runs must be a mapping"),
        ([{"q": {"d": 1.0}}], TypeError, r"runs\[0\] is a dict, which has no name"),
    ],
)
def test_runs_that_name_no_two_runs_are_refused(tmp_path, runs, error, message):
    (tmp_path / "empty").mkdir()
    (tmp_path / "one").mkdir()
    (tmp_path / "one" / "run").write_text("q1 Q0 d1 1 1.0 r\n")
    runs = str(tmp_path / runs) if isinstance(runs, str) else runs
    with pytest.raises(error, match=message):
        compare_runs({"q1": {"d1": 1}}, runs, metrics=["map"])


def test_runs_with_one_tag_need_a_mapping(tmp_path):
    qrels, runs = collection(4, n_runs=2, n_queries=5)
    _, paths = write_collection(tmp_path, qrels, {"a": runs["run0"], "b": runs["run1"]})
    same = [read_run(path) for path in paths.values()]
    same[1] = type(same[1])(same[1].query_id, same[1].doc_id, same[1].score, same[0].name)
    with pytest.raises(ValueError, match="has the tag 'a' of another run: pass a mapping"):
        compare_runs(qrels, same, metrics=["map"])


def test_common_queries_by_default_with_a_warning_and_union_or_qrels_as_trec_eval_c():
    qrels = {f"q{i}": {"d1": 1, "d2": 0} for i in range(8)}
    full = {f"q{i}": {"d1": float(i % 3), "d2": 1.0} for i in range(8)}
    partial = {q: docs for q, docs in full.items() if q not in ("q3", "q5")}
    sparse = {q: {"d2": 2.0, "d1": 1.0} for q in ("q0", "q1", "q2", "q3")}
    runs = {"full": full, "partial": partial, "sparse": sparse}
    with pytest.warns(UserWarning, match=r"5 of the 8 judged queries .* left out.*'partial' 2, 'sparse' 4"):
        common = compare_runs(qrels, runs, metrics=["map"], test="t-test")
    assert common.per_query["qid"].tolist() == ["q0", "q1", "q2"]
    union = quiet(compare_runs, qrels, runs, metrics=["map"], test="t-test", queries="union")
    everything = quiet(compare_runs, {**qrels, "q9": {"d1": 1}}, runs, metrics=["map"], test="t-test", queries="qrels")
    assert union.per_query["qid"].tolist() == [f"q{i}" for i in range(8)]
    assert everything.per_query["qid"].tolist() == [*(f"q{i}" for i in range(8)), "q9"]
    for name, run in runs.items():
        c = evaluate_run(qrels, run, ["map"], complete=True, average=False)
        assert np.array_equal(union.per_query["map"][name], c["map"])
        assert (
            union.to_frame().set_index("system").loc[name, "mean"]
            == evaluate_run(qrels, run, ["map"], complete=True)["map"]
        )
    with pytest.raises(ValueError, match="No judged query is answered by every run"):
        compare_runs(qrels, {"a": {"q0": {"d1": 1.0}}, "b": {"q1": {"d1": 1.0}}}, metrics=["map"])
    with pytest.warns(UserWarning, match="Run 'other' answers none of the 8 queries compared"):
        compare_runs(qrels, {"full": full, "other": {"Q0": {"d1": 1.0}}}, metrics=["map"], queries="union")


def test_queries_nobody_judged_and_unjudged_pool_documents_follow_trec_eval():
    qrels = {"q1": {"d1": 1, "d2": -1, "d3": 0}, "q2": {"d4": 2, "d5": -1}}
    runs = {
        "a": {"q1": {"d2": 3.0, "d1": 2.0}, "q2": {"d5": 1.0, "d4": 0.5}, "q_x": {"d1": 9.0}},
        "b": {"q1": {"d1": 3.0, "d3": 2.0}, "q2": {"d4": 1.0}, "q_x": {"d1": 9.0}},
    }
    for options in ({}, {"judged_only": True}, {"relevance_level": 2}, {"max_depth": 1}, {"ties": "average"}):
        result = quiet(compare_runs, qrels, runs, metrics=["map", "bpref", "P.1"], test="t-test", **options)
        assert result.per_query["qid"].tolist() == ["q1", "q2"]  # q_x, judged by nobody, is skipped as trec_eval does
        for name, run in runs.items():
            alone = evaluate_run(qrels, run, ["map", "bpref", "P.1"], average=False, **options)
            for metric in ("map", "bpref", "P_1"):
                assert np.array_equal(result.per_query[metric][name], alone[metric]), (options, name, metric)


def test_measures_without_a_number_per_query_or_the_same_for_every_run_are_refused_by_name_and_left_out_of_sets():
    qrels, runs = collection(5, n_runs=2, n_queries=6)
    result = quiet(compare_runs, qrels, runs, metrics=["official"], test="t-test")
    metrics = list(dict.fromkeys(row["metric"] for row in result.rows))
    assert "map" in metrics and "P_10" in metrics and "gm_map" in metrics
    assert not {"runid", "num_q", "relstring", "num_rel"} & set(metrics)
    for measure in ("relstring", "num_q", "runid"):
        with pytest.raises(ValueError, match="has no number per query to compare"):
            compare_runs(qrels, runs, metrics=[measure])
    # num_rel counts the qrels' relevant documents: every run has its values, a hypothesis that tests nothing.
    with pytest.raises(ValueError, match=r"'num_rel' is the number of relevant documents .* the same for every run"):
        compare_runs(qrels, runs, metrics=["num_rel"])
    with pytest.raises(ValueError, match="Did you mean 'map'"):
        compare_runs(qrels, runs, metrics=["mapp"])
    with pytest.raises(TypeError, match="a sequence of measure names"):
        compare_runs(qrels, runs, metrics="map")


def test_an_error_in_a_run_names_the_run_and_its_file(tmp_path):
    qrels, runs = collection(6, n_runs=2, n_queries=5)
    qrels_path, paths = write_collection(tmp_path, qrels, runs)
    paths["run1"].write_text("q0 Q0 d1 1 1.0 r\nq0 Q0 d2 2 oops r\n")
    with pytest.raises(ValueError, match=r"run 'run1': .*run1.txt, line 2: the score column must be a number"):
        compare_runs(qrels_path, paths, metrics=["map"])
    with pytest.raises(ValueError, match=r"run 'nan': the run scores document 'd1' of query 'q0' NaN"):
        compare_runs(qrels, {"fine": runs["run0"], "nan": {"q0": {"d1": float("nan")}}}, metrics=["map"])
    with pytest.raises(ValueError, match=r"run 'twice': .*retrieved twice|run 'twice': .*twice"):
        pd = pytest.importorskip("pandas")
        frame = pd.DataFrame({"query_id": ["q0", "q0"], "doc_id": ["d1", "d1"], "score": [1.0, 2.0]})
        compare_runs(qrels, {"fine": runs["run0"], "twice": frame}, metrics=["map"])


def test_a_baseline_that_is_no_run_is_refused_with_the_name_meant():
    qrels, runs = collection(7, n_runs=2, n_queries=5)
    with pytest.raises(
        ValueError, match=r"baseline='run_0' is not one of the systems \['run0', 'run1'\]\. Did you mean"
    ):
        compare_runs(qrels, runs, metrics=["map"], baseline="run_0")


def test_pvalues_are_scipys_on_evaluate_runs_values():
    """ranx's "student" is scipy's ttest_rel and PyTerrier's "wilcoxon" scipy's wilcoxon (their sources)."""
    qrels, runs = collection(8, n_runs=3, n_queries=25)
    values = {name: evaluate_run(qrels, run, ["map"], average=False)["map"] for name, run in runs.items()}
    for test, reference in (("student", stats.ttest_rel), ("wilcoxon", stats.wilcoxon)):
        result = quiet(compare_runs, qrels, runs, metrics=["map"], baseline="run0", test=test, correction=None)
        for row in result.to_frame(kind="pairs").itertuples():
            assert row.pvalue == pytest.approx(reference(values[row.system], values["run0"]).pvalue, rel=1e-12)


def test_tukey_hsd_is_the_two_way_test_of_the_system_by_query_anova():
    qrels, runs = collection(9, n_runs=4, n_queries=20)
    result = quiet(compare_runs, qrels, runs, metrics=["map"], test="tukey", correction=None)
    matrix = np.column_stack(list(result.per_query["map"].values()))
    n, k = matrix.shape
    residual = matrix - matrix.mean(axis=0) - matrix.mean(axis=1, keepdims=True) + matrix.mean()
    mse = (residual**2).sum() / ((n - 1) * (k - 1))
    for row in result.to_frame(kind="pairs").itertuples():
        q = abs(row.delta) / np.sqrt(mse / n)
        expected = stats.studentized_range.sf(q, k, (n - 1) * (k - 1))
        assert row.pvalue == pytest.approx(expected, rel=1e-6)
    # ranx's "tukey" (scipy.stats.tukey_hsd of independent samples) ignores the pairing: another p-value.
    one_way = stats.tukey_hsd(*matrix.T).pvalue
    assert not np.allclose(result.to_frame(kind="pairs").pvalue, one_way[np.triu_indices(k, 1)])


def test_means_sum_in_trec_eval_order_and_ids_sort_as_bytes():
    qrels = {"é": {"d": 1}, "z": {"d": 1}, "a": {"d": 1}, "Z": {"d": 1}, "10": {"d": 1}, "9": {"d": 1}}
    runs = {
        "a": {q: {"d": 1.0, "x": 2.0} for q in qrels},
        "b": {q: {"d": 2.0, "x": float(i % 2)} for i, q in enumerate(qrels)},
    }
    result = quiet(compare_runs, qrels, runs, metrics=["recip_rank"], test="t-test")
    assert result.per_query["qid"].tolist() == ["10", "9", "Z", "a", "z", "é"]  # strcmp's order of the UTF-8 bytes
    for name in runs:
        assert (
            result.to_frame().set_index("system").loc[name, "mean"]
            == running_sum(result.per_query["recip_rank"][name]) / 6
            == evaluate_run(qrels, runs[name], ["recip_rank"])["recip_rank"]
        )


def test_a_folder_holding_the_qrels_too_takes_only_the_runs(tmp_path):
    qrels, runs = collection(11, n_runs=3, n_queries=6)
    _, paths = write_collection(tmp_path, qrels, runs)
    inside = tmp_path / "runs" / "qrels.txt"
    inside.write_text((tmp_path / "qrels").read_text())
    result = quiet(compare_runs, inside, tmp_path / "runs", metrics=["map"])
    assert list(result.per_query["map"]) == ["run0.txt", "run1.txt", "run2.txt"]
    result = quiet(compare_runs, inside, (path for path in paths.values()), metrics=["map"])  # any iterable
    assert list(result.per_query["map"]) == ["run0.txt", "run1.txt", "run2.txt"]


def test_two_spellings_of_one_measure_are_told_by_their_values():
    qrels, runs = collection(12, n_runs=3, n_queries=10)
    with pytest.warns(UserWarning, match="'ndcg_cut_10' and 'nDCG@10' give every system the same value"):
        compare_runs(qrels, runs, metrics=["ndcg_cut.10", "nDCG@10", "map"], test="t-test")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compare_runs(qrels, runs, metrics=["map", "P.10"], test="t-test")  # different measures: no warning


def test_a_missing_file_is_named_with_its_run(tmp_path):
    qrels, runs = collection(13, n_runs=2, n_queries=4)
    with pytest.raises(FileNotFoundError, match=r"run 'b': .*No such file.*missing\.run"):
        compare_runs(qrels, {"a": runs["run0"], "b": tmp_path / "missing.run"}, metrics=["map"])


def test_a_relevance_level_above_every_judgement_is_named_where_every_run_scores_0():
    qrels, runs = collection(14, n_runs=3, n_queries=8)  # judgements up to 2
    with pytest.warns(UserWarning, match=r"'map': the same value \(0\) .* relevance_level=3 .* largest judgement is 2"):
        compare_runs(qrels, runs, metrics=["map"], relevance_level=3, test="t-test")
    unjudged = {q: dict.fromkeys(docs, 0) for q, docs in qrels.items()}
    with pytest.warns(UserWarning, match=r"largest judgement is 0\)\."):
        compare_runs(unjudged, runs, metrics=["map"], test="t-test")


def test_the_comparison_of_runs_offers_what_compare_rankings_does():
    from sklearn_rankmetrics import QueryComparisonDisplay, RankingComparison

    qrels, runs = collection(15, n_runs=3, n_queries=20)
    result = quiet(compare_runs, qrels, runs, metrics=["map", "P.10"], test="tukey", baseline="run0", random_state=0)
    assert RankingComparison.from_json(result.to_json()).to_frame(kind="rows").equals(result.to_frame(kind="rows"))
    assert result.anova("map").index.tolist() == ["system", "query", "residual"]
    assert set(quiet(result.queries_needed, "P_10")) == {("run0", "run1"), ("run0", "run2")}
    pytest.importorskip("matplotlib")
    assert QueryComparisonDisplay.from_comparison(result, metric="map").ax_ is not None


def test_an_empty_run_names_the_queries_option_that_scores_it(tmp_path):
    qrels, runs = collection(15, n_runs=2, n_queries=4)
    empty = tmp_path / "empty.run"
    empty.write_text("")
    with pytest.raises(ValueError, match=r"run 'b': the run is empty.*Pass queries='union' \(or 'qrels'"):
        compare_runs(qrels, {"a": runs["run0"], "b": empty}, metrics=["map"])
    result = quiet(compare_runs, qrels, {"a": runs["run0"], "b": empty}, metrics=["map"], queries="union")
    assert not result.per_query["map"]["b"].any()  # every query 0, as trec_eval -c


def test_a_path_that_names_nothing_is_refused_as_missing_not_as_too_few_runs(tmp_path):
    qrels, _ = collection(16, n_runs=2, n_queries=4)
    for runs in (tmp_path / "no-folder", [tmp_path / "no.run"]):
        with pytest.raises(FileNotFoundError, match=r"No such file or directory: .*no[-.]"):
            compare_runs(qrels, runs, metrics=["map"])


class ConvertsToDict:
    """An object of another library that holds a run or qrels and converts to a dict."""

    def to_dict(self):
        return {}


@pytest.mark.parametrize("where", ["qrels", "run"])
def test_qrels_or_runs_of_no_accepted_kind_are_refused_with_the_accepted_kinds(where):
    qrels, runs = collection(17, n_runs=2, n_queries=4)
    given = {"qrels": qrels, "runs": runs}
    if where == "qrels":
        given["qrels"] = ConvertsToDict()
        message = r"qrels must be a path .* a dict \{query_id: \{doc_id: relevance\}\}.*pass qrels\.to_dict\(\)"
    else:
        given["runs"] = {"a": runs["run0"], "b": ConvertsToDict()}
        message = r"run 'b': run must be a path .*trec\.Run; got test_compare_runs\.ConvertsToDict.*run\.to_dict"
    with pytest.raises(TypeError, match=message):
        compare_runs(given["qrels"], given["runs"], metrics=["map"])
