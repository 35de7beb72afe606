"""The ``rankmetrics evaluate`` subcommand: trec_eval's evaluation of runs, written as CSV, JSON lines or Parquet.

``rankmetrics evaluate QRELS RUN... -m map -m ndcg_cut.10 [--per-query] [-o FILE]``
evaluates each run as :func:`evaluate_run` does (the readers and options of
the trec_eval command: ``-c -l -M -J``) and writes one row per (run, measure),
or with ``--per-query`` one row per (run, measure, query), in the long layout
that :func:`compare_per_query` reads: the columns ``system``, ``metric``,
(``query``,) ``value``. A run is named by its file's name. The format is
``--format`` or the output file's suffix (``.csv``, ``.jsonl``, ``.parquet``);
CSV on standard output by default. Parquet needs pyarrow (the ``pyarrow``
extra).

As the trec_eval command: nothing on stdout but results, errors on stderr,
exit status 2 for bad usage and 1 for a bad file (named, with its line).
:func:`register` adds it to the ``rankmetrics`` command
(:mod:`sklearn_rankmetrics._command`). It imports neither scikit-learn nor
scipy.
"""

import csv
import io
import json
import math
import os

from ._evaluate import check_options, evaluate_checked, parsed_requests
from ._run_files import names_of_paths, run_files
from ._sources import InputError, as_qrels, as_run

PROG = "rankmetrics evaluate"
FORMATS = ("csv", "jsonl", "parquet")
SUFFIXES = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet"}


def register(subparsers):
    """Add the ``evaluate`` subcommand to an argparse ``subparsers`` object; its ``func`` runs it."""
    parser = subparsers.add_parser(
        "evaluate",
        help="evaluate TREC runs; the means or per-query values as CSV, JSON lines or Parquet",
        description="Evaluate TREC runs against qrels as trec_eval does; write one row per (run, measure), or per "
        "(run, measure, query) with --per-query: the columns system, metric, [query,] value.",
        epilog="Measures as trec_eval's -m (map, ndcg_cut.10, P.5,10, official) or the library's names (nDCG@10). "
        "Per-query values are evaluate_run(..., average=False)'s: gm_map's are the floored logs.",
    )
    add_evaluation_arguments(parser, measures="measure[.params], repeatable (default: official)")
    parser.add_argument("-q", "--per-query", action="store_true", help="one row per query instead of the means")
    parser.add_argument("--format", choices=FORMATS, default=None, help="csv, jsonl or parquet (default: from FILE)")
    parser.set_defaults(func=lambda args: run(args, parser))
    return parser


def add_evaluation_arguments(parser, *, measures):
    """The arguments of every subcommand that evaluates TREC runs as trec_eval does (``measures``: -m's help)."""
    parser.add_argument("qrels", metavar="QRELS", help="qrels file (plain or gzip)")
    parser.add_argument("runs", nargs="+", metavar="RUN", help="run files, folders of them or quoted glob patterns")
    parser.add_argument(
        "-m", "--measure", dest="measures", action="append", default=[], metavar="MEASURE", help=measures
    )
    parser.add_argument(
        "-c", "--complete", action="store_true", help="every query of the qrels, a run's missing ones scoring 0 (-c)"
    )
    parser.add_argument(
        "-l", "--relevance-level", type=int, default=1, metavar="LEVEL", help="lowest relevant judgement (default 1)"
    )
    parser.add_argument(
        "-M", "--max-depth", type=int, default=None, metavar="DEPTH", help="documents counted per query"
    )
    parser.add_argument("-J", "--judged-only", action="store_true", help="rank the judged documents only")
    parser.add_argument("-o", "--output", default="-", metavar="FILE", help="output file (default: standard output)")


def output_format(args, parser):
    """The format asked for, or the output file's; a usage error where neither says."""
    if args.format is not None:
        found = args.format
    elif args.output == "-":
        found = "csv"
    else:
        found = SUFFIXES.get(os.path.splitext(args.output)[1].lower())
        if found is None:
            parser.error(
                f"cannot tell the format of {args.output!r} from its suffix: give --format csv, jsonl or parquet."
            )
    if found == "parquet" and args.output == "-":
        parser.error("Parquet is written to a file: give -o FILE.parquet (or --format csv for standard output).")
    return found


def run(args, parser):
    """Evaluate the runs of the command line; returns the bytes for standard output (None when written to a file)."""
    form = output_format(args, parser)
    try:
        requests = parsed_requests(args.measures or ["official"])
        options = check_options(
            relevance_level=args.relevance_level,
            complete=args.complete,
            max_depth=args.max_depth,
            judged_only=args.judged_only,
            ties=None,
        )
    except (ValueError, TypeError) as error:
        parser.error(str(error))
    paths = names_of_paths([path for argument in args.runs for path in run_files(argument, besides=args.qrels)])
    qrels = with_file(args.qrels, as_qrels, args.qrels)
    rows = []
    for name, path in paths.items():
        try:
            values = evaluate_checked(qrels, as_run(path), requests, options, average=not args.per_query)
        except InputError as error:
            raise ValueError(about_file(args.qrels if error.source == "qrels" else path, error)) from error
        except (ValueError, TypeError) as error:
            raise (TypeError if isinstance(error, TypeError) else ValueError)(about_file(path, error)) from error
        rows += per_query_rows(name, values) if args.per_query else mean_rows(name, values)
    return write(rows, form, args.output, per_query=args.per_query)


def with_file(path, reader, source):
    """``reader(source)``, an error about the file naming it (the readers name it and the line already)."""
    try:
        return reader(source)
    except InputError as error:
        raise ValueError(about_file(path, error)) from error


def about_file(path, error):
    """``FILE: message``, where the message does not name the file already."""
    message = str(error)
    return message if message.startswith(str(path)) else f"{path}: {message}"


def mean_rows(name, values):
    """(system, metric, value) rows of a run's averages."""
    return [(name, metric, value) for metric, value in values.items()]


def per_query_rows(name, values):
    """(system, metric, query, value) rows of a run's per-query values, query by query."""
    ids = values["qid"].tolist()
    columns = {metric: column.tolist() for metric, column in values.items() if metric != "qid"}
    return [(name, metric, query, column[row]) for row, query in enumerate(ids) for metric, column in columns.items()]


def write(rows, form, output, *, per_query):
    """The rows in ``form``: the bytes for standard output, or None once written to the file ``output``."""
    names = ("system", "metric", "query", "value") if per_query else ("system", "metric", "value")
    if form == "parquet":
        write_parquet(rows, names, output)
        return None
    data = (csv_text if form == "csv" else jsonl_text)(rows, names).encode("utf-8", "surrogateescape")
    if output == "-":
        return data
    with open(output, "wb") as stream:
        stream.write(data)
    return None


def csv_text(rows, names):
    """CSV with a header; numbers as Python writes them, which read back to the same float."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(names)
    writer.writerows(rows)
    return buffer.getvalue()


def jsonl_text(rows, names):
    """One JSON object a line; nan (an undefined query) as null."""
    lines = (json.dumps(dict(zip(names, map(json_value, row), strict=True))) for row in rows)
    return "".join(line + "\n" for line in lines)


def json_value(value):
    return None if isinstance(value, float) and math.isnan(value) else value


def write_parquet(rows, names, output):
    """The rows as a Parquet file: text columns, and the values as float64 (strings refused)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as error:
        raise ImportError(
            "writing Parquet needs pyarrow: pip install 'sklearn-rankmetrics[pyarrow]' (or write .csv or .jsonl)."
        ) from error
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(names)
    text = [value for value in columns[-1] if isinstance(value, str)]
    if text:
        raise ValueError(
            f"a Parquet value column holds numbers, but relstring's values are strings ({text[0]!r}): leave "
            "relstring out, or write CSV or JSON lines."
        )
    try:
        labels = {
            name: pa.array(list(map(str, column)), pa.string())
            for name, column in zip(names[:-1], columns[:-1], strict=True)
        }
    except UnicodeEncodeError:  # a surrogate escape: an id whose bytes are not UTF-8
        raise ValueError(
            "an id holds bytes that are not UTF-8, which a Parquet string cannot hold: write CSV or JSON lines."
        ) from None
    pq.write_table(pa.table({**labels, "value": pa.array(columns[-1], pa.float64())}), output)
