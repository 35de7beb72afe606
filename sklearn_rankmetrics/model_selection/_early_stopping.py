"""Early stopping inside each fit: held-out whole queries, scored by this library's metric.

Each booster gets the held-out queries in its own format and stops on the
metric named by ``GroupedRanker(early_stopping_metric=...)``, computed by the
boosters' evaluation adapters (``_booster_metrics``), so that the stopping
agrees with the search's scorer: LightGBM with :class:`LightGBMMetric` as its
``eval_metric``, XGBoost through a training callback that evaluates the
held-out DMatrix with :class:`XGBoostMetric` (XGBRanker's own ``eval_metric``
averages per query with its own conventions), and CatBoost with
:class:`CatBoostMetric`, given the query groups of the learn and held-out sets.
"""

import importlib
import inspect

import numpy as np
from sklearn.utils import check_random_state

from ._booster_metrics import CatBoostMetric, LightGBMMetric, XGBoostMetric
from ._guards import Run

# A fit with early stopping validates on one query at least and trains on two at least.
MIN_QUERIES = 3
# Early stopping on fewer validation queries than this stops on noise.
MIN_VALIDATION_QUERIES = 30


def split_queries(codes, validation_fraction, random_state, who):
    """Row indices of the training and the validation queries: whole queries, at least one to validate, two to train.

    ``who`` names the estimator in the error for a fit with too few queries.
    """
    queries = np.unique(codes)
    if len(queries) < MIN_QUERIES:
        raise ValueError(
            f"{who} holds out whole queries to validate early stopping and trains on the others, so a fit needs at "
            f"least {MIN_QUERIES} queries (1 to validate, 2 to train); this fit has {len(queries)}. Fit on more "
            "queries, or set early_stopping_rounds=None."
        )
    n_validation = validation_count(validation_fraction, len(queries))
    warn_few_validation_queries(n_validation, len(queries), validation_fraction)
    held_out = np.zeros(codes.max() + 1, dtype=bool)
    held_out[check_random_state(random_state).choice(queries, n_validation, replace=False)] = True
    is_validation = held_out[codes]
    return np.flatnonzero(~is_validation), np.flatnonzero(is_validation)


def validation_count(validation_fraction, n_queries):
    """The number of queries a fit holds out: ``round(validation_fraction * n_queries)``, within [1, n_queries - 2]."""
    return min(max(1, round(validation_fraction * n_queries)), n_queries - 2)


def warn_few_validation_queries(n_validation, n_queries, validation_fraction):
    """Warn when early stopping decides on fewer than about 30 held-out queries, and say what holds out enough."""
    if n_validation >= MIN_VALIDATION_QUERIES:
        return
    enough = enough_validation(n_queries)
    remedy = f"hold out more queries (validation_fraction={enough[0]:g} gives {enough[1]}), or " if enough else ""
    queries = "query" if n_validation == 1 else "queries"
    Run.current().report(
        "few validation queries",
        f"Early stopping validates on {n_validation} {queries} (validation_fraction={validation_fraction:g} of the "
        f"fit's {n_queries}): on fewer than about {MIN_VALIDATION_QUERIES} queries the best round is mostly noise, "
        f"and so is the model it keeps. To stop on a reliable signal, {remedy}tune the number of boosting rounds by "
        "cross-validation instead: a grid over 'estimator__n_estimators', or "
        "HalvingGridSearchCV(..., resource='estimator__n_estimators').",
    )


def enough_validation(n_queries):
    """The smallest validation_fraction of two decimals, up to 0.5, that holds out 30 queries or more, and how many.

    Each candidate is counted by :func:`validation_count`, as the fit counts
    it (so the advice is exact); None when even half of the queries is too few.
    """
    for hundredths in range(1, 51):
        count = validation_count(hundredths / 100, n_queries)
        if count >= MIN_VALIDATION_QUERIES:
            return hundredths / 100, count
    return None


def import_booster(module):
    try:
        return importlib.import_module(module)
    except ImportError as error:  # pragma: no cover - the booster was fitted, so it is installed
        raise ImportError(f"Early stopping of this ranker needs {module}.") from error


def lightgbm_params(estimator, train, validation, name, rounds):
    """LightGBM: the held-out queries as ``eval_X``/``eval_y`` (or ``eval_set``) and ``eval_group``, our metric alone.

    ``train`` holds the training rows' ``(y, group)`` and ``validation`` the
    held-out rows' ``(X, y, group)``, ordered by query, with ``group`` in the
    booster's own format.
    """
    lightgbm = import_booster("lightgbm")
    X_val, y_val, group = validation
    estimator.set_params(metric="None")  # only our metric decides
    # LightGBM 4.7 takes eval_X and eval_y, and deprecates eval_set.
    accepted = inspect.signature(estimator.fit).parameters
    evaluation = {"eval_X": (X_val,), "eval_y": (y_val,)} if "eval_X" in accepted else {"eval_set": [(X_val, y_val)]}
    return {
        **evaluation,
        "eval_group": [group],
        "eval_metric": LightGBMMetric(name),
        "callbacks": [lightgbm.early_stopping(rounds, first_metric_only=True, verbose=False)],
    }


def xgboost_params(estimator, train, validation, name, rounds):
    """XGBoost: a training callback that scores the held-out queries after each round, and stops on them."""
    import_booster("xgboost")
    callback = XGBoostMetric(name).callback(*validation, rounds)
    estimator.set_params(callbacks=[*(estimator.get_params().get("callbacks") or []), callback])
    return {}


def catboost_params(estimator, train, validation, name, rounds):
    """CatBoost: the held-out queries as a Pool with ``group_id``; our metric, told the learn and held-out groups."""
    catboost = import_booster("catboost")
    X_val, y_val, group = validation
    metric = CatBoostMetric(name, data=[train, (y_val, group)])
    estimator.set_params(eval_metric=metric)
    return {
        "eval_set": catboost.Pool(X_val, y_val, group_id=group),
        "early_stopping_rounds": rounds,
        "use_best_model": True,
    }


# The inner fit parameter that takes the groups tells the booster's family.
BOOSTERS = {"group": lightgbm_params, "qid": xgboost_params, "group_id": catboost_params}
