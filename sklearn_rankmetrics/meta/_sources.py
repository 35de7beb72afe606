"""Qrels and runs in, with every error prefixed by whose they are: a judge's name, or the run's role.

Judges may give fractional judgements (an LLM's 1.5), which trec_eval's
qrels refuse: :func:`read_judgements` reads them as numbers, from the same
routes (files, Qrels, dicts, DataFrames) with the same checks of the ids.
"""

import numbers

import numpy as np

from .._core._validation import plain
from ..trec._general_reader import QRELS
from ..trec._io import Qrels, read_columns
from ..trec._sources import QRELS_COLUMNS, InputError, first_row, source_columns

# trec_eval's qrels layout with the relevance read as a float: a fractional judgement is read, not refused.
GRADED_QRELS = QRELS._replace(numbers={"relevance": np.float64})


def read_as(read, source, label):
    """``read(source)``, an error in it re-raised as a ValueError (or TypeError) whose message starts with ``label``.

    trec's InputError keeps its type and its ``source``; any other ValueError
    (a file that is no text, say) becomes a plain ValueError with the message.
    """
    try:
        return read(source)
    except InputError as error:
        raise InputError(error.source, f"{label}: {error}") from error
    except TypeError as error:
        raise TypeError(f"{label}: {error}") from error
    except ValueError as error:
        raise ValueError(f"{label}: {error}") from error


def read_judgements(source):
    """The columns of a qrels source: (query ids, doc ids as bytes, relevance as float64), any number allowed.

    Routes and id checks as :func:`as_qrels`; the relevance must be finite
    numbers (a missing judgement is a missing line, not NaN).
    """
    (query_id, doc_id, relevance), _ = source_columns(source, "qrels", Qrels, QRELS_COLUMNS, read_graded_qrels)
    if not len(query_id):
        raise InputError("qrels", "the qrels hold no judgement: give at least one (query, document, relevance).")
    if relevance.dtype.kind not in "fiub":
        numeric = np.array([isinstance(value, numbers.Real) for value in relevance], dtype=bool)
        if relevance.dtype.kind != "O" or not numeric.all():
            where = f" ({first_row(~numeric, query_id, doc_id)})" if relevance.dtype.kind == "O" else ""
            raise InputError(
                "qrels", f"relevance judgements must be numbers; got {plain(relevance[~numeric][0])!r}{where}."
            )
    relevance = relevance.astype(np.float64)
    if not np.isfinite(relevance).all():
        raise InputError(
            "qrels",
            f"the qrels judge {first_row(~np.isfinite(relevance), query_id, doc_id)} "
            f"{plain(relevance[~np.isfinite(relevance)][0])!r}: a judgement is a finite number (leave a document "
            "out of the qrels where it was not judged).",
        )
    return query_id, doc_id, relevance


def read_graded_qrels(source):
    """A qrels file with its relevance read as floats (its file name and line in any error)."""
    name, columns, _ = read_columns(source, GRADED_QRELS)
    if not len(columns["relevance"]):
        raise ValueError(f"{name} is empty: a qrels file needs at least one line of {' '.join(QRELS.fields)}.")
    return Qrels(columns["query_id"], columns["doc_id"], columns["relevance"])
