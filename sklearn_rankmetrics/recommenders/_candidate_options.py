"""The accuracy metrics' ``candidates=``, ``sampled_correction=`` and ``n_items=`` options: one decorator.

Without candidates a metric runs untouched, and nothing of the sampled
evaluation (:mod:`._sampled`, scipy's optimisers) is imported: the metrics'
modules, which the trec_eval command imports, stay light.
"""

import functools
import inspect
import re

from .._core._array_api import to_numpy
from .._core._validation import check_option

# Krichene & Rendle's corrected estimators (see ._sampled).
CORRECTIONS = ("bv", "cls")

CANDIDATE_DOCS = """candidates : array-like of bool or sparse matrix, default=None
        Restrict each ranking to these items, as :func:`sample_candidates`
        draws them: a mask (True/False, or 0/1) of the shape of ``y_true``
        (a sparse matrix's stored entries), or one value per row for 1-D
        inputs. Items outside it are not ranked (their scores are not read:
        they may be NaN, and ``y_score`` may be a sparse matrix storing the
        candidates' scores; ``-inf`` still marks an item out of the user's
        catalogue); a relevant item outside it counts in R and is never
        found. None: rank every item.
    sampled_correction : {"bv", "cls"}, default=None
        With ``candidates``, estimate the metric over the full catalogue by
        Krichene & Rendle's corrected estimators instead of computing it on
        the candidates: ``"bv"``, the bias-variance trade-off with
        gamma = 0.01; ``"cls"``, the least-biased estimator held within the
        metric's range. They assume negatives drawn uniformly (candidates
        of ``sample_candidates(strategy="popularity")`` are refused; a mask
        made otherwise is taken as uniform), and need every relevant item
        among the candidates and each user's catalogue size N: a matrix's
        columns less its items scored ``-inf``, or in the long format the
        user's rows less those scored ``-inf`` (or ``n_items``). Their
        error depends on the models: see the user guide's *Sampled
        evaluation*. None: the metric on the candidates.
    n_items : int or array-like of shape (n_users,), default=None
        Long format with ``sampled_correction`` only: the size of each
        user's catalogue (one int for all, or one per user in the order of
        ``np.unique(qid)``), when the rows hold only the candidates; the
        rows scored ``-inf`` are taken out of it. None: each user's rows
        are its catalogue."""


def accepts_candidates(function):
    """Give an accuracy metric ``candidates=``, ``sampled_correction=`` and ``n_items=`` (keyword-only, last).

    Without them the metric runs untouched. With ``candidates`` the scores
    outside it become ``-inf`` (not ranked); with ``sampled_correction``
    the value is the corrected estimate of the full-catalogue metric.
    """

    @functools.wraps(function)
    def wrapper(*args, candidates=None, sampled_correction=None, n_items=None, **kwargs):
        if candidates is None:
            check_without_candidates(sampled_correction, n_items)
            return function(*args, **kwargs)
        from ._sampled import corrected_metric  # the sampled evaluation's work, imported when it is asked for

        bound = signature.bind(*args, **kwargs)
        arguments = {name: to_numpy(value) for name, value in bound.arguments.items()}
        y_true, y_score = arguments.pop("y_true"), arguments.pop("y_score")
        rows = candidate_rows(y_true, y_score, candidates, qid=arguments.get("qid"), n_items=n_items,
                              sampled_correction=sampled_correction)  # fmt: skip
        if sampled_correction is None:
            return function(y_true, rows.restricted_scores(), **arguments)
        return corrected_metric(function.__name__, rows, sampled_correction, signature, arguments)

    signature = inspect.signature(function)
    extra = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None)
        for name in ("candidates", "sampled_correction", "n_items")
    ]
    wrapper.__signature__ = signature.replace(parameters=[*signature.parameters.values(), *extra])
    wrapper.__doc__ = re.sub(
        r"\n    Returns\n", "\n    " + CANDIDATE_DOCS + "\n\n    Returns\n", function.__doc__, count=1
    )
    return wrapper


def check_without_candidates(sampled_correction, n_items):
    """Refuse ``sampled_correction`` or ``n_items`` without candidates: they serve the sampled evaluation only."""
    if sampled_correction is not None or n_items is not None:
        raise ValueError(
            f"{'sampled_correction' if sampled_correction is not None else 'n_items'} serves the estimate of "
            "the full-catalogue metric from sampled candidates: pass candidates= as well (see "
            "sample_candidates)."
        )


def check_sampled_correction(sampled_correction):
    """Refuse a ``sampled_correction`` that names no estimator."""
    if sampled_correction is not None:
        check_option("sampled_correction", sampled_correction, CORRECTIONS)


def candidate_rows(y_true, y_score, candidates, *, qid=None, n_items=None, sampled_correction=None):
    """The candidates as rows (:class:`~._candidates.CandidateRows`), the options checked: the one entry of
    ``candidates=`` for the accuracy metrics, the reports and the scorers.

    ``sampled_correction`` needs uniformly drawn negatives: candidates that
    :func:`~._sampled.sample_candidates` drew by popularity are refused
    (:func:`~._sampled.check_uniform`); any other mask is taken as uniform.
    """
    from ._candidates import CandidateRows
    from ._sampled import check_uniform

    check_sampled_correction(sampled_correction)
    if sampled_correction is not None:
        check_uniform(candidates)
    y_true, y_score, candidates, qid = map(to_numpy, (y_true, y_score, candidates, qid))
    return CandidateRows(y_true, y_score, candidates, qid, n_items, sampled_correction)


def corrected_values(function, rows, sampled_correction, options):
    """Each user's corrected estimate of accuracy metric ``function`` with ``options`` (its own, ``ties``,
    ``sample_weight``), nan where the metric is undefined: the reports' per-user values."""
    from ._sampled import corrected_metric

    arguments = {**options, "average": False, "zero_division": float("nan")}
    return corrected_metric(function.__name__, rows, sampled_correction, inspect.signature(function), arguments)
