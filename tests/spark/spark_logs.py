"""The log the Spark tests measure, with and without Spark, and a call that hides the no-relevant-document warnings."""

import warnings

import numpy as np
import pandas as pd
from sklearn.exceptions import UndefinedMetricWarning


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return function(*args, **kwargs)


def log(seed=0, n_queries=150):
    """Rows of queries in random order (not grouped): ties, -inf scores, one-document queries, queries without a
    relevant row, weights constant within each query, and a duplicate row or two."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(rng.permutation(n_queries) * 3 + 7, rng.integers(1, 25, n_queries))
    rows = pd.DataFrame({"qid": qid, "label": rng.choice([0, 0, 1, 2, 3], qid.size).astype(float)})
    rows["score"] = rng.integers(0, 8, qid.size).astype(float)
    rows.loc[rng.random(qid.size) < 0.05, "score"] = -np.inf
    rows["w"] = (rows["qid"] % 5 + 1).astype(float)
    rows = pd.concat([rows, rows.iloc[:3]])  # duplicate rows are rows like any other
    return rows.sample(frac=1.0, random_state=seed).reset_index(drop=True)
