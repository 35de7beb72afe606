"""XGBoost's training callback that stops on this library's metric; imported only where XGBoost is installed.

It lives at module level, so that a fitted XGBRanker, which keeps its callbacks
among its parameters, pickles (and ``joblib.dump``s) with it.
"""

import xgboost


class StopOnRankingMetric(xgboost.callback.TrainingCallback):
    """Stop when the metric of the held-out queries has not improved for ``rounds`` rounds; keep the best round.

    Parameters
    ----------
    X_val : array-like or sparse matrix
        The held-out rows, ordered by query.
    y_val : array-like
        Their labels.
    qid_val : ndarray
        Their query ids (sorted integers).
    metric : XGBoostMetric
        The metric, which scores the held-out rows as a DMatrix with their query groups.
    rounds : int
        The rounds without improvement that stop the training.
    """

    def __init__(self, X_val, y_val, qid_val, metric, rounds):
        super().__init__()
        self.X_val, self.y_val, self.qid_val, self.metric, self.rounds = X_val, y_val, qid_val, metric, rounds
        self.data = None

    def before_training(self, model):
        self.data = xgboost.DMatrix(self.X_val, label=self.y_val, qid=self.qid_val)
        self.best_score, self.best_round = None, 0
        return model

    def after_iteration(self, model, epoch, evals_log):
        name, score = self.metric(model.predict(self.data, iteration_range=(0, epoch + 1)), self.data)
        evals_log.setdefault("validation", {}).setdefault(name, []).append(score)
        if self.best_score is None or self.improves(score):
            self.best_score, self.best_round = score, epoch
        return epoch - self.best_round >= self.rounds

    def improves(self, score):
        """Whether ``score`` is better than the best so far, in the metric's direction."""
        return score > self.best_score if self.metric.higher_is_better else score < self.best_score

    def after_training(self, model):
        best = model[: self.best_round + 1]
        best.set_attr(best_iteration=str(self.best_round), best_score=str(self.best_score))
        # A fitted model keeps its callbacks: drop the held-out rows and their labels.
        self.data = self.X_val = self.y_val = self.qid_val = None
        return best

    def __getstate__(self):  # clone and pickle without the DMatrix, which does not pickle
        return {**self.__dict__, "data": None}
