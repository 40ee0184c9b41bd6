"""Flink triggers with no Beam counterpart: ``ContinuousEventTimeTrigger``,
``ContinuousProcessingTimeTrigger`` and ``DeltaTrigger``. They fire repeatedly, never finish."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from panes.timestamp import MAX_MICROS
from panes.windowing.machines.base import Machine, merging_values
from panes.windowing.timers import EVENT_TIME


@dataclass
class _Continuous:
    next_fire: int  # the next periodic firing time
    end_fired: bool = False  # (event time) the end-of-window firing happened
    late: bool = False  # (event time) a late element arrived since the last firing


@dataclass(frozen=True)
class ContinuousMachine(Machine):
    """Fires every ``interval`` of the ``domain`` clock, boundaries aligned to the epoch. In
    event time it also fires at the end of the window and for every late element; periodic
    firings are capped at the end of the window, as in Flink. A clock jump over several
    boundaries fires once (Flink would fire once per boundary)."""

    domain: str
    interval: int

    def _limit(self, c) -> int:
        return c.window.max_timestamp_micros if self.domain == EVENT_TIME else MAX_MICROS

    def _next_boundary(self, after: int) -> int:
        return after - after % self.interval + self.interval

    def on_element(self, node, c):
        state = c.state.values.get(node.index)
        if self.domain == EVENT_TIME and c.end_of_window_reached():
            if state is None:
                state = c.state.values[node.index] = _Continuous(self._limit(c), end_fired=True)
            state.late = True
            return
        if self.domain == EVENT_TIME:
            c.set_timer(c.window.max_timestamp_micros, EVENT_TIME)
        if state is None:
            start = c.timestamp if self.domain == EVENT_TIME else c.processing_time
            next_fire = min(self._next_boundary(start), self._limit(c))
            c.state.values[node.index] = _Continuous(next_fire)
            c.set_timer(next_fire, self.domain)

    def on_merge(self, node, c):
        states = merging_values(node, c)
        if not states:
            return
        merged = _Continuous(min(s.next_fire for s in states), late=any(s.late for s in states))
        c.state.values[node.index] = merged
        c.set_timer(merged.next_fire, self.domain)
        if self.domain == EVENT_TIME and not c.end_of_window_reached():
            c.set_timer(c.window.max_timestamp_micros, EVENT_TIME)

    def _periodic_due(self, state, c) -> bool:
        return state.next_fire < self._limit(c) and c.clock(self.domain) > state.next_fire

    def _end_due(self, state, c) -> bool:
        return self.domain == EVENT_TIME and c.end_of_window_reached() and not state.end_fired

    def should_fire(self, node, c):
        state = c.state.values.get(node.index)
        if state is None:
            return False
        return state.late or self._end_due(state, c) or self._periodic_due(state, c)

    def on_fire(self, node, c):
        state = c.state.values[node.index]
        state.late = False
        if self._end_due(state, c):
            state.end_fired = True
        if self._periodic_due(state, c):
            state.next_fire = min(self._next_boundary(c.clock(self.domain) - 1), self._limit(c))
            c.set_timer(state.next_fire, self.domain)


@dataclass
class _Delta:
    last: object  # the element of the last firing (the first element before any)
    ready: bool = False


@dataclass(frozen=True)
class DeltaMachine(Machine):
    """Ready when ``fn(last, element) > threshold`` for an arriving element, which then becomes
    the reference. Flink cannot merge it, and neither can panes (validation rejects it)."""

    threshold: float
    fn: Callable

    def on_element(self, node, c):
        state = c.state.values.get(node.index)
        if state is None:
            c.state.values[node.index] = _Delta(c.element)
        elif self.fn(state.last, c.element) > self.threshold:
            state.last = c.element
            state.ready = True

    def on_merge(self, node, c):
        raise ValueError("DeltaTrigger cannot be used with merging windows such as Sessions")

    def should_fire(self, node, c):
        state = c.state.values.get(node.index)
        return state is not None and state.ready

    def on_fire(self, node, c):
        c.state.values[node.index].ready = False
