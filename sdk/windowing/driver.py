"""Drives a grouping's windowing state for all of its keys.

Interim version: default trigger, discarding, end-of-window timestamps, non-merging and merging
window functions; the full trigger state machine replaces the firing logic.
"""

from __future__ import annotations

from panes.timestamp import MIN_TIMESTAMP, MAX_TIMESTAMP
from panes.window import MergeContext, PaneInfo, PaneInfoTiming, WindowedValue

MAIN = "main"
LATE = "late"


class WindowingDriver:
    """Feeds bundles and clock advances to per-key window state and returns emitted outputs.

    Emissions are ``(tag, WindowedValue)``: tag ``main`` carries ``(key, aggregate)`` panes,
    tag ``late`` carries ``(key, value)`` elements dropped as too late.
    """

    def __init__(self, strategy, aggregation):
        self.strategy = strategy
        self.aggregation = aggregation
        self.input_watermark = MIN_TIMESTAMP
        self.processing_time = MIN_TIMESTAMP
        self.dropped_late = 0
        self._windows: dict = {}  # key -> {window: accumulator}

    def process_bundle(self, elements):
        """Adds one bundle of ``(key, WindowedValue)`` to state; returns what fires."""
        emissions = []
        lateness = self.strategy.allowed_lateness.micros
        for key, wv in elements:
            for window in wv.windows:
                if window.max_timestamp() + lateness < self.input_watermark:
                    self.dropped_late += 1
                    emissions.append((LATE, WindowedValue((key, wv.value), wv.timestamp, (window,))))
                    continue
                state = self._windows.setdefault(key, {})
                acc = state.get(window)
                if acc is None:
                    acc = self.aggregation.create()
                state[window] = self.aggregation.add(acc, wv.value)
            self._merge(key)
        return emissions

    def _merge(self, key):
        window_fn = self.strategy.window_fn
        state = self._windows.get(key)
        if not state or not window_fn.is_merging():
            return
        context = MergeContext(state)
        window_fn.merge(context)
        for sources, result in context.merges:
            accs = [state.pop(window) for window in sources]
            if result in state:
                accs.append(state.pop(result))
            state[result] = self.aggregation.merge(accs)

    def advance_input_watermark(self, watermark):
        """Moves the input watermark forward and fires the windows it closes."""
        self.input_watermark = max(self.input_watermark, watermark)
        emissions = []
        for key, state in self._windows.items():
            for window in sorted(w for w in state if w.max_timestamp() < self.input_watermark):
                acc = state.pop(window)
                pane = PaneInfo(True, True, PaneInfoTiming.ON_TIME, 0, 0)
                value = (key, self.aggregation.extract(acc))
                emissions.append((MAIN, WindowedValue(value, window.max_timestamp(), (window,), pane)))
        self._windows = {key: state for key, state in self._windows.items() if state}
        return emissions

    def advance_processing_time(self, time):
        self.processing_time = max(self.processing_time, time)
        return []

    def output_watermark(self):
        """The input watermark held back by the output timestamps of pending panes."""
        holds = [w.max_timestamp() for state in self._windows.values() for w in state]
        return min([self.input_watermark, *holds]) if holds else self.input_watermark
