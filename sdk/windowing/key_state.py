"""What the windowing engine keeps for one key: plain data, no compiled objects or closures, so
a runner may pickle it between steps (the Spark streaming runner keeps it in Spark's state
store). ``pickle.dumps(state)`` works whenever the user's values and accumulators pickle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from panes.timestamp import MIN_MICROS
from panes.window import PaneInfo
from panes.windowing.holds import Holds
from panes.windowing.machines.base import TriggerState
from panes.windowing.positional import pickled_by_position
from panes.windowing.timers import TimerQueue


@pickled_by_position
@dataclass(slots=True)
class QuietRun:
    """The next ``budget`` elements of a window need no trigger call while the clocks stay as
    they were at ``epoch``: each only adds one to the trigger values of ``counters`` (and
    changes no hold when ``holds_settled``)."""

    epoch: int
    budget: float
    counters: tuple
    gc_time: int
    holds_settled: bool


@pickled_by_position
@dataclass
class WindowState:
    """Everything kept for one window of one key. A closed window (its trigger finished) keeps
    only ``closed`` until garbage collection, so late elements for it are recognised."""

    contents: Any
    trigger: TriggerState = field(default_factory=TriggerState)
    holds: Holds = field(default_factory=Holds)
    pane: PaneInfo | None = None  # the last pane emitted
    has_new_elements: bool = False  # since the last pane (Beam's NonEmptyPanes)
    size: int = 0  # elements in ``contents``
    unfired: int = 0  # elements that no pane has included yet
    closed: bool = False
    quiet: QuietRun | None = None  # set after an element, spent by the elements that follow it


@pickled_by_position
@dataclass
class KeyState:
    """One key's windows, timers and clocks.

    ``arrivals`` numbers the key's elements (an evictor's buffer keeps arrival order);
    ``epoch`` counts clock advances, which end every ``QuietRun``; ``earliest_hold`` caches the
    earliest hold of any window while ``hold_known``.
    """

    key: Any
    input_watermark: int = MIN_MICROS
    processing_time: int = MIN_MICROS
    windows: dict = field(default_factory=dict)  # window -> WindowState
    timers: TimerQueue = field(default_factory=TimerQueue)
    arrivals: int = 0
    epoch: int = 0
    earliest_hold: int | None = None
    hold_known: bool = True
