"""The readers' pyarrow fast path gives exactly what the general reader gives, or leaves the file to it.

Every file is read twice, with pyarrow and without (the general reader
alone), through each route (a path, an open file, gzip): the same arrays,
dtypes included, the same run tag, or the same error naming the same file
and line. The files are drawn at random with what the fast path must notice:
tabs and runs of spaces, CRLF and lone carriage returns, trailing columns,
blank and comment lines, byte-order marks, UTF-8 and Latin-1 ids, long ids,
numbers that pyarrow and Python might read differently.
"""

import gzip
import io
import os
import sys
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reader_paths import both_readers, general_calls, general_only, outcome

from sklearn_rankmetrics.trec import _fast_reader, _general_reader, evaluate_run, read_qrels, read_run
from sklearn_rankmetrics.trec._io import read_qrels_bytes, read_run_bytes

pa = pytest.importorskip("pyarrow")

# ---- random files -------------------------------------------------------------------------------

ID_ALPHABETS = [b"abcdefghij0123456789", "é日本q".encode(), b"\xe9\xe8\xff\x80d", b"Q0_-.:/"]


def random_id(rng):
    if rng.random() < 0.02:
        return b"L" * int(rng.choice([70, 5000]))  # wider than a window; wide enough for bytes objects
    alphabet = ID_ALPHABETS[int(rng.integers(len(ID_ALPHABETS))) if rng.random() < 0.3 else 0]
    length = int(rng.integers(1, 12))
    return bytes(alphabet[int(i)] for i in rng.integers(len(alphabet), size=length))


# Scores pyarrow reads (plain decimals, exponents), and those Python reads for it: inf, 40 digits (a token
# wider than the fixed-width parser's), a sign.
SCORES = [b"1.5", b"-0.25", b"3", b".5", b"2.", b"1e3", b"-1E-2", b"+4.5", b"inf", b"-inf", b"1" * 40, b"." + b"3" * 35]
BAD_SCORES = [b"nan", b"1_0", b"abc", b"1e", b"--1", b"0x10"]
RELEVANCES = [b"0", b"1", b"2", b"-1", b"+3", b"007"]
BAD_RELEVANCES = [b"1.0", b"0x10", b"99999999999999999999", b"1_0", b"x"]


def score_token(rng, kind, bad):
    if kind == "run":
        if rng.random() < bad:
            return BAD_SCORES[int(rng.integers(len(BAD_SCORES)))]
        if rng.random() < 0.2:
            return SCORES[int(rng.integers(len(SCORES)))]
        return f"{rng.normal(10, 3):.{int(rng.integers(0, 6))}f}".encode()
    if rng.random() < bad:
        return BAD_RELEVANCES[int(rng.integers(len(BAD_RELEVANCES)))]
    return RELEVANCES[int(rng.integers(len(RELEVANCES)))]


def random_file(rng, kind, *, odd):
    """The bytes of a random qrels or run file; ``odd``: the chance of each oddity on a line.

    One file in four is malformed somewhere (a bad number, too few columns,
    a control byte), with the same chance per line.
    """
    bad = odd if rng.random() < 0.25 else 0.0
    lines = []
    for row in range(int(rng.integers(0, 60))):
        query, doc = random_id(rng) if rng.random() < 0.1 else b"q%d" % (row // 7), random_id(rng)
        if kind == "run":
            tag = b"tag" if rng.random() > odd else b"t\xe9"
            fields = [query, b"Q0", doc, b"%d" % row, score_token(rng, kind, bad), tag]
            if rng.random() < odd:
                fields.append(b"junk")  # trec_eval ignores it
        else:
            fields = [query, b"0", doc, score_token(rng, kind, bad)]
        if rng.random() < bad:
            fields = fields[: int(rng.integers(1, len(fields)))]  # too few columns
        separators = [b" "] * (len(fields) - 1)
        for index in range(len(separators)):
            if rng.random() < odd:
                separators[index] = [b"\t", b"  ", b" \t", b"\x0b", b"\x0c", b"\r"][int(rng.integers(6))]
            if rng.random() < bad:
                separators[index] = b"\x00"
        line = fields[0] + b"".join(sep + field for sep, field in zip(separators, fields[1:], strict=True))
        if rng.random() < odd:
            line = [b" " + line, line + b" ", b"", b"# a comment", b"#" + line, b"   "][int(rng.integers(6))]
        ending = b"\r\n" if rng.random() < odd else b"\n"
        lines.append(line + (b"\r" if rng.random() < odd / 3 else b"") + ending)
    content = b"".join(lines)
    if rng.random() < 0.2 and content:
        content = content.rstrip(b"\r\n")  # no final newline
    if rng.random() < odd:
        content = b"\xef\xbb\xbf" + content
    return content


@pytest.mark.parametrize("kind", ["run", "qrels"])
@pytest.mark.parametrize("odd", [0.0, 0.02, 0.2])
def test_both_readers_agree_on_random_files(tmp_path, monkeypatch, kind, odd):
    rng = np.random.default_rng([len(kind), int(odd * 100)])
    readers = (read_run, read_run_bytes) if kind == "run" else (read_qrels, read_qrels_bytes)
    path, gz_path = tmp_path / "file", tmp_path / "file.gz"
    for _ in range(60):
        content = random_file(rng, kind, odd=odd)
        path.write_bytes(content)
        gz_path.write_bytes(gzip.compress(content))
        for reader in readers:
            for source in (path, gz_path, io.BytesIO(content)):
                fast, general = both_readers(monkeypatch, reader, source)
                assert fast == general, (content, source)


def test_clean_files_take_the_fast_path(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    calls = general_calls(monkeypatch)
    for kind, reader in [("run", read_run), ("qrels", read_qrels)]:
        for ending in (b"\n", b"\r\n"):
            content = random_file(rng, kind, odd=0.0).replace(b"\n", ending) or b"q 0 d 1\n"
            if b"nan" in content or b"_" in content:
                continue
            (tmp_path / kind).write_bytes(content)
            (tmp_path / f"{kind}.gz").write_bytes(gzip.compress(content))
            try:
                reader(tmp_path / kind), reader(tmp_path / f"{kind}.gz"), reader(io.BytesIO(content))
            except ValueError:
                continue  # a bad number: the general reader names it, as it must
            assert not calls, content


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"q1 Q0 d1 1 2.5 r\tjunk\n", "a tab"),
        (b"q1 Q0 d1 1 2.5 r\nq1  Q0 d2 2 1.5 r\n", "two spaces"),
        (b"q1 Q0 d1 1 2.5 r\nq1 Q0 \xef\xbb\xbfd2 2 1.5 r\n", "a byte-order mark inside a line"),
        (b"q1 Q0 d1 1 2.5 r\n\nq1 Q0 d2 2 1.5 r\n", "a blank line"),
        (b"# comment line\nq1 Q0 d1 1 2.5 r\n", "a comment"),
        (b"q1 Q0 d1 1 2.5 r extra\n", "a trailing column"),
        (b"q1 Q0 d1 1 2.5 r\x00\n", "a NUL byte"),
    ],
)
def test_what_pyarrow_would_split_otherwise_goes_to_the_general_reader(tmp_path, monkeypatch, content, why):
    path = tmp_path / "run"
    path.write_bytes(content)
    fast, general = both_readers(monkeypatch, read_run, path)
    assert fast == general, why
    calls = general_calls(monkeypatch)
    outcome(read_run, path)
    assert calls == [str(path)], why


@pytest.mark.parametrize("source", ["path", "bytes"])
def test_files_read_in_many_chunks_agree(tmp_path, monkeypatch, source):
    # Chunks of whole lines are read side by side: tiny chunks, and many of them, change nothing. A lone \r ends a
    # line (read_bytes makes it \n, after which pyarrow reads the file).
    monkeypatch.setattr(_general_reader, "CHUNK_BYTES", 64)
    line = b"q%d Q0 d%d 1 %d.5 r"
    for ending in (b"\n", b"\r\n", b"\r"):
        content = b"".join((line % (row // 9, row, -row)) + ending for row in range(200)) + b"q9 Q0 last 1 1 r\n"
        path = tmp_path / "run"
        path.write_bytes(content)
        read_from = path if source == "path" else io.BytesIO(content)
        fast, general = both_readers(monkeypatch, read_run, read_from)
        assert fast == general
        assert len(fast["doc_id"][1]) == 201
        with monkeypatch.context() as patch:
            calls = general_calls(patch)
            outcome(read_run, read_from)
        assert not calls


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_named_pipe_is_read_once(tmp_path):
    # A pipe cannot be read again: it is read whole, then by whichever reader splits it (here the general one).
    path = tmp_path / "pipe"
    os.mkfifo(path)
    content = b"q1 Q0 d1 1 2.5 r\nq1\tQ0 d2 2 1.5 r\n"
    writer = threading.Thread(target=path.write_bytes, args=(content,))
    writer.start()
    run = read_run(path)
    writer.join()
    assert list(run.doc_id) == ["d1", "d2"]


def test_ids_and_tag_keep_their_bytes(tmp_path, monkeypatch):
    content = "q\xe9 Q0 caf\xe9 1 2.5 t\xe9\n".encode("latin-1") + "日本 Q0 é 2 1.5 ü\n".encode()
    path = tmp_path / "run"
    path.write_bytes(content)
    fast, general = both_readers(monkeypatch, read_run, path)
    assert fast == general
    run = read_run(path)
    assert [value.encode("utf-8", "surrogateescape") for value in run.doc_id] == [b"caf\xe9", "é".encode()]
    assert run.name == "ü"


@settings(max_examples=500, deadline=None)
@given(
    st.one_of(
        st.text(alphabet="0123456789.eE+-", min_size=1, max_size=30),
        st.text(alphabet="0123456789.eE+-infatyINFATY()x_pP", min_size=1, max_size=12),
        st.sampled_from(["inf", "-Infinity", "+INF", "nan", "-nan", "nan(1)", "infinit", "0x1p3", "1d5", "1_0"]),
    )
)
def test_pyarrow_reads_float_tokens_as_python_or_refuses_them(token):
    # pyarrow's parser accepts only what float() accepts, rounded alike (NaN, which the readers refuse, aside).
    try:
        ours = _fast_reader.plain_numbers(pa, pa.array([token.encode()], pa.binary()), np.float64)
    except pa.ArrowInvalid:
        return
    if np.isnan(ours[0]):
        assert np.isnan(float(token.partition("(")[0]))
        return
    assert ours.tobytes() == np.float64(float(token)).tobytes()


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="0123456789-", min_size=1, max_size=22))
def test_pyarrow_reads_plain_int_tokens_as_python_or_refuses_them(token):
    try:
        ours = _fast_reader.plain_numbers(pa, pa.array([token.encode()], pa.binary()), np.int64)
    except pa.ArrowInvalid:
        return
    assert int(ours[0]) == int(token)


def test_pyarrow_would_read_hexadecimal_relevance_which_the_fast_path_leaves_to_python(tmp_path, monkeypatch):
    # pyarrow's integer parser reads 0x10 as 16; Python and trec_eval do not: an error naming the line.
    path = tmp_path / "qrels"
    path.write_bytes(b"q1 0 d1 1\nq1 0 d2 0x10\n")
    fast, general = both_readers(monkeypatch, read_qrels, path)
    assert fast == general
    assert fast[0] is ValueError and "line 2" in fast[1]


def test_ids_are_fixed_width_or_objects_by_the_whole_column_whatever_the_chunks(tmp_path, monkeypatch):
    # One id of 150 bytes among ids of 60: bytes objects in the chunk that holds it, fixed width in all.
    general_only(monkeypatch)
    rows = [f"q Q0 {'d' * 60}{row:04d} {row} 1.0 r\n".encode() for row in range(400)]
    rows[0] = b"q Q0 " + b"L" * 150 + b" 0 1.0 r\n"
    path = tmp_path / "run"
    path.write_bytes(b"".join(rows))
    dtypes = set()
    for chunk_bytes in (_general_reader.CHUNK_BYTES, 200, 3000):
        monkeypatch.setattr(_general_reader, "CHUNK_BYTES", chunk_bytes)
        dtypes.add(read_run_bytes(path).doc_id.dtype)
    assert dtypes == {np.dtype("S150")}


def test_text_widens_ascii_and_decodes_the_rest():
    ascii_ids = np.array([b"d1", b"longer", b""], dtype="S6")[::2]  # not contiguous
    np.testing.assert_array_equal(_general_reader.text(ascii_ids), ascii_ids.astype(np.str_))
    assert _general_reader.text(ascii_ids).dtype == np.dtype("U6")
    assert list(_general_reader.text(np.array([b"caf\xe9", "é".encode()]))) == ["caf\udce9", "é"]
    assert _general_reader.text(np.zeros(0, dtype="S1")).dtype == np.dtype("U1")


def test_evaluations_from_files_agree_whichever_reader(tmp_path, monkeypatch):
    rng = np.random.default_rng(3)
    qrels = b"".join(b"q%d 0 d%d %d\n" % (q, d, rng.integers(-1, 3)) for q in range(20) for d in range(0, 60, 7))
    run = b"".join(
        b"q%d Q0 d%d %d %.2f r\n" % (q, d, rank, score)
        for q in range(20)
        for rank, (d, score) in enumerate(zip(rng.permutation(80), np.sort(rng.random(80))[::-1], strict=True))
    )
    (tmp_path / "qrels").write_bytes(qrels)
    (tmp_path / "run").write_bytes(run)
    measures = ["official", "ndcg_cut.10", "relstring"]
    fast = evaluate_run(tmp_path / "qrels", tmp_path / "run", measures, average=False)
    general_only(monkeypatch)
    general = evaluate_run(tmp_path / "qrels", tmp_path / "run", measures, average=False)
    assert fast.keys() == general.keys()
    for name, values in fast.items():
        np.testing.assert_array_equal(values, general[name], err_msg=name)


@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_a_bad_number_in_a_clean_file_is_named_by_the_general_reader(tmp_path, monkeypatch, kind):
    reader, template, bad_tokens = {
        "run": (read_run, b"q1 Q0 d%d 1 %s r\n", BAD_SCORES),
        "qrels": (read_qrels, b"q1 0 d%d %s\n", BAD_RELEVANCES),
    }[kind]
    good = b"1" if kind == "qrels" else b"1.5"
    for bad in bad_tokens:
        path = tmp_path / kind
        path.write_bytes(b"".join(template % (row, bad if row == 2 else good) for row in range(5)))
        fast, general = both_readers(monkeypatch, reader, path)
        assert fast == general
        assert fast[0] is ValueError and f"{path}, line 3" in fast[1], fast


def test_numbers_pyarrow_leaves_are_read_on_the_fast_path_as_python_reads_them(tmp_path, monkeypatch):
    calls = general_calls(monkeypatch)
    tokens = [b"inf", b"-inf", b"1" * 40, b"0.1" + b"3" * 30, b"+4.5", b"1e400", b"4.9e-324"]
    path = tmp_path / "run"
    path.write_bytes(b"".join(b"q1 Q0 d%d %d %s r\n" % (row, row, token) for row, token in enumerate(tokens)))
    run = read_run(path)
    assert not calls
    assert run.score.tobytes() == np.array([float(token) for token in tokens]).tobytes()


def test_a_line_longer_than_pyarrow_s_blocks_is_read_by_the_general_reader(tmp_path, monkeypatch):
    path = tmp_path / "run"
    path.write_bytes(b"q1 Q0 d1 1 2.5 r\nq1 Q0 " + b"D" * (_fast_reader.BLOCK_BYTES + 10) + b" 2 1.5 r\n")
    fast, general = both_readers(monkeypatch, read_run, path)
    assert fast == general
    assert len(fast["doc_id"][1][1]) == _fast_reader.BLOCK_BYTES + 10


def test_without_pyarrow_the_general_reader_reads_every_file(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # as if it were not installed: its import fails
    assert _fast_reader.pyarrow_modules() is None
    calls = general_calls(monkeypatch)
    path = tmp_path / "run"
    path.write_bytes(b"q1 Q0 d1 1 2.5 r\nq1 Q0 d2 2 1.5 r\n")
    assert list(read_run(path).doc_id) == ["d1", "d2"] and calls == [str(path)]


def test_without_reads_at_an_offset_a_file_is_read_whole_first(tmp_path, monkeypatch):
    monkeypatch.delattr(os, "pread")  # Windows
    path = tmp_path / "run"
    path.write_bytes(b"q1 Q0 d1 1 2.5 r\nq1 Q0 d2 2 1.5 r\n")
    calls = general_calls(monkeypatch)
    assert list(read_run(path).doc_id) == ["d1", "d2"] and not calls


@pytest.mark.parametrize("chunk_bytes", [64, 100, 2**20])
def test_a_byte_order_mark_where_a_line_starts_is_dropped_wherever_the_chunks_start(tmp_path, monkeypatch, chunk_bytes):
    # pyarrow drops a BOM at the start of every chunk it reads, the readers at the start of every line (files joined
    # with cat): the same ids whatever the chunks, on either path.
    monkeypatch.setattr(_general_reader, "CHUNK_BYTES", chunk_bytes)
    monkeypatch.setattr(_fast_reader, "MIN_CHUNK_BYTES", chunk_bytes)  # the file read in place in chunks too
    lines = [b"q1 Q0 d%d 1 %d r\n" % (row, -row) for row in range(40)]
    for row in (0, 7, 20, 21, 39):
        lines[row] = b"\xef\xbb\xbf" + lines[row]
    path = tmp_path / "run"
    path.write_bytes(b"".join(lines))
    fast, general = both_readers(monkeypatch, read_run, path)
    assert fast == general
    assert set(map(str, fast["query_id"][1])) == {"q1"} and len(fast["query_id"][1]) == 40
