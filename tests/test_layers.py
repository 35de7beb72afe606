"""The house's shape: floors that import only the floors below them, no import circle, no module over 700 lines.

The graph is read from the source: every ``from ... import`` of the package
(inside functions too) and the lazy exports of each package face.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "sklearn_rankmetrics"
# The floors, from the ground up. A module imports its own package and the floors below; the packages that share a
# floor (trec and model_selection; the wings) never import each other.
FLOORS = (
    ("_core",),
    ("datasets",),
    ("metrics",),
    ("recommenders",),
    ("registry",),
    ("trec", "model_selection"),
    ("stats",),
    ("streaming",),
    ("fusion", "meta", "counterfactual", "dask", "spark"),
    ("top",),
)
FLOOR = {room: level for level, rooms in enumerate(FLOORS) for room in rooms}
MODULES = sorted(PACKAGE.rglob("*.py"))


def name_of(path):
    """The dotted name of a module of the package, relative to it ("" for the package's own face)."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def room(module):
    """The floor's room of a module: its package, or the module's own name at the top (dask, spark)."""
    first = module.split(".")[0]
    return first if first in FLOOR else "top"


def is_face(path):
    return path.name == "__init__.py"


def resolve(parts):
    """The module that a dotted target names: itself if it is a module or a package, else its package."""
    for length in range(len(parts), -1, -1):
        base = PACKAGE.joinpath(*parts[:length])
        if base.with_suffix(".py").is_file() or (base / "__init__.py").is_file():
            return ".".join(parts[:length])
    return ""


def imports(path):
    """The modules of the package that ``path`` imports (faces' lazy exports included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name_of(path).split(".") if is_face(path) else name_of(path).split(".")[:-1]
    package = [part for part in package if part]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
            elif (node.module or "").split(".")[0] == "sklearn_rankmetrics":
                base = []
            else:
                continue
            module = [part for part in (node.module or "").split(".") if part and part != "sklearn_rankmetrics"]
            target = [*base, *module]
            found.update(resolve([*target, alias.name]) for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "sklearn_rankmetrics":
                    found.add(resolve(alias.name.split(".")[1:]))
    if is_face(path):
        found.update(resolve(target) for target in lazy_targets(tree, package))
    found.discard(name_of(path))
    return found


def lazy_targets(tree, package):
    """The modules named as keys of a face's ``_EXPORTS`` table (relative names, as ``lazy_exports`` takes them)."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(target, "id", None) == "_EXPORTS" for target in node.targets):
            for key in node.value.keys:
                text = key.value if isinstance(key, ast.Constant) else constant_of(tree, key)
                dots = len(text) - len(text.lstrip("."))
                yield [*package[: len(package) - dots + 1], *text.lstrip(".").split(".")]


def constant_of(tree, node):
    """The string that a module-level name of a face holds (a face may name its table's keys)."""
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and any(getattr(t, "id", None) == node.id for t in statement.targets):
            return statement.value.value
    raise AssertionError(f"cannot read the face's key {ast.dump(node)}")


GRAPH = {name_of(path): imports(path) for path in MODULES}
PATHS = {name_of(path): path for path in MODULES}


@pytest.mark.parametrize("path", [p for p in MODULES if not is_face(p)], ids=name_of)
def test_a_module_imports_only_its_floor_and_below(path):
    own = room(name_of(path))
    wrong = sorted(
        target
        for target in GRAPH[name_of(path)]
        if room(target) != own and (FLOOR[room(target)] >= FLOOR[own]) and own != "top"
    )
    assert not wrong, f"{name_of(path)} (floor of {own!r}) imports {wrong}: a floor above, or a sibling on its floor"


@pytest.mark.parametrize("path", [p for p in MODULES if not is_face(p)], ids=name_of)
def test_a_module_imports_modules_never_a_face(path):
    faces = sorted(target for target in GRAPH[name_of(path)] if is_face(PATHS[target]) if target)
    assert not faces, f"{name_of(path)} imports the package face(s) {faces}: import the private module instead"


def test_the_import_graph_has_no_circle():
    order, state = [], {}

    def visit(module, trail):
        state[module] = "open"
        for target in sorted(GRAPH[module]):
            if state.get(target) == "open":
                circle = [*trail[trail.index(target) :], target]
                raise AssertionError(f"import circle: {' -> '.join(circle)}")
            if target not in state:
                visit(target, [*trail, target])
        state[module] = "done"
        order.append(module)

    for module in sorted(GRAPH):
        if module not in state:
            visit(module, [module])
    assert len(order) == len(GRAPH)


def test_the_ranking_metrics_know_nothing_of_recommenders_or_sampling():
    for module, targets in GRAPH.items():
        if room(module) == "metrics" and not is_face(PATHS[module]):
            assert all(room(target) in ("_core", "metrics") for target in targets), (module, targets)


@pytest.mark.parametrize("path", MODULES, ids=name_of)
def test_no_module_is_over_700_lines(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 700, "split it by concern"
