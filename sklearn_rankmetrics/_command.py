"""The ``rankmetrics`` command: one entry point, a subcommand per capability (``rankmetrics fuse ...``).

Each wing adds its subcommand with ``register(subparsers)``, whose ``func(args)``
returns the bytes to print (or None) and raises a ValueError, TypeError,
OSError or ImportError for bad input. As the trec_eval command: nothing on
stdout but results, errors on stderr, exit status 2 for bad usage (argparse's)
and 1 for bad input.
"""

import argparse
import sys

from .fusion import _command as fusion_command
from .trec_eval import USER_ERRORS, complain, discard_output, small_pages, write

SUBCOMMANDS = (fusion_command,)


def parser():
    """The argument parser of ``rankmetrics``, with every subcommand."""
    top = argparse.ArgumentParser(prog="rankmetrics", description="sklearn-rankmetrics on the command line.")
    subparsers = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for subcommand in SUBCOMMANDS:
        subcommand.register(subparsers)
    return top


def main(argv=None):
    """Run ``rankmetrics`` with the arguments ``argv`` (default: the command line); returns the exit status."""
    arguments = parser()
    try:
        args = arguments.parse_args(argv)
        with small_pages():
            output = args.func(args)
    except SystemExit as exit:  # argparse: 0 after --help, 2 for bad usage (its message is on stderr)
        return exit.code
    except (*USER_ERRORS, ImportError) as error:
        complain(f"rankmetrics {args.command}: {error}")
        return 1
    if output:
        try:
            write(output)
        except OSError as error:  # a full disk, a closed stdout or pipe
            discard_output()
            complain(f"rankmetrics {args.command}: cannot write the output: {error.strerror or error}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
