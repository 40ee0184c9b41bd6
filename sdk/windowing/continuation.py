"""The trigger a grouping's output carries downstream (Beam's continuation trigger).

A second grouping without a new ``WindowInto`` should fire as soon as the first one's panes
arrive, not wait for the original conditions again: ``AfterCount(n)`` continues as
``AfterCount(1)``, a processing-time delay continues with none. Flink-style triggers have no
continuation (each Flink window operator states its own trigger) and are kept as they are.
"""

from __future__ import annotations

from dataclasses import replace

from panes.trigger import (
    AfterAll, AfterAny, AfterCount, AfterEach, AfterProcessingTime, AfterWatermark, OrFinally,
    Repeatedly, Trigger, is_flink_family,
)


def continuation_trigger(trigger: Trigger) -> Trigger:
    if is_flink_family(trigger):
        return trigger
    if isinstance(trigger, AfterCount):
        return AfterCount(1)
    if isinstance(trigger, AfterProcessingTime):
        return AfterProcessingTime(0)
    if isinstance(trigger, AfterWatermark):
        return AfterWatermark(early=_optional(trigger.early), late=_optional(trigger.late))
    if isinstance(trigger, Repeatedly):
        return Repeatedly(continuation_trigger(trigger.underlying))
    if isinstance(trigger, (AfterAll, AfterAny)):
        return type(trigger)(*map(continuation_trigger, trigger.triggers))
    if isinstance(trigger, AfterEach):
        return Repeatedly(AfterAny(*map(continuation_trigger, trigger.triggers)))
    if isinstance(trigger, OrFinally):
        return OrFinally(continuation_trigger(trigger.trigger),
                         continuation_trigger(trigger.finally_))
    return trigger  # DefaultTrigger and Never continue as themselves


def _optional(trigger):
    return None if trigger is None else continuation_trigger(trigger)


def downstream_strategy(strategy):
    """The windowing strategy of a grouping's output."""
    return replace(strategy, trigger=continuation_trigger(strategy.trigger))
