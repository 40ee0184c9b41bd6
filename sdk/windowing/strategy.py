"""How a PCollection is windowed and when its groupings emit panes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple, Optional

from panes.evictor import CountEvictor, Evictor
from panes.timestamp import Duration
from panes.trigger import (
    AccumulationMode, CountTrigger, DefaultTrigger, PurgingTrigger, Trigger, is_flink_family,
)
from panes.window import CountWindows, GlobalWindows, TimestampCombiner, WindowFn


@dataclass(frozen=True)
class WindowingStrategy:
    """Window function, trigger, accumulation mode, allowed lateness, timestamp combiner and
    (Flink) evictor."""

    window_fn: WindowFn = field(default_factory=GlobalWindows)
    trigger: Trigger = field(default_factory=DefaultTrigger)
    accumulation_mode: AccumulationMode = AccumulationMode.DISCARDING
    allowed_lateness: Duration = Duration(0)
    timestamp_combiner: TimestampCombiner = TimestampCombiner.OUTPUT_AT_EOW
    evictor: Optional[Evictor] = None

    def __post_init__(self):
        object.__setattr__(self, "allowed_lateness", Duration.of(self.allowed_lateness))

    def is_default(self) -> bool:
        return self == WindowingStrategy()


class EffectiveWindowing(NamedTuple):
    """A strategy as the windowing engine runs it, with what it implies made explicit.

    ``flink``: the trigger follows Flink's ``WindowOperator`` — evaluated after each element
    (not each bundle), each timer firing on its own, a window's unfired contents purged
    silently at clean-up — instead of Beam's ``ReduceFnRunner``, which emits them in a final
    pane.
    """

    trigger: Trigger
    evictor: Optional[Evictor]
    accumulation_mode: AccumulationMode
    flink: bool


def effective_windowing(strategy: WindowingStrategy) -> EffectiveWindowing:
    """Resolves count windows' implied trigger and evictor and the trigger family's rules.

    A Flink-family trigger decides its own accumulation (discarding iff its root is a
    ``PurgingTrigger``); a Beam-family trigger uses the strategy's accumulation mode.
    """
    trigger, evictor = strategy.trigger, strategy.evictor
    window_fn = strategy.window_fn
    if isinstance(window_fn, CountWindows) and isinstance(trigger, DefaultTrigger):
        if window_fn.slide is None:
            trigger = PurgingTrigger(CountTrigger(window_fn.size))
        else:
            trigger = CountTrigger(window_fn.slide)
            evictor = evictor if evictor is not None else CountEvictor(window_fn.size)
    if is_flink_family(trigger):
        mode = (AccumulationMode.DISCARDING if isinstance(trigger, PurgingTrigger)
                else AccumulationMode.ACCUMULATING)
        return EffectiveWindowing(trigger, evictor, mode, True)
    return EffectiveWindowing(trigger, evictor, strategy.accumulation_mode, False)
