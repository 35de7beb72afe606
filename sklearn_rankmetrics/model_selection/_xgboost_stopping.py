"""XGBoost's training callback that stops on this library's metric; imported only where XGBoost is installed.

It lives at module level, so that a fitted XGBRanker, which keeps its callbacks
among its parameters, pickles (and ``joblib.dump``s) with it.
"""

import numpy as np
import xgboost


class StopOnRankingMetric(xgboost.callback.TrainingCallback):
    """Stop when the metric of the held-out queries has not improved for ``rounds`` rounds; keep the best round.

    Parameters
    ----------
    X_val : array-like or sparse matrix
        The held-out rows, ordered by query.
    metric : callable
        The metric of predictions on those rows (higher is better).
    name : str
        The metric's name in ``evals_result()["validation"]``.
    rounds : int
        The rounds without improvement that stop the training.
    """

    def __init__(self, X_val, metric, name, rounds):
        super().__init__()
        self.X_val, self.metric, self.name, self.rounds = X_val, metric, name, rounds
        self.data = None

    def before_training(self, model):
        self.data = xgboost.DMatrix(self.X_val)
        self.best_score, self.best_round = -np.inf, 0
        return model

    def after_iteration(self, model, epoch, evals_log):
        score = self.metric(model.predict(self.data, iteration_range=(0, epoch + 1)))
        evals_log.setdefault("validation", {}).setdefault(self.name, []).append(score)
        if score > self.best_score:
            self.best_score, self.best_round = score, epoch
        return epoch - self.best_round >= self.rounds

    def after_training(self, model):
        best = model[: self.best_round + 1]
        best.set_attr(best_iteration=str(self.best_round), best_score=str(self.best_score))
        # A fitted model keeps its callbacks: drop the held-out rows and their labels.
        self.data = self.X_val = self.metric = None
        return best

    def __getstate__(self):  # clone and pickle without the DMatrix, which does not pickle
        return {**self.__dict__, "data": None}
