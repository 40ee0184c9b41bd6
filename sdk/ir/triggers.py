"""Triggers in the IR: Beam's (named as in ``beam_runner_api.proto``'s ``Trigger``) and the
seeds' Flink ones, as plain data in int64 µs.

``panes.trigger`` is the API; ``panes.windowing.trigger_kinds`` holds, per kind, how the API
object lowers to one of these and back, its state machine, whether it may finish, its
continuation and how it is shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from panes.ir.data import Count, Duration, Family, NonEmpty, Pickled, PositiveDuration


class Trigger(Family):
    """Base of the triggers."""

    FAMILY = "trigger"


Subtriggers = Annotated[tuple[Trigger, ...], NonEmpty()]


# -- Beam -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Default(Trigger):
    """``DefaultTrigger``: at the end of the window, then for every late bundle."""

    KIND = "default"


@dataclass(frozen=True)
class Never(Trigger):
    KIND = "never"


@dataclass(frozen=True)
class AfterEndOfWindow(Trigger):
    """``AfterWatermark(early=, late=)``."""

    KIND = "after_end_of_window"

    early: Trigger | None = None
    late: Trigger | None = None


@dataclass(frozen=True)
class ElementCount(Trigger):
    """``AfterCount(count)``."""

    KIND = "element_count"

    count: Count


@dataclass(frozen=True)
class AfterProcessingTime(Trigger):
    KIND = "after_processing_time"

    delay: Duration = 0


@dataclass(frozen=True)
class Repeat(Trigger):
    """``Repeatedly(subtrigger)``."""

    KIND = "repeat"

    subtrigger: Trigger


@dataclass(frozen=True)
class AfterAll(Trigger):
    KIND = "after_all"

    subtriggers: Subtriggers


@dataclass(frozen=True)
class AfterAny(Trigger):
    KIND = "after_any"

    subtriggers: Subtriggers


@dataclass(frozen=True)
class AfterEach(Trigger):
    KIND = "after_each"

    subtriggers: Subtriggers


@dataclass(frozen=True)
class OrFinally(Trigger):
    KIND = "or_finally"

    main: Trigger
    finally_: Trigger


# -- Flink ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CountTrigger(Trigger):
    KIND = "count_trigger"

    count: Count


@dataclass(frozen=True)
class EventTimeTrigger(Trigger):
    KIND = "event_time_trigger"

    early: Trigger | None = None
    late: Trigger | None = None


@dataclass(frozen=True)
class ProcessingTimeTrigger(Trigger):
    KIND = "processing_time_trigger"

    early: Trigger | None = None


@dataclass(frozen=True)
class EventTimeAfterFirstElement(Trigger):
    KIND = "event_time_after_first_element"

    delay: Duration = 0


@dataclass(frozen=True)
class ProcessingTimeAfterFirstElement(Trigger):
    KIND = "processing_time_after_first_element"

    delay: Duration = 0


@dataclass(frozen=True)
class ContinuousEventTimeTrigger(Trigger):
    KIND = "continuous_event_time_trigger"

    interval: PositiveDuration


@dataclass(frozen=True)
class ContinuousProcessingTimeTrigger(Trigger):
    KIND = "continuous_processing_time_trigger"

    interval: PositiveDuration


@dataclass(frozen=True)
class DeltaTrigger(Trigger):
    KIND = "delta_trigger"

    threshold: float
    fn: Pickled


@dataclass(frozen=True)
class PurgingTrigger(Trigger):
    KIND = "purging_trigger"

    trigger: Trigger


@dataclass(frozen=True)
class All(Trigger):
    """FLINK-4407's ``All``."""

    KIND = "all"

    subtriggers: Subtriggers


@dataclass(frozen=True)
class Any(Trigger):
    """FLINK-4407's ``Any``."""

    KIND = "any"

    subtriggers: Subtriggers
