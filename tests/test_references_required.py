"""The mechanism of tests/conftest.py: under `make test` and CI a listed reference that is missing fails its test."""

import conftest
import pytest

MISSING = "a_reference_tool_that_is_not_installed"


@pytest.fixture
def listed_but_missing(monkeypatch):
    monkeypatch.setitem(conftest.REFERENCE_MODULES, MISSING, "the reference of nothing")
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv(conftest.REQUIRE_VARIABLE, raising=False)
    return monkeypatch


@pytest.mark.parametrize(("variable", "value"), [("RANKMETRICS_REQUIRE_REFERENCES", "1"), ("CI", "true")])
def test_a_missing_reference_fails_its_test_under_make_test_and_ci(listed_but_missing, variable, value):
    listed_but_missing.setenv(variable, value)
    with pytest.raises(pytest.fail.Exception, match=rf"{MISSING}.* is the reference of nothing: a reference test must"):
        pytest.importorskip(f"{MISSING}.submodule")


@pytest.mark.parametrize("value", [None, "", "0", "false", " No "])
def test_a_missing_reference_skips_where_references_are_not_required(listed_but_missing, value):
    if value is not None:
        listed_but_missing.setenv("CI", value)
    with pytest.raises(pytest.skip.Exception):
        pytest.importorskip(MISSING)


def test_what_is_not_a_listed_reference_still_skips(monkeypatch):
    # rbo pins numpy < 2, so the test extra leaves it out: its test skips even in CI.
    monkeypatch.setenv(conftest.REQUIRE_VARIABLE, "1")
    assert "rbo" not in conftest.REFERENCE_MODULES
    with pytest.raises(pytest.skip.Exception):
        pytest.importorskip("a_module_nobody_lists")


def test_every_listed_reference_is_installed_where_references_are_required():
    # `make test` installs the test extra: every listed module must import there (a name no extra installs would
    # fail every run); elsewhere the missing ones skip.
    for module in conftest.REFERENCE_MODULES:
        pytest.importorskip(module)
