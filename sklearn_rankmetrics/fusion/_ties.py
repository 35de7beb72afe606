"""Each run's ranking of its documents, for every query at once, under a policy for tied scores.

``"average"`` (the default): tied documents share the average of the ranks
they span, so nothing depends on the order of the input. ``"trec_eval"``:
ties broken by descending document id, trec_eval's order. ``"ranx"``: the
order ranx 0.3 gives them, for reproducing its results: ranx sorts each
query's documents with numba's ``np.argsort`` of the negated scores, an
unstable quicksort (insertion sort below 16 documents), from the order of
the input; only numba itself reproduces that order, so it needs numba.
"""

from dataclasses import dataclass

import numpy as np

from .._core._numpy_ops import differs_from_previous, group_by_query, positions_in_segments, rank_order
from .._core._validation import check_option
from ..trec._judging import trec_order

TIES = ("average", "trec_eval", "ranx")


@dataclass
class Ranked:
    """The rows of :class:`~._lists.Lists` in rank order, list by list, and where each rank lies.

    ``order``: the rows, grouped by list (run, query) and ranked within each;
    ``position``: each ranked row's 0-based place in its list; ``block``:
    the first place of its tie block (its own place but under ``"average"``);
    ``block_size``: the size of that block (1 but under ``"average"``);
    ``list_size``: the length of its list. Ranks are 1-based: the average
    rank of a row is ``block + (block_size + 1) / 2``.
    """

    order: np.ndarray
    position: np.ndarray
    block: np.ndarray
    block_size: np.ndarray
    list_size: np.ndarray
    block_starts: np.ndarray  # indices into the ranked rows where each tie block starts
    in_input_order: bool = False  # ``order`` is every row in its own place

    @property
    def has_ties(self):
        """Whether some tie block holds several rows (only under ``"average"``)."""
        return len(self.block_starts) < len(self.order)

    @property
    def rank(self):
        """Each ranked row's 1-based rank; the average of the ranks its tie block spans."""
        return self.block + (self.block_size + 1) / 2.0

    def block_mean(self, values):
        """The mean of ``values`` (one per ranked row) over each tie block, given to every row of the block."""
        if len(self.block_starts) == len(values):
            return values
        sizes = np.diff(self.block_starts, append=len(values))
        return np.repeat(np.add.reduceat(values, self.block_starts) / sizes, sizes)


def rank_lists(lists, *, ties="average"):
    """Rank every list of ``lists`` by descending score under ``ties`` (``"ranx"``: from the rows' order)."""
    ties = check_option("ties", ties, TIES)
    n_queries = max(lists.n_queries, 1)
    list_code = lists.run.astype(np.int64) * n_queries + lists.query
    key = lists.score
    n_rows = len(key)
    if not n_rows:
        empty = np.zeros(0, dtype=np.intp)
        return Ranked(empty, empty, empty, empty, empty, empty)
    in_input_order = False
    if ties == "average":
        in_place = ranked_in_place(list_code, key)
        if in_place is None:
            order, codes, changes = rank_order(list_code, key, ties="stable")
        else:
            order, codes, changes = in_place
            in_input_order = codes is list_code
    elif ties == "trec_eval":
        if lists.doc is None:
            raise ValueError(
                "ties='trec_eval' breaks ties by document id, and score columns have none; use ties='average'."
            )
        order, codes = trec_order(list_code, key, lists.doc)
        changes = None
    else:
        order, codes = ranx_order(list_code, key)
        changes = None
    starts = np.flatnonzero(differs_from_previous(codes))
    position = positions_in_segments(starts, n_rows)
    sizes = np.diff(starts, append=n_rows)
    list_size = np.repeat(sizes, sizes)
    if changes is None or changes.all():  # each row its own tie block
        block_size = np.ones(n_rows, dtype=np.intp)
        return Ranked(order, position, position, block_size, list_size, np.arange(n_rows), in_input_order)
    is_block_start = changes.copy()
    is_block_start[starts] = True
    block_starts = np.flatnonzero(is_block_start)
    block_sizes = np.diff(block_starts, append=n_rows)
    block = np.repeat(position[block_starts], block_sizes)
    block_size = np.repeat(block_sizes, block_sizes)
    return Ranked(order, position, block, block_size, list_size, block_starts, in_input_order)


def ranked_in_place(list_code, score):
    """The order of rows already listed by list and by descending score, as runs are written (None otherwise).

    Only the lists need grouping (a radix sort) when they are not in order;
    the rows within them are checked in one pass.
    """
    grouping = None if np.all(list_code[1:] >= list_code[:-1]) else group_by_query(list_code)
    codes = list_code if grouping is None else list_code[grouping]
    scores = score if grouping is None else score[grouping]
    if not np.all((scores[1:] <= scores[:-1]) | (codes[1:] != codes[:-1])):
        return None
    order = np.arange(len(codes)) if grouping is None else grouping
    return order, codes, differs_from_previous(scores)


def ranx_order(list_code, score):
    """The rows grouped by list, each list in ranx 0.3's order: numba's quicksort of the negated scores.

    ranx sorts a run when it is built, from the input order (and again after
    an inverted min-max normalisation, from the order of the first sort).
    """
    grouped = group_by_query(list_code)
    codes = list_code[grouped]
    starts = np.append(np.flatnonzero(differs_from_previous(codes)), len(codes))
    return grouped[ranx_sorter()(starts, -score[grouped])], codes


_SORTER = []


def ranx_sorter():
    """The numba function that sorts each list as ranx does (compiled once per process)."""
    if _SORTER:
        return _SORTER[0]
    try:
        import numba
    except ImportError:  # pragma: no cover - numba comes with ranx and with the extra
        raise ImportError(
            "ties='ranx' reproduces ranx's order of tied documents, which only numba's sort gives: "
            "pip install 'sklearn-rankmetrics[ranx]' (numba)."
        ) from None

    _SORTER.append(numba.njit(cache=True)(sort_lists))
    return _SORTER[0]


def sort_lists(starts, keys):  # pragma: no cover - compiled by numba
    """Each list ``keys[starts[i]:starts[i + 1]]`` sorted by numba's ``np.argsort`` (a quicksort), as ranx sorts."""
    order = np.empty(len(keys), dtype=np.int64)
    for segment in range(len(starts) - 1):
        start, stop = starts[segment], starts[segment + 1]
        order[start:stop] = np.argsort(keys[start:stop]) + start
    return order
