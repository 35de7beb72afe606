"""A synthetic learning-to-rank problem: features, graded labels and ragged queries."""

import numbers

import numpy as np

from .._core._resampling import random_state_from
from .._core._validation import check_integer, plain


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
    random_state : int, RandomState instance, numpy Generator or None, default=None
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
    load_lambdarank : Real learning-to-rank data, bundled with the package.
    load_svmlight_ranking : Real learning-to-rank data from svmlight files.

    Examples
    --------
    >>> from sklearn_rankmetrics import make_ranking
    >>> X, y, qid = make_ranking(n_queries=3, n_docs=4, n_features=2, random_state=0)
    >>> X.shape, y.shape, qid.shape
    ((12, 2), (12,), (12,))
    """
    rng = random_state_from(random_state)
    if n_informative is None and isinstance(n_features, numbers.Integral):
        n_informative = min(5, n_features)
    low, high = (n_docs, n_docs) if isinstance(n_docs, numbers.Integral) else n_docs
    _check_counts(n_queries=n_queries, n_docs_low=low, n_features=n_features, n_informative=n_informative)
    if high < low:
        raise ValueError(f"n_docs must be an int or a (low, high) pair with low <= high; got {plain(n_docs)!r}.")
    check_integer("n_grades", n_grades, low=2)
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
        check_integer(name, value)
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
                f"with a positive sum; got {plain(grade_proportions)!r}."
            )
    return proportions / proportions.sum()
