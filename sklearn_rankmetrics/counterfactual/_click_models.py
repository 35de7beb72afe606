"""What every click model shares: logs laid out as sessions x ranks, likelihood, perplexity and simulation.

A model is fitted on a click log (one row per shown document, ``qid`` naming
the session, ``doc_id`` the query-document pair, ``position`` the rank) laid
out as padded (n_sessions, longest) matrices, so that the likelihood and
the simulation are array operations over all sessions; only the ranks (at
most the longest session) are looped over, in the chain models. EM iterates
on the log's sufficient statistics, aggregated once (:func:`run_em`).
"""

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning

from .._core._ranking import build_ranking
from .._core._resampling import random_state_from
from .._core._validation import as_float_array, check_integer, check_real, check_scores, plain
from .._core._warnings import warn
from ._log import (
    Sessions,
    check_length,
    check_probabilities,
    document_codes,
    impression_codes,
    known_codes,
    session_layout,
)

# Probabilities are kept this far from 0 and 1 in logarithms: a model that rules out an observed click (the
# cascade model after a first click) gets a large finite penalty, not -inf.
EPSILON = 1e-12


class ClickLog:
    """A click log as (n_sessions, longest) matrices: clicks, document codes, and which cells hold a document."""

    def __init__(self, clicks, sessions, docs):
        self.sessions = sessions
        self.mask = sessions.mask
        self.clicks = sessions.matrix(clicks) * self.mask
        self.docs = sessions.matrix(docs, fill=0, dtype=np.int64)
        self.n_ranks = sessions.longest


def read_log(clicks, qid, doc_id, position, known=None):
    """The :class:`ClickLog` of a log, and the distinct document ids (with ``known``: codes among them, -1 new)."""
    clicks, sessions = session_layout(clicks, qid, position)
    if known is None:
        codes, known = document_codes(doc_id, len(clicks))
    else:
        codes = known_codes(doc_id, known) if doc_id is not None else document_codes(doc_id, len(clicks))[0]
        check_length(codes, "doc_id", len(clicks))
    return ClickLog(clicks, sessions, codes), known


def previous_click_ranks(clicks):
    """The 1-based rank of the last click above each cell of a sessions x ranks click matrix (0: none)."""
    ranks = clicks * np.arange(1, clicks.shape[1] + 1)
    previous = np.zeros_like(ranks, dtype=np.int64)
    previous[:, 1:] = np.maximum.accumulate(ranks, axis=1)[:, :-1]
    return previous


def bernoulli_log_likelihood(clicks, probabilities, mask, base=np.e):
    """Sum over the cells of ``mask`` of the log-probability of each click under its click probability."""
    probabilities = np.clip(probabilities, EPSILON, 1 - EPSILON)
    cells = np.where(clicks > 0, np.log(probabilities), np.log1p(-probabilities)) / np.log(base)
    return np.where(mask, cells, 0.0)


def mean_by_rank(values, mask):
    """Mean of ``values`` over the sessions that reach each rank."""
    return (values * mask).sum(axis=0) / np.maximum(mask.sum(axis=0), 1)


def ratio_of_counts(numerator, denominator, default=0.5):
    """``numerator / denominator`` where the denominator is above 0, else ``default``."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1.0), default)


def run_em(model, step, parameters, *, scale_free=None):
    """EM, accelerated by SQUAREM (Varadhan and Roland 2008), from ``parameters`` (a tuple of arrays of
    probabilities) to the fitted ones; sets ``model.n_iter_`` (EM steps taken) and warns if it hits max_iter.

    ``step(parameters)`` is one EM iteration: the next parameters (each in [0, 1]) and the log-likelihood of the
    given ones. A cycle takes two steps, jumps along their path (the squared extrapolation, clipped to [0, 1]),
    and takes one step from there; if the jump lowered the likelihood below the cycle's start, the two plain
    steps stand. Either way the likelihood never decreases from cycle to cycle. EM stops once a cycle (or a
    step) moves no parameter by more than ``model.tol``, or raises the log-likelihood by no more than
    ``model.tol`` times its magnitude (many rarely shown documents creep for hundreds of steps after the fit
    has stopped improving), or after ``model.max_iter`` steps.
    """
    model._check_iterations()
    measured = scale_free or (lambda *values: values)
    steps = 0

    def advance(point):
        nonlocal steps
        steps += 1
        return step(*point)

    def settled(new, old):
        pairs = zip(measured(*new), measured(*old), strict=True)
        return max(float(np.abs(a - b).max(initial=0.0)) for a, b in pairs) <= model.tol

    previous = -np.inf
    while True:
        first, likelihood = advance(parameters)
        flat = abs(likelihood - previous) <= model.tol * abs(likelihood)  # False for nan
        if settled(first, parameters) or flat or steps == model.max_iter:
            converged, parameters = settled(first, parameters) or flat, first
            break
        previous = likelihood
        second, _ = advance(first)
        r = [b - a for a, b in zip(parameters, first, strict=True)]
        v = [c - 2 * b + a for a, b, c in zip(parameters, first, second, strict=True)]
        jump = np.sqrt(sum(float(x @ x) for x in r) / max(sum(float(x @ x) for x in v), 1e-300))
        accepted = second
        if jump > 1.0 and steps < model.max_iter:  # a jump of 1 lands on the second step
            point = tuple(
                np.clip(a + 2 * jump * x + jump**2 * y, 0.0, 1.0) for a, x, y in zip(parameters, r, v, strict=True)
            )
            third, jumped = advance(point)
            if jumped >= likelihood:  # False for nan
                accepted = third
        converged, parameters = settled(accepted, parameters), accepted
        if converged or steps >= model.max_iter:
            break
    model.n_iter_ = steps
    if not converged:
        warn(
            f"{type(model).__name__}: EM stopped at max_iter={model.max_iter} steps before converging (a cycle still "
            f"moved a parameter, and the log-likelihood, by more than tol={model.tol}); raise max_iter, or tol.",
            ConvergenceWarning,
        )
    return parameters


class ClickModel(BaseEstimator):
    """Base of the click models: the log's layout, log-likelihood, perplexity and simulation.

    A subclass fits its parameters on a :class:`ClickLog` (``_fit``) and gives,
    for the documents of a log (their attractiveness in a matrix), the
    probability of a click at each rank given the clicks above it
    (``_conditional``), regardless of them (``_marginal``), and simulated
    clicks (``_simulate``). ``rank_parameters`` says whether some fitted
    parameter is one per rank (then a log longer than the fitted one cannot
    be scored). A scikit-learn estimator: the constructor's keywords are its
    parameters (``get_params``, ``set_params``, ``clone``), fitted values end
    in ``_``, and nothing else is stored on it.
    """

    rank_parameters = False

    def _check_iterations(self):
        check_integer("max_iter", self.max_iter)
        check_real("tol", self.tol, low=0.0)

    def fit(self, clicks, *, qid, doc_id, position=None):
        """Fit the model's parameters on a click log.

        Parameters
        ----------
        clicks : array-like of shape (n_rows,)
            1 where the shown document was clicked, else 0.
        qid : array-like of shape (n_rows,)
            The session (impression) of each row.
        doc_id : array-like of shape (n_rows,)
            The query-document pair of each row (numbers or strings): rows
            with the same id share the document's parameters.
        position : array-like of shape (n_rows,), default=None
            1-based rank of each row, exactly 1, ..., n in each session;
            None: the order of the session's rows.

        Returns
        -------
        self : object
            The fitted model.
        """
        log, self.doc_ids_ = read_log(clicks, qid, doc_id, position)
        self.n_ranks_ = log.n_ranks
        self._fit(log, len(self.doc_ids_))
        return self

    def _check_fitted(self):
        if not hasattr(self, "doc_ids_"):
            raise AttributeError(
                f"This {type(self).__name__} is not fitted yet: call fit(clicks, qid=..., doc_id=...) first."
            )

    def _fitted_log(self, clicks, qid, doc_id, position):
        self._check_fitted()
        log = read_log(clicks, qid, doc_id, position, known=self.doc_ids_)[0]
        if self.rank_parameters and log.n_ranks > self.n_ranks_:
            raise ValueError(
                f"the log has sessions of {log.n_ranks} ranks, but {type(self).__name__} has one parameter per rank "
                f"and was fitted on sessions of at most {self.n_ranks_}: rank {self.n_ranks_ + 1} has none. Score "
                "sessions cut to that length, or fit on a log with longer sessions."
            )
        return log

    def _document_values(self, values, log):
        """A fitted per-document parameter at each cell; documents not seen in fit take the parameter's mean."""
        known = np.append(values, values.mean())  # code -1, a document not seen in fit, takes the last
        return np.where(log.mask, known[log.docs], 0.0)

    def log_likelihood(self, clicks, *, qid, doc_id, position=None):
        """Log-likelihood of a click log under the fitted model (natural logarithm, summed over sessions).

        Parameters
        ----------
        clicks, qid, doc_id, position : array-like of shape (n_rows,)
            A click log, as in :meth:`fit`. Documents that the model did not
            see in ``fit`` take the mean of the fitted attractiveness.

        Returns
        -------
        log_likelihood : float
            :math:`\\sum_s \\log P(C_1, \\ldots, C_n)`, each session's click
            probabilities chained rank by rank, each given the clicks above.
        """
        log = self._fitted_log(clicks, qid, doc_id, position)
        return float(bernoulli_log_likelihood(log.clicks, self._conditional(log), log.mask).sum())

    def perplexity(self, clicks, *, qid, doc_id, position=None, by_rank=False):
        """Perplexity of the model's click probabilities on a click log (1 is perfect, 2 a coin flip).

        Parameters
        ----------
        clicks, qid, doc_id, position : array-like of shape (n_rows,)
            A click log, as in :meth:`fit`.
        by_rank : bool, default=False
            The perplexity of each rank; False: their mean.

        Returns
        -------
        perplexity : float or ndarray of shape (n_ranks,)
            :math:`2^{-\\frac{1}{|S_r|}\\sum_{s \\in S_r} (c \\log_2 q + (1-c)
            \\log_2(1-q))}` at rank :math:`r` over the sessions :math:`S_r`
            that reach it, with :math:`q` the model's probability of a click
            there regardless of the clicks above (Chuklin et al. 2015,
            section 4.2); the overall value is the mean over ranks.
        """
        log = self._fitted_log(clicks, qid, doc_id, position)
        cells = bernoulli_log_likelihood(log.clicks, self._marginal(log), log.mask, base=2)
        by_ranks = 2.0 ** -mean_by_rank(cells, log.mask)
        return by_ranks if by_rank else float(by_ranks.mean())

    def simulate(self, attractiveness, y_score, *, qid, random_state=None):
        """Simulate the clicks of users who follow the model on the ranking of ``y_score`` in each session.

        Parameters
        ----------
        attractiveness : array-like of shape (n_rows,)
            Probability that a user who examines the document clicks it, in
            [0, 1]: from qrels, for instance ``np.array([0.05, 0.5, 0.95])[labels]``.
        y_score : array-like of shape (n_rows,)
            Scores of the ranker: each session shows its rows by decreasing
            score (ties in input order).
        qid : array-like of shape (n_rows,)
            The session of each row.
        random_state : int, RandomState instance, numpy Generator or None, default=None
            Seeds the clicks.

        Returns
        -------
        clicks : ndarray of shape (n_rows,)
            1 where the simulated user clicked, else 0, aligned with the rows.
        """
        return self._simulate_rows(attractiveness, y_score, qid, random_state)

    def _simulate_rows(self, attractiveness, y_score, qid, random_state, extra=None, extra_name=None):
        """Simulated clicks per row; ``extra`` (one probability per row, or None) reaches ``_simulate`` as a
        matrix: everything a simulation needs travels in arguments, so one model simulates in many threads."""
        attractiveness, sessions = self._ranked(attractiveness, y_score, qid)
        log = ClickLog(np.zeros(len(attractiveness)), sessions, np.full(len(attractiveness), -1))
        alpha = sessions.matrix(attractiveness) * log.mask
        if extra is not None:
            extra = sessions.matrix(check_probabilities(extra, extra_name, len(attractiveness), zero=True)) * log.mask
        clicks = self._simulate(log, alpha, random_state_from(random_state), extra)
        return sessions.rows((clicks * log.mask).astype(np.float64))

    def _ranked(self, attractiveness, y_score, qid):
        n_rows = len(as_float_array(attractiveness, "attractiveness"))
        attractiveness = check_probabilities(attractiveness, "attractiveness", n_rows, zero=True)
        y_score = as_float_array(y_score, "y_score")
        check_length(y_score, "y_score", n_rows, of="attractiveness")
        check_scores(y_score, minus_inf="nothing: every row is shown")
        codes = impression_codes(qid, n_rows, of="attractiveness")
        ranking, order = build_ranking(attractiveness, y_score, codes, ties="stable")
        position = np.empty(n_rows, dtype=np.int64)
        position[order] = ranking.positions + 1
        return attractiveness, Sessions(codes, position)

    def _parameter(self, fitted, given, name, shape=None):
        """The fitted parameter, else the one given to the constructor (checked as probabilities), for simulation."""
        value = getattr(self, fitted, None)
        if value is None:
            value = getattr(self, given)
            if value is None:
                raise ValueError(
                    f"{type(self).__name__} needs {given}= to simulate clicks before it is fitted; got neither."
                )
            value = np.asarray(value, dtype=np.float64)
            if value.ndim == 0 or (shape is not None and value.shape[1:] != shape[1:]) or not np.isfinite(value).all():
                raise ValueError(f"{given} must be an array of probabilities; got {plain(getattr(self, given))!r}.")
            if (value < 0).any() or (value > 1).any():
                raise ValueError(f"{given} must hold probabilities in [0, 1]; got {plain(getattr(self, given))!r}.")
        return value

    def _by_rank(self, values, n_ranks, name):
        if len(values) < n_ranks:
            raise ValueError(
                f"{name} covers {len(values)} ranks, but the sessions have up to {n_ranks}; give one value per rank."
            )
        return values[:n_ranks]


class ChainModel(ClickModel):
    """A cascade of examinations from the top: after rank r the user goes on with a probability that depends on
    whether r was clicked (``_continuation``: after a click, per cell; without one, a number).

    Every chain model has the attractiveness of each document, the
    probability of a click on an examined document.
    """

    def _continuation(self, log, alpha, extra=None):
        raise NotImplementedError

    def _conditional(self, log):
        alpha = self._document_values(self.attractiveness_, log)
        after_click, without_click = self._continuation(log, alpha)
        probabilities = np.zeros_like(alpha)
        examined = np.ones(len(alpha))
        for rank in range(log.n_ranks):
            a, clicked = alpha[:, rank], log.clicks[:, rank] > 0
            probabilities[:, rank] = examined * a
            with np.errstate(invalid="ignore", divide="ignore"):
                unclicked = examined * (1 - a) * without_click / (1 - examined * a)
            examined = np.where(clicked, after_click[:, rank], np.nan_to_num(unclicked))
        return probabilities

    def _marginal(self, log):
        alpha = self._document_values(self.attractiveness_, log)
        after_click, without_click = self._continuation(log, alpha)
        return alpha * examination_probabilities(alpha, after_click, without_click)

    def _simulate(self, log, alpha, rng, extra):
        after_click, without_click = self._continuation(log, alpha, extra)
        clicks = np.zeros_like(alpha)
        examined = np.ones(len(alpha), dtype=bool)
        for rank in range(log.n_ranks):
            clicked = examined & (rng.random(len(alpha)) < alpha[:, rank])
            goes_on = rng.random(len(alpha)) < np.where(clicked, after_click[:, rank], without_click)
            clicks[:, rank] = clicked
            examined &= goes_on
        return clicks


def examination_probabilities(alpha, after_click, without_click):
    """Probability that each rank is examined, regardless of clicks, in a chain model."""
    examined = np.ones_like(alpha)
    for rank in range(1, alpha.shape[1]):
        a = alpha[:, rank - 1]
        examined[:, rank] = examined[:, rank - 1] * (a * after_click[:, rank - 1] + (1 - a) * without_click)
    return examined


def last_click_ranks(clicks):
    """The 0-based rank of each session's last click (-1: no click)."""
    clicked = clicks > 0
    last = clicks.shape[1] - 1 - np.argmax(clicked[:, ::-1], axis=1)
    return np.where(clicked.any(axis=1), last, -1)
