import os
import sys

from hypothesis import settings

sys.path.insert(0, os.path.dirname(__file__))

# Fitting boosted trees on two cores: keep each model single-threaded.
os.environ.setdefault("OMP_NUM_THREADS", "1")

settings.register_profile("default", max_examples=60, deadline=None)
settings.register_profile("ci", max_examples=100, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
