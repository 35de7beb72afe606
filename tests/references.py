"""Reference tests never skip for a missing dependency where the test extra is installed.

tests/conftest.py installs :func:`importorskip` in place of pytest.importorskip (this module has a name of its own:
tests/spark has a conftest too, so ``import conftest`` would not say which).
"""

import os

import pytest

# The reference tools and the libraries the tests compare with, by the module that pytest.importorskip imports: each
# comes with the `test` extra (pyproject.toml), so under `make test` (and CI, which runs it) a test that would skip
# for want of one fails instead, naming it. tests/test_references_required.py checks that every module a test
# imports or skips is in one of the two lists.
REFERENCE_MODULES = {
    "pytrec_eval": "trec_eval 9, the reference of the TREC measures (pytrec-eval-terrier)",
    "torch": "PyTorch's CPU build, for the Array API and device-graph paths and torchmetrics",
    "torchmetrics": "the reference of its retrieval metrics",
    "pandas": "DataFrame inputs and outputs",
    "numpydoc": "the docstring validation",
    "statsmodels": "the reference of the corrections, ANOVA, Tukey HSD, power and Fleiss' kappa",
    "lightgbm": "the reference of its ndcg/map and its rankers",
    "xgboost": "the reference of its ndcg/map/pre and its rankers (xgboost-cpu)",
    "catboost": "the reference of its ranking metrics and its rankers",
    "matplotlib": "the Display classes (the `plot` extra)",
    "dask": "sklearn_rankmetrics.dask (the `dask` extra)",
    "array_api_strict": "the Array API tests",
    "ir_measures": "the reference of its measures (and gdeval, compatibility)",
    "cwl": "cwl-eval, the reference of the C/W/L metrics (INST, INSQ)",
    "pyndeval": "ndeval, the reference of alpha-nDCG, ERR-IA and the intent-aware measures",
    "pyNTCIREVAL": "NTCIREVAL, the reference of Q-measure, nERR and the NTCIR measures",
    "pyarrow": "the fast path of the TREC readers",
    "optuna": "OptunaSearchCV's recipe (the `optuna` extra)",
    "optuna_integration": "OptunaSearchCV's recipe (the `optuna` extra)",
    "mpmath": "exact sums of the C/W/L metrics (a dependency of PyTorch's sympy)",
    "krippendorff": "the reference of Krippendorff's alpha",
    "repro_eval": "the reference of the reproducibility measures",
    "ranx": "the reference of its measures and of every fusion method and normalisation",
    "polars": "Polars inputs wherever pandas is taken (the `polars` extra)",
    "pyspark": "sklearn_rankmetrics.spark in Spark local mode (the `spark` extra; Java is checked apart)",
}
# What may still skip where it is missing, and why: no `make test` installs it. (CuPy and JAX, for the GPU tests,
# are skipped by those tests themselves where they see no GPU.)
SKIPPABLE_MODULES = {
    "rbo": "the reference of rank_biased_overlap, left out of the test extra: it pins numpy < 2",
    "sphinx_gallery": "the `docs` extra, for tests/test_docs.py (`make docs-check`)",
    "selenium": "the `docs` extra, for tests/test_docs.py (`make docs-check`)",
    "tomllib": "the standard library's from Python 3.11 on",
}
REQUIRE_VARIABLE = "RANKMETRICS_REQUIRE_REFERENCES"


def references_required():
    """Whether a missing reference fails its tests: in CI (``CI`` set, as CI services set it) and wherever
    RANKMETRICS_REQUIRE_REFERENCES is 1 (``make test`` sets it: it installs the test extra first)."""
    flags = (os.environ.get("CI", ""), os.environ.get(REQUIRE_VARIABLE, ""))
    return any(flag.strip().lower() not in ("", "0", "false", "no", "off") for flag in flags)


_importorskip = pytest.importorskip


def importorskip(modname, *args, **kwargs):
    """pytest.importorskip, but a listed reference that cannot be imported fails the test where references are
    required (:func:`references_required`), instead of skipping it silently."""
    try:
        return _importorskip(modname, *args, **kwargs)
    except pytest.skip.Exception as skipped:
        package = modname.partition(".")[0]
        if package in REFERENCE_MODULES and references_required():
            pytest.fail(
                f"{modname} cannot be imported ({skipped}), and {package} is {REFERENCE_MODULES[package]}: a reference "
                f"test must run, not skip. Install the test extra: pip install -e '.[test]' (or unset "
                f"{REQUIRE_VARIABLE} and CI to let it skip).",
                pytrace=False,
            )
        raise
