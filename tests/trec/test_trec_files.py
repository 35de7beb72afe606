"""Files as other systems write them: byte-order marks, lone carriage returns, UTF-16, bzip2 and xz.

Each file is read as the same content written plainly (UTF-8 without a
byte-order mark, ``\\n`` line ends, uncompressed) is read, through both
reader paths (pyarrow's and the general reader), every route (a path, an
open file) and the trec_eval command; evaluations are checked against
trec_eval (pytrec_eval) on the plain content.
"""

import bz2
import gzip
import io
import lzma

import numpy as np
import pytest
import pytrec_eval
from reader_paths import both_readers, general_only

from sklearn_rankmetrics.trec import evaluate_run, read_qrels, read_run
from sklearn_rankmetrics.trec_eval import main

BOM = b"\xef\xbb\xbf"
MEASURES = ["map", "P_5", "recip_rank", "ndcg", "bpref", "num_ret", "num_rel_ret"]


def random_collection(seed):
    """The plain bytes of a qrels and of a run file (single spaces, ``\\n``), and the pair as pytrec_eval's dicts."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for query in range(int(rng.integers(1, 8))):
        docs = [f"d{doc}" for doc in rng.choice(40, int(rng.integers(2, 15)), replace=False)]
        judged = docs[: int(rng.integers(1, len(docs)))]
        # Each query judges one document >= 0: pytrec_eval crashes on a query whose every judgement is -1.
        qrels[f"q{query}"] = {doc: int(rng.integers(-1, 3)) if doc != judged[0] else 0 for doc in judged}
        run[f"q{query}"] = {doc: round(float(rng.normal()), 3) for doc in [*docs, "x1", "x2"]}
    qrels_text = "".join(f"{q} 0 {d} {r}\n" for q, docs in qrels.items() for d, r in docs.items())
    run_text = "".join(
        f"{q} Q0 {d} {rank} {s!r} tag\n" for q, docs in run.items() for rank, (d, s) in enumerate(docs.items())
    )
    return qrels_text.encode(), run_text.encode(), qrels, run


def as_windows_writes(content, *, ending, marks):
    """``content`` with other line ends, and with a byte-order mark at the start (``"start"``) or on every line
    (``"lines"``: files joined with cat)."""
    lines = content.splitlines(keepends=False)
    if marks == "lines":
        lines = [BOM + line for line in lines]
    elif marks == "start":
        lines[0] = BOM + lines[0]
    return b"".join(line + ending for line in lines)


def outcomes(monkeypatch, reader, content, tmp_path):
    """What ``reader`` gives for ``content`` through a path and an open file, with and without pyarrow."""
    path = tmp_path / "file"
    path.write_bytes(content)
    return [result for source in (path, io.BytesIO(content)) for result in both_readers(monkeypatch, reader, source)]


# ---- byte-order marks and line ends (issue 36, item 3) ----------------------------------------------------------


@pytest.mark.parametrize("marks", ["start", "lines", None])
@pytest.mark.parametrize("ending", [b"\n", b"\r\n", b"\r"])
def test_byte_order_marks_and_lone_carriage_returns_read_as_the_plain_file(tmp_path, monkeypatch, marks, ending):
    qrels_plain, run_plain, _, _ = random_collection(len(ending))
    for reader, plain in [(read_run, run_plain), (read_qrels, qrels_plain)]:
        expected = outcomes(monkeypatch, reader, plain, tmp_path)[0]
        written = as_windows_writes(plain, ending=ending, marks=marks)
        assert all(found == expected for found in outcomes(monkeypatch, reader, written, tmp_path)), written[:80]


@pytest.mark.parametrize("marks", ["start", "lines"])
@pytest.mark.parametrize("ending", [b"\n", b"\r\n", b"\r"])
def test_evaluation_of_files_with_byte_order_marks_and_carriage_returns_equals_pytrec_eval(tmp_path, marks, ending):
    for seed in range(5):
        qrels_plain, run_plain, qrels, run = random_collection(seed)
        (tmp_path / "qrels").write_bytes(as_windows_writes(qrels_plain, ending=ending, marks=marks))
        (tmp_path / "run").write_bytes(as_windows_writes(run_plain, ending=ending, marks=marks))
        ours = evaluate_run(tmp_path / "qrels", tmp_path / "run", MEASURES, average=False)
        reference = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES)).evaluate(run)
        assert list(ours["qid"]) == sorted(reference)  # "\ufeffq0" would sort after every other id, judged nowhere
        for name in MEASURES:
            expected = [reference[query][name] for query in ours["qid"]]
            np.testing.assert_allclose(ours[name], expected, rtol=1e-12, err_msg=name)


def test_the_command_reads_byte_order_marks_and_lone_carriage_returns_as_the_plain_files(tmp_path, capsys):
    qrels_plain, run_plain, _, _ = random_collection(11)
    (tmp_path / "qrels").write_bytes(qrels_plain)
    (tmp_path / "run").write_bytes(run_plain)
    assert main(["-q", "-m", "all_trec", str(tmp_path / "qrels"), str(tmp_path / "run")]) == 0
    expected = capsys.readouterr().out
    for ending in (b"\r\n", b"\r"):
        (tmp_path / "qrels.bom").write_bytes(as_windows_writes(qrels_plain, ending=ending, marks="start"))
        (tmp_path / "run.bom").write_bytes(as_windows_writes(run_plain, ending=ending, marks="lines"))
        assert main(["-q", "-m", "all_trec", str(tmp_path / "qrels.bom"), str(tmp_path / "run.bom")]) == 0
        assert capsys.readouterr().out == expected


def test_a_run_of_lone_carriage_returns_reads_every_record_not_the_first_alone(monkeypatch):
    # trec_eval reads \r as a space: the whole file one line, every record after the first "text after the tag".
    content = b"q1 Q0 d1 1 3 r\rq1 Q0 d2 2 2 r\rq2 Q0 d3 1 1 r\r"
    for _ in range(2):
        run = read_run(io.BytesIO(content))
        assert list(run.doc_id) == ["d1", "d2", "d3"] and list(run.query_id) == ["q1", "q1", "q2"]
        general_only(monkeypatch)
    assert evaluate_run({"q1": {"d2": 1}, "q2": {"d3": 1}}, io.BytesIO(content), ["num_ret"]) == {"num_ret": 3}


def test_a_malformed_line_among_lone_carriage_returns_is_named_by_its_line(tmp_path):
    (tmp_path / "run").write_bytes(b"q1 Q0 d1 1 3 r\rq1 Q0 d2 2 r\rq1 Q0 d3 3 1 r\r")
    with pytest.raises(ValueError, match=r"run, line 2: expected at least 6 columns .* got 5: 'q1 Q0 d2 2 r'"):
        read_run(tmp_path / "run")
    # A \r inside a line ends it too: its pieces are refused, never read as one line.
    (tmp_path / "qrels").write_bytes(b"q1 0 d1 1\nq1\r0 d2 0\n")
    with pytest.raises(ValueError, match=r"qrels, line 2: expected the 4 columns .* got 1: 'q1'"):
        read_qrels(tmp_path / "qrels")


def test_a_byte_order_mark_inside_a_line_stays_part_of_its_id():
    # Only where a line starts is U+FEFF a byte-order mark; elsewhere it is a character of the id (trec_eval's bytes).
    run = read_run(io.BytesIO(b"q1 Q0 \xef\xbb\xbfd1 1 3 r\n \xef\xbb\xbfq2 Q0 d2 1 3 r\n"))
    assert list(run.doc_id) == ["\ufeffd1", "d2"] and list(run.query_id) == ["q1", "\ufeffq2"]


def test_a_byte_order_mark_before_a_comment_or_alone_on_a_line_leaves_a_comment_or_a_blank_line():
    run = read_run(io.BytesIO(BOM + b"# written by Notepad\n" + BOM + b"\nq1 Q0 d1 1 3 r\n"))
    assert list(run.doc_id) == ["d1"]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be"])
def test_utf16_and_utf32_files_with_a_byte_order_mark_are_decoded(tmp_path, monkeypatch, encoding):
    # Windows PowerShell 5 writes UTF-16 with `>`; the mark says which encoding (the -le/-be codecs write none).
    text = "q\xe9 Q0 d1 1 3 r\r\nq\xe9 Q0 d\u65e5 2 2 r\r\n"
    mark = "" if encoding in ("utf-16", "utf-32") else "\ufeff"
    content = (mark + text).encode(encoding)
    for found in outcomes(monkeypatch, read_run, content, tmp_path):
        assert found["doc_id"][1] == ["d1", "d\u65e5"] and found["query_id"][1] == ["q\xe9", "q\xe9"]
    (tmp_path / "run.gz").write_bytes(gzip.compress(content))
    assert list(read_run(tmp_path / "run.gz").doc_id) == ["d1", "d\u65e5"]


def test_text_that_its_utf16_byte_order_mark_does_not_describe_is_named(tmp_path):
    (tmp_path / "run").write_bytes(b"\xff\xfeq\x001\x00\x00\xd8")  # a lone surrogate
    with pytest.raises(ValueError, match=r"run starts with the byte-order mark of UTF-16 text, but byte 6 is not"):
        read_run(tmp_path / "run")


# ---- bzip2 and xz (issue 36, item 12) ---------------------------------------------------------------------------

COMPRESSORS = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}


@pytest.mark.parametrize("kind", list(COMPRESSORS))
def test_bzip2_and_xz_files_are_decompressed_by_their_content_as_gzip_is(tmp_path, monkeypatch, kind):
    compress = COMPRESSORS[kind]
    qrels_plain, run_plain, qrels, run = random_collection(3)
    for reader, plain in [(read_run, run_plain), (read_qrels, qrels_plain)]:
        expected = outcomes(monkeypatch, reader, plain, tmp_path)[0]
        halves = plain[: len(plain) // 2], plain[len(plain) // 2 :]
        for content in (compress(plain), compress(halves[0]) + compress(halves[1]), compress(plain) + b"\0" * 8):
            assert all(found == expected for found in outcomes(monkeypatch, reader, content, tmp_path))
    (tmp_path / "qrels.txt").write_bytes(compress(qrels_plain))  # the names say nothing
    (tmp_path / "run.txt").write_bytes(compress(as_windows_writes(run_plain, ending=b"\r\n", marks="start")))
    ours = evaluate_run(tmp_path / "qrels.txt", tmp_path / "run.txt", MEASURES, average=False)
    reference = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES)).evaluate(run)
    for name in MEASURES:
        np.testing.assert_allclose(ours[name], [reference[q][name] for q in ours["qid"]], rtol=1e-12, err_msg=name)


def damaged(compressed, plain_stream):
    """Ways to break a compressed file: cut short anywhere, a byte flipped, junk after it, a second stream broken
    (which the standard library's own ``bz2.decompress`` and ``lzma.decompress`` silently drop)."""
    middle = len(compressed) // 2
    return {
        "cut after the header": compressed[:12],
        "cut in the middle": compressed[:middle],
        "cut before the end": compressed[:-1],
        "a byte flipped": compressed[:middle] + bytes([compressed[middle] ^ 0xFF]) + compressed[middle + 1 :],
        "junk after the end": compressed + b"junk",
        "a second stream cut short": compressed + plain_stream[: len(plain_stream) // 2],
        "a second stream corrupt": compressed + plain_stream[:4] + b"\xff" * 30,
    }


@pytest.mark.parametrize("kind", list(COMPRESSORS))
def test_truncated_or_corrupt_compressed_files_are_named_never_read_in_part(tmp_path, capsys, kind):
    compress = COMPRESSORS[kind]
    _, run_plain, _, _ = random_collection(5)
    qrels = tmp_path / "qrels"
    qrels.write_bytes(b"q0 0 d1 1\n")
    for why, content in damaged(compress(run_plain), compress(b"q9 Q0 d9 1 1 tag\n")).items():
        path = tmp_path / f"run.{kind}"
        path.write_bytes(content)
        for source in (path, io.BytesIO(content)):
            with pytest.raises(ValueError, match=rf"cannot decompress this {kind} file, truncated or corrupt"):
                read_run(source)
        assert main([str(qrels), str(path)]) == 1, why
        error = capsys.readouterr().err
        assert error.startswith(f"trec_eval: {path}: cannot decompress this {kind} file") and error.count("\n") == 1


@pytest.mark.parametrize(
    ("magic", "kind"),
    [(b"\x28\xb5\x2f\xfd", "zstd"), (b"PK\x03\x04", "zip"), (b"7z\xbc\xaf\x27\x1c", "7z"), (b"\x04\x22M\x18", "lz4")],
)
def test_formats_the_standard_library_cannot_decompress_are_named(tmp_path, magic, kind):
    (tmp_path / "run").write_bytes(magic + b"\x00" * 40)
    with pytest.raises(ValueError, match=rf"run is compressed with {kind}, which this reader cannot decompress"):
        read_run(tmp_path / "run")


@pytest.mark.parametrize("kind", ["bzip2", "xz"])
def test_a_damaged_stream_after_a_good_one_which_the_standard_library_drops_silently_is_refused(kind):
    # What the readers' docstrings say of bz2.decompress and lzma.decompress: the damaged stream's data is lost.
    compress, decompress = {"bzip2": (bz2.compress, bz2.decompress), "xz": (lzma.compress, lzma.decompress)}[kind]
    first, second = b"q1 Q0 d1 1 2 t\n", b"q2 Q0 d2 1 1 t\n"
    content = compress(first) + compress(second)[:4] + b"\xff" * 30
    assert decompress(content) == first
    with pytest.raises(ValueError, match=rf"cannot decompress this {kind} file, truncated or corrupt"):
        read_run(io.BytesIO(content))
