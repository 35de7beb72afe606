"""Early stopping inside each fit: held-out whole queries, scored by this library's metric.

Each booster gets the held-out queries in its own format and stops on the
metric named by ``GroupedRanker(early_stopping_metric=...)``, computed here so
that the stopping agrees with the search's scorer: LightGBM through a custom
``eval_metric`` on the whole evaluation set, XGBoost through a training
callback (its own custom ranking metrics are averaged per query with its own
conventions), and CatBoost, whose custom metrics run in Python per object, on
its built-in metric of the same name where there is one (``NDCG:top=k``) and
its default metric otherwise.
"""

import importlib
import inspect

import numpy as np
from sklearn.utils import check_random_state

from ._dcg import ndcg_score
from ._registry import parse_metric_name


def split_queries(codes, validation_fraction, random_state):
    """Row indices of the training and the validation queries: whole queries, at least one each."""
    queries = np.unique(codes)
    if len(queries) < 2:
        raise ValueError(
            "early_stopping_rounds holds out whole queries for validation, so the fit needs at least 2 "
            f"queries; got {len(queries)}."
        )
    n_validation = min(max(1, round(validation_fraction * len(queries))), len(queries) - 1)
    held_out = np.zeros(codes.max() + 1, dtype=bool)
    held_out[check_random_state(random_state).choice(queries, n_validation, replace=False)] = True
    is_validation = held_out[codes]
    return np.flatnonzero(~is_validation), np.flatnonzero(is_validation)


def validation_metric(name, y_true, codes):
    """The metric ``name`` of predictions on the validation rows, as a function of the predictions."""
    score_func, options = parse_metric_name(name)
    return lambda y_score: score_func(y_true, np.asarray(y_score, dtype=np.float64).ravel(), qid=codes, **options)


def import_booster(module):
    try:
        return importlib.import_module(module)
    except ImportError as error:  # pragma: no cover - the booster was fitted, so it is installed
        raise ImportError(f"Early stopping of this ranker needs {module}.") from error


def lightgbm_params(estimator, X_val, y_val, group, metric, name, rounds):
    """LightGBM: the held-out queries as ``eval_set``/``eval_group``, our metric alone, its callback."""
    lightgbm = import_booster("lightgbm")
    estimator.set_params(metric="None")  # only our metric decides

    def evaluate(y_true, y_score):
        return name, metric(y_score), True

    # LightGBM 4.7 takes eval_X and eval_y, and deprecates eval_set.
    accepted = inspect.signature(estimator.fit).parameters
    evaluation = {"eval_X": (X_val,), "eval_y": (y_val,)} if "eval_X" in accepted else {"eval_set": [(X_val, y_val)]}
    return {
        **evaluation,
        "eval_group": [group["group"]],
        "eval_metric": evaluate,
        "callbacks": [lightgbm.early_stopping(rounds, first_metric_only=True, verbose=False)],
    }


def xgboost_params(estimator, X_val, y_val, group, metric, name, rounds):
    """XGBoost: a training callback that scores the held-out queries after each round."""
    callback = stopping_callback_class()(X_val, metric, name, rounds)
    estimator.set_params(callbacks=[*(estimator.get_params().get("callbacks") or []), callback])
    return {}


def catboost_params(estimator, X_val, y_val, group, metric, name, rounds):
    """CatBoost: the held-out queries as an evaluation Pool with ``group_id``; its own metric of that name."""
    catboost = import_booster("catboost")
    score_func, options = parse_metric_name(name)
    if score_func is ndcg_score and options.get("gain", "linear") == "linear":
        top = options.get("k")
        estimator.set_params(eval_metric="NDCG" if top is None else f"NDCG:top={top}")
    return {
        "eval_set": catboost.Pool(X_val, y_val, group_id=group["group_id"]),
        "early_stopping_rounds": rounds,
        "use_best_model": True,
    }


# The inner fit parameter that takes the groups tells the booster's family.
BOOSTERS = {"group": lightgbm_params, "qid": xgboost_params, "group_id": catboost_params}


def stopping_callback_class():
    """XGBoost's training callback that stops on our metric (defined once XGBoost is imported)."""
    xgboost = import_booster("xgboost")

    class StopOnRankingMetric(xgboost.callback.TrainingCallback):
        """Stop when the metric of the held-out queries has not improved for ``rounds`` rounds; keep the best."""

        def __init__(self, X_val, metric, name, rounds):
            super().__init__()
            self.X_val, self.metric, self.name, self.rounds = X_val, metric, name, rounds

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
            self.data = self.X_val = None  # a fitted model keeps its callbacks: drop the held-out rows
            return best

        def __getstate__(self):  # clone and pickle the callback without the held-out matrix
            return {**self.__dict__, "data": None}

    return StopOnRankingMetric
