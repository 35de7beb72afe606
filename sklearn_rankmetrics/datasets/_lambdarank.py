"""LightGBM's lambdarank example data, bundled with the package (``data/``, MIT licence)."""

import gzip
from importlib import resources

import numpy as np

from .._core._validation import check_option
from ._svmlight import load_svmlight_ranking

DATA = resources.files(__package__) / "data"
SUBSETS = ("train", "test", "both")
N_FEATURES = 300


def load_lambdarank(*, subset="train"):
    """Load LightGBM's lambdarank example data: 251 queries, 3,773 documents, 300 features.

    The learning-to-rank data of LightGBM's ``examples/lambdarank``, shipped
    inside this package (gzip-compressed, unchanged): nothing is downloaded.
    Its 300 features are anonymous values in [0, 1] with two decimals, a
    third of them non-zero; each document has a relevance grade from 0 (not
    relevant) to 4.

    =================  ==========  ========  ===========
    subset             documents   queries   query sizes
    =================  ==========  ========  ===========
    ``"train"``        3,005       201       1 to 27
    ``"test"``         768         50        6 to 24
    ``"both"``         3,773       251       1 to 27
    =================  ==========  ========  ===========

    Grades 0 to 4 count 645, 1,211, 858, 222 and 69 training documents, and
    206, 256, 252, 44 and 10 test documents.

    Parameters
    ----------
    subset : {"train", "test", "both"}, default="train"
        The file to load: ``rank.train``, ``rank.test``, or both, the training
        rows first.

    Returns
    -------
    X : ndarray of shape (n_samples, 300)
        Features, dense float64: at 9 MB for both subsets, dense suits every
        estimator (HistGradientBoosting takes no sparse input). Give
        ``scipy.sparse.csr_array(X)`` to a tool that wants sparse input.
    y : ndarray of shape (n_samples,)
        Relevance grades, int64, 0 to 4.
    qid : ndarray of shape (n_samples,)
        Query id of each row, int64, whichever subset is loaded: 0 to 200 for
        the training queries and 201 to 250 for the test queries, so that test
        ids never collide with training ids and the subsets concatenate into
        ``subset="both"``. Each query's rows are contiguous.

    See Also
    --------
    load_svmlight_ranking : Load other svmlight/LETOR ranking files.
    make_ranking : Generate synthetic learning-to-rank data of any size.

    Notes
    -----
    The files are those of LightGBM's repository [1]_ (``rank.train``,
    ``rank.test`` and their ``.query`` files of query sizes), copyright
    Microsoft Corporation, under the MIT licence, whose text is in the
    package's ``datasets/data/LICENSE``. LightGBM is described in [2]_.

    References
    ----------
    .. [1] https://github.com/microsoft/LightGBM/tree/master/examples/lambdarank
    .. [2] G. Ke, Q. Meng, T. Finley, T. Wang, W. Chen, W. Ma, Q. Ye and
       T.-Y. Liu, "LightGBM: A Highly Efficient Gradient Boosting Decision
       Tree", NeurIPS 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics.datasets import load_lambdarank
    >>> X, y, qid = load_lambdarank(subset="train")
    >>> X.shape, len(np.unique(qid))
    ((3005, 300), 201)
    >>> np.bincount(y)
    array([ 645, 1211,  858,  222,   69])
    >>> X_test, y_test, qid_test = load_lambdarank(subset="test")
    >>> print(X_test.shape, qid_test.min(), qid_test.max())
    (768, 300) 201 250
    """
    subset = check_option("subset", subset, SUBSETS)
    n_train_queries = len(_query_sizes("train"))
    parts = [_load(name, n_train_queries) for name in (("train", "test") if subset == "both" else (subset,))]
    X, y, qid = (np.concatenate(arrays) for arrays in zip(*parts, strict=True))
    return X, y, qid


def _query_sizes(name):
    with (DATA / f"rank.{name}.query").open("rb") as file:
        return np.loadtxt(file, dtype=np.int64, ndmin=1)


def _load(name, n_train_queries):
    """The rows of one file: dense X, integer y, query ids after the training ones for the test file."""
    with (
        (DATA / f"rank.{name}.gz").open("rb") as compressed,
        gzip.open(compressed) as file,
        (DATA / f"rank.{name}.query").open("rb") as sizes,
    ):
        X, y, qid = load_svmlight_ranking(
            file,
            query_path=sizes,
            n_features=N_FEATURES,
            qid_offset=n_train_queries if name == "test" else 0,
        )
    return X.toarray(), y.astype(np.int64), qid.astype(np.int64)
