"""Running a stateful DoFn for one key at a time: Beam Java's ``StatefulDoFnRunner``, the timer
rules of its ``SimpleDoFnRunner`` and ``InMemoryTimerInternals``, over plain per-key state.

``StatefulDoFnRunner`` is what the key driver (``panes.runners.key_driver``) advances a
stateful par_do's keys with, as it advances a grouping's with the windowing engine; every runner
runs this code. The rules (docs/state.md):

* State is per key and window: an element in several windows is processed once per window.
* An element of a window whose garbage-collection time (end of window + allowed lateness) is
  before the input watermark is dropped, and counted (``dropped_late``).
* A timer is one per window, timer and dynamic tag: setting it again moves it, ``clear``
  deletes it. It fires once its clock is past its time; when a clock moves, the timers it
  passes fire one at a time in order of time (then output time, name, tag and window),
  timers set by a callback included when they are due too.
* A timer's output timestamp is its own time in event time and the timestamp of the element
  or timer that set it in processing time, unless given; given, it may not be before that
  timestamp. It may not be after the window's garbage-collection time, nor may an event-time
  timer fire after it. Until it fires, it holds the output watermark at its output timestamp.
* A callback sees the timer's output timestamp as ``TimestampParam`` (and stamps its outputs
  with it), its window, the key and the timer's tag.
* A window's state is collected just after its garbage-collection time (Beam's 1 ms later,
  after every timer of the window): its cells and remaining timers go. A processing-time
  timer of a window already past that time does not fire. The global window's state lives
  until the input ends.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from panes.timestamp import GLOBAL_WINDOW_MAX_MICROS, MIN_MICROS, Timestamp
from panes.transforms.dofn_runner import DoFnRunner
from panes.transforms.timeutil import TimeDomain
from panes.transforms.userstate import RUNTIME_STATES, RuntimeTimer, get_dofn_specs
from panes.window import PANE_NO_FIRING, window_order, windowed_value
from panes.windowing.engine import garbage_collection_time
from panes.windowing.positional import pickled_by_position
from panes.windowing.timers import EVENT_TIME, PROCESSING_TIME

_windows = itemgetter(3)
# Beam Java's GC_DELAY_MS: a window's state goes 1 ms after its garbage-collection time.
GC_DELAY = 1000
_GC = ""  # the garbage-collection timer's name, which no user timer has (theirs start "ts-")


@pickled_by_position
@dataclass
class StatefulKeyState:
    """One key's state cells, timers and clocks: plain data, so that a runner may pickle it
    between steps. ``cells``: window -> {state name: value}; ``timers``: (window, timer name,
    tag) -> its ``(domain, time, output time, order)``; ``queues``: per domain, a heap of
    ``(time, output time, name, tag, window order, order, window)`` whose entries are live
    while ``timers`` holds their order."""

    key: Any
    input_watermark: int = MIN_MICROS
    processing_time: int = MIN_MICROS
    cells: dict = field(default_factory=dict)
    timers: dict = field(default_factory=dict)
    queues: dict = field(default_factory=lambda: {EVENT_TIME: [], PROCESSING_TIME: []})
    order: int = 0


class StatefulDoFnRunner:
    """A stateful par_do's DoFn, run for the key driver (see the module's docstring); built
    once per node and process from the node's lifted payload and its input's windowing."""

    def __init__(self, label: str, payload: dict, strategy, resolve_side_inputs=None):
        self.label = label
        self.runner = DoFnRunner.of_payload(label, payload, resolve_side_inputs)
        self.lateness = strategy.allowed_lateness
        _, timer_specs = get_dofn_specs(self.runner.dofn)
        self.callbacks = {spec.name: spec._attached_callback.__name__ for spec in timer_specs}

    # -- the DoFn's lifecycle, which runners call around the keys they drive --

    def setup(self) -> None:
        self.runner.setup()

    def start_bundle(self) -> None:
        self.runner.start_bundle()

    def finish_bundle(self) -> list:
        return self.runner.finish_bundle()

    def teardown(self) -> None:
        self.runner.teardown()

    # -- what the key driver asks of a processor --

    @staticmethod
    def new_state(key, watermark: int = MIN_MICROS, processing_time: int = MIN_MICROS):
        return StatefulKeyState(key, watermark, processing_time)

    def process_records(self, state: StatefulKeyState, records: list, counters) -> list:
        """The outputs of processing a bundle of ``(position, value, timestamp, windows,
        pane)`` records of the key's values, each as the ``(key, value)`` element it came as,
        once per window: a bundle in one window at once, else record by record."""
        windows = records[0][3]
        if len(windows) == 1 and list(map(_windows, records)).count(windows) == len(records):
            runs = [(windows[0], records)]
        else:
            runs = [
                (window, [(*record[:3], (window,), record[4])])
                for record in records
                for window in record[3]
            ]
        outputs: list = []
        contexts: dict = {}  # window -> its context for this bundle (None: the window expired)
        process_in, key = self.runner.process_in, state.key
        for window, run in runs:
            if window in contexts:
                context = contexts[window]
            else:
                context = contexts[window] = self._open(state, window)
            if context is None:
                counters.dropped_late += len(run)
                continue
            outputs += process_in(key, run, window, context)
        for context in contexts.values():
            if context is not None:
                context.done()
        return outputs

    def _open(self, state: StatefulKeyState, window):
        """The context of ``window``'s elements in a bundle, its garbage collection scheduled;
        None when the window has expired (its elements are late)."""
        gc_time = self._gc_time(window)
        if gc_time < state.input_watermark:
            return None
        if gc_time < GLOBAL_WINDOW_MAX_MICROS and (window, _GC, "") not in state.timers:
            _set(state, window, _GC, "", EVENT_TIME, gc_time + GC_DELAY, None)
        return _Context(self, state, window, MIN_MICROS)

    def advance_watermark(self, state: StatefulKeyState, time: int, counters) -> list:
        """Moves the input watermark to ``time`` (never back) and fires the event-time timers
        it passes."""
        state.input_watermark = max(state.input_watermark, time)
        return self._fire_due(state, EVENT_TIME, state.input_watermark)

    def advance_processing_time(self, state: StatefulKeyState, time: int, counters) -> list:
        """Moves processing time to ``time`` (never back) and fires the processing-time timers
        it passes."""
        state.processing_time = max(state.processing_time, time)
        return self._fire_due(state, PROCESSING_TIME, state.processing_time)

    @staticmethod
    def absorb_run(state, records, start: int, last_step) -> int:
        return start  # every element goes through the DoFn

    @staticmethod
    def next_timers(state: StatefulKeyState) -> tuple:
        return _next(state, EVENT_TIME), _next(state, PROCESSING_TIME)

    @staticmethod
    def earliest_hold(state: StatefulKeyState) -> int | None:
        """The earliest output timestamp of the key's timers still to fire."""
        holds = [timer[2] for timer in state.timers.values() if timer[2] is not None]
        return min(holds) if holds else None

    @staticmethod
    def is_empty(state: StatefulKeyState) -> bool:
        return not state.cells and not state.timers

    # -- timers --

    def _fire_due(self, state: StatefulKeyState, domain: str, clock: int) -> list:
        outputs: list = []
        while (due := _pop_due(state, domain, clock)) is not None:
            time, output, name, tag, window = due
            if name == _GC:
                _collect(state, window)
            elif domain == EVENT_TIME or self._gc_time(window) >= state.input_watermark:
                outputs += self._fire(state, window, name, tag, output)
        return outputs

    def _fire(self, state: StatefulKeyState, window, name: str, tag: str, output: int) -> list:
        context = _Context(self, state, window, output, tag)
        wv = windowed_value((None, output, (window,), PANE_NO_FIRING))
        outputs = self.runner.on_timer(self.callbacks[name], wv, window, context)
        context.done()
        return outputs

    def _gc_time(self, window) -> int:
        return garbage_collection_time(window.max_timestamp_micros, self.lateness)

    def set_timer(self, context, spec, tag: str, time: int, output: int | None) -> None:
        """Sets a user timer as Beam Java's ``setAndVerifyOutputTimestamp`` allows; a
        ``ValueError`` (which the DoFn runner reports with the element) says why not."""
        event_time = TimeDomain.is_event_time(spec.time_domain)
        expiry = self._gc_time(context.window)
        if event_time and time > expiry:
            raise ValueError(
                f"{spec!r} would fire at {_seconds(time)}, after the window's expiry "
                f"({_seconds(expiry)}); set it at or before window.max_timestamp()"
            )
        if output is not None and output < context.input_timestamp:
            raise ValueError(
                f"cannot set {spec!r} with output timestamp {_seconds(output)}: it is before "
                f"the timestamp of the element or timer setting it "
                f"({_seconds(context.input_timestamp)})"
            )
        if output is None:
            output = time if event_time else context.input_timestamp
        if output > expiry:
            raise ValueError(
                f"cannot set {spec!r} with output timestamp {_seconds(output)}: it is after its "
                f"window's expiry ({_seconds(expiry)}: its end + allowed lateness)"
            )
        domain = EVENT_TIME if event_time else PROCESSING_TIME
        _set(context.key_state, context.window, spec.name, tag, domain, time, output)


def _seconds(micros: int) -> str:
    return f"{Timestamp(micros=micros)}"


class _Context:
    """What one call of the DoFn (``process`` or a timer callback) sees of its key and window:
    the key, the dynamic tag of the timer that fired, its state cells and its timers."""

    def __init__(self, runner, state: StatefulKeyState, window, input_timestamp: int, tag=""):
        self.runner, self.key_state, self.window = runner, state, window
        self.input_timestamp, self.tag = input_timestamp, tag
        self.key = state.key
        self.cells = state.cells.setdefault(window, {})
        self.arguments: dict = {}  # what the DoFn runner bound for each method, kept

    def state(self, spec):
        return RUNTIME_STATES[spec.kind](self.cells, spec)

    def timer(self, spec) -> RuntimeTimer:
        return RuntimeTimer(self, spec)

    def set(self, spec, tag: str, time: int, output: int | None) -> None:
        self.runner.set_timer(self, spec, tag, time, output)

    def clear(self, spec, tag: str) -> None:
        self.key_state.timers.pop((self.window, spec.name, tag), None)

    def now(self, spec) -> int:
        state = self.key_state
        if TimeDomain.is_event_time(spec.time_domain):
            return state.input_watermark
        return state.processing_time

    def done(self) -> None:
        """Forgets the window's cells once they hold nothing."""
        if not any(_holds_something(value) for value in self.cells.values()):
            self.key_state.cells.pop(self.window, None)


def _holds_something(value) -> bool:
    return value is not None and not (isinstance(value, (list, dict)) and not value)


def _set(state: StatefulKeyState, window, name: str, tag: str, domain, time, output) -> None:
    state.order += 1
    state.timers[(window, name, tag)] = (domain, time, output, state.order)
    entry = (time, time if output is None else output, name, tag, window_order(window))
    heapq.heappush(state.queues[domain], (*entry, state.order, window))


def _live(state: StatefulKeyState, entry) -> bool:
    timer = state.timers.get((entry[6], entry[2], entry[3]))
    return timer is not None and timer[3] == entry[5]


def _next(state: StatefulKeyState, domain: str):
    queue = state.queues[domain]
    while queue and not _live(state, queue[0]):
        heapq.heappop(queue)
    return queue[0][0] if queue else None


def _pop_due(state: StatefulKeyState, domain: str, clock: int):
    """The earliest live timer of ``domain`` before ``clock`` as ``(time, output time, name,
    tag, window)``, removed; None when there is none."""
    if (time := _next(state, domain)) is None or time >= clock:
        return None
    entry = heapq.heappop(state.queues[domain])
    _, _, output, _ = state.timers.pop((entry[6], entry[2], entry[3]))
    return time, output, entry[2], entry[3], entry[6]


def _collect(state: StatefulKeyState, window) -> None:
    """Drops a window's state cells and timers: its garbage-collection time has passed."""
    state.cells.pop(window, None)
    for key in [key for key in state.timers if key[0] == window]:
        del state.timers[key]
