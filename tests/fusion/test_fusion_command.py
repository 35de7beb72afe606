"""The ``rankmetrics fuse`` command, end to end: a trec_eval-ready run out, errors on stderr with their statuses."""

import subprocess
import sys

import pytest

from sklearn_rankmetrics._command import main
from sklearn_rankmetrics.fusion import fuse
from sklearn_rankmetrics.trec import evaluate_run, read_run

BM25 = "q1 Q0 d1 1 12 bm25\nq1 Q0 d2 2 9.5 bm25\nq1 Q0 d3 3 7 bm25\nq2 Q0 d7 1 3 bm25\nq2 Q0 d8 2 1 bm25\n"
DENSE = "q1 Q0 d2 1 0.91 dense\nq1 Q0 d4 2 0.85 dense\nq1 Q0 d1 3 0.4 dense\nq2 Q0 d8 1 0.7 dense\n"
QRELS = "q1 0 d1 1\nq1 0 d4 2\nq2 0 d7 1\n"


@pytest.fixture
def files(tmp_path):
    for name, text in (("bm25.run", BM25), ("dense.run", DENSE), ("qrels", QRELS)):
        (tmp_path / name).write_text(text)
    return tmp_path


def test_the_command_writes_the_fused_run(files, capsys):
    out = files / "fused.run"
    assert (
        main(
            ["fuse", str(files / "bm25.run"), str(files / "dense.run"), "--method", "rrf", "--k", "60", "-o", str(out)]
        )
        == 0
    )
    assert capsys.readouterr() == ("", "")
    written = read_run(out)
    expected = fuse([str(files / "bm25.run"), str(files / "dense.run")], method="rrf", k=60)
    assert written.doc_id.tolist() == expected.doc_id.tolist()
    assert written.score.tolist() == expected.score.tolist()  # repr: the same doubles back
    assert written.name == "rrf"
    lines = out.read_text().splitlines()
    assert lines[0] == f"q1 Q0 d2 1 {float(expected.score[0])!r} rrf"
    assert [line.split()[3] for line in lines] == ["1", "2", "3", "4", "1", "2"]
    assert evaluate_run(str(files / "qrels"), str(out), ["map"])["map"] > 0


def test_the_command_prints_to_stdout_and_runs_as_a_module(files):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "sklearn_rankmetrics",
            "fuse",
            str(files / "bm25.run"),
            str(files / "dense.run"),
            "--method",
            "CombMNZ",
            "--norm",
            "min-max",
            "--weights",
            "1",
            "2",
            "--tag",
            "hybrid",
            "--depth",
            "1",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert [line.split()[2] for line in done.stdout.splitlines()] == ["d2", "d7"]
    assert all(line.endswith(" hybrid") for line in done.stdout.splitlines())


def test_a_supervised_method_learns_from_qrels(files, capsys):
    assert (
        main(
            [
                "fuse",
                str(files / "bm25.run"),
                str(files / "dense.run"),
                "--method",
                "probfuse",
                "--segments",
                "2",
                "--qrels",
                str(files / "qrels"),
            ]
        )
        == 0
    )
    assert capsys.readouterr().out.count("\n") == 6


@pytest.mark.parametrize(
    ("arguments", "status", "message"),
    [
        (["--method", "rff"], 2, "Did you mean 'rrf'"),
        (["--norm", "minmx"], 2, "Did you mean 'min-max'"),
        (["--method", "sum", "--k", "3"], 2, "k=3.0 is a parameter of method 'rrf'"),
        (["--weights", "1"], 2, r"--weights needs one weight per run \(2\); got 1"),
        (["--missing", "lots"], 2, "--missing must be 'min' or a number"),
        (["--depth", "0"], 2, "--depth must be at least 1"),
        (["--method", "posfuse"], 2, "learns from training judgements: give --qrels"),
    ],
)
def test_bad_options_exit_2_and_bad_input_1(files, capsys, arguments, status, message):
    assert main(["fuse", str(files / "bm25.run"), str(files / "dense.run"), *arguments]) == status
    captured = capsys.readouterr()
    assert captured.out == ""
    assert __import__("re").search(message, captured.err)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--tag", "my run"], "--tag is the last column of each line: one word"),
        (["--tag", ""], "--tag is the last column of each line: one word"),
        (["--qrels", "train.qrels"], "--method rrf learns nothing: --qrels and --train-run"),
        (["--train-run", "a.run", "--train-run", "b.run"], "--method rrf learns nothing"),
    ],
)
def test_options_that_a_fused_run_cannot_honour_exit_2(files, capsys, arguments, message):
    # A tag with a space would write a seventh column that trec_eval misreads; qrels for RRF would be ignored.
    assert main(["fuse", str(files / "bm25.run"), str(files / "dense.run"), *arguments]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert message in captured.err


def test_bad_files_are_named_with_their_line(files, capsys):
    (files / "bad.run").write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d2 two 1\n")
    assert main(["fuse", str(files / "bm25.run"), str(files / "bad.run")]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "rankmetrics fuse:" in captured.err and "bad.run, line 2" in captured.err
    assert main(["fuse", str(files / "bm25.run"), str(files / "missing.run")]) == 1
    assert "No such file" in capsys.readouterr().err
    assert main(["fuse", str(files / "bm25.run")]) == 2
    assert "two or more runs" in capsys.readouterr().err
    assert main(["nothing"]) == 2
