"""A small harness for engine specifications: steps of bundles and clock advances (seconds),
each key of the grouping advanced with ``WindowingEngine.step`` as a streaming runner does."""

from __future__ import annotations

from panes.timestamp import MICROS_PER_SECOND, to_micros
from panes.window import AssignContext, WindowedValue
from stepper import Stepper

S = MICROS_PER_SECOND


def bundle(strategy, *elements, key="k"):
    """``(value, seconds)`` pairs as one bundle of keyed, window-assigned values."""
    out = []
    for value, seconds in elements:
        windows = strategy.window_fn.assign(AssignContext(seconds, value))
        out.append((key, WindowedValue(value, seconds, windows)))
    return out


def run(strategy, steps, aggregation=None):
    """Runs steps ``("in", [(v, s), ...])``, ``("wm", s)``, ``("pt", s)`` (seconds or
    Timestamps, e.g. ``MAX_TIMESTAMP``); returns the stepper
    and, per step, the emitted ``(tag, value, timestamp seconds, window, pane)`` tuples."""
    stepper = Stepper(strategy, aggregation)
    outputs = []
    for kind, arg in steps:
        if kind == "in":
            emitted = stepper.step(bundle(strategy, *arg))
        elif kind == "wm":
            emitted = stepper.step(watermark=to_micros(arg))
        else:
            emitted = stepper.step(processing_time=to_micros(arg))
        outputs.append([(tag, wv.value, float(wv.timestamp), wv.windows[0], wv.pane_info)
                        for tag, wv in emitted])
    return stepper, outputs


def values(step_output, tag="main"):
    """The aggregated values of one step's panes, e.g. ``[[1, 2], [3]]``."""
    return [value[1] for t, value, *_ in step_output if t == tag]
