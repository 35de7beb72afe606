"""Position propensities from clicks: a swap intervention (RandPair) or EM on the position-based model."""

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from .._core._validation import check_integer, check_option
from .._core._warnings import warn
from ._log import check_binary, check_length, check_positions, document_codes, impression_codes
from ._position_models import CellCounts, PositionBasedModel, fit_examination

METHODS = ("em", "swap")


def estimate_position_propensity(
    clicks, *, qid, position, method="em", doc_id=None, swapped_with=None, pivot=1, max_iter=200, tol=1e-6
):
    """Examination probability of each position, relative to the first (position 1 gets 1).

    Parameters
    ----------
    clicks : array-like of shape (n_rows,)
        1 where the shown document was clicked, else 0.
    qid : array-like of shape (n_rows,)
        Impression of each row.
    position : array-like of shape (n_rows,)
        1-based rank at which each row was shown.
    method : {"em", "swap"}, default="em"
        ``"em"``: fit the position-based model by EM (needs ``doc_id``, and
        documents shown at several positions). ``"swap"``: a randomised swap
        intervention (Joachims et al. 2017; RandPair, Wang et al. 2018),
        where each impression showed the ranking with the documents at
        ``pivot`` and at a random position ``k`` swapped (``k = pivot``: no
        swap, the control); needs ``swapped_with``.
    doc_id : array-like of shape (n_rows,), default=None
        The query-document pair of each row, for ``method="em"``.
    swapped_with : array-like of shape (n_rows,), default=None
        For ``method="swap"``: the position ``k`` that the impression's
        ``pivot`` was swapped with (the same on all its rows).
    pivot : int, default=1
        The position swapped with ``k`` in every impression.
    max_iter : int, default=200
        Most EM steps (each an E-step and an M-step on the log's sufficient
        statistics; SQUAREM's extrapolations count as steps). Stopping
        there without converging emits sklearn's ``ConvergenceWarning``.
    tol : float, default=1e-6
        EM stops once an accelerated cycle (or a step) moves no parameter
        by more than ``tol``, or raises the log-likelihood by no more than
        ``tol`` times its magnitude.

    Returns
    -------
    propensity : ndarray of shape (n_positions,)
        Propensity of positions 1, 2, ..., relative to position 1 (nan where
        the data say nothing about a position, with a warning).

    See Also
    --------
    ips_score : Uses them: ``propensity[position - 1]`` per row.
    PositionBasedModel : The model behind both methods.

    Notes
    -----
    Both methods assume the position-based model: a click is examination
    (depending on the position alone) times relevance (not depending on the
    position). Only ratios of propensities are identified, hence the scale
    with position 1 at 1.

    ``"swap"``: the document that the production ranker put at ``pivot``
    has the same relevance, on average over impressions, whatever ``k`` the
    randomisation drew; so its click rate at position ``k`` (in the
    impressions of group ``k``) over its click rate at ``pivot`` (in the
    control group) estimates :math:`p_k / p_{pivot}`. Each position needs
    its own group and the control group needs clicks at ``pivot``; the
    ratios are rescaled so that position 1 gets 1.

    ``"em"``: :class:`PositionBasedModel`'s attention divided by that of
    position 1; it needs each document at several positions.

    References
    ----------
    .. [1] T. Joachims, A. Swaminathan and T. Schnabel, "Unbiased
       Learning-to-Rank with Biased Feedback", WSDM 2017, section 6.
    .. [2] X. Wang, N. Golbandi, M. Bendersky, D. Metzler and M. Najork,
       "Position Bias Estimation for Unbiased Learning to Rank in Personal
       Search", WSDM 2018.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics.counterfactual import PositionBasedModel, estimate_position_propensity
    >>> rng = np.random.default_rng(0)
    >>> qid = np.repeat(np.arange(4000), 3)
    >>> docs = np.concatenate([rng.permutation(3) for _ in range(4000)])
    >>> position = np.tile([1, 2, 3], 4000)
    >>> clicks = PositionBasedModel(attention=[0.9, 0.5, 0.3]).simulate(
    ...     np.array([0.9, 0.5, 0.2])[docs], -position, qid=qid, random_state=0)
    >>> p = estimate_position_propensity(clicks, qid=qid, position=position, doc_id=docs)
    >>> print(p.round(2))
    [1.   0.55 0.34]
    """
    method = check_option("method", method, METHODS)
    clicks = check_binary(clicks, "clicks")
    position = check_positions(position, len(clicks))
    impression_codes(qid, len(clicks))
    if method == "em":
        return em_propensity(clicks, position, doc_id, PositionBasedModel(max_iter=max_iter, tol=tol))
    return swap_propensity(clicks, qid, position, swapped_with, check_integer("pivot", pivot))


def em_propensity(clicks, position, doc_id, model):
    """Relative propensities by EM on the position-based model, from the documents shown at several positions;
    nan (with a warning) for the positions that no clicked such document links to position 1."""
    docs, _ = document_codes(doc_id, len(clicks))
    n_positions = int(position.max())
    n_docs = int(docs.max()) + 1
    cells = CellCounts(docs, position - 1, clicks, n_docs, n_positions).doc  # one per (document, position)
    varied = np.bincount(cells, minlength=n_docs) >= 2
    rows = varied[docs]
    relative = np.full(n_positions, np.nan)
    relative[0] = 1.0
    if rows.any():
        table = CellCounts(docs[rows], position[rows] - 1, clicks[rows], n_docs, n_positions)
        attention = fit_examination(model, table)[1]
        linked = linked_to_first(table, n_docs, n_positions)
        if attention[0] > 0:
            relative = np.where(linked, attention / attention[0], np.nan)
    if np.isnan(relative).any():
        missing = (np.flatnonzero(np.isnan(relative)) + 1).tolist()
        reason = "the log has no click" if not clicks.any() else "no clicked document links them to position 1"
        warn(
            f"the propensity of positions {missing} is not identified ({reason}: a document shown at two positions "
            "and clicked links them, and links chain); it is nan. Log rankings that vary, or use method='swap'.",
            RuntimeWarning,
        )
    return relative


def linked_to_first(table, n_docs, n_positions):
    """Which positions a chain of clicked documents, each shown at two of them, connects to position 1."""
    edges = table.clicked_by_doc[table.doc] > 0
    doc, entry = table.doc[edges], table.entry[edges] + n_docs
    size = n_docs + n_positions
    graph = coo_matrix((np.ones(len(doc)), (doc, entry)), shape=(size, size))
    labels = connected_components(graph, directed=False)[1]
    return labels[n_docs:] == labels[n_docs]


def swap_propensity(clicks, qid, position, swapped_with, pivot):
    """Relative propensities from a swap experiment (see :func:`estimate_position_propensity`)."""
    if swapped_with is None:
        raise TypeError("method='swap' needs swapped_with: the position each impression's pivot was swapped with.")
    group = check_positions(swapped_with, len(clicks), "swapped_with")
    codes = impression_codes(qid, len(clicks))
    check_length(group, "swapped_with", len(clicks))
    _, first, impression = np.unique(codes, return_index=True, return_inverse=True)
    if np.unique(np.stack([codes, group]), axis=1).shape[1] != len(first):
        raise ValueError("swapped_with must be the same on every row of an impression.")
    longest = np.zeros(len(first), dtype=np.int64)
    np.maximum.at(longest, impression, position)
    shown = longest[impression]
    beyond = (group > shown) | (pivot > shown)
    if beyond.any():
        row = int(np.flatnonzero(beyond)[0])
        name, value = ("swapped_with", int(group[row])) if group[row] > shown[row] else ("pivot", pivot)
        raise ValueError(
            f"{name} must be a position of the impression: {name}={value} but the impression of row {row} shows "
            f"{int(shown[row])} positions, so nothing was swapped there."
        )
    n_positions = int(position.max())
    impressions = np.zeros(n_positions + 1)
    np.add.at(impressions, group[first], 1.0)
    # The production ranker's pivot document sits at position k in group k (at the pivot in the control group).
    moved = position == group
    clicked = np.bincount(group[moved], weights=clicks[moved], minlength=n_positions + 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = clicked / impressions
        relative = rate / rate[pivot]
    relative = relative[1:] / relative[1]
    if not np.isfinite(relative).all():
        warn(
            "some positions have no swap group, or the control group (or position 1's group) has no click at the "
            "pivot: their propensity is nan. Log more impressions per group.",
            RuntimeWarning,
        )
        relative = np.where(np.isfinite(relative), relative, np.nan)
    return relative
