"""The windowing engine's rules for the windowings whose triggers only watch the watermark and
count: a ``CountingEngine`` advances one key as ``WindowingEngine`` does, with a window's
trigger kept as two numbers instead of a trigger machine tree, so that the Spark streaming
runner, which loads, advances and stores each key every micro-batch, spends little on each.

It serves a strategy ``is_counting_exact`` accepts: fixed, sliding or global windows, Beam's
default trigger, ``AfterWatermark()`` alone or with early and late ``AfterCount`` firings, either
accumulation mode, any allowed lateness, the end-of-window timestamp combiner, no evictor.
Under it a window's trigger is its *phase* — early (before its on-time pane), late (after it),
closed (its trigger finished; elements are dropped until garbage collection) — and the count
of elements since its last pane; its timers are its end (while the on-time pane is to come)
and its garbage-collection time; its holds the end of the window (an element that arrived
before the watermark passed it) and its garbage-collection time (one that arrived after).
Panes, garbage collection and late drops come from the engine's own functions (``next_pane``,
``garbage_collection_time``, ``late_output``); the holds are ``holds.add_holds`` worked out for
the end-of-window combiner. The test of this module drives both engines through the same event
logs and compares every output, hold, timer and count.
"""

from __future__ import annotations

from panes.ir import triggers
from panes.ir import windowing as ir
from panes.ir.windowing import AccumulationMode, TimestampCombiner
from panes.timestamp import MIN_MICROS
from panes.window import (
    GLOBAL_WINDOW,
    IntervalWindow,
    PaneInfoTiming,
    interval_window,
    pane_info_of,
    windowed_value,
)
from panes.windowing.engine import MAIN, garbage_collection_time, late_output
from panes.windowing.output_watermark import held_back
from panes.windowing.panes import next_pane
from panes.windowing.strategy import effective_windowing

# A window's state, a list (which pickles in a fraction of a dataclass's bytes and time): its
# contents, the count of elements since its last pane (for the phase's AfterCount), its phase,
# its last pane (None: none yet), whether it has elements no pane has included, whether its
# end-of-window timer is set, and its two holds.
CONTENTS, COUNT, PHASE, PANE, NEW, END_TIMER, END_HOLD, GC_HOLD = range(8)
EARLY_PHASE, LATE_PHASE, CLOSED = 0, 1, 2
_UNKNOWN = object()  # a key's earliest timer and hold, until worked out from its windows
_WINDOW_FNS = (ir.FixedWindows, ir.SlidingWindows, ir.GlobalWindows)


def is_counting_exact(strategy) -> bool:
    """Whether ``CountingEngine`` gives exactly the panes ``WindowingEngine`` gives under
    ``strategy`` (an IR ``WindowingStrategy``). Its window functions are the built-in ones that
    do not merge, which give an element distinct windows."""
    effective = effective_windowing(strategy)
    trigger = effective.trigger
    return (
        not effective.flink
        and effective.evictor is None
        and strategy.timestamp_combiner == TimestampCombiner.OUTPUT_AT_EOW
        and isinstance(strategy.window_fn, _WINDOW_FNS)
        and (
            isinstance(trigger, triggers.Default)
            or isinstance(trigger, triggers.AfterEndOfWindow)
            and all(
                child is None or isinstance(child, triggers.ElementCount)
                for child in (trigger.early, trigger.late)
            )
        )
    )


class CountingKeyState:
    """One key's windows (window -> its state, a list; see ``CONTENTS``) and clocks: plain
    data, stored as ``plain()`` gives it. The engine keeps the earliest timer and hold of its
    windows beside them, worked out once after each change: the key driver asks for both
    several times a micro-batch."""

    __slots__ = ("key", "input_watermark", "processing_time", "windows", "timer", "hold")

    def __init__(self, key, input_watermark: int, processing_time: int, windows: dict):
        self.key, self.windows = key, windows
        self.input_watermark, self.processing_time = input_watermark, processing_time
        self.timer = self.hold = _UNKNOWN

    def __reduce__(self):
        """Pickled without what the engine keeps beside the windows: it is worked out again."""
        return type(self), (self.key, self.input_watermark, self.processing_time, self.windows)

    def plain(self) -> tuple:
        """The state with the engine's own structure in builtins — a window as its bounds
        (None: the global window; a window of another class as it is), a pane as its fields
        with its timing's name — which pickles at a fraction of the cost: every pickle looks up
        each class it names, by import. The result shares the state's lists: pickle it before
        the state changes."""
        windows = []
        for window, window_state in self.windows.items():
            pane = window_state[PANE]
            if pane is not None:
                window_state = window_state.copy()
                window_state[PANE] = (pane[0], pane[1], pane[2].value, pane[3], pane[4])
            if window is GLOBAL_WINDOW:
                window = None
            elif type(window) is IntervalWindow:
                window = tuple(window)
            windows.append(window)
            windows.append(window_state)
        return self.key, self.input_watermark, self.processing_time, windows

    @classmethod
    def of_plain(cls, plain: tuple) -> CountingKeyState:
        """The state ``plain()`` gave (taking its lists)."""
        key, input_watermark, processing_time, flat = plain
        windows = {}
        for index in range(0, len(flat), 2):
            window, window_state = flat[index], flat[index + 1]
            pane = window_state[PANE]
            if pane is not None:
                window_state[PANE] = pane_info_of(*pane)
            if window is None:
                window = GLOBAL_WINDOW
            elif type(window) is tuple:
                window = interval_window(window)
            windows[window] = window_state
        return cls(key, input_watermark, processing_time, windows)


class CountingEngine:
    """A grouping's windowing under a strategy ``is_counting_exact`` accepts; advances one
    key's ``CountingKeyState`` with the key driver's calls (``key_driver.KeyDriver``)."""

    def __init__(self, strategy, aggregation):
        trigger = effective_windowing(strategy).trigger
        self.default = isinstance(trigger, triggers.Default)
        early = None if self.default else trigger.early
        late = None if self.default else trigger.late
        # The count each phase fires at (None: the phase never fires on counts).
        self.early_count = None if early is None else early.count
        self.late_count = None if late is None else late.count
        # Whether the on-time pane finishes the trigger: AfterWatermark() alone, or with
        # early firings only.
        self.closes = not self.default and late is None
        self.contents = aggregation
        self.lateness = strategy.allowed_lateness
        self.discarding = strategy.accumulation_mode == AccumulationMode.DISCARDING

    @staticmethod
    def new_state(key, watermark: int = MIN_MICROS, processing_time: int = MIN_MICROS):
        return CountingKeyState(key, watermark, processing_time, {})

    def process_records(self, state, records: list, counters) -> list:
        """One bundle of ``(position, value, timestamp, windows, pane)`` records: the windows
        each is too late for dropped, the rest added, then the windows whose trigger is ready
        fire (``WindowingEngine.process_bundle``)."""
        watermark, windows, emissions = state.input_watermark, state.windows, []
        output_watermark = held_back(watermark, self.earliest_hold(state))
        considered: dict = {}
        add, lateness = self.contents.add, self.lateness
        for _, value, timestamp, element_windows, _ in records:
            for window in element_windows:
                end = window.max_timestamp_micros
                gc_time = garbage_collection_time(end, lateness)
                if gc_time < watermark:
                    counters.dropped_late += 1
                    emissions.append(late_output(state.key, value, timestamp, window))
                    continue
                window_state = windows.get(window)
                if window_state is None:
                    window_state = windows[window] = [
                        self.contents.create(),
                        0,
                        EARLY_PHASE,
                        None,
                        False,
                        False,
                        None,
                        None,
                    ]
                elif window_state[PHASE] == CLOSED:
                    counters.dropped_closed += 1
                    continue
                considered[window] = window_state
                # The element's hold (holds.add_holds) and, before the end of the window, the
                # trigger's end-of-window timer.
                if end >= watermark:
                    window_state[END_HOLD] = end
                    window_state[END_TIMER] = True
                else:
                    window_state[GC_HOLD] = gc_time
                window_state[NEW] = True
                window_state[CONTENTS] = add(window_state[CONTENTS], value, timestamp)
                if window_state[PHASE] == EARLY_PHASE:
                    if self.early_count is not None:
                        window_state[COUNT] += 1
                elif self.late_count is not None:
                    window_state[COUNT] += 1
        fired = False
        for window, window_state in considered.items():
            if self._ready(window, window_state, watermark):
                self._fire(state, window, window_state, output_watermark, emissions)
                fired = True
        if fired:
            state.timer = state.hold = _UNKNOWN
        elif considered and state.timer is not _UNKNOWN:
            # Elements alone only set timers and holds earlier.
            state.timer, state.hold = self._earliest(considered, state.timer, state.hold)
        return emissions

    def absorb_run(self, state, records: list, start: int, last_step: float) -> int:
        """Absorbs no lone elements: ``process_records`` is lean already."""
        return start

    def advance_watermark(self, state, watermark: int, counters) -> list:
        """Moves the input watermark to ``watermark`` (never back); each window with a timer
        it passes is activated once: garbage-collected past its GC time (a final pane of what
        no pane included), else fired if its trigger is ready (``WindowingEngine._activate``)."""
        clock = max(state.input_watermark, watermark)
        kept = state.timer
        if kept is not _UNKNOWN and (kept is None or kept >= clock):  # passes no timer
            state.input_watermark = clock
            return []
        due = []
        for window, window_state in state.windows.items():
            timer = self._next_timer(window, window_state)
            if timer < clock:
                due.append((timer, window, window_state))
        state.input_watermark = clock
        if not due:  # reached only when the key's earliest timer was not known
            state.timer = state.hold = _UNKNOWN
            return []
        # Panes are judged as the engine judges them: against the earliest due timer, held
        # back by the key's holds.
        first_due = min(timer for timer, _, _ in due)
        output_watermark = held_back(first_due, self.earliest_hold(state))
        emissions: list = []
        for _, window, window_state in due:
            window_state[END_TIMER] = False
            end = window.max_timestamp_micros
            if clock > garbage_collection_time(end, self.lateness):
                if window_state[PHASE] != CLOSED:
                    self._pane(state, window, window_state, output_watermark, True, emissions)
                del state.windows[window]
            elif window_state[PHASE] != CLOSED and self._ready(window, window_state, clock):
                self._fire(state, window, window_state, output_watermark, emissions)
        state.timer = state.hold = _UNKNOWN
        return emissions

    @staticmethod
    def advance_processing_time(state, time: int, counters) -> list:
        """Moves processing time: no trigger here waits on it."""
        state.processing_time = max(state.processing_time, time)
        return []

    def next_timers(self, state) -> tuple:
        """``(event time, None)``: the earliest timer of any window."""
        if state.timer is _UNKNOWN:
            state.timer, state.hold = self._earliest(state.windows)
        return state.timer, None

    def earliest_hold(self, state) -> int | None:
        if state.hold is _UNKNOWN:
            state.timer, state.hold = self._earliest(state.windows)
        return state.hold

    def _earliest(self, windows: dict, timer=None, hold=None) -> tuple:
        """The earliest timer and hold of ``windows`` and of ``timer`` and ``hold`` (None:
        none)."""
        for window, window_state in windows.items():
            window_timer = self._next_timer(window, window_state)
            if timer is None or window_timer < timer:
                timer = window_timer
            for window_hold in (window_state[END_HOLD], window_state[GC_HOLD]):
                if window_hold is not None and (hold is None or window_hold < hold):
                    hold = window_hold
        return timer, hold

    def _next_timer(self, window, window_state: list) -> int:
        """The window's earliest timer: its end while the end-of-window timer is set, else its
        garbage-collection time (earlier for a window that ends after the global window, which
        is collected at the global window's end)."""
        end = window.max_timestamp_micros
        gc_time = garbage_collection_time(end, self.lateness)
        return end if window_state[END_TIMER] and end < gc_time else gc_time

    @staticmethod
    def is_empty(state) -> bool:
        return not state.windows

    # -- the trigger ------------------------------------------------------------------------------

    def _ready(self, window, window_state: list, watermark: int) -> bool:
        """Whether the window's trigger would fire now (its ``should_fire``)."""
        if window_state[PHASE] == EARLY_PHASE:
            if watermark > window.max_timestamp_micros:
                return True
            return self.early_count is not None and window_state[COUNT] >= self.early_count
        if self.default:
            return watermark > window.max_timestamp_micros
        return self.late_count is not None and window_state[COUNT] >= self.late_count

    def _fire(self, state, window, window_state: list, output_watermark: int, emissions) -> None:
        """The trigger fires: the phase moves on, the pane is emitted, and the window
        discards or closes as that implies (``WindowingEngine._emit``)."""
        window_state[COUNT] = 0
        closes = False
        if (
            window_state[PHASE] == EARLY_PHASE
            and state.input_watermark > window.max_timestamp_micros
        ):
            window_state[PHASE] = LATE_PHASE
            closes = self.closes
        self._pane(state, window, window_state, output_watermark, closes, emissions)
        window_state[NEW] = False
        if closes or self.discarding:
            window_state[CONTENTS] = self.contents.create()
        if closes:
            window_state[PHASE] = CLOSED

    def _pane(self, state, window, window_state, output_watermark, is_final, emissions) -> None:
        """Emits the window's pane, if it has new elements or is on time, and releases its
        holds (``WindowingEngine._on_trigger``): at the end of the window, the end-of-window
        timestamp combiner's output time."""
        end = window.max_timestamp_micros
        window_state[END_HOLD] = window_state[GC_HOLD] = None
        pane = next_pane(window_state[PANE], end, state.input_watermark, output_watermark, is_final)
        if not (window_state[NEW] or pane.timing == PaneInfoTiming.ON_TIME):
            return
        window_state[PANE] = pane
        if is_final or self.discarding:
            value = self.contents.extract(window_state[CONTENTS])
        else:
            value = self.contents.extract_kept(window_state[CONTENTS])
        emissions.append((MAIN, windowed_value(((state.key, value), end, (window,), pane))))
