"""Did the reproduction retrieve the same documents in the same order? KTU and RBO per query (Breuer et al. 2020).

Both runs are read once and ranked as trec_eval ranks them (descending
score, ties by descending document id), all queries in one sort; the
statistics are then counts over every query at once: Kendall's discordant
pairs by a merge over each query's rows, RBO by a closed form over the
documents both runs retrieved.
"""

import numpy as np

from .._core._numpy_ops import positions_in_segments
from .._core._validation import check_flag, check_integer, check_real
from .._core._warnings import warn
from ..metrics._overlap import depth_sums
from ..metrics._pairs import higher_above_by_merging
from ..trec._io import text
from ..trec._sources import as_run
from ._sources import read_as

# repro_eval's defaults: runs trimmed to 1,000 documents, RBO to depth 1,000 with persistence 0.95.
RUN_LENGTH, RBO_DEPTH, RBO_P = 1000, 1000, 0.95


class RankedRuns:
    """Two runs ranked in trec_eval's order over shared query and document codes.

    Attributes per run (``original`` and ``reproduced``): ``query`` (code of
    each row, rows sorted by query then rank), ``doc`` (document code, codes
    in byte order of the ids), ``rank`` (0-based). ``queries`` are the query
    codes of the reproduced run, ``query_ids`` the ids (str) by code.
    """

    def __init__(self, original, reproduced):
        runs = [read_as(as_run, run, name) for name, run in (("original", original), ("reproduced", reproduced))]
        sizes = [len(run.query_id) for run in runs]
        if not all(sizes):
            empty = ("original", "reproduced")[sizes.index(0)]
            raise ValueError(f"the {empty} run retrieves no document: there is no ordering to compare.")
        query_ids, query = np.unique(np.concatenate([run.query_id.astype(object) for run in runs]), return_inverse=True)
        doc = np.unique(np.concatenate([run.doc_id.astype(object) for run in runs]), return_inverse=True)[1]
        self.query_ids = text(np.array(query_ids.tolist(), dtype=object))
        self.n_docs = int(doc.max()) + 1
        bounds = np.cumsum([0, *sizes])
        self.runs = []
        for i, (name, run) in enumerate(zip(("original", "reproduced"), runs, strict=True)):
            self.runs.append(ranked(name, query[bounds[i] : bounds[i + 1]], doc[bounds[i] : bounds[i + 1]], run.score))
        original_queries, reproduced_queries = (np.unique(q) for q, _, _ in self.runs)
        missing = np.setdiff1d(reproduced_queries, original_queries)
        if len(missing):
            raise ValueError(
                f"the reproduced run answers {len(missing)} quer{'y' if len(missing) == 1 else 'ies'} that the "
                f"original does not (such as {self.query_ids[missing[0]]!r}): there is no original ordering to "
                "compare them with."
            )
        left_out = np.setdiff1d(original_queries, reproduced_queries)
        if len(left_out):
            warn(
                f"The original run answers {len(left_out)} quer{'y' if len(left_out) == 1 else 'ies'} that the "
                f"reproduced run does not (such as {self.query_ids[left_out[0]]!r}); they are left out, as "
                "repro_eval leaves them out, so the mean is over the reproduced run's queries.",
                UserWarning,
            )
        self.queries = reproduced_queries


def ranked(name, query, doc, score):
    """A run's (query, doc, rank) rows in trec_eval's order, refusing a document listed twice for a query."""
    order = np.lexsort((-doc, -score, query))
    query, doc = query[order], doc[order]
    repeated = (query[1:] == query[:-1]) & (doc[1:] == doc[:-1])
    # Equal documents of a query sort together only among equal scores: compare on (query, doc) too.
    pairs = np.lexsort((doc, query))
    twice = (query[pairs][1:] == query[pairs][:-1]) & (doc[pairs][1:] == doc[pairs][:-1])
    if repeated.any() or twice.any():
        raise ValueError(f"the {name} run lists a document twice for one query; a run lists each document once.")
    starts = np.flatnonzero(np.concatenate(([True], query[1:] != query[:-1])))
    return query, doc, positions_in_segments(starts, len(query)).astype(np.int64)


def check_average(average):
    return check_flag("average", average)


def per_query(runs, values, average):
    """The mean over the reproduced run's queries, or a dict of query id to value."""
    if average:
        return float(np.mean(values))
    return dict(zip(runs.query_ids[runs.queries].tolist(), values.tolist(), strict=True))


def kendall_tau_union(original, reproduced, *, depth=RUN_LENGTH, average=True):
    """Compute Kendall's tau Union (KTU): how alike a reproduced run orders its documents, per query (repro_eval's KTU).

    Parameters
    ----------
    original, reproduced : path, Run, dict or DataFrame
        The two runs, as for :func:`evaluate_run`: TREC run files,
        :class:`Run` objects, dicts ``{query: {document: score}}`` or
        DataFrames with the columns ``query_id``, ``doc_id``, ``score``.
    depth : int, default=1000
        Each ranking's top ``depth`` documents are compared (repro_eval's
        ``trim_thresh``).
    average : bool, default=True
        Return the mean over the reproduced run's queries; False: a dict of
        query id to its KTU.

    Returns
    -------
    ktu : float or dict
        In [-1, 1]: 1 where both runs list the same documents in the same
        order; nan for a query with a single document.

    Raises
    ------
    ValueError
        For a query whose two trimmed rankings differ in length (repro_eval
        fails on them too), or that only the reproduced run answers.

    See Also
    --------
    rank_biased_overlap_runs : The top-weighted overlap of the two rankings.
    kendall_tau : Kendall's tau of two leaderboards.

    Notes
    -----
    As repro_eval 0.5 computes it [1]_: each run is ranked by descending
    score, ties by descending document id (trec_eval's order, which
    repro_eval's ``break_ties`` gives for a run listed by descending score),
    and cut at ``depth``. The documents of both rankings of a query are
    sorted by id, and each rank i gets the position in that union of the
    original's i-th document and of the reproduction's i-th document; KTU
    is Kendall's tau of these two sequences,
    :math:`1 - 2D / \\binom{n}{2}`, with D the ranks i < j whose two
    documents the runs put in opposite id order. Both rankings must have
    the same length n. Queries of the original that the reproduction does
    not answer are left out, with a warning. Discordant pairs are counted
    by a merge over each query's rows, all queries at once.

    References
    ----------
    .. [1] T. Breuer, N. Ferro, N. Fuhr, M. Maistro, T. Sakai, P. Schaer
       and I. Soboroff, "How to measure the reproducibility of
       system-oriented IR experiments", SIGIR 2020.

    Examples
    --------
    >>> from sklearn_rankmetrics.meta import kendall_tau_union
    >>> original = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    >>> reproduced = {"q1": {"d1": 3.0, "d3": 2.0, "d2": 1.0}}
    >>> # rank by rank: d1 d2 d3 against d1 d3 d2, union positions 0 1 2 and 0 2 1: one discordant pair of 3
    >>> round(kendall_tau_union(original, reproduced), 4)
    0.3333
    """
    depth = check_integer("depth", depth)
    average = check_average(average)
    runs = RankedRuns(original, reproduced)
    (q_o, d_o, r_o), (q_r, d_r, r_r) = runs.runs
    keep_o, keep_r = (r_o < depth) & np.isin(q_o, runs.queries), r_r < depth
    q_o, d_o, q_r, d_r = q_o[keep_o], d_o[keep_o], q_r[keep_r], d_r[keep_r]
    lengths_o = np.bincount(q_o, minlength=len(runs.query_ids))[runs.queries]
    lengths_r = np.bincount(q_r, minlength=len(runs.query_ids))[runs.queries]
    if (lengths_o != lengths_r).any():
        i = int(np.flatnonzero(lengths_o != lengths_r)[0])
        raise ValueError(
            f"query {runs.query_ids[runs.queries[i]]!r}: the original ranks {lengths_o[i]} documents and the "
            f"reproduction {lengths_r[i]} (in the top {depth}); Kendall's tau Union pairs them rank by rank, so "
            "both need the same number (repro_eval fails here too). Pass a depth= both runs reach."
        )
    # Rows are aligned rank by rank (both sorted by query, then rank). Order each query's rows by the original's
    # document, then count the pairs whose reproduced documents come in the other order.
    order = np.lexsort((d_o, q_o))
    dense = np.empty(len(d_r), dtype=np.int64)
    dense[np.lexsort((d_r, q_r))] = positions_in_segments(query_starts(q_r), len(q_r))
    codes = dense[order]
    sizes = lengths_r.astype(np.int64)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    discordant = np.bincount(
        np.repeat(np.arange(len(sizes)), sizes),
        weights=higher_above_by_merging(codes, starts, sizes),
        minlength=len(sizes),
    )
    pairs = sizes * (sizes - 1) / 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        values = 1.0 - 2.0 * discordant / pairs
    if (sizes < 2).any():
        warn(
            f"{int((sizes < 2).sum())} quer{'y has' if (sizes < 2).sum() == 1 else 'ies have'} a single document: "
            "Kendall's tau of one pair of ranks is undefined, so it is nan (and so is the mean, as in repro_eval).",
            UserWarning,
        )
    return per_query(runs, values, average)


def query_starts(query):
    """The first row of each query of rows sorted by query."""
    return np.flatnonzero(np.concatenate(([True], query[1:] != query[:-1])))


def rank_biased_overlap_runs(original, reproduced, *, p=RBO_P, depth=RBO_DEPTH, average=True):
    """Rank-biased overlap of a reproduced run with the original, per query (repro_eval's RBO).

    Parameters
    ----------
    original, reproduced : path, Run, dict or DataFrame
        The two runs, as for :func:`kendall_tau_union`.
    p : float, default=0.95
        Persistence, in (0, 1]: the overlap at depth d weighs :math:`p^{d-1}`.
    depth : int, default=1000
        The depths 1 to ``depth`` are compared.
    average : bool, default=True
        Return the mean over the reproduced run's queries; False: a dict of
        query id to its RBO.

    Returns
    -------
    rbo : float or dict
        In [0, 1]: 1 where both runs list the same documents in the same
        order down to ``depth``.

    See Also
    --------
    kendall_tau_union : Kendall's tau of the two rankings.
    rank_biased_overlap : The extrapolated RBO of two score arrays over the same documents.

    Notes
    -----
    As repro_eval 0.5 computes it (Clarke et al.'s normalised truncated
    form): with :math:`X_d` the documents in both runs' top d (a list
    shorter than d contributing all its documents),

    .. math:: \\mathrm{RBO} = \\frac{\\sum_{d=1}^{D} p^{d-1} X_d / d}{\\sum_{d=1}^{D} p^{d-1}}

    for D = ``depth``, each run ranked in trec_eval's order (see
    :func:`kendall_tau_union`). A document of both lists at ranks
    :math:`r_o` and :math:`r_r` counts at every depth from
    :math:`\\max(r_o, r_r)` on, so the sum is one closed form per document:
    no loop over depths.

    Examples
    --------
    >>> from sklearn_rankmetrics.meta import rank_biased_overlap_runs
    >>> original = {"q1": {"d1": 2.0, "d2": 1.0}}
    >>> reproduced = {"q1": {"d2": 2.0, "d1": 1.0}}
    >>> # X_1 = 0, then X_d = 2 at every depth d >= 2 (p = 0.5, depth 3): (0 + 0.5 + 0.25 * 2/3) / 1.75
    >>> round(rank_biased_overlap_runs(original, reproduced, p=0.5, depth=3), 4)
    0.381
    """
    p = check_real("p", p, low=0, high=1, low_open=True)
    depth = check_integer("depth", depth)
    average = check_average(average)
    runs = RankedRuns(original, reproduced)
    (q_o, d_o, r_o), (q_r, d_r, r_r) = runs.runs
    key_o, key_r = q_o * runs.n_docs + d_o, q_r * runs.n_docs + d_r
    _, in_o, in_r = np.intersect1d(key_o, key_r, assume_unique=True, return_indices=True)
    deepest = np.maximum(r_o[in_o], r_r[in_r]) + 1  # 1-based depth from which the document is in both tops
    within = deepest <= depth
    reciprocal, powers = depth_sums(p, depth)
    counted = np.bincount(
        q_r[in_r][within], weights=reciprocal[depth] - reciprocal[deepest[within] - 1], minlength=len(runs.query_ids)
    )
    return per_query(runs, counted[runs.queries] / powers[depth], average)
