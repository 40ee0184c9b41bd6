"""A small harness for driver specifications: steps of bundles and clock advances (seconds)."""

from __future__ import annotations

from panes.timestamp import MICROS_PER_SECOND
from panes.window import AssignContext, WindowedValue
from panes.windowing.aggregation import BufferAggregation
from panes.windowing.driver import WindowingDriver

S = MICROS_PER_SECOND


def bundle(strategy, *elements, key="k"):
    """``(value, seconds)`` pairs as one bundle of keyed, window-assigned values."""
    out = []
    for value, seconds in elements:
        micros = int(seconds * S)
        windows = strategy.window_fn.assign(AssignContext(micros, value))
        out.append((key, WindowedValue(value, micros, tuple(windows))))
    return out


def run(strategy, steps, aggregation=None):
    """Runs steps ``("in", [(v, s), ...])``, ``("wm", s)``, ``("pt", s)``; returns the driver
    and, per step, the emitted ``(tag, value, timestamp seconds, window, pane)`` tuples."""
    driver = WindowingDriver(strategy, aggregation or BufferAggregation())
    outputs = []
    for kind, arg in steps:
        if kind == "in":
            emitted = driver.process_bundle(bundle(strategy, *arg))
        elif kind == "wm":
            emitted = driver.advance_input_watermark(int(arg * S))
        else:
            emitted = driver.advance_processing_time(int(arg * S))
        outputs.append([(tag, wv.value, wv.timestamp / S, wv.windows[0], wv.pane)
                        for tag, wv in emitted])
    return driver, outputs


def values(step_output, tag="main"):
    """The aggregated values of one step's panes, e.g. ``[[1, 2], [3]]``."""
    return [value[1] for t, value, *_ in step_output if t == tag]
