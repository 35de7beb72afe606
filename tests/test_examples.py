"""The gallery's short examples run (the site runs them all; `make example` runs tune_ranker.py)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.mark.parametrize(
    "script",
    [
        "compare_rankers.py",
        "compare_many_systems.py",
        "evaluate_trec_run.py",
        "compare_trec_runs.py",
        "evaluate_recommender.py",
        "recommender_beyond_accuracy.py",
        "recommender_report.py",
        "clicks_offline_and_online.py",
        "fuse_hybrid_retrieval.py",
        "spark_als_cross_validation.py",
    ],
)
def test_example_runs(script, tmp_path):
    pytest.importorskip("matplotlib")
    if script.startswith("spark"):
        pytest.importorskip("pyspark")
        if not (os.environ.get("JAVA_HOME") or shutil.which("java")):
            pytest.skip("Spark needs Java")
    environment = {**os.environ, "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, EXAMPLES / script], cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip()
