"""The meta wing's public face: exact __all__, numpydoc docstrings, keyword-only options, lazy imports."""

import importlib
import inspect
import subprocess
import sys

import pytest

import sklearn_rankmetrics
from sklearn_rankmetrics import meta

numpydoc_validate = pytest.importorskip("numpydoc.validate").validate

ACCEPTED = {"RT02", "ES01"}
FUNCTIONS = [name for name in meta.__all__ if inspect.isfunction(getattr(meta, name))]
CLASSES = [name for name in meta.__all__ if inspect.isclass(getattr(meta, name))]
# Each function's positional parameters: the data it compares; every option is keyword-only.
POSITIONAL = {
    "kendall_tau": ["x", "y"],
    "spearman_rho": ["x", "y"],
    "pearson_r": ["x", "y"],
    "tau_ap": ["reference", "estimate"],
    "ordering_agreement": ["x", "y"],
    "cohen_kappa": ["a", "b"],
    "fleiss_kappa": ["ratings"],
    "krippendorff_alpha": ["ratings"],
    "judge_agreement": ["judges"],
    "leaderboard_agreement": ["reference", "other", "runs"],
    "discriminative_power": ["scores"],
    "swap_rate": ["scores"],
    "standardize_scores": ["scores"],
    "kendall_tau_union": ["original", "reproduced"],
    "rank_biased_overlap_runs": ["original", "reproduced"],
    "root_mean_squared_error": ["original", "reproduced"],
    "reproduction_ttest": ["original", "reproduced"],
    "effect_ratio": ["original_baseline", "original_advanced", "reproduced_baseline", "reproduced_advanced"],
    "delta_relative_improvement": [
        "original_baseline",
        "original_advanced",
        "reproduced_baseline",
        "reproduced_advanced",
    ],
    "smare": ["predicted", "actual"],
    "qpp_evaluation": ["predicted", "actual"],
}


@pytest.mark.parametrize("name", FUNCTIONS + CLASSES)
def test_numpydoc(name):
    errors = [
        (code, message)
        for code, message in numpydoc_validate(f"sklearn_rankmetrics.meta.{name}")["errors"]
        if code not in ACCEPTED
    ]
    assert not errors, errors


def test_all_is_exactly_the_public_names_and_meta_is_a_submodule():
    public = {name for name in dir(meta) if not name.startswith("_") and not inspect.ismodule(getattr(meta, name))}
    assert public == set(meta.__all__)
    assert sklearn_rankmetrics.meta is importlib.import_module("sklearn_rankmetrics.meta")
    assert "meta" in dir(sklearn_rankmetrics)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_options_are_keyword_only(name):
    parameters = inspect.signature(getattr(meta, name)).parameters.values()
    assert [p.name for p in parameters if p.kind == p.POSITIONAL_OR_KEYWORD] == POSITIONAL[name]


def test_importing_the_wing_imports_nothing_heavy_until_a_name_is_used():
    code = (
        "import sklearn_rankmetrics.meta, sys; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'scipy', 'sklearn', 'pandas'}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
