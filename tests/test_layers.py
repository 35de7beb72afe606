"""The house's shape: each layer imports only the layers below it, and no module outgrows one concern."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "sklearn_rankmetrics"
# Each layer, from the floor up; a module may import its own layer and the ones below.
LAYERS = ["_core", "metrics", "datasets", "model_selection", "stats", "trec", "fusion", "top"]
MODULES = sorted(PACKAGE.rglob("*.py"))


def layer(path):
    parts = path.relative_to(PACKAGE).parts
    return parts[0] if len(parts) > 1 else "top"


def imported_layers(path):
    """The layers of the package that ``path`` imports from, by relative or absolute import."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = path.relative_to(PACKAGE).parts[:-1]
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = package[: len(package) - node.level + 1]
            target = [*base, *(node.module or "").split(".")] if node.module else [*base]
        elif (node.module or "").startswith("sklearn_rankmetrics"):
            target = node.module.split(".")[1:]
        else:
            continue
        target = [part for part in target if part]
        found.add(target[0] if target and (PACKAGE / target[0]).is_dir() else "top")
    return found


@pytest.mark.parametrize("path", MODULES, ids=lambda path: str(path.relative_to(PACKAGE)))
def test_a_module_imports_no_layer_above_its_own(path):
    own = LAYERS.index(layer(path))
    above = {name for name in imported_layers(path) if LAYERS.index(name) > own}
    if path.name == "__init__.py" and layer(path) == "top":
        above = set()  # the public API re-exports every layer
    assert not above, f"{path.relative_to(PACKAGE)} imports from {sorted(above)}, above its layer {layer(path)!r}"


@pytest.mark.parametrize("path", MODULES, ids=lambda path: str(path.relative_to(PACKAGE)))
def test_no_module_is_over_700_lines(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 700, "split it by concern"
