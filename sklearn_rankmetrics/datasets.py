"""Learning-to-rank data: a synthetic generator and loaders for svmlight ranking files."""

import bz2
import gzip
import io
import numbers
import os
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file
from sklearn.utils import check_random_state


def make_ranking(
    n_queries=100,
    n_docs=(5, 50),
    n_features=20,
    *,
    n_informative=None,
    n_grades=5,
    grade_proportions=None,
    noise=0.5,
    shuffle=True,
    random_state=None,
):
    """Generate a learning-to-rank problem: features, graded labels and query ids.

    Each document gets Gaussian features; its latent relevance is a random
    linear function of the first ``n_informative`` features plus one pairwise
    interaction (so that trees can beat linear models), plus a per-query offset
    and Gaussian noise. Grades are cut from the latent relevance at the
    quantiles that give ``grade_proportions``.

    Parameters
    ----------
    n_queries : int, default=100
        Number of queries.
    n_docs : int or tuple of (int, int), default=(5, 50)
        Documents per query: a fixed number, or the inclusive range that each
        query's size is drawn from uniformly (ragged queries).
    n_features : int, default=20
        Number of features.
    n_informative : int, default=None
        Number of informative features: the first columns of ``X``. None:
        ``min(5, n_features)``.
    n_grades : int, default=5
        Number of relevance grades, labelled 0 to ``n_grades - 1``.
    grade_proportions : array-like of shape (n_grades,), default=None
        Expected share of each grade, from 0 up; normalised to sum to 1. None:
        halving shares (about 52, 26, 13, 6 and 3 % for five grades), skewed
        towards irrelevant documents like real judgements.
    noise : float, default=0.5
        Standard deviation of the noise added to the latent relevance, whose
        signal has unit variance.
    shuffle : bool, default=True
        Shuffle the rows, so that the rows of a query are not contiguous.
    random_state : int, RandomState instance or None, default=None
        Seed for reproducible output.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        Features.
    y : ndarray of shape (n_samples,)
        Integer relevance grades.
    qid : ndarray of shape (n_samples,)
        Query id of each row, 0 to ``n_queries - 1``.

    See Also
    --------
    load_svmlight_ranking : Real learning-to-rank data from svmlight files.

    Examples
    --------
    >>> from sklearn_rankmetrics import make_ranking
    >>> X, y, qid = make_ranking(n_queries=3, n_docs=4, n_features=2, random_state=0)
    >>> X.shape, y.shape, qid.shape
    ((12, 2), (12,), (12,))
    """
    rng = check_random_state(random_state)
    if n_informative is None and isinstance(n_features, numbers.Integral):
        n_informative = min(5, n_features)
    low, high = (n_docs, n_docs) if isinstance(n_docs, numbers.Integral) else n_docs
    _check_counts(n_queries=n_queries, n_docs_low=low, n_features=n_features, n_informative=n_informative)
    if high < low:
        raise ValueError(f"n_docs must be an int or a (low, high) pair with low <= high; got {n_docs!r}.")
    if not isinstance(n_grades, numbers.Integral) or n_grades < 2:
        raise ValueError(f"n_grades must be an integer >= 2; got {n_grades!r}.")
    proportions = _grade_proportions(grade_proportions, n_grades)

    sizes = rng.randint(low, high + 1, size=n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    X = rng.standard_normal((qid.size, n_features))
    weights = rng.uniform(0.5, 1.5, n_informative) * rng.choice([-1, 1], n_informative)
    signal = X[:, :n_informative] @ weights + (X[:, 0] * X[:, 1] if n_informative > 1 else 0)
    signal = (signal - signal.mean()) / (signal.std() or 1.0)
    latent = signal + rng.normal(0, 0.5, n_queries)[qid] + noise * rng.standard_normal(qid.size)
    cuts = np.quantile(latent, np.cumsum(proportions)[:-1])
    y = np.searchsorted(cuts, latent, side="right")
    if shuffle:
        rows = rng.permutation(qid.size)
        X, y, qid = X[rows], y[rows], qid[rows]
    return X, y, qid


def _check_counts(**counts):
    for name, value in counts.items():
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1; got {value!r}.")
    if counts["n_informative"] > counts["n_features"]:
        raise ValueError(f"n_informative={counts['n_informative']} must not exceed n_features={counts['n_features']}.")


def _grade_proportions(grade_proportions, n_grades):
    if grade_proportions is None:
        proportions = 0.5 ** np.arange(n_grades)
    else:
        proportions = np.asarray(grade_proportions, dtype=np.float64)
        if proportions.shape != (n_grades,) or (proportions < 0).any() or proportions.sum() <= 0:
            raise ValueError(
                f"grade_proportions must hold {n_grades} non-negative shares, one per grade, "
                f"with a positive sum; got {grade_proportions!r}."
            )
    return proportions / proportions.sum()


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
        raise TypeError(f"qid_offset must be an integer; got {qid_offset!r} of type {type(qid_offset).__name__}.")
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
