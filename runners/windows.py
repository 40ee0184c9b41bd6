"""Window assignment, as both runners do it: a chunk of elements at a time."""

from __future__ import annotations

from panes.errors import UserCodeError
from panes.window import (GLOBAL_WINDOW, AssignContext, FixedWindows, GlobalWindows, Sessions,
                          SlidingWindows, interval_window)

# Distinct windows remembered per assigner: fixed and sliding windows repeat for every element
# of a window, so assigning them is a lookup; the bound keeps memory flat on long inputs.
_CACHE_SIZE = 4096


def assigner(label: str, window_fn):
    """A function ``(values, timestamps, windows) -> windows`` giving each element of a chunk
    the windows of ``window_fn``. Fixed windows, and sliding windows whose size is a multiple of
    their period, depend only on where the timestamp's period starts, so they are answered from
    a cache keyed by it; sessions are computed inline."""
    kind = type(window_fn)
    if kind is GlobalWindows:
        windows = (GLOBAL_WINDOW,)
        return lambda values, timestamps, previous: [windows] * len(timestamps)
    if kind is FixedWindows or (kind is SlidingWindows
                                and window_fn.size.micros % window_fn.period.micros == 0):
        period = (window_fn.size if kind is FixedWindows else window_fn.period).micros
        offset = window_fn.offset.micros
        assign_micros, cache = window_fn.assign_micros, {}
        cached = cache.get

        def windows_from(start):
            if len(cache) >= _CACHE_SIZE:
                cache.clear()
            windows = cache[start] = tuple(assign_micros(start))
            return windows

        def by_start(values, timestamps, previous):
            # A windows tuple is never empty, so `or` only computes what the cache misses.
            return [cached(start) or windows_from(start)
                    for start in [t - (t - offset) % period for t in timestamps]]

        return by_start
    if kind is Sessions:
        gap = window_fn.gap_size.micros
        return lambda values, timestamps, previous: [(interval_window((t, t + gap)),)
                                                     for t in timestamps]

    def generic(values, timestamps, previous):
        assigned, value = [], None
        try:
            for value, timestamp, windows in zip(values, timestamps, previous):
                assigned.append(tuple(window_fn.assign(AssignContext.at_micros(
                    timestamp, value, windows[0]))))
        except Exception as error:
            raise UserCodeError(label, value, error) from error
        return assigned

    return generic
