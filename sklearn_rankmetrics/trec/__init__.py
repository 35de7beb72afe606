"""TREC evaluation: qrels and run files, and trec_eval's measures computed the library's way.

Use :func:`evaluate_run` from Python, or ``python -m sklearn_rankmetrics.trec_eval``
(also installed as the ``rankmetrics-trec-eval`` command) in place of trec_eval.
"""

from ._evaluate import evaluate_run
from ._io import Qrels, Run, read_qrels, read_run
from ._measures import MEASURES, NICKNAMES

__all__ = ["MEASURES", "NICKNAMES", "Qrels", "Run", "evaluate_run", "read_qrels", "read_run"]
