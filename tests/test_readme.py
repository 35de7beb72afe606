"""The README's code runs as written: every code block is a pycon block, run as a doctest by pytest."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_every_code_block_of_the_readme_is_a_doctest():
    languages = re.findall(r"^```(\w*)\n", README.read_text(), flags=re.MULTILINE)
    code = [language for language in languages if language]  # bare fences: shell commands, closing fences
    assert code.count("pycon") >= 5
    assert set(code) == {"pycon"}, f"blocks that no test runs: {set(code) - {'pycon'}}"
