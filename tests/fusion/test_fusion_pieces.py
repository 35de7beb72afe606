"""Large fusions run a piece of the queries at a time, on threads: the same fused run, bit for bit."""

from dataclasses import astuple

import numpy as np
import pytest

import sklearn_rankmetrics.fusion._pieces as pieces_module
from sklearn_rankmetrics.fusion import fuse
from sklearn_rankmetrics.fusion._fuse import by_descending_id
from sklearn_rankmetrics.fusion._lists import candidate_codes, exact_candidate_codes, id_word, read_runs
from sklearn_rankmetrics.fusion._methods import merge_network, sort_columns
from sklearn_rankmetrics.trec import Qrels, Run

UNSUPERVISED = (
    "sum mnz anz max min med gmnz wsum wmnz mixed isr log_isr logn_isr rrf rbc bordafuse w_bordafuse condorcet"
).split()
SUPERVISED = "mapfuse posfuse probfuse segfuse slidefuse bayesfuse".split()


def random_runs(seed, n_runs=3, n_queries=40):
    """Runs with tied scores, some queries missing, each run listing the queries in its own order, one run listing a
    query in two places, ids of several widths."""
    rng = np.random.default_rng(seed)
    runs = []
    for index in range(n_runs):
        rows = []
        for query in rng.permutation(n_queries) if index else range(n_queries):
            if rng.random() < 0.1:
                continue
            docs = rng.choice(60, int(rng.integers(1, 30)), replace=False)
            scores = rng.integers(0, 6, len(docs)).astype(float) if rng.random() < 0.5 else rng.random(len(docs))
            names = [f"d{doc}" if doc % 4 else f"document-{doc}" for doc in docs]
            rows += [(f"q{query}", doc, score) for doc, score in zip(names, scores, strict=True)]
        if index == 2:  # the first query's rows in two places
            first = [row for row in rows if row[0] == rows[0][0]]
            rest = [row for row in rows if row[0] != rows[0][0]]
            rows = first[: len(first) // 2] + rest + first[len(first) // 2 :]
        query, doc, score = zip(*rows, strict=True)
        runs.append(Run(np.array(query), np.array(doc), np.array(score), f"run{index}"))
    return runs


def assert_same_run(left, right):
    np.testing.assert_array_equal(left.query_id, right.query_id)
    np.testing.assert_array_equal(left.doc_id, right.doc_id)
    assert left.score.tobytes() == right.score.tobytes()
    assert left.name == right.name


@pytest.mark.parametrize("seed", range(3))
def test_piece_by_piece_fusion_is_the_whole_fusion_bit_for_bit(seed, monkeypatch):
    runs = random_runs(seed)
    rng = np.random.default_rng(seed)
    normalizations = [None, "min-max", "zmuv", "borda"]
    cases = [dict(method=method, normalization=rng.choice(normalizations)) for method in UNSUPERVISED]
    cases += [
        dict(method="rrf", ties="trec_eval", depth=7),
        dict(method="sum", normalization="min-max-inverted", missing="min"),
        dict(method="wsum", weights=[0.5, 0.2, 0.3], missing=0.1, normalization="sum"),
        dict(method="w_bordafuse", weights=[0.3, 0.9, 0.45]),  # its per-query sums once came from BLAS, by shape
        dict(method="posfuse", qrels={f"q{q}": {f"d{d}": int(d % 3 == 0) for d in range(30)} for q in range(20)}),
        dict(method="probfuse", qrels={f"q{q}": {f"d{d}": 1 for d in range(5)} for q in range(40)}, n_segments=4),
        dict(method=lambda scores, ranks: np.nansum(scores, axis=1) - np.nanmin(ranks, axis=1)),
    ]
    # Supervised methods learn sums over the training queries: from the pieces' rows put in the whole's order.
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in range(0, 60, 3)} for q in range(0, 40, 2)}
    cases += [dict(method=method, qrels=qrels) for method in SUPERVISED]
    cases += [
        dict(method=method, qrels=qrels, train_runs=random_runs(seed + 10), ties="trec_eval") for method in SUPERVISED
    ]
    whole = [fuse(runs, **case) for case in cases]
    monkeypatch.setattr(pieces_module, "PIECE_ROWS", 50)
    assert len(pieces_module.query_pieces(read_runs(runs)[0])) > 10
    for case, expected in zip(cases, whole, strict=True):
        assert_same_run(fuse(runs, **case), expected)


def test_the_threads_change_nothing(monkeypatch):
    runs = random_runs(7, n_runs=4, n_queries=200)
    monkeypatch.setattr(pieces_module, "PIECE_ROWS", 500)
    monkeypatch.setenv("RANKMETRICS_NUM_THREADS", "1")
    alone = fuse(runs, method="rrf", normalization="min-max")
    monkeypatch.setenv("RANKMETRICS_NUM_THREADS", "4")
    assert_same_run(fuse(runs, method="rrf", normalization="min-max"), alone)


def test_runs_that_list_their_queries_alike_are_cut_into_slices_without_copies(monkeypatch):
    rng = np.random.default_rng(0)
    query = np.repeat([f"q{q}" for q in range(100)], 20)  # q0, q1, ..., q99: not the order of their ids
    runs = [Run(query, np.array([f"d{d}" for d in rng.integers(0, 10**6, len(query))]), -np.arange(2000.0), "r")]
    runs.append(Run(query, runs[0].doc_id[::-1].copy(), -np.arange(2000.0), "s"))
    read = read_runs(runs)[0]
    monkeypatch.setattr(pieces_module, "PIECE_ROWS", 300)
    pieces = pieces_module.query_pieces(read)
    assert len(pieces) == 14
    for piece in pieces:
        for run, part in zip(read, piece, strict=True):
            assert np.shares_memory(part.doc_id, run.doc_id) and np.shares_memory(part.score, run.score)
    fused = fuse(runs, method="rrf")
    assert fused.query_id.tolist() == sorted(fused.query_id.tolist())  # by query id, whatever the pieces


@pytest.mark.parametrize("width", range(1, 12))
def test_candidate_codes_and_sortable_words_are_exact_at_every_width(width):
    rng = np.random.default_rng(width)
    doc = np.array([bytes(rng.integers(33, 40, rng.integers(1, width + 1)).astype(np.uint8)) for _ in range(4000)])
    doc = doc.astype(f"S{width}")
    query = np.sort(rng.integers(0, 3, len(doc)))
    codes, first = candidate_codes(query, doc)
    expected, _ = exact_candidate_codes(query, doc)
    # The same partition of the rows: a code per (query, document), whatever the numbering.
    pairs = {(int(c), int(e)) for c, e in zip(codes, expected, strict=True)}
    assert len(pairs) == len(set(codes.tolist())) == len(set(expected.tolist()))
    assert (doc[first[codes]] == doc).all() and (query[first[codes]] == query).all()
    ordered = id_word(doc)
    if width > 8:
        assert ordered is None
    else:
        np.testing.assert_array_equal(np.argsort(ordered, kind="stable"), np.argsort(doc, kind="stable"))


@pytest.mark.parametrize(("n_runs", "n_candidates", "per_run"), [(5, 300, 200), (300, 3000, 20)])
def test_order_statistics_equal_a_loop_over_candidates_in_either_layout(n_runs, n_candidates, per_run):
    # 5 runs: a (candidates x runs) table sorted per row; 300 runs of 20 of 3,000 candidates: one lexsort.
    from sklearn_rankmetrics.fusion._methods import order_statistic

    rng = np.random.default_rng(n_runs)
    run = np.repeat(np.arange(n_runs), per_run)
    candidate = np.concatenate([rng.choice(n_candidates, per_run, replace=False) for _ in range(n_runs)])
    value = rng.integers(0, 4, len(run)) + rng.choice([0.0, 0.5], len(run))  # ties
    count = np.bincount(candidate, minlength=n_candidates)
    for method, statistic in (("max", np.max), ("min", np.min), ("med", np.median)):
        expected = [statistic(value[candidate == c]) if count[c] else 0.0 for c in range(n_candidates)]
        np.testing.assert_array_equal(order_statistic(candidate, run, value, count, n_runs, method), expected)


def test_a_zero_fused_by_max_min_or_median_is_positive_whatever_the_sort():
    # A weight of 0 makes -0.0 of a negative score and 0.0 of a positive one: tied values that an unstable sort
    # leaves in either order (the table sort, for few runs) or the lexsort keeps (many sparse runs).
    from sklearn_rankmetrics.fusion._methods import order_statistic

    for n_runs, n_candidates in ((20, 10), (300, 30000)):
        run = np.repeat(np.arange(n_runs), 5)
        candidate = np.tile(np.arange(5), n_runs)
        value = np.where(run % 2, -0.0, 0.0)
        count = np.bincount(candidate, minlength=n_candidates)
        for method in ("max", "min", "med"):
            fused = order_statistic(candidate, run, value, count, n_runs, method)
            assert not np.signbit(fused).any()


def test_a_callable_method_is_called_once_on_every_document(monkeypatch):
    runs = random_runs(3)
    monkeypatch.setattr(pieces_module, "PIECE_ROWS", 40)
    shapes = []

    def centred(scores, ranks):  # depends on the whole table
        shapes.append(scores.shape)
        return np.nansum(scores - np.nanmean(scores), axis=1)

    fused = fuse(runs, method=centred)
    assert len(shapes) == 1 and shapes[0][0] == len(fused.score)


@pytest.mark.parametrize("piece_rows", [1, 2, 37])
def test_a_document_listed_twice_is_named_as_in_the_whole_runs(piece_rows, monkeypatch):
    runs = random_runs(4)
    for index, end in ((1, -1), (2, 0)):  # a duplicate in runs 1 and 2: in their last and first queries with 2+ rows
        run = runs[index]
        query, counts = np.unique(run.query_id, return_counts=True)
        rows = np.flatnonzero(run.query_id == query[counts >= 2][end])
        doc_id = run.doc_id.astype(object)
        doc_id[rows[1]] = doc_id[rows[0]]
        runs[index] = Run(run.query_id, doc_id.astype(str), run.score, run.name)
    with pytest.raises(ValueError) as whole:
        fuse(runs)
    monkeypatch.setattr(pieces_module, "PIECE_ROWS", piece_rows)
    with pytest.raises(ValueError) as pieced:
        fuse(runs)
    assert str(pieced.value) == str(whole.value) and "run 'run1' retrieves document" in str(whole.value)


@pytest.mark.parametrize("piece_rows", [1, 37])
def test_a_document_judged_or_listed_twice_in_training_is_named_as_in_the_whole_runs(piece_rows, monkeypatch):
    runs, train_runs = random_runs(5), random_runs(6)
    query = np.array(["q3", "q3", "q30", "q30", "q1"])  # two queries judge a document twice
    qrels = Qrels(query, np.array(["d1", "d1", "d2", "d2", "d9"]), np.array([1, 0, 1, 1, 2]))
    doubled = Run(*(np.concatenate((column, column[:1])) for column in astuple(train_runs[1])[:3]), "run1")
    errors = []
    for size in (None, piece_rows):
        if size is not None:
            monkeypatch.setattr(pieces_module, "PIECE_ROWS", size)
        for case in (dict(qrels=qrels), dict(qrels=qrels, train_runs=[train_runs[0], doubled, train_runs[2]])):
            with pytest.raises(ValueError) as error:
                fuse(runs, method="posfuse", **case)
            errors.append(str(error.value))
    assert errors[:2] == errors[2:]
    assert "judge document 'd1' of query 'q3' twice" in errors[0] and "retrieves document" in errors[1]


@pytest.mark.parametrize("width", range(1, 9))
def test_ids_sorted_descending_as_by_an_argsort_at_every_width(width):
    rng = np.random.default_rng(width)
    for shared in (0, max(width - 2, 0), width - 1):  # ids differing in every byte, or in their last bytes only
        raw = rng.integers(33, 127, (3000, width)).astype(np.uint8)
        raw[:, :shared] = 65
        raw[np.arange(width)[None, :] >= rng.integers(1, width + 1, 3000)[:, None]] = 0  # shorter ids
        ids = raw.view(f"S{width}").reshape(-1)
        doc = id_word(ids)
        order = by_descending_id(doc)
        np.testing.assert_array_equal(ids[order], ids[np.argsort(~doc, kind="stable")])
        assert sorted(order) == list(range(len(ids)))


def test_short_ids_number_each_querys_candidates_by_descending_id():
    query = np.repeat(np.arange(3), 4)
    doc = np.array([b"d2", b"d10", b"d2", b"e", b"a", b"b", b"a", b"c", b"z9", b"z1", b"z10", b"z9"])
    codes, first = candidate_codes(query, doc)
    expected, _ = exact_candidate_codes(query, doc)
    assert len(np.unique(codes)) == len(np.unique(expected))
    for group in np.unique(expected):  # the same groups
        assert len(np.unique(codes[expected == group])) == 1
    listed = doc[first]
    assert list(listed) == [b"e", b"d2", b"d10", b"c", b"b", b"a", b"z9", b"z10", b"z1"]


@pytest.mark.parametrize("n", range(1, 11))
def test_the_merge_network_sorts_any_items(n):
    # The 0-1 principle: a comparator network that sorts every sequence of 0s and 1s sorts every sequence.
    bits = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
    table = bits.T.astype(np.float64)
    for upper, lower in merge_network(n):
        assert upper < lower
        table[[upper, lower]] = np.sort(table[[upper, lower]], axis=0)
    np.testing.assert_array_equal(table, np.sort(bits.T, axis=0))


@pytest.mark.parametrize("n_rows", [1, 2, 5, 8, 9, 13])
def test_columns_sorted_as_by_numpy(n_rows):
    rng = np.random.default_rng(n_rows)
    table = np.where(rng.random((n_rows, 500)) < 0.3, np.inf, rng.integers(-3, 4, (n_rows, 500)) * 0.5)
    expected = np.sort(table, axis=0)
    sort_columns(table)
    np.testing.assert_array_equal(table, expected)
