"""``AfterCount(n)`` (and Flink's ``CountTrigger``, compiled as ``Repeatedly(AfterCount(n))``):
ready once the pane holds ``n`` elements; merged windows' counts add up."""

from __future__ import annotations

from dataclasses import dataclass

from panes.windowing.machines.base import (
    Machine,
    finished_in_any_merging,
    merging_values,
    set_finished,
)


@dataclass(frozen=True)
class AfterCountMachine(Machine):
    count: int

    def on_element(self, node, c):
        c.state.values[node.index] = c.state.values.get(node.index, 0) + 1

    def on_merge(self, node, c):
        if finished_in_any_merging(node, c):
            # Enough elements already arrived in some merged window: done for good.
            set_finished(node, c)
            c.state.values.pop(node.index, None)
            return
        c.state.values[node.index] = sum(merging_values(node, c))

    def should_fire(self, node, c):
        return c.state.values.get(node.index, 0) >= self.count

    def on_fire(self, node, c):
        c.state.values.pop(node.index, None)
        set_finished(node, c)

    def quiet(self, node, c):
        return max(0, self.count - c.state.values.get(node.index, 0) - 1), (node.index,)
