"""Input and parameter checks shared by every metric.

Every error names the argument, what is accepted and what was received.
"""

import difflib
import numbers

import numpy as np

TIES = ("average", "pessimistic", "optimistic", "stable")


def plain(value):
    """``value`` as the Python value it holds, for messages: ``0``, not ``np.int64(0)``; ``'a'``, not ``np.str_('a')``.

    Numpy scalars become Python scalars, inside tuples and lists too; anything
    else is returned as it is. Every message that shows a value the user gave
    formats it as ``{plain(value)!r}``.
    """
    if isinstance(value, np.generic):
        return value.item()
    if type(value) in (tuple, list):
        return type(value)(plain(element) for element in value)
    return value


def check_option(name, value, allowed):
    """Return ``value`` if it is one of the ``allowed`` strings; else name them, and the near one if any."""
    if not isinstance(value, str) or value not in allowed:
        options = ", ".join(repr(option) for option in allowed)
        strings = [option for option in allowed if isinstance(option, str)]
        close = difflib.get_close_matches(value, strings, n=1) if isinstance(value, str) else []
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise ValueError(f"{name} must be one of {options}; got {plain(value)!r}.{hint}")
    return value


def check_integer(name, value, *, low=1, allow_none=False):
    """Return ``value`` as an int after checking it is an integer >= ``low`` (or None, where ``allow_none``).

    A value of another type is a TypeError (a bool is not an integer here), one
    below ``low``, or None where it is not allowed, a ValueError.
    """
    accepted = f"{'None or ' if allow_none else ''}an integer >= {low}"
    if value is None and allow_none:
        return None
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral | type(None)):
        raise TypeError(f"{name} must be {accepted}; got {plain(value)!r} of type {type(value).__name__}.")
    if value is None or value < low:
        raise ValueError(f"{name} must be {accepted}; got {plain(value)!r}.")
    return int(value)


def check_k(k, *, allow_none=True):
    """Return the cutoff ``k``: an integer >= 1, or None (the whole list) where ``allow_none``."""
    return check_integer("k", k, allow_none=allow_none)


def check_flag(name, value):
    """Raise unless ``value`` is True or False."""
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False; got {plain(value)!r}.")
    return bool(value)


def check_zero_division(zero_division):
    """Return the value given to queries where a metric is undefined: 0.0, 1.0 or nan."""
    if isinstance(zero_division, numbers.Real) and not isinstance(zero_division, bool | np.bool_):
        value = float(zero_division)
        if value in (0.0, 1.0) or np.isnan(value):
            return value
    raise ValueError(f"zero_division must be 0.0, 1.0 or np.nan; got {plain(zero_division)!r}.")


def check_real(name, value, *, low=None, high=None, low_open=False, high_open=False):
    """Return ``value`` as a float after checking it is a finite real in the interval from ``low`` to ``high``.

    ``low_open``/``high_open`` exclude the bound itself; the error message
    writes the interval exactly as enforced (an infinite end is always open:
    infinity is refused).
    """
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; got {plain(value)!r} of type {type(value).__name__}.")
    value = float(value)
    too_low = low is not None and (value <= low if low_open else value < low)
    too_high = high is not None and (value >= high if high_open else value > high)
    if not np.isfinite(value) or too_low or too_high:
        if low is None and high is None:
            raise ValueError(f"{name} must be a finite number; got {value!r}.")
        interval = (
            ("(-inf" if low is None else f"{'(' if low_open else '['}{low!r}")
            + ", "
            + ("inf)" if high is None else f"{high!r}{')' if high_open else ']'}")
        )
        raise ValueError(f"{name} must be in {interval}; got {value!r}.")
    return value


def as_float_array(values, name, *, ndim=(1,)):
    """Convert ``values`` to a float64 array of one of the dimensions ``ndim``, never copying needlessly."""
    if isinstance(values, str) or values is None:
        raise TypeError(f"{name} must be an array-like of numbers; got {plain(values)!r}.")
    if type(values) is np.ndarray and values.dtype == np.float64 and values.ndim > 0:
        array = values  # nothing to convert: check_array would give it back
    else:
        from sklearn.utils.validation import check_array  # imported here: scikit-learn takes a second

        try:
            array = check_array(
                values,
                dtype=np.float64,
                ensure_2d=False,
                allow_nd=True,
                ensure_all_finite=False,
                ensure_min_samples=0,
                ensure_min_features=0,
                input_name=name,
            )
        except (TypeError, ValueError) as error:
            raise type(error)(f"{name} must be an array-like of numbers: {error}") from error
    if array.ndim not in ndim:
        shapes = " or ".join(f"{d}-D" for d in ndim)
        raise ValueError(f"{name} must be {shapes}; got an array of shape {array.shape}.")
    if array.size == 0:
        raise ValueError(f"{name} is empty: a ranking metric needs at least one document; got shape {array.shape}.")
    return array


def check_finite(array, name):
    """Raise if ``array`` holds NaN or infinity."""
    # NaN and infinity make the sum non-finite; only then (or on overflow) look closer.
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(np.sum(array)):
            return
    if not np.isfinite(array).all():
        kind = "NaN" if np.isnan(array).any() else "infinity"
        raise ValueError(f"{name} contains {kind}; every value must be finite. Drop or impute those rows first.")


def check_scores(y_score, name="y_score", *, minus_inf="a judged document that was not retrieved"):
    """Raise unless every score is finite or ``-inf``, which marks ``minus_inf``."""
    with np.errstate(invalid="ignore"):
        if np.isfinite(np.sum(y_score)) or not (np.isnan(y_score).any() or (y_score == np.inf).any()):
            return
    kind = "NaN" if np.isnan(y_score).any() else "+inf"
    raise ValueError(
        f"{name} contains {kind}; every score must be finite, or -inf for {minus_inf}. Drop or impute those rows first."
    )


def is_missing(value):
    """Whether one value is a missing-value marker: None, NaT, pandas' NA, or a NaN of any type.

    A NaN is any value not equal to itself (``float("nan")``, ``Decimal("NaN")``,
    a complex NaN); a value that refuses the comparison (``Decimal("sNaN")``)
    is one too.
    """
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return True
    if isinstance(value, np.datetime64 | np.timedelta64):
        return bool(np.isnat(value))
    try:
        return bool(value != value)
    except ArithmeticError:  # decimal's signalling NaN: InvalidOperation
        return True
    except (TypeError, ValueError):  # no truth value (an array as an id): not a missing marker
        return False


def missing_rows(values):
    """Which rows of the 1-D array ``values`` hold a missing-value marker (:func:`is_missing`)."""
    if values.dtype.kind in "fc":
        return np.isnan(values)
    if values.dtype.kind in "mM":
        return np.isnat(values)
    if values.dtype.kind == "O":
        return np.frompyfunc(is_missing, 1, 1)(values).astype(bool)
    return np.zeros(len(values), dtype=bool)


def check_no_missing(values, name, *, what="query", missing=None):
    """Raise if the 1-D array ``values`` holds a missing-value marker, naming the first rows that do.

    ``values`` holds the id of each row's ``what`` (a query, an item).
    ``missing``, a boolean mask, gives the rows already known to be missing
    (those a factorization left without a code).
    """
    if missing is None:
        missing = missing_rows(values)
    if missing.any():
        rows = np.flatnonzero(missing)
        shown = ", ".join(map(str, rows[:5])) + (", ..." if len(rows) > 5 else "")
        plural = "s" * (len(rows) > 1)
        article = "an" if what[0] in "aeiou" else "a"
        raise ValueError(
            f"{name} has {len(rows)} missing value{plural} (None, NaN, NaT or NA), at row{plural} {shown}; every row "
            f"needs {article} {what} id. Drop those rows or give them their {what}'s id."
        )


def check_labels(y_true, name="y_true"):
    """Raise unless every relevance label is finite and non-negative."""
    check_finite(y_true, name)
    if y_true.min() < 0:
        raise ValueError(
            f"{name} must hold non-negative relevance labels; got a minimum of {y_true.min():g}. "
            "Shift or clip the labels so that 0 means not relevant."
        )


def n_rows(array):
    """The number of rows of an array, sparse matrix, DataFrame, sequence or array-like."""
    if hasattr(array, "shape"):
        return array.shape[0]
    return len(array) if hasattr(array, "__len__") else np.asarray(array).shape[0]


def check_same_length(who, **arrays):
    """Raise unless every array (or matrix, or DataFrame) given has the same number of rows."""
    lengths = {name: n_rows(array) for name, array in arrays.items() if array is not None}
    if len(set(lengths.values())) > 1:
        described = ", ".join(f"{name} has {length}" for name, length in lengths.items())
        raise ValueError(f"{who} got inconsistent numbers of rows: {described}. Give one value per row of X.")


def check_sample_weight(sample_weight, n_rows, name="sample_weight"):
    """Return ``sample_weight`` as non-negative finite float64 of length ``n_rows``, or None."""
    if sample_weight is None:
        return None
    weight = as_float_array(sample_weight, name)
    if len(weight) != n_rows:
        raise ValueError(f"{name} has {len(weight)} values, expected {n_rows}.")
    check_finite(weight, name)
    if (weight < 0).any():
        raise ValueError(f"{name} must be non-negative; got a minimum of {weight.min():g}.")
    return weight
