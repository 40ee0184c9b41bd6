"""Beam's trigger drivers (``GeneralTriggerDriver``, ``BatchGlobalTriggerDriver``) and the
state they keep a key in (``InMemoryUnmergedState``), as ``apache_beam.transforms.trigger``
names them, over panes' windowing engine: code written against Beam's drivers (Beam's own
trigger tests) drives panes' engine, one key, a bundle or a timer at a time.

The engine's semantics are Beam Java's (docs/semantics.md): a window is garbage-collected at
its end plus the allowed lateness, capped at the end of the global window, with a final pane of
what no pane included. The timers the driver asks for are the engine's next wake-ups.
"""

from __future__ import annotations

import collections

from panes.timestamp import MAX_TIMESTAMP, MIN_TIMESTAMP, Timestamp
from panes.window import GLOBAL_WINDOW, PaneInfo, PaneInfoTiming, windowed_value
from panes.windowing.aggregation import BufferAggregation
from panes.windowing.engine import MAIN, WindowingEngine
from panes.windowing.strategy import windowing_to_ir

# Beam's time domains (``apache_beam.transforms.timeutil.TimeDomain``).
WATERMARK = "WATERMARK"
REAL_TIME = "REAL_TIME"
_ENGINE_TIMER = ("", "")  # a timer's name and dynamic tag: the engine keeps one per domain


class InMemoryUnmergedState:
    """One key's state for a ``GeneralTriggerDriver``: the engine's, and the timers the driver
    asks its caller to fire, kept as Beam keeps them (``timers[window][(name, domain, tag)]``;
    the engine's wake-ups are the key's, under the window ``None``)."""

    def __init__(self, defensive_copy: bool = False):
        self.timers: dict = collections.defaultdict(dict)
        self.key_state = None

    def set_timer(self, window, name, time_domain, timestamp, dynamic_timer_tag="") -> None:
        self.timers[window][(name, time_domain, dynamic_timer_tag)] = timestamp

    def clear_timer(self, window, name, time_domain, dynamic_timer_tag="") -> None:
        self.timers[window].pop((name, time_domain, dynamic_timer_tag), None)
        if not self.timers[window]:
            del self.timers[window]

    def get_window(self, window_id):
        return window_id

    def get_timers(self, clear=False, watermark=MAX_TIMESTAMP, processing_time=None) -> tuple:
        """``([(window, (name, domain, time, tag))], has_realtime_timer)``: the timers due at
        ``watermark`` (event time) and ``processing_time``, removed when ``clear``."""
        expired, has_realtime_timer = [], False
        for window, timers in list(self.timers.items()):
            for (name, domain, tag), time in list(timers.items()):
                has_realtime_timer |= domain == REAL_TIME
                if time <= (processing_time if domain == REAL_TIME else watermark):
                    expired.append((window, (name, domain, time, tag)))
                    if clear:
                        self.clear_timer(window, name, domain, tag)
        return expired, has_realtime_timer

    def get_and_clear_timers(self, watermark=MAX_TIMESTAMP) -> list:
        return self.get_timers(clear=True, watermark=watermark)[0]


class GeneralTriggerDriver:
    """Breaks a key's bundles and timer firings into panes with panes' windowing engine, for
    ``windowing`` (a ``Windowing``); ``clock`` (``time()`` in seconds) is the processing time.
    Each pane comes out as a ``WindowedValue`` of the list of its window's values."""

    def __init__(self, windowing, clock):
        self.engine = WindowingEngine(windowing_to_ir(windowing), BufferAggregation())
        self.clock = clock

    def process_elements(
        self, state, windowed_values, output_watermark, input_watermark=MIN_TIMESTAMP
    ):
        """The bundle ``windowed_values``, arriving with the input watermark at
        ``input_watermark``."""
        outputs = self._step(state, [], watermark=input_watermark)
        return outputs + self._step(state, list(windowed_values))

    def process_timer(self, window_id, name, time_domain, timestamp, state, input_watermark=None):
        """A timer the state asked for fires: its clock moves to ``timestamp``."""
        if time_domain == WATERMARK:
            return self._step(state, [], watermark=timestamp)
        if time_domain == REAL_TIME:
            return self._step(state, [], processing_time=timestamp)
        raise ValueError(f"Unexpected time domain: {time_domain}")

    def _step(self, state, elements, watermark=None, processing_time=None):
        if state.key_state is None:
            state.key_state = self.engine.new_state(None)
        if processing_time is None:
            processing_time = self.clock.time()
        result = self.engine.step(
            state.key_state,
            elements,
            None if watermark is None else Timestamp.of(watermark).micros,
            Timestamp.of(processing_time).micros,
        )
        for domain, time in ((WATERMARK, result.event_timer), (REAL_TIME, result.processing_timer)):
            state.clear_timer(None, "", domain)
            if time is not None:  # due once its clock is past ``time``
                state.set_timer(None, "", domain, Timestamp(micros=time + 1))
        return [wv.with_value(wv.value[1]) for tag, wv in result.outputs if tag == MAIN]


class BatchGlobalTriggerDriver:
    """The one pane of batch input in the global window under the default trigger: every
    value, at the start of time."""

    ONLY_FIRING = PaneInfo(True, True, PaneInfoTiming.ON_TIME, 0, 0)

    def process_elements(
        self, state, windowed_values, output_watermark, input_watermark=MIN_TIMESTAMP
    ):
        values = [wv.value for wv in windowed_values]
        yield windowed_value((values, MIN_TIMESTAMP.micros, (GLOBAL_WINDOW,), self.ONLY_FIRING))

    def process_timer(self, window_id, name, time_domain, timestamp, state, input_watermark=None):
        raise TypeError("Triggers never set or called for batch default windowing.")
