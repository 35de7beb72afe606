"""The counterfactual wing's public API: exact __all__, numpydoc docstrings, keyword-only options."""

import inspect

import pytest

import sklearn_rankmetrics
from sklearn_rankmetrics import counterfactual

numpydoc_validate = pytest.importorskip("numpydoc.validate").validate
ACCEPTED = {"RT02", "ES01"}
METHODS = [
    f"{cls}.{method}"
    for cls in ("PositionBasedModel", "UserBrowsingModel", "CascadeModel", "DependentClickModel", "ClickChainModel")
    for method in ("fit", "log_likelihood", "perplexity", "simulate")
] + ["DynamicBayesianNetwork.simulate", "Interleaving.credit"]


def test_the_wing_is_a_submodule_of_the_package():
    assert sklearn_rankmetrics.counterfactual is counterfactual
    public = {
        name
        for name in dir(counterfactual)
        if not name.startswith("_") and not inspect.ismodule(getattr(counterfactual, name))
    }
    assert public == set(counterfactual.__all__)


@pytest.mark.parametrize("name", counterfactual.__all__ + METHODS)
def test_numpydoc(name):
    errors = [
        (code, message)
        for code, message in numpydoc_validate(f"sklearn_rankmetrics.counterfactual.{name}")["errors"]
        if code not in ACCEPTED and not (code in ("EX01", "SA01", "PR01") and name in METHODS)
    ]
    assert not errors, errors


@pytest.mark.parametrize("name", [n for n in counterfactual.__all__ if inspect.isfunction(getattr(counterfactual, n))])
def test_options_are_keyword_only(name):
    parameters = inspect.signature(getattr(counterfactual, name)).parameters.values()
    positional = [p.name for p in parameters if p.kind == p.POSITIONAL_OR_KEYWORD]
    assert positional in (
        [],
        ["clicks"],
        ["clicks", "y_score"],
        ["reward"],
        ["ranking_a", "ranking_b"],
        ["rankings"],
        ["interleaving", "clicks"],
    ), positional
