"""Hypothesis strategies shared by the property tests."""

import numpy as np
from hypothesis import strategies as st

from naive import FRACTIONAL_GRADES


@st.composite
def grouped_rankings(draw, max_rows=25):
    """Rows of up to five queries: whole or fractional labels; tied, float or distinct scores; some -inf; a k."""
    n_rows = draw(st.integers(1, max_rows))
    qid = np.array(draw(st.lists(st.integers(0, 4), min_size=n_rows, max_size=n_rows)))
    labels = st.integers(0, 4) if draw(st.booleans()) else st.sampled_from(FRACTIONAL_GRADES)
    y_true = np.array(draw(st.lists(labels, min_size=n_rows, max_size=n_rows)), dtype=float)
    kind = draw(st.sampled_from(["tied", "floats", "distinct"]))
    if kind == "distinct":  # no ties: every cutoff falls between two documents
        y_score = np.array(draw(st.permutations(range(n_rows))), dtype=float)
    else:
        scores = st.integers(-3, 3) if kind == "tied" else st.floats(-1e3, 1e3, allow_nan=False)
        y_score = np.array(draw(st.lists(scores, min_size=n_rows, max_size=n_rows)), dtype=float)
    if draw(st.booleans()):  # some judged documents were not retrieved
        y_score[np.array(draw(st.lists(st.booleans(), min_size=n_rows, max_size=n_rows)))] = -np.inf
    k = draw(st.none() | st.integers(1, 8))
    return y_true, y_score, qid, k
