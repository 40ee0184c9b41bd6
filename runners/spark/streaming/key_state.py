"""A grouping's keys as the streaming runner keeps and advances them, through the windowing
engine (``panes.windowing.engine``).

This is the streaming runner's only door into the windowing core: everything it does to a key —
create its state, feed it a bundle, move one of its clocks, ask when it next needs waking and
what it holds back, store it between micro-batches — goes through ``Grouping`` and ``Key``,
and every change of a key is one ``WindowingEngine.step``. The engine decides every pane;
nothing here knows about windows, triggers or holds.

What this module assumes of the engine: ``WindowingEngine(strategy, aggregation)`` is compiled
once per grouping and shared by its keys; ``new_state(key, watermark, processing_time)`` is a
``KeyState`` that pickles (C pickle, or cloudpickle for a user's accumulator) and advances
the same after a round trip; ``step(state, elements=..., watermark=..., processing_time=...)``
advances it in place — clocks never go back, a clock's move fires the timers it passes — and
returns a ``StepResult`` whose ``outputs`` are ``(tag, WindowedValue)`` with tag ``main`` or
``late``, whose ``event_timer``, ``processing_timer``, ``hold`` and ``empty`` describe the
state after the step, and whose ``counters`` are that step's; a step with nothing to do
changes nothing and reports the same; a ``KeyState``'s clocks are its ``input_watermark`` and
``processing_time``.
"""

from __future__ import annotations

import pickle

from pyspark import cloudpickle

from panes.ir.codec import lift
from panes.timestamp import MIN_MICROS
from panes.window import windowed_value
from panes.windowing.aggregation import BufferAggregation, CombineFnAggregation
from panes.windowing.engine import LATE, MAIN, Counters, WindowingEngine
from panes.windowing.timers import EVENT_TIME, PROCESSING_TIME

__all__ = ["MAIN", "LATE", "Counters", "Grouping", "Key", "EVENT_TIME", "PROCESSING_TIME"]


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

    def new_key(
        self,
        key,
        counters: Counters,
        watermark: int = MIN_MICROS,
        processing_time: int = MIN_MICROS,
    ) -> Key:
        """A key seen for the first time (or again after its state emptied), its clocks at the
        grouping's; what its steps drop is counted in ``counters``."""
        return Key(self.engine, self.engine.new_state(key, watermark, processing_time), counters)

    def load(self, blob: bytes, counters: Counters) -> Key:
        """The key ``Key.dump`` stored, ready to advance."""
        return Key(self.engine, pickle.loads(blob), counters)


class Key:
    """One key's engine state during one operator call, with what its last step reported."""

    __slots__ = ("engine", "state", "counters", "report")

    def __init__(self, engine: WindowingEngine, state, counters: Counters):
        self.engine, self.state, self.counters = engine, state, counters
        self.report = engine.step(state)  # nothing to do: only its wake-ups, hold, emptiness

    def step(self, records=(), watermark=None, processing_time=None) -> list:
        """One step of the event log: processing time moves, the bundle of the key's
        ``(position, value, timestamp, windows, pane)`` records is processed, the watermark moves
        (the end of processing time last); returns the ``(tag, WindowedValue)``s emitted."""
        self.report = result = self.engine.step(
            self.state,
            [windowed_value(record[1:]) for record in records],
            watermark,
            processing_time,
        )
        self.counters.add(result.counters)
        return result.outputs

    def process(self, records) -> list:
        """One bundle of the key's records."""
        return self.step(records)

    def advance(self, domain: str, time: int) -> list:
        """Moves one clock to ``time`` (never back), firing what it passes."""
        if domain == EVENT_TIME:
            return self.step(watermark=time)
        return self.step(processing_time=time)

    def clock(self, domain: str) -> int:
        state = self.state
        return state.input_watermark if domain == EVENT_TIME else state.processing_time

    def next_timer(self, domain: str):
        """When ``domain``'s clock must pass to fire something (None: nothing pending)."""
        report = self.report
        return report.event_timer if domain == EVENT_TIME else report.processing_timer

    def earliest_hold(self):
        """The earliest output timestamp the key still holds back (None: no hold)."""
        return self.report.hold

    def is_empty(self) -> bool:
        return self.report.empty

    def dump(self) -> bytes:
        """The key's state as bytes for Spark's state store."""
        try:
            return pickle.dumps(self.state, pickle.HIGHEST_PROTOCOL)
        except Exception:
            return cloudpickle.dumps(self.state, pickle.HIGHEST_PROTOCOL)
