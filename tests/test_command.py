"""The rankmetrics command: compare and evaluate, their outputs, exit statuses and messages."""

import json
import subprocess
import sys
import warnings

import numpy as np
import pytest
from run_files import collection, glue, write_collection

from sklearn_rankmetrics import RankingComparison, compare_per_query, compare_runs
from sklearn_rankmetrics._command import main
from sklearn_rankmetrics.trec import evaluate_run


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    qrels, runs = collection(10, skip=0.03)
    return write_collection(tmp_path_factory.mktemp("collection"), qrels, runs)


def run(capsys, *argv):
    """The exit status, stdout and stderr of ``rankmetrics argv``."""
    status = main([str(arg) for arg in argv])
    out, err = capsys.readouterr()
    return status, out, err


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def test_ten_run_files_with_tukey_and_latex_in_one_command_equal_the_glue_route(files, capsys):
    qrels, paths = files
    folder = paths["run0"].parent
    status, out, err = run(
        capsys,
        "compare",
        qrels,
        folder,
        "-m",
        "ndcg_cut.10",
        "-m",
        "map",
        "--test",
        "tukey",
        "--format",
        "latex",
        "--seed",
        "0",
    )
    assert status == 0
    by_hand = glue(qrels, {f"{name}.txt": path for name, path in paths.items()}, ["ndcg_cut.10", "map"])
    assert out == quiet(compare_per_query, by_hand, test="tukey-hsd", random_state=0).to_latex()
    assert "rankmetrics compare: warning: " in err and "left out" in err  # the runs skip some queries


@pytest.mark.parametrize("form", ["table", "markdown", "json", "csv"])
def test_every_format_is_the_comparisons_own(files, capsys, form):
    qrels, paths = files
    runs = [paths[name] for name in ("run0", "run3", "run6")]
    status, out, _ = run(
        capsys,
        "compare",
        qrels,
        *runs,
        "-m",
        "map",
        "--baseline",
        "run0.txt",
        "--test",
        "student",
        "--correction",
        "bh",
        "--format",
        form,
        "--seed",
        "0",
    )
    assert status == 0
    expected = quiet(
        compare_runs,
        qrels,
        runs,
        metrics=["map"],
        baseline="run0.txt",
        test="t-test",
        correction="fdr_bh",
        random_state=0,
    )
    if form == "json":
        restored = RankingComparison.from_json(out)
        assert restored.to_frame(kind="rows").equals(expected.to_frame(kind="rows"))
    elif form == "csv":
        pd = pytest.importorskip("pandas")
        import io

        frame = pd.read_csv(io.StringIO(out))
        assert frame["pvalue_adjusted"].dropna().tolist() == [row["pvalue_adjusted"] for row in expected.rows[1:]]
        assert frame["mean"].tolist() == [row["mean"] for row in expected.rows]
    else:
        assert out == (str(expected) + "\n" if form == "table" else expected.to_markdown())


def test_evaluate_writes_per_query_values_that_compare_per_query_reads_back_to_the_bit(files, capsys, tmp_path):
    pd = pytest.importorskip("pandas")
    qrels, paths = files
    frames = []
    for suffix in ("csv", "jsonl", "parquet"):
        pytest.importorskip("pyarrow") if suffix == "parquet" else None
        output = tmp_path / f"values.{suffix}"
        status, out, err = run(
            capsys, "evaluate", qrels, *paths.values(), "-m", "map", "-m", "P.5", "--per-query", "-o", output
        )
        assert (status, out, err) == (0, "", "")
        reader = {  # pandas reads JSON's floats exactly only with precise_float
            "csv": pd.read_csv,
            "jsonl": lambda p: pd.read_json(p, lines=True, precise_float=True),
            "parquet": pd.read_parquet,
        }
        frames.append(reader[suffix](output, **({"dtype": {"query": str}} if suffix == "csv" else {})))
    for frame in frames:
        assert list(frame.columns) == ["system", "metric", "query", "value"]
        result = quiet(compare_per_query, frame, test="t-test", random_state=0)
        expected = quiet(
            compare_runs, qrels, list(paths.values()), metrics=["map", "P.5"], test="t-test", random_state=0
        )
        assert result.to_frame(kind="rows").equals(expected.to_frame(kind="rows"))
    for path in paths.values():
        alone = evaluate_run(qrels, path, ["map"], average=False)
        mine = frames[0][(frames[0]["system"] == path.name) & (frames[0]["metric"] == "map")]
        assert np.array_equal(mine["value"].to_numpy(), alone["map"])


def test_evaluate_means_to_standard_output(files, capsys):
    qrels, paths = files
    status, out, _ = run(capsys, "evaluate", qrels, paths["run1"], "-m", "map", "-m", "ndcg_cut.5,10")
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == "system,metric,value"
    expected = evaluate_run(qrels, paths["run1"], ["map", "ndcg_cut.5,10"])
    assert {line.split(",")[1]: float(line.split(",")[2]) for line in lines[1:]} == expected
    status, out, _ = run(capsys, "evaluate", qrels, paths["run1"], "-m", "map", "--format", "jsonl")
    assert json.loads(out) == {"system": "run1.txt", "metric": "map", "value": expected["map"]}


@pytest.mark.parametrize(
    ("argv", "status", "message"),
    [
        (["compare", "{qrels}", "{run0}", "{run1}"], 2, "give at least one measure with -m"),
        (["compare", "{qrels}", "{run0}", "{run1}", "-m", "map", "--test", "fishr"], 2, "Did you mean 'fisher'"),
        (["compare", "{qrels}", "{run0}", "{run1}", "-m", "map", "--correction", "hs"], 2, "Holm-Sidak"),
        (["compare", "{qrels}", "{run0}", "{run1}", "-m", "mapp"], 2, "Did you mean 'map'"),
        (["compare", "{qrels}", "{run0}", "{run1}", "-m", "relstring"], 2, "no number per query"),
        (["compare", "{qrels}", "{run0}", "{run1}", "-m", "map", "--baseline", "bm25"], 2, "none of the runs"),
        (["compare", "{qrels}", "{run0}", "-m", "map"], 2, "two runs or more"),
        (["compare", "{qrels}", "{run0}", "{run1}", "-m", "map", "-c", "--queries", "common"], 2, "contradicts"),
        (["compare", "{qrels}", "{folder}/*.nothing", "{run0}", "-m", "map"], 1, "matches no run file"),
        (["compare", "{qrels}", "{run0}", "{missing}", "-m", "map"], 1, "No such file"),
        (["compare", "{qrels}", "{missing}", "-m", "map"], 1, "No such file or directory"),
        (["compare", "{qrels}", "{run0}", "{run1}", "-m", "map", "--baseline", "RUN0.txt"], 2, "mean 'run0.txt'"),
        (["compare", "{qrels}", "{run0}", "{empty}", "-m", "map"], 1, "Pass queries='union' (or"),
        (["compare", "{bad}", "{run0}", "{run1}", "-m", "map"], 1, "bad, line 2: the relevance column"),
        (["evaluate", "{qrels}", "{run0}", "-m", "map", "-o", "{folder}/out.xlsx"], 2, "cannot tell the format"),
        (["evaluate", "{qrels}", "{run0}", "--format", "parquet"], 2, "Parquet is written to a file"),
        (["evaluate", "{qrels}", "{run0}", "-m", "P.0"], 2, "bad parameters"),
        (["evaluate", "{qrels}", "{bad}", "-m", "map"], 1, "bad, line 1: "),
        (["evaluate", "{qrels}", "{run0}", "-m", "relstring", "-q", "-o", "{folder}/x.parquet"], 1, "strings"),
        (["compare", "{qrels}", "{run0}", "{run1}", "-m", "map", "--alpha", "2"], 2, "alpha must be in (0, 1)"),
        (["compare", "{qrels}", "{run0}", "{run1}", "-m", "map", "-l", "-1"], 2, "relevance_level must be"),
        (["compare", "{qrels}", "{run0}", "{run1}", "-m", "map", "--test", "t", "--correction", "maxT"], 2, "maxT"),
        (["evaluate", "{qrels}", "{run0}", "-m", "map", "-o", "{folder}", "--format", "csv"], 1, "Is a directory"),
        (["nothing"], 2, "invalid choice"),
    ],
)
def test_bad_usage_exits_2_and_bad_input_1_with_the_message_on_stderr(files, capsys, tmp_path, argv, status, message):
    qrels, paths = files
    bad = tmp_path / "bad"
    bad.write_text("q1 0 d1 1\nq1 0 d2 high\n" if argv[1:2] == ["{bad}"] else "q1 Q0 d1 1 x r\n")
    names = {
        "qrels": qrels,
        "run0": paths["run0"],
        "run1": paths["run1"],
        "folder": tmp_path,
        "bad": bad,
        "missing": tmp_path / "missing.run",
        "empty": tmp_path / "empty.run",
    }
    names["empty"].write_text("")
    found, out, err = run(capsys, *(arg.format(**names) for arg in argv))
    assert (found, out) == (status, "")
    assert message in err, err


def test_evaluate_without_pyarrow_names_the_extra(files, tmp_path):
    qrels, paths = files
    code = (
        "import sys; sys.modules['pyarrow'] = None\n"
        "from sklearn_rankmetrics._command import main\n"
        f"sys.exit(main(['evaluate', {str(qrels)!r}, {str(paths['run0'])!r}, '-o', {str(tmp_path / 'x.parquet')!r}]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 1 and done.stdout == ""
    assert "pip install 'sklearn-rankmetrics[pyarrow]'" in done.stderr


def test_python_dash_m_runs_the_command(files):
    qrels, paths = files
    done = subprocess.run(
        [sys.executable, "-m", "sklearn_rankmetrics", "evaluate", str(qrels), str(paths["run2"]), "-m", "map"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.splitlines()[1].startswith("run2.txt,map,")
    help_text = subprocess.run([sys.executable, "-m", "sklearn_rankmetrics", "--help"], capture_output=True, text=True)
    assert help_text.returncode == 0 and "compare" in help_text.stdout and "evaluate" in help_text.stdout
