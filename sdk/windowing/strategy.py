"""A collection's windowing as the IR holds it (lowered from the API's ``Windowing``) and as the
engine runs it (``effective_windowing``)."""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

from panes.ir import triggers
from panes.ir.windowing import AccumulationMode, Evictor, WindowingStrategy
from panes.windowing import evicting, trigger_kinds, window_fn_kinds


def windowing_to_ir(windowing) -> WindowingStrategy:
    """The IR of an API ``Windowing`` (``panes.transforms.core.Windowing``)."""
    evictor = windowing.evictor
    return WindowingStrategy(
        window_fn_kinds.to_ir(windowing.window_fn),
        trigger_kinds.to_ir(windowing.trigger),
        windowing.accumulation_mode,
        windowing.allowed_lateness.micros,
        windowing.timestamp_combiner,
        None if evictor is None else evicting.to_ir(evictor),
    )


def downstream_windowing(windowing):
    """The API windowing of a grouping's output: its trigger's continuation."""
    continued = trigger_kinds.continuation(trigger_kinds.to_ir(windowing.trigger))
    return replace(windowing, trigger=trigger_kinds.from_ir(continued))


class EffectiveWindowing(NamedTuple):
    """A strategy as the windowing engine runs it, with what it implies made explicit.

    ``flink``: the trigger follows Flink's ``WindowOperator`` — evaluated after each element
    (not each bundle), each timer firing on its own, a window's unfired contents purged
    silently at clean-up — instead of Beam's ``ReduceFnRunner``, which emits them in a final
    pane.
    """

    trigger: triggers.Trigger
    evictor: Evictor | None
    accumulation_mode: AccumulationMode
    flink: bool


def effective_windowing(strategy: WindowingStrategy) -> EffectiveWindowing:
    """Resolves the trigger and evictor a window function implies for the default trigger
    (count windows) and the trigger family's rules: a Flink-family trigger decides its own
    accumulation (discarding iff its root purges), a Beam one uses the strategy's."""
    trigger, evictor = strategy.trigger, strategy.evictor
    implied = window_fn_kinds.kind_of(strategy.window_fn).implied
    if implied is not None and isinstance(trigger, triggers.Default):
        trigger, implied_evictor = implied(strategy.window_fn)
        evictor = evictor if evictor is not None else implied_evictor
    kind = trigger_kinds.kind_of(trigger)
    return EffectiveWindowing(
        trigger, evictor, kind.accumulation or strategy.accumulation_mode, kind.flink
    )
