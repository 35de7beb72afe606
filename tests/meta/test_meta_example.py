"""The gallery example of the meta wing runs (the site runs it too)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "llm_judge_agreement.py"


def test_the_llm_judge_example_runs(tmp_path):
    pytest.importorskip("matplotlib")
    pytest.importorskip("pandas")
    # The package of this checkout, whichever one the interpreter has installed.
    root = str(EXAMPLE.parents[1])
    path = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
    environment = {**os.environ, "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1", "PYTHONPATH": path}
    done = subprocess.run(
        [sys.executable, EXAMPLE], cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "ordering agreement of 20 systems" in done.stdout
