"""Windowing in the IR: window functions, evictors and the strategy a collection carries (Beam's
``WindowingStrategy`` and ``standard_window_fns.proto``), as plain data in int64 µs.

``panes.window``, ``panes.trigger`` and ``panes.evictor`` are the API; their objects lower to
these when a pipeline is compiled (``panes.windowing.window_fn_kinds``, ``trigger_kinds``,
``evicting``). A user's own ``WindowFn`` subclass and user functions stay pickled.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Annotated

from panes.ir.data import AtLeast, Below, Count, Duration, Family, Pickled, PositiveDuration
from panes.ir.triggers import Default, Trigger


class AccumulationMode(enum.Enum):
    """Whether a pane repeats the elements of earlier panes of its window."""

    DISCARDING = "discarding"
    ACCUMULATING = "accumulating"


class TimestampCombiner(enum.Enum):
    """How the output timestamp of a pane is derived from its inputs' timestamps (Beam's
    ``OutputTime``)."""

    OUTPUT_AT_EOW = "end_of_window"
    OUTPUT_AT_EARLIEST = "earliest"
    OUTPUT_AT_LATEST = "latest"


# Beam Python's deprecated output time from WindowFn.get_transformed_output_time: a name Beam
# code may mention, which no strategy takes (``Windowing`` refuses it, saying so).
EARLIEST_TRANSFORMED = "TimestampCombiner.OUTPUT_AT_EARLIEST_TRANSFORMED"
TimestampCombiner.OUTPUT_AT_EARLIEST_TRANSFORMED = EARLIEST_TRANSFORMED  # type: ignore[attr-defined]


# -- window functions ---------------------------------------------------------------------------


class WindowFn(Family):
    """Base of the window functions."""

    FAMILY = "window function"


@dataclass(frozen=True)
class GlobalWindows(WindowFn):
    KIND = "global_windows"


@dataclass(frozen=True)
class FixedWindows(WindowFn):
    KIND = "fixed_windows"

    size: PositiveDuration
    offset: Annotated[int, AtLeast(0), Below("size")] = 0


@dataclass(frozen=True)
class SlidingWindows(WindowFn):
    KIND = "sliding_windows"

    size: PositiveDuration
    period: PositiveDuration
    offset: Annotated[int, AtLeast(0), Below("period")] = 0


@dataclass(frozen=True)
class Sessions(WindowFn):
    KIND = "session_windows"

    gap_size: PositiveDuration


@dataclass(frozen=True)
class CountWindows(WindowFn):
    """Storm's and Flink's count windows: ``size`` elements, every ``slide`` (None: tumbling)."""

    KIND = "count_windows"

    size: Count
    slide: Count | None = None


@dataclass(frozen=True)
class CustomWindowFn(WindowFn):
    """A user's own ``WindowFn`` subclass, pickled."""

    KIND = "custom"

    name: str  # the class's qualified name, for display
    fn: Pickled


# -- evictors -----------------------------------------------------------------------------------


class Evictor(Family):
    """Base of the evictors (Flink): ``evict_before`` the window function, ``evict_after`` it."""

    FAMILY = "evictor"


@dataclass(frozen=True)
class CountEvictor(Evictor):
    KIND = "count"

    max_count: Count
    evict_before: bool = True
    evict_after: bool = False


@dataclass(frozen=True)
class TimeEvictor(Evictor):
    KIND = "time"

    window_size: Duration
    evict_before: bool = True
    evict_after: bool = False


@dataclass(frozen=True)
class DeltaEvictor(Evictor):
    KIND = "delta"

    threshold: float
    fn: Pickled
    evict_before: bool = True
    evict_after: bool = False


# -- the strategy -------------------------------------------------------------------------------


@dataclass(frozen=True)
class WindowingStrategy:
    """How a collection is windowed and when its groupings emit panes."""

    window_fn: WindowFn = field(default_factory=GlobalWindows)
    trigger: Trigger = field(default_factory=Default)
    accumulation_mode: AccumulationMode = AccumulationMode.DISCARDING
    allowed_lateness: Duration = 0
    timestamp_combiner: TimestampCombiner = TimestampCombiner.OUTPUT_AT_EOW
    evictor: Evictor | None = None
