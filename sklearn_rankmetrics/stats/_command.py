"""The ``rankmetrics compare`` subcommand: TREC runs compared with paired tests, printed as a table for a paper.

``rankmetrics compare QRELS RUN... -m ndcg_cut.10 -m map --baseline bm25.run
--test tukey --format latex`` is :func:`compare_runs` on the command line: the
runs (files, folders of them, or quoted glob patterns) are read by the
readers of the trec_eval command and named by their files' names; the
comparison prints as its table (``table``), Markdown, LaTeX, JSON (that
:meth:`RankingComparison.from_json` reads back) or CSV (the comparison's rows:
a system's own row, then each pair tested on the row of its system).

As the trec_eval command: nothing on stdout but results, errors and warnings
on stderr, exit status 2 for bad usage (an unknown test, correction or
measure, a bad option) and 1 for a bad file (named, with its line).
:func:`register` adds it to the ``rankmetrics`` command
(:mod:`sklearn_rankmetrics._command`).
"""

import csv
import io

from ..trec._command import add_evaluation_arguments
from ..trec._run_files import names_of_paths, run_files

PROG = "rankmetrics compare"
FORMATS = ("table", "markdown", "latex", "json", "csv")


def register(subparsers):
    """Add the ``compare`` subcommand to an argparse ``subparsers`` object; its ``func`` runs it."""
    parser = subparsers.add_parser(
        "compare",
        help="compare TREC runs with paired significance tests",
        description="Compare TREC runs on their qrels: each evaluated as trec_eval does, then paired tests over the "
        "queries, with a correction for testing many pairs; printed as a table, Markdown, LaTeX, JSON or CSV.",
        epilog="Tests: randomization (default), t-test, wilcoxon, bootstrap, tukey-hsd, randomized-tukey-hsd; "
        "ranx's fisher, student, tukey and PyTerrier's t too. Corrections: holm (default), bonferroni, fdr_bh (bh), "
        "maxT, none. A run is named by its file's name.",
    )
    add_evaluation_arguments(
        parser, measures="measure[.params], repeatable: map, ndcg_cut.10, P.10, nDCG@10 (at least one)"
    )
    parser.add_argument(
        "--baseline",
        default=None,
        metavar="RUN",
        help="the run compared with each other one (its name or path; default: every pair)",
    )
    parser.add_argument("--test", default="randomization", help="the paired test (default randomization)")
    parser.add_argument("--correction", default="holm", help="the multiple-testing correction (default holm)")
    parser.add_argument(
        "--queries",
        choices=("common", "union", "qrels"),
        default=None,
        help="queries compared: those every run answers (default), those any run answers, or all "
        "those of the qrels (-c); a run's missing ones score 0, as trec_eval -c",
    )
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    parser.add_argument("--confidence-level", type=float, default=0.95, help="level of the intervals (default 0.95)")
    parser.add_argument("--n-resamples", type=int, default=10_000, metavar="N", help="resamples (default 10000)")
    parser.add_argument(
        "--random-state",
        "--seed",
        dest="random_state",
        type=int,
        default=None,
        metavar="SEED",
        help="seed of the resampling, for reproducible p-values",
    )
    parser.add_argument("--format", choices=FORMATS, default="table", help="output layout (default table)")
    parser.set_defaults(func=lambda args: run(args, parser))
    return parser


def settings(args, parser):
    """The keyword arguments of :func:`compare_runs` from the command line; a bad option is a usage error."""
    from ..trec._evaluate import check_options
    from ._compare import check_settings
    from ._runs_comparison import comparable_requests

    if not args.measures:
        parser.error("give at least one measure with -m, such as -m map -m ndcg_cut.10.")
    if args.complete and args.queries not in (None, "qrels"):
        parser.error(f"-c means --queries qrels; it contradicts --queries {args.queries}.")
    found = {
        "metrics": args.measures,
        "test": args.test,
        "correction": args.correction,
        "queries": "qrels" if args.complete else args.queries or "common",
        "relevance_level": args.relevance_level,
        "max_depth": args.max_depth,
        "judged_only": args.judged_only,
        "n_resamples": args.n_resamples,
        "confidence_level": args.confidence_level,
        "alpha": args.alpha,
        "random_state": args.random_state,
    }
    try:  # every option checked before any file is read: a bad one is bad usage
        settings = check_settings(
            *(found[name] for name in ("test", "correction", "alpha", "n_resamples")),
            found["confidence_level"],
            found["random_state"],
        )
        check_options(
            relevance_level=found["relevance_level"],
            complete=False,
            max_depth=found["max_depth"],
            judged_only=found["judged_only"],
            ties=None,
        )
        comparable_requests(found["metrics"])
    except (ValueError, TypeError) as error:
        parser.error(str(error))
    return {**found, "test": settings["test"], "correction": settings["correction"]}


def run(args, parser):
    """Compare the runs of the command line; returns the bytes for standard output (None when written to a file)."""
    from ..trec._sources import InputError
    from ._per_query import nearest
    from ._runs_comparison import compare_runs

    options = settings(args, parser)
    paths = names_of_paths([path for argument in args.runs for path in run_files(argument, besides=args.qrels)])
    if len(paths) < 2:
        parser.error(f"compare needs two runs or more; got {len(paths)}: {', '.join(paths.values())}.")
    baseline = args.baseline
    if baseline is not None and baseline not in paths:  # a path as typed names its run too
        baseline = next((name for name, path in paths.items() if path == baseline), None)
        if baseline is None:
            close = nearest(args.baseline, paths)
            parser.error(
                f"--baseline {args.baseline!r} is none of the runs: {', '.join(paths)}."
                + (f" Did you mean {close!r}?" if close is not None else "")
            )
    try:
        comparison = compare_runs(args.qrels, paths, baseline=baseline, **options)
    except InputError as error:  # about the qrels, which the readers' messages name (a run's is named by its run)
        message = str(error)
        raise ValueError(message if message.startswith(args.qrels) else f"{args.qrels}: {message}") from error
    text = formatted(comparison, args.format)
    if args.output == "-":
        return text.encode("utf-8", "surrogateescape")
    with open(args.output, "w", encoding="utf-8", errors="surrogateescape") as stream:
        stream.write(text)
    return None


def formatted(comparison, form):
    """The comparison as text in the layout ``form``."""
    if form == "markdown":
        return comparison.to_markdown()
    if form == "latex":
        return comparison.to_latex()
    if form == "json":
        return comparison.to_json() + "\n"
    if form == "csv":
        from ._comparison import COLUMNS

        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n", extrasaction="ignore")
        writer.writeheader()
        writer.writerows({key: "" if value is None else value for key, value in row.items()} for row in comparison.rows)
        return buffer.getvalue()
    return str(comparison) + "\n"
