"""Delay from the first element: Beam's ``AfterProcessingTime(delay)`` (processing time) and
the seeds' ``afterFirstElement(delay)`` (either time domain, compiled under ``Repeatedly``).

The target time is fixed by the pane's first element: processing time now + delay, or (event
time) the element's timestamp + delay. Merged windows take the earliest target."""

from __future__ import annotations

from dataclasses import dataclass

from panes.windowing.machines.base import (
    ALWAYS_QUIET,
    NOT_QUIET,
    Machine,
    is_finished,
    merging_values,
    set_finished,
)
from panes.windowing.timers import EVENT_TIME


@dataclass(frozen=True)
class AfterFirstElementMachine(Machine):
    domain: str
    delay: int

    def on_element(self, node, c):
        if node.index in c.state.values:
            return
        start = c.timestamp if self.domain == EVENT_TIME else c.processing_time
        target = start + self.delay
        c.state.values[node.index] = target
        c.set_timer(target, self.domain)

    def on_merge(self, node, c):
        if is_finished(node, c):
            c.state.values.pop(node.index, None)
            return
        targets = merging_values(node, c)
        if targets:
            c.state.values[node.index] = min(targets)
            c.set_timer(min(targets), self.domain)

    def should_fire(self, node, c):
        target = c.state.values.get(node.index)
        return target is not None and c.clock(self.domain) > target

    def on_fire(self, node, c):
        c.state.values.pop(node.index, None)
        set_finished(node, c)

    def quiet(self, node, c):
        # Once the target is set, elements change nothing until the clock passes it.
        target = c.state.values.get(node.index)
        return NOT_QUIET if target is None or c.clock(self.domain) > target else ALWAYS_QUIET
