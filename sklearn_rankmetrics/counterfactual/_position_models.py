"""Click models whose examination depends on the position: the position-based model and the user browsing model.

Both click where a document is examined and attractive, independently; both
are fitted by EM, each iteration one pass of array operations over the
sessions x ranks matrices.
"""

import numpy as np

from ._click_models import EPSILON, ClickModel, previous_click_ranks, run_em


class ExaminationModel(ClickModel):
    """A click is examination times attractiveness; the examination probability is one of a table (attention).

    ``_attention_cells(log)`` says which entry of the flat attention table
    each cell of the log uses.
    """

    rank_parameters = True

    def _fit(self, log, n_docs):
        cells, n_entries = self._attention_cells(log)
        table = CellCounts(log.docs[log.mask], cells[log.mask], log.clicks[log.mask], n_docs, n_entries)
        self.attractiveness_, gamma = fit_examination(self, table)
        self._store_attention(gamma, table.shown_by_entry)

    def _conditional(self, log):
        cells, _ = self._attention_cells(log)
        return self._fitted_attention()[cells] * self._document_values(self.attractiveness_, log)


def fit_examination(model, table):
    """The attractiveness of each document and the attention of each entry of a :class:`CellCounts`, by EM
    (``model``'s max_iter and tol), scaled so that the largest attention is 1."""
    reached = table.shown_by_entry > 0
    n_docs, n_entries = len(table.shown_by_doc), len(table.shown_by_entry)

    def step(alpha, gamma):
        a, g = np.minimum(alpha, 1 - EPSILON)[table.doc], gamma[table.entry]
        seen = g * a
        missed = 1 - seen  # > 0: alpha stays below 1, so a cell's posteriors are never 0/0
        likelihood = table.log_likelihood(seen, missed)
        unclicked = table.unclicked
        attractive = np.bincount(table.doc, weights=unclicked * a * (1 - g) / missed, minlength=n_docs)
        examined = np.bincount(table.entry, weights=unclicked * g * (1 - a) / missed, minlength=n_entries)
        alpha = (table.clicked_by_doc + attractive) / np.maximum(table.shown_by_doc, 1)  # 0: a document not shown
        gamma = np.where(reached, (table.clicked_by_entry + examined) / np.maximum(table.shown_by_entry, 1), gamma)
        return (np.minimum(alpha, 1 - EPSILON), gamma), likelihood

    def scale_free(alpha, gamma):  # only the products are identified: EM may drift along c * gamma, alpha / c
        scale = max(gamma[reached].max(initial=0.0), EPSILON)
        return alpha * scale, np.where(reached, gamma / scale, gamma)

    start = (np.full(n_docs, 0.5), np.full(n_entries, 0.5))
    return scale_free(*run_em(model, step, start, scale_free=scale_free))


class CellCounts:
    """A click log aggregated by (document, attention entry): the sufficient statistics of PBM and UBM.

    Every shown row of a cell has the same posteriors, so EM iterates on the
    cells (at most one per row, far fewer on a real log), not on the rows.
    """

    def __init__(self, docs, entries, clicks, n_docs, n_entries):
        key = docs * n_entries + entries
        if n_docs * n_entries <= 4 * len(key):  # a dense table is cheaper than sorting the keys
            shown = np.bincount(key, minlength=n_docs * n_entries)
            present = np.flatnonzero(shown)
            clicked = np.bincount(key, weights=clicks, minlength=n_docs * n_entries)[present]
            shown = shown[present]
        else:
            present, inverse, shown = np.unique(key, return_inverse=True, return_counts=True)
            clicked = np.bincount(inverse.reshape(-1), weights=clicks, minlength=len(present))
        self.doc, self.entry = present // n_entries, present % n_entries
        self.shown, self.clicked = shown.astype(np.float64), clicked
        self.unclicked = self.shown - clicked
        self.clicked_cells = np.flatnonzero(clicked > 0)
        self.shown_by_doc = np.bincount(self.doc, weights=self.shown, minlength=n_docs)
        self.clicked_by_doc = np.bincount(self.doc, weights=clicked, minlength=n_docs)
        self.shown_by_entry = np.bincount(self.entry, weights=self.shown, minlength=n_entries)
        self.clicked_by_entry = np.bincount(self.entry, weights=clicked, minlength=n_entries)

    def log_likelihood(self, probabilities, missed):
        """The log's log-likelihood when every row of a cell is clicked with the cell's probability (``missed``:
        one minus it); probabilities are kept in [EPSILON, 1 - EPSILON] inside the logarithms."""
        cells = self.clicked_cells  # a minority of the cells: one logarithm over all of them, not two
        clicked = self.clicked[cells] @ np.log(np.clip(probabilities[cells], EPSILON, 1 - EPSILON))
        return float(clicked + self.unclicked @ np.log(np.maximum(missed, EPSILON)))


class PositionBasedModel(ExaminationModel):
    """Position-based click model (PBM): a click needs an examination, which depends on the rank alone.

    :math:`P(C_r = 1) = \\gamma_r \\, \\alpha_{qd}`: the user examines rank
    :math:`r` with probability :math:`\\gamma_r` (the attention, the
    propensity of IPS) and clicks an examined document with probability
    :math:`\\alpha_{qd}` (its attractiveness), independently of everything
    else on the page.

    Parameters
    ----------
    attention : array-like of shape (n_ranks,), default=None
        :math:`\\gamma_r` of ranks 1, 2, ..., for :meth:`simulate` before
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
    attention_ : ndarray of shape (n_ranks,)
        Fitted examination probability of each rank, scaled so that the
        largest is 1 (only the products with the attractiveness are
        identified).
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
    UserBrowsingModel : Examination that also depends on the last click.
    estimate_position_propensity : The attention as IPS propensities.

    Notes
    -----
    Fitted by EM (Chuklin et al. 2015, section 4.1): the posteriors of
    examination and attractiveness of every unclicked cell,
    :math:`\\gamma(1-\\alpha)/(1-\\gamma\\alpha)` and
    :math:`\\alpha(1-\\gamma)/(1-\\gamma\\alpha)` (1 for a clicked one), are
    averaged over each rank and each document; both start at 0.5.
    Only the products :math:`\\gamma_r \\alpha_{qd}` are identified: any
    :math:`c\\gamma_r, \\alpha_{qd}/c` explain the clicks as well, so
    compare attention relative to the first rank. Documents must appear at
    several ranks (a randomised or varied logging ranker) to tell the
    attention apart from the attractiveness.

    References
    ----------
    .. [1] A. Chuklin, I. Markov and M. de Rijke, "Click Models for Web
       Search", Morgan & Claypool, 2015.
    .. [2] N. Craswell, O. Zoeter, M. Taylor and B. Ramsey, "An
       Experimental Comparison of Click Position-Bias Models", WSDM 2008.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics.counterfactual import PositionBasedModel
    >>> rng = np.random.default_rng(0)
    >>> qid = np.repeat(np.arange(5000), 3)
    >>> docs = np.concatenate([rng.permutation(3) for _ in range(5000)])
    >>> truth = PositionBasedModel(attention=[1.0, 0.6, 0.3])
    >>> clicks = truth.simulate(np.array([0.9, 0.5, 0.2])[docs], -np.tile([1, 2, 3], 5000), qid=qid, random_state=0)
    >>> model = PositionBasedModel().fit(clicks, qid=qid, doc_id=docs)
    >>> print(np.round(model.attention_ / model.attention_[0], 1))
    [1.  0.6 0.3]
    """

    def __init__(self, *, attention=None, max_iter=200, tol=1e-6):
        self.attention = attention
        self.max_iter = max_iter
        self.tol = tol

    def _attention_cells(self, log):
        return np.broadcast_to(np.arange(log.n_ranks), log.mask.shape), log.n_ranks

    def _store_attention(self, gamma, reached):
        self.attention_ = gamma

    def _fitted_attention(self):
        return self.attention_

    def _marginal(self, log):
        return self._conditional(log)

    def _simulate(self, log, alpha, rng, extra):
        attention = self._by_rank(self._parameter("attention_", "attention", "attention"), log.n_ranks, "attention")
        return rng.random(alpha.shape) < attention * alpha


class UserBrowsingModel(ExaminationModel):
    """User browsing model (UBM): examination depends on the rank and on the rank of the last click above it.

    :math:`P(C_r = 1) = \\gamma_{r r'} \\, \\alpha_{qd}` with :math:`r'` the
    rank of the last click above :math:`r` (0 where there is none).

    Parameters
    ----------
    attention : array-like of shape (n_ranks, n_ranks), default=None
        :math:`\\gamma_{r r'}` at row :math:`r-1`, column :math:`r'` (entries
        with :math:`r' \\geq r` are not used), for :meth:`simulate` before
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
    attention_ : ndarray of shape (n_ranks, n_ranks)
        Fitted :math:`\\gamma_{r r'}`, scaled so that the largest is 1; nan
        where :math:`r' \\geq r` or no session of the log reached the pair.
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
    PositionBasedModel : Examination by rank alone.

    Notes
    -----
    Fitted by EM as :class:`PositionBasedModel`, each cell's examination
    posterior averaged over its :math:`(r, r')` pair. The same scale caveat
    holds: only the products :math:`\\gamma_{rr'}\\alpha_{qd}` are identified.

    References
    ----------
    .. [1] G. Dupret and B. Piwowarski, "A User Browsing Model to Predict
       Search Engine Click Data from Past Observations", SIGIR 2008.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics.counterfactual import UserBrowsingModel
    >>> attention = np.array([[1.0, 0, 0], [0.5, 0.8, 0], [0.3, 0.4, 0.7]])
    >>> qid = np.repeat(np.arange(3000), 3)
    >>> rng = np.random.default_rng(0)
    >>> docs = np.concatenate([rng.permutation(3) for _ in range(3000)])
    >>> clicks = UserBrowsingModel(attention=attention).simulate(
    ...     np.array([0.9, 0.5, 0.2])[docs], -np.tile([1, 2, 3], 3000), qid=qid, random_state=0)
    >>> model = UserBrowsingModel().fit(clicks, qid=qid, doc_id=docs)
    >>> print(round(model.log_likelihood(clicks, qid=qid, doc_id=docs) / 3000, 2))
    -1.59
    """

    def __init__(self, *, attention=None, max_iter=200, tol=1e-6):
        self.attention = attention
        self.max_iter = max_iter
        self.tol = tol

    def _attention_cells(self, log):
        ranks = np.arange(log.n_ranks)  # the fitted table's rows are n_ranks_ long, whatever this log's length
        return ranks * self.n_ranks_ + previous_click_ranks(log.clicks), self.n_ranks_**2

    def _store_attention(self, gamma, reached):
        self.attention_ = np.where(reached > 0, gamma, np.nan).reshape(self.n_ranks_, self.n_ranks_)

    def _fitted_attention(self):
        return np.nan_to_num(self.attention_, nan=0.5).reshape(-1)

    def _marginal(self, log):
        attention = self._fitted_attention().reshape(self.n_ranks_, self.n_ranks_)
        alpha = self._document_values(self.attractiveness_, log)
        return browse(alpha, attention[: log.n_ranks, : log.n_ranks])[1]

    def _simulate(self, log, alpha, rng, extra):
        attention = self._parameter("attention_", "attention", "attention")
        if attention.ndim != 2 or min(attention.shape) < log.n_ranks:
            raise ValueError(
                f"attention must be an (n_ranks, n_ranks) matrix covering the sessions' {log.n_ranks} ranks; got "
                f"shape {attention.shape}."
            )
        return browse(alpha, np.nan_to_num(attention[: log.n_ranks, : log.n_ranks]), rng)[0]


def browse(alpha, attention, rng=None):
    """Rank by rank under the UBM: simulated clicks (with ``rng``) and the probability of a click at each cell.

    The probabilities are marginal: over the distribution of the last click
    above (its rank, 0 for none), carried down the ranks for every session.
    """
    n_sessions, n_ranks = alpha.shape
    last = np.zeros((n_sessions, n_ranks + 1))
    last[:, 0] = 1.0
    probabilities = np.zeros_like(alpha)
    clicks = np.zeros_like(alpha)
    previous = np.zeros(n_sessions, dtype=np.int64)
    for rank in range(n_ranks):
        click = attention[rank, : rank + 1] * alpha[:, rank, None] * last[:, : rank + 1]
        probabilities[:, rank] = click.sum(axis=1)
        last[:, : rank + 1] -= click
        last[:, rank + 1] = probabilities[:, rank]
        if rng is not None:
            clicked = rng.random(n_sessions) < attention[rank, previous] * alpha[:, rank]
            clicks[:, rank] = clicked
            previous = np.where(clicked, rank + 1, previous)
    return clicks, probabilities
