"""FusionRanker: fusion of score columns as a scikit-learn estimator, so that searches tune it on held-out queries."""

from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, validate_data

from .._core._query_ids import distinct_query_ids
from .._core._validation import check_same_length
from ..metrics._dcg import ndcg_score
from ..model_selection._guards import check_scored_fold, query_digests
from ..model_selection._qid_column import missing_qid_error, resolve_qid, split_qid_column
from ..model_selection._ranker import check_2d
from ._engine import fuse_table, fusion_spec, train_table
from ._lists import check_table


class FusionRanker(BaseEstimator):
    """Fuse score columns into one ranking score: a fusion method as a scikit-learn estimator.

    Each column of ``X`` is one run's (retriever's, ranker's) score of the
    row's document, NaN where the run did not retrieve it; each row's query
    comes as a column of ``X`` or routed, exactly as :class:`GroupedRanker`
    takes it. ``predict`` gives the fused score of each row, fused within its
    query as :func:`fuse` fuses runs. The method, the normalisation, the
    weights and the methods' parameters are hyper-parameters: ``GridSearchCV``
    or ``RandomizedSearchCV`` with ``GroupKFold`` tunes them on held-out
    queries by any scorer of :func:`get_ranking_scorer`.

    Parameters
    ----------
    method : str or callable, default="rrf"
        A fusion method, as :func:`fuse` takes it. The supervised ones
        (MAPFuse, PosFuse, ProbFuse, SegFuse, SlideFuse, BayesFuse) learn
        from ``y`` in ``fit``.
    normalization : str, default=None
        As in :func:`fuse`.
    weights : array-like of shape (n_runs,), default=None
        Each column's weight, as in :func:`fuse`; None: 1 each.
    k, phi, sigma, gamma : float, default=None
        The parameters of RRF, RBC, LogN_ISR and CombGMNZ, as in :func:`fuse`.
    w, n_segments : int, default=None
        The parameters of SlideFuse and ProbFuse, as in :func:`fuse`.
    ties : {"average", "ranx"}, default="average"
        As in :func:`fuse`; ``"ranx"`` takes the rows' order as the input order.
    missing : {"min"}, float or None, default=None
        As in :func:`fuse`.
    qid_column : str or int, default=None
        The column of ``X`` holding the query ids (a DataFrame label or an
        array position), dropped before fusing. None: the query ids come as
        ``qid`` or ``groups`` to ``fit``, ``predict`` and ``score`` (metadata
        routing, which the library's scorers use to pass them to
        ``predict``).

    Attributes
    ----------
    n_features_in_ : int
        The number of score columns (runs), without the query id column.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Their names, when ``X`` has string column names.
    trained_ : ndarray or None
        What a supervised method learned from ``y`` (each column's MAP, or
        its chance of relevance per position or segment); None otherwise.
    train_queries_ : tuple of three ndarrays
        The training queries (as :class:`GroupedRanker` keeps them), for a
        supervised method fitted with query ids: scoring other documents of
        them warns (:class:`QueryGroupWarning`).

    See Also
    --------
    fuse : Fuse runs.
    fuse_scores : Fuse score columns once, without an estimator.
    optimize_fusion : Tune a fusion of runs by grouped cross-validation.

    Notes
    -----
    Without query ids (``qid_column`` None and none passed), the rows are
    fused as one query: the candidates of one query, as a reranker scores
    them. A row that no column scores gets ``-inf``, below every other row
    of its query. An unsupervised method learns nothing in ``fit`` (which
    checks ``X`` and records its width): its score on the training queries
    is its score on unseen ones. A supervised method counts a row as
    relevant when its label is at least 1.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics.fusion import FusionRanker
    >>> X = np.array([[12.0, 0.40], [9.5, 0.91], [7.0, np.nan], [np.nan, 0.85]])
    >>> y, qid = np.array([1, 2, 0, 0]), np.array(["q1"] * 4)
    >>> ranker = FusionRanker(method="wsum", normalization="min-max", weights=[0.3, 0.7]).fit(X, y, qid=qid)
    >>> np.round(ranker.predict(X, qid=qid), 4)
    array([0.3   , 0.85  , 0.    , 0.6176])
    >>> round(ranker.score(X, y, qid=qid), 4)
    0.9502
    """

    __metadata_request__fit: ClassVar[dict] = {"qid": True, "groups": True}
    __metadata_request__predict: ClassVar[dict] = {"qid": True, "groups": True}
    __metadata_request__score: ClassVar[dict] = {"qid": True, "groups": True}
    # The scorers and guards read the query ids of a fold from this ranker's qid_column (as GroupedRanker's).
    _query_ids_from_column = True

    def __init__(
        self,
        method="rrf",
        *,
        normalization=None,
        weights=None,
        k=None,
        phi=None,
        sigma=None,
        gamma=None,
        w=None,
        n_segments=None,
        ties="average",
        missing=None,
        qid_column=None,
    ):
        self.method = method
        self.normalization = normalization
        self.weights = weights
        self.k = k
        self.phi = phi
        self.sigma = sigma
        self.gamma = gamma
        self.w = w
        self.n_segments = n_segments
        self.ties = ties
        self.missing = missing
        self.qid_column = qid_column

    def fit(self, X, y=None, *, qid=None, groups=None):
        """Check the options and ``X``; a supervised method learns from ``y``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_runs)
            The runs' scores (NaN: not retrieved), with the query id column
            if ``qid_column`` is set.
        y : array-like of shape (n_samples,), default=None
            Relevance labels; needed by the supervised methods only.
        qid, groups : array-like of shape (n_samples,), default=None
            Query id of each row (either; equal if both).

        Returns
        -------
        self : FusionRanker
            The fitted estimator.
        """
        qid = self._query_ids("FusionRanker.fit", X, qid, groups)
        scores = self._scores(X, reset=True)
        spec = self._spec()
        check_same_length("FusionRanker.fit", X=scores, y=y, qid=qid)
        spec.weight_array(scores.shape[1])
        self.trained_ = None
        if spec.trained is not None:
            if y is None:
                raise ValueError(f"FusionRanker(method={spec.method!r}) learns from relevance labels: pass y to fit.")
            self.trained_ = train_table(spec, scores, qid, check_labels(y))
            if qid is not None:
                self.train_queries_ = (*distinct_query_ids(qid, return_counts=True), query_digests(scores, qid))
        return self

    def predict(self, X, *, qid=None, groups=None):
        """The fused score of each row, fused within its query.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_runs)
            The runs' scores (NaN: not retrieved), with the query id column
            if ``qid_column`` is set.
        qid, groups : array-like of shape (n_samples,), default=None
            Query id of each row; None (and no ``qid_column``): one query.

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            The fused scores; ``-inf`` for a row that no column scores.
        """
        check_is_fitted(self, "trained_")
        qid = self._query_ids("FusionRanker.predict", X, qid, groups)
        scores = self._scores(X, reset=False)
        check_same_length("FusionRanker.predict", X=scores, qid=qid)
        spec = self._spec()
        return fuse_table(scores, qid, spec, spec.weight_array(scores.shape[1]), self.trained_)

    def score(self, X, y, *, qid=None, groups=None, sample_weight=None):
        """NDCG@10 (linear gain, ties averaged) of the fused scores, averaged over queries.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_runs)
            The runs' scores, with the query id column if ``qid_column`` is set.
        y : array-like of shape (n_samples,)
            Relevance labels.
        qid, groups : array-like of shape (n_samples,), default=None
            Query id of each row; required unless ``qid_column`` is set.
        sample_weight : array-like of shape (n_samples,), default=None
            Query weights, constant within a query.

        Returns
        -------
        score : float
            Mean NDCG@10 over the queries.
        """
        check_is_fitted(self, "trained_")
        self._scores(X, reset=False)  # the width of X first, as every estimator checks it
        qid = self._query_ids("FusionRanker.score", X, qid, groups)
        if qid is None:
            raise missing_qid_error("FusionRanker.score", ranker="FusionRanker")
        fused = self.predict(X, qid=qid)
        check_same_length("FusionRanker.score", X=fused, y=y, qid=qid, sample_weight=sample_weight)
        score = ndcg_score(y, fused, qid=qid, k=10, sample_weight=sample_weight)
        check_scored_fold(self, X, qid, qid_column=self.qid_column)
        return score

    def _spec(self):
        params = {
            "k": self.k,
            "phi": self.phi,
            "sigma": self.sigma,
            "gamma": self.gamma,
            "w": self.w,
            "n_segments": self.n_segments,
        }
        return fusion_spec(self.method, self.normalization, self.weights, self.ties, self.missing, params)

    def _query_ids(self, who, X, qid, groups):
        """The query ids of the rows of ``X``: from ``qid_column``, or routed; all present must agree."""
        columns = [("FusionRanker", self.qid_column)]
        return resolve_qid(who, X=X, qid=qid, groups=groups, columns=columns, prefer_column=True)[0]

    def _features(self, X):
        """``X`` without its query id column (read by the scoring guards, as GroupedRanker's)."""
        check_2d(X)
        return X if self.qid_column is None else split_qid_column(X, self.qid_column)[0]

    def _scores(self, X, *, reset):
        """The score columns of ``X`` (without the query id column), checked, as float64."""
        features = validate_data(self, self._features(X), reset=reset, ensure_all_finite="allow-nan", dtype=np.float64)
        return check_table(features, "X")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.target_tags.required = False
        return tags


def check_labels(y):
    """Relevance labels as finite float64 numbers (a NaN label would silently count as not relevant)."""
    try:
        labels = np.asarray(y, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise TypeError(f"y must hold relevance labels, numbers; got {np.asarray(y).dtype} values.") from None
    if not np.isfinite(labels).all():
        row = int(np.flatnonzero(~np.isfinite(labels))[0])
        raise ValueError(f"y holds {float(labels[row])!r} at row {row}; give each row a finite relevance label.")
    return labels
