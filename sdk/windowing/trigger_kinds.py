"""Every kind of trigger, one entry each: its IR class, its API class and how one lowers to the
other and back, its state machine, whether it may finish, its continuation, how it is shown,
and the family rules it follows. Adding a trigger is adding an entry here (with its IR class in
``panes.ir.triggers``, its API class in ``panes.trigger`` and, if no machine fits, a machine).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from panes import trigger as api
from panes.errors import PipelineConstructionError
from panes.ir import triggers as ir
from panes.ir.data import Pickled
from panes.ir.windowing import AccumulationMode
from panes.timestamp import Duration
from panes.windowing.machines.composite import (
    AfterAllMachine,
    AfterAnyMachine,
    AfterEachMachine,
    OrFinallyMachine,
    RepeatedlyMachine,
)
from panes.windowing.machines.counting import AfterCountMachine
from panes.windowing.machines.end_of_window import (
    DefaultMachine,
    EarlyAndLateMachine,
    EndOfWindowMachine,
    NeverMachine,
)
from panes.windowing.machines.first_element import AfterFirstElementMachine
from panes.windowing.machines.flink import ContinuousMachine, DeltaMachine
from panes.windowing.timers import EVENT_TIME, PROCESSING_TIME


@dataclass(frozen=True)
class TriggerKind:
    """What panes knows of one kind of trigger. ``machine`` gives the machine and its children
    (IR triggers, or machines of their own); ``may_finish(trigger, allowed_lateness)`` is
    Beam's ``may_lose_data`` MAY_FINISH; ``flink``: evaluated after each element, never
    finishing, unfired contents purged at clean-up, with the ``accumulation`` its root decides
    (Beam triggers take the strategy's)."""

    ir: type
    api: type
    to_ir: Callable
    from_ir: Callable
    machine: Callable
    display: Callable
    may_finish: Callable = lambda trigger, lateness: False
    continuation: Callable = lambda trigger: trigger
    flink: bool = False
    accumulation: AccumulationMode | None = None


def _seconds(micros: int) -> str:
    return f"{micros / 1_000_000:g}s"


def _display_all(triggers) -> str:
    return ", ".join(map(display, triggers))


def _keywords(**children) -> str:
    return ", ".join(
        f"{name}={display(child)}" for name, child in children.items() if child is not None
    )


def _lowered(trigger) -> ir.Trigger | None:
    return None if trigger is None else to_ir(trigger)


def _raised(trigger) -> api.Trigger | None:
    return None if trigger is None else from_ir(trigger)


def _continued(trigger) -> ir.Trigger | None:
    return None if trigger is None else continuation(trigger)


def _after_end_of_window_machine(trigger: ir.AfterEndOfWindow):
    if trigger.early is None and trigger.late is None:
        return EndOfWindowMachine(EVENT_TIME), ()
    late = () if trigger.late is None else (trigger.late,)
    return EarlyAndLateMachine(EVENT_TIME), (trigger.early or ir.Never(), *late)


def _after_end_of_window_may_finish(trigger: ir.AfterEndOfWindow, lateness: int) -> bool:
    # Without lateness the window ends with the watermark; a late trigger is implicitly repeated.
    return lateness > 0 and trigger.late is None


def _flink(purging: bool = False, **entry) -> TriggerKind:
    """A Flink-style kind: it purges (discarding) at its root or else accumulates."""
    return TriggerKind(
        **entry,
        flink=True,
        accumulation=(AccumulationMode.DISCARDING if purging else AccumulationMode.ACCUMULATING),
    )


def _listing(ir_class, api_class) -> dict:
    """The classes, lowering and display of a kind that holds a list of subtriggers."""
    return {
        "ir": ir_class,
        "api": api_class,
        "to_ir": lambda t: ir_class(tuple(map(to_ir, t.triggers))),
        "from_ir": lambda t: api_class(*map(from_ir, t.subtriggers)),
        "display": lambda t: f"{api_class.__name__}({_display_all(t.subtriggers)})",
    }


KINDS = (
    # -- Beam ----------------------------------------------------------------------------------
    TriggerKind(
        ir.Default,
        api.DefaultTrigger,
        to_ir=lambda t: ir.Default(),
        from_ir=lambda t: api.DefaultTrigger(),
        machine=lambda t: (DefaultMachine(), ()),
        display=lambda t: "DefaultTrigger()",
    ),
    TriggerKind(
        ir.Never,
        api.Never,
        to_ir=lambda t: ir.Never(),
        from_ir=lambda t: api.Never(),
        machine=lambda t: (NeverMachine(), ()),
        display=lambda t: "Never()",
    ),
    TriggerKind(
        ir.AfterEndOfWindow,
        api.AfterWatermark,
        to_ir=lambda t: ir.AfterEndOfWindow(_lowered(t.early), _lowered(t.late)),
        from_ir=lambda t: api.AfterWatermark(_raised(t.early), _raised(t.late)),
        machine=_after_end_of_window_machine,
        display=lambda t: f"AfterWatermark({_keywords(early=t.early, late=t.late)})",
        may_finish=_after_end_of_window_may_finish,
        continuation=lambda t: ir.AfterEndOfWindow(_continued(t.early), _continued(t.late)),
    ),
    TriggerKind(
        ir.ElementCount,
        api.AfterCount,
        to_ir=lambda t: ir.ElementCount(t.count),
        from_ir=lambda t: api.AfterCount(t.count),
        machine=lambda t: (AfterCountMachine(t.count), ()),
        display=lambda t: f"AfterCount({t.count})",
        may_finish=lambda t, lateness: True,
        continuation=lambda t: ir.ElementCount(1),
    ),
    TriggerKind(
        ir.AfterProcessingTime,
        api.AfterProcessingTime,
        to_ir=lambda t: ir.AfterProcessingTime(t.delay.micros),
        from_ir=lambda t: api.AfterProcessingTime(Duration(micros=t.delay)),
        machine=lambda t: (AfterFirstElementMachine(PROCESSING_TIME, t.delay), ()),
        display=lambda t: f"AfterProcessingTime({_seconds(t.delay)})",
        may_finish=lambda t, lateness: True,
        continuation=lambda t: ir.AfterProcessingTime(0),
    ),
    TriggerKind(
        ir.Repeat,
        api.Repeatedly,
        to_ir=lambda t: ir.Repeat(to_ir(t.underlying)),
        from_ir=lambda t: api.Repeatedly(from_ir(t.subtrigger)),
        machine=lambda t: (RepeatedlyMachine(), (t.subtrigger,)),
        display=lambda t: f"Repeatedly({display(t.subtrigger)})",
        continuation=lambda t: ir.Repeat(continuation(t.subtrigger)),
    ),
    TriggerKind(
        **_listing(ir.AfterAll, api.AfterAll),
        machine=lambda t: (AfterAllMachine(), t.subtriggers),
        may_finish=lambda t, lateness: all(may_finish(s, lateness) for s in t.subtriggers),
        continuation=lambda t: ir.AfterAll(tuple(map(continuation, t.subtriggers))),
    ),
    TriggerKind(
        **_listing(ir.AfterAny, api.AfterAny),
        machine=lambda t: (AfterAnyMachine(), t.subtriggers),
        may_finish=lambda t, lateness: any(may_finish(s, lateness) for s in t.subtriggers),
        continuation=lambda t: ir.AfterAny(tuple(map(continuation, t.subtriggers))),
    ),
    TriggerKind(
        **_listing(ir.AfterEach, api.AfterEach),
        machine=lambda t: (AfterEachMachine(), t.subtriggers),
        may_finish=lambda t, lateness: all(may_finish(s, lateness) for s in t.subtriggers),
        # Beam: the continuation fires as soon as any of the sequence's would.
        continuation=lambda t: ir.Repeat(ir.AfterAny(tuple(map(continuation, t.subtriggers)))),
    ),
    TriggerKind(
        ir.OrFinally,
        api.OrFinally,
        to_ir=lambda t: ir.OrFinally(to_ir(t.trigger), to_ir(t.finally_)),
        from_ir=lambda t: api.OrFinally(from_ir(t.main), from_ir(t.finally_)),
        machine=lambda t: (OrFinallyMachine(), (t.main, t.finally_)),
        display=lambda t: f"OrFinally({display(t.main)}, {display(t.finally_)})",
        may_finish=lambda t, lateness: (
            may_finish(t.main, lateness) or may_finish(t.finally_, lateness)
        ),
        continuation=lambda t: ir.OrFinally(continuation(t.main), continuation(t.finally_)),
    ),
    # -- Flink ---------------------------------------------------------------------------------
    _flink(
        ir=ir.CountTrigger,
        api=api.CountTrigger,
        to_ir=lambda t: ir.CountTrigger(t.count),
        from_ir=lambda t: api.CountTrigger(t.count),
        machine=lambda t: (RepeatedlyMachine(), (AfterCountMachine(t.count),)),
        display=lambda t: f"CountTrigger.of({t.count})",
    ),
    _flink(
        ir=ir.EventTimeTrigger,
        api=api.EventTimeTrigger,
        to_ir=lambda t: ir.EventTimeTrigger(_lowered(t.early), _lowered(t.late)),
        from_ir=lambda t: api.EventTimeTrigger(_raised(t.early), _raised(t.late)),
        machine=lambda t: (
            EarlyAndLateMachine(EVENT_TIME),
            (t.early or ir.Never(), t.late or ir.ElementCount(1)),
        ),
        display=lambda t: f"EventTimeTrigger({_keywords(early=t.early, late=t.late)})",
    ),
    _flink(
        ir=ir.ProcessingTimeTrigger,
        api=api.ProcessingTimeTrigger,
        to_ir=lambda t: ir.ProcessingTimeTrigger(_lowered(t.early)),
        from_ir=lambda t: api.ProcessingTimeTrigger(_raised(t.early)),
        machine=lambda t: (
            EarlyAndLateMachine(PROCESSING_TIME),
            (t.early or ir.Never(), ir.ElementCount(1)),
        ),
        display=lambda t: f"ProcessingTimeTrigger({_keywords(early=t.early)})",
    ),
    _flink(
        ir=ir.EventTimeAfterFirstElement,
        api=api.EventTimeAfterFirstElement,
        to_ir=lambda t: ir.EventTimeAfterFirstElement(t.delay.micros),
        from_ir=lambda t: api.EventTimeAfterFirstElement(Duration(micros=t.delay)),
        machine=lambda t: (RepeatedlyMachine(), (AfterFirstElementMachine(EVENT_TIME, t.delay),)),
        display=lambda t: f"EventTimeTrigger.afterFirstElement({_seconds(t.delay)})",
    ),
    _flink(
        ir=ir.ProcessingTimeAfterFirstElement,
        api=api.ProcessingTimeAfterFirstElement,
        to_ir=lambda t: ir.ProcessingTimeAfterFirstElement(t.delay.micros),
        from_ir=lambda t: api.ProcessingTimeAfterFirstElement(Duration(micros=t.delay)),
        machine=lambda t: (
            RepeatedlyMachine(),
            (AfterFirstElementMachine(PROCESSING_TIME, t.delay),),
        ),
        display=lambda t: f"ProcessingTimeTrigger.afterFirstElement({_seconds(t.delay)})",
    ),
    _flink(
        ir=ir.ContinuousEventTimeTrigger,
        api=api.ContinuousEventTimeTrigger,
        to_ir=lambda t: ir.ContinuousEventTimeTrigger(t.interval.micros),
        from_ir=lambda t: api.ContinuousEventTimeTrigger(Duration(micros=t.interval)),
        machine=lambda t: (ContinuousMachine(EVENT_TIME, t.interval), ()),
        display=lambda t: f"ContinuousEventTimeTrigger.of({_seconds(t.interval)})",
    ),
    _flink(
        ir=ir.ContinuousProcessingTimeTrigger,
        api=api.ContinuousProcessingTimeTrigger,
        to_ir=lambda t: ir.ContinuousProcessingTimeTrigger(t.interval.micros),
        from_ir=lambda t: api.ContinuousProcessingTimeTrigger(Duration(micros=t.interval)),
        machine=lambda t: (ContinuousMachine(PROCESSING_TIME, t.interval), ()),
        display=lambda t: f"ContinuousProcessingTimeTrigger.of({_seconds(t.interval)})",
    ),
    _flink(
        ir=ir.DeltaTrigger,
        api=api.DeltaTrigger,
        to_ir=lambda t: ir.DeltaTrigger(float(t.threshold), Pickled.of(t.fn)),
        from_ir=lambda t: api.DeltaTrigger(t.threshold, t.fn.load()),
        machine=lambda t: (DeltaMachine(t.threshold, t.fn.load()), ()),
        display=lambda t: f"DeltaTrigger.of({t.threshold:g}, <fn>)",
    ),
    _flink(
        ir=ir.PurgingTrigger,
        api=api.PurgingTrigger,
        to_ir=lambda t: ir.PurgingTrigger(to_ir(t.trigger)),
        from_ir=lambda t: api.PurgingTrigger(from_ir(t.trigger)),
        # Purging decides accumulation at the root only (the parent's mode wins, FLINK-4407).
        machine=lambda t: machine(t.trigger),
        display=lambda t: f"PurgingTrigger.of({display(t.trigger)})",
        purging=True,
    ),
    _flink(
        **_listing(ir.All, api.All),
        machine=lambda t: (RepeatedlyMachine(), (ir.AfterAll(t.subtriggers),)),
    ),
    _flink(
        **_listing(ir.Any, api.Any),
        machine=lambda t: (RepeatedlyMachine(), (ir.AfterAny(t.subtriggers),)),
    ),
)

_BY_API = {kind.api: kind for kind in KINDS}
_BY_IR = {kind.ir: kind for kind in KINDS}


def to_ir(trigger) -> ir.Trigger:
    """The IR of an API trigger; a trigger panes does not know is refused, saying why."""
    kind = _BY_API.get(type(trigger))
    if kind is None:
        raise PipelineConstructionError(
            f"{trigger!r} is not a panes trigger; custom triggers are not supported: compose "
            f"the ones in panes.trigger (Repeatedly, AfterAll, AfterAny, AfterEach, OrFinally, "
            f"All, Any), e.g. AfterWatermark(early=AfterCount(10))"
        )
    return kind.to_ir(trigger)


def kind_of(trigger: ir.Trigger) -> TriggerKind:
    return _BY_IR[type(trigger)]


def from_ir(trigger: ir.Trigger) -> api.Trigger:
    """The API trigger an IR trigger lowered from."""
    return kind_of(trigger).from_ir(trigger)


def machine(trigger: ir.Trigger) -> tuple:
    return kind_of(trigger).machine(trigger)


def may_finish(trigger: ir.Trigger, allowed_lateness: int) -> bool:
    """Whether ``trigger`` may finish, after which its window drops new data (Beam Python's
    ``DataLossReason.MAY_FINISH``)."""
    return kind_of(trigger).may_finish(trigger, allowed_lateness)


def continuation(trigger: ir.Trigger) -> ir.Trigger:
    """The trigger a grouping's output carries downstream (Beam's continuation trigger): it
    fires as soon as the first grouping's panes arrive, not on the original conditions again
    (``AfterCount(n)`` continues as ``AfterCount(1)``). Flink-style triggers continue as they
    are: each Flink window operator states its own."""
    return kind_of(trigger).continuation(trigger)


def display(trigger: ir.Trigger) -> str:
    """The trigger as the API writes it."""
    return kind_of(trigger).display(trigger)


def contains(trigger: ir.Trigger, ir_class: type) -> bool:
    """Whether ``trigger`` or any trigger inside it is of ``ir_class``."""
    if isinstance(trigger, ir_class):
        return True
    values = [getattr(trigger, f.name) for f in dataclasses.fields(trigger)]  # type: ignore[arg-type]
    children = [c for v in values for c in (v if isinstance(v, tuple) else (v,))]
    return any(contains(c, ir_class) for c in children if isinstance(c, ir.Trigger))


def sets_processing_timers(trigger: ir.Trigger) -> bool:
    """Whether ``trigger`` may wait on processing time: a runner must then move the processing
    clock of its keys while no data arrives."""
    found, children = machine(trigger)
    return getattr(found, "domain", None) == PROCESSING_TIME or any(
        sets_processing_timers(child)
        if isinstance(child, ir.Trigger)
        else getattr(child, "domain", None) == PROCESSING_TIME
        for child in children
    )
