"""Every public docstring follows numpydoc, and the public API is exactly __all__."""

import importlib
import inspect

import pytest

import sklearn_rankmetrics
import sklearn_rankmetrics.dask
import sklearn_rankmetrics.spark
import sklearn_rankmetrics.streaming
import sklearn_rankmetrics.trec

numpydoc_validate = pytest.importorskip("numpydoc.validate").validate

# Named return values (scikit-learn's style) and an optional extended summary.
ACCEPTED = {"RT02", "ES01"}
PUBLIC = sorted(sklearn_rankmetrics.__all__)
METHODS = [f"GroupedRanker.{name}" for name in ("fit", "predict", "score")] + [
    f"RankingComparison.{name}"
    for name in ("anova", "queries_needed", "to_frame", "to_markdown", "to_latex", "to_json", "from_json")
]
TREC = [
    f"trec.{name}"
    for name in sklearn_rankmetrics.trec.__all__
    if inspect.isfunction(getattr(sklearn_rankmetrics.trec, name))
    or inspect.isclass(getattr(sklearn_rankmetrics.trec, name))
] + [f"dask.{name}" for name in sklearn_rankmetrics.dask.__all__]
ACCUMULATOR = [f"RankingAccumulator.{name}" for name in ("update", "merge", "compute", "reset")]
WINGS = [f"streaming.{name}" for name in sklearn_rankmetrics.streaming.__all__] + ACCUMULATOR
try:
    import pyspark  # noqa: F401

    WINGS += [f"spark.{name}" for name in sklearn_rankmetrics.spark.__all__]
except ImportError:  # the Evaluator subclasses pyspark's: checked where pyspark is
    WINGS += ["spark.ranking_report", "spark.ranking_report_from_lists"]


@pytest.mark.parametrize("name", PUBLIC + METHODS + TREC + WINGS)
def test_numpydoc(name):
    methods = METHODS + ACCUMULATOR
    errors = [
        (code, message)
        for code, message in numpydoc_validate(f"sklearn_rankmetrics.{name}")["errors"]
        if code not in ACCEPTED and not (code in ("EX01", "SA01") and name in methods)
    ]
    assert not errors, errors


@pytest.mark.parametrize("package", ["", ".metrics", ".model_selection", ".stats", ".streaming"])
def test_all_is_exactly_the_public_names(package):
    package = importlib.import_module(f"sklearn_rankmetrics{package}")
    public = {
        name for name in dir(package) if not name.startswith("_") and not inspect.ismodule(getattr(package, name))
    }
    assert public == set(package.__all__)
    assert all(getattr(sklearn_rankmetrics, name) is getattr(package, name) for name in package.__all__)


@pytest.mark.parametrize("name", [n for n in PUBLIC if inspect.isfunction(getattr(sklearn_rankmetrics, n))])
def test_options_are_keyword_only(name):
    parameters = inspect.signature(getattr(sklearn_rankmetrics, name)).parameters.values()
    positional = [p.name for p in parameters if p.kind == p.POSITIONAL_OR_KEYWORD]
    assert positional in (
        [],
        ["y_true", "y_score"],
        ["y_true", "y_scores"],
        ["item_id", "y_score"],
        ["y_score"],  # the recommender metrics beyond accuracy (issue #30)
        ["y_true"],  # sample_candidates
        ["y_score_a", "y_score_b"],  # rank_biased_overlap: two systems' scores
        ["score_func"],
        ["name"],
        ["sizes"],
        ["path"],
        ["n_queries", "n_docs", "n_features"],
        ["estimator", "X", "y"],  # permutation_importance, as scikit-learn's
        ["effect_size", "n_queries"],  # paired_t_power, as statsmodels' TTestPower().power
        ["effect_size"],  # topic_set_size: the requirement, then its settings
        ["min_range"],
        ["max_width"],
        ["qrels", "runs"],  # compare_runs, as evaluate_run's qrels, run
        ["values"],  # compare_per_query: the per-query values
    ), positional
