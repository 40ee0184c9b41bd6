"""The key driver: the one place where a keyed node's keys move through time.

A keyed node keeps plain state per key — a grouping's is the windowing engine's ``KeyState``:
its windows, its timers, and its two clocks, the input watermark and processing time. The
driver decides which clock move each key sees, and when: the key's bundles in log order, and
before each bundle the clock moves that pass one of its timers (found by bisection, so a key
costs its own elements and timers, not every step of the log), then its clocks caught up to
just before the bundle. That is also the lateness rule, here once: an element is judged
against the watermark of its place in the log.

Clock moves come from a ``Timeline``, the watermark and processing-time advances of an event
log with their places in it. A timeline known in advance — the direct runner's, Spark
batch's, an event log replayed on streaming — is the log itself; a live streaming micro-batch
is a ``MicroBatch`` of two moves. Every runner advances keys with ``KeyDriver.advance``, and
replays whole groupings with ``drive_keys``.

A key's outputs of one step come in canonical order — by window, then as emitted — and across
keys by the key's rank, its first arrival (``canonical``), so that order-sensitive consumers
downstream (count windows, per-element triggers, evictors) see the same stream on every
runner. A node's output watermark is its input watermark held back by every key's earliest
hold (``output_timeline``).
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from typing import Any

from panes.runners.eventlog import END_STEP, Bundle, ProcessingTime, Watermark
from panes.timestamp import MIN_MICROS
from panes.window import window_order
from panes.windowing.engine import Counters
from panes.windowing.output_watermark import OutputWatermark
from panes.windowing.timers import EVENT_TIME, PROCESSING_TIME

# -- where an event sits in the log -------------------------------------------------------------
# Within a step a record's arrival moves processing time before the record is processed, and
# the record's watermark follows it; at the end of input the watermark goes to +inf first and
# processing time ends after it.


def _position(step: int, order: int) -> int:
    return 4 * step + order


def bundle_position(step: int) -> int:
    return _position(step, 0 if step == END_STEP else 1)


def watermark_position(step: int) -> int:
    return _position(step, 1 if step == END_STEP else 2)


def clock_position(step: int) -> int:
    return _position(step, 2 if step == END_STEP else 0)


def _step(record) -> int:
    return record[0][0]


def _last_bundle_step_before(position) -> float:
    """The last step whose bundle comes at or before ``position`` (inf: the end)."""
    return math.inf if position == math.inf else (position - 1) // 4


class _Clock:
    """One clock's advances: positions and times, both strictly increasing (an advance that
    does not move the clock forward does nothing)."""

    def __init__(self, points):
        self.positions: list = []
        self.times: list = []
        for position, time in points:
            if not self.times or time > self.times[-1]:
                self.positions.append(position)
                self.times.append(time)

    def before(self, position: int) -> int:
        """The clock's time just before ``position``."""
        index = bisect_left(self.positions, position)
        return self.times[index - 1] if index else MIN_MICROS

    def next_advance(self, position: int) -> float:
        """The position of the clock's first advance after ``position`` (inf: none)."""
        index = bisect_right(self.positions, position)
        return self.positions[index] if index < len(self.positions) else math.inf

    def passing(self, time):
        """The index of the first advance past ``time`` (None: no timer, or none passes it)."""
        if time is None:
            return None
        index = bisect_right(self.times, time)
        return index if index < len(self.times) else None


class Timeline:
    """An event log's watermark and processing-time advances (``eventlog.Watermark`` and
    ``ProcessingTime`` events, step-ordered), placed in the log."""

    def __init__(self, watermarks: list, processing_times: list):
        self.watermark = _Clock((watermark_position(e.step), e.time) for e in watermarks)
        self.clock = _Clock((clock_position(e.step), e.time) for e in processing_times)

    @classmethod
    def of_step(cls, step: int, before: tuple, after: tuple) -> Timeline:
        """One step of a log whose clocks stand at ``before``, ``(watermark, processing
        time)``: processing time moves to ``after[1]`` before the step's bundle, the
        watermark to ``after[0]`` after it."""
        return cls(
            [Watermark(step - 1, before[0]), Watermark(step, after[0])],
            [ProcessingTime(step - 1, before[1]), ProcessingTime(step, after[1])],
        )

    def step_of(self, position: int) -> int:
        """The step of the log at ``position``."""
        return position // 4

    def before(self, position: int) -> tuple:
        """``(watermark, processing time)`` just before ``position``."""
        return self.watermark.before(position), self.clock.before(position)

    def next_advance(self, position: int) -> float:
        """The position of the first advance of either clock after ``position`` (inf: none)."""
        return min(self.watermark.next_advance(position), self.clock.next_advance(position))

    def next_firing(self, event_timer, processing_timer):
        """``(position, domain, time)`` of the first advance that passes the next event-time or
        processing-time timer (None: a timer each, or none passed)."""
        found = None
        for domain, line, timer in (
            (EVENT_TIME, self.watermark, event_timer),
            (PROCESSING_TIME, self.clock, processing_timer),
        ):
            index = line.passing(timer)
            if index is not None and (found is None or line.positions[index] < found[0]):
                found = (line.positions[index], domain, line.times[index])
        return found


class MicroBatch(Timeline):
    """A live streaming micro-batch at ``step`` (its timestamp): the watermark moves to Spark's,
    which it computed as the previous batch ended, then processing time to the batch's
    ``now``, then the batch's elements are one bundle. All of it happens at ``step``. A key
    that no clock move of the batches before woke still has their clocks: none of their moves
    passed its timers, and the watermark's move comes first, so each clock is where the log
    has it whenever one of its timers fires."""

    def __init__(self, step: int, watermark: int, now: int):
        self.step = step
        # Before every bundle: the watermark first, then processing time.
        self.watermark = _Clock([(-2, watermark)])
        self.clock = _Clock([(-1, now)])

    def step_of(self, position: int) -> int:
        return self.step


@dataclass
class KeyRun:
    """One key advanced by ``KeyDriver.advance``: its ``state`` after (None: it keeps
    nothing), its ``emissions`` in canonical order as ``(step, tag, WindowedValue)``, the
    ``(step, hold)`` changes of its earliest hold from ``hold`` on, and its next ``timers``
    after, ``(event time, processing time)`` (None: none), as its processor gives them."""

    key: Any
    state: Any
    hold: int | None
    emissions: list = field(default_factory=list)
    holds: list = field(default_factory=list)
    timers: tuple = (None, None)

    def ordered(self) -> list:
        """The emissions by step, then window, then as emitted."""
        return sorted(self.emissions, key=_step_and_window)


def _step_and_window(emission) -> tuple:
    return emission[0], window_order(emission[2].windows[0])


class KeyDriver:
    """Advances the keys of one keyed node: ``processor`` keeps and advances a key's state —
    the windowing engine of a grouping — and counts what it drops in ``counters``.

    What the driver asks of a processor: ``new_state(key, watermark, processing_time)``;
    ``process_records(state, records, counters)`` (a bundle of ``(position, value, timestamp,
    windows, pane)`` records), ``advance_watermark(state, time, counters)``
    and ``advance_processing_time(state, time, counters)``, each returning ``(tag,
    WindowedValue)`` outputs, a clock's advance firing the timers it passes;
    ``absorb_run(state, records, start, last_step)``, which may take lone elements that fire
    nothing in one call; ``next_timers(state)``; ``earliest_hold(state)``; ``is_empty(state)``.
    """

    def __init__(self, processor, counters: Counters):
        self.processor, self.counters = processor, counters

    def advance(self, key, state, records: list, timeline: Timeline, until=math.inf) -> KeyRun:
        """Advances ``key`` from ``state`` (None: none yet) through ``records`` — its
        ``(position, value, timestamp, windows, pane)`` records in position order, where
        ``position[0]`` is the step; a step's records are one bundle — each after the moves of
        ``timeline`` before it, then through the moves before position ``until`` that fire one
        of its timers."""
        if (
            type(timeline) is MicroBatch
            and until == math.inf
            and (not records or records[0][0][0] == records[-1][0][0])
        ):
            return self._advance_micro_batch(key, state, records, timeline)
        processor = self.processor
        run = KeyRun(key, state, None if state is None else processor.earliest_hold(state))
        start, count, still_until = 0, len(records), -math.inf
        while start < count:
            step = records[start][0][0]
            end = start + 1
            if end < count and records[end][0][0] == step:
                end = bisect_right(records, step, end, count, key=_step)
            position = bundle_position(step)
            if position > still_until or run.state is None:
                # A clock may have moved since the last bundle: fire what it passed.
                self._fire_before(run, timeline, position)
                self._catch_up(run, timeline, position)
                still_until = timeline.next_advance(position)
            state = run.state
            if end == start + 1:
                stop = processor.absorb_run(
                    state, records, start, _last_bundle_step_before(still_until)
                )
                if stop > start:
                    last = bundle_position(records[stop - 1][0][0])
                    self._note_hold(run, timeline.step_of(last))
                    start = stop
                    continue
            self._settle(
                run,
                timeline.step_of(position),
                processor.process_records(state, records[start:end], self.counters),
            )
            start = end
        self._fire_before(run, timeline, until)
        return run

    def _advance_micro_batch(self, key, state, records: list, batch: MicroBatch) -> KeyRun:
        """``advance`` through a live micro-batch, whose clocks move once each before its one
        bundle: the moves ``advance`` would find in it, made without searching for them."""
        processor, step = self.processor, batch.step
        watermark, now = batch.watermark.times[0], batch.clock.times[0]
        run = KeyRun(key, state, None if state is None else processor.earliest_hold(state))
        self._fire_passed(run, step, watermark, now)
        if records:
            if run.state is None:
                run.state = processor.new_state(key, watermark, now)
            else:
                self._catch_up_to(run.state, watermark, now)
            absorbed = len(records) == 1 and processor.absorb_run(run.state, records, 0, math.inf)
            if absorbed:
                self._note_hold(run, step)
            else:
                self._settle(
                    run, step, processor.process_records(run.state, records, self.counters)
                )
            self._fire_passed(run, step, watermark, now)
        return run

    def _fire_passed(self, run: KeyRun, step: int, watermark: int, now: int) -> None:
        """Fires, the watermark first, each of the key's timers that ``watermark`` or ``now``
        passes, until none is left (``_fire_before`` on a micro-batch)."""
        processor = self.processor
        while run.state is not None:
            event, processing = run.timers = processor.next_timers(run.state)
            if event is not None and event < watermark:
                emitted = processor.advance_watermark(run.state, watermark, self.counters)
            elif processing is not None and processing < now:
                self._catch_up_to(run.state, watermark, MIN_MICROS)
                emitted = processor.advance_processing_time(run.state, now, self.counters)
            else:
                return
            self._settle(run, step, emitted)

    def _catch_up_to(self, state, watermark: int, now: int) -> None:
        """Moves the key's clocks to ``watermark`` and ``now``, which pass none of its timers."""
        if state.input_watermark < watermark:
            self.processor.advance_watermark(state, watermark, self.counters)
        if state.processing_time < now:
            self.processor.advance_processing_time(state, now, self.counters)

    def _catch_up(self, run: KeyRun, timeline: Timeline, position: int) -> None:
        """The key's clocks as they are just before ``position``, which pass none of its
        timers (those were fired), so nothing fires; a new state for a key that has none."""
        watermark, now = timeline.before(position)
        if run.state is None:
            run.state = self.processor.new_state(run.key, watermark, now)
        else:
            self._catch_up_to(run.state, watermark, now)

    def _fire_before(self, run: KeyRun, timeline: Timeline, limit) -> None:
        """Fires, in log order, every clock move before ``limit`` that passes one of the key's
        timers."""
        processor = self.processor
        while run.state is not None:
            run.timers = processor.next_timers(run.state)
            found = timeline.next_firing(*run.timers)
            if found is None or found[0] >= limit:
                return
            position, domain, time = found
            self._catch_up(run, timeline, position)
            advance = (
                processor.advance_watermark
                if domain == EVENT_TIME
                else processor.advance_processing_time
            )
            self._settle(run, timeline.step_of(position), advance(run.state, time, self.counters))

    def _settle(self, run: KeyRun, step: int, emitted: list) -> None:
        """Records what one step of the key emitted and its hold; drops emptied state."""
        run.emissions += [(step, tag, wv) for tag, wv in emitted]
        self._note_hold(run, step)
        if self.processor.is_empty(run.state):
            run.state = None

    def _note_hold(self, run: KeyRun, step: int) -> None:
        """Records the key's earliest hold at ``step`` if it moved."""
        hold = self.processor.earliest_hold(run.state)
        if hold != run.hold:
            run.hold = hold
            run.holds.append((step, hold))


# -- whole nodes ---------------------------------------------------------------------------------


@dataclass
class Replay:
    """A keyed node's outputs over a whole event log: ``outputs``, tag -> ``(step, key,
    WindowedValue)`` in canonical order, the keys' ``(step, rank, earliest hold)`` changes,
    what was counted, and the input watermark the output watermark (``watermarks``) follows."""

    outputs: dict
    holds: list
    counters: Counters
    input_watermarks: list

    @property
    def watermarks(self) -> list:
        """The output watermark's changes."""
        return output_timeline(self.input_watermarks, self.holds)


def drive_keys(processor, elements: dict, watermarks: list, clock: list) -> Replay:
    """Advances every key of ``elements`` — each key's ``(position, value, timestamp, windows,
    pane)`` records in position order, the keys in the order of their first arrival (their
    rank) — through the whole log of input ``watermarks`` and processing-time ``clock``
    advances (both step-ordered)."""
    counters = Counters()
    driver, timeline = KeyDriver(processor, counters), Timeline(watermarks, clock)
    emissions: list = []
    holds: list = []
    for rank, (key, records) in enumerate(elements.items()):
        run = driver.advance(key, None, records, timeline)
        emissions += [(step, rank, key, tag, wv) for step, tag, wv in run.ordered()]
        holds += [(step, rank, hold) for step, hold in run.holds]
    outputs: dict = {}
    for step, _, key, tag, wv in canonical(emissions):
        outputs.setdefault(tag, []).append((step, key, wv))
    return Replay(outputs, holds, counters, watermarks)


def canonical(emissions: list) -> list:
    """``(step, rank, ...)`` emissions, each key's already in its own canonical order, in
    canonical order over keys: by step, then the key's rank."""
    return sorted(emissions, key=_step_and_rank)


def _step_and_rank(emission) -> tuple:
    return emission[0], emission[1]


def output_timeline(watermarks: list, holds: list) -> list:
    """``Watermark`` events where the output watermark — the input ``watermarks`` held back by
    the earliest of the holders' holds, ``(step, holder, hold)`` changes (a holder is a key,
    or a Spark partition giving its own output watermark) — or the input's idleness changes."""
    changes: dict = {}
    for event in watermarks:
        changes.setdefault(event.step, ([], []))[0].append(event)
    for change in holds:
        changes.setdefault(change[0], ([], []))[1].append(change)
    output, idle, emitted, out = OutputWatermark(), False, (MIN_MICROS, False), []
    for step in sorted(changes):
        step_watermarks, step_holds = changes[step]
        for event in step_watermarks:
            output.input_watermark, idle = max(output.input_watermark, event.time), event.idle
        for _, holder, hold in step_holds:
            output.hold(holder, hold)
        if (output.value(), idle) != emitted:
            emitted = (output.value(), idle)
            out.append(Watermark(step, *emitted))
    return out


def as_streams(replay: Replay, tags, steps) -> dict:
    """The event stream of each of ``tags`` in a replay: a bundle at each of ``steps``, each
    followed by the output watermark where it changed."""
    watermark_at = {w.step: w for w in replay.watermarks}
    streams = {}
    for tag in tags:
        at: dict = {}
        for step, _, wv in replay.outputs.get(tag, ()):
            at.setdefault(step, []).append(wv)
        stream: list = []
        for step in sorted(set(steps) | set(watermark_at)):
            stream.append(Bundle(step, at.get(step, [])))
            if step in watermark_at:
                stream.append(watermark_at[step])
        streams[tag] = stream
    return streams
