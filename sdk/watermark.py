"""Watermark strategies for sources (Flink's ``WatermarkStrategy``), as data plus pure logic.

Convention: a watermark ``w`` promises that no element with a timestamp before ``w`` is still to
come (Beam's). Flink's bounded-out-of-orderness generator emits ``max - delay - 1`` under its own
"at or before" convention; both say the same thing, so here the watermark is ``max - delay``.

``WatermarkStrategy`` is the API; it lowers to ``panes.ir.io.WatermarkStrategy`` (``to_ir``),
which the functions here read. The watermark after each record depends only on the running
maximum of the timestamps seen so far, an associative scan: a segment of the source (a Spark
partition's run of a file; the whole source on the direct runner) is summarized by where its
running maximum rises (``running_maxima``); given where it starts and the largest timestamp
before it, each segment finds its own changes (``segment_changes``), so the segments' summaries
need not meet in one place, and in order they give every change of the watermark
(``watermark_changes``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from panes.ir import io as ir
from panes.timestamp import MIN_MICROS, Duration

__all__ = [
    "WatermarkStrategy",
    "to_ir",
    "running_maxima",
    "watermark_changes",
    "segment_changes",
    "rising",
    "watermark_for_max",
    "next_emission_point",
    "is_idle",
    "combine_input_watermarks",
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
    idle_timeout: Duration | None = None
    emit_every: int = 1

    def __post_init__(self):
        object.__setattr__(self, "max_out_of_orderness", Duration.of(self.max_out_of_orderness))
        if self.idle_timeout is not None:
            object.__setattr__(self, "idle_timeout", Duration.of(self.idle_timeout))
        if self.max_out_of_orderness.micros < 0:
            raise ValueError("WatermarkStrategy: max_out_of_orderness must not be negative")
        if self.idle_timeout is not None and self.idle_timeout.micros < 0:
            raise ValueError("WatermarkStrategy: idle_timeout must not be negative")
        if (
            isinstance(self.emit_every, bool)
            or not isinstance(self.emit_every, int)
            or self.emit_every < 1
        ):
            raise ValueError(
                f"WatermarkStrategy: emit_every must be a positive integer, got {self.emit_every!r}"
            )

    @classmethod
    def for_bounded_out_of_orderness(cls, max_delay) -> WatermarkStrategy:
        return cls(max_out_of_orderness=max_delay)

    @classmethod
    def for_monotonous_timestamps(cls) -> WatermarkStrategy:
        return cls()

    def with_idleness(self, timeout) -> WatermarkStrategy:
        return replace(self, idle_timeout=timeout)

    def with_periodic_emission(self, every_n_records: int) -> WatermarkStrategy:
        return replace(self, emit_every=every_n_records)

    forBoundedOutOfOrderness = for_bounded_out_of_orderness
    forMonotonousTimestamps = for_monotonous_timestamps
    withIdleness = with_idleness


def to_ir(strategy: WatermarkStrategy) -> ir.WatermarkStrategy:
    idle = strategy.idle_timeout
    return ir.WatermarkStrategy(
        strategy.max_out_of_orderness.micros,
        None if idle is None else idle.micros,
        strategy.emit_every,
    )


def watermark_for_max(max_timestamp: int, strategy: ir.WatermarkStrategy) -> int:
    """The watermark once the largest timestamp seen is ``max_timestamp``."""
    if max_timestamp == MIN_MICROS:
        return MIN_MICROS
    return max(MIN_MICROS, max_timestamp - strategy.max_out_of_orderness)


def next_emission_point(record_index: int, strategy: ir.WatermarkStrategy) -> int:
    """The first 0-based record index at or after ``record_index`` after which the watermark is
    (re)emitted: every ``emit_every``-th record."""
    return record_index + (strategy.emit_every - 1 - record_index) % strategy.emit_every


def running_maxima(timestamps: Iterable[int]) -> tuple:
    """What the scan needs of one segment of the source: how many records it has, and where
    their running maximum rises, as ``(index in the segment, new maximum)``."""
    running, maxima, count = MIN_MICROS, [], 0
    for count, timestamp in enumerate(timestamps, 1):
        if timestamp > running:
            running = timestamp
            maxima.append((count - 1, timestamp))
    return count, maxima


def watermark_changes(segments: Sequence[tuple], strategy: ir.WatermarkStrategy) -> list[tuple]:
    """``(record index, watermark)`` wherever the watermark changes, from the ``running_maxima``
    of the source's segments in order."""
    total = sum(count for count, _ in segments)
    start, entering, tentative = 0, MIN_MICROS, []
    for count, maxima in segments:
        tentative += segment_changes(start, count, entering, maxima, total, strategy)
        if maxima:
            entering = max(entering, maxima[-1][1])
        start += count
    return rising(tentative)


def segment_changes(
    start: int, count: int, entering: int, maxima: Sequence[tuple], total: int, strategy
) -> list[tuple]:
    """One segment's part of the scan, given where it starts in the source, the largest
    timestamp before it (``entering``) and its ``running_maxima``: ``(record index,
    watermark)`` at its first emission point and wherever a rise of its own running maximum
    reaches an emission point in it. The watermark moves at the first emission point at or
    after a rise, to the watermark of the largest maximum by then. The first point is
    tentative: whether it changes the watermark depends on the segments before (``rising``
    keeps the changes), so each segment's part needs only two numbers from the others."""
    end = min(start + count, total)
    first = next_emission_point(start, strategy)
    if first >= end:
        return []
    points, running = [(first, entering)], entering
    for index, maximum in maxima:
        point = next_emission_point(start + index, strategy)
        if point >= end:
            break
        running = max(running, maximum)
        if points[-1][0] == point:
            points[-1] = (point, running)
        else:
            points.append((point, running))
    return [(point, watermark_for_max(maximum, strategy)) for point, maximum in points]


def rising(changes: Iterable[tuple], current: int = MIN_MICROS) -> list[tuple]:
    """The ``(index, watermark)`` points of segments' parts, in source order, where the
    watermark really changes: it only rises."""
    kept = []
    for index, watermark in changes:
        if watermark > current:
            current = watermark
            kept.append((index, watermark))
    return kept


def is_idle(last_arrival_time: int, now: int, strategy: ir.WatermarkStrategy) -> bool:
    """Whether a source whose last record arrived at ``last_arrival_time`` (processing time)
    is idle at ``now``."""
    timeout = strategy.idle_timeout
    return timeout is not None and now - last_arrival_time >= timeout


def combine_input_watermarks(watermarks: Sequence[int], idle: Sequence[bool]) -> int | None:
    """The watermark of several inputs: the minimum over the active ones; None when every input
    is idle (the combined watermark then stays where it was)."""
    active = [w for w, is_idle_input in zip(watermarks, idle) if not is_idle_input]
    return min(active) if active else None
