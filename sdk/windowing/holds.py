"""Watermark holds of one window (Beam's ``WatermarkHold``): what keeps a grouping's output
watermark from passing a pane that is still to be emitted, and that pane's output timestamp.

An element places an *element hold* at its output time (the end of the window for
OUTPUT_AT_EOW, else its timestamp; holds combine by min, or max for OUTPUT_AT_LATEST) when the
hold is not already behind the output watermark and the window's end is not behind the input
watermark. Otherwise it places a *garbage-collection hold* at the window's GC time, so its late
pane still counts downstream. A pane's output timestamp is the earliest hold, clipped to the
end of the window; emitting releases the holds.
"""

from __future__ import annotations

from dataclasses import dataclass

from panes.timestamp import MIN_MICROS
from panes.window import TimestampCombiner
from panes.windowing.positional import pickled_by_position


@pickled_by_position
@dataclass
class Holds:
    element: int | None = None
    garbage_collection: int | None = None

    def earliest(self) -> int | None:
        element, collection = self.element, self.garbage_collection
        if element is None or collection is None:
            return collection if element is None else element
        return min(element, collection)


def output_time(combiner: TimestampCombiner, window, timestamp: int) -> int:
    if combiner == TimestampCombiner.OUTPUT_AT_EOW:
        return window.max_timestamp_micros
    return timestamp


def combine_output_times(combiner: TimestampCombiner, left: int | None, right: int) -> int:
    if left is None:
        return right
    return max(left, right) if combiner == TimestampCombiner.OUTPUT_AT_LATEST else min(left, right)


def add_element_hold(
    holds: Holds, combiner, window, timestamp: int, input_watermark: int, output_watermark: int
) -> int | None:
    """Places the element hold if the output watermark can still respect it; returns it."""
    hold = output_time(combiner, window, timestamp)
    if hold < output_watermark or window.max_timestamp_micros < input_watermark:
        return None
    holds.element = combine_output_times(combiner, holds.element, hold)
    return hold


def add_garbage_collection_hold(holds: Holds, gc_time: int, input_watermark: int) -> int | None:
    if gc_time < input_watermark:
        return None
    holds.garbage_collection = (
        gc_time if holds.garbage_collection is None else min(holds.garbage_collection, gc_time)
    )
    return gc_time


def add_holds(
    holds: Holds,
    combiner,
    window,
    timestamp: int,
    gc_time: int,
    input_watermark: int,
    output_watermark: int,
) -> int | None:
    """Holds for one arriving element: the element hold, else the garbage-collection hold."""
    hold = add_element_hold(holds, combiner, window, timestamp, input_watermark, output_watermark)
    if hold is None:
        hold = add_garbage_collection_hold(holds, gc_time, input_watermark)
    return hold


def settled_by_one(combiner: TimestampCombiner) -> bool:
    """Whether a window's holds, once one element has placed them, stay as they are for its
    later elements while the input watermark stays: so for OUTPUT_AT_EOW, whose element hold is
    the window's end, placed exactly when that end is not behind the input watermark (the
    output watermark is never ahead of the input)."""
    return combiner == TimestampCombiner.OUTPUT_AT_EOW


def merge_holds(
    sources: list, combiner, window, gc_time: int, input_watermark: int, output_watermark: int
) -> Holds:
    """The holds of a window that ``sources`` (the merged windows' holds) merge into."""
    merged = Holds()
    if combiner == TimestampCombiner.OUTPUT_AT_EOW:
        add_element_hold(merged, combiner, window, MIN_MICROS, input_watermark, output_watermark)
    else:
        for source in sources:
            if source.element is not None:
                merged.element = combine_output_times(combiner, merged.element, source.element)
    add_garbage_collection_hold(merged, gc_time, input_watermark)
    return merged


def extract_and_release(holds: Holds, window) -> int:
    """The output timestamp of the pane being emitted; clears the holds."""
    output = holds.earliest()
    if output is None or output > window.max_timestamp_micros:
        output = window.max_timestamp_micros
    holds.element = holds.garbage_collection = None
    return output
