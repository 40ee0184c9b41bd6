"""How a grouping's keys learn their clocks on Spark, and when Spark must wake them.

A key's elements arrive as rows; a key with no rows in a micro-batch runs only if a Spark
event-time timer wakes it, and Spark's timers follow Spark's watermark alone. Each grouping's
clocks therefore travel through Spark's watermark in one of two ways:

* ``StaticClocks`` — the input is an event log known before the run (``TestStream``, ``Create``):
  its watermark and processing-time timelines are known in advance, so Spark's watermark is a
  *tick*, the rank of the last event-log step the sources have delivered. A key replays every
  clock advance in log order, and asks to be woken at the tick of the first advance that will
  pass one of its timers. Exact, whatever the micro-batch boundaries.
* ``BatchClocks`` — an unbounded source: the watermark is Spark's (the watermark strategy's
  value, per micro-batch, in whole milliseconds) and processing time is the micro-batch's
  timestamp (Spark keeps it in its offset log, so a replayed batch sees the same one). Each
  micro-batch is one step: processing time moves, then the watermark, then the batch's
  elements are one bundle. A key with a pending processing-time timer and no rows is woken by
  the next watermark advance.
"""

from __future__ import annotations

import bisect
import math

from panes.runners.eventlog import END_STEP
from panes.runners.replay import Clocks, _bundle_position, _clock_position
from panes.runners.spark.streaming.key_state import EVENT_TIME, PROCESSING_TIME
from panes.timestamp import MIN_MICROS

MICROS_PER_MILLI = 1000


def tick(steps: list, step: int) -> int:
    """Spark's watermark, in ms, once ``step`` of the sorted ``steps`` is delivered: its rank."""
    return bisect.bisect_left(steps, step) + 1


class StaticClocks:
    """The clocks of an input whose event log is known: ``steps`` (sorted), the watermark and
    processing-time advances (``eventlog.Watermark`` and ``ProcessingTime`` events)."""

    def __init__(self, steps: list, watermarks: list, processing_times: list):
        self.steps = steps
        self.clocks = Clocks(watermarks, processing_times)

    def tick(self, step: int) -> int:
        return tick(self.steps, step)

    def done_step(self, watermark_ms: int) -> float:
        """The last step every source has delivered, given Spark's watermark (-inf: none)."""
        return self.steps[watermark_ms - 1] if watermark_ms > 0 else -math.inf

    def advance(self, key, bundles: list, timer_values, log) -> None:
        """Feeds the key its ``(step, records)`` bundles, each after the clock advances before
        it, then the advances up to the end of the last step known to be complete, telling
        ``log`` what each step emitted."""
        for step, records in bundles:
            position = _bundle_position(step)
            self._fire_before(key, position, log)
            self._catch_up(key, position)
            log.note(step, key.process(records))
        done = self.done_step(timer_values.getCurrentWatermarkInMs())
        last = max(done, bundles[-1][0]) if bundles else done
        if last > -math.inf:
            self._fire_before(
                key, math.inf if last == END_STEP else _clock_position(int(last) + 1), log
            )

    def wake_ms(self, key, timer_values):
        """The tick of the first advance that passes one of the key's timers (None: none)."""
        found = self._next_firing(key)
        return None if found is None else self.tick(found[0] // 4)

    def _next_firing(self, key):
        """``(position, domain, time)`` of the first advance that fires a timer, or None."""
        return self.clocks.next_firing(key.next_timer(EVENT_TIME), key.next_timer(PROCESSING_TIME))

    def _fire_before(self, key, limit, log) -> None:
        while (found := self._next_firing(key)) is not None and found[0] < limit:
            position, domain, time = found
            self._catch_up(key, position)
            log.note(position // 4, key.advance(domain, time))

    def _catch_up(self, key, position: int) -> None:
        """The key's clocks as they are just before ``position``; they pass none of its timers
        there, so nothing fires."""
        for domain, time in zip((EVENT_TIME, PROCESSING_TIME), self.clocks.before(position)):
            if key.clock(domain) < time:
                key.advance(domain, time)


class BatchClocks:
    """The clocks of an unbounded input: Spark's watermark and the micro-batch's timestamp."""

    @staticmethod
    def now(timer_values) -> tuple:
        """``(watermark, processing time)`` of the micro-batch, in microseconds."""
        watermark_ms = timer_values.getCurrentWatermarkInMs()
        watermark = watermark_ms * MICROS_PER_MILLI if watermark_ms > 0 else MIN_MICROS
        return watermark, timer_values.getCurrentProcessingTimeInMs() * MICROS_PER_MILLI

    def step(self, timer_values) -> int:
        """The micro-batch's step: its timestamp, which only grows."""
        return self.now(timer_values)[1]

    def done_step(self, timer_values) -> int:
        return self.step(timer_values)

    def advance(self, key, bundles: list, timer_values, log) -> None:
        watermark, now = self.now(timer_values)
        step = self.step(timer_values)
        for domain, time in ((PROCESSING_TIME, now), (EVENT_TIME, watermark)):
            if key.clock(domain) < time:
                log.note(step, key.advance(domain, time))
        for _, records in bundles:
            log.note(step, key.process(records))

    def wake_ms(self, key, timer_values):
        event = key.next_timer(EVENT_TIME)
        wake = None if event is None else event // MICROS_PER_MILLI + 1
        if key.next_timer(PROCESSING_TIME) is not None:
            poll = max(timer_values.getCurrentWatermarkInMs(), 0) + 1
            wake = poll if wake is None else min(wake, poll)
        return wake


class StepLog:
    """What advancing one key produced: ``(step, tag, WindowedValue)`` emissions, and the
    ``(step, hold)`` changes of its earliest hold (what its grouping's output watermark needs)."""

    def __init__(self, key):
        self.key, self.hold = key, key.earliest_hold()
        self.emissions: list = []
        self.holds: list = []

    def note(self, step: int, emitted: list) -> None:
        self.emissions += [(step, tag, wv) for tag, wv in emitted]
        hold = self.key.earliest_hold()
        if hold != self.hold:
            self.hold = hold
            self.holds.append((step, hold))


class StaticTimeline:
    """The source-side clocks of a static pipeline as the tail reads them: which steps are
    complete, and each source-fed collection's watermark and processing time after a step."""

    def __init__(self, steps: list, watermarks: dict, processing_times: list):
        self.steps, self.watermarks = steps, watermarks
        self.processing_times = processing_times
        self._done = -math.inf

    def view(self, timer_values) -> StaticTimeline:
        watermark_ms = timer_values.getCurrentWatermarkInMs()
        self._done = self.steps[watermark_ms - 1] if watermark_ms > 0 else -math.inf
        return self

    def complete_steps(self, after) -> list:
        return [step for step in self.steps if after < step <= self._done]

    def source_watermark(self, pcollection_id: str, step: int) -> int:
        return _after(self.watermarks[pcollection_id], step)

    def processing_time(self, step: int) -> int:
        return _after(self.processing_times, step)


class BatchTimeline:
    """The tail's clocks on unbounded input: the micro-batch is the one complete step."""

    def view(self, timer_values) -> BatchTimeline:
        self._watermark, self._now = BatchClocks.now(timer_values)
        return self

    def complete_steps(self, after) -> list:
        return [self._now] if self._now > after else []

    def source_watermark(self, pcollection_id: str, step: int) -> int:
        return self._watermark

    def processing_time(self, step: int) -> int:
        return self._now


def _after(events: list, step: int) -> int:
    """The time of the last of ``events`` (step-ordered) at or before ``step``."""
    time = MIN_MICROS
    for event in events:
        if event.step > step:
            break
        time = event.time
    return time
