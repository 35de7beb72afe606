"""A trec_eval-compatible command: ``python -m sklearn_rankmetrics.trec_eval [options] QRELS RUN``.

Prints trec_eval's three tab-separated columns (measure name padded to 22
characters, ``all`` or the query id, the value) for the same measures,
names, parameters and options (``-q -c -n -l -M -N -J -m``), computed by
:func:`sklearn_rankmetrics.trec.evaluate_run`. Also installed as the
``rankmetrics-trec-eval`` command.
"""

import argparse
import sys

from .trec._evaluate import as_qrels, as_run, as_text, join, measure_values, parse_measure, summarize, with_missing
from .trec._measures import MEASURES

USAGE = (
    "python -m sklearn_rankmetrics.trec_eval [-h] [-q] [-c] [-n] [-l LEVEL] [-M DEPTH] [-N DOCS] [-J] "
    "[-m MEASURE[.PARAMS]]... QRELS RUN"
)


def parser():
    arguments = argparse.ArgumentParser(
        prog="python -m sklearn_rankmetrics.trec_eval",
        usage=USAGE,
        description="Evaluate a TREC run against qrels, printing what trec_eval prints.",
        epilog="Measures: "
        + ", ".join(name for name in MEASURES if name != "runid")
        + "; sets: official (the default), all_trec, set. Any ranking metric name of "
        "sklearn_rankmetrics (nDCG@10, AP, RR@10, err@20) is accepted too.",
    )
    arguments.add_argument("-q", action="store_true", help="also print each query's values")
    arguments.add_argument(
        "-c", action="store_true", help="average over every query of the qrels (missing ones score 0)"
    )
    arguments.add_argument("-n", action="store_true", help="print no summary over all queries")
    arguments.add_argument("-l", type=int, default=1, metavar="LEVEL", help="lowest relevant judgement (default 1)")
    arguments.add_argument("-M", type=int, default=None, metavar="DEPTH", help="documents counted per query")
    arguments.add_argument("-N", type=int, default=0, metavar="DOCS", help="documents in the collection (utility)")
    arguments.add_argument("-J", action="store_true", help="rank the judged documents only")
    arguments.add_argument("-m", action="append", default=[], metavar="MEASURE", help="measure[.params]; repeatable")
    arguments.add_argument("qrels", metavar="QRELS")
    arguments.add_argument("run", metavar="RUN")
    return arguments


def format_value(measure, value):
    if measure is not None and measure.summary in ("sum", "count"):
        return str(int(value))
    if measure is not None and measure.summary == "none":
        return f"'{value}'"
    return f"{value:6.4f}"


def lines(options):
    """The output lines of trec_eval for parsed command-line ``options``."""
    if options.M is not None and options.M < 1:
        raise ValueError(f"-M must be a positive number of documents; got {options.M}.")
    requests = {}
    for spec in options.m or ["official"]:
        for base, params in parse_measure(spec):
            requests[base] = params  # a later -m of the same measure wins
    # trec_eval prints its measures in its own order, whatever the order of -m.
    ordered = [base for base in MEASURES if base in requests] + [base for base in requests if base not in MEASURES]
    run = as_run(options.run)
    evaluation = join(
        as_qrels(options.qrels),
        run,
        relevance_level=options.l,
        complete=options.c,
        max_depth=options.M,
        judged_only=options.J,
        num_docs=options.N,
    )
    n_queries = len(evaluation.query_ids) + len(evaluation.missing_ids)
    results = []
    for base in ordered:
        measure = MEASURES.get(base)
        values = [] if base == "runid" else measure_values(evaluation.judged, base, requests[base])
        results.append((base, measure, values))
    output = []
    if options.q:
        for row, query in enumerate(as_text(evaluation.query_ids)):
            for _, measure, values in results:
                if measure is None or measure.per_query:
                    output += [f"{name:<22}\t{query}\t{format_value(measure, array[row])}" for name, array in values]
    if not options.n:
        for base, measure, values in results:
            if base == "runid":
                output.append(f"{'runid':<22}\tall\t{run.name}")
                continue
            if measure is not None and measure.summary == "none":
                continue  # per query only
            for name, array in values:
                summary = summarize(measure, with_missing(evaluation, measure, array), n_queries)
                output.append(f"{name:<22}\tall\t{format_value(measure, summary)}")
    return output


def main(argv=None):
    """Run the command with the arguments ``argv`` (default: the command line); returns the exit status."""
    options = parser().parse_args(argv)
    try:
        output = lines(options)
    except (ValueError, OSError, TypeError) as error:
        print(f"trec_eval: {error}", file=sys.stderr)
        return 1
    sys.stdout.write("".join(line + "\n" for line in output))
    return 0


if __name__ == "__main__":
    sys.exit(main())
