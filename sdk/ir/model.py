"""The IR: a flat, ID-keyed, versioned graph of primitive nodes and the collections between them.

Window functions, triggers, evictors, watermark strategies, sources and sinks are IR data of
their own (``panes.ir.windowing``, ``triggers``, ``io``, ``rows``); user functions and user data
are cloudpickled (as base64 text). Runners read only this.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Literal

from panes.errors import ValidationError
from panes.ir.codec import encode, read, read_fields
from panes.ir.data import Pickled, Value
from panes.ir.io import Sink, Source, TestStreamEvent, WatermarkStrategy
from panes.ir.rows import RowFn
from panes.ir.userstate import StateSpec, TimerSpec
from panes.ir.windowing import WindowFn, WindowingStrategy

# 2: window functions, triggers, evictors, watermark strategies, sources, sinks and row
# functions became IR data of their own, read with every field checked.
# 3: a par_do declares its state cells and timers (stateful DoFns).
IR_VERSION = 3
# What a stateful par_do requires of a runner, besides its node kind.
STATEFUL_PAR_DO = "panes:par_do:stateful:v1"

_TIMING = {
    "watermark": WatermarkStrategy | None,
    "timestamp_fn": Pickled | None,
    "arrival_fn": Pickled | None,
}

# Each node kind's payload: its fields and what each holds.
PAYLOADS: dict[str, dict] = {
    "create": {"values": Pickled, **_TIMING},
    "read": {"source": Source, **_TIMING},
    "test_stream": {"events": tuple[TestStreamEvent, ...]},
    "par_do": {
        "fn": Pickled | RowFn,
        "args": tuple[Value, ...],
        "kwargs": dict[str, Value],
        "main_tag": str,
        "output_tags": tuple[str, ...],
        "state_specs": tuple[StateSpec, ...],
        "timer_specs": tuple[TimerSpec, ...],
    },
    "assign_windows": {"window_fn": WindowFn, "allow_unsafe_triggers": bool},
    "group_by_key": {"late_output": str | None},
    "combine_per_key": {"combine_fn": Pickled | RowFn, "late_output": str | None},
    "flatten": {},
    "write": {"sink": Sink},
}

NODE_KINDS = tuple(PAYLOADS)


@dataclass(frozen=True)
class SideInput:
    """A side input of a par_do: which collection, how it is viewed, where it is passed."""

    pcollection: str
    view: Literal["singleton", "iter", "list", "dict"]
    has_default: bool = False
    default: Value = None  # type: ignore[assignment]  # any data, None included


# A par_do argument that is a side input is ``{SIDE_INPUT_MARK: its index in side_inputs}``.
SIDE_INPUT_MARK = "__side_input__"


@dataclass(frozen=True)
class Node:
    """One primitive transform application; ``payload`` holds its kind's ``PAYLOADS`` fields."""

    id: str
    kind: str
    inputs: tuple[str, ...] = ()
    outputs: dict[str, str] = field(default_factory=dict)  # tag -> pcollection id
    side_inputs: tuple[SideInput, ...] = ()
    payload: dict[str, Value] = field(default_factory=dict)  # checked against PAYLOADS[kind]

    @property
    def label(self) -> str:
        return self.id


@dataclass(frozen=True)
class PCollectionSpec:
    """A collection: its producer, and the windowing strategy its elements carry."""

    id: str
    producer: str
    tag: str
    windowing: WindowingStrategy


@dataclass(frozen=True)
class Composite:
    """A composite transform kept for display: its label and the labels of its parts."""

    id: str
    parts: tuple[str, ...]


@dataclass(frozen=True)
class PipelineIR:
    version: int
    requirements: tuple[str, ...]
    nodes: dict[str, Node]  # in topological order
    pcollections: dict[str, PCollectionSpec]
    composites: tuple[Composite, ...] = ()

    def is_stateful(self, node) -> bool:
        """Whether ``node`` is a stateful par_do: its DoFn keeps state or sets timers."""
        return node.kind == "par_do" and bool(
            node.payload["state_specs"] or node.payload["timer_specs"]
        )

    def consumers(self, pcollection_id: str) -> list:
        return [
            node
            for node in self.nodes.values()
            if pcollection_id in node.inputs
            or any(side.pcollection == pcollection_id for side in node.side_inputs)
        ]


def check_version(data) -> None:
    """Refuses JSON of another IR version, saying how to move on."""
    if not isinstance(data, dict):
        raise ValidationError("the JSON does not hold a panes pipeline IR (expected an object)")
    version = data.get("version", data.get("fields", {}).get("version"))  # 1 nested it
    if version == IR_VERSION:
        return
    if isinstance(version, int) and not isinstance(version, bool) and version < IR_VERSION:
        raise ValidationError(
            f"IR version {version} was written by an older panes; this panes reads version "
            f"{IR_VERSION} (docs/ir.md says what changed). Recompile the pipeline with this "
            f"panes, e.g. panes ir --json PIPELINE.py"
        )
    if isinstance(version, int) and not isinstance(version, bool):
        raise ValidationError(
            f"IR version {version} was written by a newer panes; this panes reads version "
            f"{IR_VERSION}: upgrade panes, or recompile the pipeline with this version"
        )
    raise ValidationError(
        f"the JSON does not hold a panes pipeline IR: its version is {version!r}, "
        f"expected {IR_VERSION}"
    )


def read_pipeline(data) -> PipelineIR:
    """A ``PipelineIR`` from its JSON data, each node and collection read on its own so that an
    error names it."""
    top = {name: data.get(name) for name in ("nodes", "pcollections") if name in data}
    rest = {name: value for name, value in data.items() if name not in top}
    header = read(rest | {"nodes": {}, "pcollections": {}}, PipelineIR, "the IR")
    nodes = {node_id: read_node(node_id, node) for node_id, node in _object(top, "nodes").items()}
    pcollections = {
        pc_id: read(pc, PCollectionSpec, f"pcollection '{pc_id}'")
        for pc_id, pc in _object(top, "pcollections").items()
    }
    for key, item in (*nodes.items(), *pcollections.items()):
        if item.id != key:
            raise ValidationError(f"IR entry '{key}' holds '{item.id}': ids must match their keys")
    return PipelineIR(header.version, header.requirements, nodes, pcollections, header.composites)


def read_node(node_id: str, data) -> Node:
    """A node, its payload checked against its kind's ``PAYLOADS``."""
    where = f"node '{node_id}'"
    if not isinstance(data, dict):
        raise ValidationError(f"{where}: expected a node object")
    node = read({**data, "payload": {}}, Node, where)
    if node.kind not in PAYLOADS:
        raise ValidationError(
            f"{where} has unknown kind {node.kind!r}; this panes knows {', '.join(NODE_KINDS)}"
        )
    where = f"node '{node_id}' ({node.kind})"
    payload = read_fields(
        data.get("payload", {}), PAYLOADS[node.kind], f"{node.kind} payload", where, ("payload",)
    )
    return Node(node.id, node.kind, node.inputs, node.outputs, node.side_inputs, payload)


def write_pipeline(ir: PipelineIR) -> dict:
    """The JSON data of ``ir``; each payload as its kind's ``PAYLOADS`` describe it."""
    data = encode(dataclasses.replace(ir, nodes={}), PipelineIR)
    data["nodes"] = {node_id: write_node(node) for node_id, node in ir.nodes.items()}
    return data


def write_node(node: Node) -> dict:
    data = encode(dataclasses.replace(node, payload={}), Node)
    fields = PAYLOADS.get(node.kind, {})
    data["payload"] = {
        name: encode(value, fields.get(name, Value)) for name, value in node.payload.items()
    }
    return data


def checked(ir: PipelineIR) -> PipelineIR:
    """``ir`` as ``from_json`` would read it back: every value checked against the IR's
    annotations, whoever built it."""
    return read_pipeline(write_pipeline(ir))


def _object(data: dict, name: str) -> dict:
    value = data.get(name, {})
    if not isinstance(value, dict):
        raise ValidationError(f"the IR's {name} must be an object keyed by id")
    return value


def to_json(ir: PipelineIR, indent: int | None = 1) -> str:
    return json.dumps(write_pipeline(ir), indent=indent)


def from_json(text: str) -> PipelineIR:
    """The pipeline IR in ``text``, every value checked; the version first."""
    data = json.loads(text)
    check_version(data)
    return read_pipeline(data)
