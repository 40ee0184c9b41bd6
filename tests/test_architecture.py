"""The rules docs/architecture.md states, checked: every module imports only what its row of
the layer table allows, no module imports itself through others, and every IR node kind is
run by both runners."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {"sdk": "panes", "runners": "panes.runners"}


def module_name(path: Path) -> str:
    folder = path.relative_to(ROOT).parts[0]
    parts = [FOLDERS[folder], *path.relative_to(ROOT / folder).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for folder in FOLDERS for path in (ROOT / folder).rglob("*.py")}


def imported(path: Path) -> set[str]:
    """The panes modules a module imports, at its top or inside functions (imports only for
    type checkers aside): ``from panes import trigger`` imports ``panes.trigger``."""
    tree = ast.parse(path.read_text())
    typing_only = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for node in ast.walk(block)
    }
    found = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = {f"{node.module}.{alias.name}" for alias in node.names}
            found.update(names & MODULES.keys() or {node.module})
    return found - {module_name(path)}


def unknown(found: set) -> set:
    """The panes modules in ``found`` that no file is: an import left behind by a move."""
    return {name for name in found if name.split(".")[0] == "panes" and name not in MODULES}


IMPORTS = {name: imported(path) for name, path in MODULES.items()}
GRAPH = {name: found & MODULES.keys() for name, found in IMPORTS.items()}


def cycles(graph: dict) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while not component or component[-1] != node:
                component.append(stack.pop())
                on_stack.discard(component[-1])
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


class Layer(NamedTuple):
    """A row of docs/architecture.md's layer table."""

    number: int
    modules: tuple  # the modules and packages it names
    imports: frozenset  # the numbers of the other layers it may import
    also: tuple  # single modules of other layers it may import


def layer_table(text: str) -> list[Layer]:
    """The table under ``## The layers``: a row's modules and packages are the ``panes`` names
    its third column quotes; its fourth gives layer numbers and ranges (``1–4``), and single
    modules quoted."""
    lines = text.split("\n## The layers\n", 1)[1].splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith("|"))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        number, _, modules, imports = (cell.strip() for cell in line.strip("|").split("|"))
        numbers = set()
        for low, high in re.findall(r"(\d+)(?:\s*[–-]\s*(\d+))?", re.sub(r"`[^`]*`", "", imports)):
            numbers.update(range(int(low), int(high or low) + 1))
        rows.append(Layer(int(number), _quoted(modules), frozenset(numbers), _quoted(imports)))
    return rows


def _quoted(cell: str) -> tuple:
    return tuple(re.findall(r"`(panes(?:\.\w+)*)`", cell))


LAYERS = layer_table((ROOT / "docs" / "architecture.md").read_text())
ROW_OF = {name: layer.number for layer in LAYERS for name in layer.modules}


def layer_of(module: str) -> int | None:
    """The number of the row that names ``module`` or its nearest enclosing package
    (``X.__init__`` names only package X's own module)."""
    parts = module.split(".")
    candidates = [f"{module}.__init__"] if MODULES[module].name == "__init__.py" else []
    candidates += [".".join(parts[:end]) for end in range(len(parts), 1, -1)]
    return next((ROW_OF[name] for name in candidates if name in ROW_OF), None)


def against_the_table(graph: dict, layer: Layer) -> list[str]:
    """The imports of ``layer``'s modules that its row does not allow."""
    return sorted(
        f"{name} (layer {layer.number}) imports {target} (layer {layer_of(target)})"
        for name, targets in graph.items()
        if layer_of(name) == layer.number
        for target in targets
        if layer_of(target) not in {layer.number, *layer.imports} and target not in layer.also
    )


def test_the_module_graph_has_no_import_cycles():
    assert cycles(GRAPH) == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_layer_table_is_read_whole():
    assert [layer.number for layer in LAYERS] == list(range(1, 9))


def test_every_import_of_panes_names_a_module():
    assert {name: unknown(found) for name, found in IMPORTS.items() if unknown(found)} == {}


def test_an_import_of_a_moved_module_is_unknown():
    assert unknown({"panes.ir.validate", "panes.compiler.validate", "pyspark.sql"}) == {
        "panes.ir.validate"
    }


def test_every_module_is_in_a_layer():
    assert [name for name in sorted(MODULES) if layer_of(name) is None] == []


@pytest.mark.parametrize("layer", LAYERS, ids=lambda layer: f"layer {layer.number}")
def test_a_layer_imports_only_what_its_row_of_the_table_allows(layer):
    assert against_the_table(GRAPH, layer) == []


def test_the_layer_check_finds_an_import_the_table_does_not_allow():
    """The API importing the engine, and the pipeline a runner's planner, are caught; the
    engine importing the API, and the pipeline ``create_runner``, are not."""
    graph = {
        "panes.window": {"panes.windowing.engine"},
        "panes.windowing.engine": {"panes.window"},
        "panes.pipeline": {"panes.runners", "panes.runners.spark.runner"},
    }
    assert [problem for layer in LAYERS for problem in against_the_table(graph, layer)] == [
        "panes.window (layer 3) imports panes.windowing.engine (layer 4)",
        "panes.pipeline (layer 8) imports panes.runners.spark.runner (layer 7)",
    ]


def test_only_the_beam_runner_imports_apache_beam():
    """The beam extra is optional: nothing but Beam's front door (``panes.runners.beam``)
    needs Apache Beam."""
    importers = sorted(
        name
        for name, path in MODULES.items()
        if not name.startswith("panes.runners.beam")
        and any(
            top == "apache_beam"
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, (ast.Import, ast.ImportFrom))
            for top in _top_modules(node)
        )
    )
    assert importers == []


def _top_modules(node) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name.split(".")[0] for alias in node.names]
    return [node.module.split(".")[0]] if node.module and node.level == 0 else []


def test_every_ir_node_kind_has_an_executor_on_the_direct_runner():
    from panes.ir.model import NODE_KINDS
    from panes.runners.direct.executors import EXECUTORS

    assert sorted(EXECUTORS) == sorted(NODE_KINDS)


def test_every_ir_node_kind_has_a_planner_on_the_spark_runner():
    """... and the Spark runner's own kind, which its SQL lowering phase puts in the IR."""
    pytest.importorskip("pyspark", reason="the Spark runner needs the spark extra")
    from panes.ir.model import NODE_KINDS
    from panes.runners.spark.lowering import SQL_AGGREGATION
    from panes.runners.spark.runner import PLANNERS

    assert sorted(PLANNERS) == sorted((*NODE_KINDS, SQL_AGGREGATION))
