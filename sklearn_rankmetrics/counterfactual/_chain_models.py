"""Cascade click models: the user examines from the top and stops: cascade, DCM, simplified DBN and CCM.

Each is a :class:`~._click_models.ChainModel`: after rank r the user goes on
with a probability that depends on whether r was clicked. The cascade model,
the others are fitted by EM on one shared E-step (:class:`ChainPosteriors`).
"""

import numpy as np

from ._click_models import ChainModel, last_click_ranks, ratio_of_counts
from ._log import check_probabilities


def examined_by_clicks(log, until):
    """The cells up to ``until`` (0-based rank per session, -1: none) in each session, or the whole session
    where ``until`` is -1: the cells that a cascade of examinations surely reached."""
    ranks = np.arange(log.n_ranks)
    return log.mask & ((ranks <= until[:, None]) | (until[:, None] < 0))


def attractiveness_counts(log, examined, n_docs):
    """Clicks over examinations of each document (0.5 where a document was never examined)."""
    docs = log.docs[examined]
    clicks = np.bincount(docs, weights=log.clicks[examined], minlength=n_docs)
    return ratio_of_counts(clicks, np.bincount(docs, minlength=n_docs))


class CascadeModel(ChainModel):
    """Cascade model (CM): the user examines from the top, clicks an attractive document, and stops there.

    :math:`P(C_r = 1) = \\alpha_r \\prod_{i < r} (1 - \\alpha_i)`.

    Attributes
    ----------
    attractiveness_ : ndarray of shape (n_docs,)
        Fitted click probability of each examined document of ``doc_ids_``.
    doc_ids_ : ndarray of shape (n_docs,)
        The distinct document ids seen in fit, sorted.
    n_ranks_ : int
        The longest session seen in fit.

    See Also
    --------
    DependentClickModel : Cascades that go on after a click.

    Notes
    -----
    The maximum-likelihood estimate is closed form: each document's clicks
    over its examinations, the ranks down to a session's first click (all
    of them in a session without one). The model allows one click per
    session: ranks below the first click are taken as not examined in
    :meth:`fit`, and a click there has probability 0 (a log-probability of
    :math:`\\log 10^{-12}` in :meth:`log_likelihood`).

    References
    ----------
    .. [1] N. Craswell, O. Zoeter, M. Taylor and B. Ramsey, "An
       Experimental Comparison of Click Position-Bias Models", WSDM 2008.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics.counterfactual import CascadeModel
    >>> clicks = [0, 1, 0, 1, 0, 0]
    >>> qid = [1, 1, 1, 2, 2, 2]
    >>> docs = ["a", "b", "c", "b", "a", "c"]
    >>> model = CascadeModel().fit(clicks, qid=qid, doc_id=docs)
    >>> print(model.attractiveness_)
    [0.  1.  0.5]
    """

    def _fit(self, log, n_docs):
        examined = examined_by_clicks(log, np.where(log.clicks.any(axis=1), np.argmax(log.clicks > 0, axis=1), -1))
        self.attractiveness_ = attractiveness_counts(log, examined, n_docs)

    def _continuation(self, log, alpha):
        return np.zeros_like(alpha), 1.0


class DependentClickModel(ChainModel):
    """Dependent click model (DCM): a cascade that goes on after a click with a probability set by its rank.

    The user examines from the top, clicks an examined document with
    probability :math:`\\alpha_{qd}`, goes on after a click at rank :math:`r`
    with probability :math:`\\lambda_r` and always after no click.

    Parameters
    ----------
    continuation : array-like of shape (n_ranks,), default=None
        :math:`\\lambda_r` of ranks 1, 2, ..., for :meth:`simulate` before
        (or instead of) :meth:`fit`.
    max_iter : int, default=200
        Most EM iterations.
    tol : float, default=1e-6
        EM stops once no parameter moves by more than ``tol``.

    Attributes
    ----------
    continuation_ : ndarray of shape (n_ranks,)
        Fitted :math:`\\lambda_r` (0.5 at a rank never clicked).
    attractiveness_ : ndarray of shape (n_docs,)
        Fitted attractiveness of each document of ``doc_ids_``.
    doc_ids_ : ndarray of shape (n_docs,)
        The distinct document ids seen in fit, sorted.
    n_ranks_ : int
        The longest session seen in fit.
    n_iter_ : int
        EM iterations run.

    See Also
    --------
    CascadeModel : Stops at the first click.
    DynamicBayesianNetwork : Continuation set by the clicked document.

    Notes
    -----
    Fitted by EM (exact maximum likelihood, where Guo et al.'s closed form
    takes every rank below the last click as unexamined and so
    underestimates :math:`\\lambda_r`): the ranks down to the last click
    were examined; below it the examination posterior comes from a forward
    and a backward pass, and whether the user went on after the last click
    is a posterior too. :math:`\\lambda` of a session's last rank is not
    observable (0.5 where no click ever had a rank below it).

    References
    ----------
    .. [1] F. Guo, C. Liu and Y. M. Wang, "Efficient Multiple-Click Models
       in Web Search", WSDM 2009.

    Examples
    --------
    >>> from sklearn_rankmetrics.counterfactual import DependentClickModel
    >>> model = DependentClickModel().fit([1, 1, 0, 1, 0, 0], qid=[1, 1, 1, 2, 2, 2], doc_id=[1, 2, 3, 1, 2, 3])
    >>> print(model.continuation_.round(2))
    [0.6  0.33 0.5 ]
    """

    def __init__(self, *, continuation=None, max_iter=200, tol=1e-6):
        self.continuation = continuation
        self.max_iter = max_iter
        self.tol = tol

    def _fit(self, log, n_docs):
        ranks = np.broadcast_to(np.arange(log.n_ranks), log.mask.shape)

        def step(alpha, continuation):
            a = np.where(log.mask, alpha[log.docs], 0.0)
            found = ChainPosteriors(log, a, continuation[ranks], 1.0)
            cells = found.click_cells
            went_on = np.bincount(ranks[cells], weights=found.on[cells], minlength=log.n_ranks)
            continuation = ratio_of_counts(went_on, np.bincount(ranks[cells], minlength=log.n_ranks))
            return chain_alpha(log, found, n_docs), continuation

        start = (np.full(n_docs, 0.5), np.full(log.n_ranks, 0.5))
        self.attractiveness_, self.continuation_ = run_em(self, step, start)

    def _continuation(self, log, alpha):
        continuation = self._parameter("continuation_", "continuation", "continuation")
        continuation = self._by_rank(continuation, log.n_ranks, "continuation")
        return np.broadcast_to(continuation, alpha.shape), 1.0


class DynamicBayesianNetwork(ChainModel):
    """Simplified dynamic Bayesian network (SDBN): a cascade that stops once the user is satisfied.

    The user examines from the top, clicks an examined document with
    probability :math:`\\alpha_{qd}` (its attractiveness), is satisfied by a
    clicked document with probability :math:`\\sigma_{qd}` and stops, and
    otherwise goes on (the perseverance :math:`\\gamma` of the full DBN is 1).

    Parameters
    ----------
    max_iter : int, default=200
        Most EM iterations.
    tol : float, default=1e-6
        EM stops once no parameter moves by more than ``tol``.

    Attributes
    ----------
    attractiveness_ : ndarray of shape (n_docs,)
        Fitted attractiveness of each document of ``doc_ids_``.
    satisfaction_ : ndarray of shape (n_docs,)
        Fitted satisfaction :math:`\\sigma_{qd}` (0.5 for a document never
        clicked).
    doc_ids_ : ndarray of shape (n_docs,)
        The distinct document ids seen in fit, sorted.
    n_ranks_ : int
        The longest session seen in fit.
    n_iter_ : int
        EM iterations run.

    See Also
    --------
    ClickChainModel : Continuation after no click too.

    Notes
    -----
    Fitted by EM on the exact likelihood. The common closed form (each
    document's clicks over the ranks down to the last click, its
    satisfaction the share of its clicks that were a session's last;
    Chuklin et al. 2015, section 4.1) takes the ranks below the last click
    as unexamined, which holds only for a satisfied user: an unsatisfied one
    goes on to the end without clicking. Here that tail's examination and
    the satisfaction at the last click are posteriors, as in
    :class:`ClickChainModel`.

    References
    ----------
    .. [1] O. Chapelle and Y. Zhang, "A Dynamic Bayesian Network Click
       Model for Web Search Ranking", WWW 2009.

    Examples
    --------
    >>> from sklearn_rankmetrics.counterfactual import DynamicBayesianNetwork
    >>> model = DynamicBayesianNetwork().fit([1, 1, 0, 1, 0, 0], qid=[1, 1, 1, 2, 2, 2], doc_id=[1, 2, 3, 1, 2, 3])
    >>> print(model.satisfaction_.round(2))
    [0.4  0.67 0.5 ]
    """

    def __init__(self, *, max_iter=200, tol=1e-6):
        self.max_iter = max_iter
        self.tol = tol

    def _fit(self, log, n_docs):
        def step(alpha, satisfaction):
            a = np.where(log.mask, alpha[log.docs], 0.0)
            found = ChainPosteriors(log, a, 1 - np.where(log.mask, satisfaction[log.docs], 0.0), 1.0)
            docs = log.docs[found.click_cells]
            stopped = np.bincount(docs, weights=1 - found.on[found.click_cells], minlength=n_docs)
            return chain_alpha(log, found, n_docs), ratio_of_counts(stopped, np.bincount(docs, minlength=n_docs))

        self.attractiveness_, self.satisfaction_ = run_em(self, step, (np.full(n_docs, 0.5), np.full(n_docs, 0.5)))

    def _continuation(self, log, alpha):
        satisfaction = getattr(log, "satisfaction", None)
        if satisfaction is None:
            satisfaction = self._document_values(self.satisfaction_, log)
        return 1 - satisfaction, 1.0

    def simulate(self, attractiveness, y_score, *, qid, satisfaction=None, random_state=None):
        """Simulate the clicks of users who follow the model on the ranking of ``y_score`` in each session.

        Parameters
        ----------
        attractiveness : array-like of shape (n_rows,)
            Probability of a click on an examined document, in [0, 1].
        y_score : array-like of shape (n_rows,)
            Scores of the ranker: each session shows its rows by decreasing
            score (ties in input order).
        qid : array-like of shape (n_rows,)
            The session of each row.
        satisfaction : array-like of shape (n_rows,), default=None
            Probability that a click on the document satisfies the user, in
            [0, 1]; None: the attractiveness.
        random_state : int, RandomState instance, numpy Generator or None, default=None
            Seeds the clicks.

        Returns
        -------
        clicks : ndarray of shape (n_rows,)
            1 where the simulated user clicked, else 0, aligned with the rows.
        """
        satisfaction = attractiveness if satisfaction is None else satisfaction
        n_rows = len(satisfaction)
        satisfaction = check_probabilities(satisfaction, "satisfaction", n_rows, zero=True)
        self._satisfaction_rows = satisfaction
        try:
            return super().simulate(attractiveness, y_score, qid=qid, random_state=random_state)
        finally:
            del self._satisfaction_rows

    def _simulate(self, log, alpha, rng, sessions):
        log.satisfaction = sessions.matrix(self._satisfaction_rows) * log.mask
        return super()._simulate(log, alpha, rng, sessions)


class ClickChainModel(ChainModel):
    """Click chain model (CCM): a cascade that goes on after no click, or after a click according to relevance.

    The user examines from the top and clicks an examined document with
    probability :math:`\\alpha_{qd}`; without a click, goes on with
    probability :math:`\\tau_1`; after a click, with probability
    :math:`\\tau_2 (1 - \\alpha_{qd}) + \\tau_3 \\alpha_{qd}`.

    Parameters
    ----------
    tau : array-like of shape (3,), default=None
        :math:`(\\tau_1, \\tau_2, \\tau_3)`, for :meth:`simulate` before (or
        instead of) :meth:`fit`.
    max_iter : int, default=200
        Most EM iterations.
    tol : float, default=1e-6
        EM stops once no parameter moves by more than ``tol``.

    Attributes
    ----------
    tau_ : ndarray of shape (3,)
        Fitted :math:`(\\tau_1, \\tau_2, \\tau_3)`.
    attractiveness_ : ndarray of shape (n_docs,)
        Fitted attractiveness of each document of ``doc_ids_``.
    doc_ids_ : ndarray of shape (n_docs,)
        The distinct document ids seen in fit, sorted.
    n_ranks_ : int
        The longest session seen in fit.
    n_iter_ : int
        EM iterations run.

    See Also
    --------
    DependentClickModel : Continuation after a click by rank.

    Notes
    -----
    Fitted by EM. The ranks down to a session's last click were examined;
    below it, the posterior of examination comes from a forward pass (the
    chance to reach each rank without a click) and a backward one (the
    chance of no click from each rank on). The continuation after a click
    is written as a mixture, :math:`\\tau_3` with probability
    :math:`\\alpha_{qd}` and :math:`\\tau_2` otherwise, whose latent
    component makes every M-step closed form; its likelihood is CCM's. The
    continuation after a session's last rank is not observed and not used.

    References
    ----------
    .. [1] F. Guo, C. Liu, A. Kannan, T. Minka, M. Taylor, Y.-M. Wang and
       C. Faloutsos, "Click Chain Model in Web Search", WWW 2009.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics.counterfactual import ClickChainModel
    >>> rng = np.random.default_rng(0)
    >>> qid = np.repeat(np.arange(5000), 4)
    >>> docs = np.concatenate([rng.permutation(4) for _ in range(5000)])
    >>> alpha = np.array([0.8, 0.6, 0.3, 0.1])[docs]
    >>> clicks = ClickChainModel(tau=[0.7, 0.5, 0.2]).simulate(alpha, -np.tile([1, 2, 3, 4], 5000), qid=qid,
    ...                                                 random_state=0)
    >>> print(np.round(ClickChainModel().fit(clicks, qid=qid, doc_id=docs).tau_, 1))
    [0.7 0.5 0.2]
    """

    def __init__(self, *, tau=None, max_iter=200, tol=1e-6):
        self.tau = tau
        self.max_iter = max_iter
        self.tol = tol

    def _continuation(self, log, alpha):
        tau = self._parameter("tau_", "tau", "tau")
        if tau.shape != (3,):
            raise ValueError(f"tau must hold three probabilities (tau_1, tau_2, tau_3); got shape {tau.shape}.")
        return tau[1] * (1 - alpha) + tau[2] * alpha, tau[0]

    def _fit(self, log, n_docs):
        step = lambda alpha, tau: ccm_step(log, alpha, tau, n_docs)  # noqa: E731
        self.attractiveness_, self.tau_ = run_em(self, step, (np.full(n_docs, 0.5), np.array([0.5, 0.4, 0.6])))


class ChainPosteriors:
    """What one E-step of a chain model learns from a log (sessions x ranks), given each cell's attractiveness
    ``a``, its continuation after a click ``after_click`` and the continuation without one ``without_click``.

    The ranks down to a session's last click were examined; below it, the
    posterior of examination comes from a forward pass (the chance to reach
    each rank with no click between) and a backward one (the chance of no
    click from each rank on, given it is examined). Continuations after a
    session's last rank are not observed and not counted.

    Attributes
    ----------
    examined : the posterior probability that each cell was examined.
    went_on, stopped : the expected numbers of continuations and stops after an examined, unclicked rank.
    click_cells : the clicked cells whose continuation is observable (not a session's last rank).
    on : at each of them, the posterior probability that the user went on.
    """

    def __init__(self, log, a, after_click, without_click):
        mask, clicks = log.mask, log.clicks
        n_sessions, n_ranks = mask.shape
        last = last_click_ranks(clicks)
        ranks, rows = np.arange(n_ranks), np.arange(n_sessions)
        sizes = mask.sum(axis=1)
        tail = mask & (ranks > last[:, None])
        no_click_on = np.ones((n_sessions, n_ranks + 1))
        for rank in range(n_ranks - 1, -1, -1):
            no_click_on[:, rank] = (1 - a[:, rank]) * (1 - without_click + without_click * no_click_on[:, rank + 1])
        clicked_last = last >= 0
        start = np.where(clicked_last, after_click[rows, np.maximum(last, 0)], 1.0)
        reach = np.zeros((n_sessions, n_ranks))
        carry = start
        for rank in range(n_ranks):
            reach[:, rank] = np.where(rank > last, np.where(rank == last + 1, start, carry), 0.0)
            carry = reach[:, rank] * (1 - a[:, rank]) * without_click
        after_last = no_click_on[rows, np.minimum(last + 1, n_ranks)]
        chance = np.where(clicked_last, 1 - start + start * after_last, no_click_on[:, 0])[:, None]
        chance = np.maximum(chance, 1e-300)  # the chance of the observed tail: no click below the last click
        self.examined = np.where(tail, reach * no_click_on[:, :-1] / chance, mask * 1.0)
        inner = ranks < sizes[:, None] - 1
        below = tail & inner
        unclicked_on = reach * (1 - a) * without_click
        self.went_on = (mask & (ranks < last[:, None]) & (clicks == 0)).sum()
        self.went_on += (below * unclicked_on * no_click_on[:, 1:] / chance).sum()
        self.stopped = (below * reach * (1 - a) * (1 - without_click) / chance).sum()
        self.click_cells = mask & (clicks > 0) & inner
        on = np.where(ranks < last[:, None], 1.0, 0.0)
        at_last = clicked_last & (last < sizes - 1)
        on[rows[at_last], last[at_last]] = (start * after_last / chance[:, 0])[at_last]
        self.on = on


def chain_alpha(log, posteriors, n_docs, extra_clicks=0.0, extra_shown=0.0):
    """The attractiveness M-step: expected clicks over expected examinations of each document."""
    cells = log.docs[log.mask]
    numerator = np.bincount(cells, weights=log.clicks[log.mask], minlength=n_docs) + extra_clicks
    denominator = np.bincount(cells, weights=posteriors.examined[log.mask], minlength=n_docs) + extra_shown
    return np.clip(ratio_of_counts(numerator, denominator), 0.0, 1.0)


def run_em(model, step, parameters):
    """EM: ``step(parameters)`` until no parameter moves by more than ``model.tol`` or ``model.max_iter`` steps."""
    model._check_iterations()
    for iteration in range(model.max_iter):  # noqa: B007 (n_iter_ reads it after the loop)
        updated = step(*parameters)
        change = max(np.abs(new - old).max() for new, old in zip(updated, parameters, strict=True))
        parameters = updated
        if change < model.tol:
            break
    model.n_iter_ = iteration + 1
    return parameters


def ccm_step(log, alpha, tau, n_docs):
    """One EM iteration of the click chain model: the new attractiveness and (tau_1, tau_2, tau_3)."""
    a = np.where(log.mask, alpha[log.docs], 0.0)
    found = ChainPosteriors(log, a, tau[1] * (1 - a) + tau[2] * a, tau[0])
    cells, on = found.click_cells, found.on
    # The mixture's latent relevance of each click, given whether the user went on.
    relevant_on = a * tau[2] / np.maximum(a * tau[2] + (1 - a) * tau[1], 1e-300)
    relevant_off = a * (1 - tau[2]) / np.maximum(a * (1 - tau[2]) + (1 - a) * (1 - tau[1]), 1e-300)
    relevant = on * relevant_on + (1 - on) * relevant_off
    tau_2 = ratio_of_counts(((1 - relevant_on) * on)[cells].sum(), (1 - relevant)[cells].sum())
    tau_3 = ratio_of_counts((relevant_on * on)[cells].sum(), relevant[cells].sum())
    tau_1 = ratio_of_counts(found.went_on, found.went_on + found.stopped)
    extra = np.bincount(log.docs[cells], weights=relevant[cells], minlength=n_docs)
    new_alpha = chain_alpha(log, found, n_docs, extra, np.bincount(log.docs[cells], minlength=n_docs))
    return new_alpha, np.clip(np.array([tau_1, tau_2, tau_3], dtype=np.float64), 0.0, 1.0)
