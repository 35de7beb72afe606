import gzip
import os
import sys

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

# Reference tests never skip for a missing dependency where the test extra is installed (tests/references.py).
import references

pytest.importorskip = references.importorskip


# Capped so that the whole suite stays well under ten minutes on two cores.
settings.register_profile("capped", max_examples=60, deadline=None)
settings.load_profile("capped")


@pytest.fixture(scope="session")
def lambdarank_dir(tmp_path_factory):
    """The files of load_lambdarank as LightGBM ships them (rank.train, rank.test and their .query files).

    Decompressed from the package's own copy into a temporary folder, for the tests of
    load_svmlight_ranking on real files.
    """
    from sklearn_rankmetrics.datasets._lambdarank import DATA

    folder = tmp_path_factory.mktemp("lightgbm-lambdarank")
    for name in ("rank.train", "rank.test"):
        (folder / name).write_bytes(gzip.decompress((DATA / f"{name}.gz").read_bytes()))
        (folder / f"{name}.query").write_bytes((DATA / f"{name}.query").read_bytes())
    return folder


def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (``make test`` runs two workers, ``--dist loadgroup``), every Spark test goes to one
    worker, so that the run starts one Spark session, not one per worker."""
    spark_tests = os.path.join(os.path.dirname(__file__), "spark")
    for item in items:
        if str(item.path).startswith(spark_tests + os.sep):
            item.add_marker(pytest.mark.xdist_group("spark"))
