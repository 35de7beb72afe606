"""Arrays of other libraries (PyTorch, CuPy, any Array API namespace) in and out of the metrics.

scikit-learn's convention: with ``sklearn.set_config(array_api_dispatch=True)``
the per-query results come back in the namespace and on the device of the
inputs (float64 where the device has it); with dispatch off, everything is
numpy, as for any array-like. ``array-api-compat`` is imported only when a
non-numpy array arrives.

The kernels of the registered metrics (NDCG to RBP), of their report and of
interpolated precision are written in a small set of array operations,
:class:`ArrayApiOps` here and ``NumpyOps`` for numpy, so that under dispatch
they run in the inputs' namespace and on their device (one algorithm per
metric). Arrays in host memory (PyTorch's CPU tensors) are viewed by numpy
instead, whose kernels are faster on the CPU. The diversity metrics and
coverage copy their inputs to the host and compute with numpy.
"""

import functools
import importlib
import inspect
import sys

import numpy as np

# Libraries whose arrays have an Array API namespace through array-api-compat without naming it themselves
# (PyTorch's tensors, CuPy's arrays).
WRAPPED = ("torch", "cupy")


def is_foreign(value):
    """Whether ``value`` is an array of another library (it has an Array API namespace and is not numpy's)."""
    if isinstance(value, np.ndarray | np.generic):
        return False
    return hasattr(value, "__array_namespace__") or (library(value) in WRAPPED and hasattr(value, "shape"))


def library(value):
    """The top-level module of ``value``'s type (``"torch"``, ``"cupy"``, ``"jax"``, ...)."""
    return type(value).__module__.split(".")[0]


def namespace_of(values):
    """The Array API namespace and device of the first foreign array among ``values``, or None."""
    foreign = next((value for value in values if is_foreign(value)), None)
    if foreign is None:
        return None
    compat = array_api_compat()
    if compat is None:
        raise ImportError(
            f"Arrays of {type(foreign).__module__.split('.')[0]} need array-api-compat: "
            "pip install 'sklearn-rankmetrics[array-api]' (or pip install array-api-compat)."
        )
    return compat.array_namespace(foreign), compat.device(foreign)


def array_api_compat():
    """The array-api-compat package, or the copy scikit-learn vendors; None if neither imports."""
    for name in ("array_api_compat", "sklearn.externals.array_api_compat"):
        if name in sys.modules:  # imported already (None: an import that is blocked)
            if sys.modules[name] is not None:
                return sys.modules[name]
            continue
        if name in NOT_INSTALLED:
            continue
        try:
            return importlib.import_module(name)
        except ImportError:
            # A failed import searches every folder of the path: on each metric call, that costs more than the
            # metric.
            NOT_INSTALLED.add(name)
    return None


NOT_INSTALLED = set()


# DLPack's device type of host memory (kDLCPU).
CPU_DEVICE = 1


def in_host_memory(values):
    """Whether every foreign array among ``values`` lies in host memory (DLPack's CPU device).

    numpy views such arrays without a copy, and its kernels are the fastest
    on the CPU (PyTorch's CPU sorts take several times numpy's), so they take
    the numpy path; arrays on an accelerator are computed there.
    """
    try:
        return all(value.__dlpack_device__()[0] == CPU_DEVICE for value in values if is_foreign(value))
    except (AttributeError, TypeError, RuntimeError):
        return False


def to_numpy(value):
    """A foreign array as a numpy array on the host (anything else unchanged)."""
    if not is_foreign(value):
        return value
    if library(value) == "torch":
        value = value.detach().cpu()
        try:
            return value.numpy()
        except TypeError:  # bfloat16 and the 8-bit floats have no numpy dtype: float32 holds their values exactly
            if not value.is_floating_point():
                raise
            return value.float().numpy()
    if library(value) == "cupy":
        return value.get()
    if library(value) in ("jax", "jaxlib"):
        return np.asarray(value)  # JAX copies from its device when asked for
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


def array_api_support(function=None, *, in_namespace=False):
    """Accept foreign arrays in any argument; return per-query results in their namespace under dispatch.

    With ``in_namespace=True`` the function computes in the arrays' namespace
    itself under dispatch (its metric kernels are written in :class:`ArrayApiOps`):
    the arrays reach it unconverted. ``in_namespace`` may also be a predicate
    of the call's arguments (defaults applied), for a function that can do so
    only with some options. Otherwise the arrays are copied to the host.
    """
    if function is None:
        return functools.partial(array_api_support, in_namespace=in_namespace)
    signature = inspect.signature(function)

    def computes_in_namespace(args, kwargs):
        if not callable(in_namespace):
            return in_namespace
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:  # the call itself says what is wrong, naming the function
            return False
        bound.apply_defaults()
        return in_namespace(**bound.arguments)

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        arguments = [*args, *kwargs.values()]
        found = namespace_of(arguments)
        if found is None:
            return function(*args, **kwargs)
        import sklearn  # imported here: scikit-learn takes a second, and numpy arrays never get this far

        dispatch = sklearn.get_config().get("array_api_dispatch", False)
        if dispatch and computes_in_namespace(args, kwargs) and not in_host_memory(arguments):
            return function(*args, **kwargs)
        result = function(*map(to_numpy, args), **{key: to_numpy(value) for key, value in kwargs.items()})
        return from_numpy(result, *found) if dispatch else result

    wrapper.in_namespace = in_namespace
    return wrapper
