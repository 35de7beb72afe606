"""Warnings for evaluations that run but mean little: leaky folds, partial or one-document queries, a qid feature.

Every guard warns with :class:`QueryGroupWarning`, so that they can be filtered
as a whole, and each cause warns once per run of a tool that fits and scores
many times: a search's ``fit``, ``cross_validate``, ``permutation_importance``
(the outermost :class:`joblib.Parallel` call on the stack). The guards cost a
pass over the scored fold's query ids; the row fingerprints that tell a leaky
fold from the training queries themselves are computed only for folds that
share query ids with the training data.
"""

import sys
import threading
import weakref

import joblib
import numpy as np
import scipy.sparse as sp
from joblib.parallel import BatchedCalls  # the tasks that joblib's workers run
from sklearn.pipeline import Pipeline

from .._core._frames import column_labels
from .._core._query_ids import distinct_query_ids, query_id_array
from .._core._validation import plain
from .._core._warnings import warn
from ._qid_column import column_position, qid_column_values, scored_ranker, selected

# A fold where more than this share of the queries has a single document is degenerate.
SINGLE_DOCUMENT_SHARE = 0.5


class QueryGroupWarning(UserWarning):
    """An evaluation over query groups that is probably misleading.

    Raised when a fitted :class:`GroupedRanker` is scored on some of the
    documents of queries it was trained on (a leaky split, or the ids of two
    files that collide), when most queries of a scored fold have a single
    document, when a halving search subsamples rows (``resource="n_samples"``)
    so that its folds hold parts of queries, when the estimator learned from
    the column that holds the query ids, and when early stopping validates on
    too few queries to be trusted.

    Each cause warns once per run of a tool that fits and scores many times (a
    search's ``fit``, ``cross_validate``, ``permutation_importance``), not once
    per fold; the refit of a search's best candidate, outside that run, may
    warn once more. Folds run by joblib's worker processes (``n_jobs`` other
    than 1) warn in each worker, on its own standard error.

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


# Once per cause per run --------------------------------------------------------------------------------------------

_reported = weakref.WeakKeyDictionary()  # the outermost joblib.Parallel of a run -> the causes it has reported
_reported_lock = threading.Lock()


# scikit-learn's permutation_importance scores rows whose features it has permuted on purpose.
PERMUTING_MODULE = "sklearn.inspection._permutation_importance"


class Run:
    """Where the guards are called from: the run that repeats fits and scores, and what it does to the rows.

    ``parallel`` is the outermost :class:`joblib.Parallel` call on this thread's
    stack, ``in_worker`` whether this code runs a task that joblib handed to a
    worker (a process or thread whose stack holds no Parallel call),
    ``halving`` a halving search on rows, and ``permuting`` whether
    scikit-learn's ``permutation_importance`` permutes the scored features.
    """

    def __init__(self, parallel=None, halving=None, permuting=False, in_worker=False):
        self.parallel, self.halving, self.permuting, self.in_worker = parallel, halving, permuting, in_worker

    @property
    def repeats(self):
        """Whether this code runs inside a tool that fits and scores many times (a search, cross-validation)."""
        return self.parallel is not None or self.in_worker

    @classmethod
    def current(cls):
        """The run of the code that calls this function."""
        run = cls()
        frame = sys._getframe(1)
        while frame is not None:
            run.permuting = run.permuting or frame.f_globals.get("__name__") == PERMUTING_MODULE
            if frame.f_code.co_name in ("__call__", "fit", "_run_search"):
                owner = frame.f_locals.get("self")
                if isinstance(owner, joblib.Parallel):
                    run.parallel = owner  # the last one found is the outermost
                elif isinstance(owner, BatchedCalls):
                    run.in_worker = True
                elif run.halving is None and is_halving_on_rows(owner):
                    run.halving = owner
            frame = frame.f_back
        return run

    def report(self, cause, message):
        """Warn ``message`` unless this run has already reported ``cause``."""
        if self.parallel is not None:
            with _reported_lock:
                causes = _reported.setdefault(self.parallel, set())
                if cause in causes:
                    return
                causes.add(cause)
            message += " (Reported once for this whole run, not per fold.)"
        warn(message, QueryGroupWarning)


def is_halving_on_rows(search):
    """Whether ``search`` is a HalvingGridSearchCV or HalvingRandomSearchCV whose resource is rows."""
    return hasattr(search, "aggressive_elimination") and getattr(search, "resource", None) == "n_samples"


# The guards of a scored fold ---------------------------------------------------------------------------------------


def check_scored_fold(estimator, X, qid, *, qid_column=None):
    """Warn about every way the score of ``estimator`` on the rows ``X`` of queries ``qid`` may mislead."""
    run = Run.current()
    ids, sizes = distinct_query_ids(qid, return_counts=True)  # the metric has validated qid
    if run.halving is not None:
        warn_halving_on_rows(run)
    warn_single_document_queries(sizes, run)
    warn_scored_on_training_queries(estimator, X, qid, ids, sizes, run)
    warn_qid_learned_as_feature(estimator, X, qid, qid_column, run)


def warn_halving_on_rows(run):
    name = type(run.halving).__name__
    run.report(
        "halving on rows",
        f"{name}(resource='n_samples') subsamples rows, so each iteration but one on all the rows fits and scores "
        "only some documents of each query: the candidates are compared on partial queries, whose metrics are not "
        f"those of the whole queries. Spend boosting rounds instead: {name}(..., resource='estimator__n_estimators') "
        "for a GroupedRanker, or resource='n_estimators'.",
    )


def warn_single_document_queries(sizes, run):
    """Warn when most scored queries hold a single document."""
    share = np.mean(sizes == 1)
    if share > SINGLE_DOCUMENT_SHARE:
        run.report(
            "single-document queries",
            f"{queries_with_one_document(sizes)} a single document, where every ranking metric is trivially 0 or 1, "
            "so the score says nothing about the ranking. Score whole queries: split with GroupKFold, and in "
            "HalvingGridSearchCV or HalvingRandomSearchCV use a resource other than 'n_samples' (which subsamples "
            "rows), such as boosting rounds: resource='n_estimators', or 'estimator__n_estimators' for a "
            "GroupedRanker.",
        )


def queries_with_one_document(sizes):
    """The start of the warning: "The only query scored has", or "75% of the 4 queries scored have"."""
    if len(sizes) == 1:
        return "The only query scored has"
    return f"{np.mean(sizes == 1):.0%} of the {len(sizes)} queries scored have"


def warn_scored_on_training_queries(estimator, X, qid, ids, sizes, run):
    """Warn when a fitted GroupedRanker is scored on other documents of its training queries.

    A query counts as the training query itself when it has the same documents
    (the same multiset of feature rows, as the ranker received them), as when
    ``return_train_score`` scores the training folds: that stays silent. Where
    scikit-learn's ``permutation_importance`` permutes features on purpose,
    the same number of rows suffices. Whole training queries scored beside
    unseen ones warn too (the score mixes training and test performance).
    """
    found = grouped_ranker_of(estimator)
    if found is None:
        return
    ranker, ranker_input = found
    if ranker.qid_column is not None:  # the ids of its column, by which it named its training queries
        qid = qid_column_values(ranker_input(X), ranker.qid_column)
        ids, sizes = distinct_query_ids(qid, return_counts=True)
    trained_ids, trained_sizes, trained_digests = ranker.train_queries_
    if trained_ids.dtype.kind != ids.dtype.kind and not (trained_ids.dtype.kind in "iuf" and ids.dtype.kind in "iuf"):
        return  # ids of different kinds never name the same query
    place = np.clip(np.searchsorted(trained_ids, ids), 0, len(trained_ids) - 1)
    shared = trained_ids[place] == ids
    if not shared.any():
        return
    changed = shared & (trained_sizes[place] != sizes)
    if trained_digests is not None and not changed.any() and not run.permuting:
        digests = query_digests(ranker._features(ranker_input(X)), qid)
        if digests is not None:
            changed = shared & (trained_digests[place] != digests)
    if changed.any():
        run.report(
            "training queries",
            f"{int(changed.sum())} of the {len(ids)} queries scored were also in the training data of this "
            f"GroupedRanker (for example query {plain(ids[changed][0])!r}) with other documents: the split divides "
            "queries between training and test, which leaks (use GroupKFold or StratifiedGroupKFold), or the query "
            "ids of two files collide (load them with distinct qid_offset).",
        )
    elif not shared.all():
        run.report(
            "training queries mixed",
            f"{int(shared.sum())} of the {len(ids)} queries scored are training queries of this GroupedRanker "
            f"(for example query {plain(ids[shared][0])!r}), scored beside {int((~shared).sum())} unseen ones: the "
            "score mixes training and test performance. Score the held-out queries alone.",
        )


def grouped_ranker_of(estimator):
    """The fitted GroupedRanker that ``estimator`` is, ends in or selected, with what turns X into its input.

    Followed as the scorers follow it (:func:`scored_ranker`): through a
    Pipeline's final step and a fitted search's ``best_estimator_``, so that a
    search scored on an outer split (nested cross-validation) is judged by the
    training queries of the best estimator it refitted. None when there is no
    GroupedRanker there, or it was fitted without query ids.
    """
    found = scored_ranker(estimator)
    if found is None or getattr(found[0], "train_queries_", None) is None:
        return None
    ranker, transform = found
    return ranker, (lambda X: X) if transform is None else transform


def warn_qid_learned_as_feature(estimator, X, qid, qid_column, run):
    """Warn when the model was fitted on the column of ``X`` that holds the query ids.

    The column is ``qid_column`` when the scorer reads it, or else a column
    equal to the routed ``qid``. It is judged by what the innermost model
    received: a GroupedRanker's ``qid_column`` and the columns that a
    ColumnTransformer drops never reach it.
    """
    name = qid_column if qid_column is not None else column_holding(X, qid)
    if name is None or not reaches_model(estimator, X, name):
        return
    run.report(
        "qid as a feature",
        f"The estimator was fitted on the query id column {plain(name)!r} of X, so it learns from the id "
        "and the column is reported as a feature. Wrap it as "
        f"GroupedRanker(estimator, qid_column={plain(name)!r}), which drops the column before the estimator "
        "sees X, or drop it in a ColumnTransformer (remainder='drop').",
    )


def column_holding(X, qid):
    """The label (DataFrame) or position of the column of ``X`` equal to ``qid``, if there is one.

    Columns are compared on a sample of rows first, so that only a column that
    matches there is compared whole.
    """
    if isinstance(X, list):
        X = np.asarray(X)
    if not (isinstance(X, np.ndarray) or sp.issparse(X) or hasattr(X, "iloc")):
        return None  # a tensor of another library, maybe on a device: not looked into
    qid = np.asarray(qid)
    if qid.ndim != 1 or len(qid) == 0 or X.ndim != 2 or X.shape[0] != len(qid):
        return None
    sample = np.unique(np.linspace(0, len(qid) - 1, num=min(len(qid), 32)).astype(np.intp))
    if hasattr(X, "iloc"):
        block, column, labels = X.iloc[sample].to_numpy(dtype=object), lambda j: X.iloc[:, j].to_numpy(), X.columns
    elif sp.issparse(X):
        X = X.tocsr()
        block, column, labels = X[sample].toarray(), lambda j: X[:, [j]].toarray().ravel(), range(X.shape[1])
    else:
        X = np.asarray(X)
        block, column, labels = X[sample], lambda j: X[:, j], range(X.shape[1])
    matches = np.asarray(block, dtype=object) == np.asarray(qid[sample], dtype=object)[:, None]
    for j in np.flatnonzero(matches.all(axis=0)):
        if np.array_equal(column(j), qid):
            return plain(labels[j])
    return None


def reaches_model(estimator, X, column):
    """Whether the column ``column`` of ``X`` (a label, or a position) reaches the innermost model.

    The names of the columns of ``X`` (its labels, or ``x0, x1, ...`` as
    scikit-learn names the columns of an array) are followed through every
    step to the model: a Pipeline's transformers rename or drop them, a
    GroupedRanker drops its ``qid_column``. Where a step cannot tell its output
    names, only a GroupedRanker's own column drop is judged.
    """
    labels = column_labels(X)
    n_columns = X.shape[1] if hasattr(X, "shape") else np.shape(X)[1]
    position = column_position(column, labels, n_columns)
    if position is None:
        return False
    names = input_names(labels, n_columns)
    received = model_feature_names(estimator, names, labels)
    if received is not None:
        return any(seen == names[position] or seen.endswith(f"__{names[position]}") for seen in received)
    if drops_qid_column(estimator):
        return False
    return getattr(estimator, "n_features_in_", None) == n_columns


def input_names(labels, n_columns):
    """The names scikit-learn gives the columns of an input: its labels if all are strings, else x0, x1, ..."""
    if labels is not None and all(isinstance(label, str) for label in labels):
        return [str(label) for label in labels]
    return [f"x{j}" for j in range(n_columns)]


def model_feature_names(estimator, names, labels=None):
    """The names of the columns that the innermost model of ``estimator`` receives, given those of its input.

    ``names`` name the columns that reach ``estimator`` (see :func:`input_names`)
    and ``labels`` are their labels where they arrive in a DataFrame (the
    labels a GroupedRanker's ``qid_column`` is looked up among). None where a
    step cannot tell what it passes on. A fitted search passes its input to
    its best estimator.
    """
    best = selected(estimator)
    if best is not None:
        return model_feature_names(best, names, labels)
    inner = getattr(estimator, "estimator_", None)
    if inner is not None and hasattr(estimator, "qid_column"):  # a GroupedRanker: its inner estimator gets X less qid
        if estimator.qid_column is not None:
            dropped = column_position(estimator.qid_column, labels, len(names))
            if dropped is None:
                return None
            names = names[:dropped] + names[dropped + 1 :]
            labels = None if labels is None else labels[:dropped] + labels[dropped + 1 :]
        return model_feature_names(inner, names, labels)
    if isinstance(estimator, Pipeline):
        if len(estimator.steps) > 1:
            try:
                names = [str(name) for name in estimator[:-1].get_feature_names_out(names)]
            except (AttributeError, TypeError, ValueError):
                return None
            labels = names  # a DataFrame's columns, if the steps output one; an array's columns are positions
        return model_feature_names(estimator.steps[-1][1], names, labels)
    # A model that does not tell how many features it was fitted on is not judged.
    return names if getattr(estimator, "n_features_in_", None) == len(names) else None


def drops_qid_column(estimator):
    """Whether a GroupedRanker with a ``qid_column`` stands between ``estimator``'s input and its model."""
    if isinstance(estimator, Pipeline):
        return drops_qid_column(estimator.steps[-1][1])
    if selected(estimator) is not None:
        return drops_qid_column(selected(estimator))
    return getattr(estimator, "qid_column", None) is not None and hasattr(estimator, "estimator_")


# Row fingerprints ---------------------------------------------------------------------------------------------------

CELLS_PER_BLOCK = 1 << 16


def query_digests(X, qid):
    """An order-free 64-bit digest of the rows of each query, in the order of the sorted distinct ids.

    Two queries get the same digest when they hold the same multiset of feature
    rows (up to collisions of 64-bit hashes). None when the rows of ``X``
    cannot be hashed.
    """
    rows = row_fingerprints(X)
    if rows is None:
        return None
    codes = np.unique(query_id_array(qid), return_inverse=True)[1].reshape(-1)
    order = np.argsort(codes, kind="stable")
    running = np.concatenate([[np.uint64(0)], np.cumsum(rows[order], dtype=np.uint64)])
    ends = np.searchsorted(codes[order], np.arange(codes.max() + 1), side="right")
    starts = np.concatenate([[0], ends[:-1]])
    return running[ends] - running[starts]  # sums modulo 2**64


def row_fingerprints(X):
    """A 64-bit hash of every row of ``X`` (dense or sparse numbers, or a DataFrame); None if it cannot be told.

    A row's hash mixes ``sum_j spread(x_j) * salt_j`` (modulo 2**64, with fixed odd salts), where ``spread``
    is an invertible map of a float's bits that brings every bit within the lowest 26: rows that differ in one
    column always differ in that sum, and rows that differ in several collide with a chance of about 2**-38 at
    most. Zeros contribute nothing (so a sparse matrix hashes as its dense form), and the final mix keeps the
    rows apart in the digests of queries, which add row hashes.
    """
    if sp.issparse(X):
        X = X.tocsr()
        if X.dtype.kind not in "biuf":
            return None
        cells = spread_bits(X.data) * column_salts(X.shape[1])[X.indices]
        running = np.concatenate([[np.uint64(0)], np.cumsum(cells, dtype=np.uint64)])
        return mix(running[X.indptr[1:]] - running[X.indptr[:-1]])
    try:
        values = X.to_numpy(dtype=np.float64) if hasattr(X, "to_numpy") else np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        return hashed_frame_rows(X)
    if values.ndim != 2:
        return None
    salt, sums = column_salts(values.shape[1]), np.empty(len(values), dtype=np.uint64)
    rows = max(1, CELLS_PER_BLOCK // max(1, values.shape[1]))
    for start in range(0, len(values), rows):  # blocks that stay in the cache
        sums[start : start + rows] = spread_bits(values[start : start + rows]) @ salt
    return mix(sums)


def hashed_frame_rows(X):
    """Row hashes of a DataFrame with columns that are not numbers (strings, categories), by pandas."""
    if not hasattr(X, "iloc"):
        return None
    import pandas as pd

    return mix(pd.util.hash_pandas_object(X, index=False).to_numpy(dtype=np.uint64))


def spread_bits(values):
    """The bits ``b`` of ``values`` as float64 (+0.0 and -0.0 alike), as ``b ^ (b >> 26) ^ (b >> 52)``.

    The map is invertible, and brings the exponent and the high mantissa bits, where floats that hold small
    integers differ, down to the low bits, which a multiplication spreads to every higher one.
    """
    bits = (np.asarray(values, dtype=np.float64) + 0.0).view(np.uint64)
    spread = bits >> np.uint64(26)
    spread ^= bits
    spread ^= bits >> np.uint64(52)
    return spread


def column_salts(n_columns):
    """A fixed odd 64-bit multiplier for each column."""
    return mix(np.arange(n_columns, dtype=np.uint64) + np.uint64(0x9E3779B97F4A7C15)) | np.uint64(1)


def mix(z):
    """SplitMix64's finalizer: every input bit affects every output bit (arithmetic modulo 2**64)."""
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))
