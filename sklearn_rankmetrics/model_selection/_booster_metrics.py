"""This library's ranking metrics as the boosters' own evaluation metrics: LightGBM, XGBoost and CatBoost.

Each adapter computes the metric exactly as the scorer of the same name does,
on the evaluation rows and query groups that the booster hands it, so that a
booster's log, its early stopping and a search's score speak of one metric.
None of them imports its booster: they read what the booster passes.
"""

import warnings

import numpy as np

from .._core._validation import plain
from ..registry._registry import DIVERSITY_METRICS
from ._scorer import RankingScorer, get_ranking_scorer


def one_label_scorer(metric, parameter):
    """The scorer of ``metric`` (a name, or a scorer of this library), checked to score one label per row.

    The boosters evaluate one relevance label per row, so a metric of a
    judgement matrix (the diversity metrics) is refused here, where the
    parameter ``parameter`` is given, rather than after a boosting round.
    """
    scorer = get_ranking_scorer(metric) if isinstance(metric, str) else metric
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
    metric first). LightGBM's own ``ndcg`` differs from ours where labels tie
    and for queries without a relevant document (it scores them 1); this
    function follows this library's conventions, those of the scorer.
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
    ...     X[train], y[train], group=sizes[0], eval_set=[(X[valid], y[valid])], eval_group=[sizes[1]],
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
    """A ranking metric of this library as an XGBoost evaluation metric (``custom_metric``, ``eval_metric``).

    Two ways to use it:

    - ``xgboost.train(params, dtrain, evals=..., custom_metric=XGBoostMetric("ndcg@10"),
      maximize=True)``: XGBoost hands it the predictions and the evaluated
      DMatrix (with ``qid=`` or ``group=``), and it returns ``(name, value)``,
      the metric of all the queries at once, exactly as the scorer of the same
      name computes it.
    - ``XGBRanker(eval_metric=XGBoostMetric("ndcg@10"))``: XGBoost calls it on
      the rows of one query at a time and averages the values itself (see
      Notes). For early stopping there, pass
      ``callbacks=[metric.early_stopping(rounds)]``, which follows this
      metric's direction; XGBoost's own ``early_stopping_rounds`` guesses the
      direction from the name and minimises ``"err@10"`` or ``"mrr"``.

    :class:`GroupedRanker` stops XGBoost early on it (in a training callback
    that evaluates its held-out queries as a DMatrix).

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
        Whether larger values are better.

    See Also
    --------
    LightGBMMetric : The same for LightGBM.
    CatBoostMetric : The same for CatBoost.

    Notes
    -----
    With ``XGBRanker(eval_metric=...)`` the average is XGBoost's: the plain
    mean of the per-query values (weighted by the query weights, if any), and
    a query of one document scores 1 without a call. It equals this library's
    metric where every query has two documents or more and every query counts
    in the mean (a metric whose ``zero_division`` drops the queries without a
    relevant document is then NaN). The ``custom_metric`` route of
    ``xgboost.train`` has no such exception.

    Examples
    --------
    >>> import numpy as np
    >>> import xgboost
    >>> from sklearn_rankmetrics import XGBoostMetric, make_ranking, ndcg_score
    >>> X, y, qid = make_ranking(n_queries=40, random_state=0)
    >>> order = np.argsort(qid, kind="stable")  # XGBoost wants sorted query ids
    >>> X, y, qid = X[order], y[order], qid[order]
    >>> train, valid = qid < 30, qid >= 30
    >>> dtrain = xgboost.DMatrix(X[train], y[train], qid=qid[train])
    >>> dvalid = xgboost.DMatrix(X[valid], y[valid], qid=qid[valid])
    >>> metric, log = XGBoostMetric("ndcg@10"), {}
    >>> booster = xgboost.train(
    ...     {"objective": "rank:ndcg", "disable_default_eval_metric": 1}, dtrain, num_boost_round=5,
    ...     evals=[(dvalid, "valid")], custom_metric=metric, maximize=True, evals_result=log, verbose_eval=False,
    ... )
    >>> exact = ndcg_score(y[valid], booster.predict(dvalid), qid=qid[valid], k=10)
    >>> bool(abs(log["valid"]["ndcg@10"][-1] - exact) < 1e-12)
    True
    """

    def __init__(self, metric="ndcg@10"):
        super().__init__(metric)
        self.__name__ = self.name  # XGBRanker names a callable eval_metric by its __name__

    def __call__(self, y_true, y_score):
        """The metric of the predictions, in the form the caller expects.

        Parameters
        ----------
        y_true : ndarray of shape (n_samples,)
            The labels of one query (``XGBRanker``), or the predictions
            (``xgboost.train``'s ``custom_metric``).
        y_score : ndarray of shape (n_samples,) or DMatrix
            The predictions of that query, or the evaluated DMatrix.

        Returns
        -------
        value : float or tuple of (str, float)
            The metric of the query; or ``(name, value)``, the metric of every
            query of the DMatrix.
        """
        if hasattr(y_score, "get_uint_info"):  # xgboost.train(custom_metric=...) passes (predictions, DMatrix)
            return self.name, self._score_matrix(y_true, y_score)
        return self.score(y_true, y_score, np.zeros(len(y_true), dtype=np.intp))

    def _score_matrix(self, y_score, data):
        """The metric of predictions ``y_score`` of the rows of a DMatrix, by its query groups."""
        bounds = np.asarray(data.get_uint_info("group_ptr"), dtype=np.intp)
        if bounds.size < 2:
            raise ValueError(f"{self!r} needs the query groups of the evaluated DMatrix: build it with qid= or group=.")
        y_true = data.get_label()
        sizes = np.diff(bounds)
        qid = queries_of_sizes(sizes, len(y_true), repr(self), "build the DMatrix with qid= or group=.")
        weight = data.get_weight()  # one weight per query in ranking
        weight = np.repeat(weight, sizes) if weight.size == len(sizes) else (weight if weight.size else None)
        return self.score(y_true, y_score, qid, weight)

    def early_stopping(self, rounds, **kwargs):
        """XGBoost's early stopping on this metric, in its direction.

        Parameters
        ----------
        rounds : int
            Rounds without improvement that stop the training.
        **kwargs : dict
            Other options of ``xgboost.callback.EarlyStopping``, such as
            ``data_name`` or ``save_best``.

        Returns
        -------
        callback : xgboost.callback.EarlyStopping
            For ``XGBRanker(callbacks=[...])`` or ``xgboost.train(callbacks=[...])``.
        """
        import xgboost

        return xgboost.callback.EarlyStopping(
            rounds=rounds, metric_name=self.name, maximize=self.higher_is_better, **kwargs
        )


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
    round: the cost of one metric call on those rows. ``GroupedRanker``
    stops CatBoost early on this metric.

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
        self.data = data
        items = data if isinstance(data, list) else [data]
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
