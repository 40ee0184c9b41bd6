"""Keyed nodes as every runner runs them: a grouping (``group_by_key``, ``combine_per_key``),
whose keys the windowing engine advances, and a stateful par_do, whose keys its DoFn's
``StatefulDoFnRunner`` advances — both through the key driver (``panes.runners.key_driver``),
which is all a runner needs to know of either."""

from __future__ import annotations

from panes.compiler.lift import lift
from panes.ir.userstate import PROCESSING_TIME
from panes.runners.shortcuts import aggregation_of
from panes.transforms.stateful import StatefulDoFnRunner
from panes.windowing.engine import LATE, MAIN, WindowingEngine
from panes.windowing.trigger_kinds import sets_processing_timers

GROUPINGS = ("group_by_key", "combine_per_key")


def is_keyed(ir, node) -> bool:
    """Whether ``node`` keeps state per key: a grouping or a stateful par_do."""
    return node.kind in GROUPINGS or ir.is_stateful(node)


def waits_on_processing_time(ir, node) -> bool:
    """Whether a keyed node's keys may wait on processing time: a processing-time trigger in
    its input's windowing, or a processing-time timer of its DoFn."""
    if node.kind in GROUPINGS:
        return sets_processing_timers(lift(ir.pcollections[node.inputs[0]].windowing).trigger)
    return any(spec.time_domain == PROCESSING_TIME for spec in lift(node.payload)["timer_specs"])


class KeyedNode:
    """One keyed node, built once per process: its ``processor`` (what the key driver
    advances its keys with); ``tags``, for each tag the processor emits, the node's output tag
    (None: the node has no such output), and ``outputs`` the collection ids of those; ``kind``
    what its errors call it. A stateful DoFn's lifecycle runs around the keys a runner drives
    at a time: ``open``, then ``start_bundle``/``finish_bundle`` per call, ``close``."""

    def __init__(self, node, strategy, resolve_side_inputs=None):
        """``strategy``: the IR windowing of the node's input."""
        self.label = node.id
        strategy = lift(strategy)
        self.kind = self.kind_of(node)
        if node.kind in GROUPINGS:
            self.processor = WindowingEngine(strategy, aggregation_of(node))
            self.dofn = None
            self.tags = {MAIN: "main", LATE: node.payload.get("late_output")}
        else:
            self.dofn = StatefulDoFnRunner(
                node.id, lift(node.payload), strategy, resolve_side_inputs
            )
            self.processor = self.dofn
            self.tags = {tag: tag for tag in node.outputs}
        self.outputs = {
            emitted: None if tag is None else node.outputs[tag]
            for emitted, tag in self.tags.items()
        }

    @staticmethod
    def kind_of(node) -> str:
        """What errors about the node's input call it."""
        return node.kind if node.kind in GROUPINGS else "a stateful DoFn"

    def open(self) -> None:
        if self.dofn is not None:
            self.dofn.setup()

    def start_bundle(self) -> None:
        if self.dofn is not None:
            self.dofn.start_bundle()

    def finish_bundle(self) -> list:
        """The ``(tag, WindowedValue)`` outputs of the DoFn's ``finish_bundle``."""
        return [] if self.dofn is None else self.dofn.finish_bundle()

    def close(self) -> None:
        if self.dofn is not None:
            self.dofn.teardown()
