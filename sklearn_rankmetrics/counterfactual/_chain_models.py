"""Cascade click models: the user examines from the top and stops: cascade, DCM, simplified DBN and CCM.

Each is a :class:`~._click_models.ChainModel`: after rank r the user goes on
with a probability that depends on whether r was clicked. The cascade model
is fitted in closed form; the others by EM, whose E-step works on the hidden
tails after the sessions' last clicks only (:mod:`._chain_em`).
"""

import numpy as np

from ._chain_em import ChainLayout, ccm_step, dbn_step, dcm_step
from ._click_models import ChainModel, ratio_of_counts, run_em
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

    def _continuation(self, log, alpha, extra=None):
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
        Most EM steps (each an E-step and an M-step on the log's sufficient
        statistics; SQUAREM's extrapolations count as steps). Stopping
        there without converging emits sklearn's ``ConvergenceWarning``.
    tol : float, default=1e-6
        EM stops once an accelerated cycle (or a step) moves no parameter
        by more than ``tol``, or raises the log-likelihood by no more than
        ``tol`` times its magnitude.

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
        EM steps run.

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

    rank_parameters = True

    def __init__(self, *, continuation=None, max_iter=200, tol=1e-6):
        self.continuation = continuation
        self.max_iter = max_iter
        self.tol = tol

    def _fit(self, log, n_docs):
        layout = ChainLayout(log, n_docs)
        start = (np.full(n_docs, 0.5), np.full(log.n_ranks, 0.5))
        step = lambda alpha, continuation: dcm_step(layout, alpha, continuation, n_docs, log.n_ranks)  # noqa: E731
        self.attractiveness_, self.continuation_ = run_em(self, step, start)

    def _continuation(self, log, alpha, extra=None):
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
        Most EM steps (each an E-step and an M-step on the log's sufficient
        statistics; SQUAREM's extrapolations count as steps). Stopping
        there without converging emits sklearn's ``ConvergenceWarning``.
    tol : float, default=1e-6
        EM stops once an accelerated cycle (or a step) moves no parameter
        by more than ``tol``, or raises the log-likelihood by no more than
        ``tol`` times its magnitude.

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
        EM steps run.

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
        layout = ChainLayout(log, n_docs)
        step = lambda alpha, satisfaction: dbn_step(layout, alpha, satisfaction, n_docs)  # noqa: E731
        self.attractiveness_, self.satisfaction_ = run_em(self, step, (np.full(n_docs, 0.5), np.full(n_docs, 0.5)))

    def _continuation(self, log, alpha, extra=None):
        satisfaction = self._document_values(self.satisfaction_, log) if extra is None else extra
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
        if satisfaction is None:  # the attractiveness, checked (and named) as such
            satisfaction = check_probabilities(attractiveness, "attractiveness", len(attractiveness), zero=True)
        return self._simulate_rows(attractiveness, y_score, qid, random_state, satisfaction, "satisfaction")


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
        Most EM steps (each an E-step and an M-step on the log's sufficient
        statistics; SQUAREM's extrapolations count as steps). Stopping
        there without converging emits sklearn's ``ConvergenceWarning``.
    tol : float, default=1e-6
        EM stops once an accelerated cycle (or a step) moves no parameter
        by more than ``tol``, or raises the log-likelihood by no more than
        ``tol`` times its magnitude.

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
        EM steps run.

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
    CCM's likelihood is not concave: EM (from attractiveness 0.5 and
    :math:`\tau = (0.5, 0.4, 0.6)`) can end in a local optimum, so compare
    ``log_likelihood`` across fits before trusting the parameters.

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

    def _continuation(self, log, alpha, extra=None):
        tau = self._parameter("tau_", "tau", "tau")
        if tau.shape != (3,):
            raise ValueError(f"tau must hold three probabilities (tau_1, tau_2, tau_3); got shape {tau.shape}.")
        return tau[1] * (1 - alpha) + tau[2] * alpha, tau[0]

    def _fit(self, log, n_docs):
        layout = ChainLayout(log, n_docs)
        step = lambda alpha, tau: ccm_step(layout, alpha, tau, n_docs)  # noqa: E731
        self.attractiveness_, self.tau_ = run_em(self, step, (np.full(n_docs, 0.5), np.array([0.5, 0.4, 0.6])))
