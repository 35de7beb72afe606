"""EM for the chain click models (DCM, simplified DBN, CCM): what a log fixes, laid out once, and one E-step.

In a cascade, every rank down to a session's last click was examined, and the
user went on after each rank above it: those cells are known, and are counted
once (:class:`ChainLayout`). Only what follows the last click is hidden
(whether the user went on after it, and how far), so each EM step works on
those tails alone, left-aligned in a (sessions with a tail, longest tail)
matrix and walked rank by rank (:func:`tail_posteriors`); every M-step is then
counts and ratios.
"""

import numpy as np

from ._click_models import EPSILON, last_click_ranks, ratio_of_counts


class ChainLayout:
    """The known part of a click log under every cascade model, and its hidden tails.

    Attributes
    ----------
    clicks_by_doc, head_by_doc : the clicks on each document, and its examinations down to the last clicks.
    unclicked_head : the documents of the unclicked cells above a session's last click (the user went on).
    on_doc, on_rank : the document and rank of each click above a session's last click (the user went on).
    tail_doc, tail_mask : the cells after each tail session's last click (the whole session if it has none),
        left-aligned, rank-major (longest tail, tails): each rank's cells are contiguous for the E-step's
        walks; a tail session is one whose last click (if any) is not at its last rank.
    inner : 1.0 at the tail cells with a rank after them (a continuation to count), else 0.0.
    cell_doc : the document of each cell of ``tail_mask``, in its order.
    after_click : whether the tail follows a click; last_doc, last_rank : that click's document and rank.
    """

    def __init__(self, log, n_docs):
        mask, clicked, docs = log.mask, log.clicks > 0, log.docs
        ranks = np.arange(log.n_ranks)
        last = last_click_ranks(log.clicks)
        sizes = mask.sum(axis=1)
        head = mask & (ranks <= last[:, None])
        self.clicks_by_doc = np.bincount(docs[clicked & mask], minlength=n_docs).astype(np.float64)
        self.head_by_doc = np.bincount(docs[head], minlength=n_docs).astype(np.float64)
        self.unclicked_head = docs[head & ~clicked]
        above = clicked & (ranks < last[:, None])
        self.on_doc, self.on_rank = docs[above], np.nonzero(above)[1]
        tails = np.flatnonzero(last < sizes - 1)
        lengths = sizes[tails] - 1 - last[tails]
        width = int(lengths.max(initial=0))
        columns = last[tails, None] + 1 + np.arange(width)
        self.tail_mask = np.ascontiguousarray((np.arange(width) < lengths[:, None]).T)
        self.tail_doc = np.ascontiguousarray(docs[tails[:, None], np.minimum(columns, log.n_ranks - 1)].T)
        self.inner = (np.arange(width)[:, None] < lengths - 1).astype(np.float64)
        self.cell_doc = self.tail_doc[self.tail_mask]
        self.after_click = last[tails] >= 0
        self.last_rank = np.maximum(last[tails], 0)[self.after_click]
        self.last_doc = docs[tails, np.maximum(last[tails], 0)][self.after_click]


class TailPosteriors:
    """One E-step over the tails, given each document's attractiveness, the continuation after each tail's
    last click (``after_last``, one per tail that follows a click) and the continuation without a click.

    Walking a tail backwards gives the chance of no click from each of its
    cells on (given it is examined); forwards, the chance to reach each cell
    with no click between. Their product over the chance of the whole tail
    is the posterior that the cell was examined.

    Attributes
    ----------
    examined : the expected examinations of each document in the tails.
    on_last : for each tail that follows a click, the posterior that the user went on after it.
    went_on, stopped : expected continuations and stops after the unclicked, not final, tail cells.
    log_chance : the log-probability of the tails (no click in any), summed.
    """

    def __init__(self, layout, alpha, after_last, without_click, n_docs):
        a = alpha[layout.tail_doc] * layout.tail_mask  # 0 past a tail's end: no click, the chance stays 1
        width, n_tails = a.shape
        missed = 1 - a
        no_click_on = np.ones((width + 1, n_tails))
        for rank in range(width - 1, -1, -1):
            no_click_on[rank] = missed[rank] * (1 - without_click + without_click * no_click_on[rank + 1])
        start = np.ones(n_tails)
        start[layout.after_click] = after_last
        chance = np.maximum(1 - start + start * no_click_on[0], 1e-300)
        reach = np.empty((width, n_tails))  # the chance to reach each cell, over the chance of the tail
        reach[0] = start / chance
        for rank in range(1, width):
            reach[rank] = reach[rank - 1] * missed[rank - 1] * without_click
        examined = (reach * no_click_on[:-1])[layout.tail_mask]
        self.examined = np.bincount(layout.cell_doc, weights=examined, minlength=n_docs)
        self.on_last = (start * no_click_on[0] / chance)[layout.after_click]
        unclicked = reach * missed * layout.inner
        self.went_on = float((unclicked * no_click_on[1:]).sum() * without_click)
        self.stopped = float(unclicked.sum() * (1 - without_click))
        self.log_chance = float(np.log(chance).sum())


def clipped(values):
    """Probabilities kept off 0 and 1, so that every posterior and logarithm is finite."""
    return np.clip(values, EPSILON, 1 - EPSILON)


def cascade_step(layout, alpha, after_above, after_last, without_click, n_docs):
    """The shared part of an EM step: the tails' posteriors, the new attractiveness, and the log-likelihood of
    the known cells (clicks, unclicked examinations, continuations ``after_above`` after the clicks above the
    last, and the continuation without a click after the unclicked cells above it) and of the tails."""
    found = TailPosteriors(layout, alpha, after_last, without_click, n_docs)
    likelihood = (
        layout.clicks_by_doc @ np.log(alpha)
        + np.log1p(-alpha[layout.unclicked_head]).sum()
        + np.log(after_above).sum()
        + len(layout.unclicked_head) * np.log(without_click)
        + found.log_chance
    )
    return found, ratio_of_counts(layout.clicks_by_doc, layout.head_by_doc + found.examined), float(likelihood)


def dcm_step(layout, alpha, continuation, n_docs, n_ranks):
    """One EM step of the dependent click model: the new attractiveness and continuation by rank."""
    alpha, continuation = clipped(alpha), clipped(continuation)
    after = continuation[layout.on_rank]
    found, alpha, likelihood = cascade_step(layout, alpha, after, continuation[layout.last_rank], 1.0, n_docs)
    went_on = np.bincount(layout.on_rank, minlength=n_ranks) + np.bincount(
        layout.last_rank, weights=found.on_last, minlength=n_ranks
    )
    clicks = np.bincount(layout.on_rank, minlength=n_ranks) + np.bincount(layout.last_rank, minlength=n_ranks)
    return (alpha, ratio_of_counts(went_on, clicks)), likelihood


def dbn_step(layout, alpha, satisfaction, n_docs):
    """One EM step of the simplified DBN: the new attractiveness and satisfaction of each document."""
    alpha, satisfaction = clipped(alpha), clipped(satisfaction)
    after = 1 - satisfaction[layout.on_doc]
    found, alpha, likelihood = cascade_step(layout, alpha, after, 1 - satisfaction[layout.last_doc], 1.0, n_docs)
    stopped = np.bincount(layout.last_doc, weights=1 - found.on_last, minlength=n_docs)
    clicks = np.bincount(layout.on_doc, minlength=n_docs) + np.bincount(layout.last_doc, minlength=n_docs)
    return (alpha, ratio_of_counts(stopped, clicks)), likelihood


def ccm_step(layout, alpha, tau, n_docs):
    """One EM step of the click chain model: the new attractiveness and (tau_1, tau_2, tau_3).

    The continuation after a click is a mixture, tau_3 with probability
    alpha (the click was relevant) and tau_2 otherwise; the posterior of
    that latent relevance, given whether the user went on, makes every
    M-step closed form.
    """
    alpha, tau = clipped(alpha), clipped(tau)

    def after(docs):
        return tau[1] * (1 - alpha[docs]) + tau[2] * alpha[docs]

    found, _, likelihood = cascade_step(layout, alpha, after(layout.on_doc), after(layout.last_doc), tau[0], n_docs)
    docs = np.concatenate([layout.on_doc, layout.last_doc])
    on = np.concatenate([np.ones(len(layout.on_doc)), found.on_last])
    a = alpha[docs]
    relevant_on = a * tau[2] / (a * tau[2] + (1 - a) * tau[1])
    relevant_off = a * (1 - tau[2]) / (a * (1 - tau[2]) + (1 - a) * (1 - tau[1]))
    relevant = on * relevant_on + (1 - on) * relevant_off
    went_on = len(layout.unclicked_head) + found.went_on
    tau = np.array(
        [
            ratio_of_counts(went_on, went_on + found.stopped),
            ratio_of_counts(((1 - relevant_on) * on).sum(), (1 - relevant).sum()),
            ratio_of_counts((relevant_on * on).sum(), relevant.sum()),
        ],
        dtype=np.float64,
    )
    # Each relevance posterior is one more observation of the document's attractiveness.
    numerator = layout.clicks_by_doc + np.bincount(docs, weights=relevant, minlength=n_docs)
    denominator = layout.head_by_doc + found.examined + np.bincount(docs, minlength=n_docs)
    return (ratio_of_counts(numerator, denominator), tau), likelihood
