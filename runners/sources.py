"""Source streams and the processing-time clock of a direct run.

Sources are read before anything runs, because records that carry an arrival time drive the
one virtual processing-time clock that every grouping and every source's idleness follow.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from panes.compiler.lift import lift
from panes.errors import UserCodeError
from panes.io.base import SourceError
from panes.ir.io import AddElements, AdvanceProcessingTime, AdvanceWatermark, WatermarkStrategy
from panes.runners.eventlog import END_STEP, FIRST_STEP, Bundle, ProcessingTime, Watermark
from panes.timestamp import MAX_MICROS, MIN_MICROS, to_micros
from panes.transforms.source_element import source_element
from panes.watermark import is_idle, running_maxima, watermark_changes
from panes.window import GLOBAL_WINDOW, PANE_NO_FIRING, windowed_value

SOURCE_KINDS = ("create", "read")


@dataclass
class SourceRecords:
    """A bounded source's elements, their arrival times (or None) and watermark strategy."""

    elements: list
    arrivals: list | None
    strategy: WatermarkStrategy | None


def record_step(index: int) -> int:
    """The event-log step of a source's record when it is read record at a time."""
    return FIRST_STEP + 1 + index


def read_source(node) -> SourceRecords:
    payload = lift(node.payload)
    if node.kind == "create":
        records = payload["values"]
    else:
        try:
            records = list(payload["source"].read_records())
        except SourceError as error:
            raise UserCodeError(node.id, error.where, error) from error
        except OSError as error:
            raise UserCodeError(node.id, None, error) from error
    elements = [source_element(node.id, record, payload.get("timestamp_fn")) for record in records]
    arrival_fn = payload.get("arrival_fn")
    arrivals = None
    if arrival_fn is not None:
        arrivals = [_call(node, arrival_fn, wv.value) for wv in elements]
    return SourceRecords(elements, arrivals, payload.get("watermark"))


def _call(node, fn, value) -> int:
    try:
        return to_micros(fn(value))
    except Exception as error:
        raise UserCodeError(node.id, value, error) from error


class ProcessingClock:
    """The virtual processing-time clock: 0 before any input, advanced by TestStream and by
    record arrival times (never backwards), and at its end when input ends."""

    def __init__(self, ir, sources: dict):
        """``sources``: each source node's ``SourceRecords`` (None when read elsewhere, as Beam
        batch, which cannot move the clock)."""
        advances: dict = {}
        for node in ir.nodes.values():
            if node.kind == "test_stream":
                now = 0
                for step, event in enumerate(node.payload["events"], FIRST_STEP + 1):
                    if isinstance(event, AdvanceProcessingTime):
                        now += event.advance
                        advances[step] = max(advances.get(step, MIN_MICROS), now)
        for records in filter(None, sources.values()):
            for index, arrival in enumerate(records.arrivals or ()):
                step = record_step(index)
                advances[step] = max(advances.get(step, MIN_MICROS), arrival)
        self.events = [ProcessingTime(FIRST_STEP - 1, 0)]
        for step in sorted(advances):
            if advances[step] > self.events[-1].time:
                self.events.append(ProcessingTime(step, advances[step]))
        self.events.append(ProcessingTime(END_STEP, MAX_MICROS))
        self._steps = [event.step for event in self.events]

    def at(self, step: int) -> int:
        """Processing time once the event at ``step`` has happened."""
        return self.events[bisect.bisect_right(self._steps, step) - 1].time


def source_stream(records: SourceRecords, clock: ProcessingClock) -> list:
    """Beam batch without a watermark strategy; otherwise record at a time, each record followed
    by its watermark, and the source marked idle while the clock passes its idle timeout."""
    strategy = records.strategy
    if strategy is None:
        return [Bundle(FIRST_STEP, records.elements), Watermark(END_STEP, MAX_MICROS)]
    changes: dict = dict(
        watermark_changes(
            [running_maxima(wv.timestamp_micros for wv in records.elements)], strategy
        )
    )
    record_steps = {record_step(i): i for i in range(len(records.elements))}
    clock_steps = [e.step for e in clock.events if FIRST_STEP < e.step < END_STEP]
    stream: list = []
    current, idle, last_arrival = MIN_MICROS, False, None
    for step in sorted(set(record_steps) | set(clock_steps)):
        if step in record_steps:
            index = record_steps[step]
            stream.append(Bundle(step, [records.elements[index]]))
            last_arrival = records.arrivals[index] if records.arrivals else clock.at(step)
            watermark = changes.get(index, current)
            if watermark != current or idle:
                current, idle = watermark, False
                stream.append(Watermark(step, current))
        elif (
            last_arrival is not None
            and not idle
            and is_idle(last_arrival, clock.at(step), strategy)
        ):
            idle = True
            stream.append(Watermark(step, current, idle=True))
    stream.append(Watermark(END_STEP, MAX_MICROS))
    return stream


def test_stream_stream(node) -> list:
    stream: list = []
    for step, event in enumerate(node.payload["events"], start=FIRST_STEP + 1):
        if isinstance(event, AddElements):
            stream.append(
                Bundle(
                    step,
                    [
                        windowed_value((value, timestamp, (GLOBAL_WINDOW,), PANE_NO_FIRING))
                        for value, timestamp in zip(event.values.load(), event.timestamps)
                    ],
                )
            )
        elif isinstance(event, AdvanceWatermark):
            stream.append(Watermark(step, event.watermark))
    stream.append(Watermark(END_STEP, MAX_MICROS))
    return stream
