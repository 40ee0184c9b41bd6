"""The one trigger interpreter: compiles an IR trigger into a tree of state machines and runs
it for a window, against trigger state kept outside it (Beam's ``TriggerStateMachineRunner``).

Each kind's machine comes from its entry in ``trigger_kinds``; Flink-family triggers compile
onto the same machines where their meaning coincides (``CountTrigger(n)`` is
``Repeatedly(AfterCount(n))``, ``All`` is ``Repeatedly(AfterAll)``...).
"""

from __future__ import annotations

from panes.windowing.machines.base import NOT_QUIET, Machine, Node, TriggerContext, TriggerState
from panes.windowing.trigger_kinds import machine

ROOT = 0


def compile_trigger(trigger) -> Node:
    """The machine tree of an IR trigger, nodes numbered in pre-order from 0 (the root). A
    kind's machine may name its children as triggers or as machines of their own."""
    counter = [0]

    def build(child) -> Node:
        index = counter[0]
        counter[0] += 1
        node_machine, children = (child, ()) if isinstance(child, Machine) else machine(child)
        built = tuple(build(grandchild) for grandchild in children)
        return Node(index, node_machine, built, counter[0])

    return build(trigger)


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
