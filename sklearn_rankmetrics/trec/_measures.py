"""trec_eval's measures, under its names, parameters and definitions, on the library's kernels.

Each measure maps the judged ranking of every evaluated query to per-query
values. Most are the library's metrics with trec_eval's settings (binary
relevance at the relevance level, linear gain, the "not retrieved" rows as
judged documents that take no rank); the set measures are ratios of counts.
Definitions follow trec_eval 10's documentation of each measure.
"""

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .._core._numpy_ops import rank_order, segment_accumulate
from ..metrics._cascade import _reciprocal_rank
from ..metrics._dcg import _ndcg
from ..metrics._ir_measures import _bpref, _interpolated_precision, _rank_biased_precision, rbp_residual
from ..metrics._precision import _average_precision, _hit_rate, _precision, _r_precision, _recall, hits

# trec_eval's floor for the geometric means: log(0) would be -inf.
MIN_GEO_MEAN = 1e-5
# trec_eval's smoothing in infAP.
INFAP_EPSILON = 1e-5
# trec_eval's codes of a retrieved document without a judgement >= 0: absent from the qrels, or judged negative.
NONPOOL, UNJUDGED = -1, -2
STANDARD_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


@dataclass
class JudgedRanking:
    """The evaluated queries' rankings in trec_eval's order, and what the measures need besides.

    ``ranking`` holds the retrieved documents of each query in rank order
    followed by its judged documents that were not retrieved, with their
    judgements as labels (the gains); ``raw`` holds, in the same order, each
    row's judgement, or trec_eval's codes -1 (not in the qrels) and -2 (in
    the qrels with a negative judgement: pooled but unjudged).

    With averaged ties, a ranking whose depth cuts a tie block (``max_depth``)
    gives each measure its mean over the orderings of the block: the counts
    of retrieved documents of a kind (``num_rel_ret``) are then expected
    counts, which need not be whole numbers.
    """

    ranking: object
    raw: np.ndarray
    level: int
    num_docs: int = 0  # documents in the collection, for utility (trec_eval -N)
    # The number of documents each query retrieved, where the ranking leaves out those below its last judged one
    # (see TAIL_FREE); None: the ranking's own.
    n_retrieved: np.ndarray | None = None

    @cached_property
    def retrieved(self):
        """The retrieved rows: the first ``num_ret`` of each query."""
        retrieved = self.ranking.retrieved
        return np.ones(self.ranking.n_rows, dtype=bool) if retrieved is None else retrieved

    @cached_property
    def judged(self):
        """The rows with a judgement >= 0."""
        return self.raw >= 0

    @cached_property
    def binary(self):
        """The ranking labelled 1 where the judgement is at least the level, else 0: trec_eval's relevance.

        With level 0 every judged document is relevant, and neither an
        unjudged one nor one absent from the qrels is, which the labels of
        :attr:`ranking` (0 for all three) cannot tell apart.
        """
        return self.ranking.with_labels((self.raw >= self.level).astype(np.float64))

    @cached_property
    def relevant(self):
        return self.binary.relevance(1)

    @cached_property
    def num_ret(self):
        n_retrieved = self.ranking.n_retrieved if self.n_retrieved is None else self.n_retrieved
        return n_retrieved.astype(np.float64)

    @cached_property
    def num_rel(self):
        return self.relevant.per_query.astype(np.float64)

    @cached_property
    def num_rel_ret(self):
        return self.retrieved_count(self.relevant.per_block)

    @cached_property
    def num_rel_ret_variance(self):
        """The variance of num_rel_ret over the orderings of a tie block cut by the depth (0 for the others).

        The v places above the depth of a block of m rows, r of them
        relevant, hold a hypergeometric number of relevant ones.
        """
        ranking = self.ranking
        if ranking.depth is None or not ranking.has_ties:
            return np.zeros(ranking.n_queries)
        m, v, r = ranking.block_sizes.astype(np.float64), ranking.visible(None), self.relevant.per_block
        return ranking.query_total(v * r * (m - r) * (m - v) / (m**2 * np.maximum(m - 1.0, 1.0)))

    def retrieved_count(self, in_block):
        """The number of retrieved rows counted by ``in_block`` (rows per block): expected, where the depth cuts."""
        return hits(self.ranking, in_block, None)

    def values(self, kernel, **options):
        """A kernel's per-query values (rows of them) on the graded ranking, 0 where undefined (trec_eval's way)."""
        return defined_or_zero(*kernel(self.ranking, **options))

    def binary_values(self, kernel, **options):
        """A binary kernel's per-query values at trec_eval's relevance level, 0 where undefined."""
        return defined_or_zero(*kernel(self.binary, relevance_threshold=1, **options))


def defined_or_zero(values, defined):
    return np.where(defined.reshape(-1, *[1] * (np.ndim(values) - 1)), values, 0.0)


def divide(numerator, denominator):
    """numerator / denominator, 0 where the denominator is 0 (trec_eval leaves those values at 0)."""
    return np.divide(numerator, denominator, out=np.zeros(len(numerator)), where=denominator > 0)


@dataclass(frozen=True)
class Measure:
    """One trec_eval measure: how its values are computed, named, averaged and printed.

    ``parameters`` is the kind of its parameter list: None, ``"cutoffs"``
    (integers, one value each: ``P_5``), ``"levels"`` (floats, one value
    each: ``iprec_at_recall_0.10``), ``"numbers"`` (floats that change one
    value: ``set_F``) or ``"pairs"`` (``name=value``: ``rbp.p=0.8``).
    ``summary`` is ``"mean"``, ``"gm"`` (geometric mean: the evaluation
    reports the floored log of each query's value, as pytrec_eval does, and
    the exponential of their mean), ``"sum"`` (printed as
    an integer), ``"count"`` (the number of queries) or ``"none"`` (per query
    only: relstring's strings). ``per_query``: whether
    ``-q`` prints it for each query.
    """

    compute: object
    parameters: str | None = None
    default: tuple = ()
    summary: str = "mean"
    per_query: bool = True

    @property
    def missing(self):
        """The value of an evaluated query without a row to rank: 0 (1 for num_q, the log of the floor for gm)."""
        return {"gm": np.log(MIN_GEO_MEAN), "count": 1.0, "none": ""}.get(self.summary, 0.0)


# Per-measure computations: (judged ranking, parameters) -> list of per-query arrays (one per value).


def single(function):
    return lambda judged, _: [function(judged)]


def per_cutoff(function):
    return lambda judged, cutoffs: [function(judged, k) for k in cutoffs]


def rprec_mult(judged, multiples):
    values = []
    for multiple in multiples:
        # trec_eval's cutoff for a multiple x of R: (long) (x R + 0.9).
        depth = np.floor(multiple * judged.num_rel + 0.9)
        found = hits(judged.ranking, judged.relevant.per_block, depth)
        values.append(divide(found, depth))
    return values


def interpolated(judged, levels):
    levels = np.asarray(levels, dtype=np.float64)
    return list(judged.binary_values(_interpolated_precision, recall_levels=levels).T)


def eleven_point(judged, levels):
    return [np.mean(interpolated(judged, levels), axis=0)]


def relative_precision(judged, k):
    found = hits(judged.ranking, judged.relevant.per_block, judged.ranking.cutoff(k))
    return divide(found, np.minimum(k, judged.num_rel))


def set_f(judged, numbers):
    beta = numbers[0]
    precision, recall = divide(judged.num_rel_ret, judged.num_ret), divide(judged.num_rel_ret, judged.num_rel)
    return [divide((beta + 1.0) * precision * recall, beta * precision + recall)]


def utility(judged, numbers):
    if len(numbers) != 4:
        raise ValueError(f"utility takes 4 coefficients (as in -m utility.1,-1,0,0); got {len(numbers)}.")
    a, b, c, d = numbers
    ret, rel, rel_ret = judged.num_ret, judged.num_rel, judged.num_rel_ret
    # The 4th cell needs the collection size, which neither file holds: trec_eval's -N, 0 by default.
    return [a * rel_ret + b * (ret - rel_ret) + c * (rel - rel_ret) + d * (judged.num_docs + rel_ret - ret - rel)]


def persistence(pairs):
    unknown = sorted(set(pairs) - {"p"})
    if unknown:
        raise ValueError(f"rbp takes the parameter p (as in -m rbp.p=0.8); got {unknown[0]!r}.")
    return pairs.get("p", 0.9)


def rbp(judged, pairs):
    return [judged.values(_rank_biased_precision, p=persistence(pairs), graded=True)]


def rbp_resid(judged, pairs):
    """RBP's residual: the weight past the list, p ** num_ret, plus (1 - p) p ** i at each unjudged rank i + 1.

    As :func:`~sklearn_rankmetrics.metrics._ir_measures.rbp_residual` computes it,
    but 0 when every retrieved document is judged (trec_eval): the weight
    past the list counts with the chance that some unjudged document is
    retrieved, 0 or 1 but where the depth cuts a tie block.
    """
    p = persistence(pairs)
    ranking = judged.ranking
    residual = rbp_residual(ranking, p=p, judged=judged.judged)
    unjudged = ranking.with_labels((judged.retrieved & ~judged.judged).astype(np.float64))
    some_unjudged, _ = _hit_rate(unjudged)
    return [residual - p**judged.num_ret * (1.0 - some_unjudged)]


def unjudged(judged, k):
    """The share of the top k that is unjudged (expected over the orderings of tied scores)."""
    ranking = judged.ranking
    in_block = ranking.per_block((judged.retrieved & ~judged.judged).astype(np.float64))
    return hits(ranking, in_block, ranking.cutoff(k)) / k


def gains(judged, pairs, name):
    """Each row's gain: its judgement, unless ``level=gain`` pairs (as in -m ndcg.1=3,2=9) say otherwise."""
    labels = judged.ranking.judged_labels
    values = labels.copy()
    for level, gain in pairs.items():
        if not level.lstrip("-").isdigit() or gain < 0:
            raise ValueError(
                f"{name} takes level=gain pairs with a non-negative gain (as in -m {name}.1=3,2=9); got {level}={gain}."
            )
        values[labels == int(level)] = gain
    return values


def ndcg(judged, pairs):
    """trec_eval's ndcg: the judgement is the gain, unless ``level=gain`` pairs say otherwise."""
    if not pairs:
        return [judged.values(_ndcg)]
    values, defined = _ndcg(judged.ranking.with_labels(gains(judged, pairs, "ndcg")))
    return [np.where(defined, values, 0.0)]


class GainProfile:
    """The sums along each query's ranking and ideal ranking that trec_eval's gain measures share.

    Row arrays are in rank order (retrieved rows first, with their gains; the
    rows not retrieved gain nothing there). The ideal ranking holds each
    query's positive gains, sorted descending.
    """

    def __init__(self, judged, pairs, name):
        ranking = judged.ranking
        strict_order(ranking, name)
        self.ranking = ranking
        self.judged_gains = gains(judged, pairs, name)
        self.gains = ranking.shown(self.judged_gains)
        self.retrieved = judged.retrieved
        self.discount = 1.0 / np.log2(ranking.positions + 2.0)
        # DCG of the top n, at every row (n = its position + 1).
        self.dcg = within_query_cumsum(ranking, self.gains * self.discount)
        ideal_order = rank_order(ranking.query_of_row, self.judged_gains)[0]
        ideal = self.judged_gains[ideal_order]
        self.n_positive = ranking.query_count(ideal > 0)
        self.ideal_dcg_prefix = within_query_cumsum(ranking, ideal * self.discount)
        self.ideal_cost_prefix = within_query_cumsum(ranking, np.maximum(ideal, 1.0))
        self.ideal = ideal

    def ideal_prefix(self, prefix, n):
        """At each row, its query's ``prefix`` sum over the top ``n`` ideal places (capped at the positive ones)."""
        ranking = self.ranking
        places = np.minimum(n, self.n_positive[ranking.query_of_row])
        values = prefix[np.repeat(ranking.query_starts, ranking.query_sizes) + np.maximum(places - 1, 0)]
        return np.where(places > 0, values, 0.0)

    @cached_property
    def ideal_dcg(self):
        """Each query's ideal DCG over all its positive gains."""
        return self.ideal_dcg_prefix[self.ranking.query_starts + np.maximum(self.n_positive - 1, 0)] * (
            self.n_positive > 0
        )

    @cached_property
    def full_dcg(self):
        """Each query's DCG over its retrieved rows."""
        return self.ranking.query_sum(self.gains * self.discount)


def within_query_cumsum(ranking, values):
    """Inclusive running sums of row ``values`` that restart at each query, each summed within its query alone.

    Rounding stays at the scale of one query, never of the run.
    """
    return segment_accumulate(np.add, values, ranking.query_starts, ranking.query_sizes)


def normalized_gain(judged, pairs):
    """trec_eval's G: gain over log2(2 + ideal cost so far - gain so far), normalised by the total ideal gain."""
    profile = GainProfile(judged, pairs, "G")
    ranking = profile.ranking
    n = ranking.positions + 1
    positive = profile.n_positive[ranking.query_of_row]
    # The cost of the top n: the ideal gains there, at least 1 each, and 1 past the ideal ones.
    cost = profile.ideal_prefix(profile.ideal_cost_prefix, n) + np.maximum(n - positive, 0)
    gained = within_query_cumsum(ranking, profile.gains)
    terms = np.where(profile.retrieved & (profile.gains != 0), profile.gains / np.log2(2.0 + cost - gained), 0.0)
    total = ranking.query_sum(np.where(profile.ideal > 0, profile.ideal, 0.0))
    return [divide(ranking.query_sum(terms), total)]


def ndcg_at_relevant(judged, pairs):
    """trec_eval's ndcg_rel: nDCG averaged over the places of the relevant documents (unretrieved: the full nDCG)."""
    profile = GainProfile(judged, pairs, "ndcg_rel")
    ranking = profile.ranking
    found = profile.retrieved & (profile.gains > 0)
    ideal_here = profile.ideal_prefix(profile.ideal_dcg_prefix, ranking.positions + 1)
    terms = np.where(found, profile.dcg / np.where(found, ideal_here, 1.0), 0.0)
    missing = profile.n_positive - ranking.query_count(found)
    total = ranking.query_sum(terms) + missing * divide(profile.full_dcg, profile.ideal_dcg)
    return [np.where(total > 0, divide(total, profile.n_positive), 0.0)]


def ndcg_at_levels(judged, pairs):
    """trec_eval's Rndcg: nDCG averaged at the R levels, the places where the ideal ranking's gain steps down."""
    profile = GainProfile(judged, pairs, "Rndcg")
    ranking, ideal = profile.ranking, profile.ideal
    # Place n ends a level when the ideal gain at n + 1 is lower (or the query has no place n + 1). The
    # ranking's DCG there is its DCG at min(n, N): the rows past the retrieved ones gain nothing.
    last_row = np.zeros(ranking.n_rows, dtype=bool)
    last_row[ranking.query_starts + ranking.query_sizes - 1] = True
    level_end = (ideal > 0) & (last_row | (np.append(ideal[1:], 0.0) != ideal))
    ndcg_there = np.where(level_end, profile.dcg / np.where(level_end, profile.ideal_dcg_prefix, 1.0), 0.0)
    total, count = ranking.query_sum(ndcg_there), ranking.query_count(level_end).astype(np.float64)
    # And at the end of a ranking that goes on past the ideal one (by two places or more, as trec_eval steps).
    beyond = judged.num_ret >= profile.n_positive + 2
    total = total + np.where(beyond, divide(profile.full_dcg, profile.ideal_dcg), 0.0)
    return [np.where(judged.num_rel > 0, divide(total, count + beyond), 0.0)]


def inferred_average_precision(judged):
    """trec_eval's infAP (Yilmaz & Aslam 2006): AP inferred from a random sample of judged documents.

    At a relevant document of place j + 1, the precision above is estimated
    from the judged documents above (pooled but unjudged ones count as
    sampled-out pool members; documents outside the pool are skipped).
    """
    ranking = judged.ranking
    strict_order(ranking, "infAP")
    raw, level = judged.raw, judged.level
    retrieved = judged.retrieved
    relevant = retrieved & (raw >= level)
    nonrelevant = retrieved & (raw >= 0) & (raw < level)
    pooled_unjudged = retrieved & (raw == UNJUDGED)
    relevant_above = ranking.before_in_query(relevant.astype(np.float64))
    nonrelevant_above = ranking.before_in_query(nonrelevant.astype(np.float64))
    pooled_above = ranking.before_in_query(pooled_unjudged.astype(np.float64))
    j = ranking.positions.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        inferred = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((relevant_above + nonrelevant_above + pooled_above) / j) * (
            (relevant_above + INFAP_EPSILON) / (relevant_above + nonrelevant_above + 2 * INFAP_EPSILON)
        )
    terms = np.where(relevant, np.where(j == 0, 1.0, inferred), 0.0)
    return divide(ranking.query_sum(terms), judged.num_rel)


def relevance_string(judged, numbers):
    """trec_eval's relstring: the judgements of the top N (default 10) as characters, one per document.

    A digit for judgements 0 to 9, ``>`` above, ``-`` for a document absent
    from the qrels and ``.`` for one judged negative (pooled, unjudged).
    """
    ranking = judged.ranking
    strict_order(ranking, "relstring")
    shown = judged.retrieved & (ranking.positions < int(numbers[0]))
    raw = judged.raw[shown]
    characters = np.select([raw > 9, raw >= 0, raw == NONPOOL], [">", raw.clip(0, 9).astype(str), "-"], default=".")
    pieces = np.split(characters, np.cumsum(ranking.query_count(shown))[:-1])
    return [np.array(["".join(piece) for piece in pieces], dtype=object)]


def binary_g(judged):
    """trec_eval's binG: the mean over relevant documents of 1 / log2(2 + non-relevant ones above it)."""
    ranking = judged.ranking
    strict_order(ranking, "binG")
    relevant = judged.relevant.mask
    nonrelevant_above = ranking.positions - ranking.before_in_query(relevant.astype(np.float64))
    terms = np.where(relevant, 1.0 / np.log2(2.0 + nonrelevant_above), 0.0)
    return divide(ranking.query_sum(terms), judged.num_rel)


def strict_order(ranking, name):
    """Refuse blocks of averaged ties, which a measure defined on one ordering cannot average cheaply."""
    if ranking.has_ties:
        raise ValueError(
            f"{name} is defined on one ordering of the documents; with ties='average' it is not "
            "available. Use ties=None (trec_eval's order), 'stable', 'pessimistic' or 'optimistic'."
        )


def num_nonrel_judged_ret(judged):
    judged_retrieved = judged.ranking.per_block((judged.retrieved & judged.judged).astype(np.float64))
    return judged.retrieved_count(judged_retrieved) - judged.num_rel_ret


def set_map(judged):
    """num_rel_ret ** 2 / (num_ret num_rel): its mean over orderings takes num_rel_ret's variance too."""
    square = judged.num_rel_ret**2 + judged.num_rel_ret_variance
    return divide(square, judged.num_ret * judged.num_rel)


#: trec_eval's measures by name, in trec_eval's order of output: each a ``Measure`` that computes
#: per-query values from the judged ranking and says how ``-m name.params`` parameters and the
#: summary over queries (mean, geometric mean, sum, count) apply.
MEASURES = {
    "runid": Measure(None, summary="runid", per_query=False),
    "num_q": Measure(single(lambda judged: np.ones(judged.ranking.n_queries)), summary="count", per_query=False),
    "num_ret": Measure(single(lambda judged: judged.num_ret), summary="sum"),
    "num_rel": Measure(single(lambda judged: judged.num_rel), summary="sum"),
    "num_rel_ret": Measure(single(lambda judged: judged.num_rel_ret), summary="sum"),
    "map": Measure(single(lambda judged: judged.binary_values(_average_precision))),
    "gm_map": Measure(
        single(lambda judged: judged.binary_values(_average_precision)),
        summary="gm",
        per_query=False,
    ),
    "Rprec": Measure(single(lambda judged: judged.binary_values(_r_precision))),
    "bpref": Measure(single(lambda judged: judged.binary_values(_bpref, judged=judged.judged))),
    "recip_rank": Measure(single(lambda judged: judged.binary_values(_reciprocal_rank))),
    "iprec_at_recall": Measure(interpolated, "levels", RECALL_LEVELS),
    "P": Measure(
        per_cutoff(lambda judged, k: judged.binary_values(_precision, k=k)),
        "cutoffs",
        STANDARD_CUTOFFS,
    ),
    "relstring": Measure(relevance_string, "numbers", (10.0,), summary="none"),
    "recall": Measure(
        per_cutoff(lambda judged, k: judged.binary_values(_recall, k=k)),
        "cutoffs",
        STANDARD_CUTOFFS,
    ),
    "infAP": Measure(single(inferred_average_precision)),
    "gm_bpref": Measure(
        single(lambda judged: judged.binary_values(_bpref, judged=judged.judged)),
        summary="gm",
        per_query=False,
    ),
    "Rprec_mult": Measure(rprec_mult, "levels", (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)),
    "utility": Measure(utility, "numbers", (1.0, -1.0, 0.0, 0.0)),
    "11pt_avg": Measure(eleven_point, "numbers", RECALL_LEVELS),
    "binG": Measure(single(binary_g)),
    "G": Measure(lambda judged, pairs: normalized_gain(judged, pairs), "pairs"),
    "ndcg": Measure(ndcg, "pairs"),
    "ndcg_rel": Measure(lambda judged, pairs: ndcg_at_relevant(judged, pairs), "pairs"),
    "Rndcg": Measure(lambda judged, pairs: ndcg_at_levels(judged, pairs), "pairs"),
    "ndcg_cut": Measure(per_cutoff(lambda judged, k: judged.values(_ndcg, k=k)), "cutoffs", STANDARD_CUTOFFS),
    "map_cut": Measure(
        per_cutoff(lambda judged, k: judged.binary_values(_average_precision, k=k)),
        "cutoffs",
        STANDARD_CUTOFFS,
    ),
    "relative_P": Measure(per_cutoff(relative_precision), "cutoffs", STANDARD_CUTOFFS),
    "success": Measure(
        per_cutoff(lambda judged, k: judged.binary_values(_hit_rate, k=k)),
        "cutoffs",
        (1, 5, 10),
    ),
    "set_P": Measure(single(lambda judged: divide(judged.num_rel_ret, judged.num_ret))),
    "set_relative_P": Measure(
        single(lambda judged: divide(judged.num_rel_ret, np.minimum(judged.num_ret, judged.num_rel)))
    ),
    "set_recall": Measure(single(lambda judged: divide(judged.num_rel_ret, judged.num_rel))),
    "set_map": Measure(single(set_map)),
    "set_F": Measure(set_f, "numbers", (1.0,)),
    "num_nonrel_judged_ret": Measure(single(num_nonrel_judged_ret), summary="sum"),
    "rbp": Measure(rbp, "pairs"),
    "rbp_resid": Measure(rbp_resid, "pairs"),
    "unj": Measure(per_cutoff(unjudged), "cutoffs", (5, 10, 20)),
}

#: trec_eval's named sets of measures: ``official`` (the default of ``-m``), ``set`` and
#: ``all_trec``, each a tuple of names of :data:`MEASURES`.
NICKNAMES = {
    "official": (
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "map",
        "gm_map",
        "Rprec",
        "bpref",
        "recip_rank",
        "iprec_at_recall",
        "P",
    ),
    "set": (
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "utility",
        "set_P",
        "set_recall",
        "set_relative_P",
        "set_map",
        "set_F",
    ),
}
NICKNAMES["all_trec"] = tuple(MEASURES)

#: The measures whose values the documents retrieved below a query's last judged one change only through their
#: number (num_ret): everything those documents add is 0, and no measure here looks at them one by one, as
#: ``unj`` (the unjudged share of the top k), ``relstring`` (a character each) and ``rbp_resid`` (a weight
#: each) do. When every requested measure is one of these, the evaluation leaves those rows out of its
#: rankings (most of a run, against sparse judgements such as MS MARCO's) and counts them in num_ret alone.
TAIL_FREE = frozenset(MEASURES) - {"unj", "relstring", "rbp_resid"}
