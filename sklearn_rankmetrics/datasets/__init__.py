"""Learning-to-rank data: LightGBM's bundled example, a synthetic generator and svmlight loaders."""

from ._generators import make_ranking
from ._lambdarank import load_lambdarank
from ._svmlight import load_svmlight_ranking, qid_from_sizes

__all__ = ["load_lambdarank", "load_svmlight_ranking", "make_ranking", "qid_from_sizes"]
