"""Windows, window functions, panes and windowed values.

Window functions are immutable data: the IR stores their fields, never a pickle (only a user's
own ``WindowFn`` subclass is pickled). Their ``assign``/``merge`` methods are pure functions of
the element's timestamp, so every runner assigns windows identically.
"""

from __future__ import annotations

import abc
import copyreg
import enum
from bisect import bisect_right
from dataclasses import dataclass
from functools import partial
from typing import Any, Iterable, NamedTuple, Optional

from panes.timestamp import (
    GLOBAL_WINDOW_MAX_TIMESTAMP,
    MAX_TIMESTAMP,
    MICROS_PER_SECOND,
    MIN_TIMESTAMP,
    Duration,
    Timestamp,
    to_micros,
)

__all__ = [
    "BoundedWindow", "IntervalWindow", "GlobalWindow", "GLOBAL_WINDOW",
    "WindowFn", "NonMergingWindowFn", "GlobalWindows", "FixedWindows", "SlidingWindows",
    "Sessions", "CountWindows", "TimestampCombiner", "PaneInfo", "PaneInfoTiming", "WindowedValue",
    "TimestampedValue", "Timestamp", "Duration", "MIN_TIMESTAMP", "MAX_TIMESTAMP",
]


class BoundedWindow(abc.ABC):
    """A window: every element in it has a timestamp at most ``max_timestamp()``."""

    @abc.abstractmethod
    def max_timestamp(self) -> int:
        raise NotImplementedError


class IntervalWindow(NamedTuple):
    """The half-open interval ``[start, end)`` of event time, in micros.

    A named tuple, so that the millions of windows a large run makes hash, compare and pickle
    at C speed.
    """

    start: int
    end: int

    def max_timestamp(self) -> int:
        return self.end - 1

    def intersects(self, other: "IntervalWindow") -> bool:
        return self.start < other.end and other.start < self.end

    def span(self, other: "IntervalWindow") -> "IntervalWindow":
        return IntervalWindow(min(self.start, other.start), max(self.end, other.end))

    def __repr__(self) -> str:
        return f"[{self.start / 1e6:g}s, {self.end / 1e6:g}s)"


BoundedWindow.register(IntervalWindow)

# An IntervalWindow from a ``(start, end)`` pair, built in C: a named tuple's own constructor is
# a Python function, and large runs make millions of windows.
interval_window = partial(tuple.__new__, IntervalWindow)


@dataclass(frozen=True, eq=False, slots=True)
class GlobalWindow(BoundedWindow):
    """The single window that holds all of event time. There is one instance, so equality and
    hashing are by identity (the fast ones: every element of a global-window grouping hashes
    it)."""

    def __new__(cls):
        try:
            return GLOBAL_WINDOW
        except NameError:  # making the one instance
            return object.__new__(cls)

    def max_timestamp(self) -> int:
        return GLOBAL_WINDOW_MAX_TIMESTAMP

    def __repr__(self) -> str:
        return "GlobalWindow"

    def __reduce__(self):
        return _global_window, ()


GLOBAL_WINDOW = GlobalWindow()


def _global_window() -> GlobalWindow:
    return GLOBAL_WINDOW


def window_order(window) -> tuple:
    """The order in which runners emit one key's panes of a step: by end, then start."""
    return window.max_timestamp(), getattr(window, "start", MIN_TIMESTAMP)


class TimestampCombiner(enum.Enum):
    """How the output timestamp of a pane is derived from its inputs' timestamps."""

    OUTPUT_AT_EOW = "end_of_window"
    OUTPUT_AT_EARLIEST = "earliest"
    OUTPUT_AT_LATEST = "latest"


class PaneInfoTiming(enum.Enum):
    EARLY = "EARLY"
    ON_TIME = "ON_TIME"
    LATE = "LATE"
    UNKNOWN = "UNKNOWN"


class PaneInfo(NamedTuple):
    """One firing of one window: its timing, its index, and whether it is the first/last."""

    is_first: bool
    is_last: bool
    timing: PaneInfoTiming
    index: int
    nonspeculative_index: int

    def __repr__(self) -> str:
        flags = ("first " if self.is_first else "") + ("last " if self.is_last else "")
        return (f"Pane({flags}{self.timing.value} index={self.index} "
                f"nonspeculative={self.nonspeculative_index})")


PANE_NO_FIRING = PaneInfo(True, True, PaneInfoTiming.UNKNOWN, 0, 0)


class WindowedValue(NamedTuple):
    """An element as runners carry it: value, event time (micros), windows and pane."""

    value: Any
    timestamp: int
    windows: tuple
    pane: PaneInfo = PANE_NO_FIRING

    def with_value(self, value) -> "WindowedValue":
        return WindowedValue(value, self.timestamp, self.windows, self.pane)


def _as_tuple(value):
    return tuple.__new__, (type(value), tuple(value))


# Picklers (cloudpickle, which PySpark ships data with) look a type up in copyreg's table before
# falling back to the object's own __reduce_ex__; for named tuples that fallback is several
# times slower, and runners ship millions of these. Unpickling builds each with tuple.__new__,
# in C, not through the named tuple's Python-level __new__: a session result (a windowed value
# with its window and pane) unpickles in 0.5 µs instead of 0.9 µs.
for _named_tuple in (IntervalWindow, PaneInfo, WindowedValue):
    copyreg.pickle(_named_tuple, _as_tuple)


class TimestampedValue:
    """Returned from a ``Map``/``DoFn`` to give an element an event time (seconds or Timestamp)."""

    __slots__ = ("value", "timestamp")

    def __init__(self, value, timestamp):
        self.value = value
        # Whole seconds, the common case, without a call: Maps make one of these per element.
        self.timestamp = (timestamp * MICROS_PER_SECOND if type(timestamp) is int
                          else to_micros(timestamp))

    def __eq__(self, other):
        return (isinstance(other, TimestampedValue)
                and (self.value, self.timestamp) == (other.value, other.timestamp))

    def __hash__(self):
        return hash((self.value, self.timestamp))

    def __repr__(self) -> str:
        return f"TimestampedValue({self.value!r}, {self.timestamp / 1e6:g}s)"


class AssignContext:
    """What ``WindowFn.assign`` sees of an element (Beam's ``WindowFn.AssignContext``)."""

    __slots__ = ("timestamp", "element", "window")

    def __init__(self, timestamp: int, element=None, window=None):
        self.timestamp = timestamp
        self.element = element
        self.window = window


class MergeContext:
    """Collects the merges a merging ``WindowFn`` decides (Beam's ``WindowFn.MergeContext``)."""

    def __init__(self, windows: Iterable):
        self.windows = list(windows)
        self.merges: list[tuple[tuple, Any]] = []

    def merge(self, to_be_merged, merge_result) -> None:
        self.merges.append((tuple(to_be_merged), merge_result))


class WindowFn:
    """Assigns elements to windows; subclass it (with ``assign`` and ``merge``) for custom ones."""

    def assign(self, context: AssignContext) -> list:
        raise NotImplementedError

    def merge(self, merge_context: MergeContext) -> None:
        """Merging window functions call ``merge_context.merge`` for each merge."""

    def is_merging(self) -> bool:
        return type(self).merge is not WindowFn.merge

    def assign_timestamp(self, timestamp: int) -> list:
        return self.assign(AssignContext(timestamp))

    def get_window_coder(self):
        return None


class NonMergingWindowFn(WindowFn):
    """Base for custom window functions that never merge."""


def as_duration(obj, name: str) -> int:
    """Coerces the frozen dataclass field ``name`` (seconds, timedelta or Duration) to a
    ``Duration`` (idempotent, so ``dataclasses.replace`` is safe) and returns its micros."""
    duration = Duration.of(getattr(obj, name))
    object.__setattr__(obj, name, duration)
    return duration.micros


@dataclass(frozen=True)
class GlobalWindows(WindowFn):
    """Every element in the one global window (the default)."""

    def assign(self, context):
        return [GLOBAL_WINDOW]


@dataclass(frozen=True)
class FixedWindows(WindowFn):
    """Tumbling windows of ``size``; ``offset`` shifts their start (e.g. -8 h for UTC+8 days)."""

    size: Duration
    offset: Duration = Duration(0)

    def __post_init__(self):
        size = as_duration(self, "size")
        offset = as_duration(self, "offset")
        if size <= 0:
            raise ValueError(f"FixedWindows size must be positive, got {self.size}")
        object.__setattr__(self, "offset", Duration(micros=offset % size))

    def assign(self, context):
        size = self.size.micros
        start = context.timestamp - (context.timestamp - self.offset.micros) % size
        return [IntervalWindow(start, start + size)]


@dataclass(frozen=True)
class SlidingWindows(WindowFn):
    """Windows of ``size`` starting every ``period``; an element falls into size/period of them."""

    size: Duration
    period: Duration
    offset: Duration = Duration(0)

    def __post_init__(self):
        size, period = as_duration(self, "size"), as_duration(self, "period")
        offset = as_duration(self, "offset")
        if size <= 0 or period <= 0:
            raise ValueError(
                f"SlidingWindows needs a positive size and period, got {self.size}/{self.period}")
        object.__setattr__(self, "offset", Duration(micros=offset % period))

    def assign(self, context):
        ts, size, period = context.timestamp, self.size.micros, self.period.micros
        last_start = ts - (ts - self.offset.micros) % period
        return [IntervalWindow(start, start + size)
                for start in range(last_start, ts - size, -period)]


@dataclass(frozen=True)
class Sessions(WindowFn):
    """Per-key sessions: activity separated by at least ``gap_size`` of silence (merging)."""

    gap_size: Duration

    def __post_init__(self):
        if as_duration(self, "gap_size") <= 0:
            raise ValueError(f"Sessions gap must be positive, got {self.gap_size}")

    def assign(self, context):
        return [IntervalWindow(context.timestamp, context.timestamp + self.gap_size.micros)]

    def merge(self, merge_context):
        merge_overlapping_intervals(merge_context)


@dataclass(frozen=True)
class CountWindows(WindowFn):
    """Per-key windows by element count, in arrival order (Storm, Flink ``countWindow``).

    Tumbling ``CountWindows(n)``: a pane every ``n`` elements, holding those ``n``. Sliding
    ``CountWindows(n, slide)``: a pane every ``slide`` elements, holding the last ``n``. Elements
    go to the global window; the windowing core supplies Flink's trigger and evictor
    (``PurgingTrigger(CountTrigger(n))``, or ``CountTrigger(slide)`` with ``CountEvictor(n)``)
    unless ``WindowInto`` names its own. Leftover elements are purged at the end, as in Flink.
    """

    size: int
    slide: Optional[int] = None

    def __post_init__(self):
        for name in ("size", "slide"):
            value = getattr(self, name)
            if value is None and name == "slide":
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"CountWindows {name} must be a positive integer, got {value!r}")

    def assign(self, context):
        return [GLOBAL_WINDOW]


def merge_overlapping_intervals(merge_context: MergeContext) -> None:
    """Merges every group of intersecting interval windows into their span (Sessions' rule,
    kept by ``SessionSlots``)."""
    sessions = SessionSlots()
    for window in merge_context.windows:
        index = sessions.place(window.start, window.end, _joined)
        members = sessions.slots[index]
        if members is None:
            sessions.slots[index] = [window]
        else:
            members.append(window)
    for start, end, members in zip(sessions.starts, sessions.ends, sessions.slots):
        if len(members) > 1:
            merge_context.merge(sorted(members), IntervalWindow(start, end))


def _joined(slots: list) -> list:
    return [window for slot in slots for window in slot]


class SessionSlots:
    """Sessions as they merge: disjoint intervals ``[starts[i], ends[i])`` sorted by start, each
    with its slot (what the caller keeps for it).

    Sessions merge every group of overlapping windows into their span, whatever order they
    come in: the spans are the connected parts of the windows' union. So a key can keep its
    sessions disjoint and sorted at all times — a window that overlaps some of them joins them
    into one — and end where merging all windows at once would. Sessions kept apart (e.g. by
    Spark partitions) join the same way.
    """

    __slots__ = ("starts", "ends", "slots")

    def __init__(self):
        self.starts: list = []
        self.ends: list = []
        self.slots: list = []

    def place(self, start: int, end: int, merge_slots) -> int:
        """The index of the session ``[start, end)`` belongs to once every session it overlaps
        has been merged into one (their slots by ``merge_slots(slots) -> slot``) and widened
        to cover it. Overlapping none, it becomes a new session whose slot is None."""
        starts, ends = self.starts, self.ends
        count = len(starts)
        # Sessions before `index` start at or before `start`: only the last of them can hold it.
        index = count if not count or start >= starts[-1] else bisect_right(starts, start)
        low = index - 1 if index and ends[index - 1] > start else index
        high = index
        while high < count and starts[high] < end:
            high += 1
        if low == high:
            starts.insert(index, start)
            ends.insert(index, end)
            self.slots.insert(index, None)
            return index
        if high - low > 1:
            slots = self.slots
            slots[low] = merge_slots(slots[low:high])
            ends[low] = ends[high - 1]
            del starts[low + 1:high], ends[low + 1:high], slots[low + 1:high]
        if start < starts[low]:
            starts[low] = start
        if end > ends[low]:
            ends[low] = end
        return low

    def merge_from(self, other: "SessionSlots", merge_slots) -> None:
        """Joins ``other``'s sessions and slots into these."""
        slots = self.slots
        for start, end, slot in zip(other.starts, other.ends, other.slots):
            index = self.place(start, end, merge_slots)
            slots[index] = slot if slots[index] is None else merge_slots([slots[index], slot])
