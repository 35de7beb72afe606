"""GroupedRanker: hands any ranker its query groups, so it cross-validates like any estimator."""

import inspect
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn import get_config
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.pipeline import Pipeline
from sklearn.utils import get_tags
from sklearn.utils.validation import check_is_fitted, validate_data

from ._dcg import ndcg_score
from ._grouping import differs_from_previous, encode_qid, group_by_query, query_weight
from ._query_ids import missing_qid_error, resolve_qid, split_qid_column
from ._scorer import ranking_scores
from ._validation import check_same_length

# fit parameters that carry query groups, by preference: CatBoost, XGBoost, LightGBM.
GROUP_PARAMS = ("group_id", "qid", "group")


def take_rows(data, rows):
    """Rows ``rows`` of an array, sparse matrix, DataFrame or Series; all of it for None."""
    if rows is None:
        return data
    if hasattr(data, "iloc"):
        return data.iloc[rows]
    return data.tocsr()[rows] if sp.issparse(data) else np.asarray(data)[rows]


def check_2d(X):
    """Raise unless ``X`` is a 2-D container of samples and features."""
    ndim = len(X.shape) if hasattr(X, "shape") else np.asarray(X).ndim
    if ndim != 2:
        raise ValueError(
            f"Expected a 2-D X of shape (n_samples, n_features), got {ndim}-D. Reshape your data either "
            "using array.reshape(-1, 1) if it has a single feature or array.reshape(1, -1) for a single sample."
        )


class GroupedRanker(MetaEstimatorMixin, BaseEstimator):
    """Fit a ranker on rows ordered by query, with the group format it expects.

    Cross-validation slices rows, which breaks the query groups that rankers
    take as a separate argument. ``GroupedRanker`` takes each row's query id
    instead (routed metadata ``qid``/``groups``, or a column of ``X``), orders
    the rows by query and gives the inner estimator what its ``fit`` expects:
    LightGBM ``group`` (the size of each query), XGBoost ``qid`` (sorted ids),
    CatBoost ``group_id`` (contiguous ids), nothing for pointwise regressors
    and classifiers.

    Parameters
    ----------
    estimator : estimator object
        A ranker such as ``lightgbm.LGBMRanker``, ``xgboost.XGBRanker`` or
        ``catboost.CatBoostRanker``, a regressor or classifier used as a ranker,
        or a :class:`~sklearn.pipeline.Pipeline` ending in one.
    qid_column : str or int, default=None
        The column of ``X`` holding the query ids (a DataFrame label or an
        array position). It is dropped before the inner estimator sees ``X``,
        in ``fit`` and in ``predict``. None: the query ids come as ``qid`` or
        ``groups`` to ``fit`` and ``score``.
    group_param : str or None, default="auto"
        Name of the inner ``fit`` parameter that takes the groups. ``"auto"``
        looks for ``group_id``, ``qid`` then ``group`` in the signature of the
        inner (final step's) ``fit``. ``"group"`` receives the size of each
        query in order; any other name, the query id of each row as sorted
        integers; None: no groups (pointwise estimators).

    Attributes
    ----------
    estimator_ : estimator object
        The fitted clone of ``estimator``.
    group_param_ : str or None
        The group parameter used.
    n_features_in_ : int
        Number of features seen in ``fit``, without the query id column.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of those features, when ``X`` has string column names.

    See Also
    --------
    make_ranking_scorer : Scorers that find the query ids of each fold.

    Notes
    -----
    Rows are ordered by query with a stable sort, so the order of the rows of a
    query is kept. ``sample_weight`` reaches the inner ``fit`` per row, except
    for ``group_param="qid"`` (XGBoost), which takes one weight per query: it
    must then be constant within each query. Other ``fit_params`` (such as
    LightGBM's ``eval_set`` with ``eval_group``, or XGBoost's ``eval_set`` with
    ``eval_qid``) pass to the inner ``fit`` unchanged: give them in the inner
    estimator's own format and without the query id column. With metadata
    routing on and a ``Pipeline`` inside, the clone's final step is asked for
    the group parameter (and ``sample_weight``) automatically.

    Examples
    --------
    >>> from sklearn.ensemble import HistGradientBoostingRegressor
    >>> from sklearn_rankmetrics import GroupedRanker, make_ranking
    >>> X, y, qid = make_ranking(n_queries=30, random_state=0)
    >>> ranker = GroupedRanker(HistGradientBoostingRegressor(max_iter=20)).fit(X, y, qid=qid)
    >>> round(ranker.score(X, y, qid=qid), 4)
    0.9224
    """

    # With metadata routing on, fit and score ask for the query ids by default.
    __metadata_request__fit: ClassVar[dict] = {"qid": True, "groups": True}
    __metadata_request__score: ClassVar[dict] = {"qid": True, "groups": True}

    def __init__(self, estimator, *, qid_column=None, group_param="auto"):
        self.estimator = estimator
        self.qid_column = qid_column
        self.group_param = group_param

    def fit(self, X, y, *, qid=None, groups=None, sample_weight=None, **fit_params):
        """Fit the inner estimator on the rows ordered by query.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
            Features, with the query id column if ``qid_column`` is set.
        y : array-like of shape (n_samples,)
            Relevance labels.
        qid, groups : array-like of shape (n_samples,), default=None
            Query id of each row (either; equal if both).
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights (constant within a query for ``group_param="qid"``).
        **fit_params : dict
            Passed to the inner ``fit`` unchanged.

        Returns
        -------
        self : GroupedRanker
            The fitted meta-estimator.
        """
        qid = resolve_qid(qid=qid, groups=groups, X=X, qid_column=self.qid_column, who="GroupedRanker.fit")
        X = self._features(X)
        check_same_length("GroupedRanker.fit", X=X, y=y, qid=qid, sample_weight=sample_weight)
        validate_data(self, X, y, skip_check_array=True, reset=True)
        self.group_param_ = self._resolve_group_param()
        own = {} if sample_weight is None else {"sample_weight": np.asarray(sample_weight, dtype=np.float64)}
        rows = None
        if self.group_param_ is not None:
            if qid is None:
                raise missing_qid_error(f"GroupedRanker({type(self._final_step()).__name__})", "GroupedRanker")
            rows, own = self._grouped(qid, X.shape[0], own)
        estimator = clone(self.estimator)
        inner_params = {**fit_params, **self._addressed(estimator, own)}
        self.estimator_ = estimator.fit(take_rows(X, rows), take_rows(y, rows), **inner_params)
        return self

    def _grouped(self, qid, n_rows, own):
        """The row order by query and the group parameter (and weights) in the inner format."""
        codes = encode_qid(qid, n_rows)
        order = group_by_query(codes)
        codes = codes[order]
        is_start = differs_from_previous(codes)
        if is_start.sum() < 2:
            raise ValueError(
                "GroupedRanker got the rows of a single query; a ranker learns by comparing documents of "
                f"many queries. Check that qid (or groups) holds the query of each row; got {n_rows} rows of "
                f"query {np.asarray(qid)[0]!r}."
            )
        sizes = np.diff(np.flatnonzero(np.r_[is_start, True]))
        own = {self.group_param_: sizes if self.group_param_ == "group" else codes, **own}
        if "sample_weight" in own:
            weight = own["sample_weight"][order]
            if self.group_param_ == "qid":  # XGBoost ranking takes one weight per query
                weight = query_weight(weight, is_start, qid, order, reason=" for an XGBoost ranker")
            own["sample_weight"] = weight
        return order, own

    def predict(self, X):
        """Ranking scores of the rows of ``X``, in the order given.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
            Features, with the query id column if ``qid_column`` is set.

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            ``predict`` of the inner estimator, or for a classifier the
            probability of the positive class or the expected grade.
        """
        check_is_fitted(self)
        X = self._features(X)
        validate_data(self, X, skip_check_array=True, reset=False)
        return ranking_scores(self.estimator_, X)

    def score(self, X, y, *, qid=None, groups=None, sample_weight=None):
        """NDCG@10 (linear gain, ties averaged) of the predictions, averaged over queries.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
            Features, with the query id column if ``qid_column`` is set.
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
        y_score = self.predict(X)
        qid = resolve_qid(qid=qid, groups=groups, X=X, qid_column=self.qid_column, who="GroupedRanker.score")
        if qid is None:
            raise missing_qid_error("GroupedRanker.score", "GroupedRanker")
        check_same_length("GroupedRanker.score", X=X, y=y, qid=qid, sample_weight=sample_weight)
        return ndcg_score(y, y_score, qid=qid, k=10, sample_weight=sample_weight)

    def _features(self, X):
        check_2d(X)
        return X if self.qid_column is None else split_qid_column(X, self.qid_column)[0]

    def _final_step(self):
        return self.estimator.steps[-1][1] if isinstance(self.estimator, Pipeline) else self.estimator

    def _resolve_group_param(self):
        if self.group_param != "auto":
            return self.group_param
        accepted = inspect.signature(self._final_step().fit).parameters
        return next((name for name in GROUP_PARAMS if name in accepted), None)

    def _addressed(self, estimator, fit_params):
        """Address ``fit_params`` to the final step when the inner estimator is a Pipeline."""
        if not isinstance(estimator, Pipeline):
            return fit_params
        name, step = estimator.steps[-1]
        if get_config()["enable_metadata_routing"]:
            step.set_fit_request(**{param: True for param in fit_params})
            return fit_params
        return {f"{name}__{param}": value for param, value in fit_params.items()}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = get_tags(self.estimator).input_tags
        tags.input_tags.sparse = inner.sparse
        tags.input_tags.allow_nan = inner.allow_nan
        return tags
