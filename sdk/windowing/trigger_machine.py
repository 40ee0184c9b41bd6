"""The one trigger interpreter: compiles trigger data into a tree of state machines and runs
it for a window, against trigger state kept outside it (Beam's ``TriggerStateMachineRunner``).

Flink-family triggers compile onto the same machines where their meaning coincides
(``CountTrigger(n)`` is ``Repeatedly(AfterCount(n))``, ``All`` is ``Repeatedly(AfterAll)``...).
"""

from __future__ import annotations

from panes import trigger as t
from panes.windowing.machines.base import NOT_QUIET, Node, TriggerContext, TriggerState
from panes.windowing.machines.composite import (
    AfterAllMachine, AfterAnyMachine, AfterEachMachine, OrFinallyMachine, RepeatedlyMachine,
)
from panes.windowing.machines.counting import AfterCountMachine
from panes.windowing.machines.end_of_window import (
    DefaultMachine, EarlyAndLateMachine, EndOfWindowMachine, NeverMachine,
)
from panes.windowing.machines.first_element import AfterFirstElementMachine
from panes.windowing.machines.flink import ContinuousMachine, DeltaMachine
from panes.windowing.timers import EVENT_TIME, PROCESSING_TIME

ROOT = 0


def _after_watermark(spec: t.AfterWatermark):
    if spec.early is None and spec.late is None:
        return EndOfWindowMachine(EVENT_TIME), ()
    late = () if spec.late is None else (spec.late,)
    return EarlyAndLateMachine(EVENT_TIME), (spec.early or t.Never(), *late)


# How each trigger class becomes a machine and the trigger data of its children.
_MACHINES = {
    t.DefaultTrigger: lambda s: (DefaultMachine(), ()),
    t.Never: lambda s: (NeverMachine(), ()),
    t.AfterWatermark: _after_watermark,
    t.AfterCount: lambda s: (AfterCountMachine(s.count), ()),
    t.AfterProcessingTime: lambda s: (AfterFirstElementMachine(PROCESSING_TIME, s.delay.micros), ()),
    t.Repeatedly: lambda s: (RepeatedlyMachine(), (s.underlying,)),
    t.AfterAll: lambda s: (AfterAllMachine(), s.triggers),
    t.AfterAny: lambda s: (AfterAnyMachine(), s.triggers),
    t.AfterEach: lambda s: (AfterEachMachine(), s.triggers),
    t.OrFinally: lambda s: (OrFinallyMachine(), (s.trigger, s.finally_)),
    t.CountTrigger: lambda s: (RepeatedlyMachine(), (t.AfterCount(s.count),)),
    t.EventTimeTrigger: lambda s: (EarlyAndLateMachine(EVENT_TIME),
                                   (s.early or t.Never(), s.late or t.AfterCount(1))),
    t.ProcessingTimeTrigger: lambda s: (EarlyAndLateMachine(PROCESSING_TIME),
                                        (s.early or t.Never(), t.AfterCount(1))),
    t.EventTimeAfterFirstElement: lambda s: (
        RepeatedlyMachine(), (_FirstElement(EVENT_TIME, s.delay.micros),)),
    t.ProcessingTimeAfterFirstElement: lambda s: (
        RepeatedlyMachine(), (_FirstElement(PROCESSING_TIME, s.delay.micros),)),
    t.ContinuousEventTimeTrigger: lambda s: (ContinuousMachine(EVENT_TIME, s.interval.micros), ()),
    t.ContinuousProcessingTimeTrigger: lambda s: (
        ContinuousMachine(PROCESSING_TIME, s.interval.micros), ()),
    t.DeltaTrigger: lambda s: (DeltaMachine(s.threshold, s.fn), ()),
    t.All: lambda s: (RepeatedlyMachine(), (t.AfterAll(*s.triggers),)),
    t.Any: lambda s: (RepeatedlyMachine(), (t.AfterAny(*s.triggers),)),
}


class _FirstElement:
    """Internal trigger data for a non-repeating delay-from-first-element machine."""

    def __init__(self, domain: str, delay: int):
        self.domain, self.delay = domain, delay


def _machine_for(spec):
    if isinstance(spec, t.PurgingTrigger):
        # Purging decides accumulation at the root only (the parent's mode wins, FLINK-4407).
        return _machine_for(spec.trigger)
    if isinstance(spec, _FirstElement):
        return AfterFirstElementMachine(spec.domain, spec.delay), ()
    build = _MACHINES.get(type(spec))
    if build is None:
        raise TypeError(
            f"{spec!r} is not a panes trigger; custom triggers are not supported, compose the "
            f"built-in ones (Repeatedly, AfterAll, AfterAny, AfterEach, OrFinally, All, Any)")
    return build(spec)


def compile_trigger(spec) -> Node:
    """The machine tree of a trigger, nodes numbered in pre-order from 0 (the root)."""
    counter = [0]

    def build(child_spec) -> Node:
        index = counter[0]
        counter[0] += 1
        machine, child_specs = _machine_for(child_spec)
        children = tuple(build(child) for child in child_specs)
        return Node(index, machine, children, counter[0])

    return build(spec)


class TriggerRunner:
    """Runs a compiled trigger for windows; the root finishing closes the window."""

    def __init__(self, spec):
        self.root = compile_trigger(spec)

    def is_closed(self, state: TriggerState) -> bool:
        return ROOT in state.finished

    def on_element(self, c: TriggerContext) -> None:
        self.root.machine.on_element(self.root, c)

    def on_merge(self, c: TriggerContext) -> None:
        self.root.machine.on_merge(self.root, c)

    def should_fire(self, c: TriggerContext) -> bool:
        return not self.is_closed(c.state) and self.root.machine.should_fire(self.root, c)

    def on_fire(self, c: TriggerContext) -> None:
        self.root.machine.on_fire(self.root, c)

    def quiet(self, c: TriggerContext) -> tuple:
        """``(budget, counters)``: the elements the window takes before its trigger needs a
        call again (``Machine.quiet``); none once the trigger has finished."""
        return NOT_QUIET if self.is_closed(c.state) else self.root.machine.quiet(self.root, c)

    def clear(self, c: TriggerContext) -> None:
        """Forgets the window's trigger state but keeps its finished bits."""
        self.root.machine.clear(self.root, c)
