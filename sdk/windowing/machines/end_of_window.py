"""Machines that fire when a clock passes the end of the window: Beam's default trigger,
``AfterWatermark`` (alone, or with early and late firings), ``Never``, and Flink's
``EventTimeTrigger``/``ProcessingTimeTrigger`` (the same machines in either time domain)."""

from __future__ import annotations

from dataclasses import dataclass

from panes.windowing.machines.base import (
    ALWAYS_QUIET,
    NOT_QUIET,
    Machine,
    clear,
    element,
    finished_in_all_merging,
    fire,
    is_finished,
    merge,
    ready,
    reset_tree,
    set_finished,
)
from panes.windowing.timers import EVENT_TIME

EARLY, LATE = 0, 1


def _wake_at_end_of_window(c, domain: str) -> None:
    if not c.end_of_window_reached(domain):
        c.set_timer(c.window.max_timestamp_micros, domain)


def _quiet_until_end_of_window(c, domain: str) -> tuple:
    # The end-of-window timer is set already, so elements change nothing until the clock passes.
    return NOT_QUIET if c.end_of_window_reached(domain) else ALWAYS_QUIET


class DefaultMachine(Machine):
    """Beam's default: ready whenever the watermark is past the end of the window; never
    finishes (so every late bundle fires)."""

    def on_element(self, node, c):
        _wake_at_end_of_window(c, EVENT_TIME)

    def on_merge(self, node, c):
        _wake_at_end_of_window(c, EVENT_TIME)

    def should_fire(self, node, c):
        return c.end_of_window_reached()

    def on_fire(self, node, c):
        pass

    def quiet(self, node, c):
        return _quiet_until_end_of_window(c, EVENT_TIME)


class NeverMachine(Machine):
    """Never ready; the window still emits its final pane at garbage collection (Beam)."""

    def on_element(self, node, c):
        pass

    def on_merge(self, node, c):
        pass

    def should_fire(self, node, c):
        return False

    def on_fire(self, node, c):
        pass

    def quiet(self, node, c):
        return ALWAYS_QUIET


@dataclass(frozen=True)
class EndOfWindowMachine(Machine):
    """``AfterWatermark()``: fires once when the clock of ``domain`` passes the window's end."""

    domain: str = EVENT_TIME

    def on_element(self, node, c):
        _wake_at_end_of_window(c, self.domain)

    def on_merge(self, node, c):
        # Finished only if finished in every merged window and the merged window's end has
        # passed: otherwise some merged elements have not had their on-time firing yet.
        done = finished_in_all_merging(node, c) and c.end_of_window_reached(self.domain)
        set_finished(node, c, done)
        if not done:
            _wake_at_end_of_window(c, self.domain)

    def should_fire(self, node, c):
        return c.end_of_window_reached(self.domain)

    def on_fire(self, node, c):
        set_finished(node, c)

    def quiet(self, node, c):
        return _quiet_until_end_of_window(c, self.domain)


@dataclass(frozen=True)
class EarlyAndLateMachine(Machine):
    """``AfterWatermark(early=, late=)``: children ``(early, late)`` (late optional), both
    implicitly repeated — Beam Python wraps them in ``Repeatedly``, so a firing restarts the
    child's whole subtree (Java's ``RepeatedlyStateMachine.onFire``). Before the end of the
    window the early child fires; the end of the window fires once (finishing the early phase);
    afterwards the late child fires. Without a late child the machine finishes at the end of
    the window."""

    domain: str = EVENT_TIME

    def on_element(self, node, c):
        _wake_at_end_of_window(c, self.domain)
        if not c.is_merging:
            for child in node.children:  # the first that has not finished
                if not is_finished(child, c):
                    element(child, c)
                    break
        else:
            # Merging may revive the early phase, so every child keeps its state up to date.
            for child in node.children:
                element(child, c)

    def on_merge(self, node, c):
        early = node.children[EARLY]
        if not finished_in_all_merging(early, c) or not c.end_of_window_reached(self.domain):
            merge(early, c)
            set_finished(early, c, False)
            if len(node.children) > LATE:
                late = node.children[LATE]
                set_finished(late, c, False)
                clear(late, c)
            _wake_at_end_of_window(c, self.domain)
        else:
            set_finished(early, c)
            if len(node.children) > LATE:
                merge(node.children[LATE], c)

    def should_fire(self, node, c):
        if not is_finished(node.children[EARLY], c):
            return ready(node.children[EARLY], c) or c.end_of_window_reached(self.domain)
        if len(node.children) > LATE:
            return ready(node.children[LATE], c)
        return False

    def on_fire(self, node, c):
        early = node.children[EARLY]
        if not is_finished(early, c):
            self._fire_early_or_on_time(node, early, c)
        elif len(node.children) > LATE:
            late = node.children[LATE]
            fire(late, c)
            reset_tree(late, c)
        else:
            set_finished(node, c)

    def _fire_early_or_on_time(self, node, early, c):
        if not c.end_of_window_reached(self.domain):
            fire(early, c)
            reset_tree(early, c)
            return
        if ready(early, c):
            fire(early, c)
        set_finished(early, c)
        clear(early, c)
        if len(node.children) > LATE:
            clear(node.children[LATE], c)
        else:
            set_finished(node, c)

    def quiet(self, node, c):
        early = node.children[EARLY]
        if c.is_merging:
            return NOT_QUIET
        if not is_finished(early, c):
            if c.end_of_window_reached(self.domain):
                return NOT_QUIET
            return early.machine.quiet(early, c)
        if len(node.children) > LATE and not is_finished(node.children[LATE], c):
            late = node.children[LATE]
            return late.machine.quiet(late, c)
        return NOT_QUIET
