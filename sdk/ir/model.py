"""The IR: a flat, ID-keyed, versioned graph of primitive nodes and the collections between them.

Window functions, triggers, sources and sinks are structured data; user functions and user data
are cloudpickled (as base64 text). Runners read only this.
"""

from __future__ import annotations

from dataclasses import dataclass, field

IR_VERSION = 1

NODE_KINDS = ("create", "read", "test_stream", "par_do", "assign_windows", "group_by_key",
              "combine_per_key", "flatten", "write")


@dataclass(frozen=True)
class SideInput:
    """A side input of a par_do: which collection, how it is viewed, where it is passed."""

    pcollection: str
    view: str  # "singleton", "iter", "list" or "dict"
    has_default: bool = False
    default: object = None


@dataclass(frozen=True)
class Node:
    """One primitive transform application."""

    id: str
    kind: str
    inputs: tuple = ()
    outputs: dict = field(default_factory=dict)  # tag -> pcollection id
    side_inputs: tuple = ()
    payload: dict = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.id


@dataclass(frozen=True)
class PCollectionSpec:
    """A collection: its producer, and the windowing strategy its elements carry."""

    id: str
    producer: str
    tag: str
    windowing: object


@dataclass(frozen=True)
class Composite:
    """A composite transform kept for display: its label and the labels of its parts."""

    id: str
    parts: tuple


@dataclass(frozen=True)
class PipelineIR:
    version: int
    requirements: tuple
    nodes: dict  # id -> Node, in topological order
    pcollections: dict  # id -> PCollectionSpec
    composites: tuple = ()

    def consumers(self, pcollection_id: str) -> list:
        return [node for node in self.nodes.values()
                if pcollection_id in node.inputs
                or any(side.pcollection == pcollection_id for side in node.side_inputs)]
