import os
import sys
from pathlib import Path

# scikit-learn's array_api_dispatch needs scipy's Array API mode, set before scipy is imported.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import pytest
from hypothesis import settings

sys.path.insert(0, os.path.dirname(__file__))

# Fitting boosted trees on two cores: keep each model single-threaded.
os.environ.setdefault("OMP_NUM_THREADS", "1")
# The library's own pool (which would follow OMP_NUM_THREADS) keeps two threads on any
# machine, so that the tests exercise work shared between threads.
os.environ.setdefault("RANKMETRICS_NUM_THREADS", "2")

# Capped so that the whole suite stays well under ten minutes on two cores.
settings.register_profile("capped", max_examples=60, deadline=None)
settings.load_profile("capped")


@pytest.fixture(scope="session")
def lambdarank_dir():
    """LightGBM's lambdarank example data: $RANKMETRICS_LAMBDARANK_DIR or ../shared/data beside the project."""
    default = Path(__file__).resolve().parents[2] / "shared" / "data" / "lightgbm-lambdarank"
    path = Path(os.environ.get("RANKMETRICS_LAMBDARANK_DIR", default))
    if not (path / "rank.train").exists():
        pytest.fail(
            f"The LightGBM lambdarank example data is not at {path}. Put rank.train, rank.test and their "
            ".query files there (LightGBM's examples/lambdarank) or set RANKMETRICS_LAMBDARANK_DIR."
        )
    return path
