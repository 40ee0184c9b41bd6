"""Sources in the IR: the watermark strategy a source is read under (Flink's
``WatermarkStrategy``) and a TestStream's events (Beam's ``TestStreamPayload``), in int64 µs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from panes.ir.data import Count, Duration, Family, Micros, Pickled, PositiveDuration


@dataclass(frozen=True)
class WatermarkStrategy:
    """The watermark trails the largest timestamp seen by ``max_out_of_orderness``, updated
    after every ``emit_every``-th record; a source without records for ``idle_timeout`` of
    processing time is idle (None: never)."""

    max_out_of_orderness: Duration = 0
    idle_timeout: Optional[Duration] = None
    emit_every: Count = 1


class TestStreamEvent(Family):
    """Base of a TestStream's events; each is one step of the event log."""

    __test__ = False  # not a pytest test class
    FAMILY = "test stream event"


@dataclass(frozen=True)
class AddElements(TestStreamEvent):
    """One bundle: the values (pickled, in order) at their ``timestamps``."""

    KIND = "elements"

    values: Pickled
    timestamps: tuple[Micros, ...]


@dataclass(frozen=True)
class AdvanceWatermark(TestStreamEvent):
    KIND = "watermark"

    watermark: Micros


@dataclass(frozen=True)
class AdvanceProcessingTime(TestStreamEvent):
    KIND = "processing_time"

    advance: PositiveDuration
