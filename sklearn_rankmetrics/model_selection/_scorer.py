"""Scorers: ranking metrics that find the query ids of each cross-validation fold.

A scorer is called as ``scorer(estimator, X, y, **metadata)``. The query ids reach
it by scikit-learn's metadata routing (it requests ``qid`` and ``groups``) or, with
routing off, from a column of ``X`` (``qid_column``, the XGBoost convention).
"""

import difflib
import inspect
import warnings

import numpy as np
from sklearn.base import is_classifier
from sklearn.utils.metadata_routing import MetadataRequest, get_routing_for_object

from .._core._validation import check_option, plain
from ..registry._names import canonical_name, parse_metric_name
from ..registry._registry import DIVERSITY_METRICS, KERNELS, SCORER_NAMES
from ._guards import check_scored_fold
from ._qid_column import missing_qid_error, resolve_qid

RESPONSE_METHODS = ("auto", "predict", "decision_function", "predict_proba")
ROUTED = ("qid", "groups", "sample_weight")


def ranking_scores(estimator, X, response_method="auto", qid=None):
    """Scores to rank the rows of ``X`` by, from a fitted estimator.

    ``"auto"`` uses ``predict`` for regressors and rankers; for classifiers with
    ``predict_proba``, the probability of the positive class (binary) or the
    expected grade :math:`\\sum_c c\\, P(c)` (multiclass on numeric grades).
    An estimator whose ``predict`` requests ``qid`` (metadata routing, as
    ``FusionRanker``'s does: it fuses each query's rows together) receives the
    query ids ``qid``.
    """
    response_method = check_option("response_method", response_method, RESPONSE_METHODS)
    if response_method == "auto":
        proba = _is_classifier(estimator) and hasattr(estimator, "predict_proba")
        response_method = "predict_proba" if proba else "predict"
    if response_method != "predict_proba":
        params = {"qid": qid} if qid is not None and requests_qid(estimator, response_method) else {}
        scores = np.asarray(getattr(estimator, response_method)(X, **params), dtype=np.float64)
        return scores.ravel() if scores.ndim == 2 and scores.shape[1] == 1 else scores
    proba = estimator.predict_proba(X)
    if proba.shape[1] == 2:
        return proba[:, 1]
    classes = np.asarray(estimator.classes_)
    if classes.dtype.kind not in "iuf":
        raise ValueError(
            f"The expected grade of a multiclass classifier needs numeric classes; got {classes.dtype} "
            f"classes {classes[:5].tolist()}. Encode the grades as numbers or pass response_method='predict'."
        )
    return proba @ classes.astype(np.float64)


def requests_qid(estimator, method):
    """Whether ``estimator``'s ``method`` requests the query ids by metadata routing."""
    try:
        return getattr(get_routing_for_object(estimator), method).requests.get("qid") is True
    except AttributeError:  # a router (a Pipeline, a search) or a duck-typed model: it requests nothing itself
        return False


def _is_classifier(estimator):
    try:
        return is_classifier(estimator)
    except AttributeError:  # a duck-typed model without scikit-learn tags
        return getattr(estimator, "_estimator_type", None) == "classifier"


class RankingScorer:
    """A ranking metric as a scikit-learn scorer; build it with :func:`make_ranking_scorer`."""

    def __init__(self, score_func, *, sign=1, response_method="auto", qid_column=None, kwargs=None):
        self._score_func = score_func
        self._sign = sign
        self._response = check_option("response_method", response_method, RESPONSE_METHODS)
        self._qid_column = qid_column
        self._kwargs = dict(kwargs or {})
        self._requests = {"qid": True, "groups": True, "sample_weight": None}

    # The scikit-learn protocol: metadata routing and what its multimetric scorer reads.
    def get_metadata_routing(self):
        """The metadata this scorer requests: ``qid`` and ``groups``; ``sample_weight`` on demand."""
        request = MetadataRequest(owner=type(self).__name__)
        for param, alias in self._requests.items():
            request.score.add_request(param=param, alias=alias)
        return request

    def set_score_request(self, **requests):
        """Change which metadata the scorer requests (True, False, None or an alias)."""
        unknown = set(requests) - set(ROUTED)
        if unknown:
            raise TypeError(f"set_score_request accepts {', '.join(ROUTED)}; got {', '.join(sorted(unknown))}.")
        self._requests.update(requests)
        return self

    @property
    def _response_method(self):
        # Read by sklearn's multimetric scorer to decide whether to cache predictions.
        return ("predict_proba", "predict") if self._response == "auto" else self._response

    def _accept_sample_weight(self):
        return True

    def __call__(self, estimator, X, y_true, sample_weight=None, **metadata):
        unexpected = set(metadata) - {"qid", "groups"}
        if unexpected:
            raise TypeError(f"{self!r} got unexpected metadata {sorted(unexpected)}; it takes qid and groups.")
        qid = resolve_qid(**metadata, X=X, qid_column=self._qid_column, who=f"The scorer {self!r}")
        if qid is None:
            raise missing_qid_error(f"The scorer {self!r}", "the scorer (make_ranking_scorer)")
        score = self._score_predictions(y_true, ranking_scores(estimator, X, self._response, qid), qid, sample_weight)
        check_scored_fold(estimator, X, qid, qid_column=self._qid_column)  # the metric has validated qid
        return score

    def _score_predictions(self, y_true, y_score, qid, sample_weight):
        """The signed metric of scores ``y_score`` (shared between scorers by permutation_importance)."""
        return self._sign * self._score_func(y_true, y_score, qid=qid, sample_weight=sample_weight, **self._kwargs)

    def _options(self):
        """The options that differ from the defaults, including those of the scorer itself."""
        name, preset = canonical_name(self._score_func, self._kwargs)
        defaults = inspect.signature(self._score_func).parameters
        options = {
            key: value
            for key, value in self._kwargs.items()
            if key not in preset and key != "k" and not same(value, defaults[key].default)
        }
        if self._sign < 0:
            options["greater_is_better"] = False
        if self._response != "auto":
            options["response_method"] = self._response
        if self._qid_column is not None:
            options["qid_column"] = self._qid_column
        return name, options

    def __repr__(self):
        name, options = self._options()
        k = self._kwargs.get("k")
        text = name if k is None else f"{name}@{k}"
        if options:
            text += "(" + ", ".join(f"{key}={plain(value)!r}" for key, value in options.items()) + ")"
        return text

    def __eq__(self, other):
        return isinstance(other, RankingScorer) and (self._score_func, repr(self)) == (other._score_func, repr(other))

    def __hash__(self):
        return hash(repr(self))


def same(value, default):
    """Whether an option equals its default (nan equals nan; arrays and bools never equal numbers)."""
    if value is default:
        return True
    if isinstance(value, bool) != isinstance(default, bool) or isinstance(value, np.ndarray):
        return False
    if isinstance(value, float) and isinstance(default, float) and np.isnan(value) and np.isnan(default):
        return True
    try:
        return bool(value == default)
    except (TypeError, ValueError):
        return False


def make_ranking_scorer(score_func, *, greater_is_better=True, response_method="auto", qid_column=None, **kwargs):
    """Make a scorer from a ranking metric, for ``scoring=`` in model selection.

    The scorer, called as ``scorer(estimator, X, y, **metadata)``, ranks the rows
    of ``X`` by the estimator's scores, finds each row's query and returns the
    metric averaged over the queries of the fold.

    Parameters
    ----------
    score_func : callable
        A metric ``score_func(y_true, y_score, *, qid, sample_weight, **kwargs)``,
        such as :func:`ndcg_score`.
    greater_is_better : bool, default=True
        False for a loss: the scorer then returns the negated metric.
    response_method : {"auto", "predict", "decision_function", "predict_proba"}, default="auto"
        The estimator method that gives the scores. ``"auto"``: ``predict`` for
        regressors and rankers; for classifiers with ``predict_proba``, the
        probability of the positive class (binary) or the expected grade
        :math:`\\sum_c c\\, P(c)` (multiclass on numeric grades).
    qid_column : str or int, default=None
        With metadata routing off, the label (DataFrame) or position (array) of
        the column of ``X`` that holds the query ids. With routing on, the
        scorer requests ``qid`` and ``groups`` and these win over the column.
    **kwargs
        Options of ``score_func``, such as ``k=10``.

    Returns
    -------
    scorer : callable
        A picklable scorer. Its repr is the canonical name with non-default
        options, such as ``ndcg@10`` or ``map@5(denominator='capped')``, which
        :func:`get_ranking_scorer` reads back.

    See Also
    --------
    get_ranking_scorer : Scorers by name, such as ``"ndcg@10"``.
    GroupedRanker : Gives rankers their query groups in cross-validation.

    Notes
    -----
    Query ids reach the scorer by one of two routes, and a fold without any
    raises a ``ValueError`` naming both (a fold is never scored as one query):

    - routing on (``sklearn.set_config(enable_metadata_routing=True)``): it
      requests ``qid`` and ``groups``, so ``GridSearchCV(..., cv=GroupKFold()).
      fit(X, y, groups=qid)`` feeds one array to the splitter and the scorer. If
      both arrive they must be equal. ``sample_weight`` is routed only after
      ``scorer.set_score_request(sample_weight=True)``, as for sklearn's scorers.
    - routing off: from column ``qid_column`` of ``X``.

    Examples
    --------
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn_rankmetrics import make_ranking, make_ranking_scorer, ndcg_score
    >>> X, y, qid = make_ranking(n_queries=20, random_state=0)
    >>> scorer = make_ranking_scorer(ndcg_score, k=10)
    >>> scorer
    ndcg@10
    >>> round(scorer(Ridge().fit(X, y), X, y, qid=qid), 4)
    0.8308
    """
    if not callable(score_func):
        raise TypeError(f"score_func must be a metric function such as ndcg_score; got {score_func!r}.")
    parameters = inspect.signature(score_func).parameters
    unknown = [key for key in kwargs if key not in parameters or key in ("y_true", "y_score", "qid", "sample_weight")]
    if unknown:
        options = [key for key in parameters if key not in ("y_true", "y_score", "qid", "sample_weight", "average")]
        close = difflib.get_close_matches(unknown[0], options, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else f" Its options are {', '.join(options)}."
        raise TypeError(f"{score_func.__name__} takes no option {', '.join(map(repr, unknown))}.{hint}")
    if "average" in kwargs:
        raise TypeError("A scorer returns the mean over queries: it takes no average option.")
    check_options(score_func, kwargs)
    return RankingScorer(
        score_func,
        sign=1 if greater_is_better else -1,
        response_method=response_method,
        qid_column=qid_column,
        kwargs=kwargs,
    )


def check_options(score_func, options):
    """Check a library metric's options now, with the metric's own messages.

    A bad option found only when the first fold is scored would turn a whole
    search into ``best_score_ = nan``. The metric runs once on two unjudged
    documents, which every valid option accepts.
    """
    if score_func in DIVERSITY_METRICS:
        n_subtopics = len(options["intent_weights"]) if np.ndim(options.get("intent_weights")) == 1 else 1
        y_true = np.zeros((2, n_subtopics))
    elif score_func in KERNELS:
        y_true = np.zeros(2)
    else:
        return  # a metric of the caller's: its input form is unknown
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # every query is undefined here
        score_func(y_true, np.array([1.0, 0.0]), **options)


def get_ranking_scorer_names():
    """Return the names that :func:`get_ranking_scorer` accepts, each optionally followed by ``@k``.

    Returns
    -------
    names : list of str
        Sorted base names, such as ``"ndcg"`` (use ``"ndcg@10"`` for a cutoff).

    See Also
    --------
    get_ranking_scorer : The scorer of a name.

    Examples
    --------
    >>> from sklearn_rankmetrics import get_ranking_scorer_names
    >>> get_ranking_scorer_names()[:4]
    ['alpha_ndcg', 'ap_ia', 'bpref', 'cg']
    """
    return sorted(SCORER_NAMES, key=str.lower)


def get_ranking_scorer(name):
    """The scorer of a name such as ``"ndcg@10"``, ``"map"`` or ``"err@20"``.

    Parameters
    ----------
    name : str
        A name from :func:`get_ranking_scorer_names`, optionally followed by
        ``@k`` and by options in parentheses, as in ``repr`` of a scorer:
        ``"map@5(denominator='capped', zero_division=1.0)"``.

    Returns
    -------
    scorer : callable
        See :func:`make_ranking_scorer`.

    See Also
    --------
    get_ranking_scorer_names : The base names.
    make_ranking_scorer : A scorer from any metric function.

    Examples
    --------
    >>> from sklearn_rankmetrics import get_ranking_scorer
    >>> get_ranking_scorer("ndcg_exp@10")
    ndcg_exp@10
    >>> get_ranking_scorer("ndcg@10(zero_division=1.0, qid_column='qid')")
    ndcg@10(zero_division=1.0, qid_column='qid')
    """
    score_func, options = parse_metric_name(name)
    scorer_options = {
        key: options.pop(key) for key in ("greater_is_better", "response_method", "qid_column") if key in options
    }
    return make_ranking_scorer(score_func, **scorer_options, **options)
