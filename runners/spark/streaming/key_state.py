"""A grouping's per-key windowing state, as the streaming runner keeps and advances it.

This is the streaming runner's only door into the windowing core: everything it does to a key —
create its state, feed it a bundle, move its clocks, ask when it next needs waking and what it
holds back, store it between micro-batches — goes through these functions. The core decides
every pane; nothing here knows about windows, triggers or holds.

What this module assumes of the core (today ``panes.windowing.key_driver.KeyDriver``): a key's
state pickles once its strategy and aggregation are taken out (``_STATE_FIELDS``); clocks only
move forward, and a move fires the due timers of that clock; a bundle is processed against the
clocks as they are; the next wake-up of each clock, the earliest hold and emptiness can be read
off the state at any time. Emissions are ``(tag, WindowedValue)`` with tag ``main`` or ``late``.
"""

from __future__ import annotations

import pickle

from pyspark import cloudpickle

from panes.ir.codec import lift
from panes.window import WindowedValue
from panes.windowing.aggregation import BufferAggregation, CombineFnAggregation
from panes.windowing.key_driver import LATE, MAIN, Counters, KeyDriver
from panes.windowing.timers import EVENT_TIME, PROCESSING_TIME

__all__ = ["MAIN", "LATE", "Counters", "Grouping", "EVENT_TIME", "PROCESSING_TIME"]

# What of a KeyDriver is the key's state; the rest is the grouping's, rebuilt on load.
_STATE_FIELDS = ("input_watermark", "processing_time", "windows", "timers", "_arrivals", "_epoch")


class Grouping:
    """One grouping's windowing, compiled once per process and shared by all its keys."""

    def __init__(self, strategy, aggregation):
        self.strategy, self.aggregation = strategy, aggregation

    @classmethod
    def of(cls, ir, node) -> "Grouping":
        """The windowing of a ``group_by_key`` or ``combine_per_key`` node of ``ir``."""
        strategy = lift(ir.pcollections[node.inputs[0]].windowing)
        aggregation = (BufferAggregation() if node.kind == "group_by_key" else
                       CombineFnAggregation(lift(node.payload["combine_fn"]), node.id))
        return cls(strategy, aggregation)

    def new_state(self, key, counters: Counters):
        """A key seen for the first time (or again after its state emptied)."""
        return KeyDriver(key, self.strategy, self.aggregation, counters)

    def load(self, key, blob: bytes, counters: Counters):
        """The state ``dump`` stored, ready to advance; its counts go to ``counters``."""
        state = self.new_state(key, counters)
        for name, value in zip(_STATE_FIELDS, pickle.loads(blob)):
            setattr(state, name, value)
        return state


def dump(state) -> bytes:
    """The key's state as bytes for Spark's state store (C pickle, cloudpickle when a user's
    accumulator needs it)."""
    fields = tuple(getattr(state, name) for name in _STATE_FIELDS)
    try:
        return pickle.dumps(fields, pickle.HIGHEST_PROTOCOL)
    except Exception:
        return cloudpickle.dumps(fields, pickle.HIGHEST_PROTOCOL)


def process(state, records) -> list:
    """One bundle of the key's ``(position, value, timestamp, windows, pane)`` records."""
    return state.process_bundle([WindowedValue(*record[1:]) for record in records])


def advance(state, domain: str, time: int) -> list:
    """Moves one clock to ``time`` (never back), firing what it passes."""
    if domain == EVENT_TIME:
        return state.advance_input_watermark(time)
    return state.advance_processing_time(time)


def clock(state, domain: str) -> int:
    return state.input_watermark if domain == EVENT_TIME else state.processing_time


def next_timer(state, domain: str):
    """When ``domain``'s clock must pass to fire something (None: nothing pending)."""
    return state.timers.next_time(domain)


def earliest_hold(state):
    """The earliest output timestamp the key still holds back (None: no hold)."""
    return state.min_hold()


def is_empty(state) -> bool:
    return state.is_empty()
