"""Judging a run: join it to the qrels, then rank each query as trec_eval does (ties, depth, unjudged rows)."""

from dataclasses import dataclass, field

import numpy as np

from .._core._numpy_ops import differs_from_previous, group_by_query, positions_in_segments, rank_order
from .._core._ranking import Ranking
from ..metrics._tie_expectations import hypergeometric_laws
from ._measures import NONPOOL, UNJUDGED, JudgedRanking
from ._sources import InputError, as_keys, comparable, shown
from ._tails import down_to_last_judged, down_to_last_judged_tie


@dataclass
class Part:
    """The judged rankings of some of the ranked queries, and the weight of their values in each query's."""

    judged: JudgedRanking
    queries: np.ndarray | None = None  # their places among the ranked queries; None: all, in order
    weights: np.ndarray | None = None  # None: 1


@dataclass
class Evaluation:
    """The judged rankings of the evaluated queries, in parts, and the ids of the queries.

    Each ranked query's value is the weighted sum of its values in the
    parts: one part of weight 1 but for a mixture over the depths of a
    judged ranking (:func:`judged_depth_laws`).
    """

    parts: list
    query_ids: np.ndarray  # of the ranked queries, sorted
    missing_ids: np.ndarray  # qrels queries without any row to rank (complete=True), scored 0, sorted
    summaries: dict = field(default_factory=dict)  # trec_eval's summary of a measure where it is no mean or sum


def join(
    qrels,
    run,
    *,
    relevance_level=1,
    complete=False,
    max_depth=None,
    ties=None,
    judged_only=False,
    num_docs=0,
    answered=None,
    tail_free=False,
):
    """Join a run to its qrels: each query's retrieved documents in rank order, then its judged unretrieved ones.

    ``judged_only`` (trec_eval -J) removes the unjudged documents from the
    rankings; ``num_docs`` (-N) is the collection size for utility;
    ``answered``: ids of queries that the run answers with no document
    (a dict's empty entries), evaluated like the others; ``tail_free``:
    only measures of ``TAIL_FREE`` will be computed, so the documents below
    each query's last judged one are left out of its ranking and only
    counted (not with ``ties="average"``, whose tie blocks they may share).
    """
    n_rows = len(run.score)
    if not n_rows and answered is None and not complete:
        raise InputError(
            "run",
            "the run is empty: it retrieves no document for any query. Pass complete=True (trec_eval -c) to "
            "score every query of the qrels 0.",
        )
    run_ids = run.query_id if answered is None else np.concatenate((run.query_id, answered))
    run_query, qrels_query = comparable(run_ids, qrels.query_id)
    run_query, answered_query = run_query[:n_rows], run_query[n_rows:]
    run_doc, qrels_doc = as_keys(*comparable(run.doc_id, qrels.doc_id))
    # Query codes: the run usually lists each query's rows together, so only the heads need looking up.
    heads = np.flatnonzero(differs_from_previous(run_query))
    vocabulary = np.unique(np.concatenate((run_query[heads], answered_query, qrels_query)))
    head_code = np.searchsorted(vocabulary, run_query[heads]).astype(np.int32 if len(vocabulary) < 2**31 else np.int64)
    run_code = np.repeat(head_code, np.diff(heads, append=n_rows))
    qrels_code = np.searchsorted(vocabulary, qrels_query)
    in_qrels = np.bincount(qrels_code, minlength=len(vocabulary)) > 0
    in_run = np.zeros(len(vocabulary), dtype=bool)
    in_run[head_code] = True
    in_run[np.searchsorted(vocabulary, answered_query)] = True
    evaluated = in_qrels & (in_run | complete)
    if not evaluated.any():
        raise ValueError(
            "No queries with both results and relevance info (as trec_eval says): no query of the run is "
            "judged in the qrels. Check that both use the same query ids, or pass complete=True (trec_eval -c) "
            "to score every query of the qrels 0."
        )
    score, run_doc_id = run.score, run.doc_id
    if not in_qrels[head_code].all():  # trec_eval skips run queries nobody judged
        kept = np.flatnonzero(in_qrels[run_code])
        run_code, run_doc, score, run_doc_id = run_code[kept], run_doc[kept], score[kept], run_doc_id[kept]

    names = (vocabulary, qrels.doc_id)
    judged_rows, judged_qrels_rows = judgements(qrels_code, qrels_doc, qrels.relevance, run_code, run_doc, names)
    trimmed = tail_free and ties != "average"
    n_retrieved = None  # per query code, where the rankings leave out the rows below the last judged ones
    if trimmed and max_depth is None:
        kept = down_to_last_judged_tie(run_code, score, judged_rows)
        if kept is not None:  # a run listed by query and score: most of its rows are left out before ranking
            check_retrieved_once(run_code, run_doc, (vocabulary, run_doc_id))
            n_retrieved = np.bincount(run_code, minlength=len(vocabulary))
            run_code, run_doc, score, run_doc_id = run_code[kept], run_doc[kept], score[kept], run_doc_id[kept]
            judged_rows = np.searchsorted(kept, judged_rows)
    raw, qrels_row = judgement_codes(len(run_code), judged_rows, judged_qrels_rows, qrels.relevance)
    order, retrieved_code, depth = ranked(run_code, score, run_doc, raw, ties=ties, max_depth=max_depth)
    raw, qrels_row = raw[order], qrels_row[order]
    if n_retrieved is None:  # else checked on every row above
        check_retrieved_once(retrieved_code, run_doc[order], (vocabulary, run_doc_id[order]))
    laws = None
    if judged_only:
        if depth is not None:
            laws = judged_depth_laws(retrieved_code, raw, score[order], depth)
        kept = raw >= 0
        order, retrieved_code, raw, qrels_row = order[kept], retrieved_code[kept], raw[kept], qrels_row[kept]
    if trimmed:
        if n_retrieved is None or judged_only:
            n_retrieved = np.bincount(retrieved_code, minlength=len(vocabulary))
        kept = down_to_last_judged(retrieved_code, raw)
        order, retrieved_code, raw, qrels_row = order[kept], retrieved_code[kept], raw[kept], qrels_row[kept]
    # Judged documents not retrieved (or cut by max_depth) rank last, after each query's retrieved ones;
    # with complete=True the qrels queries the run lacks are evaluated too, as rankings of such documents only.
    unretrieved = np.ones(len(qrels_code), dtype=bool)
    unretrieved[qrels_row[qrels_row >= 0]] = False
    unretrieved &= evaluated[qrels_code] & (qrels.relevance >= 0)
    extra = np.flatnonzero(unretrieved)
    extra = extra[np.argsort(qrels_code[extra], kind="stable")]
    places = np.searchsorted(retrieved_code, qrels_code[extra], "right")
    codes = np.insert(retrieved_code, places, qrels_code[extra])
    raw = np.insert(raw, places, qrels.relevance[extra])
    retrieved = np.insert(np.ones(len(order), dtype=bool), places, False)
    is_query_start = differs_from_previous(codes)
    block_changes = np.ones(len(codes), dtype=bool)  # a block per row: the order is the ranking's
    if ties == "average":
        # Blocks of equal scores; the rows not retrieved form one more block, below a retrieved score of -inf.
        scores = np.insert(np.maximum(score[order], np.finfo(np.float64).min), places, -np.inf)
        block_changes = differs_from_previous(scores) | is_query_start
    # The top grade of the graded measures (ERR, nERR, INST, INSQ): the qrels' largest judgement, whichever queries
    # the run answers, so that a query's value never depends on the other queries.
    top_label = np.float64(max(np.max(qrels.relevance, initial=0), 0))
    rows = Rows(codes, raw, retrieved, block_changes, relevance_level, num_docs, top_label, n_retrieved)
    ranked_codes = codes[is_query_start]
    parts = [Part(rows.judged_ranking(depth=depth))] if laws is None else rows.mixture(ranked_codes, *laws)
    ranked_query = np.zeros(len(vocabulary), dtype=bool)
    ranked_query[ranked_codes] = True
    # An evaluated query whose judgements are all negative, with no row retrieved, has no row at all: it scores 0.
    missing = np.flatnonzero(evaluated & ~ranked_query)
    # trec_eval's quirk (m_num_rel.c, te_calc_avg_num_rel): under -c, num_rel's summary counts the judgements
    # above 0 in the whole qrels, whatever the relevance level, rather than summing the queries' values.
    summaries = {"num_rel": int(np.count_nonzero(qrels.relevance > 0))} if complete else {}
    return Evaluation(parts, vocabulary[ranked_query], vocabulary[missing], summaries)


@dataclass
class Rows:
    """The rows of the evaluated queries in rank order (retrieved ones first), which their judged rankings take.

    ``block_changes`` marks the first row of each block of tied scores (of
    each query, without averaging).
    """

    codes: np.ndarray
    raw: np.ndarray
    retrieved: np.ndarray
    block_changes: np.ndarray
    level: int
    num_docs: int
    top_label: np.float64  # the qrels' largest judgement: the top grade of every query's graded measures
    n_retrieved: np.ndarray | None = None  # per query code, where rows below the last judged one were left out

    def judged_ranking(self, rows=slice(None), *, depth=None):
        """The JudgedRanking of some ``rows`` (whole queries), with only their top ``depth`` retrieved.

        The blocks of tied scores wholly below the depth are not retrieved;
        one that straddles it is, and the ranking's depth limits what counts
        (:class:`~sklearn_rankmetrics._core._ranking.Ranking`).
        """
        codes, raw, retrieved, changes = (
            values[rows] for values in (self.codes, self.raw, self.retrieved, self.block_changes)
        )
        is_query_start = differs_from_previous(codes)
        if depth is not None:
            positions = positions_in_segments(np.flatnonzero(is_query_start), len(codes))
            block_first = positions[np.maximum.accumulate(np.where(changes, np.arange(len(codes)), 0))]
            retrieved = retrieved & (block_first < depth)
            if not (retrieved & (positions >= depth)).any():
                depth = None
            # The rows not retrieved form one block, the last of their query.
            after_retrieved = np.concatenate(([True], retrieved[:-1])) | is_query_start
            changes = (changes & retrieved) | (~retrieved & after_retrieved)
        query_starts = np.flatnonzero(is_query_start)
        block_starts = None if changes.all() else np.flatnonzero(changes)
        labels = np.maximum(raw, 0).astype(np.float64)
        retrieved = None if retrieved.all() else retrieved
        ranking = Ranking(labels, query_starts, block_starts, retrieved=retrieved, depth=depth)
        ranking.top_label = self.top_label  # the qrels': ERR, nERR, INST and INSQ scale their gains by it
        n_retrieved = None if self.n_retrieved is None else self.n_retrieved[codes[query_starts]]
        return JudgedRanking(ranking, raw, self.level, self.num_docs, n_retrieved)

    def mixture(self, ranked_codes, law_codes, law_depths, law_weights):
        """The parts of judged rankings whose depths follow laws: one part per depth, of the queries it may be.

        ``law_codes`` names the queries with a law, each value of which is a
        depth and its chance; the other queries make one more part, without
        a depth.
        """
        ranked = np.isin(law_codes, ranked_codes)  # -J may leave a query no row: it scores as a missing one
        law_codes, law_depths, law_weights = law_codes[ranked], law_depths[ranked], law_weights[ranked]
        fixed = ~np.isin(self.codes, law_codes)
        parts = []
        if fixed.any():
            parts.append(Part(self.judged_ranking(fixed), np.flatnonzero(~np.isin(ranked_codes, law_codes))))
        for depth in np.unique(law_depths):
            at = law_depths == depth
            codes, weights = law_codes[at], law_weights[at]
            rows = np.isin(self.codes, codes)
            parts.append(
                Part(self.judged_ranking(rows, depth=int(depth)), np.searchsorted(ranked_codes, codes), weights)
            )
        return parts or [Part(self.judged_ranking())]  # no query left a row


def ranked(code, score, doc, raw, *, ties, max_depth):
    """The retrieved rows in rank order, cut at ``max_depth``: the one tie-and-depth step of every evaluation.

    ``ties=None`` is trec_eval's order (descending score, then descending
    document id); ``"stable"`` and ``"average"`` keep the input order of equal
    scores (``"average"`` averages over their orderings later);
    ``"pessimistic"`` and ``"optimistic"`` put the lowest (highest) judgement
    first, -2 (pooled, unjudged) and -1 (not in the qrels) below 0. The cut
    comes after: it takes the top ``max_depth`` of that order, as trec_eval's
    -M does; with ``"average"``, a block of tied scores that straddles
    ``max_depth`` is kept whole, and the depth returned (else None) limits
    what counts as retrieved, in every ordering of the block. Returns the
    order of the rows, their query codes and that depth.
    """
    if not len(code):  # an empty run, or none of its queries judged: nothing to order
        return np.zeros(0, dtype=np.intp), code, None
    if ties is None:
        order, sorted_code = trec_order(code, score, doc)
    else:
        policy = "stable" if ties == "average" else ties
        order, sorted_code, _ = rank_order(code, score, ties=policy, y_true=raw)
    if max_depth is None:
        return order, sorted_code, None
    position = positions_in_segments(np.flatnonzero(differs_from_previous(sorted_code)), len(order))
    shallow = position < max_depth
    depth = None
    if ties == "average":
        # The rows past the depth that tie with the last row above it (row `edge` of their query).
        deep = np.flatnonzero(~shallow)
        edge = deep - position[deep] + max_depth - 1
        tied = deep[score[order[deep]] == score[order[edge]]]
        if len(tied):
            shallow[tied], depth = True, max_depth
    return order[shallow], sorted_code[shallow], depth


def judged_depth_laws(code, raw, score, depth):
    """With judged_only, the law of the depth of each query's judged ranking where ``depth`` cuts a tie block.

    trec_eval's -J removes the unjudged documents after the cut, which moves
    the judged ones up: a query whose rows (in rank order: ``code``, ``raw``,
    ``score``) run past the depth keeps its a' judged ones above its last
    block, of m rows with j judged, and the judged ones among that block's
    v places above the depth: a hypergeometric number T (m rows, j marked, v
    drawn). Its judged ranking has depth a' + T, which averaging over the
    block's orderings takes with T's chances (the judged rows of the block
    fill those places in every order alike).

    Returns the query codes, the depths and their chances, one per value.
    """
    starts = np.flatnonzero(differs_from_previous(code))
    ends = np.append(starts[1:], len(code))
    cut = ends - starts > depth
    starts, ends = starts[cut], ends[cut]
    run_starts = np.flatnonzero(differs_from_previous(score) | differs_from_previous(code))
    block = run_starts[np.searchsorted(run_starts, ends, "left") - 1]  # each cut query's last block
    judged_before = np.concatenate(([0], np.cumsum(raw >= 0)))
    above, in_block = judged_before[block] - judged_before[starts], judged_before[ends] - judged_before[block]
    queries, depths, chances = [], [], []
    for members, count, law in hypergeometric_laws(ends - block, in_block, depth - (block - starts), together=True):
        kept = law > 0
        queries.append(np.broadcast_to(code[starts[members], None], law.shape)[kept])
        depths.append((above[members, None] + count)[kept])
        chances.append(law[kept])
    return np.concatenate(queries), np.concatenate(depths), np.concatenate(chances)


def trec_order(code, score, doc):
    """The rows in rank order: by query, descending score, then (trec_eval) descending document id.

    Run files usually list each query's documents together by descending
    score: that is checked in one pass, and then only the queries need
    grouping (a radix sort) and only the runs of tied scores re-sorting.
    """
    same_query = code[1:] == code[:-1]
    contiguous = np.count_nonzero(~same_query) + 1 == np.count_nonzero(np.bincount(code))
    if contiguous and np.all((score[1:] <= score[:-1]) | ~same_query):
        if np.any(code[1:] < code[:-1]):
            order = group_by_query(code)
            sorted_code, sorted_score = code[order], score[order]
        else:
            order, sorted_code, sorted_score = np.arange(len(code)), code, score
        tied = np.flatnonzero((sorted_score[1:] == sorted_score[:-1]) & (sorted_code[1:] == sorted_code[:-1])) + 1
    else:
        order, sorted_code, changes = rank_order(code, score, ties="stable")
        tied = np.flatnonzero(~changes[1:] & (sorted_code[1:] == sorted_code[:-1])) + 1
    if len(tied):
        # Each run of equal scores, re-sorted by document id, descending: the tied rows and the row above each.
        in_run = np.zeros(len(order), dtype=bool)
        in_run[tied] = in_run[tied - 1] = True
        rows = np.flatnonzero(in_run)
        is_tied = np.zeros(len(order), dtype=bool)
        is_tied[tied] = True
        run_id = np.cumsum(~is_tied[rows])
        ascending = rows[np.lexsort((doc[order[rows]], run_id))]
        first = np.searchsorted(run_id, run_id, "left")
        after = np.searchsorted(run_id, run_id, "right")
        order[rows] = order[ascending[first + after - 1 - np.arange(len(rows))]]
    return order, sorted_code


def judgements(qrels_code, qrels_doc, relevance, retrieved_code, retrieved_doc, names):
    """The retrieved rows judged in the qrels (increasing), and the qrels row of each.

    ``names`` (the query vocabulary and the qrels' document ids) name the
    query and document of a duplicate in the error.
    """
    vocabulary, doc_names = names
    documents, doc_code = np.unique(qrels_doc, return_inverse=True)
    key = qrels_code.astype(np.int64) * len(documents) + doc_code.reshape(-1)
    by_key, sorted_key = check_judged_once(key, doc_names, lambda row: vocabulary[qrels_code[row]])
    # Most retrieved documents are judged for no query at all: only the others need the (query, document) key.
    known = maybe_among(retrieved_doc, documents)
    place = np.minimum(np.searchsorted(documents, retrieved_doc[known]), len(documents) - 1)
    exact = documents[place] == retrieved_doc[known]
    known, place = known[exact], place[exact]
    retrieved_key = retrieved_code[known].astype(np.int64) * len(documents) + place
    slot = np.minimum(np.searchsorted(sorted_key, retrieved_key), len(sorted_key) - 1)
    found = sorted_key[slot] == retrieved_key
    return known[found], by_key[slot[found]]


def check_judged_once(key, doc_names, query_name):
    """Refuse qrels that judge one document of a query twice, as trec_eval does.

    ``key`` holds one integer per qrels row, equal for rows of the same
    (query, document) pair; ``doc_names`` and ``query_name(row)`` name the
    pair in the error. Returns the rows in the stable order of ``key`` and
    the sorted keys.
    """
    by_key = np.argsort(key, kind="stable")
    sorted_key = key[by_key]
    repeated = np.flatnonzero(sorted_key[1:] == sorted_key[:-1])
    if len(repeated):
        row = by_key[repeated[0] + 1]
        raise InputError(
            "qrels",
            f"the qrels judge document {shown(doc_names[row])} of query {shown(query_name(row))} twice; give each "
            "(query, document) pair one judgement.",
        )
    return by_key, sorted_key


def judgement_codes(n_rows, judged_rows, qrels_rows, relevance):
    """Each of ``n_rows`` retrieved rows' judgement (or NONPOOL, UNJUDGED) and its qrels row (-1: none), from
    the rows judged (:func:`judgements`)."""
    qrels_row = np.full(n_rows, -1, dtype=np.int64)
    qrels_row[judged_rows] = qrels_rows
    raw = np.full(n_rows, NONPOOL, dtype=np.int64)
    raw[judged_rows] = np.where(relevance[qrels_rows] < 0, UNJUDGED, relevance[qrels_rows])
    return raw, qrels_row


def check_retrieved_once(code, doc, names):
    """Refuse a document that the run retrieves twice for one query, as trec_eval does (within max_depth).

    Equal (query, document) pairs have equal 64-bit hashes: one sort of the
    hashes finds the few candidates, which are then compared exactly.
    ``names`` (the query vocabulary and the rows' document ids) name them.
    """
    if len(code) < 2:
        return

    def keys():  # one array of the run's size, computed in place
        key = code.astype(np.uint64)
        key *= GOLDEN
        key ^= id_hash(doc)
        return key

    sorted_key = keys()
    sorted_key.sort()  # in place: the keys are computed again in the rare case of a repeat
    repeated = sorted_key[1:][sorted_key[1:] == sorted_key[:-1]]
    if not len(repeated):
        return
    suspects = np.flatnonzero(np.isin(keys(), repeated))
    suspects = suspects[np.lexsort((doc[suspects], code[suspects]))]
    twice = (doc[suspects[1:]] == doc[suspects[:-1]]) & (code[suspects[1:]] == code[suspects[:-1]])
    if twice.any():
        vocabulary, doc_names = names
        row = suspects[1:][twice][0]
        raise InputError(
            "run",
            f"the run retrieves document {shown(doc_names[row])} twice for query {shown(vocabulary[code[row]])}; "
            "a run lists each document once per query.",
        )


# Fibonacci hashing's multiplier, odd: multiplying by it permutes the 64-bit integers.
GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def id_hash(ids):
    """A 64-bit hash of each id: integers as they are, strings 8 bytes at a time, objects by Python's hash.

    Equal ids have equal hashes, whatever the width of their arrays: the
    zero padding of a wider array adds nothing (the hash is a sum of the
    words, each times its own odd multiplier), so that ids of two arrays
    (a run's and its qrels') compare by their hashes.
    """
    if ids.dtype.kind in "iu":
        return ids.astype(np.uint64, copy=False)
    if ids.dtype.kind not in "SU":
        return np.fromiter(map(hash, ids), dtype=np.int64, count=len(ids)).view(np.uint64)
    hashes = np.zeros(len(ids), dtype=np.uint64)
    for power, word in enumerate(little_endian_words(np.ascontiguousarray(ids)), start=1):
        word *= np.uint64(pow(int(GOLDEN), power, 2**64))  # odd: a multiplier that loses no bit
        hashes += word
    return hashes


def little_endian_words(ids):
    """Each 8 bytes of fixed-width ids (the last ones zero padded) as little-endian integers, one array at a time.

    Read in place, without a padded copy of the ids: a word inside each id
    by an unaligned strided view, the last partial one from the 8 bytes that
    end the id, shifted.
    """
    count, width = len(ids), ids.itemsize
    if width < 8:
        padded = np.zeros((count, 8), dtype=np.uint8)
        padded[:, :width] = ids.view(np.uint8).reshape(count, width)
        yield padded.view("<u8").reshape(-1)
        return
    for offset in range(0, width - 7, 8):
        yield np.ndarray((count,), dtype="<u8", buffer=ids, offset=offset, strides=(width,)).copy()
    if width % 8:
        last = np.ndarray((count,), dtype="<u8", buffer=ids, offset=width - 8, strides=(width,)).copy()
        last >>= np.uint64(8 * (8 - width % 8))
        yield last


def maybe_among(values, members):
    """Indices of the ``values`` that may be among the ``members``: all of those that are, and a few more.

    A one-hash Bloom filter (Fibonacci hashing of the ids' 64-bit hashes, or
    of uint64 keys themselves) clears most of the others with one lookup
    each, far faster than a binary search: of 2**bits places, about 32 per
    member (a table that stays in the cache; a non-member passes 1 time in
    32), at most 2**24. The exact test follows.
    """
    bits = int(np.clip(np.ceil(np.log2(max(len(members), 1))) + 5, 10, 24))
    shift = np.uint64(64 - bits)
    present = np.zeros(2**bits, dtype=bool)
    present[(id_hash(members) * GOLDEN) >> shift] = True
    found = []
    for start in range(0, len(values), BLOCK_ROWS):  # a block at a time: small temporaries, reused
        slots = id_hash(values[start : start + BLOCK_ROWS]) * GOLDEN
        slots >>= shift
        found.append(np.flatnonzero(present[slots]) + start)
    return np.concatenate(found) if found else np.zeros(0, dtype=np.intp)


# Rows hashed at a time where a pass over millions of rows needs a temporary array per row.
BLOCK_ROWS = 2**20
