"""GroupedRanker: hands any ranker its query groups, so it cross-validates like any estimator."""

import inspect
import numbers
from typing import ClassVar

import numpy as np
from sklearn import get_config
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.pipeline import Pipeline
from sklearn.utils import get_tags
from sklearn.utils.validation import check_is_fitted, validate_data

from .._core._numpy_ops import differs_from_previous, group_by_query
from .._core._query_ids import distinct_query_ids, encode_qid, query_id_array
from .._core._ranking import query_weight
from .._core._validation import check_integer, check_same_length, plain
from ..metrics._dcg import ndcg_score
from ._booster_metrics import one_label_scorer
from ._early_stopping import BOOSTERS, split_queries
from ._guards import Run, check_scored_fold, query_digests
from ._qid_column import missing_qid_error, resolve_qid, split_qid_column, take_rows
from ._scorer import ranking_scores

# fit parameters that carry query groups, by preference: CatBoost, XGBoost, LightGBM.
GROUP_PARAMS = ("group_id", "qid", "group")
# The boosters' evaluation parameters, which a user may route to the inner fit.
BOOSTER_FIT_PARAMS = (
    "eval_set",
    "eval_X",
    "eval_y",
    "eval_group",
    "eval_qid",
    "eval_names",
    "eval_sample_weight",
    "eval_metric",
    "eval_at",
    "callbacks",
    "verbose",
    "early_stopping_rounds",
    "use_best_model",
)
# Fitted attributes read through to the inner model, and where each booster keeps them.
FORWARDED = {
    "feature_importances_": ("feature_importances_",),
    "coef_": ("coef_",),
    "intercept_": ("intercept_",),
    "best_iteration_": ("best_iteration_", "best_iteration"),
    "best_score_": ("best_score_", "best_score"),
    "evals_result_": ("evals_result_", "evals_result"),
}


# Boosters whose best iteration is the 0-based index of the best round, by the package that defines them.
ZERO_BASED_BEST_ITERATION = ("xgboost", "catboost")


def rounds_kept(model, best_iteration):
    """The boosting rounds that an early-stopped ``model`` keeps, from its own best iteration (a count or an index).

    LightGBM counts the rounds (0 without early stopping); XGBoost and CatBoost
    give the index of the best round (None, or no attribute, without).
    """
    packages = {cls.__module__.partition(".")[0] for cls in type(model).__mro__}
    zero_based = not packages.isdisjoint(ZERO_BASED_BEST_ITERATION)
    if best_iteration is None or (best_iteration == 0 and not zero_based):
        raise AttributeError(
            f"'GroupedRanker' object has no attribute 'best_iteration_': its {type(model).__name__} did not stop early."
        )
    return int(best_iteration) + 1 if zero_based else int(best_iteration)


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
        in ``fit`` and in ``predict``, and the scorers of this library read it
        from here (a scorer's own ``qid_column`` is not needed). None: the
        query ids come as ``qid`` or ``groups`` to ``fit`` and ``score``.
        Where both arrive they must make the same queries (see Notes).
    group_param : str or None, default="auto"
        Name of the inner ``fit`` parameter that takes the groups. ``"auto"``
        looks for ``group_id``, ``qid`` then ``group`` in the signature of the
        inner (final step's) ``fit``. ``"group"`` receives the size of each
        query in order; any other name, the query id of each row as sorted
        integers; None: no groups (pointwise estimators).
    early_stopping_rounds : int, default=None
        Stop boosting when the validation metric has not improved for this
        many rounds, in every fit (so in every fold of a search), and keep the
        best round. Each fit holds out ``validation_fraction`` of its queries
        (whole queries: at least one, and at least two are left to train on,
        so a fit needs three queries) as the evaluation set of the inner
        booster, in its own format; they never reach the training rows. Fewer
        than about 30 validation queries warn (:class:`QueryGroupWarning`):
        the best round is then mostly noise, and tuning ``n_estimators`` by
        cross-validation is the better choice.
        LightGBM, XGBoost and CatBoost rankers given directly; None: no early
        stopping.
    early_stopping_metric : str, default="ndcg@10"
        The metric that decides, a name of :func:`get_ranking_scorer` (or a
        scorer of :func:`make_ranking_scorer`), computed by this library's
        evaluation adapters :class:`LightGBMMetric`, :class:`XGBoostMetric`
        and :class:`CatBoostMetric`, so that the stopping agrees with the
        search's scorer. A metric of a judgement matrix (alpha-nDCG and the
        other diversity metrics) is refused when ``fit`` starts: a booster has
        one label per row.
    validation_fraction : float, default=0.1
        Share of each fit's queries held out for early stopping, in (0, 1):
        ``round(validation_fraction * n_queries)`` of them, at least one and
        leaving two to train on.
    random_state : int, RandomState instance or None, default=None
        Chooses the held-out queries; an int makes fits reproducible.

    Attributes
    ----------
    estimator_ : estimator object
        The fitted clone of ``estimator``.
    group_param_ : str or None
        The group parameter used.
    n_features_in_ : int
        Number of features seen in ``fit``, without the query id column.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of those features, when ``X`` has string column names.
    train_queries_ : tuple of three ndarrays, or None
        The distinct query ids of the fit (sorted; those of ``qid_column``
        where it is set), the number of rows of each and a 64-bit digest of
        each query's feature rows (order-free; None where the rows cannot be
        hashed), so that scoring other documents of a training query warns
        (:class:`QueryGroupWarning`) while scoring the training queries
        themselves does not. None after a fit without query ids.
    best_iteration_ : int
        After early stopping (by ``early_stopping_rounds``, or the booster's
        own), the number of boosting rounds that the fitted model keeps, for
        LightGBM, XGBoost and CatBoost alike: ``n_estimators=best_iteration_``
        without early stopping fits a model of the same size. LightGBM's
        ``best_iteration_`` is that count already; XGBoost's ``best_iteration``
        and CatBoost's ``best_iteration_`` are the 0-based index of the best
        round, one less. Absent when the inner model did not stop early.
    feature_importances_, coef_, intercept_, best_score_, evals_result_
        Those of the inner model, where it has them (XGBoost's
        ``evals_result()`` included), so that ``RFECV``, ``SelectFromModel``
        and inspection work with their defaults.

    See Also
    --------
    get_ranking_scorer : Scorers that find the query ids of each fold, as
        ``scoring=get_ranking_scorer("ndcg@10")``.
    LightGBMMetric : This library's metrics in LightGBM's own evaluation.

    Notes
    -----
    Query ids are resolved in one place for ``fit``, ``score``, the scorers,
    :func:`permutation_importance`, the guards and early stopping: every
    source present (routed ``qid``, routed ``groups``, ``qid_column``, a
    scorer's ``qid_column``) is read and all must make the same queries of the
    rows; a disagreement is refused with both named. So with routing on,
    ``groups=users`` given to a search to split by user, beside query ids in
    ``qid_column``, is an error that says how to split by user (the folds as
    ``cv=``, or ``set_fit_request(groups=False)``), never a silent merge of each
    user's queries. A ranker (LightGBM, XGBoost, CatBoost) needs query ids in
    every ``fit``; inside model selection (a search, ``cross_validate``, ...)
    any estimator does, since the fold will be scored by query: scikit-learn
    then raises one error with this library's message ("All the N fits
    failed"), where a scorer failing in every fold would only give
    ``best_score_ = nan``.

    Rows are ordered by query with a stable sort, so the order of the rows of a
    query is kept. ``sample_weight`` reaches the inner ``fit`` per row, except
    for ``group_param="qid"`` (XGBoost), which takes one weight per query: it
    must then be constant within each query. ``score`` warns
    (:class:`QueryGroupWarning`) on a fold that shares queries with the
    training data or whose queries mostly hold a single document. Other
    ``fit_params`` (such as LightGBM's ``eval_X``/``eval_y`` with
    ``eval_group``, or XGBoost's ``eval_set`` with ``eval_qid``) pass to the
    inner ``fit`` unchanged: give them in the inner
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

    In model selection, with the query ids as column 0 of ``X``: the scorer
    reads the column from the ranker, and ``groups=`` splits whole queries.

    >>> import numpy as np
    >>> from sklearn.model_selection import GroupKFold, cross_val_score
    >>> from sklearn_rankmetrics import get_ranking_scorer
    >>> ranker = GroupedRanker(HistGradientBoostingRegressor(max_iter=20), qid_column=0)
    >>> scores = cross_val_score(
    ...     ranker, np.column_stack([qid, X]), y, scoring=get_ranking_scorer("ndcg@10"), cv=GroupKFold(3), groups=qid
    ... )
    >>> scores.round(4)
    array([0.8349, 0.8375, 0.7354])
    """

    # With metadata routing on, fit and score ask for the query ids by default; the
    # boosters' own evaluation parameters can be requested (set_fit_request(eval_set=True)).
    __metadata_request__fit: ClassVar[dict] = {
        "qid": True,
        "groups": True,
        **{param: None for param in BOOSTER_FIT_PARAMS},
    }
    __metadata_request__score: ClassVar[dict] = {"qid": True, "groups": True}
    # The scorers and guards read the query ids of a fold from this ranker's qid_column (_qid_column.scored_ranker).
    _query_ids_from_column = True

    def __init__(
        self,
        estimator,
        *,
        qid_column=None,
        group_param="auto",
        early_stopping_rounds=None,
        early_stopping_metric="ndcg@10",
        validation_fraction=0.1,
        random_state=None,
    ):
        self.estimator = estimator
        self.qid_column = qid_column
        self.group_param = group_param
        self.early_stopping_rounds = early_stopping_rounds
        self.early_stopping_metric = early_stopping_metric
        self.validation_fraction = validation_fraction
        self.random_state = random_state

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
        qid = self._query_ids("GroupedRanker.fit", X, qid, groups)
        X = self._features(X)
        check_same_length("GroupedRanker.fit", X=X, y=y, qid=qid, sample_weight=sample_weight)
        validate_data(self, X, y, skip_check_array=True, reset=True)
        self.group_param_ = self._resolve_group_param()
        stopping = self._check_early_stopping()
        own = {} if sample_weight is None else {"sample_weight": np.asarray(sample_weight, dtype=np.float64)}
        if qid is None and (self.group_param_ is not None or Run.current().repeats):
            # A ranker needs its groups; in model selection, a fold's scorer will need the query ids too, and
            # scikit-learn raises one error when every fit fails, where a failing scorer only gives nan.
            raise missing_qid_error(f"GroupedRanker({type(self._final_step()).__name__})", ranker="GroupedRanker")
        codes = None if qid is None else encode_qid(qid, X.shape[0])
        self.train_queries_ = (
            None if qid is None else (*distinct_query_ids(qid, return_counts=True), query_digests(X, qid))
        )
        estimator = clone(self.estimator)
        rows = None
        if self.group_param_ is not None:
            rows = np.arange(X.shape[0])
            if stopping:
                who = f"GroupedRanker(early_stopping_rounds={self.early_stopping_rounds})"
                rows, validation_rows = split_queries(codes, self.validation_fraction, self.random_state, who)
            rows, group = self._grouped(codes, rows, qid)
            if stopping:
                train = (np.asarray(take_rows(y, rows)), group[self.group_param_])
                fit_params = {
                    **fit_params,
                    **self._validation_params(estimator, X, y, codes, validation_rows, qid, train),
                }
            own = {**group, **{param: value[rows] for param, value in own.items()}}
            if "sample_weight" in own and self.group_param_ == "qid":  # XGBoost ranking takes one weight per query
                own["sample_weight"] = query_weight(
                    own["sample_weight"], differs_from_previous(codes[rows]), qid, rows, reason=" for an XGBoost ranker"
                )
        inner_params = {**fit_params, **self._addressed(estimator, own)}
        self.estimator_ = estimator.fit(take_rows(X, rows), take_rows(y, rows), **inner_params)
        return self

    def _grouped(self, codes, rows, qid, *, min_queries=2):
        """The rows ``rows`` ordered by query, and the group parameter in the inner estimator's format."""
        order = rows[group_by_query(codes[rows])]
        sorted_codes = codes[order]
        is_start = differs_from_previous(sorted_codes)
        if is_start.sum() < min_queries:
            raise ValueError(
                "GroupedRanker got the rows of a single query; a ranker learns by comparing documents of "
                f"many queries. Check that qid (or groups) holds the query of each row; got {len(order)} rows of "
                f"query {plain(query_id_array(qid)[order[0]])!r}."
            )
        sizes = np.diff(np.flatnonzero(np.r_[is_start, True]))
        return order, {self.group_param_: sizes if self.group_param_ == "group" else sorted_codes}

    def _check_early_stopping(self):
        """Whether to stop early; checks the early-stopping parameters."""
        if self.early_stopping_rounds is None:
            return False
        check_integer("early_stopping_rounds", self.early_stopping_rounds, allow_none=True)
        fraction = self.validation_fraction
        if isinstance(fraction, bool) or not isinstance(fraction, numbers.Real) or not 0 < fraction < 1:
            raise ValueError(f"validation_fraction must be a number in (0, 1); got {plain(fraction)!r}.")
        one_label_scorer(self.early_stopping_metric, "early_stopping_metric")
        if self.group_param_ not in BOOSTERS or isinstance(self.estimator, Pipeline):
            raise ValueError(
                "early_stopping_rounds works with a LightGBM, XGBoost or CatBoost ranker given directly (not in a "
                f"Pipeline); got {type(self.estimator).__name__} with group parameter {plain(self.group_param_)!r}. "
                "Use the estimator's own early stopping (HistGradientBoosting*: early_stopping=True)."
            )
        return True

    def _validation_params(self, estimator, X, y, codes, validation_rows, qid, train):
        """The inner fit's evaluation parameters for the held-out queries, in the booster's own format.

        ``train`` holds the training rows' labels and groups, ordered by query.
        """
        order, group = self._grouped(codes, validation_rows, qid, min_queries=1)
        validation = (take_rows(X, order), np.asarray(take_rows(y, order)), group[self.group_param_])
        make_params = BOOSTERS[self.group_param_]
        return make_params(estimator, train, validation, self.early_stopping_metric, self.early_stopping_rounds)

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
        qid = self._query_ids("GroupedRanker.score", X, qid, groups)
        if qid is None:
            raise missing_qid_error("GroupedRanker.score", ranker="GroupedRanker")
        check_same_length("GroupedRanker.score", X=X, y=y, qid=qid, sample_weight=sample_weight)
        score = ndcg_score(y, y_score, qid=qid, k=10, sample_weight=sample_weight)
        check_scored_fold(self, X, qid, qid_column=self.qid_column)
        return score

    def __getattr__(self, name):
        # Fitted attributes of the inner model (RFECV, SelectFromModel and inspection read them).
        if name in FORWARDED and "estimator_" in self.__dict__:
            inner = self.__dict__["estimator_"]
            final = inner.steps[-1][1] if isinstance(inner, Pipeline) else inner
            for source in FORWARDED[name]:
                try:
                    value = getattr(final, source)
                except AttributeError:  # XGBoost's best_iteration without early stopping
                    continue
                value = value() if callable(value) else value
                return rounds_kept(final, value) if name == "best_iteration_" else value
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _query_ids(self, who, X, qid, groups):
        """The query ids of the rows of ``X``: from ``qid_column``, or routed; all present must agree."""
        columns = [("GroupedRanker", self.qid_column)]
        return resolve_qid(who, X=X, qid=qid, groups=groups, columns=columns, prefer_column=True)[0]

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
