"""Open Bandit Pipeline 0.5.7's slate estimators, imported on their own.

obp declares Python < 3.11 and its package faces import all of it (PyTorch policies, plotting); ``make test``
installs it with ``--no-deps --ignore-requires-python`` and this module imports only ``obp.ope.estimators_slate``
and the ``obp.utils`` it needs, without running ``obp/__init__.py`` or ``obp/ope/__init__.py``. ``obp.utils``
imports PyTorch at its top for a tensor check the slate estimators never call: where PyTorch is not installed, a
stand-in module holds its place during that import only, and is removed from ``sys.modules`` right after.
"""

import importlib
import importlib.util
import sys
import types


def load_obp_slate_estimators():
    """The module ``obp.ope.estimators_slate`` of the installed obp (an ImportError names how to install it)."""
    spec = importlib.util.find_spec("obp")
    if spec is None:
        raise ImportError(
            "obp is missing: `make test` installs it; by hand: pip install --no-deps --ignore-requires-python "
            "obp==0.5.7 (its slate estimators are the reference of off_policy_value)."
        )
    root = spec.submodule_search_locations[0]
    names = ("obp", "obp.ope", "torch")
    saved = {name: sys.modules.get(name) for name in names}
    try:
        for name, path in (("obp", root), ("obp.ope", f"{root}/ope")):
            package = types.ModuleType(name)
            package.__path__ = [path]
            sys.modules[name] = package
        if importlib.util.find_spec("torch") is None:
            torch = types.ModuleType("torch")
            torch.Tensor = torch.tensor = type("Tensor", (), {})
            sys.modules["torch"] = torch
        else:
            saved.pop("torch")
        return importlib.import_module("obp.ope.estimators_slate")
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
