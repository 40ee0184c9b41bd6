"""The rules docs/architecture.md states, checked: imports go one way, and every IR node kind
is run by both runners."""

from __future__ import annotations

import ast
from pathlib import Path

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
    return (found & MODULES.keys()) - {module_name(path)}


GRAPH = {name: imported(path) for name, path in MODULES.items()}


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


def importers_of(prefixes: tuple, importing: tuple) -> list[str]:
    return sorted(
        f"{name} imports {target}"
        for name, targets in GRAPH.items()
        if name.startswith(importing)
        for target in targets
        if target.startswith(prefixes)
    )


def test_the_module_graph_has_no_import_cycles():
    assert cycles(GRAPH) == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_runners_read_the_ir_not_the_pipeline():
    assert importers_of(("panes.pipeline", "panes.cli"), ("panes.runners",)) == []


def test_the_windowing_engine_knows_nothing_of_pipelines_transforms_or_runners():
    assert (
        importers_of(
            (
                "panes.pipeline",
                "panes.pvalue",
                "panes.transforms",
                "panes.io",
                "panes.runners",
                "panes.testing",
            ),
            ("panes.windowing",),
        )
        == []
    )


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


def test_the_ir_knows_no_runner_and_no_pipeline():
    assert importers_of(("panes.runners", "panes.pipeline"), ("panes.ir",)) == []


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
