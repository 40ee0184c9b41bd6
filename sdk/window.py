"""Windows, window functions, panes and windowed values.

Window functions are immutable data: each lowers to its IR form (``panes.ir.windowing``), never
a pickle (only a user's own ``WindowFn`` subclass is pickled). Their ``assign``/``merge``
methods are pure functions of the element's timestamp, so every runner assigns windows
identically.

Windows and windowed values are what Beam's are to user code (bounds and timestamps are
``Timestamp``s; ``IntervalWindow(2, 25)`` is seconds), and tuples of int microseconds to
runners, which make, hash, compare and pickle millions of them: runners read
``start_micros``/``end_micros``/``timestamp_micros`` and build them with ``interval_window`` and
``windowed_value`` (C-level constructors from a tuple of micros).
"""

from __future__ import annotations

import copyreg
import enum
from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any, NamedTuple

from panes.ir.windowing import TimestampCombiner
from panes.timestamp import (
    GLOBAL_WINDOW_END_MICROS,
    MAX_MICROS,
    MICROS_PER_SECOND,
    MIN_MICROS,
    Duration,
    Timestamp,
    to_micros,
)
from panes.utils.sessions import SessionSlots
from panes.utils.timestamp import MAX_TIMESTAMP, MIN_TIMESTAMP

__all__ = [
    "BoundedWindow",
    "IntervalWindow",
    "GlobalWindow",
    "GLOBAL_WINDOW",
    "WindowFn",
    "NonMergingWindowFn",
    "GlobalWindows",
    "FixedWindows",
    "SlidingWindows",
    "Sessions",
    "CountWindows",
    "TimestampCombiner",
    "PaneInfo",
    "PaneInfoTiming",
    "WindowedValue",
    "TimestampedValue",
    "Timestamp",
    "Duration",
    "MIN_TIMESTAMP",
    "MAX_TIMESTAMP",
]


class BoundedWindow:
    """A window whose elements all have timestamps before ``end`` (Beam's ``BoundedWindow``).
    A custom kind of window subclasses it and calls ``super().__init__(end)``. Windows order
    by their end, then their start."""

    __slots__ = ()
    start_micros = MIN_MICROS  # what a window without a start orders as

    def __init__(self, end):
        self._end = Timestamp.of(end)

    @property
    def end(self) -> Timestamp:
        return self._end

    @property
    def end_micros(self) -> int:
        return self.end.micros

    @property
    def max_timestamp_micros(self) -> int:
        """``max_timestamp()`` as the windowing engine reads it."""
        return self.end_micros - 1

    def max_timestamp(self) -> Timestamp:
        """The last timestamp in the window: the microsecond before its end."""
        return Timestamp(micros=self.max_timestamp_micros)

    def __lt__(self, other) -> bool:
        return (self.end_micros, self.start_micros) < (other.end_micros, other.start_micros)

    def __le__(self, other) -> bool:
        return (self.end_micros, self.start_micros) <= (other.end_micros, other.start_micros)

    def __gt__(self, other) -> bool:
        return (self.end_micros, self.start_micros) > (other.end_micros, other.start_micros)

    def __ge__(self, other) -> bool:
        return (self.end_micros, self.start_micros) >= (other.end_micros, other.start_micros)


class _IntervalMicros(NamedTuple):
    start_micros: int
    end_micros: int


class IntervalWindow(_IntervalMicros, BoundedWindow):
    """The half-open interval ``[start, end)`` of event time: ``IntervalWindow(2, 25)`` is
    seconds 2 to 25 (numbers, ``Timestamp``s or UTC datetimes, as in Beam).

    A tuple of its bounds in micros, so that it hashes (as Beam's does: on those micros) and
    compares for equality at C speed; ``start`` and ``end`` are Timestamps made on demand.
    """

    __slots__ = ()

    def __new__(cls, start, end):
        return tuple.__new__(cls, (Timestamp.of(start).micros, Timestamp.of(end).micros))

    __init__ = object.__init__  # not BoundedWindow's: the bounds are the tuple

    @property
    def start(self) -> Timestamp:
        return Timestamp(micros=self[0])

    @property
    def end(self) -> Timestamp:
        return Timestamp(micros=self[1])

    def intersects(self, other: IntervalWindow) -> bool:
        return self[0] < other[1] and other[0] < self[1]

    def union(self, other: IntervalWindow) -> IntervalWindow:
        return interval_window((min(self[0], other[0]), max(self[1], other[1])))

    __lt__, __le__ = BoundedWindow.__lt__, BoundedWindow.__le__
    __gt__, __ge__ = BoundedWindow.__gt__, BoundedWindow.__ge__

    def __repr__(self) -> str:
        return f"[{self[0] / MICROS_PER_SECOND}, {self[1] / MICROS_PER_SECOND})"

    def __reduce__(self):
        """A subclass's window pickled by its micros, with its attributes (the tuple's own
        pickle would give ``__new__`` micros for seconds); IntervalWindow goes by copyreg."""
        return _window_of_class, (type(self), self[0], self[1]), getattr(self, "__dict__", None)


def _window_of_class(cls, start_micros: int, end_micros: int) -> IntervalWindow:
    return tuple.__new__(cls, (start_micros, end_micros))


# An IntervalWindow from a ``(start_micros, end_micros)`` pair, built in C.
interval_window = partial(tuple.__new__, IntervalWindow)


@dataclass(frozen=True, eq=False, slots=True)
class GlobalWindow(BoundedWindow):
    """The single window that holds all of event time. There is one instance, so equality and
    hashing are by identity (the fast ones: every element of a global-window grouping hashes
    it)."""

    end_micros = GLOBAL_WINDOW_END_MICROS

    def __new__(cls):
        try:
            return GLOBAL_WINDOW
        except NameError:  # making the one instance
            return object.__new__(cls)

    @property
    def start(self) -> Timestamp:
        return MIN_TIMESTAMP

    @property
    def end(self) -> Timestamp:
        return Timestamp(micros=GLOBAL_WINDOW_END_MICROS)

    def __repr__(self) -> str:
        return "GlobalWindow"

    def __reduce__(self):
        return _global_window, ()


GLOBAL_WINDOW = GlobalWindow()


def _global_window() -> GlobalWindow:
    return GLOBAL_WINDOW


def window_order(window) -> tuple:
    """The order in which runners emit one key's panes of a step: by end, then start."""
    return window.end_micros, window.start_micros


class PaneInfoTiming(enum.Enum):
    EARLY = "EARLY"
    ON_TIME = "ON_TIME"
    LATE = "LATE"
    UNKNOWN = "UNKNOWN"

    @staticmethod
    def to_string(timing: PaneInfoTiming) -> str:
        return timing.value

    @staticmethod
    def from_string(name: str) -> PaneInfoTiming:
        return PaneInfoTiming(name)


class PaneInfo(NamedTuple):
    """One firing of one window: its timing, its index, and whether it is the first/last."""

    is_first: bool
    is_last: bool
    timing: PaneInfoTiming
    index: int  # type: ignore[assignment]  # Beam's name; it hides tuple.index
    nonspeculative_index: int

    def __repr__(self) -> str:
        return (
            f"PaneInfo(first: {self.is_first!r}, last: {self.is_last!r}, timing: "
            f"{self.timing.value}, index: {self.index}, nonspeculative_index: "
            f"{self.nonspeculative_index})"
        )


PANE_NO_FIRING = PaneInfo(True, True, PaneInfoTiming.UNKNOWN, 0, 0)


class _WindowedValueFields(NamedTuple):
    value: Any
    timestamp_micros: int
    windows: tuple
    pane_info: PaneInfo


class WindowedValue(_WindowedValueFields):
    """An element with its event time, windows and pane, as runners carry it (Beam's
    ``WindowedValue``): ``WindowedValue(value, timestamp, windows)`` takes the time in seconds
    or as a Timestamp, and ``timestamp`` gives it back as a Timestamp."""

    __slots__ = ()

    def __new__(cls, value, timestamp, windows, pane_info=PANE_NO_FIRING):
        return tuple.__new__(
            cls, (value, Timestamp.of(timestamp).micros, tuple(windows), pane_info)
        )

    @property
    def timestamp(self) -> Timestamp:
        return Timestamp(micros=self[1])

    def with_value(self, value) -> WindowedValue:
        return windowed_value((value, self[1], self[2], self[3]))

    def __repr__(self) -> str:
        micros = self[1]
        timestamp = (
            "MIN_TIMESTAMP"
            if micros == MIN_MICROS
            else "MAX_TIMESTAMP"
            if micros == MAX_MICROS
            else micros / MICROS_PER_SECOND
        )
        return f"({self[0]!r}, {timestamp}, {self[2]}, {self[3]!r})"


# A WindowedValue from a ``(value, timestamp_micros, windows, pane_info)`` tuple, built in C.
windowed_value = partial(tuple.__new__, WindowedValue)


def _interval_window_of_micros(start_micros, end_micros) -> IntervalWindow:
    return tuple.__new__(IntervalWindow, (start_micros, end_micros))


def _windowed_value_of_micros(value, timestamp_micros, windows, pane_info) -> WindowedValue:
    return tuple.__new__(WindowedValue, (value, timestamp_micros, windows, pane_info))


_TIMINGS = {timing.value: timing for timing in PaneInfoTiming}


def pane_info_of(is_first, is_last, timing: str, index, nonspeculative_index) -> PaneInfo:
    """A pane from its fields, its timing by name (``PaneInfoTiming.value``)."""
    return tuple.__new__(
        PaneInfo, (is_first, is_last, _TIMINGS[timing], index, nonspeculative_index)
    )


# Picklers (cloudpickle, which PySpark ships data with) look a type up in copyreg's table before
# falling back to the object's own __reduce_ex__, which for these would call the constructors
# of seconds; runners ship millions of them, so they are rebuilt from their micros, by a
# function of flat arguments (the smallest and fastest pickle); a pane's timing goes by its
# name, which loads faster than the enum's own pickle.
copyreg.pickle(IntervalWindow, lambda window: (_interval_window_of_micros, tuple(window)))
copyreg.pickle(WindowedValue, lambda wv: (_windowed_value_of_micros, tuple(wv)))
copyreg.pickle(
    PaneInfo, lambda pane: (pane_info_of, (pane[0], pane[1], pane[2].value, pane[3], pane[4]))
)


class TimestampedValue:
    """Returned from a ``Map``/``DoFn`` to give an element an event time (seconds, Timestamp or
    datetime)."""

    __slots__ = ("value", "timestamp_micros")

    def __init__(self, value, timestamp):
        self.value = value
        # Whole seconds, the common case, without a call: Maps make one of these per element.
        self.timestamp_micros = (
            timestamp * MICROS_PER_SECOND if type(timestamp) is int else to_micros(timestamp)
        )

    @property
    def timestamp(self) -> Timestamp:
        return Timestamp(micros=self.timestamp_micros)

    def __eq__(self, other):
        return isinstance(other, TimestampedValue) and (self.value, self.timestamp_micros) == (
            other.value,
            other.timestamp_micros,
        )

    def __hash__(self):
        return hash((self.value, self.timestamp))

    def __repr__(self) -> str:
        return f"TimestampedValue({self.value!r}, {self.timestamp!r})"


class AssignContext:
    """What ``WindowFn.assign`` sees of an element (Beam's ``WindowFn.AssignContext``): its
    ``timestamp`` (a Timestamp), ``element`` and ``window``."""

    __slots__ = ("timestamp_micros", "element", "window")

    def __init__(self, timestamp, element=None, window=None):
        self.timestamp_micros = Timestamp.of(timestamp).micros
        self.element = element
        self.window = window

    @classmethod
    def at_micros(cls, micros: int, element=None, window=None) -> AssignContext:
        """The context of an element at ``micros``, as runners make it."""
        context = cls.__new__(cls)
        context.timestamp_micros, context.element, context.window = micros, element, window
        return context

    @property
    def timestamp(self) -> Timestamp:
        return Timestamp(micros=self.timestamp_micros)


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

    def assign_micros(self, micros: int) -> list:
        """The windows of an element at ``micros`` (whose value they do not depend on)."""
        return self.assign(AssignContext.at_micros(micros))

    def get_window_coder(self):
        return None


# Beam's nested names for the contexts: WindowFn.AssignContext(timestamp, element), ...
WindowFn.AssignContext = AssignContext  # type: ignore[attr-defined]
WindowFn.MergeContext = MergeContext  # type: ignore[attr-defined]


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
        size, timestamp = self.size.micros, context.timestamp_micros
        start = timestamp - (timestamp - self.offset.micros) % size
        return [interval_window((start, start + size))]


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
                f"SlidingWindows needs a positive size and period, got {self.size}/{self.period}"
            )
        object.__setattr__(self, "offset", Duration(micros=offset % period))

    def assign(self, context):
        ts, size, period = context.timestamp_micros, self.size.micros, self.period.micros
        last_start = ts - (ts - self.offset.micros) % period
        return [
            interval_window((start, start + size))
            for start in range(last_start, ts - size, -period)
        ]


@dataclass(frozen=True)
class Sessions(WindowFn):
    """Per-key sessions: activity separated by at least ``gap_size`` of silence (merging)."""

    gap_size: Duration

    def __post_init__(self):
        if as_duration(self, "gap_size") <= 0:
            raise ValueError(f"Sessions gap must be positive, got {self.gap_size}")

    def assign(self, context):
        timestamp = context.timestamp_micros
        return [interval_window((timestamp, timestamp + self.gap_size.micros))]

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
    slide: int | None = None

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
        index = sessions.place(window.start_micros, window.end_micros, _joined)
        members = sessions.slots[index]
        if members is None:
            sessions.slots[index] = [window]
        else:
            members.append(window)
    for start, end, members in zip(sessions.starts, sessions.ends, sessions.slots):
        if len(members) > 1:
            merge_context.merge(sorted(members), interval_window((start, end)))


def _joined(slots: list) -> list:
    return [window for slot in slots for window in slot]
