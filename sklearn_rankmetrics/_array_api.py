"""Arrays of other libraries (PyTorch, CuPy, any Array API namespace) in and out of the metrics.

scikit-learn's convention: with ``sklearn.set_config(array_api_dispatch=True)``
the per-query results come back in the namespace and on the device of the
inputs (float64 where the device has it); with dispatch off, everything is
numpy, as for any array-like. ``array-api-compat`` is imported only when a
non-numpy array arrives.

The values are computed by the same numpy kernels as for numpy inputs (one
algorithm per metric): non-numpy inputs are copied to the host first.
"""

import functools

import numpy as np
import sklearn


def is_foreign(value):
    """Whether ``value`` is an array of another library (it has an Array API namespace and is not numpy's)."""
    return (hasattr(value, "__array_namespace__") and not isinstance(value, np.ndarray | np.generic)) or _is_torch(
        value
    )


def _is_torch(value):
    return type(value).__module__.startswith("torch") and hasattr(value, "detach")


def namespace_of(values):
    """The Array API namespace and device of the first foreign array among ``values``, or None."""
    foreign = next((value for value in values if is_foreign(value)), None)
    if foreign is None:
        return None
    try:
        import array_api_compat
    except ImportError as error:
        raise ImportError(
            f"Arrays of {type(foreign).__module__.split('.')[0]} need array-api-compat: "
            "pip install 'sklearn-rankmetrics[array-api]' (or pip install array-api-compat)."
        ) from error
    return array_api_compat.array_namespace(foreign), array_api_compat.device(foreign)


def to_numpy(value):
    """A foreign array as a numpy array on the host (anything else unchanged)."""
    if not is_foreign(value):
        return value
    if _is_torch(value):
        return value.detach().cpu().numpy()
    if hasattr(value, "get") and type(value).__module__.startswith("cupy"):
        return value.get()
    return np.from_dlpack(value)


def from_numpy(result, namespace, device):
    """Per-query arrays (also inside a dict or tuple) moved to ``namespace`` on ``device``; floats stay floats."""
    if isinstance(result, np.ndarray) and result.dtype.kind in "fiub":
        dtype = namespace.float64 if result.dtype.kind == "f" else None
        try:
            return namespace.asarray(result, dtype=dtype, device=device)
        except (TypeError, ValueError):  # a device without float64 (Apple MPS): float32
            return namespace.asarray(result.astype(np.float32), device=device)
    if isinstance(result, dict):
        return {key: from_numpy(value, namespace, device) for key, value in result.items()}
    if isinstance(result, tuple):
        return tuple(from_numpy(value, namespace, device) for value in result)
    return result


def array_api_support(function):
    """Accept foreign arrays in any argument; return per-query results in their namespace under dispatch."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        arguments = [*args, *kwargs.values()]
        found = namespace_of(arguments)
        if found is None:
            return function(*args, **kwargs)
        result = function(*map(to_numpy, args), **{key: to_numpy(value) for key, value in kwargs.items()})
        if sklearn.get_config().get("array_api_dispatch", False):
            return from_numpy(result, *found)
        return result

    return wrapper
