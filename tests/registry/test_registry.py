"""The registry: every metric's record, every peer spelling, and the conventions that reproduce each tool."""

import inspect
import re

import numpy as np
import pytest

from sklearn_rankmetrics import (
    MetricInfo,
    get_ranking_scorer,
    get_ranking_scorer_names,
    mean_average_precision_score,
    metric_info,
    ndcg_score,
    ranking_report,
)
from sklearn_rankmetrics.registry._metric_info import CONVENTION_KEYS
from sklearn_rankmetrics.registry._names import parse_metric_name
from sklearn_rankmetrics.registry._registry import REGISTRY, conventions_table, metric_table

# Each tool's spelling (from the issue), the canonical metric and the options the spelling sets.
SPELLINGS = [
    # trec_eval
    ("ndcg_cut_10", "ndcg", {"k": 10}),
    ("ndcg_cut.10", "ndcg", {"k": 10}),
    ("P_10", "precision", {"k": 10}),
    ("P.10", "precision", {"k": 10}),
    ("recall_100", "recall", {"k": 100}),
    ("map_cut_10", "map", {"k": 10}),
    ("success_1", "hit_rate", {"k": 1}),
    ("Rprec", "r_precision", {}),
    ("recip_rank", "mrr", {}),
    # ir_measures
    ("nDCG@10", "ndcg", {"k": 10}),
    ("P@10", "precision", {"k": 10}),
    ("R@100", "recall", {"k": 100}),
    ("AP", "map", {}),
    ("AP@10", "map", {"k": 10}),
    ("RR", "mrr", {}),
    ("Success@1", "hit_rate", {"k": 1}),
    # ranx
    ("ndcg@10", "ndcg", {"k": 10}),
    ("precision@10", "precision", {"k": 10}),
    ("recall@100", "recall", {"k": 100}),
    ("hit_rate@1", "hit_rate", {"k": 1}),
    ("r-precision", "r_precision", {}),
    ("mrr", "mrr", {}),
    ("ndcg_burges@10", "ndcg", {"k": 10, "gain": "exponential"}),
    # LightGBM / XGBoost
    ("map@10", "map", {"k": 10}),
    ("ndcg@10-", "ndcg", {"k": 10, "zero_division": 0.0}),
    ("map@5-", "map", {"k": 5, "zero_division": 0.0}),
    ("pre@3", "precision", {"k": 3}),
    # torchmetrics
    ("RetrievalNormalizedDCG", "ndcg", {}),
    ("RetrievalMAP", "map", {}),
    ("RetrievalMRR", "mrr", {}),
    ("RetrievalPrecision", "precision", {}),
    ("RetrievalRecall", "recall", {}),
    ("RetrievalHitRate", "hit_rate", {}),
    ("RetrievalRPrecision", "r_precision", {}),
]


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(40), rng.integers(1, 150, 40))
    y_true = rng.choice(4, len(qid), p=[0.7, 0.15, 0.1, 0.05]).astype(float)
    y_score = np.round(rng.normal(size=len(qid)), 1)  # ties
    return y_true, y_score, qid


@pytest.mark.parametrize(("spelling", "canonical", "options"), SPELLINGS)
def test_every_peer_spelling_is_the_same_computation(spelling, canonical, options, rows):
    y_true, y_score, qid = rows
    info = metric_info(spelling)
    assert info.canonical == canonical
    assert spelling in info.aliases
    assert parse_metric_name(spelling) == (info.function, options)
    assert dict(info.settings) == options
    expected = info.function(y_true, y_score, qid=qid, **options)
    assert ranking_report(y_true, y_score, qid=qid, metrics=[spelling])[spelling] == pytest.approx(expected, abs=0)


def test_a_record_reads_by_attribute_and_by_key():
    info = metric_info("ndcg@10")
    assert isinstance(info, MetricInfo)
    assert info == metric_info("nDCG@10") != metric_info("ndcg")  # equal records: the same computation
    assert dict(info.settings) == {"k": 10} and info.options["k"] is None
    assert metric_info("NDCG") is metric_info(ndcg_score)  # no settings: the registry's own record
    for key in ("canonical", "function", "options", "aliases", "definition", "reference", "conventions"):
        assert info[key] is getattr(info, key)
    assert set(info) >= {"canonical", "function", "options", "aliases", "reference"}
    assert info.function is ndcg_score
    with pytest.raises(KeyError):
        info["kernel"]  # an implementation detail, not part of the record


@pytest.mark.parametrize("record", REGISTRY.values(), ids=list(REGISTRY))
def test_options_are_the_functions_keyword_options_with_their_defaults(record):
    parameters = inspect.signature(record.function).parameters.values()
    assert dict(record.options) == {p.name: p.default for p in parameters if p.kind is p.KEYWORD_ONLY}
    assert record.definition.endswith(".") and record.reference
    for alias in record.aliases:  # every listed alias reads as this metric, with k for a cutoff
        concrete = re.sub(r"\.p$", ".95", alias.replace("_k", "_5").replace(".k", ".5").replace("@k", "@5"))
        assert metric_info(concrete).canonical == record.canonical and concrete in record.aliases


def test_records_cannot_be_changed():
    info = metric_info("map")
    with pytest.raises(AttributeError):
        info.canonical = "ap"
    with pytest.raises(TypeError):
        info.options["k"] = 3


def test_scorer_names_come_from_the_registry():
    assert set(get_ranking_scorer_names()) == {
        name
        for record in REGISTRY.values()
        if record.family in ("ranking", "diversity")
        for name in (record.canonical, *record.variants)
        if "burges" not in name
    }


def test_recommender_metrics_are_found_by_their_names_and_have_no_scorer():
    from sklearn_rankmetrics import gini_index, user_coverage

    assert metric_info("GiniIndex") is metric_info("gini_index") is metric_info(gini_index)
    assert metric_info("UserCoverageAtN").function is user_coverage
    assert metric_info("arp").family == "recommender"
    with pytest.raises(ValueError, match="is not a ranking metric name"):
        get_ranking_scorer("gini_index")


def test_an_unknown_name_says_the_nearest_one_and_how_to_list_them():
    with pytest.raises(
        ValueError, match=r"'nDGC@10' is not a ranking metric name. Did you mean 'ndcg@10'\?.*metric_info"
    ):
        metric_info("nDGC@10")


def test_a_minus_and_zero_division_together_are_refused():
    with pytest.raises(ValueError, match="sets zero_division twice"):
        metric_info("ndcg@10-(zero_division=1.0)")


def test_the_docs_tables_list_every_record_and_alias():
    table = metric_table()
    for record in REGISTRY.values():
        assert f"`{record.canonical}`" in table and record.function.__name__ in table
        assert all(f"`{alias}`" in table for alias in record.aliases)
    assert (
        "| lightgbm | `map` | `map@k` | `denominator='capped'`, `ties='stable'`, `zero_division=1.0` | any input |"
        in conventions_table()
    )


def lambdarank_fit_and_valid(rng, n_queries=30):
    sizes = rng.integers(5, 40, n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    X = rng.normal(size=(len(qid), 5))
    y = np.clip(np.round(X[:, 0] + rng.normal(size=len(qid))), 0, 3).astype(int)
    return X, y, qid, sizes


def test_lightgbm_conventions_reproduce_its_ndcg_and_map():
    lightgbm = pytest.importorskip("lightgbm")
    rng = np.random.default_rng(1)
    X, y, _, sizes = lambdarank_fit_and_valid(rng)
    Xv, yv, qv, sizes_v = lambdarank_fit_and_valid(rng)
    yv[qv == 0] = 0  # a query without a relevant document
    ranker = lightgbm.LGBMRanker(n_estimators=5, n_jobs=1, verbose=-1, eval_at=[5], metric=["ndcg", "map"])
    ranker.fit(X, y, group=sizes, eval_set=[(Xv, yv)], eval_group=[sizes_v])
    scores = ranker.predict(Xv)
    history = ranker.evals_result_["valid_0"]
    options = {key: value for key, value in metric_info("ndcg@5").conventions["lightgbm"].items() if key != "note"}
    ndcg = ndcg_score(yv, scores, qid=qv, k=5, **options)
    assert ndcg == pytest.approx(history["ndcg@5"][-1], abs=1e-6)
    options = {
        key: value for key, value in metric_info("map@5").conventions["lightgbm"].items() if key not in CONVENTION_KEYS
    }
    assert mean_average_precision_score(yv > 0, scores, qid=qv, k=5, **options) == pytest.approx(
        history["map@5"][-1], abs=1e-6
    )


@pytest.mark.parametrize("name", ["ndcg@5", "ndcg@5-", "map@5", "map@5-"])
def test_xgboost_conventions_reproduce_its_metrics(name, monkeypatch):
    xgboost = pytest.importorskip("xgboost")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    rng = np.random.default_rng(2)
    X, y, qid, _ = lambdarank_fit_and_valid(rng)
    Xv, yv, qv, _ = lambdarank_fit_and_valid(rng)
    if name.startswith("map"):
        y, yv = (y > 1).astype(int), (yv > 1).astype(int)  # XGBoost's map takes binary labels
    yv[qv == 0] = 0
    ranker = xgboost.XGBRanker(n_estimators=3, n_jobs=1, eval_metric=[name], objective="rank:ndcg")
    ranker.fit(X, y, qid=qid, eval_set=[(Xv, yv)], eval_qid=[qv], verbose=False)
    scores = ranker.predict(Xv)
    info = metric_info(name)
    options = {key: value for key, value in info.conventions["xgboost"].items() if key not in CONVENTION_KEYS}
    _, spelled = parse_metric_name(name)
    options.update(spelled)  # the '-' sets zero_division=0.0
    ours = info.function(yv, scores, qid=qv, **options)
    assert ours == pytest.approx(ranker.evals_result()["validation_0"][name][-1], abs=1e-5)


def test_records_pickle_copy_and_hash_as_the_registrys_own():
    import copy
    import pickle

    info = metric_info("ndcg_burges@2")
    assert pickle.loads(pickle.dumps(info)) == info
    assert pickle.loads(pickle.dumps(metric_info("map"))) is metric_info("map")
    assert copy.deepcopy(info) is info and copy.copy(info) is info
    assert len({metric_info("nDCG@10"), metric_info("ndcg_cut_10"), metric_info("ndcg")}) == 2
    with pytest.raises(AttributeError, match="read-only"):
        info.aliases.canonical = "map"
    with pytest.raises(TypeError, match="read-only"):
        info.conventions["lightgbm"]["gain"] = "linear"


def test_a_records_settings_compute_what_its_name_names(rows):
    y_true, y_score, qid = rows
    for name in ("ndcg_burges@2", "map@5-", "P.10", "nNRBP"):
        info = metric_info(name)
        if info.family == "ranking":
            scorer_value = ranking_report(y_true, y_score, qid=qid, metrics=[name])[name]
            assert info.function(y_true, y_score, qid=qid, **info.settings) == pytest.approx(scorer_value, abs=0)
    assert metric_info(get_ranking_scorer("ndcg_burges@2")) == metric_info("ndcg_burges@2")


@pytest.mark.parametrize(
    ("name", "error", "message"),
    [
        (True, TypeError, "name must be a metric name"),
        (None, TypeError, "name must be a metric name"),
        ("ndcg@10(foo=1)", ValueError, "sets foo, which is not an option of ndcg_score"),
        ("P.10-", ValueError, "XGBoost's mark for ndcg and map only"),
        ("ndcg\n", ValueError, "is not a ranking metric name"),
        ("P@" + "9" * 40, ValueError, "k must be below 2**63"),
        ("mean_average_precision_score", ValueError, "Did you mean 'map'"),
        ("ndcg_burges@10(gain='linear')", ValueError, "'ndcg_burges' already sets"),
    ],
)
def test_bad_names_are_refused_with_the_fix(name, error, message):
    with pytest.raises(error, match=re.escape(message)):
        metric_info(name)


def test_every_public_metric_function_has_a_record():
    import sklearn_rankmetrics

    functions = {
        getattr(sklearn_rankmetrics, name)
        for name in sklearn_rankmetrics.metrics.__all__
        if name.endswith(("_score", "_index", "_loss", "_coverage", "_overlap", "_entropy"))
    }
    assert {function for function in functions if metric_info(function).function is not function} == set()


def test_every_ir_measures_spelling_and_option_name_exists_in_ir_measures():
    # Only real spellings: each ir_measures name parses in ir_measures, and the option names a record takes from
    # it (INST's T and max_rel) are that measure's parameters.
    ir_measures = pytest.importorskip("ir_measures")
    for record in REGISTRY.values():
        for spelling in record.spellings.get("ir_measures", ()):
            measure = ir_measures.parse_measure(spelling.replace("@k", "@10"))
            assert set(record.peer_options.get("ir_measures", {})) <= set(measure.SUPPORTED_PARAMS), spelling
    assert "ir_measures" not in metric_info("ncg").spellings  # ir_measures 0.4.3 has no NCG (its issue 19 asks)
    assert metric_info("opa").spellings["tf_ranking"] == ("OPAMetric", "ordered_pair_accuracy")


def test_inst_record_gives_cwl_evals_continuation():
    assert "((i + T + T_i - 1) / (i + T + T_i))^2" in metric_info("inst").definition
    assert "((i + 2T - 1) / (i + 2T))^2" in metric_info("INSQ").definition


def test_cwl_records_give_ir_measures_names_and_depth():
    # ir_measures writes INST(T=2, max_rel=3) and sums its ranks to 1000 (cwl_eval's default depth).
    info = metric_info("INST(T=2, max_rel=3)")
    assert dict(info.settings) == {"target": 2, "max_grade": 3}
    for name in ("inst", "insq"):
        record = metric_info(name)
        assert dict(record.peer_options) == {"ir_measures": {"T": "target", "max_rel": "max_grade"}}
        assert record.conventions["ir_measures"]["k"] == record.conventions["cwl_eval"]["k"] == 1000
        assert not any(alias.endswith("-T") for alias in record.aliases)  # cwl_eval prints INST-T=2: no name


def test_a_variant_of_another_quantity_has_its_own_definition():
    # nNRBP is NRBP over its ideal value: metric_info and the docs' table say so.
    nrbp, nnrbp = metric_info("NRBP"), metric_info("nNRBP")
    assert nnrbp.definition.startswith("nNRBP:") and "ideal ranking" in nnrbp.definition
    assert nrbp.definition != nnrbp.definition == metric_info("nrbp(normalize=True)").definition
    assert metric_info("ndcg_exp@10").definition == metric_info("ndcg").definition  # a variant of the same quantity
    assert nnrbp.definition in metric_table()


def test_the_measures_page_names_resolve_to_their_row():
    # The user guide's table of the measures' names in each tool: every name in a row is the row's metric.
    from pathlib import Path

    page = Path(__file__).parents[2] / "docs" / "user_guide" / "measures.md"
    rows = [line for line in page.read_text().splitlines() if line.startswith("| ") and "`" in line]
    assert len(rows) >= 9
    for row in rows:
        cells = row.strip("|").split("|")[1:]
        names = [name for cell in cells for name in re.findall(r"`([^`]+)`", cell)]
        functions = {metric_info(name.replace("@k", "@10").replace("@l", "@10")).function for name in names}
        here = {metric_info(name.replace("@k", "@10")).function for name in re.findall(r"`([^`]+)`", cells[0])}
        assert functions == here, row


def test_the_records_live_in_the_table_only():
    # The measures' modules once kept records of their own beside the table: the table is the one source.
    import importlib
    import pkgutil

    import sklearn_rankmetrics.metrics as package

    for module in pkgutil.iter_modules(package.__path__):
        assert not hasattr(importlib.import_module(f"{package.__name__}.{module.name}"), "METRIC_RECORDS"), module.name
