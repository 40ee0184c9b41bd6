"""Timers of one key: a heap of (time, domain, window) wake-ups, fired in time order.

Event-time timers fire once the input watermark is past their time, processing-time timers once
the processing clock is past theirs (Beam's "strictly after"). Setting a timer twice is one
timer; deleted timers are skipped lazily, so a key with no due timer costs nothing. The queue
is plain data (lists, a set, a counter), part of a key's state.
"""

from __future__ import annotations

import heapq

EVENT_TIME = "event"
PROCESSING_TIME = "processing"


class TimerQueue:
    """The pending timers of one key, per time domain."""

    def __init__(self):
        self._heaps = {EVENT_TIME: [], PROCESSING_TIME: []}
        self._live: set = set()
        self._order = 0  # ties between equal times break by setting order

    def __reduce__(self):
        return _queue, (self._heaps, self._live, self._order)

    def set(self, window, time: int, domain: str) -> None:
        timer = (domain, time, window)
        if timer not in self._live:
            self._live.add(timer)
            self._order += 1
            heapq.heappush(self._heaps[domain], (time, self._order, window))

    def delete_window(self, window) -> None:
        """Forgets every timer of ``window`` (merged away or garbage-collected)."""
        self._live = {timer for timer in self._live if timer[2] != window}

    def pop_due(self, domain: str, clock: int):
        """The earliest live timer of ``domain`` strictly before ``clock`` as ``(window, time)``,
        removed; None when there is none."""
        heap = self._heaps[domain]
        while heap and heap[0][0] < clock:
            time, _, window = heapq.heappop(heap)
            if (domain, time, window) in self._live:
                self._live.discard((domain, time, window))
                return window, time
        return None

    def pop_all_due(self, domain: str, clock: int) -> list:
        """Every live timer of ``domain`` strictly before ``clock``, as ``(window, time)`` in
        time order, removed."""
        due = []
        while (timer := self.pop_due(domain, clock)) is not None:
            due.append(timer)
        return due

    def next_time(self, domain: str):
        """The time of the earliest live timer of ``domain``, or None."""
        heap = self._heaps[domain]
        while heap and (domain, heap[0][0], heap[0][2]) not in self._live:
            heapq.heappop(heap)
        return heap[0][0] if heap else None


def _queue(heaps: dict, live: set, order: int) -> TimerQueue:
    """A queue as ``TimerQueue.__reduce__`` pickled it: its parts in order, not a dict of
    attribute names (a key's state is pickled at every streaming micro-batch)."""
    queue = TimerQueue.__new__(TimerQueue)
    queue._heaps, queue._live, queue._order = heaps, live, order
    return queue
