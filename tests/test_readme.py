"""The README's and the user guide's code runs as written: every Python block is a pycon block, which pytest
runs as a doctest (``--doctest-glob=*.md``); shell commands are ``console`` blocks or bare fences."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


@pytest.mark.parametrize("page", [page for page in PAGES if "_build" not in page.parts], ids=lambda page: page.name)
def test_every_code_block_is_a_doctest_or_a_shell_command(page):
    languages = re.findall(r"^```\{?(\w*)\}?", page.read_text(encoding="utf-8"), flags=re.MULTILINE)
    # MyST directives, and plain text (a folder tree) that is no code
    code = {language for language in languages if language} - {"toctree", "include", "text"}
    assert code <= {"pycon", "console"}, f"{page.name}: blocks that no test runs: {code - {'pycon', 'console'}}"


def test_the_readme_is_short_and_its_quickstart_runs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.count(">>> ") >= 5
    assert "make docs" in readme
    assert len(readme.splitlines()) < 60, (
        "the README holds the set-up commands, a quickstart and a link; the rest is on the site"
    )
