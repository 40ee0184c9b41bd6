"""Stepping a grouping's keys through the event log with ``WindowingEngine.step``, as a streaming
runner does: the reference the replay and the engine specifications are checked against."""

from __future__ import annotations

from panes.timestamp import MIN_MICROS
from panes.windowing.aggregation import BufferAggregation
from panes.windowing.engine import Counters, WindowingEngine
from panes.windowing.output_watermark import OutputWatermark


class WithoutShortcuts(WindowingEngine):
    """The engine calling the trigger for every element of a bundle: none is absorbed into a
    window known to stay quiet (``WindowingEngine._absorb``), so that what the shortcut gives
    can be checked against what the trigger itself says."""

    def _absorb(self, call, window, value, timestamp) -> bool:
        return False


class Stepper:
    """A grouping's keys through the event log: at each step, every key with state or with
    elements takes one ``step``; a key's state starts at the grouping's clocks and is dropped
    once the engine says it is empty. Counts add up in ``counters``; ``states`` holds the live
    keys' states. Without ``shortcuts`` the engine calls the trigger for every element."""

    def __init__(self, strategy, aggregation=None, shortcuts=True):
        engine = WindowingEngine if shortcuts else WithoutShortcuts
        self.engine = engine(strategy, aggregation or BufferAggregation())
        self.states: dict = {}
        self.ranks: dict = {}  # key -> the order it first arrived in, its holder id
        self.counters = Counters()
        self.watermark, self.processing_time = MIN_MICROS, MIN_MICROS
        self.output = OutputWatermark()

    def step(self, elements=(), watermark=None, processing_time=None) -> list:
        """One step: ``elements`` as ``(key, WindowedValue)``; returns ``(tag, WindowedValue)``
        outputs, key by key."""
        by_key: dict = {}
        for key, wv in elements:
            by_key.setdefault(key, []).append(wv)
            self.ranks.setdefault(key, len(self.ranks))
        outputs = []
        for key in sorted({*self.states, *by_key}, key=self.ranks.__getitem__):
            state = self.states.pop(key, None) or self.engine.new_state(
                key, self.watermark, self.processing_time
            )
            result = self.engine.step(state, by_key.get(key, ()), watermark, processing_time)
            outputs += result.outputs
            self.counters.add(result.counters)
            self.output.hold(self.ranks[key], result.hold)
            if not result.empty:
                self.states[key] = state
        if watermark is not None:
            self.watermark = self.output.input_watermark = max(self.watermark, watermark)
        if processing_time is not None:
            self.processing_time = max(self.processing_time, processing_time)
        return outputs

    def output_watermark(self) -> int:
        return self.output.value()
