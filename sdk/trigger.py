"""Triggers and accumulation modes: immutable data, interpreted by ``panes.windowing``.

A trigger says *when* a window emits a pane. Every trigger here is a frozen dataclass holding
configuration only (ints, Durations, nested triggers, and for ``DeltaTrigger`` one user function
``fn``); all runtime state lives in the windowing core, keyed by the trigger's position in its tree.

Two families share one interpreter:

* **Beam** (``AfterWatermark``, ``AfterCount``, ``AfterProcessingTime``, ``Repeatedly``,
  ``AfterAll``, ``AfterAny``, ``AfterEach``, ``OrFinally``, ``Never``, ``DefaultTrigger``): Beam's
  Java semantics; triggers are evaluated after each bundle; the accumulation mode comes from
  ``WindowInto``; a window garbage-collected with unfired data emits a final pane.
* **Flink** (``CountTrigger``, ``EventTimeTrigger``, ``ProcessingTimeTrigger``,
  ``ContinuousEventTimeTrigger``, ``ContinuousProcessingTimeTrigger``, ``DeltaTrigger``,
  ``PurgingTrigger``, and the FLINK-4407 DSL ``All``/``Any``/``afterEndOfWindow()``...): evaluated
  after each element; they fire repeatedly and never finish; accumulating unless the root is a
  ``PurgingTrigger`` (``.discarding()``); unfired contents are purged silently at clean-up.

The family of a trigger tree is the family of its root.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import Callable, Optional

from panes.errors import PipelineConstructionError
from panes.timestamp import Duration

__all__ = [
    "AccumulationMode", "Trigger", "DefaultTrigger", "AfterWatermark", "AfterCount",
    "AfterProcessingTime", "Repeatedly", "AfterAll", "AfterAny", "AfterEach", "OrFinally",
    "Never", "Always", "FlinkTrigger", "CountTrigger", "EventTimeTrigger", "ProcessingTimeTrigger",
    "EventTimeAfterFirstElement", "ProcessingTimeAfterFirstElement",
    "ContinuousEventTimeTrigger", "ContinuousProcessingTimeTrigger", "DeltaTrigger",
    "PurgingTrigger", "All", "Any",
]


class AccumulationMode(enum.Enum):
    """Whether a pane repeats the elements of earlier panes of its window."""

    DISCARDING = "discarding"
    ACCUMULATING = "accumulating"


class Trigger:
    """Base of all triggers; subclasses are frozen dataclasses holding configuration only."""


def _duration(obj, name: str) -> None:
    """Normalizes the field ``name`` (seconds, timedelta or Duration) to a ``Duration``."""
    object.__setattr__(obj, name, Duration.of(getattr(obj, name)))


def _delay(obj) -> None:
    """Normalizes ``obj.delay`` to a ``Duration`` and rejects a negative one, which would put
    the firing before the element that starts it."""
    _duration(obj, "delay")
    if obj.delay.micros < 0:
        kind = type(obj).__name__
        raise PipelineConstructionError(
            f"{kind} needs a delay of 0 or more, got {obj.delay}: a pane cannot fire before "
            f"the element that starts it; use {kind}(0) for no delay")


def _positive_count(obj, name: str) -> None:
    value = getattr(obj, name)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{type(obj).__name__} needs a positive integer {name}, got {value!r}")


def _triggers(obj, *, at_least: int) -> None:
    subtriggers = tuple(getattr(obj, "triggers"))
    if len(subtriggers) < at_least or not all(isinstance(t, Trigger) for t in subtriggers):
        raise ValueError(
            f"{type(obj).__name__} needs at least {at_least} triggers, got {subtriggers!r}")
    object.__setattr__(obj, "triggers", subtriggers)


# -- Beam -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class DefaultTrigger(Trigger):
    """Fires when the watermark passes the end of the window, then on every late bundle."""


@dataclass(frozen=True)
class Never(Trigger):
    """Never fires; the window emits only its final pane when it is garbage-collected."""


@dataclass(frozen=True)
class AfterWatermark(Trigger):
    """Fires once when the watermark passes the end of the window (the ON_TIME pane); ``early``
    repeats before it, ``late`` repeats after it (both are implicitly repeated, as in Beam)."""

    early: Optional[Trigger] = None
    late: Optional[Trigger] = None


@dataclass(frozen=True)
class AfterCount(Trigger):
    """Fires once when the pane holds at least ``count`` elements."""

    count: int

    def __post_init__(self):
        _positive_count(self, "count")


@dataclass(frozen=True)
class AfterProcessingTime(Trigger):
    """Fires once, ``delay`` of processing time after the pane's first element."""

    delay: Duration = Duration(0)

    def __post_init__(self):
        _delay(self)


@dataclass(frozen=True)
class Repeatedly(Trigger):
    """Fires every time ``underlying`` fires, restarting it; never finishes."""

    underlying: Trigger


def Always() -> Repeatedly:  # noqa: N802 - Beam's name
    """Beam Python's ``Always``: fires for every bundle that brings elements to a window, and
    never finishes; the same trigger as ``Repeatedly(AfterCount(1))``."""
    return Repeatedly(AfterCount(1))


@dataclass(frozen=True, init=False)
class AfterAll(Trigger):
    """Fires once every subtrigger has fired (or is ready to)."""

    triggers: tuple

    def __init__(self, *triggers):
        object.__setattr__(self, "triggers", triggers)
        self.__post_init__()

    def __post_init__(self):
        _triggers(self, at_least=1)


@dataclass(frozen=True, init=False)
class AfterAny(Trigger):
    """Fires once any subtrigger fires (Beam Java's ``AfterFirst``)."""

    triggers: tuple

    def __init__(self, *triggers):
        object.__setattr__(self, "triggers", triggers)
        self.__post_init__()

    def __post_init__(self):
        _triggers(self, at_least=1)


@dataclass(frozen=True, init=False)
class AfterEach(Trigger):
    """Runs its subtriggers in sequence: fires as the first unfinished one does."""

    triggers: tuple

    def __init__(self, *triggers):
        object.__setattr__(self, "triggers", triggers)
        self.__post_init__()

    def __post_init__(self):
        _triggers(self, at_least=1)


@dataclass(frozen=True)
class OrFinally(Trigger):
    """Fires as ``trigger`` does, and finishes for good when ``finally_`` fires."""

    trigger: Trigger
    finally_: Trigger


# -- Flink ----------------------------------------------------------------------------------


class FlinkTrigger(Trigger):
    """Base of the Flink-family triggers: the seeds' builders and accumulation switches."""

    def discarding(self) -> "Trigger":
        """Purge the window's contents after every firing (FLINK-4407 ``discarding()``)."""
        return self if isinstance(self, PurgingTrigger) else PurgingTrigger(self)

    def accumulating(self) -> "Trigger":
        """Keep the window's contents across firings (the Flink default)."""
        return self.trigger if isinstance(self, PurgingTrigger) else self


@dataclass(frozen=True)
class CountTrigger(FlinkTrigger):
    """Fires each time ``count`` more elements have arrived in the window (Flink's CountTrigger,
    also ``CountTrigger.of(n)`` and the DSL's ``CountTrigger.atLeast(n)``)."""

    count: int

    def __post_init__(self):
        _positive_count(self, "count")

    @classmethod
    def of(cls, count: int) -> "CountTrigger":
        return cls(count)

    @classmethod
    def atLeast(cls, count: int) -> "CountTrigger":
        return cls(count)

    at_least = atLeast


@dataclass(frozen=True)
class EventTimeTrigger(FlinkTrigger):
    """Fires when the watermark passes the end of the window, then for every late element
    (or as ``late`` says); ``early`` fires before the end of the window."""

    early: Optional[Trigger] = None
    late: Optional[Trigger] = None

    @classmethod
    def create(cls) -> "EventTimeTrigger":
        return cls()

    @classmethod
    def afterEndOfWindow(cls) -> "EventTimeTrigger":
        return cls()

    @staticmethod
    def afterFirstElement(delay) -> "EventTimeAfterFirstElement":
        return EventTimeAfterFirstElement(delay)

    def withEarlyTrigger(self, trigger: Trigger) -> "EventTimeTrigger":
        return replace(self, early=trigger)

    def withLateTrigger(self, trigger: Trigger) -> "EventTimeTrigger":
        return replace(self, late=trigger)

    after_end_of_window = afterEndOfWindow
    after_first_element = afterFirstElement
    with_early_trigger = withEarlyTrigger
    with_late_trigger = withLateTrigger


@dataclass(frozen=True)
class ProcessingTimeTrigger(FlinkTrigger):
    """Fires when processing time passes the end of the window, then for every later element;
    ``early`` fires before that."""

    early: Optional[Trigger] = None

    @classmethod
    def create(cls) -> "ProcessingTimeTrigger":
        return cls()

    @classmethod
    def afterEndOfWindow(cls) -> "ProcessingTimeTrigger":
        return cls()

    @staticmethod
    def afterFirstElement(delay) -> "ProcessingTimeAfterFirstElement":
        return ProcessingTimeAfterFirstElement(delay)

    def withEarlyTrigger(self, trigger: Trigger) -> "ProcessingTimeTrigger":
        return replace(self, early=trigger)

    after_end_of_window = afterEndOfWindow
    after_first_element = afterFirstElement
    with_early_trigger = withEarlyTrigger


@dataclass(frozen=True)
class EventTimeAfterFirstElement(FlinkTrigger):
    """Fires when the watermark passes the first element's timestamp (since the last firing)
    plus ``delay``; repeats."""

    delay: Duration = Duration(0)

    def __post_init__(self):
        _delay(self)


@dataclass(frozen=True)
class ProcessingTimeAfterFirstElement(FlinkTrigger):
    """Fires ``delay`` of processing time after the first element since the last firing."""

    delay: Duration = Duration(0)

    def __post_init__(self):
        _delay(self)


@dataclass(frozen=True)
class ContinuousEventTimeTrigger(FlinkTrigger):
    """Fires every ``interval`` of event time (aligned to the epoch) and at the end of the
    window; a late element fires immediately."""

    interval: Duration

    def __post_init__(self):
        _duration(self, "interval")
        if self.interval.micros <= 0:
            raise ValueError("ContinuousEventTimeTrigger needs a positive interval")

    @classmethod
    def of(cls, interval) -> "ContinuousEventTimeTrigger":
        return cls(interval)


@dataclass(frozen=True)
class ContinuousProcessingTimeTrigger(FlinkTrigger):
    """Fires every ``interval`` of processing time (aligned to the epoch) once the window has
    elements."""

    interval: Duration

    def __post_init__(self):
        _duration(self, "interval")
        if self.interval.micros <= 0:
            raise ValueError("ContinuousProcessingTimeTrigger needs a positive interval")

    @classmethod
    def of(cls, interval) -> "ContinuousProcessingTimeTrigger":
        return cls(interval)


@dataclass(frozen=True)
class DeltaTrigger(FlinkTrigger):
    """Fires when ``fn(last_fired_element, element) > threshold``; the element that fired
    becomes the new reference. ``fn`` is the one user function (pickled in the IR)."""

    threshold: float
    fn: Callable[..., float] = field(compare=False)

    @classmethod
    def of(cls, threshold: float, fn) -> "DeltaTrigger":
        return cls(threshold, fn)


@dataclass(frozen=True)
class PurgingTrigger(FlinkTrigger):
    """Fires as ``trigger`` does and purges the window after each firing (discarding mode)."""

    trigger: Trigger

    @classmethod
    def of(cls, trigger: Trigger) -> "PurgingTrigger":
        return cls(trigger)


@dataclass(frozen=True, init=False)
class All(FlinkTrigger):
    """FLINK-4407: fires once all subtriggers have fired; then starts over."""

    triggers: tuple

    def __init__(self, *triggers):
        object.__setattr__(self, "triggers", triggers)
        self.__post_init__()

    def __post_init__(self):
        _triggers(self, at_least=1)


@dataclass(frozen=True, init=False)
class Any(FlinkTrigger):
    """FLINK-4407: fires whenever any subtrigger fires; then starts over."""

    triggers: tuple

    def __init__(self, *triggers):
        object.__setattr__(self, "triggers", triggers)
        self.__post_init__()

    def __post_init__(self):
        _triggers(self, at_least=1)


def is_flink_family(trigger: Trigger) -> bool:
    """Whether a trigger tree follows Flink (per-element evaluation, silent purge at clean-up)."""
    return isinstance(trigger, FlinkTrigger)
