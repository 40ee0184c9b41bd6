"""Replaying a grouping over the event log: the one loop both runners drive the windowing core with.

The direct runner replays all keys at once; the Spark runner replays each partition's keys with
the whole watermark and clock timeline. Outputs of one step come in a canonical order — by the
key's first arrival, then window, then emission — so both runners hand identical streams to
order-sensitive consumers downstream (count windows, per-element triggers, evictors).
"""

from __future__ import annotations

from panes.errors import UserCodeError
from panes.timestamp import MIN_TIMESTAMP
from panes.window import WindowedValue
from panes.windowing.driver import LATE, MAIN
from panes.runners.eventlog import END_STEP, Bundle, ProcessingTime, Watermark


def key_value(label: str, kind: str, value) -> tuple:
    """``value`` as a ``(key, value)`` pair, or a clear error naming the fix."""
    if type(value) is tuple and len(value) == 2:
        return value
    if not (isinstance(value, tuple) and len(value) == 2):
        raise UserCodeError(label, value, TypeError(
            f"{kind} needs (key, value) pairs, got {type(value).__name__}; key the elements "
            f"first, e.g. | Map(lambda x: (key_of(x), x)) or | WithKeys(...)"))
    return tuple(value)


def keyed(label: str, kind: str, wv: WindowedValue):
    """``(key, WindowedValue(value))`` of a key-value element."""
    key, value = key_value(label, kind, wv.value)
    return key, WindowedValue(value, wv.timestamp, wv.windows, wv.pane)


def first_arrivals(keyed_elements) -> dict:
    """Each key's rank by first arrival, from ``(key, ...)`` pairs in arrival order."""
    ranks: dict = {}
    for key, _ in keyed_elements:
        if key not in ranks:
            ranks[key] = len(ranks)
    return ranks


def window_order(window):
    return window.max_timestamp(), getattr(window, "start", MIN_TIMESTAMP)


def canonical_order(outputs: list, rank: dict) -> list:
    """A step's outputs ``(key, ...)`` sorted by key rank, then window; emission order otherwise."""
    if len(outputs) < 2:
        return outputs
    return sorted(outputs, key=lambda wv: (rank[wv.value[0]], window_order(wv.windows[0])))


def _clock_first(step, events):
    """A record's arrival moves the clock before the record is processed; at the end of input
    the watermark goes to +inf first, and processing time ends after it."""
    if step == END_STEP or len(events) == 1:
        return events
    return sorted(events, key=lambda pair: type(pair[1]) is not ProcessingTime)


def replay_grouping(driver, steps, rank: dict):
    """Drives ``driver`` through ``steps`` — ``by_step`` of streams of keyed bundles, input
    watermarks and processing-time advances (a bundle before a watermark of the same step) —
    and returns the ``main`` and ``late`` output streams."""
    main, late = [], []
    output_watermark, input_idle, output_idle = MIN_TIMESTAMP, False, False
    for step, events in steps:
        emissions = []
        for _, event in _clock_first(step, events):
            kind = type(event)
            if kind is Bundle:
                emissions += driver.process_bundle(event.elements)
            elif kind is Watermark:
                input_idle = event.idle
                emissions += driver.advance_input_watermark(event.time)
            else:
                emissions += driver.advance_processing_time(event.time)
        if emissions:
            main.append(Bundle(step, canonical_order([wv for tag, wv in emissions if tag == MAIN], rank)))
            late.append(Bundle(step, canonical_order([wv for tag, wv in emissions if tag == LATE], rank)))
        else:
            main.append(Bundle(step, []))
            late.append(Bundle(step, []))
        watermark = driver.output_watermark()
        if (watermark, input_idle) != (output_watermark, output_idle):
            output_watermark, output_idle = watermark, input_idle
            main.append(Watermark(step, output_watermark, output_idle))
            late.append(Watermark(step, output_watermark, output_idle))
    return main, late
