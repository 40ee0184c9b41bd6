"""How a grouping's keys learn their clocks on Spark, and when Spark must wake them.

A key's elements arrive as rows; a key with no rows in a micro-batch runs only if a Spark
event-time timer wakes it, and Spark's timers follow Spark's watermark alone. Each grouping's
clocks therefore travel through Spark's watermark in one of two ways:

* ``StaticClocks`` — the input is an event log known before the run (``TestStream``, ``Create``):
  its watermark and processing-time timelines are known in advance, so Spark's watermark is a
  *tick*, the rank of the last event-log step the sources have delivered. The key driver
  advances a key through the log's clock moves (``key_driver.Timeline``); the key asks to be
  woken at the tick of the first advance that will pass one of its timers. Exact, whatever
  the micro-batch boundaries.
* ``BatchClocks`` — an unbounded source: the watermark is Spark's (the watermark strategy's
  value, per micro-batch, in whole milliseconds) and processing time is the micro-batch's
  timestamp (Spark keeps it in its offset log, so a replayed batch sees the same one). Each
  micro-batch is one step (``key_driver.MicroBatch``): the watermark moves (Spark computed
  it as the previous batch ended), then processing time, then the batch's elements are one
  bundle. Spark's timers wake a key for its event-time timers; for its processing-time ones
  a key keeps when the next is due, and the *heartbeat* (``sources.heartbeat_frame``) calls
  every key bucket on each micro-batch, even one without data, to advance its keys that are
  due by the micro-batch's timestamp: the wall clock, to within a trigger interval.
"""

from __future__ import annotations

import bisect
import math

from panes.runners.eventlog import END_STEP
from panes.runners.key_driver import MicroBatch, Timeline, clock_position
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
        self.timeline = Timeline(watermarks, processing_times)

    def tick(self, step: int) -> int:
        return tick(self.steps, step)

    def done_step(self, watermark_ms: int) -> float:
        """The last step every source has delivered, given Spark's watermark (-inf: none)."""
        return self.steps[watermark_ms - 1] if watermark_ms > 0 else -math.inf

    def step(self, timer_values) -> float:
        """The last step a call at ``timer_values`` reaches without records."""
        return self.done_step(timer_values.getCurrentWatermarkInMs())

    def advance(self, driver, key, state, records: list, timer_values):
        """Advances the key through its records, then through the clock moves up to the end of
        the last step known to be complete (``KeyDriver.advance``)."""
        done = self.done_step(timer_values.getCurrentWatermarkInMs())
        last = max(done, records[-1][0][0]) if records else done
        if last == -math.inf:
            until = -math.inf
        else:
            until = math.inf if last == END_STEP else clock_position(int(last) + 1)
        return driver.advance(key, state, records, self.timeline, until)

    def wakes(self, run, timer_values) -> tuple:
        """``(Spark timer, None)``: the tick of the first advance that passes one of the
        advanced key's timers (None: none); the log's processing time moves with its ticks."""
        found = self.timeline.next_firing(*run.timers)
        return None if found is None else self.tick(self.timeline.step_of(found[0])), None


class BatchClocks:
    """The clocks of an unbounded input: Spark's watermark and the micro-batch's timestamp."""

    def __init__(self):
        self._batch: tuple = (None, None)  # a call's timer values and its micro-batch

    @staticmethod
    def now(timer_values) -> tuple:
        """``(watermark, processing time)`` of the micro-batch, in microseconds."""
        watermark_ms = timer_values.getCurrentWatermarkInMs()
        watermark = watermark_ms * MICROS_PER_MILLI if watermark_ms > 0 else MIN_MICROS
        return watermark, timer_values.getCurrentProcessingTimeInMs() * MICROS_PER_MILLI

    def step(self, timer_values) -> int:
        """The micro-batch's step: its timestamp."""
        return self.now(timer_values)[1]

    def advance(self, driver, key, state, records: list, timer_values):
        """Advances the key through the micro-batch (``key_driver.MicroBatch``), one for all
        the keys of a call."""
        seen, batch = self._batch
        if seen is not timer_values:
            watermark, now = self.now(timer_values)
            batch = MicroBatch(now, watermark, now)
            self._batch = (timer_values, batch)
        return driver.advance(key, state, records, batch)

    def wakes(self, run, timer_values) -> tuple:
        """``(Spark timer, processing time)``: the watermark, in ms, that passes the advanced
        key's next event-time timer, and when its next processing-time timer is due (None:
        none)."""
        event, processing = run.timers
        return None if event is None else event // MICROS_PER_MILLI + 1, processing


class StaticTimeline:
    """The source-side clocks of a static pipeline as the tail reads them: which steps are
    complete, and each source-fed collection's watermark and processing time after a step."""

    def __init__(self, steps: list, watermarks: dict, processing_times: list):
        self.steps = steps
        self.timelines = {
            pc: Timeline(events, processing_times) for pc, events in watermarks.items()
        }
        self.clock = Timeline([], processing_times)
        self._done = -math.inf

    def view(self, timer_values) -> StaticTimeline:
        watermark_ms = timer_values.getCurrentWatermarkInMs()
        self._done = self.steps[watermark_ms - 1] if watermark_ms > 0 else -math.inf
        return self

    def complete_steps(self, after) -> list:
        return [step for step in self.steps if after < step <= self._done]

    def source_watermark(self, pcollection_id: str, step: int) -> int:
        return self.timelines[pcollection_id].before(clock_position(step + 1))[0]

    def processing_time(self, step: int) -> int:
        return self.clock.before(clock_position(step + 1))[1]


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
