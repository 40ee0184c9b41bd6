"""Evictors (Flink): remove elements from a window's buffer before and/or after a firing.

Frozen dataclasses holding configuration only; ``panes.windowing.evicting`` applies them. A
strategy with an evictor buffers every element (no incremental aggregation), because the
evictor must see them all. ``DeltaEvictor.fn`` is the one user function (pickled in the IR).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from panes.timestamp import Duration

__all__ = ["Evictor", "CountEvictor", "TimeEvictor", "DeltaEvictor"]


def check_delta(kind: str, threshold, fn) -> None:
    """A delta trigger's or evictor's threshold is a number and its function a callable."""
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise ValueError(f"{kind} needs a number as threshold, got {threshold!r}")
    if not callable(fn):
        raise ValueError(f"{kind} needs a function fn(a, b) -> float, got {fn!r}")


class Evictor:
    """Base of all evictors. ``evict_before``: applied before the window function;
    ``evict_after``: applied to the buffer after it (Flink's ``doEvictAfter``)."""


@dataclass(frozen=True)
class CountEvictor(Evictor):
    """Keeps the last ``max_count`` elements (in arrival order), evicting the oldest."""

    max_count: int
    evict_before: bool = True
    evict_after: bool = False

    def __post_init__(self):
        if (
            isinstance(self.max_count, bool)
            or not isinstance(self.max_count, int)
            or self.max_count < 1
        ):
            raise ValueError(f"CountEvictor needs a positive max_count, got {self.max_count!r}")

    @classmethod
    def of(cls, max_count: int, do_evict_after: bool = False) -> CountEvictor:
        return cls(max_count, evict_before=not do_evict_after, evict_after=do_evict_after)


@dataclass(frozen=True)
class TimeEvictor(Evictor):
    """Keeps the elements within ``window_size`` of the newest one: evicts every element whose
    timestamp is at or before ``max_timestamp - window_size`` (as Flink's code does)."""

    window_size: Duration
    evict_before: bool = True
    evict_after: bool = False

    def __post_init__(self):
        object.__setattr__(self, "window_size", Duration.of(self.window_size))
        if self.window_size.micros < 0:
            raise ValueError(
                f"TimeEvictor needs a window_size of 0 or more, got {self.window_size}"
            )

    @classmethod
    def of(cls, window_size, do_evict_after: bool = False) -> TimeEvictor:
        return cls(window_size, evict_before=not do_evict_after, evict_after=do_evict_after)


@dataclass(frozen=True)
class DeltaEvictor(Evictor):
    """Evicts every element whose ``fn(element, last_element) >= threshold``."""

    threshold: float
    fn: Callable[..., float] = field(compare=False)
    evict_before: bool = True
    evict_after: bool = False

    def __post_init__(self):
        check_delta("DeltaEvictor", self.threshold, self.fn)

    @classmethod
    def of(cls, threshold: float, fn, do_evict_after: bool = False) -> DeltaEvictor:
        return cls(threshold, fn, evict_before=not do_evict_after, evict_after=do_evict_after)
