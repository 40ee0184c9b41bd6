"""How a PCollection is windowed and when its groupings emit panes."""

from __future__ import annotations

from dataclasses import dataclass, field

from panes.timestamp import Duration
from panes.trigger import AccumulationMode, DefaultTrigger, Trigger
from panes.window import GlobalWindows, TimestampCombiner, WindowFn


@dataclass(frozen=True)
class WindowingStrategy:
    """Window function, trigger, accumulation mode, allowed lateness and timestamp combiner."""

    window_fn: WindowFn = field(default_factory=GlobalWindows)
    trigger: Trigger = field(default_factory=DefaultTrigger)
    accumulation_mode: AccumulationMode = AccumulationMode.DISCARDING
    allowed_lateness: Duration = Duration(0)
    timestamp_combiner: TimestampCombiner = TimestampCombiner.OUTPUT_AT_EOW

    def __post_init__(self):
        object.__setattr__(self, "allowed_lateness", Duration.of(self.allowed_lateness))

    def is_default(self) -> bool:
        return self == WindowingStrategy()
