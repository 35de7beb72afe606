"""A trec_eval-compatible command: ``python -m sklearn_rankmetrics.trec_eval [options] QRELS RUN``.

Prints trec_eval's three tab-separated columns (measure name padded to 22
characters, ``all`` or the query id, the value) for the same measures,
names, parameters and options (``-q -c -n -l -M -N -J -m``), computed by
:func:`sklearn_rankmetrics.trec.evaluate_run`. Also installed as the
``rankmetrics-trec-eval`` command.

Query ids and the run tag are written as the files' bytes, whatever they
are and whatever the encoding of stdout, as trec_eval writes them.

A bad file or option never shows a traceback: the command prints
``trec_eval: FILE: message`` (or ``trec_eval: message``) to stderr and
exits with status 1.
"""

import argparse
import contextlib
import errno
import os
import sys

import numpy as np

from .trec._evaluate import check_relevance_level, parse_measure, query_table, summary_of, tail_free
from .trec._judging import join
from .trec._measures import MEASURES
from .trec._sources import InputError, as_qrels, as_run

USAGE = (
    "python -m sklearn_rankmetrics.trec_eval [-h] [-q] [-c] [-n] [-l LEVEL] [-M DEPTH] [-N DOCS] [-J] "
    "[-m MEASURE[.PARAMS]]... QRELS RUN"
)
# What reading a user's file or evaluating it may raise: each is reported as a message, never a traceback
# (the readers report a truncated or corrupt gzip file as a ValueError that names it).
USER_ERRORS = (ValueError, TypeError, OSError, OverflowError)


class CommandError(Exception):
    """A bad file or option: its message is printed after ``trec_eval:``."""


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise CommandError(f"{message}\nusage: {USAGE}")


def parser():
    arguments = Parser(
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
    arguments.add_argument(
        "-l", type=int, default=1, metavar="LEVEL", help="lowest relevant judgement (default 1; 0: every judged one)"
    )
    arguments.add_argument("-M", type=int, default=None, metavar="DEPTH", help="documents counted per query")
    arguments.add_argument("-N", type=int, default=0, metavar="DOCS", help="documents in the collection (utility)")
    arguments.add_argument("-J", action="store_true", help="rank the judged documents only")
    arguments.add_argument("-m", action="append", default=[], metavar="MEASURE", help="measure[.params]; repeatable")
    arguments.add_argument("qrels", metavar="QRELS")
    arguments.add_argument("run", metavar="RUN")
    return arguments


def requested(specs):
    """The (measure, parameters) pairs of trec_eval's ``-m`` options, in trec_eval's order of output.

    As in trec_eval, an option marks measures (a nickname marks each of its
    own) and a measure takes the parameters of its first ``-m NAME.PARAMS``,
    whichever options come before or after: ``-m P.10 -m P.20`` prints
    P_10, and ``-m ndcg_cut.5 -m all_trec`` ndcg_cut_5 alone.
    """
    parameters = {}
    for spec in specs or ["official"]:
        for base, params in parse_measure(spec):
            if parameters.get(base) is None:
                parameters[base] = params
    return [(base, parameters[base]) for base in MEASURES if base in parameters] + [
        (base, params) for base, params in parameters.items() if base not in MEASURES
    ]


def format_value(measure, value):
    """A value as trec_eval prints it: counts as integers (an expected count, under averaged ties, as a mean)."""
    if measure is not None and measure.summary in ("sum", "count") and float(value).is_integer():
        return str(int(value))
    if measure is not None and measure.summary == "none":
        return f"'{value}'"
    return f"{value:6.4f}"


def read(reader, path):
    """``reader(path)``, with any error about the file as a message that names it."""
    try:
        return reader(path)
    except USER_ERRORS as error:
        raise CommandError(about_file(path, error)) from error


def about_file(path, error):
    """``FILE: message`` for an error about the file ``path`` (the readers' own messages name it already)."""
    message = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
    return message if message.startswith(path) else f"{path}: {message}"


def lines(options):
    """The output lines of trec_eval for parsed command-line ``options``."""
    if options.M is not None and options.M < 1:
        raise CommandError(f"-M must be a positive number of documents; got {options.M}.")
    level = check_relevance_level(options.l, "-l")
    requests = requested(options.m)
    qrels, run = read(as_qrels, options.qrels), read(as_run, options.run)
    try:
        evaluation = join(
            qrels,
            run,
            relevance_level=level,
            complete=options.c,
            max_depth=options.M,
            judged_only=options.J,
            num_docs=options.N,
            tail_free=tail_free(requests),
        )
    except InputError as error:
        raise CommandError(about_file(getattr(options, error.source), error)) from error
    query_ids, table = query_table(evaluation, requests)  # as bytes
    output = []
    if options.q:
        for row, query in enumerate(query_ids):
            for _, measure, pairs in table:
                if measure is None or measure.per_query:
                    output += [line(name, query, format_value(measure, values[row])) for name, values in pairs]
    if not options.n:
        for base, measure, pairs in table:
            if base == "runid":
                output.append(line("runid", b"all", run.name))
            elif measure is None or measure.summary != "none":  # relstring: per query only
                for name, values in pairs:
                    summary = summary_of(evaluation, name, measure, values, len(query_ids))
                    output.append(line(name, b"all", format_value(measure, summary)))
    return output


def line(name, query, value):
    """An output line, as bytes: the query id (bytes) and any text from the files as the files' bytes."""
    return b"\t".join(as_bytes(column) for column in (f"{name:<22}", query, value)) + b"\n"


def as_bytes(value):
    """Text as UTF-8 with its surrogate escapes back to the bytes they stand for (bytes stay)."""
    return value if isinstance(value, bytes) else value.encode("utf-8", "surrogateescape")


def write(output):
    """Write bytes to stdout as they are, whatever its encoding: trec_eval prints the ids of the files so.

    A text stream without bytes underneath (a StringIO) takes the text the
    bytes stand for. A closed stdout is an OSError, as a full disk is.
    """
    stream = sys.stdout
    if stream is None:  # the command was started with its stdout closed (`>&-`)
        raise OSError(errno.EBADF, "standard output is closed")
    if hasattr(stream, "buffer"):
        stream.flush()
        stream.buffer.write(output)
        stream.buffer.flush()
    else:
        stream.write(output.decode("utf-8", "surrogateescape"))


def discard_output():
    """Point stdout at the null device, so that the interpreter's last flush of what is left cannot fail again."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (AttributeError, OSError, ValueError):
        pass  # no file descriptor underneath: nothing will be flushed there


def complain(message):
    """Print an error message to stderr, where there is one."""
    try:
        print(message, file=sys.stderr)
    except (AttributeError, OSError):
        pass


@contextlib.contextmanager
def small_pages():
    """numpy's arrays without transparent huge pages while the command runs (numpy's NUMPY_MADVISE_HUGEPAGE).

    The command allocates large arrays once each, for which the kernel's
    compaction into huge pages costs more than they save: on an MS MARCO
    run, half the command's system time (0.35 s of 0.7 s, on 2 cores).
    """
    core = np._core if hasattr(np, "_core") else np.core  # numpy 2, numpy 1
    switch = getattr(core.multiarray, "_set_madvise_hugepage", None)
    if switch is None:
        yield
        return
    previous = switch(False)
    try:
        yield
    finally:
        switch(previous)


def main(argv=None):
    """Run the command with the arguments ``argv`` (default: the command line); returns the exit status."""
    try:
        with small_pages():
            output = lines(parser().parse_args(argv))
    except (CommandError, *USER_ERRORS) as error:
        complain(f"trec_eval: {error}")
        return 1
    try:
        write(b"".join(output))
    except OSError as error:  # a full disk, a closed stdout or pipe
        discard_output()
        complain(f"trec_eval: cannot write the output: {error.strerror or error}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
