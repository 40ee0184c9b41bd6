"""A stateful par_do's state cells and timers in the IR (Beam's ``StateSpec`` and
``TimerFamilySpec`` of a ``ParDoPayload``): what a runner must keep per key and window, and in
which time domains it must wake the key. The DoFn itself, pickled, holds their behaviour."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from panes.ir.data import NonEmpty

Name = Annotated[str, NonEmpty()]
STATE_KINDS = ("read_modify_write", "bag", "set", "combining", "ordered_list")
TimeDomain = Literal["event_time", "processing_time"]
EVENT_TIME: TimeDomain = "event_time"
PROCESSING_TIME: TimeDomain = "processing_time"


@dataclass(frozen=True)
class StateSpec:
    """A state cell: its name and kind."""

    name: Name
    kind: Literal["read_modify_write", "bag", "set", "combining", "ordered_list"]


@dataclass(frozen=True)
class TimerSpec:
    """A timer: its name (Beam's ``ts-`` prefixed), time domain, and the DoFn method that is
    its callback."""

    name: Name
    time_domain: TimeDomain
    callback: Name
