"""Segments laid out on padded cells, for reductions and scans on a device (:class:`SegmentLayout`)."""

from functools import cached_property

import numpy as np


class SegmentLayout:
    """Segments of ``n_values`` values laid out on padded cells, for reductions and scans on a device.

    Nothing is read back: every size comes from ``n_values``, the number of
    segments and ``longest``, a bound on their sizes that the host knows.
    Padding holds the operation's identity, so that each segment reduces on
    its own, with no rounding carried from another (as with numpy's
    ``reduceat``). Three layouts:

    - ``given``: the values already are the rows of a padded matrix, one per
      segment, ``longest`` wide (a padded top k, flattened);
    - a grid: one row of ``longest`` cells per segment, when that pads the
      values at most ``GRID_PADDING`` times; reductions and scans run along
      its rows;
    - aligned runs otherwise: each segment takes a run of ``2**c`` cells with
      ``2**(c-1) < size <= 2**c``, at an offset that is a multiple of it (the
      widest classes first), at most ``2 n_values + n_segments`` cells in all.
      Halving the cells ``c`` times reduces exactly the runs of width
      ``2**c``; scans step through each run with doubling strides.

    :meth:`leading` lays out only the first values of each segment.
    """

    GRID_PADDING = 4

    def __init__(self, ops, starts, n_values, longest, segment_of=None, *, given=False):
        self.ops, self.starts, self.n_values, self.given = ops, starts, n_values, given
        self.longest = int(longest)
        self.shape = (starts.shape[0], self.longest)
        self.empty = n_values == 0 or starts.shape[0] == 0
        self.grid = given or self.shape[0] * self.longest <= self.GRID_PADDING * max(n_values, 1)
        self.levels = max(self.longest - 1, 0).bit_length()  # halvings: 2**(levels-1) < longest <= 2**levels
        self.leading_layouts = {}
        if segment_of is not None and not callable(segment_of):
            self.segment_of = segment_of
        self.find_segment_of = segment_of if callable(segment_of) else None

    def leading(self, within):
        """The layout of the first ``within`` values of each segment (a grid), or this one if none is longer."""
        if within is None or within >= self.longest or self.given:
            return self
        if within not in self.leading_layouts:
            layout = SegmentLayout(self.ops, self.starts, self.n_values, within)
            layout.grid, layout.sizes, layout.parent = True, self.ops.xp.minimum(self.sizes, within), self
            self.leading_layouts[within] = layout
        return self.leading_layouts[within]

    @cached_property
    def bounds(self):
        """The segments' starts, then ``n_values``."""
        return self.ops.concat((self.starts, self.ops.constant(self.n_values, self.starts.dtype)))

    @cached_property
    def last(self):
        """The index of each segment's last value."""
        return self.bounds[1:] - 1

    @cached_property
    def segment_of(self):
        """The segment of each value."""
        ops, xp = self.ops, self.ops.xp
        if hasattr(self, "parent"):
            return self.parent.segment_of
        if self.find_segment_of is not None:
            return self.find_segment_of()
        if self.given:
            return xp.reshape(xp.broadcast_to(ops.arange(self.shape[0])[:, None], self.shape), (-1,))
        return xp.searchsorted(self.starts, ops.arange(self.n_values), side="right") - 1

    @cached_property
    def sizes(self):
        return self.bounds[1:] - self.bounds[:-1]

    @cached_property
    def cells(self):
        """For each cell: its column, its row's width, whether it holds a value, and which (flat arrays)."""
        ops, xp = self.ops, self.ops.xp
        if self.grid:
            columns = ops.arange(self.longest)[None, :]
            inside = columns < self.sizes[:, None]
            rows = xp.where(inside, self.starts[:, None] + columns, 0)
            column = xp.broadcast_to(columns, self.shape)
            flat = (xp.reshape(column, (-1,)), None, xp.reshape(inside, (-1,)), xp.reshape(rows, (-1,)))
            return flat
        _, _, by_width, first_cell, first_run, class_end = self.runs
        # At most 2 n_values + n_segments cells (each run < 2 size + 1), rounded to whole widest runs.
        n_cells = -(-(2 * self.n_values + self.shape[0]) // 2**self.levels) * 2**self.levels
        cells = ops.arange(n_cells)
        # The class of each cell: its region is the first to end after it (regions lie widest first).
        size_class = xp.maximum(self.levels - xp.searchsorted(xp.flip(class_end), cells, side="right"), 0)
        place = cells - xp.take(first_cell, size_class)
        run_in_class = xp.bitwise_right_shift(place, size_class)
        column = place - xp.bitwise_left_shift(run_in_class, size_class)
        segment = xp.take(by_width, xp.minimum(xp.take(first_run, size_class) + run_in_class, self.shape[0] - 1))
        inside = (column < xp.take(self.sizes, segment)) & (cells < class_end[0])
        width = xp.bitwise_left_shift(xp.ones_like(size_class), size_class)
        return column, width, inside, xp.where(inside, xp.take(self.starts, segment) + column, 0)

    @cached_property
    def runs(self):
        """Each segment's class c (its run is ``2**c`` cells) and its run's first cell, the segments in the runs'
        order, and for each class (c = 0 .. levels) its first cell, its first run and its end.

        The classes lie widest first, so that every run is aligned; within a
        class the runs keep the segments' order.
        """
        ops, xp = self.ops, self.ops.xp
        classes = ops.arange(self.levels + 1)
        # The class c of each segment, with 2**(c-1) < size <= 2**c (size 0 or 1: c = 0): how many of
        # 1, 2, 4, ... it exceeds, counted exactly.
        powers = xp.bitwise_left_shift(ops.ones(self.levels, dtype=xp.int64), classes[:-1])
        size_class = xp.sum(ops.astype(self.sizes[:, None] > powers[None, :], xp.int64), axis=1)
        # Each segment's rank in its class, from one running count over the classes' masks end to end
        # (a scan along a 1-D array: PyTorch scans the other axes of a tall matrix slowly).
        member = classes[:, None] == size_class[None, :]
        running = xp.reshape(ops.running_count(xp.reshape(member, (-1,))), member.shape)
        before = ops.concat((ops.zeros(1, dtype=xp.int64), running[:-1, -1]))  # the members of the classes below
        count = running[:, -1] - before
        within = xp.sum(xp.where(member, running - before[:, None], 0), axis=0) - 1
        n_cells = xp.bitwise_left_shift(count, classes)
        first_cell = xp.sum(n_cells) - ops.cumsum(n_cells)  # the cells of the wider classes
        first_run = xp.sum(count) - ops.cumsum(count)
        offsets = xp.take(first_cell, size_class) + xp.bitwise_left_shift(within, size_class)
        by_width = ops.stable_argsort(size_class, descending=True)
        return size_class, offsets, by_width, first_cell, first_run, first_cell + n_cells

    @cached_property
    def pick(self):
        """Where each segment's reduction lies in the levels of halving laid end to end.

        Level c holds the reductions of the aligned runs of ``2**c`` cells and
        starts after ``n (1 + 1/2 + ... + 1/2**(c-1)) = 2 n - 2 n / 2**c`` cells.
        """
        xp = self.ops.xp
        size_class, offsets = self.runs[:2]
        twice = xp.full_like(size_class, 2 * self.cells[0].shape[0])
        return twice - xp.bitwise_right_shift(twice, size_class) + xp.bitwise_right_shift(offsets, size_class)

    @cached_property
    def cell(self):
        """The cell of each value (a value past a leading layout's width: some cell of its segment)."""
        ops, xp = self.ops, self.ops.xp
        position = ops.arange(self.n_values) - xp.take(self.starts, self.segment_of)
        if self.grid:
            return self.segment_of * self.longest + xp.minimum(position, self.longest - 1)
        return xp.take(self.runs[1], self.segment_of) + position

    def padded(self, values, fill):
        """The values (along the first axis) on the layout's cells, ``fill`` on the padding."""
        xp = self.ops.xp
        if self.given:
            return values
        _, _, inside, rows = self.cells
        inside = xp.reshape(inside, (-1, *[1] * (values.ndim - 1)))
        return xp.where(inside, xp.take(values, rows, axis=0), fill)

    def reduce(self, values, reduce, identity):
        """``reduce`` (sum, max, prod) of the values (along the first axis) of each segment (``identity`` if empty)."""
        xp, rest = self.ops.xp, tuple(values.shape[1:])
        if self.empty:
            return xp.full((self.shape[0], *rest), identity, dtype=values.dtype, device=self.ops.device)
        level = self.padded(values, identity)
        if self.grid:
            return reduce(xp.reshape(level, (*self.shape, *rest)), axis=1)
        levels = [level]
        for _ in range(self.levels):
            level = reduce(xp.reshape(level, (-1, 2, *rest)), axis=1)
            levels.append(level)
        return xp.take(xp.concat(levels), self.pick, axis=0)

    def exclusive_cumprod(self, values):
        """Product of the values before each one in its segment (1 for the first)."""
        ops, xp = self.ops, self.ops.xp
        if self.empty:
            return values
        cells = self.padded(values, 1.0)
        if self.grid:
            before = xp.cumulative_prod(xp.reshape(cells, self.shape)[:, :-1], axis=1)
            ones = ops.ones((self.shape[0], 1), dtype=values.dtype)
            scanned = xp.reshape(xp.concat((ones, before), axis=1), (-1,))
            return scanned if self.given else xp.take(scanned, self.cell)
        column = self.cells[0]
        # Each cell starts from the cell before it in its run (1 for the run's first), then gathers the
        # products of the 1, 2, 4, ... cells before that.
        scanned = xp.where(column == 0, 1.0, ops.concat((ops.ones(1, dtype=values.dtype), cells[:-1])))
        stride = 1
        while stride < 2**self.levels:
            shifted = ops.concat((ops.ones(stride, dtype=values.dtype), scanned[:-stride]))
            scanned = xp.where(column >= stride, scanned * shifted, scanned)
            stride *= 2
        return xp.take(scanned, self.cell)

    def suffix_max(self, values):
        """Largest value at or after each one in its segment."""
        ops, xp = self.ops, self.ops.xp
        if self.empty:
            return values
        cells, stride = self.padded(values, -np.inf), 1
        if self.grid:
            cells = xp.reshape(cells, self.shape)
            while stride < self.longest:
                beyond = ops.full((self.shape[0], stride), -np.inf, dtype=values.dtype)
                cells = xp.maximum(cells, xp.concat((cells[:, stride:], beyond), axis=1))
                stride *= 2
            cells = xp.reshape(cells, (-1,))
            return cells if self.given else xp.take(cells, self.cell)
        column, width, _, _ = self.cells
        while stride < 2**self.levels:
            shifted = ops.concat((cells[stride:], ops.full(stride, -np.inf, dtype=values.dtype)))
            cells = xp.where(column + stride < width, xp.maximum(cells, shifted), cells)
            stride *= 2
        return xp.take(cells, self.cell)
