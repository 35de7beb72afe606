"""Hypothesis strategies shared by the property tests."""

import numpy as np
from hypothesis import strategies as st


@st.composite
def grouped_rankings(draw, max_rows=25):
    n_rows = draw(st.integers(1, max_rows))
    qid = np.array(draw(st.lists(st.integers(0, 4), min_size=n_rows, max_size=n_rows)))
    y_true = np.array(draw(st.lists(st.integers(0, 4), min_size=n_rows, max_size=n_rows)), dtype=float)
    scores = st.integers(-3, 3) if draw(st.booleans()) else st.floats(-1e3, 1e3, allow_nan=False)
    y_score = np.array(draw(st.lists(scores, min_size=n_rows, max_size=n_rows)), dtype=float)
    if draw(st.booleans()):  # some judged documents were not retrieved
        y_score[np.array(draw(st.lists(st.booleans(), min_size=n_rows, max_size=n_rows)))] = -np.inf
    k = draw(st.none() | st.integers(1, 8))
    return y_true, y_score, qid, k
