"""The IR as a Graphviz DOT graph, drawn as Beam's pipeline graph is: primitive transforms are
nodes, composite transforms are clusters around their parts, and each collection's edge says
how it is windowed."""

from __future__ import annotations

from panes.ir import triggers
from panes.ir import windowing as ir
from panes.windowing import trigger_kinds, window_fn_kinds


def to_dot(ir, name: str = "pipeline") -> str:
    lines = [
        f"digraph {_quote(name)} {{",
        "  rankdir=TB;",
        "  graph [fontname=Helvetica];",
        '  node [shape=box, style="rounded,filled", fillcolor="#eef3fb", fontname=Helvetica];',
        "  edge [fontname=Helvetica, fontsize=10];",
    ]
    lines += _clusters(ir, "", "  ")
    for node in ir.nodes.values():
        for pcollection in node.inputs:
            producer = ir.pcollections[pcollection].producer
            lines.append(
                f"  {_quote(producer)} -> {_quote(node.id)} "
                f"[label={_quote(edge_label(ir.pcollections[pcollection]))}];"
            )
        for side in node.side_inputs:
            producer = ir.pcollections[side.pcollection].producer
            lines.append(
                f"  {_quote(producer)} -> {_quote(node.id)} "
                f"[style=dashed, label={_quote(f'side input ({side.view})')}];"
            )
    lines.append("}")
    return "\n".join(lines) + "\n"


def _clusters(ir, parent: str, indent: str, parents: dict | None = None) -> list[str]:
    """The nodes and composites directly inside ``parent`` (a composite's label, or "")."""
    if parents is None:
        parents = {part: c.id for c in ir.composites for part in c.parts}
    lines = []
    for composite in ir.composites:
        if parents.get(composite.id, "") == parent:
            lines += [
                f"{indent}subgraph {_quote('cluster_' + composite.id)} {{",
                f"{indent}  label={_quote(_leaf(composite.id, parent))}; style=rounded; "
                f'color="#9aa7bd";',
                *_clusters(ir, composite.id, indent + "  ", parents),
                f"{indent}}}",
            ]
    for node in ir.nodes.values():
        if parents.get(node.id, "") == parent:
            label = f"{_leaf(node.id, parent)}\n[{node.kind}]"
            lines.append(f"{indent}{_quote(node.id)} [label={_quote(label)}];")
    return lines


def _leaf(label: str, parent: str) -> str:
    """A label without its enclosing composite's (labels nest as ``Outer/Inner``)."""
    return label[len(parent) + 1 :] if parent else label


def edge_label(pcollection) -> str:
    """The windowing a collection carries, leaving out what is Beam's default."""
    strategy = pcollection.windowing
    parts = [
        window_fn_kinds.display(strategy.window_fn)
        if not isinstance(strategy.window_fn, ir.GlobalWindows)
        else "GlobalWindows"
    ]
    if not isinstance(strategy.trigger, triggers.Default):
        parts.append(trigger_kinds.display(strategy.trigger))
    if strategy.accumulation_mode is ir.AccumulationMode.ACCUMULATING:
        parts.append("accumulating")
    if strategy.allowed_lateness:
        parts.append(f"lateness {strategy.allowed_lateness / 1e6:g}s")
    return "\n".join(parts)


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'
