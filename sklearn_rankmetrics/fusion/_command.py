"""The ``rankmetrics fuse`` subcommand: fuse TREC runs into one, written as a TREC run that trec_eval reads.

``rankmetrics fuse RUN RUN... --method rrf --k 60 -o fused.run``. As the
trec_eval command: nothing on stdout but the fused run (when no ``-o`` is
given), errors on stderr, exit status 2 for a bad option and 1 for a bad
input file. :func:`register` adds it to the top-level command
(:mod:`sklearn_rankmetrics._command`), whose ``main`` writes what the
subcommand's ``func(args)`` returns to stdout and reports the errors it raises.
"""

from .._core._validation import plain

PROG = "rankmetrics fuse"


def register(subparsers):
    """Add the ``fuse`` subcommand to an argparse ``subparsers`` object; its ``func`` runs it."""
    parser = subparsers.add_parser(
        "fuse",
        help="fuse TREC runs into one TREC run",
        description="Fuse two or more TREC runs into one, written as a TREC run (trec_eval's format).",
        epilog="Methods (ranx's names, any case; CombSUM, comb_mnz, W-Sum also work): sum, mnz, anz, max, min, med, "
        "gmnz, wsum, wmnz, mixed, isr, log_isr, logn_isr, rrf, rbc, bordafuse, w_bordafuse, condorcet, "
        "w_condorcet, mapfuse, posfuse, probfuse, segfuse, slidefuse, bayesfuse (the last six learn from --qrels).",
    )
    parser.add_argument("runs", nargs="+", metavar="RUN", help="TREC run files (plain or gzip)")
    parser.add_argument("--method", "-m", default="rrf", help="fusion method (default rrf)")
    parser.add_argument(
        "--norm",
        "--normalization",
        dest="normalization",
        default=None,
        help="min-max, min-max-inverted, max, sum, zmuv, rank or borda (default: none)",
    )
    parser.add_argument(
        "--weights",
        "-w",
        type=float,
        nargs="+",
        default=None,
        metavar="W",
        help="one weight per run, in their order (default 1 each)",
    )
    parser.add_argument("--k", type=float, default=None, help="RRF's k (default 60)")
    parser.add_argument("--phi", type=float, default=None, help="RBC's persistence (default 0.8)")
    parser.add_argument("--sigma", type=float, default=None, help="LogN_ISR's sigma (default 0.01)")
    parser.add_argument("--gamma", type=float, default=None, help="CombGMNZ's gamma (default 1)")
    parser.add_argument("--window", type=int, default=None, help="SlideFuse's half window w (default 5)")
    parser.add_argument("--segments", type=int, default=None, help="ProbFuse's number of segments (default 25)")
    parser.add_argument("--ties", default="average", help="average (default), trec_eval or ranx")
    parser.add_argument("--missing", default=None, help="score of a document a run lacks: min, or a number")
    parser.add_argument("--qrels", default=None, help="training qrels, for the methods that learn")
    parser.add_argument(
        "--train-run",
        dest="train_runs",
        action="append",
        default=None,
        metavar="RUN",
        help="a run on the training queries, once per run in order (default: the RUNs)",
    )
    parser.add_argument("--depth", type=int, default=None, help="documents kept per query")
    parser.add_argument("--tag", default=None, help="run tag written in the last column (default: the method)")
    parser.add_argument("-o", "--output", default="-", help="output file (default: standard output)")
    parser.set_defaults(func=lambda args: run_command(args, parser))
    return parser


def options(args, parser):
    """The keyword arguments of :func:`fuse` that the command line gives; a bad one exits with status 2."""
    from ._engine import fusion_spec

    missing = args.missing
    if missing is not None and missing != "min":
        try:
            missing = float(missing)
        except ValueError:
            parser.error(f"--missing must be 'min' or a number; got {missing!r}.")
    params = {
        "k": args.k,
        "phi": args.phi,
        "sigma": args.sigma,
        "gamma": args.gamma,
        "w": args.window,
        "n_segments": args.segments,
    }
    try:
        spec = fusion_spec(args.method, args.normalization, args.weights, args.ties, missing, params)
    except (ValueError, TypeError) as error:
        parser.error(str(error))
    if spec.trained is not None and args.qrels is None:
        parser.error(
            f"--method {args.method} learns from training judgements: give --qrels (and --train-run, once per run, "
            "the runs on the training queries)."
        )
    if spec.trained is None and (args.qrels is not None or args.train_runs is not None):
        parser.error(
            f"--method {args.method} learns nothing: --qrels and --train-run are for mapfuse, posfuse, probfuse, "
            "segfuse, slidefuse and bayesfuse."
        )
    if args.tag is not None and (not args.tag or any(character.isspace() for character in args.tag)):
        parser.error(f"--tag is the last column of each line: one word, without whitespace; got {args.tag!r}.")
    if len(args.runs) < 2:
        parser.error(f"fusion needs two or more runs; got {len(args.runs)}.")
    if args.weights is not None and len(args.weights) != len(args.runs):
        parser.error(f"--weights needs one weight per run ({len(args.runs)}); got {len(args.weights)}.")
    if args.train_runs is not None and len(args.train_runs) != len(args.runs):
        parser.error(f"--train-run must be given once per run ({len(args.runs)}); got {len(args.train_runs)}.")
    if args.depth is not None and args.depth < 1:
        parser.error(f"--depth must be at least 1; got {plain(args.depth)!r}.")
    return {
        "method": args.method,
        "normalization": args.normalization,
        "weights": args.weights,
        "ties": args.ties,
        "missing": missing,
        "qrels": args.qrels,
        "train_runs": args.train_runs,
        "depth": args.depth,
        "name": args.tag,
        **params,
    }


def run_lines(run):
    """A Run as the lines of a TREC run file (bytes): ``qid Q0 docid rank score tag``, ranks from 1 per query.

    Scores are written as Python's ``repr`` writes them, the shortest text
    that reads back as the same double (trec_eval reads them with ``atof``).
    """
    tag = run.name or "fused"
    lines, rank, previous = [], 0, None
    for query, doc, score in zip(run.query_id.tolist(), run.doc_id.tolist(), run.score.tolist(), strict=True):
        rank = rank + 1 if query == previous else 1
        previous = query
        lines.append(f"{query} Q0 {doc} {rank} {score!r} {tag}\n")
    return "".join(lines).encode("utf-8", "surrogateescape")


def run_command(args, parser):
    """Run ``rankmetrics fuse``: the fused run's bytes for stdout, or None once written to ``--output``.

    A bad option exits through ``parser.error`` (status 2); a bad input file
    raises the reader's ValueError, naming the file and line, which the
    top-level command reports with status 1.
    """
    from ._fuse import fuse

    kwargs = options(args, parser)
    output = run_lines(fuse(args.runs, **kwargs))
    if args.output == "-":
        return output
    with open(args.output, "wb") as file:
        file.write(output)
    return None
