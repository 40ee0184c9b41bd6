"""Replaying a grouping over the event log: the one loop both runners drive the windowing engine
with.

Keys share no windowing state, so each key is replayed on its own: its bundles in step order,
and of the watermark and processing-time timeline only the advances that fire one of its timers,
found by bisection. That gives what stepping every key through every step with
``WindowingEngine.step`` gives, at a cost per element, not per step and key. The direct runner
replays all keys; the Spark runner each partition's.

Outputs of one step come in a canonical order — by the key's first arrival, then window, then
emission — so both runners hand identical streams to order-sensitive consumers downstream
(count windows, per-element triggers, evictors). The output watermark after a step is the input
watermark held back by every key's earliest hold (``output_timeline``).
"""

from __future__ import annotations

import enum
import math
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from itertools import chain
from operator import itemgetter

from panes.errors import UserCodeError
from panes.runners.eventlog import END_STEP, Bundle, Watermark
from panes.timestamp import MIN_MICROS
from panes.window import window_order, windowed_value
from panes.windowing.engine import LATE, MAIN, Counters
from panes.windowing.key_state import KeyState
from panes.windowing.output_watermark import OutputWatermark
from panes.windowing.timers import EVENT_TIME, PROCESSING_TIME


def key_value(label: str, kind: str, value) -> tuple:
    """``value`` as a ``(key, value)`` pair whose key can group, or a clear error naming the
    fix (see ``check_keys``)."""
    pair = _pair(label, kind, value)
    if type(pair[0]) not in _GROUPABLE:
        check_keys(label, kind, (pair,))
    return pair


def key_values(label: str, kind: str, values):
    """A chunk's ``values`` as ``(key, value)`` pairs (see ``key_value``): ``values`` itself
    when they all are."""
    if set(map(type, values)) != {tuple} or set(map(len, values)) != {2}:
        values = [_pair(label, kind, value) for value in values]
    if not set(map(type, map(itemgetter(0), values))) <= _GROUPABLE:
        check_keys(label, kind, values)
    return values


def _pair(label: str, kind: str, value) -> tuple:
    if type(value) is tuple and len(value) == 2:
        return value
    if not (isinstance(value, tuple) and len(value) == 2):
        raise UserCodeError(
            label,
            value,
            TypeError(
                f"{kind} needs (key, value) pairs, got {type(value).__name__}; key the elements "
                f"first, e.g. | Map(lambda x: (key_of(x), x)) or | WithKeys(...)"
            ),
        )
    return tuple(value)


# Key types known to group by value; tuples and frozensets group by their items, checked each time.
_BUILTIN = frozenset({str, int, float, bool, bytes, type(None)})
_GROUPABLE = set(_BUILTIN)
_REMEMBERED = 256
_CONTAINERS = (tuple, frozenset)


def check_keys(label: str, kind: str, pairs) -> None:
    """Fails, naming the transform, the key and the fix, when a key of ``pairs`` cannot group:
    it is not hashable, or it compares by identity (a class without ``__eq__``), so that equal
    keys would fall into as many groups as there are copies of them — and every copy a Spark
    worker unpickles is one. Keys, and the items of tuple and frozenset keys, are checked by
    type; types found fine are remembered."""
    keys = list(map(itemgetter(0), pairs))
    while keys:
        types, containers = set(map(type, keys)), set()
        for key_type in types - _GROUPABLE:
            problem = _ungroupable(key_type)
            if problem:
                key = next(key for key in keys if type(key) is key_type)
                element = next(pair for pair in pairs if _holds(pair[0], key))
                raise UserCodeError(
                    label, element, TypeError(f"{kind} cannot group by the key {key!r}: {problem}")
                )
            if issubclass(key_type, _CONTAINERS):
                containers.add(key_type)
            else:
                if len(_GROUPABLE) >= _REMEMBERED:  # classes a worker unpickles anew
                    _GROUPABLE.intersection_update(_BUILTIN)
                _GROUPABLE.add(key_type)
        if not containers:
            return
        nested = keys if types == containers else [key for key in keys if type(key) in containers]
        keys = list(chain.from_iterable(nested))


def _ungroupable(key_type) -> str:
    """Why keys of ``key_type`` cannot group, with the fix ('' when they can)."""
    name = key_type.__name__
    if key_type.__hash__ is None:
        return (
            f"a {name} is not hashable; key by a hashable value instead, e.g. tuple(key) "
            f"for a list, or a frozen dataclass"
        )
    if key_type.__eq__ is object.__eq__ and not issubclass(key_type, (type, enum.Enum)):
        return (
            f"a {name} compares by identity, so equal {name} keys would not group "
            f"together; give {name} __eq__ and __hash__ (e.g. "
            f"@dataclasses.dataclass(frozen=True)), or key by a value such as a tuple of "
            f"its fields"
        )
    return ""


def _holds(key, item) -> bool:
    """Whether ``item`` is ``key`` or, at any depth, an item of a tuple or frozenset key."""
    return key is item or (isinstance(key, _CONTAINERS) and any(_holds(k, item) for k in key))


# -- where an event sits in the log -------------------------------------------------------------
# Within a step a record's arrival moves processing time before the record is processed, and
# the record's watermark follows it; at the end of input the watermark goes to +inf first and
# processing time ends after it.


def _position(step: int, order: int) -> int:
    return 4 * step + order


def _bundle_position(step: int) -> int:
    return _position(step, 0 if step == END_STEP else 1)


def _watermark_position(step: int) -> int:
    return _position(step, 1 if step == END_STEP else 2)


def _clock_position(step: int) -> int:
    return _position(step, 2 if step == END_STEP else 0)


def _last_bundle_step_before(position) -> float:
    """The last step whose bundle comes at or before ``position`` (inf: the end)."""
    return math.inf if position == math.inf else (position - 1) // 4


class _Clock:
    """One clock's advances in the log: positions and times, both strictly increasing (an
    advance that does not move the clock forward does nothing)."""

    def __init__(self, events, position):
        self.positions, self.times = [], []
        for event in events:
            if not self.times or event.time > self.times[-1]:
                self.positions.append(position(event.step))
                self.times.append(event.time)

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


class Clocks:
    """An event log's watermark and processing-time advances, and the one search that both the
    batch replay and the streaming operator make in them: the first advance that passes one of
    a key's timers."""

    def __init__(self, watermarks: list, processing_times: list):
        self.watermark = _Clock(watermarks, _watermark_position)
        self.clock = _Clock(processing_times, _clock_position)

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


@dataclass
class Replay:
    """A grouping's replayed outputs: ``main`` and ``late`` as ``(step, key, WindowedValue)`` in
    canonical order, the keys' ``(step, rank, earliest hold)`` changes, what the engine counted,
    and the input watermark the output watermark (``watermarks``) follows."""

    main: list
    late: list
    holds: list
    counters: Counters
    input_watermarks: list

    @property
    def watermarks(self) -> list:
        """The output watermark's changes."""
        return output_timeline(self.input_watermarks, self.holds)


def replay_grouping(engine, elements: dict, watermarks: list, clock: list) -> Replay:
    """Replays ``elements`` — each key's ``(position, value, timestamp, windows, pane)``
    records in position order, where ``position[0]`` is the event-log step, the keys in the
    order of their first arrival — through ``engine`` against the input ``watermarks`` and
    processing-time ``clock`` advances (both step-ordered)."""
    counters = Counters()
    replayer = _KeyReplay(engine, counters, Clocks(watermarks, clock))
    emissions: list = []
    holds: list = []
    for rank, (key, values) in enumerate(elements.items()):
        replayer.replay(key, rank, values, emissions, holds)
    emissions.sort(key=lambda emission: emission[:3])
    main = [(step, key, wv) for step, _, _, key, tag, wv in emissions if tag == MAIN]
    late = [(step, key, wv) for step, _, _, key, tag, wv in emissions if tag == LATE]
    return Replay(main, late, holds, counters, watermarks)


class _KeyReplay:
    """Replays one key at a time with the shared clocks."""

    def __init__(self, engine, counters, clocks: Clocks):
        self.engine, self.counters, self.clocks = engine, counters, clocks
        self.state: KeyState | None = None
        self.hold: int | None = None

    def replay(self, key, rank: int, values: list, emissions: list, holds: list) -> None:
        """Appends the key's ``(step, rank, window order, key, tag, wv)`` emissions and its
        ``(step, rank, earliest hold)`` changes."""
        self.key, self.rank, self.emissions, self.holds = key, rank, emissions, holds
        self.state, self.hold = None, None
        engine = self.engine
        start, count, still_until = 0, len(values), -math.inf
        while start < count:
            step = values[start][0][0]
            end = start + 1
            while end < count and values[end][0][0] == step:
                end += 1
            position = _bundle_position(step)
            if position > still_until or self.state is None:
                # A clock may have moved since the last bundle: fire what it passed.
                self._fire_timers_before(position)
                state = self._catch_up(position)
                still_until = self.clocks.next_advance(position)
            if end == start + 1:
                stop = engine.absorb_run(
                    state, values, start, _last_bundle_step_before(still_until)
                )
                if stop > start:
                    if engine.earliest_hold(state) != self.hold:
                        self._note_hold(values[stop - 1][0][0])
                    start = stop
                    continue
            self._settle(
                step,
                engine.process_bundle(
                    state,
                    [windowed_value(record[1:]) for record in values[start:end]],
                    self.counters,
                ),
            )
            start = end
        self._fire_timers_before(None)

    def _catch_up(self, position: int):
        """The key's state (a new one after its state emptied) with the clocks as they are just
        before ``position``, which pass none of its timers, so nothing fires."""
        watermark, now = self.clocks.before(position)
        if self.state is None:
            self.state = self.engine.new_state(self.key, watermark, now)
            return self.state
        state, engine = self.state, self.engine
        if state.input_watermark < watermark:
            engine.advance_watermark(state, watermark, self.counters)
        if state.processing_time < now:
            engine.advance_processing_time(state, now, self.counters)
        return state

    def _fire_timers_before(self, limit) -> None:
        """Fires, in log order, every clock advance before ``limit`` (None: the end) that
        passes one of the key's timers."""
        while self.state is not None:
            timers = self.state.timers
            found = self.clocks.next_firing(
                timers.next_time(EVENT_TIME), timers.next_time(PROCESSING_TIME)
            )
            if found is None:
                return
            position, domain, time = found
            if limit is not None and position >= limit:
                return
            state = self._catch_up(position)
            engine = self.engine
            advance = (
                engine.advance_watermark if domain == EVENT_TIME else engine.advance_processing_time
            )
            self._settle(position // 4, advance(state, time, self.counters))

    def _settle(self, step: int, emitted: list) -> None:
        """Records what one step of the key emitted and its hold, and drops emptied state."""
        key, rank, state = self.key, self.rank, self.state
        assert state is not None  # a step ran on it
        for tag, wv in emitted:
            self.emissions.append((step, rank, window_order(wv.windows[0]), key, tag, wv))
        if self.engine.earliest_hold(state) != self.hold:
            self._note_hold(step)
        if not state.windows:
            self.state = None

    def _note_hold(self, step: int) -> None:
        self.hold = self.engine.earliest_hold(self.state)
        self.holds.append((step, self.rank, self.hold))


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


def as_streams(replay: Replay, steps) -> tuple:
    """The ``main`` and ``late`` event streams of a replay: a bundle at each of ``steps``, each
    followed by the output watermark where it changed."""
    main_at: dict = {}
    late_at: dict = {}
    watermark_at = {w.step: w for w in replay.watermarks}
    for outputs, at in ((replay.main, main_at), (replay.late, late_at)):
        for step, _, wv in outputs:
            at.setdefault(step, []).append(wv)
    main, late = [], []
    for step in sorted(set(steps) | set(watermark_at)):
        main.append(Bundle(step, main_at.get(step, [])))
        late.append(Bundle(step, late_at.get(step, [])))
        if step in watermark_at:
            main.append(watermark_at[step])
            late.append(watermark_at[step])
    return main, late
