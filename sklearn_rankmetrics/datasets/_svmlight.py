"""Loaders for svmlight/LETOR ranking files and LightGBM's query-size files."""

import bz2
import gzip
import io
import numbers
import os
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file

from .._core._validation import plain


def qid_from_sizes(sizes):
    """Query ids 0, 1, ... from the number of consecutive rows of each query.

    This turns LightGBM's ``group`` / ``.query`` files (one query size per
    line) into the per-row ``qid`` that this library takes.

    Parameters
    ----------
    sizes : array-like of int
        Number of rows of each query, in row order.

    Returns
    -------
    qid : ndarray of shape (sum(sizes),)
        Query id of each row.

    See Also
    --------
    load_svmlight_ranking : Reads LightGBM's ``.query`` files with it.

    Examples
    --------
    >>> from sklearn_rankmetrics import qid_from_sizes
    >>> qid_from_sizes([2, 3])
    array([0, 0, 1, 1, 1])
    """
    sizes = np.asarray(sizes)
    if sizes.ndim != 1 or sizes.dtype.kind not in "iu" or (sizes < 0).any():
        raise ValueError(f"sizes must be a 1-D array of non-negative integers; got {sizes!r}.")
    if len(sizes) and sizes.max() > np.iinfo(np.int64).max:
        raise ValueError(f"sizes must be below 2**63; got a size of {sizes.max()}.")
    return np.repeat(np.arange(len(sizes)), sizes.astype(np.int64))


def load_svmlight_ranking(path, *, query_path=None, qid_offset=0, **kwargs):
    """Load an svmlight/LETOR ranking file with the query id of each row.

    Parameters
    ----------
    path : str, path-like or file object
        The svmlight file (``.gz`` and ``.bz2`` paths are decompressed), or a
        file object opened in binary or text mode.
    query_path : str, path-like or file object, default=None
        A LightGBM-style file of query sizes, one per line. None: the file
        ``path + ".query"`` if ``path`` is a path and that file exists
        (LightGBM's convention), else the ``qid:`` fields of the rows (LETOR,
        MSLR, Yahoo!), which every row must then have.
    qid_offset : int, default=0
        Added to every query id. Files such as LightGBM's ``rank.train`` and
        ``rank.test`` both number their queries from 0: give the second an
        offset above the first's ids (``qid_offset=qid_train.max() + 1``)
        before concatenating them, or their queries merge.
    **kwargs : dict
        Passed to :func:`sklearn.datasets.load_svmlight_file` (``n_features``,
        ``dtype``, ...).

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
        Features, with int32 indices whenever they fit (CatBoost requires
        them). Load a test file with the training file's ``n_features`` so
        that both have the same columns.
    y : ndarray of shape (n_samples,)
        Relevance labels.
    qid : ndarray of shape (n_samples,)
        Query id of each row, plus ``qid_offset``.

    Raises
    ------
    ValueError
        If a row has no ``qid:`` field (naming the file and the line), or the
        query file's sizes do not add up to the number of rows.

    See Also
    --------
    sklearn.datasets.load_svmlight_file : The underlying reader.
    qid_from_sizes : Query ids from a list of query sizes.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_rankmetrics import load_svmlight_ranking
    >>> path = os.path.join(tempfile.mkdtemp(), "rank.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("2 qid:7 1:0.5\\n0 qid:7 1:0.1\\n1 qid:9 2:1.0\\n")
    >>> X, y, qid = load_svmlight_ranking(path)
    >>> y, qid
    (array([2., 0., 1.]), array([7, 7, 9]))
    """
    if isinstance(qid_offset, bool) or not isinstance(qid_offset, numbers.Integral):
        raise TypeError(
            f"qid_offset must be an integer; got {plain(qid_offset)!r} of type {type(qid_offset).__name__}."
        )
    X, y, qid = _load_ranking_file(path, query_path, kwargs)
    return _with_int32_indices(X), y, qid + qid_offset


def _with_int32_indices(X):
    """The CSR matrix with int32 indices where they fit (scipy may give int64)."""
    if X.nnz < 2**31 and X.shape[1] < 2**31:
        X = sp.csr_matrix((X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)), shape=X.shape)
    return X


def _load_ranking_file(path, query_path, kwargs):
    is_path = isinstance(path, str | bytes | os.PathLike)
    source = path if is_path else _as_binary_file(path)
    name = os.fsdecode(path) if is_path else getattr(path, "name", type(path).__name__)
    sidecar = Path(f"{name}.query")
    if query_path is None and is_path and sidecar.exists():
        query_path = sidecar
    if query_path is None:
        X, y, qid = load_svmlight_file(source, query_id=True, **kwargs)
        if len(qid) != X.shape[0]:
            line = _first_line_without_qid(source)
            raise ValueError(
                f"{name}, line {line}: the row has no qid: field, so its query is unknown. Give every row a "
                "qid: field, or pass query_path= a file of query sizes (one per line)."
            )
        return X, y, qid
    X, y = load_svmlight_file(source, **kwargs)
    sizes = np.loadtxt(query_path, dtype=np.int64, ndmin=1)
    if sizes.sum() != X.shape[0]:
        raise ValueError(
            f"The query file {query_path} gives {sizes.sum()} rows in {len(sizes)} queries, "
            f"but {name} has {X.shape[0]} rows."
        )
    return X, y, qid_from_sizes(sizes)


def _as_binary_file(file):
    """A file object's content as a binary file that can be read twice."""
    if not hasattr(file, "read"):
        raise TypeError(f"path must be a path or a file object; got {file!r} of type {type(file).__name__}.")
    content = file.read()
    return io.BytesIO(content.encode() if isinstance(content, str) else content)


def _first_line_without_qid(source):
    """The 1-based number of the first data line of an svmlight file that has no ``qid:`` field."""
    if isinstance(source, io.BytesIO):
        source.seek(0)
        lines = source
    else:
        path = os.fsdecode(source)
        opener = {".gz": gzip.open, ".bz2": bz2.open}.get(Path(path).suffix, open)
        lines = opener(path, "rb")
    with lines:
        for number, line in enumerate(lines, start=1):
            data = line.split(b"#", 1)[0].split()
            if data and not any(token.startswith(b"qid:") for token in data[1:]):
                return number
    return None
