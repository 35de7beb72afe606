"""Online comparison of rankers: interleaving (balanced, team-draft, probabilistic, optimized), multileaving, credit.

Rankings are (n_queries, n_docs) matrices of document ids (non-negative
integers) in rank order, ``-1`` padding a shorter ranking. Every method
builds all the queries' lists at once, one output rank at a time; optimized
interleaving solves one small linear programme per distinct pattern of
ranks (queries whose two rankings place their documents alike share it).
"""

import numpy as np
from scipy import stats

from .._core._resampling import random_state_from
from .._core._validation import check_integer, check_option, check_real
from .._core._warnings import warn
from ._interleaving_lp import optimized_lists

METHODS = ("team_draft", "balanced", "probabilistic", "optimized")
MULTILEAVING = ("team_draft", "probabilistic")


def check_rankings(rankings, name):
    """A list of (n_queries, width) int64 matrices of document ids, ``-1`` padding (to the widest ranking given),
    no id twice in a row."""
    checked = []
    for index, ranking in enumerate(rankings):
        label = name if isinstance(name, str) else name[index]
        array = np.asarray(ranking)
        if array.ndim == 1:
            array = array[None, :]
        if array.ndim != 2 or array.size == 0 or array.dtype.kind not in "iu":
            raise ValueError(
                f"{label} must be a non-empty 1-D (one query) or 2-D (n_queries, n_docs) array of integer document "
                f"ids in rank order; got {'dtype ' + str(array.dtype) if array.ndim == 2 else f'{array.ndim}-D'}."
            )
        array = array.astype(np.int64)
        if (array < -1).any():
            raise ValueError(f"{label} must hold document ids >= 0, and -1 only as padding after the last document.")
        empty = array == -1
        if (empty[:, :-1] & ~empty[:, 1:]).any():
            raise ValueError(f"{label} has a document after a -1: pad each ranking at its end only.")
        ordered = np.sort(np.where(empty, -1 - np.arange(array.shape[1]), array), axis=1)
        if (ordered[:, 1:] == ordered[:, :-1]).any():
            raise ValueError(f"{label} lists a document twice in one query's ranking.")
        checked.append(array)
    if len({array.shape[0] for array in checked}) > 1:
        raise ValueError(
            f"the rankings must have the same number of queries (rows); got {[a.shape[0] for a in checked]}."
        )
    width = max(array.shape[1] for array in checked)  # rankings of different widths: -1 pads the narrower
    return [padded(array, width) for array in checked]


class Interleaving:
    """An interleaved (or multileaved) list per query, and what is needed to credit its clicks.

    Made by :func:`interleave` or :func:`multileave`; :meth:`credit` turns
    clicks into the comparison.

    Parameters
    ----------
    ranking : ndarray of shape (n_queries, length)
        The documents shown, in rank order (``-1``: no document).
    teams : ndarray of shape (n_queries, length)
        The ranker that contributed each document (-1: none, as in balanced
        and optimized interleaving, which credit by rank).
    rankings : list of ndarray
        The rankers' rankings.
    method : str
        How the list was made.

    Attributes
    ----------
    ranking_ : ndarray of shape (n_queries, length)
        The documents to show.
    teams_ : ndarray of shape (n_queries, length)
        The contributing ranker of each document (-1: none).
    method : str
        The method.

    See Also
    --------
    interleave : Makes an interleaving of two rankers.
    credit : Credits the clicks.

    Examples
    --------
    >>> from sklearn_rankmetrics.counterfactual import interleave
    >>> shown = interleave([[1, 2, 3]], [[3, 2, 1]], method="balanced", random_state=0)
    >>> shown.ranking_.shape
    (1, 3)
    """

    def __init__(self, ranking, teams, rankings, method):
        self.ranking_ = ranking
        self.teams_ = teams
        self.rankings = rankings
        self.method = method

    def credit(self, clicks):
        """The comparison that ``clicks`` on :attr:`ranking_` give: see :func:`credit`.

        Parameters
        ----------
        clicks : array-like of shape (n_queries, length)
            1 where the shown document was clicked.

        Returns
        -------
        outcome : InterleavingOutcome
            The per-query credits and outcomes, and the test across queries.
        """
        return credit(self, clicks)


class InterleavingOutcome:
    """Clicks on interleaved lists, credited: per-query outcomes and a sign test across queries.

    Parameters
    ----------
    credits : ndarray of shape (n_queries, n_rankers)
        Each ranker's credit on each query.
    clicked : ndarray of bool of shape (n_queries,)
        Whether the query has a click.
    by_mean : bool, default=False
        Two rankers only. False: the per-query outcome is the sign of the
        credit difference, and the test is the sign test. True (optimized
        interleaving): ``delta`` is the mean credit difference over the
        queries with a click and ``pvalue`` a two-sided one-sample t-test of
        it against 0 (``scipy.stats.ttest_1samp``); see Notes.

    Attributes
    ----------
    credits : ndarray of shape (n_queries, n_rankers)
        Each ranker's credit on each query.
    outcome : ndarray of shape (n_queries,) or (n_queries, n_rankers, n_rankers)
        Two rankers: +1 where the first wins, -1 where the second does, 0 for
        a tie or no click. Multileaving: ``outcome[q, i, j]`` compares ranker
        ``i`` with ``j`` the same way.
    wins, losses, ties : int or ndarray of shape (n_rankers, n_rankers)
        Over the queries with a click.
    delta : float or ndarray
        Chapelle et al.'s :math:`\\Delta = (\\text{wins} + \\text{ties}/2) /
        (\\text{wins} + \\text{losses} + \\text{ties}) - 0.5`, in [-0.5, 0.5].
    pvalue : float or ndarray
        Two-sided sign test of wins against losses (``scipy.stats.binomtest``,
        ties left out), 1 where no query decides; with ``by_mean``, the
        t-test of the mean credit difference (1 with fewer than two queries
        with a click or a difference of 0 on every one, 0 where it is the
        same nonzero value on every one).

    See Also
    --------
    credit : Makes it.

    Notes
    -----
    Optimized interleaving (Radlinski and Craswell 2013) makes the
    *expected* credit difference 0 under a user who clicks at random (any
    click behaviour that depends on the rank alone), not the chance of
    winning: one uniform click on four documents rotated between the two
    rankings gives ranker B about three wins in four, with a mean credit
    difference of 0, since A's wins are worth more. A sign test would then
    report a preference that is an artefact of the credit function; the
    mean credit difference and its t-test keep the promise, and are what
    :func:`credit` reports for optimized interleaving (``wins`` and
    ``losses`` still count the signs, for information).

    Examples
    --------
    >>> from sklearn_rankmetrics.counterfactual import interleave
    >>> shown = interleave([[1, 2, 3]], [[3, 2, 1]], method="team_draft", random_state=0)
    >>> outcome = shown.credit([[1, 0, 0]])
    >>> int(abs(outcome.outcome[0]))
    1
    """

    def __init__(self, credits, clicked, *, by_mean=False):
        self.credits = credits
        self.clicked = clicked
        self.by_mean = by_mean
        difference = np.sign(credits[:, :, None] - credits[:, None, :]) * clicked[:, None, None]
        wins = (difference > 0).sum(axis=0)
        losses = (difference < 0).sum(axis=0)
        ties = clicked.sum() - wins - losses
        decided = wins + losses
        with np.errstate(invalid="ignore", divide="ignore"):
            delta = np.where(decided + ties > 0, (wins + ties / 2) / np.maximum(decided + ties, 1) - 0.5, 0.0)
        pvalues = np.ones(wins.shape)
        for i, j in zip(*np.nonzero(decided), strict=True):  # one test per pair of rankers
            pvalues[i, j] = stats.binomtest(int(wins[i, j]), int(decided[i, j]), 0.5).pvalue
        pair = credits.shape[1] == 2
        self.outcome = difference[:, 0, 1].astype(np.int64) if pair else difference.astype(np.int64)
        self.wins, self.losses, self.ties = (int(x[0, 1]) if pair else x for x in (wins, losses, ties))
        self.delta = float(delta[0, 1]) if pair else delta
        self.pvalue = float(pvalues[0, 1]) if pair else pvalues
        if by_mean:
            if not pair:
                raise ValueError(f"by_mean compares two rankers; got {credits.shape[1]}.")
            self.delta, self.pvalue = mean_difference_test(credits[clicked, 0] - credits[clicked, 1])

    def __repr__(self):
        if self.credits.shape[1] != 2:
            return f"InterleavingOutcome({self.credits.shape[0]} queries, {self.credits.shape[1]} rankers)"
        return (
            f"InterleavingOutcome(wins={self.wins}, losses={self.losses}, ties={self.ties}, delta={self.delta:.4f}, "
            f"pvalue={self.pvalue:.4g})"
        )


def mean_difference_test(differences):
    """The mean of the per-query credit differences and the two-sided one-sample t-test of it against 0."""
    if len(differences) == 0:
        return 0.0, 1.0
    mean = float(differences.mean())
    if len(differences) < 2:  # no spread to test against
        return mean, 1.0
    if np.ptp(differences) == 0:  # no spread: the t statistic is 0/0 or infinite
        return mean, 1.0 if mean == 0 else 0.0
    return mean, float(stats.ttest_1samp(differences, 0.0).pvalue)


def interleave(ranking_a, ranking_b, *, method="team_draft", length=None, random_state=None, tau=3.0):
    """Interleave two rankers' rankings of each query into one list to show, for an online comparison.

    Parameters
    ----------
    ranking_a, ranking_b : array-like of shape (n_queries, n_docs) or (n_docs,)
        Each ranker's document ids (integers >= 0) in rank order, ``-1``
        padding a shorter ranking; 1-D for a single query.
    method : {"team_draft", "balanced", "probabilistic", "optimized"}, default="team_draft"
        ``"team_draft"`` (Radlinski et al. 2008): the ranker with fewer
        picks, or a coin between equals, adds its best document not yet
        shown. ``"balanced"`` (Joachims 2003): a coin per query says who
        leads; the rankers' top documents alternate, each added once.
        ``"probabilistic"`` (Hofmann et al. 2011): at each rank a coin
        picks a ranker, which draws one of its documents not yet shown with
        probability proportional to :math:`1/r^\\tau`. ``"optimized"``
        (Radlinski and Craswell 2013): a distribution over the lists whose
        every prefix is a union of the rankings' prefixes, such that a user
        clicking at random credits neither ranker in expectation at any
        depth, with the least squared difference of the rankers' expected
        credits (a linear programme).
    length : int, default=None
        Length of the lists; None: the longer ranking's width (optimized:
        the shorter one's, and at most 12).
    random_state : int, RandomState instance, numpy Generator or None, default=None
        Seeds the coins and draws.
    tau : float, default=3.0
        The probabilistic method's exponent.

    Returns
    -------
    interleaving : Interleaving
        The lists to show (``ranking_``) and the contributing ranker of each
        document (``teams_``); its :meth:`~Interleaving.credit` credits the
        clicks.

    See Also
    --------
    credit : Turns clicks on the lists into the comparison.
    multileave : More than two rankers.

    Notes
    -----
    Each method assumes users click on what they find relevant on the list
    they see, and that a better ranker attracts more clicks to its
    documents. The crediting rules: team draft and probabilistic count the
    clicks on each ranker's documents (probabilistic interleaving's
    contributor as drawn, not marginalised over the other assignments);
    balanced takes :math:`k`, the better of the two rankings' ranks of the
    lowest clicked document, and counts the clicked documents in each
    ranking's top :math:`k` (a document a ranking lacks is in none of its
    tops: Chapelle et al. 2012, Algorithm 1); optimized sums
    :math:`1/r_a(d) - 1/r_b(d)` over the clicked documents (:math:`r` the
    document's rank, one past the end for a ranking without it). A ranker
    wins a query with more credit; the test across queries is the sign test
    of wins against losses, except for optimized interleaving, whose
    promise is about the mean credit: its ``delta`` is the mean credit
    difference and its p-value a t-test of it (see
    :class:`InterleavingOutcome`).

    Balanced interleaving is biased under random clicks, by its definition:
    with ``a = [1, 2, 3, 4]`` and ``b = [2, 3, 4, 1]`` (b is a rotated),
    a user who clicks one shown document uniformly at random makes b win
    three queries in four (the exact mean outcome is -0.5; a ranking that
    moves one document far down loses whenever it is clicked). Team draft,
    probabilistic and optimized interleaving favour neither ranker under
    such a user. Rankings of different lengths are padded with ``-1``, for
    every method.

    References
    ----------
    .. [1] T. Joachims, "Evaluating Retrieval Performance Using Clickthrough
       Data", Text Mining, 2003.
    .. [2] F. Radlinski, M. Kurup and T. Joachims, "How Does Clickthrough
       Data Reflect Retrieval Quality?", CIKM 2008.
    .. [3] K. Hofmann, S. Whiteson and M. de Rijke, "A Probabilistic Method
       for Inferring Preferences from Clicks", CIKM 2011.
    .. [4] F. Radlinski and N. Craswell, "Optimized Interleaving for Online
       Retrieval Evaluation", WSDM 2013.
    .. [5] O. Chapelle, T. Joachims, F. Radlinski and Y. Yue, "Large-Scale
       Validation and Analysis of Interleaved Search Evaluation", ACM TOIS
       30(1), 2012.

    Examples
    --------
    >>> from sklearn_rankmetrics.counterfactual import interleave
    >>> shown = interleave([1, 2, 3, 4], [2, 5, 1, 6], method="team_draft", random_state=1)
    >>> print(shown.ranking_)
    [[2 1 3 5]]
    >>> print(shown.credit([[0, 1, 1, 0]]))  # 1 and 3 came from ranking_a
    InterleavingOutcome(wins=1, losses=0, ties=0, delta=0.5000, pvalue=1)
    """
    method = check_option("method", method, METHODS)
    rankings = check_rankings([ranking_a, ranking_b], ("ranking_a", "ranking_b"))
    rng = random_state_from(random_state)
    if method == "optimized":
        width = min(int((r >= 0).sum(axis=1).max()) for r in rankings)
        length = check_integer("length", width if length is None else length)
        if length > 12:
            raise ValueError(f"optimized interleaving enumerates 2**length lists: length must be <= 12; got {length}.")
        ranking = optimized_lists(rankings[0], rankings[1], length, rng)
        return Interleaving(ranking, np.full(ranking.shape, -1), rankings, method)
    if method == "balanced":
        return balanced(rankings, list_length(rankings, length), rng)
    return multileave(rankings, method=method, length=length, random_state=rng, tau=tau)


def multileave(rankings, *, method="team_draft", length=None, random_state=None, tau=3.0):
    """Multileave several rankers' rankings of each query into one list to show (team draft or probabilistic).

    Parameters
    ----------
    rankings : sequence of array-like of shape (n_queries, n_docs)
        Each ranker's document ids in rank order, ``-1`` padding.
    method : {"team_draft", "probabilistic"}, default="team_draft"
        Team-draft multileaving (Schuth et al. 2014): the rankers with the
        fewest picks draw lots for the next pick; probabilistic multileaving
        (Schuth et al. 2015): a ranker drawn at random draws a document with
        probability proportional to :math:`1/r^\\tau`.
    length : int, default=None
        Length of the lists; None: the widest ranking's.
    random_state : int, RandomState instance, numpy Generator or None, default=None
        Seeds the lots and draws.
    tau : float, default=3.0
        The probabilistic method's exponent.

    Returns
    -------
    interleaving : Interleaving
        The lists to show and each document's contributing ranker.

    See Also
    --------
    interleave : Two rankers, and the other methods.
    credit : Turns clicks into pairwise outcomes.

    Notes
    -----
    Clicks credit the ranker that contributed each clicked document; ranker
    ``i`` beats ``j`` on a query where it has more credit.

    References
    ----------
    .. [1] A. Schuth, F. Sietsma, S. Whiteson, D. Lefortier and M. de Rijke,
       "Multileaved Comparisons for Fast Online Evaluation", CIKM 2014.
    .. [2] A. Schuth, R.-J. Bruintjes, F. Büttner, J. van Doorn, C. Groenland,
       H. Oosterhuis, C.-N. Tran, B. Veeling, J. van der Velde, R. Wechsler,
       D. Woudenberg and M. de Rijke, "Probabilistic Multileave for Online
       Retrieval Evaluation", SIGIR 2015.

    Examples
    --------
    >>> from sklearn_rankmetrics.counterfactual import multileave
    >>> shown = multileave([[[1, 2, 3]], [[2, 3, 1]], [[3, 1, 2]]], random_state=0)
    >>> sorted(shown.ranking_[0].tolist())
    [1, 2, 3]
    """
    method = check_option("method", method, MULTILEAVING)
    names = [f"rankings[{index}]" for index in range(len(rankings))]
    rankings = check_rankings(list(rankings), names)
    if len(rankings) < 2:
        raise ValueError(f"multileaving needs at least two rankings; got {len(rankings)}.")
    tau = check_real("tau", tau, low=0.0)
    return draft(rankings, list_length(rankings, length), random_state_from(random_state), method, tau)


def list_length(rankings, length):
    """The lists' length: ``length`` checked, or the widest ranking's number of documents."""
    widest = max(int((ranking >= 0).sum(axis=1).max()) for ranking in rankings)
    return check_integer("length", widest if length is None else length)


def draft(rankings, length, rng, method, tau):
    """Team-draft or probabilistic multileaving of every query at once, one output rank at a time.

    Each ranker's cells still available (a document, not yet shown) are
    kept as a mask, updated once per output rank: the work is the rankers'
    cells per rank, whatever the number of queries.
    """
    n_queries, n_rankers = rankings[0].shape[0], len(rankings)
    ranking = np.full((n_queries, length), -1)
    teams = np.full((n_queries, length), -1)
    picks = np.zeros((n_queries, n_rankers))
    available = [r >= 0 for r in rankings]
    discount = 1.0 / np.arange(1, rankings[0].shape[1] + 1) ** tau
    for rank in range(length):
        has_any = np.stack([a.any(axis=1) for a in available], axis=1)
        if method == "team_draft":  # the fewest picks, lots between equals
            fewest = np.where(has_any, picks, np.inf)
            eligible = has_any & (fewest == fewest.min(axis=1, keepdims=True))
        else:
            eligible = has_any
        lots = np.where(eligible, rng.random((n_queries, n_rankers)), -1.0)
        team = np.where(eligible.any(axis=1), np.argmax(lots, axis=1), -1)
        draws = rng.random(n_queries) if method == "probabilistic" else None
        # Each ranker's pick on every query (cheaper than gathering the picking team's rows), then the team's.
        candidates = np.empty((n_rankers, n_queries), dtype=np.int64)
        for index, (r, free) in enumerate(zip(rankings, available, strict=True)):
            if method == "team_draft":
                cell = np.argmax(free, axis=1)
            else:  # a draw proportional to 1 / rank**tau among the available cells
                cumulative = np.cumsum(free * discount, axis=1)
                cell = np.minimum((cumulative <= (draws * cumulative[:, -1])[:, None]).sum(axis=1), r.shape[1] - 1)
            candidates[index] = np.take_along_axis(r, cell[:, None], 1)[:, 0]
        document = np.where(team >= 0, candidates[np.maximum(team, 0), np.arange(n_queries)], -1)
        ranking[:, rank] = document
        teams[:, rank] = team
        picks[team >= 0, team[team >= 0]] += 1
        for r, free in zip(rankings, available, strict=True):
            free &= r != document[:, None]
    return Interleaving(ranking, teams, rankings, method)


def padded(ranking, width):
    """``ranking`` padded with -1 to ``width`` columns."""
    return np.pad(ranking, ((0, 0), (0, width - ranking.shape[1])), constant_values=-1)


def balanced(rankings, length, rng):
    """Balanced interleaving of every query at once: the rankings' tops alternate, the leader by a coin."""
    a, b = (padded(r, max(r.shape[1] for r in rankings)) for r in rankings)
    n_queries, width = a.shape
    rows = np.arange(n_queries)
    a_first = rng.random(n_queries) < 0.5
    len_a, len_b = (a >= 0).sum(axis=1), (b >= 0).sum(axis=1)
    ka, kb = np.zeros(n_queries, dtype=np.int64), np.zeros(n_queries, dtype=np.int64)
    ranking = np.full((n_queries, length), -1)
    filled = np.zeros(n_queries, dtype=np.int64)
    for _ in range(2 * width):
        a_left, b_left = ka < len_a, kb < len_b
        # The ranker behind leads (the coin between equals); one that ran out leaves the other to go on.
        from_a = (((ka < kb) | ((ka == kb) & a_first)) & a_left) | ~b_left
        live = (a_left | b_left) & (filled < length)
        document = np.where(from_a, a[rows, np.minimum(ka, width - 1)], b[rows, np.minimum(kb, width - 1)])
        new = live & ~(ranking == document[:, None]).any(axis=1)
        ranking[rows[new], filled[new]] = document[new]
        filled += new
        ka += live & from_a
        kb += live & ~from_a
    return Interleaving(ranking, np.full(ranking.shape, -1), rankings, "balanced")


def ranks_in(rankings, ranking, absent=None):
    """The 1-based rank of each shown document in each ranker's ranking; where absent, ``absent`` (None: one past
    the ranking's end)."""
    ranks = []
    for r in rankings:
        match = (r[:, None, :] == ranking[:, :, None]) & (ranking[:, :, None] >= 0)
        missing = (r >= 0).sum(axis=1)[:, None] + 1 if absent is None else absent
        ranks.append(np.where(match.any(axis=2), np.argmax(match, axis=2) + 1, missing))
    return np.stack(ranks, axis=2)  # (n_queries, length, n_rankers)


def credit(interleaving, clicks):
    """Credit clicks on interleaved (or multileaved) lists to the rankers, and compare them across queries.

    Parameters
    ----------
    interleaving : Interleaving
        What :func:`interleave` or :func:`multileave` made.
    clicks : array-like of shape (n_queries, length)
        1 where the shown document was clicked, else 0; clicks on empty
        cells (``-1``) are an error.

    Returns
    -------
    outcome : InterleavingOutcome
        Each ranker's credit per query, the per-query outcomes, and the
        wins, losses, ties, :math:`\\Delta` and sign-test p-value over the
        queries with a click.

    See Also
    --------
    interleave : Makes the lists; its Notes give each method's credit rule.

    Examples
    --------
    >>> from sklearn_rankmetrics.counterfactual import credit, interleave
    >>> shown = interleave([[1, 2], [1, 2]], [[2, 1], [2, 1]], method="balanced", random_state=0)
    >>> print(credit(shown, [[0, 0], [0, 0]]))
    InterleavingOutcome(wins=0, losses=0, ties=0, delta=0.0000, pvalue=1)
    """
    if not isinstance(interleaving, Interleaving):
        raise TypeError(
            f"interleaving must be what interleave or multileave returned; got {type(interleaving).__name__}."
        )
    ranking = interleaving.ranking_
    clicked = np.asarray(clicks)
    if clicked.ndim == 1:
        clicked = clicked[None, :]
    if clicked.shape != ranking.shape:
        raise ValueError(f"clicks must have the shape of the shown lists, {ranking.shape}; got {clicked.shape}.")
    if not np.isin(clicked, (0, 1)).all():
        raise ValueError("clicks must hold 0 (not clicked) or 1 (clicked) in every cell.")
    clicked = clicked.astype(bool)
    if (clicked & (ranking < 0)).any():
        raise ValueError("clicks has a click on an empty cell (-1 in ranking_): no document was shown there.")
    n_rankers = len(interleaving.rankings)
    if interleaving.method in ("team_draft", "probabilistic"):
        team = np.where(clicked, interleaving.teams_, -1)
        credits = np.stack([(team == index).sum(axis=1) for index in range(n_rankers)], axis=1).astype(float)
    elif interleaving.method == "optimized":
        ranks = ranks_in(interleaving.rankings, ranking)
        credits = (clicked[:, :, None] / ranks).sum(axis=1)
    else:
        credits = balanced_credits(interleaving, clicked)
    if interleaving.method in ("balanced", "optimized") and not np.isfinite(credits).all():  # pragma: no cover
        warn("some credits are not finite", RuntimeWarning)
    return InterleavingOutcome(credits, clicked.any(axis=1), by_mean=interleaving.method == "optimized")


def balanced_credits(interleaving, clicked):
    """Balanced interleaving's credit: clicked documents within each ranking's top k, with k the better of the
    two ranks of the lowest clicked document; a document a ranking lacks is in none of its tops (Chapelle et al.
    2012, Algorithm 1)."""
    ranks = ranks_in(interleaving.rankings, interleaving.ranking_, absent=np.inf)  # (queries, length, 2)
    n_queries, length = clicked.shape
    lowest = length - 1 - np.argmax(clicked[:, ::-1], axis=1)
    k = np.minimum(ranks[np.arange(n_queries), lowest].min(axis=1), length)  # no click: length, no credit
    return (clicked[:, :, None] & (ranks <= k[:, None, None])).sum(axis=1).astype(float)
