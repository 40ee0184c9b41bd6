"""Triggers and accumulation modes: the API. Each trigger lowers to its IR form
(``panes.ir.triggers``) when the pipeline is compiled, and the windowing engine runs that
(``panes.windowing.trigger_kinds`` has one entry per kind).

A trigger says *when* a window emits a pane. Every trigger here is a frozen dataclass holding
configuration only (ints, Durations, nested triggers, and for ``DeltaTrigger`` one user function
``fn``); all runtime state lives in the windowing engine, keyed by the trigger's position in its
tree.

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
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from panes.errors import PipelineConstructionError
from panes.evictor import check_delta
from panes.ir.windowing import AccumulationMode
from panes.timestamp import Duration

__all__ = [
    "AccumulationMode",
    "DataLossReason",
    "Trigger",
    "DefaultTrigger",
    "AfterWatermark",
    "AfterCount",
    "AfterProcessingTime",
    "Repeatedly",
    "AfterAll",
    "AfterAny",
    "AfterEach",
    "OrFinally",
    "Never",
    "Always",
    "FlinkTrigger",
    "CountTrigger",
    "EventTimeTrigger",
    "ProcessingTimeTrigger",
    "EventTimeAfterFirstElement",
    "ProcessingTimeAfterFirstElement",
    "ContinuousEventTimeTrigger",
    "ContinuousProcessingTimeTrigger",
    "DeltaTrigger",
    "PurgingTrigger",
    "All",
    "Any",
]


class DataLossReason(enum.Flag):
    """Beam's reasons a trigger may lose data (``Trigger.may_lose_data``)."""

    NO_POTENTIAL_LOSS = 0
    MAY_FINISH = enum.auto()  # it may finish, and its window then drops what comes after
    CONDITION_NOT_GUARANTEED = enum.auto()  # deprecated in Beam; no trigger here says it


class Trigger:
    """Base of all triggers; subclasses are frozen dataclasses holding configuration only.

    Beam's questions about a trigger are answered from that configuration: its continuation,
    whether it may lose data, its portable form."""

    def get_continuation_trigger(self) -> Trigger:
        """The trigger a grouping's output carries downstream (Beam's): it fires as soon as
        the first grouping's panes arrive (``AfterCount(n)`` continues as ``AfterCount(1)``).
        A trigger with no condition of its own, and every Flink-style one, continues as it
        is."""
        return self

    def may_lose_data(self, windowing) -> DataLossReason:
        """Whether the trigger may finish while its window still takes data, which is then
        dropped (Beam's; ``windowing`` is the ``Windowing`` it belongs to). Repeating and
        Flink-style triggers never finish."""
        return DataLossReason.NO_POTENTIAL_LOSS

    def to_runner_api(self, context):
        """The trigger in the pipeline's portable form, panes' IR, as ``context`` (a
        ``panes.runners.pipeline_context.PipelineContext``) lowers it (Beam's)."""
        return context.trigger_to_ir(self)

    @staticmethod
    def from_runner_api(proto, context) -> Trigger:
        """The trigger whose portable form ``proto`` is (Beam's)."""
        return context.trigger_from_ir(proto)


def _continued(trigger: Trigger | None) -> Trigger | None:
    return None if trigger is None else trigger.get_continuation_trigger()


def _loss(may_finish: bool) -> DataLossReason:
    return DataLossReason.MAY_FINISH if may_finish else DataLossReason.NO_POTENTIAL_LOSS


def _may_finish(trigger: Trigger, windowing) -> bool:
    return DataLossReason.MAY_FINISH in trigger.may_lose_data(windowing)


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
            f"the element that starts it; use {kind}(0) for no delay"
        )


def _positive_count(obj, name: str) -> None:
    value = getattr(obj, name)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{type(obj).__name__} needs a positive integer {name}, got {value!r}")


def _triggers(obj, *, at_least: int) -> None:
    subtriggers = tuple(obj.triggers)
    if len(subtriggers) < at_least or not all(isinstance(t, Trigger) for t in subtriggers):
        raise ValueError(
            f"{type(obj).__name__} needs at least {at_least} triggers, got {subtriggers!r}"
        )
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

    early: Trigger | None = None
    late: Trigger | None = None

    def get_continuation_trigger(self) -> AfterWatermark:
        return AfterWatermark(_continued(self.early), _continued(self.late))

    def may_lose_data(self, windowing) -> DataLossReason:
        # Without lateness the window ends with the watermark; a late trigger repeats.
        return _loss(windowing.allowed_lateness != 0 and self.late is None)


@dataclass(frozen=True)
class AfterCount(Trigger):
    """Fires once when the pane holds at least ``count`` elements."""

    count: int

    def __post_init__(self):
        _positive_count(self, "count")

    def get_continuation_trigger(self) -> AfterCount:
        return AfterCount(1)

    def may_lose_data(self, windowing) -> DataLossReason:
        return DataLossReason.MAY_FINISH


@dataclass(frozen=True)
class AfterProcessingTime(Trigger):
    """Fires once, ``delay`` of processing time after the pane's first element."""

    delay: Duration = Duration(0)

    def __post_init__(self):
        _delay(self)

    def get_continuation_trigger(self) -> AfterProcessingTime:
        """As soon as processing time passes the upstream panes' arrival (Beam's
        ``_AfterSynchronizedProcessingTime``)."""
        return AfterProcessingTime(Duration(0))

    def may_lose_data(self, windowing) -> DataLossReason:
        return DataLossReason.MAY_FINISH


@dataclass(frozen=True)
class Repeatedly(Trigger):
    """Fires every time ``underlying`` fires, restarting it; never finishes."""

    underlying: Trigger

    def get_continuation_trigger(self) -> Repeatedly:
        return Repeatedly(self.underlying.get_continuation_trigger())


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

    def get_continuation_trigger(self) -> AfterAll:
        return AfterAll(*(t.get_continuation_trigger() for t in self.triggers))

    def may_lose_data(self, windowing) -> DataLossReason:
        return _loss(all(_may_finish(t, windowing) for t in self.triggers))


@dataclass(frozen=True, init=False)
class AfterAny(Trigger):
    """Fires once any subtrigger fires (Beam Java's ``AfterFirst``)."""

    triggers: tuple

    def __init__(self, *triggers):
        object.__setattr__(self, "triggers", triggers)
        self.__post_init__()

    def __post_init__(self):
        _triggers(self, at_least=1)

    def get_continuation_trigger(self) -> AfterAny:
        return AfterAny(*(t.get_continuation_trigger() for t in self.triggers))

    def may_lose_data(self, windowing) -> DataLossReason:
        return _loss(any(_may_finish(t, windowing) for t in self.triggers))


@dataclass(frozen=True, init=False)
class AfterEach(Trigger):
    """Runs its subtriggers in sequence: fires as the first unfinished one does."""

    triggers: tuple

    def __init__(self, *triggers):
        object.__setattr__(self, "triggers", triggers)
        self.__post_init__()

    def __post_init__(self):
        _triggers(self, at_least=1)

    def get_continuation_trigger(self) -> Repeatedly:
        """Beam's: fires as soon as any of the sequence's would."""
        return Repeatedly(AfterAny(*(t.get_continuation_trigger() for t in self.triggers)))

    def may_lose_data(self, windowing) -> DataLossReason:
        return _loss(all(_may_finish(t, windowing) for t in self.triggers))


@dataclass(frozen=True)
class OrFinally(Trigger):
    """Fires as ``trigger`` does, and finishes for good when ``finally_`` fires."""

    trigger: Trigger
    finally_: Trigger

    def get_continuation_trigger(self) -> OrFinally:
        return OrFinally(
            self.trigger.get_continuation_trigger(), self.finally_.get_continuation_trigger()
        )

    def may_lose_data(self, windowing) -> DataLossReason:
        return _loss(_may_finish(self.trigger, windowing) or _may_finish(self.finally_, windowing))


# -- Flink ----------------------------------------------------------------------------------


class FlinkTrigger(Trigger):
    """Base of the Flink-family triggers: the seeds' builders and accumulation switches."""

    def discarding(self) -> Trigger:
        """Purge the window's contents after every firing (FLINK-4407 ``discarding()``)."""
        return self if isinstance(self, PurgingTrigger) else PurgingTrigger(self)

    def accumulating(self) -> Trigger:
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
    def of(cls, count: int) -> CountTrigger:
        return cls(count)

    @classmethod
    def atLeast(cls, count: int) -> CountTrigger:
        return cls(count)

    at_least = atLeast


@dataclass(frozen=True)
class EventTimeTrigger(FlinkTrigger):
    """Fires when the watermark passes the end of the window, then for every late element
    (or as ``late`` says); ``early`` fires before the end of the window."""

    early: Trigger | None = None
    late: Trigger | None = None

    @classmethod
    def create(cls) -> EventTimeTrigger:
        return cls()

    @classmethod
    def afterEndOfWindow(cls) -> EventTimeTrigger:
        return cls()

    @staticmethod
    def afterFirstElement(delay) -> EventTimeAfterFirstElement:
        return EventTimeAfterFirstElement(delay)

    def withEarlyTrigger(self, trigger: Trigger) -> EventTimeTrigger:
        return replace(self, early=trigger)

    def withLateTrigger(self, trigger: Trigger) -> EventTimeTrigger:
        return replace(self, late=trigger)

    after_end_of_window = afterEndOfWindow
    after_first_element = afterFirstElement
    with_early_trigger = withEarlyTrigger
    with_late_trigger = withLateTrigger


@dataclass(frozen=True)
class ProcessingTimeTrigger(FlinkTrigger):
    """Fires when processing time passes the end of the window, then for every later element;
    ``early`` fires before that."""

    early: Trigger | None = None

    @classmethod
    def create(cls) -> ProcessingTimeTrigger:
        return cls()

    @classmethod
    def afterEndOfWindow(cls) -> ProcessingTimeTrigger:
        return cls()

    @staticmethod
    def afterFirstElement(delay) -> ProcessingTimeAfterFirstElement:
        return ProcessingTimeAfterFirstElement(delay)

    def withEarlyTrigger(self, trigger: Trigger) -> ProcessingTimeTrigger:
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
    def of(cls, interval) -> ContinuousEventTimeTrigger:
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
    def of(cls, interval) -> ContinuousProcessingTimeTrigger:
        return cls(interval)


@dataclass(frozen=True)
class DeltaTrigger(FlinkTrigger):
    """Fires when ``fn(last_fired_element, element) > threshold``; the element that fired
    becomes the new reference. ``fn`` is the one user function (pickled in the IR)."""

    threshold: float
    fn: Callable[..., float] = field(compare=False)

    def __post_init__(self):
        check_delta("DeltaTrigger", self.threshold, self.fn)

    @classmethod
    def of(cls, threshold: float, fn) -> DeltaTrigger:
        return cls(threshold, fn)


@dataclass(frozen=True)
class PurgingTrigger(FlinkTrigger):
    """Fires as ``trigger`` does and purges the window after each firing (discarding mode)."""

    trigger: Trigger

    @classmethod
    def of(cls, trigger: Trigger) -> PurgingTrigger:
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
