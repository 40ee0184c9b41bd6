"""What every trigger state machine works with: its node in the compiled tree, the window's
trigger state (kept outside the machines), and the context of one call.

A machine is stateless configuration; the interpreter calls, per window, ``on_element`` (an
element arrived), ``on_merge`` (windows merged into this one), ``should_fire`` (may a pane be
emitted now?), ``on_fire`` (a pane was emitted) and ``clear`` (forget state, keep finished
bits), as Beam's Java ``TriggerStateMachine`` does. Node state is keyed by the node's index.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from panes.windowing.positional import pickled_by_position
from panes.windowing.timers import EVENT_TIME


@pickled_by_position
@dataclass
class TriggerState:
    """A window's trigger state: a value per node index, and which nodes have finished."""

    values: dict = field(default_factory=dict)
    finished: set = field(default_factory=set)


@dataclass(frozen=True, eq=False)
class Node:
    """One trigger in the compiled tree: its machine, children and pre-order index range."""

    index: int
    machine: Machine
    children: tuple
    end: int  # first index after this subtree


@dataclass(slots=True)
class TriggerContext:
    """One call's view: the window, its trigger state, the clocks, and the key's timers.

    ``merging`` (in ``on_merge``) holds the states of the windows being merged; ``element``
    and ``timestamp`` (in ``on_element``) describe the arriving element.
    """

    window: Any
    state: TriggerState
    event_time: int
    processing_time: int
    is_merging: bool
    timers: Any  # the key's TimerQueue
    merging: tuple = ()
    element: Any = None
    timestamp: int | None = None

    def set_timer(self, time: int, domain: str) -> None:
        self.timers.set(self.window, time, domain)

    def clock(self, domain: str) -> int:
        return self.event_time if domain == EVENT_TIME else self.processing_time

    def end_of_window_reached(self, domain: str = EVENT_TIME) -> bool:
        return self.clock(domain) > self.window.max_timestamp_micros


class Machine:
    """Base of the state machines; ``clear`` forgets the node's value and its children's."""

    def on_element(self, node: Node, c: TriggerContext) -> None:
        raise NotImplementedError

    def on_merge(self, node: Node, c: TriggerContext) -> None:
        raise NotImplementedError

    def should_fire(self, node: Node, c: TriggerContext) -> bool:
        raise NotImplementedError

    def on_fire(self, node: Node, c: TriggerContext) -> None:
        raise NotImplementedError

    def clear(self, node: Node, c: TriggerContext) -> None:
        c.state.values.pop(node.index, None)
        for child in node.children:
            child.machine.clear(child, c)

    def quiet(self, node: Node, c: TriggerContext) -> tuple:
        """``(budget, counters)``: how many more elements the node takes, with the clocks where
        they are, staying not ready and with ``on_element`` doing nothing but add one to the
        values of the ``counters`` nodes. It may assume ``on_element`` already ran for the
        window at these clocks (the timers it sets are set). ``NOT_QUIET`` when unsure."""
        return NOT_QUIET


NOT_QUIET = (0, ())
ALWAYS_QUIET = (math.inf, ())


def quiet_together(node: Node, c: TriggerContext) -> tuple:
    """The quiet of a node that passes every element to all its children and is ready when
    any of them is."""
    budgets, counters = zip(*(child.machine.quiet(child, c) for child in node.children))
    return min(budgets), sum(counters, ())


# -- helpers the machines share ---------------------------------------------------------------


def is_finished(node: Node, c: TriggerContext) -> bool:
    return node.index in c.state.finished


def set_finished(node: Node, c: TriggerContext, finished: bool = True) -> None:
    if finished:
        c.state.finished.add(node.index)
    else:
        c.state.finished.discard(node.index)


def finished_in_all_merging(node: Node, c: TriggerContext) -> bool:
    return all(node.index in state.finished for state in c.merging)


def finished_in_any_merging(node: Node, c: TriggerContext) -> bool:
    return any(node.index in state.finished for state in c.merging)


def merging_values(node: Node, c: TriggerContext) -> list:
    """The node's values in the windows being merged (those that have one)."""
    return [state.values[node.index] for state in c.merging if node.index in state.values]


def reset_tree(node: Node, c: TriggerContext) -> None:
    """Un-finishes the whole subtree and clears its state (a repeat starts afresh)."""
    c.state.finished.difference_update(range(node.index, node.end))
    node.machine.clear(node, c)


def first_unfinished(node: Node, c: TriggerContext) -> Node | None:
    return next((child for child in node.children if not is_finished(child, c)), None)


# Shorthands for invoking a child's machine.


def element(node: Node, c: TriggerContext) -> None:
    node.machine.on_element(node, c)


def merge(node: Node, c: TriggerContext) -> None:
    node.machine.on_merge(node, c)


def ready(node: Node, c: TriggerContext) -> bool:
    return node.machine.should_fire(node, c)


def fire(node: Node, c: TriggerContext) -> None:
    node.machine.on_fire(node, c)


def clear(node: Node, c: TriggerContext) -> None:
    node.machine.clear(node, c)
