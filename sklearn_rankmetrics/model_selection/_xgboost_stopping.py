"""XGBoost's training callback that logs, and may stop on, this library's metric; imported only with XGBoost.

It lives at module level, so that a fitted XGBRanker, which keeps its callbacks
among its parameters, pickles (and ``joblib.dump``s) with it.
"""

import xgboost


class RankingMetricCallback(xgboost.callback.TrainingCallback):
    """Log the metric of rows of whole queries after each round; with ``rounds``, stop on it and keep the best round.

    Parameters
    ----------
    X, y, qid : array-like
        The evaluated rows, their labels and their query ids, ordered by
        query (sorted integer ids, as a DMatrix takes them).
    metric : XGBoostMetric
        The metric, which scores the rows as a DMatrix with their query groups.
    rounds : int or None
        The rounds without improvement that stop the training; None: never stop.
    data_name : str
        The key of the rows in ``evals_result()``.
    """

    def __init__(self, X, y, qid, metric, rounds, data_name):
        super().__init__()
        self.X, self.y, self.qid, self.metric, self.rounds, self.data_name = X, y, qid, metric, rounds, data_name
        self.data = None

    def before_training(self, model):
        self.data = xgboost.DMatrix(self.X, label=self.y, qid=self.qid)
        self.best_score, self.best_round = None, 0
        return model

    def after_iteration(self, model, epoch, evals_log):
        name, score = self.metric(model.predict(self.data, iteration_range=(0, epoch + 1)), self.data)
        evals_log.setdefault(self.data_name, {}).setdefault(name, []).append(score)
        if self.best_score is None or self.improves(score):
            self.best_score, self.best_round = score, epoch
        return self.rounds is not None and epoch - self.best_round >= self.rounds

    def improves(self, score):
        """Whether ``score`` is better than the best so far, in the metric's direction."""
        return score > self.best_score if self.metric.higher_is_better else score < self.best_score

    def after_training(self, model):
        if self.rounds is not None:
            model = model[: self.best_round + 1]
            model.set_attr(best_iteration=str(self.best_round), best_score=str(self.best_score))
        # A fitted model keeps its callbacks: drop the evaluated rows and their labels.
        self.data = self.X = self.y = self.qid = None
        return model

    def __getstate__(self):  # clone and pickle without the DMatrix, which does not pickle
        return {**self.__dict__, "data": None}
