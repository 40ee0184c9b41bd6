"""The event log both runners replay: a collection is a stream of bundles and watermark
advances, each at a step of the pipeline's event log (the determinism contract's order)."""

from __future__ import annotations

from dataclasses import dataclass

from panes.timestamp import MIN_MICROS
from panes.watermark import combine_input_watermarks

FIRST_STEP = 0
# Bounded input ends here: watermarks go to +inf and processing time to its end.
END_STEP = 2**62


@dataclass
class Bundle:
    step: int
    elements: list


@dataclass(slots=True)
class Watermark:
    """The collection's watermark from ``step`` on; ``idle``: its source has gone quiet and
    does not hold back a combined watermark (Flink's idleness)."""

    step: int
    time: int
    idle: bool = False


@dataclass
class ProcessingTime:
    step: int
    time: int


def by_step(streams) -> list:
    """Merges several step-ordered streams into ``(step, [(input_index, event), ...])``."""
    merged: dict = {}
    for index, stream in enumerate(streams):
        for event in stream:
            merged.setdefault(event.step, []).append((index, event))
    return sorted(merged.items())


def elements_of(stream) -> list:
    return [wv for event in stream if isinstance(event, Bundle) for wv in event.elements]


def merged_watermarks(streams) -> list:
    """The watermark of several streams merged into one (Flatten): the minimum over the inputs
    that are not idle, unchanged while all are idle; an event only where it changes."""
    watermarks = [MIN_MICROS] * len(streams)
    idle = [False] * len(streams)
    current, current_idle = MIN_MICROS, False
    merged = []
    for step, events in by_step(streams):
        for index, event in events:
            if isinstance(event, Watermark):
                watermarks[index], idle[index] = event.time, event.idle
        combined = combine_input_watermarks(watermarks, idle)
        combined = current if combined is None else combined
        if (combined, all(idle)) != (current, current_idle):
            current, current_idle = combined, all(idle)
            merged.append(Watermark(step, current, idle=current_idle))
    return merged
