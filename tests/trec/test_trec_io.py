"""The TREC readers, and how ids travel from them (or from dicts and DataFrames) to the join."""

import gzip
import io
import tracemalloc

import numpy as np
import pytest
import pytrec_eval
from hypothesis import given
from hypothesis import strategies as st
from reader_paths import general_calls, general_only

from sklearn_rankmetrics.trec import _general_reader, evaluate_run, read_qrels, read_run
from sklearn_rankmetrics.trec._io import read_qrels_bytes, read_run_bytes


def run_file(rows, tag="r"):
    """A run file's bytes from (query, doc, score) rows; ids and scores as bytes or str."""
    lines = []
    for rank, (query, doc, score) in enumerate(rows, start=1):
        fields = [query, "Q0", doc, str(rank), score, tag]
        lines.append(b" ".join(field if isinstance(field, bytes) else str(field).encode() for field in fields))
    return b"".join(line + b"\n" for line in lines)


def qrels_file(rows):
    return b"".join(
        b" ".join(f if isinstance(f, bytes) else str(f).encode() for f in (query, 0, doc, rel)) + b"\n"
        for query, doc, rel in rows
    )


# ---- 3. numeric ids order as the text trec_eval reads ------------------------------------------


def test_numeric_ids_break_ties_as_strings_whatever_the_route(tmp_path):
    pd = pytest.importorskip("pandas")
    # Equal scores: trec_eval ranks by descending docno, as strings: "9" before "10" before "1".
    qrels = {"7": {"9": 1, "10": 0, "1": 1, "100": 0}}
    run = {"7": {"9": 2.0, "10": 2.0, "1": 2.0, "100": 2.0}}
    measures = ["P.1", "P.2", "map", "recip_rank", "relstring"]
    expected = evaluate_run(qrels, run, measures, average=False)
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"P_1", "P_2", "map", "recip_rank"}).evaluate(run)
    assert expected["P_1"][0] == reference["7"]["P_1"] == 1.0  # "9" comes first
    assert expected["map"][0] == pytest.approx(reference["7"]["map"], rel=1e-12)
    assert expected["relstring"][0] == "1001"  # 9, 100, 10, 1: descending as strings
    int_qrels = pd.DataFrame({"query_id": [7] * 4, "doc_id": [9, 10, 1, 100], "relevance": [1, 0, 1, 0]})
    int_run = pd.DataFrame({"query_id": [7] * 4, "doc_id": [9, 10, 1, 100], "score": [2.0] * 4})
    (tmp_path / "qrels").write_bytes(qrels_file([("7", d, r) for d, r in qrels["7"].items()]))
    (tmp_path / "run").write_bytes(run_file([("7", d, s) for d, s in run["7"].items()]))
    routes = [
        (int_qrels, int_run),
        ({7: {9: 1, 10: 0, 1: 1, 100: 0}}, {7: {9: 2.0, 10: 2.0, 1: 2.0, 100: 2.0}}),
        (int_qrels, run),
        (tmp_path / "qrels", tmp_path / "run"),
        (read_qrels(tmp_path / "qrels"), read_run(tmp_path / "run")),
        (qrels, int_run.astype({"doc_id": np.uint32})),
    ]
    for route_qrels, route_run in routes:
        result = evaluate_run(route_qrels, route_run, measures, average=False)
        assert result.keys() == expected.keys() and list(result["qid"]) == ["7"]
        for name, values in expected.items():
            np.testing.assert_array_equal(result[name], values, err_msg=name)


def test_float_ids_are_refused_rather_than_read_as_9_0():
    pd = pytest.importorskip("pandas")
    qrels = {"1": {"9": 1}}
    # A float id would read "9.0" and silently miss the judged "9": refused, naming the column and the fix.
    frame = pd.DataFrame({"query_id": [1], "doc_id": [9.0], "score": [1.0]})
    with pytest.raises(TypeError, match=r"the run's doc_id must be str, bytes or integers.*float64.*astype\(int\)"):
        evaluate_run(qrels, frame)
    with pytest.raises(TypeError, match=r"the run's query_id must be .*got 1\.0 of type float"):
        evaluate_run(qrels, {1.0: {"9": 1.0}})
    assert evaluate_run(qrels, frame.astype({"doc_id": int}), ["map"]) == {"map": 1.0}


# ---- 4. ids are bytes: distinct, and ordered as strcmp orders them ------------------------------


def test_non_utf8_ids_stay_distinct(tmp_path):
    (tmp_path / "qrels").write_bytes(b"q1 0 caf\xe9 1\nq1 0 caf\xe8 0\n")
    (tmp_path / "run").write_bytes(b"q1 Q0 caf\xe8 1 2.0 r\nq1 Q0 caf\xc3\xa9 2 1.0 r\n")
    qrels, run = read_qrels(tmp_path / "qrels"), read_run(tmp_path / "run")
    assert len(set(qrels.doc_id)) == 2 and len(set(run.doc_id)) == 2
    # Lossless: the str ids give the file's bytes back.
    assert [doc.encode("utf-8", "surrogateescape") for doc in qrels.doc_id] == [b"caf\xe9", b"caf\xe8"]
    assert list(run.doc_id) == ["caf\udce8", "café"]
    for route in [(tmp_path / "qrels", tmp_path / "run"), (qrels, run)]:
        result = evaluate_run(*route, ["num_rel", "num_rel_ret", "num_ret", "P.1"])
        # caf\xe8 is judged 0, caf\xe9 (relevant) is not retrieved, café (UTF-8) is judged nowhere.
        assert result == {"num_rel": 1, "num_rel_ret": 0, "num_ret": 2, "P_1": 0.0}


def test_ties_between_non_ascii_ids_break_in_strcmp_order(tmp_path):
    # strcmp compares unsigned bytes: b"z" < b"\x80" < b"\xc3\xa9" (é in UTF-8) < b"\xe9" < b"\xef\xbf\xbd";
    # as decoded text (surrogate escapes for the invalid bytes) "\udc80" would sort after "é".
    ids = [b"d\xc3\xa9", b"d\x80", b"d\xef\xbf\xbd", b"d\xe9", b"dz"]
    judgements = {doc: level for level, doc in enumerate(ids, start=1)}
    (tmp_path / "qrels").write_bytes(qrels_file([("q", doc, rel) for doc, rel in judgements.items()]))
    (tmp_path / "run").write_bytes(run_file([("q", doc, "1.5") for doc in ids]))
    expected = "".join(str(judgements[doc]) for doc in sorted(ids, reverse=True))  # descending, as trec_eval
    assert expected == "34125"
    as_text = {doc.decode("utf-8", "surrogateescape"): rel for doc, rel in judgements.items()}
    routes = [
        (tmp_path / "qrels", tmp_path / "run"),
        (read_qrels(tmp_path / "qrels"), read_run(tmp_path / "run")),
        ({"q": as_text}, {"q": dict.fromkeys(as_text, 1.5)}),
        (tmp_path / "qrels", {"q": dict.fromkeys(ids, 1.5)}),
    ]
    for qrels, run in routes:
        assert evaluate_run(qrels, run, ["relstring"], average=False)["relstring"][0] == expected


# ---- 8. scores parse exactly as float() --------------------------------------------------------


def read_scores(tokens):
    run = read_run_bytes(io.BytesIO(run_file([("q", f"d{i}", token) for i, token in enumerate(tokens)])))
    return run.score


def assert_same_bits(parsed, tokens):
    expected = np.array([float(token) for token in tokens])
    np.testing.assert_array_equal(parsed.view(np.int64), expected.view(np.int64), err_msg=str(tokens))


def test_score_tokens_of_hundreds_of_digits_parse_as_float():
    tokens = ["1" + "0" * 256, "0." + "0" * 255 + "5", "5" + "0" * 300, "-" + "9" * 400, "1" + "." * 256, "2.5"]
    with pytest.raises(ValueError, match=r"line 5: the score column must be a number; got '1\.\.\.\.\.\.\.\."):
        read_scores(tokens)
    del tokens[4]
    parsed = read_scores(tokens)
    assert parsed[0] == 1e256 and parsed[1] == 5e-256 and parsed[2] == 5e300 and parsed[3] == -np.inf
    assert_same_bits(parsed, tokens)


# Up to 20 random digits, some padded with zeros (before or after) to near 2**8 or 2**16 digits in all,
# where narrow digit counters would wrap around.
digits = st.builds(
    lambda core, zeros, before: "0" * zeros + core if before else core + "0" * zeros,
    st.text("0123456789", max_size=20),
    st.just(0) | st.integers(240, 270) | st.integers(65_520, 65_550),
    st.booleans(),
)

decimal_tokens = st.builds(
    lambda sign, whole, fraction, exponent: sign + whole + fraction + exponent,
    st.sampled_from(["", "-", "+"]),
    digits,
    st.just("") | digits.map(lambda digits: "." + digits),
    st.just("") | st.integers(-400, 400).map(lambda power: f"e{power}"),
).filter(lambda token: any(c.isdigit() for c in token.split("e")[0]))


def long_decimals(seed, count=40):
    """Scores of 16 to 18 random digits, signed, some with an exponent: past the 15 digits whose integer and power
    of ten make one correctly rounded division, within an int64 (a shortcut widened to 18 digits would misread
    about one in five). Drawn with numpy from a seed: hypothesis, shrinking towards simple values, draws few
    distinct digit strings."""
    rng = np.random.default_rng(seed)
    tokens = []
    for _ in range(count):
        n_digits = int(rng.integers(16, 19))
        digits = str(int(rng.integers(10 ** (n_digits - 1), 10**n_digits, dtype=np.int64)))
        point = int(rng.integers(0, n_digits + 1))
        exponent = f"e{int(rng.integers(-30, 31))}" if rng.random() < 0.2 else ""
        tokens.append(f"{rng.choice(['', '-', '+'])}{digits[:point]}.{digits[point:]}{exponent}")
    return tokens


score_tokens = st.lists(decimal_tokens | st.floats(allow_nan=False).map(repr), max_size=30)
# Scores of 16 to 18 digits that the widened shortcut misreads by one ulp.
MISREAD_BY_A_WIDENED_SHORTCUT = ["935184877270549.1", "9973.012828265959", "-993.7140408908737", "+91.32861726578061"]

# Every way a score reaches a parser: pyarrow on a file read in place, on bytes read whole (an open file) or
# decompressed; the general reader on tabs, on runs of spaces (its two ways of finding tokens), in chunks, after
# gzip, and on single spaces where pyarrow is not installed.
READER_PATHS = {
    "pyarrow, in place": (b" ", "path", False),
    "pyarrow, an open file": (b" ", "file", False),
    "pyarrow, gzip": (b" ", "gzip", False),
    "general, tabs": (b"\t", "path", True),
    "general, runs of spaces": (b"   ", "file", True),
    "general, chunks of 64 bytes": (b"\t", "chunks", True),
    "general, gzip": (b" \t", "gzip", True),
    "general, without pyarrow": (b" ", "without pyarrow", True),
}


def scores_read(tokens, path, separator, route):
    """The scores of a run file of ``tokens``, read by ``route``; and the files the general reader read."""
    content = run_file([("q", f"d{i}", token) for i, token in enumerate(tokens)]).replace(b" ", separator)
    path.write_bytes(gzip.compress(content) if route == "gzip" else content)
    with pytest.MonkeyPatch.context() as patch:
        if route == "chunks":
            patch.setattr(_general_reader, "CHUNK_BYTES", 64)
        if route == "without pyarrow":
            general_only(patch)
        calls = general_calls(patch)
        run = read_run_bytes(io.BytesIO(content) if route == "file" else path)
    return run.score, calls


@pytest.mark.parametrize("reader_path", list(READER_PATHS))
@given(tokens=score_tokens, seed=st.integers(0, 2**32 - 1))
def test_score_tokens_parse_exactly_as_float_on_every_reader_path(tmp_path_factory, reader_path, tokens, seed):
    separator, route, general = READER_PATHS[reader_path]
    tokens = tokens + long_decimals(seed)
    scores, calls = scores_read(tokens, tmp_path_factory.mktemp("run") / "run", separator, route)
    assert bool(calls) == general
    assert_same_bits(scores, tokens)


@pytest.mark.parametrize("reader_path", list(READER_PATHS))
def test_scores_of_16_to_18_digits_parse_exactly_on_every_reader_path(tmp_path, reader_path):
    separator, route, general = READER_PATHS[reader_path]
    tokens = MISREAD_BY_A_WIDENED_SHORTCUT * 10  # several chunks of 64 bytes
    scores, calls = scores_read(tokens, tmp_path / "run", separator, route)
    assert bool(calls) == general
    assert_same_bits(scores, tokens)


# ---- 15. a run without any line is an empty Run ------------------------------------------------


@pytest.mark.parametrize("content", [b"", b"\n", b"\n  \n\t\n", b"# only a comment\n\n# another", b"   "])
@pytest.mark.parametrize("compress", [False, True])
def test_a_run_without_lines_reads_as_an_empty_run(tmp_path, content, compress):
    path = tmp_path / ("run.gz" if compress else "run")
    path.write_bytes(gzip.compress(content) if compress else content)
    for reader in (read_run, read_run_bytes):
        run = reader(path)
        assert (len(run.query_id), len(run.doc_id), len(run.score)) == (0, 0, 0)
        assert run.score.dtype == np.float64 and run.name == ""
    assert read_run(path).doc_id.dtype.kind == "U" and read_run_bytes(path).doc_id.dtype.kind == "S"
    for reader in (read_qrels, read_qrels_bytes):
        with pytest.raises(ValueError, match="is empty: a qrels file needs at least one line"):
            reader(path)


# ---- 16. a broken gzip file is named ----------------------------------------------------------


def test_a_truncated_gzip_file_is_named(tmp_path):
    content = gzip.compress(run_file([("q", f"d{i}", i) for i in range(2000)]))
    path = tmp_path / "run.gz"
    path.write_bytes(content[: len(content) // 2])
    with pytest.raises(ValueError, match=rf"^{path}: cannot decompress"):
        read_run(path)
    with open(path, "rb") as file, pytest.raises(ValueError, match=rf"^{path}: cannot decompress"):
        read_run(file)
    path.write_bytes(content[:15])  # the header cut short
    with pytest.raises(ValueError, match=rf"^{path}: cannot decompress"):
        read_qrels(path)


def test_files_are_decompressed_by_their_content_not_their_name(tmp_path):
    content = run_file([("q", "d1", 1.0), ("q", "d2", 0.5)])
    (tmp_path / "plain.gz").write_bytes(content)
    (tmp_path / "packed.txt").write_bytes(gzip.compress(content))
    for path in (tmp_path / "plain.gz", tmp_path / "packed.txt"):
        assert list(read_run(path).doc_id) == ["d1", "d2"]


# ---- 18. memory of the order of the file whatever the id lengths ------------------------------


def long_id_run(n_queries=20, depth=25, long_id=b"D" * 20_000):
    rows = [(f"{q}", f"{q * 1000 + d}", f"{10 - d / 7:.3f}") for q in range(n_queries) for d in range(depth)]
    rows[len(rows) // 2] = (rows[len(rows) // 2][0], long_id, rows[len(rows) // 2][2])
    return run_file(rows)


@pytest.mark.parametrize("chunk_bytes", [_general_reader.CHUNK_BYTES, 1000])
def test_one_long_id_keeps_memory_of_the_order_of_the_file(tmp_path, monkeypatch, chunk_bytes):
    monkeypatch.setattr(_general_reader, "CHUNK_BYTES", chunk_bytes)  # also: the long id in one chunk of many
    content = long_id_run(n_queries=80)
    path = tmp_path / "run"
    path.write_bytes(content)
    for reader in (read_run, read_run_bytes):
        # Once untraced first: pyarrow's import and its threads' start are no cost of the file (started under
        # tracemalloc, a thread of them once crashed the worker when tracing stopped: Python 3.11's tracemalloc).
        reader(path)
        tracemalloc.start()
        try:
            run = reader(path)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        # Fixed-width ids as wide as the long one took 2,000 times the file (8,000 as str).
        assert peak < 20 * len(content), (reader.__name__, peak / len(content))
        assert run.doc_id.nbytes < 4 * len(content)
        assert len(run.doc_id) == 2000 and max(len(doc) for doc in run.doc_id) == 20_000
        assert list(run.doc_id[:3]) == (["0", "1", "2"] if reader is read_run else [b"0", b"1", b"2"])


@pytest.mark.parametrize("long_id", [b"D" * 5000, b"D" * 5000 + b"\xe9"])
def test_runs_with_a_long_id_evaluate_as_trec_eval(tmp_path, long_id):
    # The long id forces the other representation of ids through the join: same values, same tie order.
    rng = np.random.default_rng(0)
    docs = [long_id, b"d1", b"d22", b"d3", b"x", b"d3" + b"0" * 300]
    qrels = {f"q{q}": {doc: int(rng.integers(-1, 3)) for doc in docs if rng.random() < 0.7} for q in range(6)}
    run = {f"q{q}": {doc: float(rng.integers(0, 3)) for doc in docs if rng.random() < 0.8} for q in range(6)}
    (tmp_path / "qrels").write_bytes(qrels_file([(q, d, r) for q, docs in qrels.items() for d, r in docs.items()]))
    (tmp_path / "run").write_bytes(run_file([(q, d, s) for q, docs in run.items() for d, s in docs.items()]))
    measures = ["map", "P.1", "P.3", "recip_rank", "ndcg", "bpref", "num_rel_ret"]
    ours = evaluate_run(tmp_path / "qrels", tmp_path / "run", measures, average=False)
    assert read_run_bytes(tmp_path / "run").doc_id.dtype == object

    def text(nested):
        return {q: {d.decode("latin-1"): v for d, v in docs.items()} for q, docs in nested.items()}

    # latin-1 keeps the bytes' order; trec_eval (in pytrec_eval) compares the UTF-8 of these strs, same order.
    reference = pytrec_eval.RelevanceEvaluator(
        text(qrels), {"map", "P_1", "P_3", "recip_rank", "ndcg", "bpref", "num_rel_ret"}
    ).evaluate(text(run))
    assert list(ours["qid"]) == sorted(reference)
    for name in ("map", "P_1", "P_3", "recip_rank", "ndcg", "bpref", "num_rel_ret"):
        expected = [reference[q][name] for q in ours["qid"]]
        np.testing.assert_allclose(ours[name], expected, rtol=1e-12, err_msg=name)
    again = evaluate_run(read_qrels(tmp_path / "qrels"), read_run(tmp_path / "run"), measures, average=False)
    for name, values in ours.items():
        np.testing.assert_array_equal(again[name], values, err_msg=name)


# ---- 21, 23. every reader error names the file and the line -----------------------------------


@pytest.mark.parametrize("relevance", [str(2**63), "-" + str(2**63 + 1), "1" * 40])
def test_relevance_beyond_int64_names_the_file_and_line(tmp_path, relevance):
    (tmp_path / "qrels").write_text(f"q1 0 d1 1\n# comment\nq1 0 d2 {relevance}\n")
    with pytest.raises(ValueError, match=rf"qrels, line 3: the relevance {relevance} does not fit"):
        read_qrels(tmp_path / "qrels")


@pytest.mark.parametrize(
    ("line", "named"),
    [
        (b"q1 Q0 d\x002 2 0.5 r", "a NUL byte"),
        (b"q1\x00Q0 d2 2 0.5 r", "a NUL byte"),
        (b"q1 Q0 d2 2 0.5 r\x00", "a NUL byte"),
        (b"q1 Q0 d\x1b[0m 2 0.5 r", "control byte 0x1b"),
        (b"q1 Q0 d2\x01 2 0.5 r", "control byte 0x01"),
    ],
)
def test_control_bytes_are_named_with_their_line(tmp_path, line, named):
    (tmp_path / "run").write_bytes(b"q1 Q0 d1 1 0.9 r\n" + line + b"\nq1 Q0 d3 3 0.1 r\n")
    with pytest.raises(ValueError, match=rf"run, line 2: {named}"):
        read_run(tmp_path / "run")
    (tmp_path / "qrels").write_bytes(b"q1 0 d1 1\nq1 0 d\x002 0\n")
    with pytest.raises(ValueError, match="qrels, line 2: a NUL byte"):
        read_qrels(tmp_path / "qrels")


def test_other_whitespace_separates_columns_as_isspace_does():
    # trec_eval splits on C's isspace: space, \t, \v, \f, \r (and the line's \n).
    run = read_run(io.BytesIO(b"q1\tQ0\x0bd1\x0c1 0.5 r\r\nq1 Q0 d2 2 0.25 r\r\n"))
    assert list(run.doc_id) == ["d1", "d2"] and run.name == "r"


def test_blank_qrels_lines_are_accepted_where_trec_eval_rejects_them():
    # trec_eval 10 stops at a blank qrels line ("Malformed line"); nothing is lost by reading past it.
    qrels = read_qrels(io.BytesIO(b"q1 0 d1 1\n\n   \nq1 0 d2 0\n"))
    assert list(qrels.doc_id) == ["d1", "d2"]


@pytest.mark.parametrize(
    ("qrels", "run", "named"),
    [
        ("q1 0 a 1\n", "q1 Q0 b 1 2 t\nq1 Q0 a 2 1_000 t\n", "run, line 2: the score '1_000' holds an underscore"),
        ("q1 0 a 1\n", "q1 Q0 a 1 1_0.5e1 t\n", "run, line 1: the score '1_0.5e1' holds an underscore"),
        ("q1 0 a 1\n", "q1 Q0 a 1 " + "1_" * 20 + "1 t\n", "run, line 1: the score '1_1_1"),
        ("q1 0 b 0\nq1 0 a 1_0\n", "q1 Q0 a 1 1 t\n", "qrels, line 2: the relevance '1_0' holds an underscore"),
    ],
)
def test_numbers_with_underscores_are_refused_as_trec_eval_reads_them_otherwise(tmp_path, qrels, run, named):
    # Python's float("1_000") is 1000; trec_eval's atof stops at the underscore: 1.
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    with pytest.raises(ValueError, match=named):
        evaluate_run(tmp_path / "qrels", tmp_path / "run", ["map"])


@pytest.mark.parametrize("width", [1, 2, 3, 4])
def test_fixed_width_ids_are_accepted_exactly_when_each_is_a_run_of_printable_bytes_then_padding(width):
    # Every array of one to three ids of these bytes: NUL (padding, or inside an id), a control byte, a letter.
    import itertools

    from sklearn_rankmetrics.trec._sources import checked_fixed_width

    cells = list(itertools.product([0, 10, 65], repeat=width))
    for n_ids in (1, 2, 3) if width <= 2 else (1, 2):
        for ids in itertools.product(cells, repeat=n_ids):
            valid = all(
                id_[0] != 0 and 10 not in id_ and all(a != 0 or b == 0 for a, b in itertools.pairwise(id_))
                for id_ in ids
            )
            array = np.array(ids, dtype=np.uint8).view(f"S{width}").reshape(-1)
            if valid:
                assert checked_fixed_width(array, "doc_id") is array
            else:
                with pytest.raises(ValueError, match="doc_id holds"):
                    checked_fixed_width(array, "doc_id")
