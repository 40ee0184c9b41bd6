"""A keyed node's keys as the streaming runner keeps them between micro-batches.

Each key's state is the windowing engine's ``KeyState`` (plain data), pickled into Spark's
state store between micro-batches; ``Grouping`` compiles a grouping's engine once per process
and gives the key driver that advances its keys (``panes.runners.key_driver``). Nothing here
knows about windows, triggers or holds.
"""

from __future__ import annotations

import pickle

from pyspark import cloudpickle

from panes.compiler.lift import lift
from panes.runners.key_driver import KeyDriver
from panes.windowing.aggregation import BufferAggregation, CombineFnAggregation
from panes.windowing.engine import LATE, MAIN, Counters, WindowingEngine

__all__ = ["MAIN", "LATE", "Counters", "Grouping", "dump_state", "load_state"]


class Grouping:
    """One grouping's windowing engine, compiled once per process and shared by all its keys."""

    def __init__(self, strategy, aggregation):
        self.engine = WindowingEngine(strategy, aggregation)

    @classmethod
    def of(cls, ir, node) -> Grouping:
        """The windowing of a ``group_by_key`` or ``combine_per_key`` node of ``ir``."""
        strategy = lift(ir.pcollections[node.inputs[0]].windowing)
        aggregation = (
            BufferAggregation()
            if node.kind == "group_by_key"
            else CombineFnAggregation(lift(node.payload["combine_fn"]), node.id)
        )
        return cls(strategy, aggregation)

    def driver(self, counters: Counters) -> KeyDriver:
        """The driver of this grouping's keys, counting what they drop in ``counters``."""
        return KeyDriver(self.engine, counters)


def load_state(blob: bytes):
    """A key's state as ``dump_state`` stored it."""
    return pickle.loads(blob)


def dump_state(state) -> bytes:
    """A key's state as bytes for Spark's state store."""
    try:
        return pickle.dumps(state, pickle.HIGHEST_PROTOCOL)
    except Exception:
        return cloudpickle.dumps(state, pickle.HIGHEST_PROTOCOL)
