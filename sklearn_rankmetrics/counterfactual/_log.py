"""Click logs in: clicks, propensities, impressions and ranks checked, and impressions laid out as padded rows.

A click log has one row per shown document and a ``qid`` naming its impression
(a session, a slate): the library's grouped layout. Every error names the
argument, what is accepted and what was received.
"""

import numpy as np

from .._core._numpy_ops import group_by_query, positions_in_segments
from .._core._query_ids import encode_qid, query_id_array
from .._core._validation import as_float_array, check_finite, check_no_missing, plain


def check_binary(values, name):
    """``values`` as a float64 array of 0s and 1s (bools and 0/1 numbers accepted)."""
    array = as_float_array(values, name)
    check_finite(array, name)
    bad = (array != 0) & (array != 1)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{name} must hold 0 (not clicked) or 1 (clicked) on every row; got {plain(array[row])!r} at row {row}."
        )
    return array


def check_probabilities(values, name, n_rows, *, zero=False):
    """``values`` as float64 probabilities, one per row: in (0, 1], or [0, 1] where ``zero``."""
    array = as_float_array(values, name)
    check_length(array, name, n_rows)
    check_finite(array, name)
    low = array <= 0 if not zero else array < 0
    bad = low | (array > 1)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        interval = "[0, 1]" if zero else "(0, 1]"
        hint = "" if zero else " A document that could not be shown has no propensity: leave its row out."
        raise ValueError(f"{name} must lie in {interval}; got {plain(array[row])!r} at row {row}.{hint}")
    return array


def check_length(array, name, n_rows, *, of="clicks"):
    """Raise unless ``array`` has ``n_rows`` rows, one per row of ``of``."""
    if len(array) != n_rows:
        raise ValueError(f"{name} has {len(array)} values but {of} has {n_rows} rows; give one value per row.")


def impression_codes(qid, n_rows, name="qid", *, of="clicks"):
    """Integer codes of the impressions (sessions) named by ``qid``, one per row, checked against ``n_rows``."""
    if qid is None:
        raise TypeError(f"{name} is required: it names the impression (session) of each row.")
    if hasattr(qid, "__len__") and not isinstance(qid, str | bytes) and len(qid) != n_rows:
        raise ValueError(f"{name} has {len(qid)} values but {of} has {n_rows} rows; give one {name} per row.")
    return encode_qid(qid, n_rows)


def check_positions(position, n_rows, name="position"):
    """1-based ranks as int64, one per row."""
    array = as_float_array(position, name)
    check_length(array, name, n_rows)
    check_finite(array, name)
    bad = (array < 1) | (array != np.floor(array))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name} must hold 1-based ranks (integers >= 1); got {plain(array[row])!r} at row {row}.")
    return array.astype(np.int64)


class Sessions:
    """Impressions laid out as the rows of padded matrices: row i holds impression i's documents in rank order.

    Parameters
    ----------
    codes : array of int of shape (n_rows,)
        Impression code of each row.
    position : array of int of shape (n_rows,) or None
        1-based rank of each row in its impression, which must be exactly
        1, ..., n in each impression; None: the rows' order in the impression.

    Attributes
    ----------
    order : array of int
        The rows in (impression, rank) order.
    starts, sizes : array of int
        Where each impression starts in ``order``, and its number of rows.
    mask : array of bool of shape (n_sessions, longest)
        The cells that hold a document.
    cells : tuple of arrays
        The (row, column) of each row of ``order`` in the matrices.
    """

    def __init__(self, codes, position=None, name="position"):
        grouping = group_by_query(codes) if position is None else np.lexsort((position, codes))
        sorted_codes = codes[grouping]
        starts = np.flatnonzero(np.diff(sorted_codes, prepend=-1) != 0)
        within = positions_in_segments(starts, len(codes)).astype(np.int64)
        if position is not None:
            wrong = position[grouping] != within + 1
            if wrong.any():
                row = int(grouping[np.flatnonzero(wrong)[0]])
                raise ValueError(
                    f"{name} must number the rows of each impression 1, 2, ..., n (each rank once, none skipped); "
                    f"the impression of row {row} breaks this at its rank {int(position[row])}."
                )
        self.order = grouping
        self.starts = starts
        self.sizes = np.diff(starts, append=len(codes))
        self.n_sessions = len(starts)
        self.longest = int(self.sizes.max()) if len(starts) else 0
        session = np.repeat(np.arange(self.n_sessions), self.sizes)
        self.cells = (session, within)
        self.mask = np.zeros((self.n_sessions, self.longest), dtype=bool)
        self.mask[self.cells] = True

    def matrix(self, values, fill=0.0, dtype=np.float64):
        """Row ``values`` (in input order) as an (n_sessions, longest) matrix, ``fill`` in the empty cells."""
        matrix = np.full(self.mask.shape, fill, dtype=dtype)
        matrix[self.cells] = values[self.order]
        return matrix

    def rows(self, matrix):
        """The cells of ``matrix`` back as one value per input row."""
        values = np.empty(len(self.order), dtype=matrix.dtype)
        values[self.order] = matrix[self.cells]
        return values


def session_layout(clicks, qid, position, *, name="clicks"):
    """Checked clicks and the :class:`Sessions` of a click log."""
    clicks = check_binary(clicks, name)
    codes = impression_codes(qid, len(clicks), of=name)
    position = None if position is None else check_positions(position, len(clicks))
    return clicks, Sessions(codes, position)


def document_codes(doc_id, n_rows, name="doc_id"):
    """Integer codes 0..n_docs-1 of the documents (query-document pairs), and the distinct ids (sorted)."""
    if doc_id is None:
        raise TypeError(
            f"{name} is required: it names the (query, document) pair of each row, whose parameters are shared "
            "by every impression that shows it."
        )
    values = query_id_array(doc_id, name, what="document")
    check_length(values, name, n_rows)
    check_no_missing(values, name, what="document")
    try:
        distinct, codes = np.unique(values, return_inverse=True)
    except TypeError as error:
        raise TypeError(f"{name} must hold ids of one comparable type (numbers or strings): {error}") from error
    return codes.reshape(-1), distinct


def known_codes(doc_id, known, name="doc_id"):
    """The codes of ``doc_id`` among the sorted ``known`` ids, -1 for ids not among them."""
    values = query_id_array(doc_id, name, what="document")
    places = np.minimum(np.searchsorted(known, values), len(known) - 1)
    return np.where(known[places] == values, places, -1)
