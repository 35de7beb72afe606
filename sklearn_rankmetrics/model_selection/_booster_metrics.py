"""This library's ranking metrics as the boosters' own evaluation metrics: LightGBM, XGBoost and CatBoost.

Each adapter computes the metric exactly as the scorer of the same name does,
on the evaluation rows and query groups that the booster hands it, so that a
booster's log, its early stopping and a search's score speak of one metric.
None of them imports its booster: they read what the booster passes.
"""

import warnings

import numpy as np

from .._core._query_ids import encode_qid
from .._core._validation import check_integer, check_same_length, plain
from ..registry._registry import DIVERSITY_METRICS
from ._qid_column import take_rows
from ._scorer import RankingScorer, get_ranking_scorer


def one_label_scorer(metric, parameter):
    """The scorer of ``metric`` (a name, or a scorer of this library), checked to score one label per row.

    The boosters evaluate one relevance label per row, so a metric of a
    judgement matrix (the diversity metrics) is refused here, where the
    parameter ``parameter`` is given, rather than after a boosting round.
    """
    try:
        scorer = get_ranking_scorer(metric) if isinstance(metric, str) else metric
    except (TypeError, ValueError) as error:  # the name's own error, said of the parameter that gave it
        raise type(error)(f"{parameter}={plain(metric)!r}: {error}") from error
    if not isinstance(scorer, RankingScorer):
        raise TypeError(
            f"{parameter} must be a metric name such as 'ndcg@10', or a scorer of get_ranking_scorer or "
            f"make_ranking_scorer; got {plain(metric)!r}."
        )
    if scorer._score_func in DIVERSITY_METRICS:
        raise ValueError(
            f"{parameter}={plain(metric)!r} is a diversity metric, whose y_true is a judgement matrix (one column "
            "per subtopic), but a booster evaluates one relevance label per row, so it cannot be computed there. "
            f"Name a metric of graded labels for {parameter}, such as 'ndcg@10', 'err@10' or 'map', and score the "
            "diversity of the fitted model on its own data afterwards."
        )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the trial query has no relevant document
            scorer._score_func(np.zeros(2), np.array([1.0, 0.0]), qid=np.zeros(2, dtype=np.intp), **scorer._kwargs)
    except (TypeError, ValueError) as error:
        raise ValueError(
            f"{parameter}={plain(metric)!r} cannot score one relevance label per row, as a booster evaluates: {error}"
        ) from error
    return scorer


def queries_of_sizes(sizes, n_rows, who, how):
    """Query codes 0, 1, ... of rows grouped in consecutive queries of ``sizes`` rows."""
    sizes = np.asarray(sizes, dtype=np.intp).ravel()
    if sizes.sum() != n_rows:
        raise ValueError(
            f"{who} received query groups of {int(sizes.sum())} rows in all for {n_rows} evaluated rows; {how}"
        )
    return np.repeat(np.arange(len(sizes)), sizes)


class BoosterMetric:
    """A ranking metric computed on what a booster hands over: labels, predictions and query groups.

    Parameters
    ----------
    metric : str or scorer, default="ndcg@10"
        A name of :func:`get_ranking_scorer`, or a scorer of
        :func:`make_ranking_scorer`.
    """

    def __init__(self, metric="ndcg@10"):
        self.metric = metric
        self._scorer = one_label_scorer(metric, "metric")
        self.name = repr(self._scorer)
        self.higher_is_better = self._scorer._sign > 0

    def score(self, y_true, y_score, qid, sample_weight=None):
        """The metric of scores ``y_score`` of rows of queries ``qid``, as the scorer of its name computes it.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            Relevance labels.
        y_score : array-like of shape (n_samples,)
            Predicted scores.
        qid : array-like of shape (n_samples,)
            Query id of each row.
        sample_weight : array-like of shape (n_samples,), default=None
            Query weights, constant within a query.

        Returns
        -------
        value : float
            The metric, not negated (a loss stays positive; see ``higher_is_better``).
        """
        y_true = np.asarray(y_true, dtype=np.float64).ravel()
        y_score = np.asarray(y_score, dtype=np.float64).ravel()
        options = self._scorer._kwargs
        return float(self._scorer._score_func(y_true, y_score, qid=qid, sample_weight=sample_weight, **options))

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r})"


class LightGBMMetric(BoosterMetric):
    """A ranking metric of this library as a LightGBM evaluation function (``eval_metric``, ``feval``).

    LightGBM hands the function the labels, the predictions, the weights and
    the query sizes of each evaluated set; it returns ``(name, value,
    is_higher_better)``, the value computed exactly as the scorer of the same
    name computes it. It serves both of LightGBM's interfaces:
    ``LGBMRanker.fit(..., eval_metric=LightGBMMetric("ndcg@10"))`` (with
    ``eval_group``) and ``lightgbm.train(..., feval=LightGBMMetric("ndcg@10"))``
    (on Datasets with ``group``). :class:`GroupedRanker` stops LightGBM early on
    it.

    Parameters
    ----------
    metric : str or scorer, default="ndcg@10"
        A name of :func:`get_ranking_scorer` (such as ``"ndcg@10"``,
        ``"err@20"``, ``"map"``), or a scorer of :func:`make_ranking_scorer`.
        A metric of a judgement matrix (alpha-nDCG and the other diversity
        metrics) is refused: a booster has one label per row.

    Attributes
    ----------
    name : str
        The metric's canonical name, as LightGBM logs it (``"ndcg@10"``).
    higher_is_better : bool
        Whether larger values are better (False for a scorer made with
        ``greater_is_better=False``).

    See Also
    --------
    XGBoostMetric : The same for XGBoost.
    CatBoostMetric : The same for CatBoost.
    get_ranking_scorer : The scorer of the same name, for model selection.

    Notes
    -----
    Give LightGBM ``metric="None"`` so that its own metrics (``ndcg@1`` to
    ``ndcg@5`` for ``LGBMRanker``) are not computed beside it, and so that
    early stopping follows this one (or ``first_metric_only=True`` with this
    metric first). LightGBM's own ``ndcg`` takes exponential gains, orders
    tied scores by position and scores a query without a relevant document 1
    (this library's ``"ndcg_exp@k(ties='stable', zero_division=1.0)"``, as the
    tests check); this function follows the conventions of the name it is
    given, those of the scorer.
    Weights, when the evaluated set has them, are this library's query
    weights: constant within each query.

    Examples
    --------
    >>> import numpy as np
    >>> from lightgbm import LGBMRanker
    >>> from sklearn_rankmetrics import LightGBMMetric, make_ranking, ndcg_score
    >>> X, y, qid = make_ranking(n_queries=40, random_state=0)
    >>> order = np.argsort(qid, kind="stable")  # LightGBM wants each query's rows together
    >>> X, y, qid = X[order], y[order], qid[order]
    >>> train, valid = qid < 30, qid >= 30
    >>> sizes = [np.unique(qid[rows], return_counts=True)[1] for rows in (train, valid)]
    >>> model = LGBMRanker(n_estimators=5, metric="None", verbose=-1).fit(
    ...     X[train], y[train], group=sizes[0], eval_X=(X[valid],), eval_y=(y[valid],), eval_group=[sizes[1]],
    ...     eval_metric=LightGBMMetric("ndcg@10"),
    ... )
    >>> logged = model.evals_result_["valid_0"]["ndcg@10"][-1]
    >>> bool(logged == ndcg_score(y[valid], model.predict(X[valid]), qid=qid[valid], k=10))
    True
    """

    def __call__(self, y_true, y_pred, weight=None, group=None):
        """``(name, value, is_higher_better)`` of the predictions ``y_pred``.

        Parameters
        ----------
        y_true : ndarray of shape (n_samples,)
            Labels (``lightgbm.train``'s ``feval`` passes the predictions here).
        y_pred : ndarray of shape (n_samples,)
            Predictions (``lightgbm.train``'s ``feval`` passes its Dataset here).
        weight : ndarray of shape (n_samples,), default=None
            Query weights, constant within each query.
        group : ndarray of shape (n_queries,), default=None
            The number of rows of each query, in order.

        Returns
        -------
        name : str
            The metric's name.
        value : float
            The metric, averaged over queries.
        is_higher_better : bool
            Whether larger values are better.
        """
        if hasattr(y_pred, "get_group"):  # lightgbm.train(feval=...) passes (predictions, Dataset)
            data, y_pred = y_pred, y_true
            y_true, weight, group = data.get_label(), data.get_weight(), data.get_group()
        if group is None:
            raise ValueError(
                f"{self!r} needs the query groups of every evaluated set: give LGBMRanker.fit eval_group= for each "
                "eval_set, or lightgbm.Dataset(..., group=) for lightgbm.train."
            )
        qid = queries_of_sizes(group, len(y_true), repr(self), "give eval_group= the sizes of each set's queries.")
        return self.name, self.score(y_true, y_pred, qid, weight), self.higher_is_better


class XGBoostMetric(BoosterMetric):
    """A ranking metric of this library as an XGBoost evaluation metric (``custom_metric``, a callback).

    Two ways to use it, both exact (the metric of the evaluated queries, as
    the scorer of the same name computes it):

    - ``xgboost.train(params, dtrain, evals=..., custom_metric=XGBoostMetric("ndcg@10"),
      maximize=True)``: XGBoost hands it the predictions and each evaluated
      DMatrix (built with ``qid=`` or ``group=``), and it returns ``(name,
      value)``. XGBoost logs the value with six decimals (``"%f"``) and its
      early stopping compares those.
    - ``XGBRanker(callbacks=[metric.callback(X_val, y_val, qid_val)])``: a
      training callback that logs the metric of those rows after each round,
      at full precision, in ``evals_result()["validation"]``, and with
      ``early_stopping_rounds`` stops on it and keeps the best round.
      :class:`GroupedRanker` stops XGBoost early so.

    ``XGBRanker(eval_metric=...)`` is refused: XGBoost (3.2) then calls a
    metric on one query at a time and averages the values weighted by the
    number of documents of each query, which is no metric of this library.
    Without ``maximize=True``, ``xgboost.train`` guesses the direction from the
    name, and minimises ``"mrr@10"`` or ``"err@10"``.

    Parameters
    ----------
    metric : str or scorer, default="ndcg@10"
        A name of :func:`get_ranking_scorer`, or a scorer of
        :func:`make_ranking_scorer`. A metric of a judgement matrix is refused.

    Attributes
    ----------
    name : str
        The metric's canonical name, as XGBoost logs it (``"ndcg@10"``).
    higher_is_better : bool
        Whether larger values are better (give ``xgboost.train`` the same as
        ``maximize``).

    See Also
    --------
    LightGBMMetric : The same for LightGBM.
    CatBoostMetric : The same for CatBoost.

    Examples
    --------
    >>> import numpy as np
    >>> import xgboost
    >>> from sklearn_rankmetrics import XGBoostMetric, make_ranking, ndcg_score
    >>> X, y, qid = make_ranking(n_queries=40, random_state=0)
    >>> train, valid = qid < 30, qid >= 30
    >>> metric = XGBoostMetric("ndcg@10")
    >>> model = xgboost.XGBRanker(n_estimators=50, callbacks=[metric.callback(X[valid], y[valid], qid[valid], 5)])
    >>> order = np.argsort(qid[train], kind="stable")  # XGBoost wants the training rows sorted by query
    >>> model = model.fit(X[train][order], y[train][order], qid=qid[train][order])
    >>> logged = model.evals_result()["validation"]["ndcg@10"]
    >>> best = ndcg_score(y[valid], model.predict(X[valid]), qid=qid[valid], k=10)
    >>> bool(best == max(logged) == logged[model.best_iteration])
    True
    """

    def __call__(self, y_score, data):
        """``(name, value)`` of predictions ``y_score`` of the rows of the DMatrix ``data``, as ``custom_metric``.

        Parameters
        ----------
        y_score : ndarray of shape (n_samples,)
            The predictions.
        data : xgboost.DMatrix
            The evaluated rows, with their query groups (``qid=`` or ``group=``).

        Returns
        -------
        name : str
            The metric's name.
        value : float
            The metric, averaged over the queries.
        """
        if not hasattr(data, "get_uint_info"):
            raise TypeError(
                f"{self!r} was called with the labels and scores of one query, as XGBRanker(eval_metric=...) calls a "
                "metric; XGBoost then averages the values weighted by the number of documents of each query, which is "
                "no metric of this library. Log it exactly with XGBRanker(callbacks=[metric.callback(X_val, y_val, "
                "qid_val)]) (early_stopping_rounds= to stop on it), or with xgboost.train(..., custom_metric=metric)."
            )
        bounds = np.asarray(data.get_uint_info("group_ptr"), dtype=np.intp)
        if bounds.size < 2:
            raise ValueError(f"{self!r} needs the query groups of the evaluated DMatrix: build it with qid= or group=.")
        y_true, sizes = data.get_label(), np.diff(bounds)
        qid = queries_of_sizes(sizes, len(y_true), repr(self), "build the DMatrix with qid= or group=.")
        weight = data.get_weight()  # one weight per query in ranking
        weight = np.repeat(weight, sizes) if weight.size == len(sizes) else (weight if weight.size else None)
        return self.name, self.score(y_true, y_score, qid, weight)

    def callback(self, X, y, qid, early_stopping_rounds=None, *, data_name="validation"):
        """A training callback that logs this metric of rows ``X`` after each round, and may stop on it.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
            The evaluated rows, such as held-out queries (any row order).
        y : array-like of shape (n_samples,)
            Their labels.
        qid : array-like of shape (n_samples,)
            Their query ids.
        early_stopping_rounds : int, default=None
            Stop when the metric has not improved for this many rounds, in
            its direction, and keep the best round (``best_iteration``).
            None: log only.
        data_name : str, default="validation"
            The key of these rows in ``evals_result()``.

        Returns
        -------
        callback : xgboost.callback.TrainingCallback
            For ``XGBRanker(callbacks=[...])`` or ``xgboost.train(callbacks=[...])``.
        """
        from ._xgboost_stopping import RankingMetricCallback  # imports xgboost, an optional dependency

        check_integer("early_stopping_rounds", early_stopping_rounds, allow_none=True)
        check_same_length("XGBoostMetric.callback", X=X, y=y, qid=qid)
        codes = encode_qid(qid, len(y))
        order = np.argsort(codes, kind="stable")  # a DMatrix takes rows sorted by query
        rows = (take_rows(X, order), np.asarray(y)[order], codes[order])
        return RankingMetricCallback(*rows, self, early_stopping_rounds, data_name)


class CatBoostMetric(BoosterMetric):
    """A ranking metric of this library as a CatBoost evaluation metric (``eval_metric``).

    CatBoost hands a Python metric the predictions and labels of a whole data
    set, but not its query groups: give them here, as the Pools (or ``(y,
    group_id)`` pairs) of every set CatBoost evaluates, the learn set
    included. Each call is matched to its set by its labels, and the metric is
    computed exactly as the scorer of the same name computes it. A call that
    matches no set raises, rather than scoring rows under the wrong queries.

    Parameters
    ----------
    metric : str or scorer, default="ndcg@10"
        A name of :func:`get_ranking_scorer`, or a scorer of
        :func:`make_ranking_scorer`. A metric of a judgement matrix is refused.
    data : catboost.Pool, (y, group_id) pair, or list of them
        Every data set that CatBoost evaluates the metric on: the learn set
        and each ``eval_set``. A Pool needs ``group_id``. Two sets whose labels
        are equal row for row must have the same groups.

    Attributes
    ----------
    name : str
        The metric's canonical name (CatBoost logs a Python metric under the
        name of its class, ``"CatBoostMetric"``).
    higher_is_better : bool
        Whether larger values are better (CatBoost's ``is_max_optimal``).

    See Also
    --------
    LightGBMMetric : The same for LightGBM.
    XGBoostMetric : The same for XGBoost.

    Notes
    -----
    CatBoost evaluates a Python metric on the learn set as well, each
    round: the cost of one metric call on those rows. CatBoost's
    ``get_params`` copies any Python metric, so scikit-learn's ``clone``
    refuses a ``CatBoostRanker(eval_metric=...)`` holding one, and with it
    the searches: there, let ``GroupedRanker(CatBoostRanker(...),
    early_stopping_rounds=..., early_stopping_metric=...)`` set this metric
    inside each fit, on the queries of that fit.

    Examples
    --------
    >>> import numpy as np
    >>> from catboost import CatBoostRanker, Pool
    >>> from sklearn_rankmetrics import CatBoostMetric, make_ranking, ndcg_score
    >>> X, y, qid = make_ranking(n_queries=40, random_state=0)
    >>> order = np.argsort(qid, kind="stable")  # CatBoost wants each query's rows together
    >>> X, y, qid = X[order], y[order], qid[order]
    >>> train = Pool(X[qid < 30], y[qid < 30], group_id=qid[qid < 30])
    >>> valid = Pool(X[qid >= 30], y[qid >= 30], group_id=qid[qid >= 30])
    >>> metric = CatBoostMetric("ndcg@10", data=[train, valid])
    >>> model = CatBoostRanker(iterations=5, eval_metric=metric, verbose=0, allow_writing_files=False)
    >>> model = model.fit(train, eval_set=valid)
    >>> logged = model.evals_result_["validation"]["CatBoostMetric"][-1]
    >>> exact = ndcg_score(y[qid >= 30], model.predict(valid), qid=qid[qid >= 30], k=10)
    >>> bool(abs(logged - exact) < 1e-12)
    True
    """

    no_jit = True  # CatBoost would try to compile evaluate with numba, and warn that it cannot

    def __init__(self, metric="ndcg@10", *, data):
        super().__init__(metric)
        pools = isinstance(data, tuple) and any(hasattr(item, "get_group_id_hash") for item in data)
        items = data if isinstance(data, list) or pools else [data]  # kept as arrays: CatBoost deep-copies it
        self._sets = [labelled_groups(item, f"{self!r}") for item in items]
        for j, (labels, groups) in enumerate(self._sets):
            for other_labels, other_groups in self._sets[:j]:
                if np.array_equal(labels, other_labels) and not np.array_equal(groups, other_groups):
                    raise ValueError(
                        f"{self!r} received two data sets with the same labels, row for row, and different query "
                        "groups: CatBoost passes a metric no groups, so they could not be told apart. Give each set "
                        "once."
                    )

    def is_max_optimal(self):
        """Whether larger values are better, as CatBoost asks.

        Returns
        -------
        is_max_optimal : bool
            ``higher_is_better``.
        """
        return self.higher_is_better

    def evaluate(self, approxes, target, weight):
        """The metric of one data set, as CatBoost calls it.

        Parameters
        ----------
        approxes : sequence of one ndarray of shape (n_samples,)
            The predictions.
        target : ndarray of shape (n_samples,)
            The labels, which tell the set.
        weight : ndarray of shape (n_samples,) or None
            Query weights, constant within each query.

        Returns
        -------
        value, weight : float, float
            The metric, and 1.0 (CatBoost's ``get_final_error`` returns the value).
        """
        target = np.asarray(target)
        return self.score(target, approxes[0], self._groups_of(target), weight), 1.0

    def get_final_error(self, error, weight):
        """The metric's value from what :meth:`evaluate` returned, as CatBoost asks.

        Parameters
        ----------
        error : float
            The value.
        weight : float
            1.0.

        Returns
        -------
        value : float
            ``error``.
        """
        return error

    def _groups_of(self, target):
        """The query groups of the set whose labels are ``target``."""
        for labels, groups in self._sets:
            if len(labels) == len(target) and np.array_equal(labels, target.astype(labels.dtype)):
                return groups
        raise ValueError(
            f"{self!r} was called on {len(target)} rows whose labels match none of the {len(self._sets)} data sets it "
            "was given. CatBoost passes a Python metric no query groups: give CatBoostMetric(data=[...]) every set "
            "that CatBoost evaluates, the learn set and each eval_set, as Pools with group_id or (y, group_id) pairs."
        )


def labelled_groups(item, who):
    """The labels (float32, as CatBoost passes them) and query ids of a Pool or a ``(y, group_id)`` pair."""
    if hasattr(item, "get_group_id_hash"):
        labels, groups = item.get_label(), item.get_group_id_hash()
        if groups is None:
            raise ValueError(f"{who} received a Pool without group_id; build it with Pool(..., group_id=qid).")
    elif isinstance(item, tuple) and len(item) == 2:
        labels, groups = item
    else:
        raise TypeError(
            f"{who}: data must be a catboost.Pool, a (y, group_id) pair or a list of them; got {type(item).__name__}."
        )
    labels = np.asarray(labels, dtype=np.float32).ravel()
    groups = np.asarray(groups)
    if len(groups) != len(labels):
        raise ValueError(f"{who} received {len(labels)} labels and {len(groups)} group ids for one data set.")
    return labels, groups
