"""The README's code runs as written (its pycon blocks run as doctests)."""

import re
from pathlib import Path

import sklearn

README = Path(__file__).resolve().parents[1] / "README.md"


def test_python_blocks_of_the_readme_run():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    assert blocks
    with sklearn.config_context():  # the README turns metadata routing on globally
        for block in blocks:
            namespace = {}
            exec(compile(block, str(README), "exec"), namespace)
        assert namespace["search"].best_score_ > 0.5
