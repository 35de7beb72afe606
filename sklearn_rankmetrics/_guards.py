"""Warnings for evaluations that run but mean little: leaky folds, one-document queries, the qid as a feature.

Each guard costs one pass over the scored fold's query ids (a sort at most) and
warns with :class:`QueryGroupWarning`, so that it can be filtered as a whole.
"""

import numpy as np
from sklearn.pipeline import Pipeline

from ._warnings import warn

# A fold where more than this share of the queries has a single document is degenerate.
SINGLE_DOCUMENT_SHARE = 0.5


class QueryGroupWarning(UserWarning):
    """An evaluation over query groups that is probably misleading.

    Raised when a fitted :class:`GroupedRanker` is scored on some of the
    documents of queries it was trained on (a leaky split, or the ids of two
    files that collide), when most queries of a scored fold have a single
    document (every ranking metric is then trivial, as in halving searches that
    subsample rows), and when a scorer reads the query ids from a column that
    the estimator also learned from.

    See Also
    --------
    GroupedRanker : Keeps its training queries to tell a leaky fold.
    make_ranking_scorer : Scorers that warn on degenerate folds.

    Examples
    --------
    >>> import warnings
    >>> from sklearn_rankmetrics import QueryGroupWarning, ndcg_score
    >>> from sklearn_rankmetrics import get_ranking_scorer, make_ranking
    >>> from sklearn.linear_model import Ridge
    >>> X, y, qid = make_ranking(n_queries=20, n_docs=1, random_state=0)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always", QueryGroupWarning)
    ...     _ = get_ranking_scorer("ndcg@10")(Ridge().fit(X, y), X, y, qid=qid)
    >>> print(str(caught[0].message)[:60])
    100% of the 20 queries scored have a single document, where
    """


def warn_single_document_queries(sizes):
    """Warn when most scored queries hold a single document."""
    share = np.mean(sizes == 1)
    if share > SINGLE_DOCUMENT_SHARE:
        warn(
            f"{share:.0%} of the {len(sizes)} queries scored have a single document, where every ranking metric "
            "is trivially 0 or 1, so the score says nothing about the ranking. Score whole queries: split with "
            "GroupKFold, and in HalvingGridSearchCV or HalvingRandomSearchCV use a resource other than "
            "'n_samples' (which subsamples rows), such as boosting rounds: resource='n_estimators', or "
            "'estimator__n_estimators' for a GroupedRanker.",
            QueryGroupWarning,
        )


def warn_scored_on_training_queries(estimator, ids, sizes):
    """Warn when a fitted GroupedRanker is scored on part of the documents of its training queries.

    Scoring the very training queries (the same number of documents of each,
    as ``return_train_score`` does) is legitimate and stays silent.
    """
    trained = getattr(estimator, "train_queries_", None)
    if trained is None:
        return
    trained_ids, trained_sizes = trained
    if trained_ids.dtype.kind != ids.dtype.kind and not (trained_ids.dtype.kind in "iuf" and ids.dtype.kind in "iuf"):
        return  # ids of different kinds never name the same query
    place = np.clip(np.searchsorted(trained_ids, ids), 0, len(trained_ids) - 1)
    shared = trained_ids[place] == ids
    if not shared.any() or (shared.all() and np.array_equal(trained_sizes[place], sizes)):
        return
    warn(
        f"{int(shared.sum())} of the {len(ids)} queries scored were also in the training data of this "
        f"GroupedRanker (for example query {ids[shared][0]!r}), with other documents: the split divides queries "
        "between training and test, which leaks (use GroupKFold or StratifiedGroupKFold), or the query ids of "
        "two files collide (load them with distinct qid_offset).",
        QueryGroupWarning,
    )


def warn_qid_learned_as_feature(estimator, X, qid_column):
    """Warn when the estimator was fitted on the query id column that the scorer reads."""
    names = learned_feature_names(estimator)
    if names is not None:
        learned = any(name == str(qid_column) or name.endswith(f"__{qid_column}") for name in names)
    else:
        learned = getattr(estimator, "n_features_in_", None) == X.shape[1]
    if learned:
        warn(
            f"The estimator was fitted on the query id column {qid_column!r} that the scorer reads the query ids "
            "from, so it learns from the id and the column is reported as a feature. Wrap it as "
            f"GroupedRanker(estimator, qid_column={qid_column!r}), which drops the column before the estimator "
            "sees X, or drop it in a ColumnTransformer (remainder='drop').",
            QueryGroupWarning,
        )


def learned_feature_names(estimator):
    """Names of the features the estimator's model sees, where they can be told; None otherwise."""
    if isinstance(estimator, Pipeline) and len(estimator.steps) > 1:
        try:
            return [str(name) for name in estimator[:-1].get_feature_names_out()]
        except (AttributeError, TypeError, ValueError):
            return None
    names = getattr(estimator, "feature_names_in_", None)
    return None if names is None else [str(name) for name in names]
