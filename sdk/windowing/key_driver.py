"""One key's windows through bundles and clock advances (Beam's Java ``ReduceFnRunner``).

For each bundle: drop windows beyond allowed lateness (tag ``late``), merge windows, add every
element to its windows (holds, contents, trigger), then emit the windows whose trigger is ready
(Flink-family triggers: after each element instead). Timers fire in time order: a window's
end-of-window timer may fire the trigger, and its garbage-collection timer (end of window +
allowed lateness) ends it: Beam emits a final pane of unfired contents, Flink purges them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from panes.errors import UserCodeError
from panes.timestamp import GLOBAL_WINDOW_MAX_TIMESTAMP, MIN_TIMESTAMP
from panes.trigger import AccumulationMode
from panes.window import (PANE_NO_FIRING, PaneInfo, PaneInfoTiming, TimestampCombiner,
                          WindowedValue)
from panes.windowing import holds as hold_rules
from panes.windowing.evicting import EvictingAggregation
from panes.windowing.machines.base import TriggerContext, TriggerState
from panes.windowing.merging import merge_windows
from panes.windowing.panes import next_pane
from panes.windowing.strategy import Cleanup, effective_windowing
from panes.windowing.timers import EVENT_TIME, PROCESSING_TIME, TimerQueue
from panes.windowing.trigger_machine import TriggerRunner

MAIN = "main"
LATE = "late"
_UNKNOWN = object()


@dataclass(slots=True)
class QuietRun:
    """The next ``budget`` elements of a window need no trigger call while the clocks stay as
    they were at ``epoch``: each only adds one to the trigger values of ``counters`` (and
    changes no hold when ``holds_settled``)."""

    epoch: int
    budget: float
    counters: tuple
    gc_time: int
    holds_settled: bool


@dataclass
class WindowState:
    """Everything kept for one window of one key. A closed window (its trigger finished) keeps
    only ``closed`` until garbage collection, so late elements for it are recognised."""

    contents: Any
    trigger: TriggerState = field(default_factory=TriggerState)
    holds: hold_rules.Holds = field(default_factory=hold_rules.Holds)
    pane: Optional[PaneInfo] = None  # the last pane emitted
    has_new_elements: bool = False  # since the last pane (Beam's NonEmptyPanes)
    size: int = 0  # elements in ``contents``
    unfired: int = 0  # elements that no pane has included yet
    closed: bool = False
    quiet: Optional[QuietRun] = None  # set by a lone element, spent by ``absorb_run``


class Counters:
    """What a driver counts: elements dropped as too late, elements dropped because their
    window's trigger had finished, and unfired elements purged at Flink-style clean-up."""

    def __init__(self):
        self.dropped_late = 0
        self.dropped_closed = 0
        self.purged_unfired = 0

    def report(self, metrics, step: str) -> None:
        """Adds the non-zero counts to ``metrics`` as ``panes`` counters of ``step``, so that no
        element disappears without a trace."""
        from panes.metrics import MetricName

        for name in ("dropped_late", "dropped_closed", "purged_unfired"):
            if getattr(self, name):
                metrics.inc(step, MetricName("panes", name), getattr(self, name))


def garbage_collection_time(max_timestamp: int, allowed_lateness: int) -> int:
    """When the state of a window that ends at ``max_timestamp`` is dropped: its end plus
    allowed lateness, capped at the end of the global window."""
    if max_timestamp > GLOBAL_WINDOW_MAX_TIMESTAMP - allowed_lateness:
        return GLOBAL_WINDOW_MAX_TIMESTAMP
    return max_timestamp + allowed_lateness


class KeyDriver:
    """The windowing state of one key, with its own clocks and timers."""

    def __init__(self, key, strategy, aggregation, counters: Optional[Counters] = None):
        self.key = key
        self.strategy = strategy
        self.effective = effective_windowing(strategy)
        self.contents = (aggregation if self.effective.evictor is None
                         else EvictingAggregation(aggregation, self.effective.evictor))
        self.trigger = TriggerRunner(self.effective.trigger)
        self.counters = counters or Counters()
        self.lateness = strategy.allowed_lateness.micros
        self.is_merging = strategy.window_fn.is_merging()
        self.input_watermark = MIN_TIMESTAMP
        self.processing_time = MIN_TIMESTAMP
        self.windows: dict = {}
        self.timers = TimerQueue()
        self._arrivals = 0
        self._pane_output_watermark = MIN_TIMESTAMP  # the output watermark during this call
        self._earliest_hold = _UNKNOWN  # min_hold(), kept while holds only move earlier
        self._epoch = 0  # counts clock advances, which end every QuietRun
        self._holds_settle = hold_rules.settled_by_one(strategy.timestamp_combiner)

    # -- the driver's four operations ----------------------------------------------------------

    def process_bundle(self, values: list) -> list:
        """One bundle of this key's ``WindowedValue``s; returns ``(tag, WindowedValue)``s."""
        self._pane_output_watermark = self.output_watermark()
        emissions: list = []
        if len(values) == 1 and len(values[0].windows) == 1 and not self.is_merging:
            wv = values[0]
            window = wv.windows[0]
            gc_time = self._gc_time(window)
            if gc_time >= self.input_watermark:
                self._process_single(window, wv, gc_time, emissions)
                return emissions
        on_time = [self._drop_expired(wv, emissions) for wv in values]
        on_time = [wv for wv in on_time if wv is not None]
        groups = [[wv] for wv in on_time] if self.effective.per_element else [on_time]
        for group in groups:
            if group:
                self._process_elements(group, emissions)
        return emissions

    def absorb_run(self, elements: list, start: int, last_step: float) -> int:
        """``process_bundle([WindowedValue(value, timestamp, windows, pane)])`` for each of
        ``elements[start:]`` — ``(position, value, timestamp, windows, pane)``, where
        ``position[0]``, the step, increases — that is alone at its step, up to ``last_step``
        (no clock moves before it), as long as its window's trigger is known to stay quiet (no
        pane, no timer, only counting). Most elements of a busy window are such, and skip the
        trigger tree. Stops at the first element that is not, or right after one that moved the
        key's earliest hold (for the caller to note at its step); returns where it stopped."""
        states, epoch, contents = self.windows, self._epoch, self.contents
        # _add_contents, inlined: an evictor's buffer keeps each element's time and arrival; an
        # aggregation is called bare (a combiner's add_input itself), its failures wrapped here.
        evicting = isinstance(contents, EvictingAggregation)
        add = contents.add if evicting else contents.adder()
        hold, count, index = self.min_hold(), len(elements), start
        while index < count:
            position, value, timestamp, windows, _ = elements[index]
            step = position[0]
            if step > last_step or (index + 1 < count and elements[index + 1][0][0] == step):
                break
            state = states.get(windows[0]) if len(windows) == 1 else None
            quiet = None if state is None else state.quiet
            if quiet is None or quiet.budget < 1 or quiet.epoch != epoch:
                break
            index += 1
            quiet.budget -= 1
            self._arrivals += 1
            try:
                state.contents = (add(state.contents, value, timestamp, self._arrivals) if evicting
                                  else add(state.contents, value))
            except UserCodeError:
                raise
            except Exception as error:
                raise contents.failed(value, error) from error
            state.has_new_elements = True
            state.size += 1
            state.unfired += 1
            values = state.trigger.values
            for node in quiet.counters:
                values[node] = values.get(node, 0) + 1
            if not quiet.holds_settled:
                self._pane_output_watermark = self.output_watermark()
                self._add_holds(state, windows[0], timestamp, quiet.gc_time)
                if self.min_hold() != hold:
                    break
        return index

    def advance_input_watermark(self, watermark: int) -> list:
        return self._advance(EVENT_TIME, max(self.input_watermark, watermark))

    def advance_processing_time(self, time: int) -> list:
        return self._advance(PROCESSING_TIME, max(self.processing_time, time))

    def output_watermark(self) -> int:
        """The input watermark held back by this key's pending holds."""
        hold = self.min_hold()
        return self.input_watermark if hold is None or hold >= self.input_watermark else hold

    def min_hold(self) -> Optional[int]:
        if self._earliest_hold is _UNKNOWN:
            holds = [h for h in (state.holds.earliest() for state in self.windows.values())
                     if h is not None]
            self._earliest_hold = min(holds) if holds else None
        return self._earliest_hold

    def is_empty(self) -> bool:
        return not self.windows

    # -- elements -------------------------------------------------------------------------------

    def _drop_expired(self, wv: WindowedValue, emissions: list) -> Optional[WindowedValue]:
        """Drops the windows an element is too late for (Beam's LateDataDroppingDoFnRunner)."""
        if all(self._gc_time(w) >= self.input_watermark for w in wv.windows):
            return wv  # the common case: nothing to drop
        kept = []
        for window in wv.windows:
            if self._gc_time(window) < self.input_watermark:
                self.counters.dropped_late += 1
                emissions.append((LATE, WindowedValue(
                    (self.key, wv.value), wv.timestamp, (window,), PANE_NO_FIRING)))
            else:
                kept.append(window)
        return WindowedValue(wv.value, wv.timestamp, tuple(kept), wv.pane) if kept else None

    def _process_single(self, window, wv: WindowedValue, gc_time: int, emissions: list) -> None:
        """``_process_elements`` for one element in one window that does not merge, the
        common case of a record-at-a-time source, kept lean."""
        context = self._process_element(window, wv, gc_time)
        if context is None:
            return
        state = self.windows[window]
        if self.trigger.should_fire(context):
            self._emit(window, state, emissions)
        budget, counters = self.trigger.quiet(context)
        if budget:
            state.quiet = QuietRun(self._epoch, budget, counters, gc_time, self._holds_settle)

    def _process_elements(self, values: list, emissions: list) -> None:
        windows = list(dict.fromkeys(w for wv in values for w in wv.windows))
        merged_into = self._merge(windows) if self.is_merging else None
        targets = windows if merged_into is None else list(
            dict.fromkeys(merged_into.get(w, w) for w in windows))
        to_consider = [w for w in targets if not self._is_closed(w)]
        for wv in values:
            if merged_into is None:
                element_windows = wv.windows if len(wv.windows) == 1 else dict.fromkeys(wv.windows)
            else:
                element_windows = dict.fromkeys(merged_into.get(w, w) for w in wv.windows)
            for window in element_windows:
                self._process_element(window, wv, self._gc_time(window))
        for window in to_consider:
            self._fire_if_ready(window, emissions)

    def _fire_if_ready(self, window, emissions: list) -> None:
        state = self.windows.get(window)
        if state is not None and not state.closed and self.trigger.should_fire(
                self._context(window, state)):
            self._emit(window, state, emissions)

    def _is_closed(self, window) -> bool:
        state = self.windows.get(window)
        return state is not None and state.closed

    def _process_element(self, window, wv: WindowedValue, gc_time: int):
        """Adds one element to one window; returns the trigger context it used (None when the
        window had closed and the element was dropped)."""
        state = self.windows.get(window)
        if state is None:
            state = self.windows[window] = WindowState(self.contents.create())
            self._schedule_end_of_window_or_gc(window, gc_time)
        elif state.closed:
            self.counters.dropped_closed += 1
            return None
        elif self.is_merging:  # a merged window has no timer of its own yet
            self._schedule_end_of_window_or_gc(window, gc_time)
        state.quiet = None
        self._add_holds(state, window, wv.timestamp, gc_time)
        self._add_contents(state, wv)
        context = self._context(window, state, element=wv.value, timestamp=wv.timestamp)
        self.trigger.on_element(context)
        return context

    def _add_contents(self, state: WindowState, wv: WindowedValue) -> None:
        state.has_new_elements = True
        self._arrivals += 1
        state.contents = self.contents.add(state.contents, wv.value, wv.timestamp, self._arrivals)
        state.size += 1
        state.unfired += 1

    def _add_holds(self, state: WindowState, window, timestamp: int, gc_time: int) -> None:
        combiner = self.strategy.timestamp_combiner
        hold = hold_rules.add_holds(state.holds, combiner, window, timestamp, gc_time,
                                    self.input_watermark, self._pane_output_watermark)
        earliest = self._earliest_hold
        if hold is None or earliest is _UNKNOWN:
            return
        if combiner == TimestampCombiner.OUTPUT_AT_LATEST:
            self._earliest_hold = _UNKNOWN  # a window's element hold may have moved later
        elif earliest is None or hold < earliest:
            self._earliest_hold = hold

    def _merge(self, windows: list) -> dict:
        """Merges this bundle's new windows with the active ones; returns window -> result."""
        active = [w for w, s in self.windows.items() if not s.closed]
        new = [w for w in windows if w not in self.windows or self.windows[w].closed]
        merged_into = {}
        for sources, result in merge_windows(self.strategy.window_fn, active, new):
            for window in sources:
                merged_into[window] = result
            self._merge_state([w for w in sources if w in active], result)
        return merged_into

    def _merge_state(self, active_sources: list, result) -> None:
        states = [self.windows[w] for w in active_sources]
        prior = self.windows.get(result) if result in active_sources else None
        merged = WindowState(self.contents.merge([s.contents for s in states]) if states
                             else self.contents.create())
        self._earliest_hold = _UNKNOWN
        merged.holds = hold_rules.merge_holds(
            [s.holds for s in states], self.strategy.timestamp_combiner, result,
            self._gc_time(result), self.input_watermark, self._pane_output_watermark)
        merged.has_new_elements = any(s.has_new_elements for s in states)
        merged.size = sum(s.size for s in states)
        merged.unfired = sum(s.unfired for s in states)
        merged.pane = prior.pane if prior is not None else None
        merged.trigger = TriggerState(finished=set(prior.trigger.finished) if prior else set())
        for window in active_sources:
            if window != result:
                self.timers.delete_window(window)
                del self.windows[window]
        self.windows[result] = merged
        if states:
            self.trigger.on_merge(self._context(result, merged,
                                                merging=tuple(s.trigger for s in states)))

    # -- timers ---------------------------------------------------------------------------------

    def _gc_time(self, window) -> int:
        return garbage_collection_time(window.max_timestamp(), self.lateness)

    def _schedule_end_of_window_or_gc(self, window, gc_time: int) -> None:
        end = window.max_timestamp()
        self.timers.set(window, gc_time if end < self.input_watermark else end, EVENT_TIME)

    def _advance(self, domain: str, clock: int) -> list:
        """Sets a clock and fires its due timers; panes see the output watermark from before."""
        self._epoch += 1
        due = self.timers.next_time(domain)
        if due is not None and due < clock:
            self._pane_output_watermark = self.output_watermark()
        if domain == EVENT_TIME:
            self.input_watermark = clock
        else:
            self.processing_time = clock
        return [] if due is None or due >= clock else self._fire_timers(domain, clock)

    def _fire_timers(self, domain: str, clock: int) -> list:
        emissions: list = []
        while (due := self.timers.pop_due(domain, clock)) is not None:
            window, time = due
            state = self.windows.get(window)
            if state is None:
                continue
            if domain == EVENT_TIME and time >= self._gc_time(window):
                self._garbage_collect(window, state, emissions)
                continue
            if not state.closed and self.trigger.should_fire(self._context(window, state)):
                # Flink-style, lateness 0: a firing once the watermark has passed the window's
                # end is its last, as Beam marks the end-of-window pane then.
                final = (self.effective.cleanup == Cleanup.FLINK and domain == EVENT_TIME
                         and clock > self._gc_time(window) == window.max_timestamp())
                self._emit(window, state, emissions, final=final)
            if domain == EVENT_TIME and time == window.max_timestamp():
                self.timers.set(window, self._gc_time(window), EVENT_TIME)
        return emissions

    def _garbage_collect(self, window, state: WindowState, emissions: list) -> None:
        """The window's last moment: Beam emits a final pane, Flink fires if its trigger says
        so and purges the rest."""
        if not state.closed:
            if self.effective.cleanup == Cleanup.BEAM:
                self._on_trigger(window, state, is_final=True, emissions=emissions)
            else:
                if self.trigger.should_fire(self._context(window, state)):
                    self._emit(window, state, emissions, final=True)
                self.counters.purged_unfired += state.unfired
        self.timers.delete_window(window)
        del self.windows[window]
        self._earliest_hold = _UNKNOWN

    # -- firing ---------------------------------------------------------------------------------

    def _emit(self, window, state: WindowState, emissions: list, final: bool = False) -> None:
        """The trigger is ready: fire it, emit the pane (the window's last if the trigger
        finished or the window is being cleaned up), and discard or close as it implies."""
        state.quiet = None
        self.trigger.on_fire(self._context(window, state))
        finished = self.trigger.is_closed(state.trigger)
        self._on_trigger(window, state, finished or final, emissions)
        state.has_new_elements = False
        if finished or self.effective.accumulation_mode == AccumulationMode.DISCARDING:
            state.contents, state.size = self.contents.create(), 0
        if finished:
            # Closed until garbage collection: later elements for it are dropped.
            self.trigger.clear(self._context(window, state))
            state.closed, state.pane = True, None

    def _on_trigger(self, window, state: WindowState, is_final: bool, emissions: list) -> None:
        output_timestamp = hold_rules.extract_and_release(state.holds, window)
        self._earliest_hold = _UNKNOWN
        pane = next_pane(state.pane, window.max_timestamp(), self.input_watermark,
                         self._pane_output_watermark, is_final)
        if not self._need_to_emit(state, pane):
            return
        state.pane = pane
        value = self.contents.extract(state.contents)
        if isinstance(self.contents, EvictingAggregation):
            state.size = len(state.contents)
        state.unfired = 0
        emissions.append((MAIN, WindowedValue((self.key, value), output_timestamp,
                                              (window,), pane)))

    def _need_to_emit(self, state: WindowState, pane: PaneInfo) -> bool:
        if self.effective.cleanup == Cleanup.FLINK:
            return state.size > 0  # Flink fires a window's contents, never an empty window
        return state.has_new_elements or pane.timing == PaneInfoTiming.ON_TIME

    def _context(self, window, state: WindowState, **extra) -> TriggerContext:
        return TriggerContext(window, state.trigger, self.input_watermark, self.processing_time,
                              self.is_merging, self.timers, **extra)
