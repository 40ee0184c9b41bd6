"""The one per-key windowing engine (Beam's Java ``ReduceFnRunner``; Flink's ``WindowOperator``
for Flink-style triggers): the only thing that decides a pane.

A ``WindowingEngine`` is compiled once per grouping — effective windowing, trigger machine
tree, aggregation, lateness, clean-up rule — and advances one key's ``KeyState`` (plain data)
with ``step``: the key's bundle of elements, then its clocks. For each bundle: drop windows
beyond allowed lateness (tag ``late``), merge windows, add every element to its windows (holds,
contents, trigger), then emit the windows whose trigger is ready (Flink-style triggers: after
each element instead). A window's garbage-collection timer (end of window + allowed lateness)
is set with its first element; its trigger sets its own timers. A clock advance activates each
window with a due timer once (Beam) — garbage collection once the watermark is past its GC
time: Beam emits a final pane of unfired contents, Flink purges them; else a firing if its
trigger is ready — or fires each due timer on its own, in time order (Flink).
"""

from __future__ import annotations

from dataclasses import dataclass

from panes.errors import UserCodeError
from panes.ir.windowing import AccumulationMode, TimestampCombiner
from panes.timestamp import GLOBAL_WINDOW_MAX_MICROS, MAX_MICROS, MIN_MICROS
from panes.window import PANE_NO_FIRING, PaneInfo, PaneInfoTiming, WindowedValue, windowed_value
from panes.windowing import holds as hold_rules
from panes.windowing import window_fn_kinds
from panes.windowing.evicting import EvictingAggregation
from panes.windowing.key_state import KeyState, QuietRun, WindowState
from panes.windowing.machines.base import TriggerContext, TriggerState
from panes.windowing.merging import merge_windows
from panes.windowing.output_watermark import held_back
from panes.windowing.panes import next_pane
from panes.windowing.strategy import effective_windowing
from panes.windowing.timers import EVENT_TIME, PROCESSING_TIME
from panes.windowing.trigger_machine import TriggerRunner

MAIN = "main"
LATE = "late"


class Counters:
    """What the engine counts: elements dropped as too late, elements dropped because their
    window's trigger had finished, and unfired elements purged at Flink-style clean-up."""

    NAMES = ("dropped_late", "dropped_closed", "purged_unfired")

    def __init__(self):
        self.dropped_late = 0
        self.dropped_closed = 0
        self.purged_unfired = 0

    def add(self, other: Counters) -> None:
        for name in self.NAMES:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def report(self, metrics, step: str) -> None:
        """Adds the non-zero counts to ``metrics`` as ``panes`` counters of ``step``, so that no
        element disappears without a trace."""
        from panes.metrics import MetricName

        for name in self.NAMES:
            if getattr(self, name):
                metrics.inc(step, MetricName("panes", name), getattr(self, name))


@dataclass
class StepResult:
    """What one ``step`` of a key gave: its ``outputs`` — ``(tag, WindowedValue)``, tag ``main``
    for ``(key, aggregate)`` panes, ``late`` for ``(key, value)`` elements dropped as too late —
    and the key's next wake-up: its earliest event-time and processing-time timers (a timer at
    ``t`` is due once its clock is past ``t``) and its earliest ``hold`` (None: none), which
    holds the grouping's output watermark back. ``empty``: the key keeps nothing; its state
    may be dropped. ``counters``: what the step dropped or purged."""

    outputs: list
    event_timer: int | None
    processing_timer: int | None
    hold: int | None
    empty: bool
    counters: Counters


def _set_clock(state: KeyState, domain: str, clock: int) -> None:
    if domain == EVENT_TIME:
        state.input_watermark = clock
    else:
        state.processing_time = clock


def garbage_collection_time(max_timestamp: int, allowed_lateness: int) -> int:
    """When the state of a window that ends at ``max_timestamp`` is dropped: its end plus
    allowed lateness, capped at the end of the global window."""
    if max_timestamp > GLOBAL_WINDOW_MAX_MICROS - allowed_lateness:
        return GLOBAL_WINDOW_MAX_MICROS
    return max_timestamp + allowed_lateness


class _Call:
    """One engine call on one key: its outputs and counts, and the output watermark its panes
    and holds are judged against."""

    __slots__ = ("state", "output_watermark", "emissions", "counters")

    def __init__(self, state: KeyState, output_watermark: int, counters: Counters):
        self.state, self.output_watermark = state, output_watermark
        self.emissions: list = []
        self.counters = counters


class WindowingEngine:
    """A grouping's windowing, compiled once from its IR ``WindowingStrategy``; every method
    advances or reads one key's ``KeyState``, which it is given."""

    def __init__(self, strategy, aggregation):
        self.strategy = strategy
        effective = effective_windowing(strategy)
        self.contents = (
            aggregation
            if effective.evictor is None
            else EvictingAggregation(aggregation, effective.evictor)
        )
        self.evicting = effective.evictor is not None
        self.trigger = TriggerRunner(effective.trigger)
        self.lateness = strategy.allowed_lateness
        self.window_fn = window_fn_kinds.from_ir(strategy.window_fn)
        self.is_merging = self.window_fn.is_merging()
        self.combiner = strategy.timestamp_combiner
        self.discarding = effective.accumulation_mode == AccumulationMode.DISCARDING
        self.flink = effective.flink
        self.holds_settle = hold_rules.settled_by_one(strategy.timestamp_combiner)

    # -- the step ---------------------------------------------------------------------------------

    @staticmethod
    def new_state(key, watermark: int = MIN_MICROS, processing_time: int = MIN_MICROS) -> KeyState:
        """A key's empty state with its clocks at ``watermark`` and ``processing_time`` (the
        grouping's clocks when the key first appears or reappears)."""
        return KeyState(key, watermark, processing_time)

    def step(
        self,
        state: KeyState,
        elements=(),
        watermark: int | None = None,
        processing_time: int | None = None,
    ) -> StepResult:
        """Advances ``state`` in place by one step of the event log: ``elements`` (the key's
        bundle of ``WindowedValue``s, possibly empty) and the new clock values (None: unchanged).

        The order follows the event log: processing time moves first (a record's arrival
        moves it before the record is processed), then the bundle is processed, then the
        watermark moves. Processing time reaching ``MAX_MICROS`` ends the input: it moves
        last, after the watermark went to +inf."""
        counters, outputs = Counters(), []
        at_end = processing_time is not None and processing_time >= MAX_MICROS
        before, after = (None, processing_time) if at_end else (processing_time, None)
        if before is not None:
            outputs += self.advance_processing_time(state, before, counters)
        if elements:
            outputs += self.process_bundle(state, elements, counters)
        if watermark is not None:
            outputs += self.advance_watermark(state, watermark, counters)
        if after is not None:
            outputs += self.advance_processing_time(state, after, counters)
        event_timer, processing_timer = self.next_timers(state)
        return StepResult(
            outputs,
            event_timer,
            processing_timer,
            self.earliest_hold(state),
            self.is_empty(state),
            counters,
        )

    # -- finer operations, for runners that replay many steps at once ------------------------------

    def process_records(self, state: KeyState, records: list, counters: Counters) -> list:
        """``process_bundle`` of ``(position, value, timestamp, windows, pane)`` records."""
        return self.process_bundle(state, [windowed_value(r[1:]) for r in records], counters)

    def process_bundle(self, state: KeyState, values: list, counters: Counters) -> list:
        """One bundle of the key's ``WindowedValue``s; returns ``(tag, WindowedValue)``s."""
        call = _Call(state, self.output_watermark(state), counters)
        if len(values) == 1 and len(values[0].windows) == 1 and not self.is_merging:
            wv = values[0]
            window = wv.windows[0]
            gc_time = self._gc_time(window)
            if gc_time >= state.input_watermark:
                self._process_single(call, window, wv, gc_time)
                return call.emissions
        on_time = [wv for wv in (self._drop_expired(call, wv) for wv in values) if wv is not None]
        groups = [[wv] for wv in on_time] if self.flink else [on_time]
        quiet: dict = {}  # window -> whether its trigger was known to stay quiet in the bundle
        for group in groups:
            if group:
                self._process_elements(call, group, quiet)
        for window, noted in quiet.items():
            if noted:  # a run noted in a bundle ends with it, not kept in the key's state
                state.windows[window].quiet = None
        return call.emissions

    def absorb_run(self, state: KeyState, elements: list, start: int, last_step: float) -> int:
        """``process_bundle([WindowedValue(value, timestamp, windows, pane)])`` for each of
        ``elements[start:]`` — ``(position, value, timestamp, windows, pane)``, where
        ``position[0]``, the step, increases — that is alone at its step, up to ``last_step``
        (no clock moves before it), as long as its window's trigger is known to stay quiet (no
        pane, no timer, only counting). Most elements of a busy window are such, and skip the
        trigger tree. Stops at the first element that is not, or right after one that moved the
        key's earliest hold (for the caller to note at its step); returns where it stopped."""
        states, epoch, contents = state.windows, state.epoch, self.contents
        # Contents are added as _process_element adds them: an evictor's buffer keeps each
        # element's time and arrival; an aggregation is called bare (a combiner's add_input
        # itself), its failures wrapped here.
        evicting = self.evicting
        add = contents.add if evicting else contents.adder()
        hold, count, index = self.earliest_hold(state), len(elements), start
        while index < count:
            position, value, timestamp, windows, _ = elements[index]
            step = position[0]
            if step > last_step or (index + 1 < count and elements[index + 1][0][0] == step):
                break
            window_state = states.get(windows[0]) if len(windows) == 1 else None
            if window_state is None:
                break
            quiet = window_state.quiet
            if quiet is None or quiet.budget < 1 or quiet.epoch != epoch:
                break
            index += 1
            quiet.budget -= 1
            state.arrivals += 1
            try:
                window_state.contents = (
                    add(window_state.contents, value, timestamp, state.arrivals)
                    if evicting
                    else add(window_state.contents, value)
                )
            except UserCodeError:
                raise
            except Exception as error:
                raise contents.failed(value, error) from error
            _count_absorbed(window_state, quiet.counters)
            if not quiet.holds_settled:
                call = _Call(state, self.output_watermark(state), Counters())
                self._add_holds(call, window_state, windows[0], timestamp, quiet.gc_time)
                quiet.holds_settled = self.holds_settle
                if self.earliest_hold(state) != hold:
                    break
        return index

    def advance_watermark(self, state: KeyState, watermark: int, counters: Counters) -> list:
        """Moves the key's input watermark to ``watermark`` (never back) and fires the
        event-time timers it passes; returns ``(tag, WindowedValue)``s."""
        return self._advance(state, EVENT_TIME, max(state.input_watermark, watermark), counters)

    def advance_processing_time(self, state: KeyState, time: int, counters: Counters) -> list:
        """Moves the key's processing time to ``time`` (never back) and fires the
        processing-time timers it passes."""
        return self._advance(state, PROCESSING_TIME, max(state.processing_time, time), counters)

    def output_watermark(self, state: KeyState) -> int:
        """The key's output watermark: its input watermark held back by its pending holds."""
        return held_back(state.input_watermark, self.earliest_hold(state))

    @staticmethod
    def next_timers(state: KeyState) -> tuple:
        """``(event time, processing time)`` of the key's earliest timers (None: none)."""
        timers = state.timers
        return timers.next_time(EVENT_TIME), timers.next_time(PROCESSING_TIME)

    @staticmethod
    def is_empty(state: KeyState) -> bool:
        """Whether the key keeps nothing, so its state may be dropped."""
        return not state.windows

    @staticmethod
    def earliest_hold(state: KeyState) -> int | None:
        """The earliest hold of any of the key's windows (None: none)."""
        if not state.hold_known:
            holds = [
                h for h in (w.holds.earliest() for w in state.windows.values()) if h is not None
            ]
            state.earliest_hold, state.hold_known = (min(holds) if holds else None), True
        return state.earliest_hold

    # -- elements -------------------------------------------------------------------------------

    def _drop_expired(self, call: _Call, wv: WindowedValue) -> WindowedValue | None:
        """Drops the windows an element is too late for (Beam's LateDataDroppingDoFnRunner)."""
        watermark = call.state.input_watermark
        if all(self._gc_time(w) >= watermark for w in wv.windows):
            return wv  # the common case: nothing to drop
        kept = []
        for window in wv.windows:
            if self._gc_time(window) < watermark:
                call.counters.dropped_late += 1
                call.emissions.append(
                    late_output(call.state.key, wv.value, wv.timestamp_micros, window)
                )
            else:
                kept.append(window)
        return wv._replace(windows=tuple(kept)) if kept else None

    def _process_single(self, call: _Call, window, wv: WindowedValue, gc_time: int) -> None:
        """``_process_elements`` for one element in one window that does not merge, the
        common case of a record-at-a-time source, kept lean."""
        context = self._process_element(call, window, wv, gc_time)
        if context is None:
            return
        if self.trigger.should_fire(context):
            self._emit(call, window, call.state.windows[window])
        self._note_quiet(call.state, window, context, gc_time)

    def _process_elements(self, call: _Call, values: list, quiet: dict) -> None:
        windows = list(dict.fromkeys(w for wv in values for w in wv.windows))
        merged_into = self._merge(call, windows) if self.is_merging else None
        targets = (
            windows
            if merged_into is None
            else list(dict.fromkeys(merged_into.get(w, w) for w in windows))
        )
        states = call.state.windows
        to_consider = [w for w in targets if w not in states or not states[w].closed]
        for wv in values:
            if merged_into is None:
                if len(wv.windows) == 1:
                    window = wv.windows[0]
                    if not self._absorb(call, window, wv.value, wv.timestamp_micros):
                        self._process_counted(call, window, wv, quiet)
                    continue
                element_windows = dict.fromkeys(wv.windows)
            else:
                element_windows = dict.fromkeys(merged_into.get(w, w) for w in wv.windows)
            for window in element_windows:
                self._process_element(call, window, wv, self._gc_time(window))
        for window in to_consider:
            window_state = states.get(window)
            if (
                window_state is not None
                and not window_state.closed
                and self.trigger.should_fire(self._context(call.state, window, window_state))
            ):
                self._emit(call, window, window_state)

    def _process_counted(self, call: _Call, window, wv: WindowedValue, quiet: dict) -> None:
        """``_process_element`` for an element of a bundle in one window that does not merge;
        then, unless the window's trigger is ready or was found not quiet before in the bundle,
        notes how many more of the bundle's elements need no trigger call (``_absorb``)."""
        gc_time = self._gc_time(window)
        context = self._process_element(call, window, wv, gc_time)
        if context is None or quiet.get(window) is False or self.trigger.should_fire(context):
            return
        quiet[window] = self._note_quiet(call.state, window, context, gc_time)

    def _note_quiet(self, state: KeyState, window, context, gc_time: int) -> bool:
        """Keeps with the window how many more elements its trigger takes without a call, from
        its ``context`` after an element (``TriggerRunner.quiet``); whether any. The element's
        holds settle the window's only if no pane released them since; else the next element
        absorbed places them anew, and settles them."""
        budget, counters = self.trigger.quiet(context)
        if budget:
            window_state = state.windows[window]
            settled = self.holds_settle and window_state.holds.earliest() is not None
            window_state.quiet = QuietRun(state.epoch, budget, counters, gc_time, settled)
        return bool(budget)

    def _absorb(self, call: _Call, window, value, timestamp: int) -> bool:
        """Adds an element of a bundle to a window whose trigger is known to stay quiet for it
        (``QuietRun``) as ``_process_element`` would, without calling the trigger; False,
        changing nothing, when it is not known to. ``absorb_run`` does the same for runs of
        lone elements in one tight loop, the batch path's busiest."""
        state = call.state
        window_state = state.windows.get(window)
        if window_state is None:
            return False
        quiet = window_state.quiet
        if quiet is None or quiet.budget < 1 or quiet.epoch != state.epoch:
            return False
        quiet.budget -= 1
        state.arrivals += 1
        window_state.contents = self.contents.add(
            window_state.contents, value, timestamp, state.arrivals
        )
        _count_absorbed(window_state, quiet.counters)
        if not quiet.holds_settled:
            self._add_holds(call, window_state, window, timestamp, quiet.gc_time)
            quiet.holds_settled = self.holds_settle
        return True

    def _process_element(self, call: _Call, window, wv: WindowedValue, gc_time: int):
        """Adds one element to one window; returns the trigger context it used (None when the
        window had closed and the element was dropped)."""
        state = call.state
        window_state = state.windows.get(window)
        if window_state is None:
            window_state = state.windows[window] = WindowState(self.contents.create())
            state.timers.set(window, gc_time, EVENT_TIME)  # Beam's scheduleGarbageCollectionTimer
        elif window_state.closed:
            call.counters.dropped_closed += 1
            return None
        elif self.is_merging:  # a merged window has no timer of its own yet
            state.timers.set(window, gc_time, EVENT_TIME)
        window_state.quiet = None
        self._add_holds(call, window_state, window, wv.timestamp_micros, gc_time)
        window_state.has_new_elements = True
        state.arrivals += 1
        window_state.contents = self.contents.add(
            window_state.contents, wv.value, wv.timestamp_micros, state.arrivals
        )
        window_state.size += 1
        window_state.unfired += 1
        context = self._context(
            state, window, window_state, element=wv.value, timestamp=wv.timestamp_micros
        )
        self.trigger.on_element(context)
        return context

    def _add_holds(
        self, call: _Call, window_state: WindowState, window, timestamp: int, gc_time: int
    ) -> None:
        state = call.state
        hold = hold_rules.add_holds(
            window_state.holds,
            self.combiner,
            window,
            timestamp,
            gc_time,
            state.input_watermark,
            call.output_watermark,
        )
        if hold is None or not state.hold_known:
            return
        if self.combiner == TimestampCombiner.OUTPUT_AT_LATEST:
            state.hold_known = False  # a window's element hold may have moved later
        elif state.earliest_hold is None or hold < state.earliest_hold:
            state.earliest_hold = hold

    def _merge(self, call: _Call, windows: list) -> dict:
        """Merges this bundle's new windows with the active ones; returns window -> result."""
        states = call.state.windows
        active = [w for w, s in states.items() if not s.closed]
        new = [w for w in windows if w not in states or states[w].closed]
        merged_into = {}
        for sources, result in merge_windows(self.window_fn, active, new):
            for window in sources:
                merged_into[window] = result
            self._merge_state(call, [w for w in sources if w in active], result)
        return merged_into

    def _merge_state(self, call: _Call, active_sources: list, result) -> None:
        state = call.state
        sources = [state.windows[w] for w in active_sources]
        prior = state.windows.get(result) if result in active_sources else None
        merged = WindowState(
            self.contents.merge([s.contents for s in sources])
            if sources
            else self.contents.create()
        )
        state.hold_known = False
        merged.holds = hold_rules.merge_holds(
            [s.holds for s in sources],
            self.combiner,
            result,
            self._gc_time(result),
            state.input_watermark,
            call.output_watermark,
        )
        merged.has_new_elements = any(s.has_new_elements for s in sources)
        merged.size = sum(s.size for s in sources)
        merged.unfired = sum(s.unfired for s in sources)
        merged.pane = prior.pane if prior is not None else None
        merged.trigger = TriggerState(finished=set(prior.trigger.finished) if prior else set())
        for window in active_sources:
            if window != result:
                state.timers.delete_window(window)
                del state.windows[window]
        state.windows[result] = merged
        if sources:
            self.trigger.on_merge(
                self._context(state, result, merged, merging=tuple(s.trigger for s in sources))
            )

    # -- timers ---------------------------------------------------------------------------------

    def _gc_time(self, window) -> int:
        return garbage_collection_time(window.max_timestamp_micros, self.lateness)

    def _advance(self, state: KeyState, domain: str, clock: int, counters: Counters) -> list:
        """Sets a clock and fires the timers it passes. Beam (``ReduceFnRunner.onTimers``):
        each window with a due timer is activated once, at the new clock. Flink
        (``WindowOperator.onEventTime``): each timer fires on its own, in time order, with the
        clock just past it, so a jump over several periodic timers fires each of them."""
        state.epoch += 1
        due = state.timers.next_time(domain)
        if due is None or due >= clock:
            _set_clock(state, domain, clock)
            return []
        call = _Call(state, MIN_MICROS, counters)
        if not self.flink:
            _set_clock(state, domain, clock)
            while due_timers := state.timers.pop_all_due(domain, clock):
                self._activate(call, domain, due_timers)
            return call.emissions
        at_once = []
        while (timer := state.timers.pop_due(domain, clock)) is not None:
            if clock >= MAX_MICROS and timer[0].max_timestamp_micros >= GLOBAL_WINDOW_MAX_MICROS:
                # A window that ends with time: its periodic timers would never run out before
                # +inf (nor do Flink's), so the end of time passes them at once.
                at_once.append(timer)
                continue
            _set_clock(state, domain, timer[1] + 1)
            self._activate(call, domain, [timer])
        _set_clock(state, domain, clock)
        if at_once:
            self._activate(call, domain, at_once)
        return call.emissions

    def _activate(self, call: _Call, domain: str, due_timers: list) -> None:
        """Activates once each window of ``due_timers`` — ``(window, time)``, earliest first —
        as Beam's ``WindowActivation``: garbage collection once the watermark is past the
        window's GC time, else a firing if its trigger is ready. Panes are judged against the
        output watermark after the advance: the clock's, held back by the holds and, in event
        time, by the timers being fired (a firing timer holds Beam Java's output watermark
        until it is done)."""
        state = call.state
        call.output_watermark = held_back(
            due_timers[0][1] if domain == EVENT_TIME else state.input_watermark,
            self.earliest_hold(state),
        )
        for window in dict.fromkeys(window for window, _ in due_timers):
            window_state = state.windows.get(window)
            if window_state is None:
                continue
            if domain == EVENT_TIME and state.input_watermark > self._gc_time(window):
                self._garbage_collect(call, window, window_state)
            elif not window_state.closed and self.trigger.should_fire(
                self._context(state, window, window_state)
            ):
                self._emit(call, window, window_state)

    def _garbage_collect(self, call: _Call, window, window_state: WindowState) -> None:
        """The window's last moment: Beam emits a final pane, Flink fires if its trigger says
        so and purges the rest."""
        state = call.state
        if not window_state.closed:
            if not self.flink:
                self._on_trigger(call, window, window_state, is_final=True)
            else:
                if self.trigger.should_fire(self._context(state, window, window_state)):
                    self._emit(call, window, window_state, final=True)
                call.counters.purged_unfired += window_state.unfired
        state.timers.delete_window(window)
        del state.windows[window]
        state.hold_known = False

    # -- firing ---------------------------------------------------------------------------------

    def _emit(self, call: _Call, window, window_state: WindowState, final: bool = False) -> None:
        """The trigger is ready: fire it, emit the pane (the window's last if the trigger
        finished or the window is being cleaned up), and discard or close as it implies."""
        window_state.quiet = None
        self.trigger.on_fire(self._context(call.state, window, window_state))
        finished = self.trigger.is_closed(window_state.trigger)
        self._on_trigger(call, window, window_state, finished or final)
        window_state.has_new_elements = False
        if finished or self.discarding:
            window_state.contents, window_state.size = self.contents.create(), 0
        if finished:
            # Closed until garbage collection: later elements for it are dropped.
            self.trigger.clear(self._context(call.state, window, window_state))
            window_state.closed, window_state.pane = True, None

    def _on_trigger(self, call: _Call, window, window_state: WindowState, is_final: bool) -> None:
        state = call.state
        output_timestamp = hold_rules.extract_and_release(window_state.holds, window)
        state.hold_known = False
        pane = next_pane(
            window_state.pane,
            window.max_timestamp_micros,
            state.input_watermark,
            call.output_watermark,
            is_final,
        )
        if not self._need_to_emit(window_state, pane):
            return
        window_state.pane = pane
        kept = not (is_final or self.discarding)
        extract = self.contents.extract_kept if kept else self.contents.extract
        value = extract(window_state.contents)
        if self.evicting:
            window_state.size = len(window_state.contents)
        window_state.unfired = 0
        call.emissions.append(
            (MAIN, windowed_value(((state.key, value), output_timestamp, (window,), pane)))
        )

    def _need_to_emit(self, window_state: WindowState, pane: PaneInfo) -> bool:
        if self.flink:
            return window_state.size > 0  # Flink fires a window's contents, never an empty one
        return window_state.has_new_elements or pane.timing == PaneInfoTiming.ON_TIME

    def _context(
        self, state: KeyState, window, window_state: WindowState, **extra
    ) -> TriggerContext:
        return TriggerContext(
            window,
            window_state.trigger,
            state.input_watermark,
            state.processing_time,
            self.is_merging,
            state.timers,
            **extra,
        )


def late_output(key, value, timestamp: int, window) -> tuple:
    """The ``late`` output of an element dropped from ``window`` as too late: the element,
    keyed, in that window."""
    return LATE, windowed_value(((key, value), timestamp, (window,), PANE_NO_FIRING))


def _count_absorbed(window_state: WindowState, counters: tuple) -> None:
    """What an element absorbed into a quiet window changes besides its contents: its counts,
    and the values of the trigger's ``counters`` nodes (``QuietRun``)."""
    window_state.has_new_elements = True
    window_state.size += 1
    window_state.unfired += 1
    values = window_state.trigger.values
    for node in counters:
        values[node] = values.get(node, 0) + 1
