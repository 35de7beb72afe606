"""Users' lists of recommended and relevant ids (ALS's and Spark's layout) as rows of labels and scores."""

import numpy as np

from .._core._query_ids import encode_qid


def column_values(table, name):
    """A column of an Arrow table or batch as a numpy array, refusing nulls (by count, with the fix)."""
    column = table.column(name)
    if column.null_count:
        raise ValueError(
            f"Column {name!r} has {column.null_count} null values in this partition; the metrics need a value in "
            "every row. Drop those rows or fill them (df.na.drop(subset=[...]) or df.na.fill(...)) first."
        )
    return column.to_numpy(zero_copy_only=False)


def rows_of_lists(batch, columns):
    """The rows (labels, scores, query ids) of a batch of users' lists of recommended and relevant ids."""
    import pyarrow.compute as pc

    recommended, relevant = batch.column(columns["recommendations"]), batch.column(columns["relevant"])
    for role, lists in (("recommendations", recommended), ("relevant", relevant)):
        if lists.null_count:
            raise ValueError(
                f"Column {columns[role]!r} has {lists.null_count} null arrays; give an empty array where a user "
                f"has none (F.coalesce(col, F.array())) or drop those rows."
            )
    rec_users, rec_ids, _ = exploded(recommended, columns["recommendations"])
    rel_users, rel_ids, grades = exploded(relevant, columns["relevant"])
    if (rec_ids.dtype.kind in "OSU") != (rel_ids.dtype.kind in "OSU") and len(rec_ids) and len(rel_ids):
        raise ValueError(
            f"Columns {columns['recommendations']!r} and {columns['relevant']!r} hold ids of two kinds "
            f"({rec_ids.dtype} and {rel_ids.dtype}): an id is recommended and relevant by being equal. Cast one "
            "column's ids to the other's type."
        )
    if columns["grades"] is not None:
        grade_lists = batch.column(columns["grades"])
        if grade_lists.null_count or not pc.all(pc.equal(pc.list_value_length(grade_lists),
                                                         pc.list_value_length(relevant))).as_py():  # fmt: skip
            raise ValueError(f"Column {columns['grades']!r} must hold one grade per relevant id, in every row.")
        grades = without_nulls(pc.list_flatten(grade_lists), columns["grades"], "grades").astype(np.float64)
    grades = np.ones(len(rel_ids)) if grades is None else grades
    n_ids = len(rec_ids) + len(rel_ids)  # none: a batch of users with empty lists only
    items = encode_qid(concatenated([rec_ids, rel_ids]), n_ids).astype(np.int64) if n_ids else np.zeros(0, np.int64)
    n_items = int(items.max()) + 1 if len(items) else 1
    rec_keys, rel_keys = rec_users * n_items + items[: len(rec_ids)], rel_users * n_items + items[len(rec_ids) :]
    for keys, what in ((rec_keys, "recommends an id twice"), (rel_keys, "lists a relevant id twice")):
        repeated = repeated_user(keys, n_items)
        if repeated is not None:
            raise ValueError(f"A user {what} (row {repeated} of a batch); give each id once per user.")
    positions = np.arange(len(rec_ids)) - np.repeat(list_starts(recommended), list_lengths(recommended))
    rec_labels, missed = matched_grades(rec_keys, rel_keys, grades)
    # A user with no row at all still counts, as a query without a relevant document.
    empty = np.flatnonzero((list_lengths(recommended) == 0) & (list_lengths(relevant) == 0))
    users = np.concatenate([rec_users, rel_users[missed], empty])
    user_ids = column_values(batch, columns["user"])
    codes = np.sort(encode_qid(user_ids, len(user_ids)))
    repeated = np.flatnonzero(codes[1:] == codes[:-1])
    if len(repeated):
        raise ValueError(
            f"Column {columns['user']!r} holds a user on two rows ({len(repeated)} repeats in a batch); give one row "
            "per user, with all of the user's recommended and relevant ids."
        )
    y_true = np.concatenate([rec_labels, grades[missed], np.zeros(len(empty))])
    y_score = np.concatenate([-1.0 - positions, np.full(missed.sum() + len(empty), -np.inf)])
    return y_true, y_score, user_ids[users]


def exploded(lists, name):
    """The row of each element of a list column, the elements' ids, and their grades (structs' second field)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    users = pc.list_parent_indices(lists).to_numpy().astype(np.int64)
    values = pc.list_flatten(lists)
    grades = None
    if pa.types.is_struct(values.type):
        without_nulls(values, name, "elements")  # a null struct: its fields' values are not nulls
        if values.type.num_fields > 1:
            grades = without_nulls(values.field(1), name, "grades").astype(np.float64)
        values = values.field(0)
    return users, without_nulls(values, name, "ids"), grades


def without_nulls(values, name, what):
    """The values of the arrays of a list column as numpy, refusing nulls among them (by count, with the fix)."""
    if values.null_count:
        raise ValueError(
            f"Column {name!r} has {values.null_count} null {what} inside its arrays; every element needs a value. "
            "Drop them (F.filter(col, lambda x: x.isNotNull())) or fill them first."
        )
    return values.to_numpy(zero_copy_only=False)


def list_lengths(lists):
    import pyarrow.compute as pc

    return pc.list_value_length(lists).to_numpy(zero_copy_only=False).astype(np.int64)


def list_starts(lists):
    lengths = list_lengths(lists)
    return np.cumsum(lengths) - lengths


def concatenated(parts):
    kinds = {part.dtype.kind for part in parts if len(part)}
    if len(kinds) > 1:
        parts = [part.astype(object) for part in parts]
    return np.concatenate(parts)


def repeated_user(keys, n_items):
    """The batch row of a user whose ``keys`` (user, id) repeat, or None."""
    ordered = np.sort(keys)
    same = np.flatnonzero(ordered[1:] == ordered[:-1])
    return None if not len(same) else int(ordered[same[0]] // n_items)


def matched_grades(rec_keys, rel_keys, grades):
    """The grade of each recommended (user, id) key (0: not relevant), and which relevant keys were not recommended."""
    if not len(rel_keys):
        return np.zeros(len(rec_keys)), np.zeros(0, dtype=bool)
    sorter = np.argsort(rel_keys, kind="stable")
    match = sorter[np.searchsorted(rel_keys, rec_keys, sorter=sorter).clip(max=len(rel_keys) - 1)]
    hit = rel_keys[match] == rec_keys
    recommended = np.zeros(len(rel_keys), dtype=bool)
    recommended[match[hit]] = True
    return np.where(hit, grades[match], 0.0), ~recommended
