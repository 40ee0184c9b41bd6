"""Watermark strategies for sources (Flink's ``WatermarkStrategy``), as data plus pure logic.

Convention: a watermark ``w`` promises that no element with a timestamp before ``w`` is still to
come (Beam's). Flink's bounded-out-of-orderness generator emits ``max - delay - 1`` under its own
"at or before" convention; both say the same thing, so here the watermark is ``max - delay``.

The watermark after each record depends only on the running maximum of the timestamps seen so
far, an associative scan: the direct runner runs it in one pass (``generate_watermarks``); Spark
summarizes each partition (``segment_summary``), carries the results across partitions on the
driver (``segment_carries``) and finishes each partition in parallel (``segment_watermarks``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable, Optional, Sequence

from panes.timestamp import MIN_TIMESTAMP, Duration

__all__ = [
    "WatermarkStrategy", "generate_watermarks", "segment_watermarks", "segment_summary",
    "segment_carries", "max_combine", "watermark_for_max",
    "is_emission_point", "is_idle", "combine_input_watermarks",
]


@dataclass(frozen=True)
class WatermarkStrategy:
    """How a source's watermark follows its records' timestamps.

    ``max_out_of_orderness``: how far behind the largest timestamp seen the watermark trails
    (0 = monotonous timestamps). ``idle_timeout``: processing time without records after which
    the source is idle and ignored when several inputs' watermarks are combined (None: never).
    ``emit_every``: the watermark is updated after every N-th record (periodic emission).
    """

    max_out_of_orderness: Duration = Duration(0)
    idle_timeout: Optional[Duration] = None
    emit_every: int = 1

    def __post_init__(self):
        object.__setattr__(self, "max_out_of_orderness", Duration.of(self.max_out_of_orderness))
        if self.idle_timeout is not None:
            object.__setattr__(self, "idle_timeout", Duration.of(self.idle_timeout))
        if self.max_out_of_orderness.micros < 0:
            raise ValueError("WatermarkStrategy: max_out_of_orderness must not be negative")
        if isinstance(self.emit_every, bool) or not isinstance(self.emit_every, int) \
                or self.emit_every < 1:
            raise ValueError(f"WatermarkStrategy: emit_every must be a positive integer, "
                             f"got {self.emit_every!r}")

    @classmethod
    def for_bounded_out_of_orderness(cls, max_delay) -> "WatermarkStrategy":
        return cls(max_out_of_orderness=max_delay)

    @classmethod
    def for_monotonous_timestamps(cls) -> "WatermarkStrategy":
        return cls()

    def with_idleness(self, timeout) -> "WatermarkStrategy":
        return replace(self, idle_timeout=timeout)

    def with_periodic_emission(self, every_n_records: int) -> "WatermarkStrategy":
        return replace(self, emit_every=every_n_records)

    forBoundedOutOfOrderness = for_bounded_out_of_orderness
    forMonotonousTimestamps = for_monotonous_timestamps
    withIdleness = with_idleness


def max_combine(left: int, right: int) -> int:
    """The associative, commutative combine of the running-maximum scan (identity MIN)."""
    return left if left >= right else right


def watermark_for_max(max_timestamp: int, strategy: WatermarkStrategy) -> int:
    """The watermark once the largest timestamp seen is ``max_timestamp``."""
    if max_timestamp == MIN_TIMESTAMP:
        return MIN_TIMESTAMP
    return max(MIN_TIMESTAMP, max_timestamp - strategy.max_out_of_orderness.micros)


def is_emission_point(record_index: int, strategy: WatermarkStrategy) -> bool:
    """Whether the watermark is (re)emitted after the record at 0-based ``record_index``."""
    return (record_index + 1) % strategy.emit_every == 0


def generate_watermarks(timestamps: Iterable[int], strategy: WatermarkStrategy) -> list[int]:
    """The source's watermark after each record, in arrival order (never decreasing)."""
    return segment_watermarks(timestamps, 0, (MIN_TIMESTAMP, MIN_TIMESTAMP), strategy)


def segment_watermarks(timestamps: Iterable[int], start_index: int, carry: tuple,
                       strategy: WatermarkStrategy) -> list[int]:
    """The watermark after each record of a segment of the source that starts at record
    ``start_index``; ``carry`` is ``(running max, watermark)`` after the records before it."""
    running_max, current = carry
    watermarks = []
    for index, timestamp in enumerate(timestamps, start_index):
        running_max = max_combine(running_max, timestamp)
        if is_emission_point(index, strategy):
            current = max(current, watermark_for_max(running_max, strategy))
        watermarks.append(current)
    return watermarks


def segment_summary(timestamps: Iterable[int], start_index: int,
                    strategy: WatermarkStrategy) -> tuple:
    """What later segments need of one segment: its largest timestamp, and the running maximum
    at its last emission point (None without one) — the parallel half of the prefix scan."""
    running_max, at_emission = MIN_TIMESTAMP, None
    for index, timestamp in enumerate(timestamps, start_index):
        running_max = max_combine(running_max, timestamp)
        if is_emission_point(index, strategy):
            at_emission = running_max
    return running_max, at_emission


def segment_carries(summaries: Sequence[tuple], strategy: WatermarkStrategy) -> list[tuple]:
    """The ``carry`` of each segment, in order, from every segment's ``segment_summary``."""
    running_max, current, carries = MIN_TIMESTAMP, MIN_TIMESTAMP, []
    for segment_max, at_emission in summaries:
        carries.append((running_max, current))
        if at_emission is not None:
            current = max(current, watermark_for_max(max_combine(running_max, at_emission), strategy))
        running_max = max_combine(running_max, segment_max)
    return carries


def is_idle(last_arrival_time: int, now: int, strategy: WatermarkStrategy) -> bool:
    """Whether a source whose last record arrived at ``last_arrival_time`` (processing time)
    is idle at ``now``."""
    timeout = strategy.idle_timeout
    return timeout is not None and now - last_arrival_time >= timeout.micros


def combine_input_watermarks(watermarks: Sequence[int], idle: Sequence[bool]) -> Optional[int]:
    """The watermark of several inputs: the minimum over the active ones; None when every input
    is idle (the combined watermark then stays where it was)."""
    active = [w for w, is_idle_input in zip(watermarks, idle) if not is_idle_input]
    return min(active) if active else None
