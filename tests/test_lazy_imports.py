"""The package imports each part on first use: the trec_eval command never imports scikit-learn or scipy.

Every public name stays importable from the top, as an attribute, by
``from sklearn_rankmetrics import *`` and in ``dir()``.
"""

import importlib
import inspect
import subprocess
import sys
import textwrap

import pytest

import sklearn_rankmetrics

HEAVY = ("sklearn", "scipy", "pandas", "matplotlib", "joblib")


def imported_after(code):
    """The top-level packages of HEAVY that a fresh interpreter has imported after running ``code``."""
    report = f"import sys\nprint(sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r}))"
    script = textwrap.dedent(code) + "\n" + report
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return result.stdout.strip().splitlines()[-1]


def test_the_command_imports_neither_scikit_learn_nor_scipy(tmp_path):
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 2.5 r\nq1 Q0 d2 2 1.5 r\nq2 Q0 d9 1 3 r\nq2 Q0 d3 2 1 r\n")
    assert imported_after("import sklearn_rankmetrics.trec_eval") == "[]"
    for measures in ([], ["-m", "ndcg_cut.10"], ["-m", "all_trec"]):
        code = f"""
        import contextlib, io
        from sklearn_rankmetrics.trec_eval import main
        with contextlib.redirect_stdout(io.StringIO()):
            assert main({[*measures, str(tmp_path / "qrels"), str(tmp_path / "run")]!r}) == 0
        """
        assert imported_after(code) == "[]", measures


def test_rankmetrics_evaluate_imports_neither_scikit_learn_nor_scipy(tmp_path):
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 2.5 r\nq1 Q0 d2 2 1.5 r\nq2 Q0 d9 1 3 r\nq2 Q0 d3 2 1 r\n")
    for options in ([], ["-m", "ndcg_cut.10", "--per-query"], ["-m", "map", "-o", str(tmp_path / "out.jsonl")]):
        code = f"""
        import contextlib, io
        from sklearn_rankmetrics._command import main
        with contextlib.redirect_stdout(io.StringIO()):
            assert main({["evaluate", str(tmp_path / "qrels"), str(tmp_path / "run"), *options]!r}) == 0
        """
        assert imported_after(code) == "[]", options


def test_the_package_imports_nothing_heavy_until_a_name_is_used():
    assert imported_after("import sklearn_rankmetrics") == "[]"
    assert imported_after("from sklearn_rankmetrics import ndcg_score") == "[]"  # numpy alone
    assert "sklearn" in imported_after("from sklearn_rankmetrics import GroupedRanker")


def test_every_public_name_is_importable_from_the_top():
    namespace = {}
    exec("from sklearn_rankmetrics import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(sklearn_rankmetrics.__all__)
    assert set(sklearn_rankmetrics.__all__) <= set(dir(sklearn_rankmetrics))
    owner = {name: module for module, names in sklearn_rankmetrics._EXPORTS.items() for name in names}
    for name in sklearn_rankmetrics.__all__:
        module = importlib.import_module(owner[name], "sklearn_rankmetrics")
        assert getattr(sklearn_rankmetrics, name) is getattr(module, name) is namespace[name]
    assert set(owner) == set(sklearn_rankmetrics.__all__)
    assert sklearn_rankmetrics.trec.evaluate_run is importlib.import_module("sklearn_rankmetrics.trec").evaluate_run


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="module 'sklearn_rankmetrics' has no attribute 'ndcg'"):
        sklearn_rankmetrics.ndcg  # noqa: B018
    with pytest.raises(ImportError, match="cannot import name 'ndcg'"):
        exec("from sklearn_rankmetrics import ndcg", {})


@pytest.mark.parametrize("package", ["metrics", "recommenders", "registry", "model_selection", "stats"])
def test_each_face_offers_the_top_levels_object_for_each_name(package):
    face = importlib.import_module(f"sklearn_rankmetrics.{package}")
    for name in face.__all__:
        assert getattr(face, name) is getattr(sklearn_rankmetrics, name), name


def test_the_public_accuracy_metrics_pickle_by_reference():
    import pickle

    for name in ("ndcg_score", "mean_average_precision_score", "recall_at_k_score", "rank_biased_precision_score"):
        function = getattr(sklearn_rankmetrics, name)
        assert pickle.loads(pickle.dumps(function)) is function
        assert "candidates" in inspect.signature(function).parameters
