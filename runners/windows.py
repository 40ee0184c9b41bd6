"""Window assignment, as both runners do it."""

from __future__ import annotations

from panes.errors import UserCodeError
from panes.window import (GLOBAL_WINDOW, AssignContext, FixedWindows, GlobalWindows, IntervalWindow,
                          Sessions, SlidingWindows)

# Distinct windows remembered per assigner: fixed and sliding windows repeat for every element
# of a window, so assigning them is a lookup; the bound keeps memory flat on long inputs.
_CACHE_SIZE = 4096


def assigner(label: str, window_fn):
    """A function ``(value, timestamp, windows) -> windows`` assigning ``window_fn``'s windows.
    Fixed windows, and sliding windows whose size is a multiple of their period, depend only on
    where the timestamp's period starts, so they are answered from a cache keyed by it;
    sessions are computed inline."""
    kind = type(window_fn)
    if kind is GlobalWindows:
        windows = (GLOBAL_WINDOW,)
        return lambda value, timestamp, previous: windows
    if kind is FixedWindows or (kind is SlidingWindows
                                and window_fn.size.micros % window_fn.period.micros == 0):
        period = (window_fn.size if kind is FixedWindows else window_fn.period).micros
        offset = window_fn.offset.micros
        assign_timestamp, cache = window_fn.assign_timestamp, {}

        def by_start(value, timestamp, previous):
            start = timestamp - (timestamp - offset) % period
            windows = cache.get(start)
            if windows is None:
                if len(cache) >= _CACHE_SIZE:
                    cache.clear()
                windows = cache[start] = tuple(assign_timestamp(start))
            return windows

        return by_start
    if kind is Sessions:
        gap = window_fn.gap_size.micros
        return lambda value, timestamp, previous: (IntervalWindow(timestamp, timestamp + gap),)

    def generic(value, timestamp, previous):
        try:
            return tuple(window_fn.assign(AssignContext(timestamp, value, previous[0])))
        except Exception as error:
            raise UserCodeError(label, value, error) from error

    return generic
