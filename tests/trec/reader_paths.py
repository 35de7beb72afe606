"""The two paths of the TREC readers, for the tests: pyarrow's fast path and the general reader alone.

Every file the tests read twice (with pyarrow, and as if it were not
installed) must give the same arrays, dtypes included, the same run tag, or
the same error naming the same file and line.
"""

import numpy as np

from sklearn_rankmetrics.trec import _fast_reader, _general_reader, _io


def general_only(monkeypatch):
    """The general reader alone: pyarrow as if it were not installed."""
    monkeypatch.setattr(_fast_reader, "pyarrow_modules", lambda: None)


def outcome(reader, source):
    """A reader's result as comparable values, or its error (type and message)."""
    if hasattr(source, "seek"):
        source.seek(0)
    try:
        result = reader(source)
    except (ValueError, TypeError, OSError) as error:
        return type(error), str(error)
    return {
        name: (value.dtype.str, value.tolist()) if isinstance(value, np.ndarray) else value
        for name, value in vars(result).items()
    }


def both_readers(monkeypatch, reader, source):
    """The outcome of ``reader`` with the fast path and with the general reader alone."""
    fast = outcome(reader, source)
    with monkeypatch.context() as patch:
        general_only(patch)
        general = outcome(reader, source)
    return fast, general


def general_calls(monkeypatch):
    """A list that records each call of the general reader (the name of the file it reads)."""
    calls = []
    general = _general_reader.general_columns
    monkeypatch.setattr(_io, "general_columns", lambda *args: calls.append(args[0]) or general(*args))
    return calls
