"""The mechanism of tests/references.py: under `make test` and CI a listed reference that is missing fails its test."""

import re
from pathlib import Path

import pytest
import references

MISSING = "a_reference_tool_that_is_not_installed"


@pytest.fixture
def listed_but_missing(monkeypatch):
    monkeypatch.setitem(references.REFERENCE_MODULES, MISSING, "the reference of nothing")
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv(references.REQUIRE_VARIABLE, raising=False)
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
    monkeypatch.setenv(references.REQUIRE_VARIABLE, "1")
    assert "rbo" in references.SKIPPABLE_MODULES and "rbo" not in references.REFERENCE_MODULES
    with pytest.raises(pytest.skip.Exception):
        pytest.importorskip("a_module_nobody_lists")


def test_every_module_a_test_imports_or_skips_is_listed_as_required_or_skippable():
    # A reference added with a test and forgotten here would skip silently in CI: each must be in one list.
    this_file = Path(__file__).resolve()
    imported = {
        match.partition(".")[0]
        for path in Path(__file__).parent.rglob("*.py")
        if path.resolve() != this_file
        for match in re.findall(r"importorskip\(\s*[\"']([\w.]+)[\"']", path.read_text())
    }
    assert "pytrec_eval" in imported or "torch" in imported  # the search finds them
    assert not references.REFERENCE_MODULES.keys() & references.SKIPPABLE_MODULES.keys()
    unlisted = imported - references.REFERENCE_MODULES.keys() - references.SKIPPABLE_MODULES.keys()
    assert not unlisted, (
        f"list each in tests/references.py, as a reference (REFERENCE_MODULES) or as skippable: {unlisted}"
    )


def test_every_listed_reference_is_installed_where_references_are_required():
    # `make test` installs the test extra: every listed module must import there (a name no extra installs would
    # fail every run); elsewhere the missing ones skip.
    for module in references.REFERENCE_MODULES:
        pytest.importorskip(module)
