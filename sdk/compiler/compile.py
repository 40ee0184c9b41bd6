"""Compiles a constructed Pipeline into its IR: each primitive transform gives its node's
payload (``ir_payload``), whose sources, sinks and functions are lowered here as each
collection's windowing is, and a par_do's side inputs are taken out of its arguments."""

from __future__ import annotations

import dataclasses

from panes.errors import PipelineConstructionError
from panes.io import kinds
from panes.ir.codec import lower_value
from panes.ir.model import (
    IR_VERSION,
    SIDE_INPUT_MARK,
    STATEFUL_PAR_DO,
    Composite,
    Node,
    PCollectionSpec,
    PipelineIR,
    SideInput,
)
from panes.pvalue import AsSideInput
from panes.transforms import row_fns
from panes.windowing.strategy import windowing_to_ir

# Payload fields that hold an API object with IR data of its own, by node kind.
LOWERED = {
    "read": ("source", kinds.to_ir),
    "write": ("sink", kinds.to_ir),
    "par_do": ("fn", row_fns.to_ir),
    "combine_per_key": ("combine_fn", row_fns.to_ir),
}


def compile_pipeline(pipeline) -> PipelineIR:
    nodes: dict = {}
    pcollections: dict = {}
    composites: list = []
    ids: dict = {}  # id(PCollection) -> pcollection id
    strategies: dict = {}  # id(Windowing) -> its IR; collections share their windowing

    def strategy(windowing):
        lowered = strategies.get(id(windowing))
        if lowered is None:
            lowered = strategies[id(windowing)] = (windowing, windowing_to_ir(windowing))
        return lowered[1]

    def visit(applied):
        if applied.is_primitive():
            node = _node(applied, ids)
            nodes[node.id] = node
            for tag, pcoll in applied.outputs.items():
                pcollections[ids[id(pcoll)]] = PCollectionSpec(
                    ids[id(pcoll)], node.id, tag, strategy(pcoll.windowing)
                )
            return
        if applied.full_label:
            composites.append(
                Composite(applied.full_label, tuple(part.full_label for part in applied.parts))
            )
        for part in applied.parts:
            visit(part)

    visit(pipeline.root)
    ir = PipelineIR(IR_VERSION, (), nodes, pcollections, tuple(composites))
    return dataclasses.replace(ir, requirements=_requirements(ir))


def _node(applied, ids) -> Node:
    transform = applied.transform
    inputs = []
    for pcoll in applied.inputs:
        if id(pcoll) not in ids:
            raise PipelineConstructionError(
                f"transform '{applied.full_label}' reads {pcoll}, which no earlier transform "
                f"produced"
            )
        inputs.append(ids[id(pcoll)])
    outputs = {}
    for tag, pcoll in applied.outputs.items():
        ids[id(pcoll)] = f"{applied.full_label}.{tag}"
        outputs[tag] = ids[id(pcoll)]
    payload = transform.ir_payload()
    if transform.ir_kind in LOWERED:
        name, to_ir = LOWERED[transform.ir_kind]
        payload = {**payload, name: to_ir(payload[name])}
    side_inputs = ()
    if transform.ir_kind == "par_do":
        payload, side_inputs = _extract_side_inputs(payload, ids, applied.full_label)
    return Node(applied.full_label, transform.ir_kind, tuple(inputs), outputs, side_inputs, payload)


def _extract_side_inputs(payload, ids, label):
    """Replaces side-input markers in a par_do's arguments by their index in ``side_inputs``."""
    sides = []

    def mark(arg):
        if not isinstance(arg, AsSideInput):
            return arg
        if id(arg.pvalue) not in ids:
            raise PipelineConstructionError(
                f"side input of '{label}' is {arg.pvalue}, which is not produced before it"
            )
        sides.append(
            SideInput(
                ids[id(arg.pvalue)],
                arg.view,
                getattr(arg, "has_default", False),
                lower_value(getattr(arg, "default_value", None)),
            )
        )
        return {SIDE_INPUT_MARK: len(sides) - 1}

    args = tuple(lower_value(mark(a)) for a in payload["args"])
    kwargs = {k: lower_value(mark(v)) for k, v in payload["kwargs"].items()}
    return {**payload, "args": args, "kwargs": kwargs}, tuple(sides)


def _requirements(ir) -> tuple:
    kinds = sorted({node.kind for node in ir.nodes.values()})
    requirements = [f"panes:node:{kind}:v1" for kind in kinds]
    if any(ir.is_stateful(node) for node in ir.nodes.values()):
        requirements.append(STATEFUL_PAR_DO)
    return tuple(requirements)
