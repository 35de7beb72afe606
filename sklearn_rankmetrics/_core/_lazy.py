"""Public names imported on first use (PEP 562), so that one part of the package does not import the others.

The trec_eval command needs neither scikit-learn's model selection nor the
statistics; a package that imported every public name at once would make it
pay for them (a second on every run).
"""

import importlib


def lazy_exports(package, exports, namespace, submodules=()):
    """A package's ``__getattr__`` and ``__dir__`` for ``exports``: {module: names}, relative to ``package``.

    A name is imported from its module on first access and then kept in the
    package's ``namespace`` (its ``globals()``), an ordinary attribute from then on.
    ``submodules`` are public modules, imported on first access too.
    """
    owner = {name: module for module, names in exports.items() for name in names}

    def __getattr__(name):
        if name in owner:
            value = getattr(importlib.import_module(owner[name], package), name)
        elif name in submodules:
            value = importlib.import_module(f".{name}", package)
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        namespace[name] = value
        return value

    def __dir__():
        return sorted({*namespace, *owner, *submodules})

    return __getattr__, __dir__
