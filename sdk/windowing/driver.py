"""Drives a grouping's windowing state for all of its keys.

One ``KeyDriver`` per key does the work; this driver routes bundles to keys and wakes only the
keys with a due timer when a clock advances (an agenda of each key's next timer), so a key with
nothing pending costs nothing. A woken or newly fed key first catches up with the clocks it
missed, which cannot fire anything (its timers were not due).

Emissions are ``(tag, WindowedValue)``: tag ``main`` carries ``(key, aggregate)`` panes, tag
``late`` carries ``(key, value)`` elements dropped as too late, with ``PANE_NO_FIRING``.
"""

from __future__ import annotations

import heapq
import itertools

from panes.timestamp import MIN_TIMESTAMP
from panes.windowing.key_driver import LATE, MAIN, Counters, KeyDriver
from panes.windowing.timers import EVENT_TIME, PROCESSING_TIME

__all__ = ["WindowingDriver", "KeyDriver", "MAIN", "LATE"]


class _Agenda:
    """For one clock: which keys have a timer at which time, as a heap with lazy deletion."""

    def __init__(self):
        self._heap: list = []
        self._scheduled: dict = {}  # key id -> time

    def record(self, key_id: int, time) -> None:
        if self._scheduled.get(key_id) == time:
            return
        if time is None:
            self._scheduled.pop(key_id, None)
            return
        self._scheduled[key_id] = time
        heapq.heappush(self._heap, (time, key_id))

    def peek_min(self):
        """The earliest recorded time, or None."""
        while self._heap and self._scheduled.get(self._heap[0][1]) != self._heap[0][0]:
            heapq.heappop(self._heap)
        return self._heap[0][0] if self._heap else None

    def pop_due(self, clock: int):
        """A key id with a timer strictly before ``clock`` (removed from the agenda), or None."""
        while self._heap and self._heap[0][0] < clock:
            time, key_id = heapq.heappop(self._heap)
            if self._scheduled.get(key_id) == time:
                del self._scheduled[key_id]
                return key_id
        return None


class WindowingDriver:
    """Feeds bundles and clock advances to per-key window state and returns emitted outputs."""

    def __init__(self, strategy, aggregation):
        self.strategy = strategy
        self.aggregation = aggregation
        self.input_watermark = MIN_TIMESTAMP
        self.processing_time = MIN_TIMESTAMP
        self.counters = Counters()
        self._keys: dict = {}  # key -> key id
        self._drivers: dict = {}  # key id -> KeyDriver
        self._ids = itertools.count()
        self._agendas = {EVENT_TIME: _Agenda(), PROCESSING_TIME: _Agenda()}
        self._holds = _Agenda()  # key id -> its earliest hold, for the output watermark

    @property
    def dropped_late(self) -> int:
        return self.counters.dropped_late

    @property
    def purged_unfired(self) -> int:
        return self.counters.purged_unfired

    @property
    def dropped_closed(self) -> int:
        return self.counters.dropped_closed

    def process_bundle(self, elements: list) -> list:
        """One bundle of ``(key, WindowedValue)``; each key sees its elements in bundle order."""
        if len(elements) == 1:  # a record-at-a-time source's bundle
            key, wv = elements[0]
            by_key = {key: [wv]}
        else:
            by_key = {}
            for key, wv in elements:
                by_key.setdefault(key, []).append(wv)
        emissions = []
        for key, values in by_key.items():
            key_id, driver = self._driver(key)
            self._catch_up(driver)
            emissions += driver.process_bundle(values)
            self._reschedule(key_id, driver)
        return emissions

    def advance_input_watermark(self, watermark: int) -> list:
        """Moves the input watermark forward and fires the event-time timers it passes."""
        if watermark <= self.input_watermark:
            return []
        return self._advance(EVENT_TIME, watermark)

    def advance_processing_time(self, time: int) -> list:
        """Moves processing time forward and fires the processing-time timers it passes."""
        if time <= self.processing_time:
            return []
        return self._advance(PROCESSING_TIME, time)

    def output_watermark(self) -> int:
        """The input watermark held back by every key's pending holds."""
        earliest = self._holds.peek_min()
        return self.input_watermark if earliest is None else min(self.input_watermark, earliest)

    def key_driver(self, key) -> KeyDriver:
        """The driver of one key (created on first use), for runners that drive keys apart."""
        return self._driver(key)[1]

    # -- internals ------------------------------------------------------------------------------

    def _driver(self, key):
        key_id = self._keys.get(key)
        if key_id is None:
            key_id = self._keys[key] = next(self._ids)
            self._drivers[key_id] = KeyDriver(key, self.strategy, self.aggregation, self.counters)
        return key_id, self._drivers[key_id]

    def _catch_up(self, driver: KeyDriver) -> None:
        if driver.input_watermark < self.input_watermark:
            driver.advance_input_watermark(self.input_watermark)
        if driver.processing_time < self.processing_time:
            driver.advance_processing_time(self.processing_time)

    def _advance(self, domain: str, clock: int) -> list:
        agenda = self._agendas[domain]
        emissions = []
        while (key_id := agenda.pop_due(clock)) is not None:
            driver = self._drivers[key_id]
            self._catch_up(driver)
            if domain == EVENT_TIME:
                emissions += driver.advance_input_watermark(clock)
            else:
                emissions += driver.advance_processing_time(clock)
            self._reschedule(key_id, driver)
        if domain == EVENT_TIME:
            self.input_watermark = clock
        else:
            self.processing_time = clock
        return emissions

    def _reschedule(self, key_id: int, driver: KeyDriver) -> None:
        for domain, agenda in self._agendas.items():
            agenda.record(key_id, driver.timers.next_time(domain))
        self._holds.record(key_id, driver.min_hold())
        if driver.is_empty():
            del self._drivers[key_id]
            del self._keys[driver.key]
