"""Triggers built from triggers (Beam Java semantics): ``Repeatedly``, ``AfterAll``,
``AfterAny`` (Java's ``AfterFirst``), ``AfterEach`` and ``OrFinally``.

``AfterAll`` and ``AfterAny`` fire once and finish; ``Repeatedly`` restarts its child each time
it finishes; ``OrFinally`` finishes when its ``finally`` child fires."""

from __future__ import annotations

from panes.windowing.machines.base import (
    Machine,
    clear,
    element,
    fire,
    first_unfinished,
    is_finished,
    merge,
    quiet_together,
    ready,
    reset_tree,
    set_finished,
)


class RepeatedlyMachine(Machine):
    def on_element(self, node, c):
        element(node.children[0], c)

    def on_merge(self, node, c):
        merge(node.children[0], c)

    def should_fire(self, node, c):
        return ready(node.children[0], c)

    def on_fire(self, node, c):
        child = node.children[0]
        fire(child, c)
        if is_finished(child, c):
            reset_tree(child, c)

    def quiet(self, node, c):
        child = node.children[0]
        return child.machine.quiet(child, c)


class AfterAllMachine(Machine):
    def on_element(self, node, c):
        for child in node.children:
            if not is_finished(child, c):
                element(child, c)

    def on_merge(self, node, c):
        for child in node.children:
            merge(child, c)
        set_finished(node, c, all(is_finished(child, c) for child in node.children))

    def should_fire(self, node, c):
        return all(is_finished(child, c) or ready(child, c) for child in node.children)

    def on_fire(self, node, c):
        for child in node.children:
            fire(child, c)
        set_finished(node, c)


class AfterAnyMachine(Machine):
    def on_element(self, node, c):
        for child in node.children:
            element(child, c)

    def on_merge(self, node, c):
        for child in node.children:
            merge(child, c)
        set_finished(node, c, any(is_finished(child, c) for child in node.children))

    def should_fire(self, node, c):
        return any(ready(child, c) for child in node.children)

    def on_fire(self, node, c):
        for child in node.children:
            if ready(child, c):
                fire(child, c)
            else:
                # Whatever pane the child was tracking has just been emitted.
                clear(child, c)
        set_finished(node, c)

    def quiet(self, node, c):
        return quiet_together(node, c)


class AfterEachMachine(Machine):
    def on_element(self, node, c):
        if not c.is_merging:
            child = first_unfinished(node, c)
            if child is not None:
                element(child, c)
            return
        # A merge may revive an earlier child, so all of them keep their state up to date.
        for child in node.children:
            element(child, c)

    def on_merge(self, node, c):
        earlier_all_finished = True
        for child in node.children:
            if earlier_all_finished:
                merge(child, c)
                earlier_all_finished = is_finished(child, c)
            else:
                clear(child, c)
        set_finished(node, c, first_unfinished(node, c) is None)

    def should_fire(self, node, c):
        return ready(first_unfinished(node, c), c)

    def on_fire(self, node, c):
        fire(first_unfinished(node, c), c)
        if c.is_merging:
            for child in node.children:
                clear(child, c)
        set_finished(node, c, first_unfinished(node, c) is None)


ACTUAL, UNTIL = 0, 1


class OrFinallyMachine(Machine):
    def on_element(self, node, c):
        for child in node.children:
            element(child, c)

    def on_merge(self, node, c):
        for child in node.children:
            merge(child, c)
        set_finished(node, c, any(is_finished(child, c) for child in node.children))

    def should_fire(self, node, c):
        return ready(node.children[ACTUAL], c) or ready(node.children[UNTIL], c)

    def on_fire(self, node, c):
        actual, until = node.children
        if ready(until, c):
            fire(until, c)
            clear(actual, c)
        else:
            # The until child keeps counting across the actual child's firings.
            fire(actual, c)
        set_finished(node, c, any(is_finished(child, c) for child in node.children))

    def quiet(self, node, c):
        return quiet_together(node, c)
