"""Event time as int64 microseconds, as in Beam, and conversion from what users write.

Users may give seconds (int or float), ``datetime`` objects, or ``Timestamp``/``Duration``
objects; everything inside panes is a plain ``int`` of microseconds.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass

MICROS_PER_SECOND = 1_000_000
MIN_TIMESTAMP = -(2**63)
MAX_TIMESTAMP = 2**63 - 1
# Beam ends the global window one day before the end of time, so that the end-of-window
# timer and garbage collection have room to fire.
GLOBAL_WINDOW_MAX_TIMESTAMP = MAX_TIMESTAMP - 86_400 * MICROS_PER_SECOND

_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)


@dataclass(frozen=True, order=True)
class Timestamp:
    """A point in event time; ``Timestamp(seconds=1.5)`` or ``Timestamp(micros=1_500_000)``."""

    micros: int

    def __init__(self, seconds: float = 0, micros: int = 0):
        object.__setattr__(self, "micros", int(round(seconds * MICROS_PER_SECOND)) + int(micros))

    @classmethod
    def of(cls, value) -> "Timestamp":
        return cls(micros=to_micros(value))

    def seconds(self) -> float:
        return self.micros / MICROS_PER_SECOND

    def __repr__(self) -> str:
        return f"Timestamp({format_micros(self.micros)})"


@dataclass(frozen=True, order=True)
class Duration:
    """A span of event or processing time; ``Duration(seconds=60)``."""

    micros: int

    def __init__(self, seconds: float = 0, micros: int = 0):
        object.__setattr__(self, "micros", int(round(seconds * MICROS_PER_SECOND)) + int(micros))

    @classmethod
    def of(cls, value) -> "Duration":
        return cls(micros=to_micros(value))

    def seconds(self) -> float:
        return self.micros / MICROS_PER_SECOND

    def __repr__(self) -> str:
        return f"Duration({self.micros / MICROS_PER_SECOND:g}s)"


def to_micros(value) -> int:
    """Converts seconds, ``datetime``, ``timedelta``, ``Timestamp`` or ``Duration`` to micros."""
    if type(value) is int:  # the common case first
        return value * MICROS_PER_SECOND
    if isinstance(value, (Timestamp, Duration)):
        return value.micros
    if isinstance(value, bool):
        raise TypeError(f"a time must be seconds, datetime, Timestamp or Duration, not {value!r}")
    if isinstance(value, int):
        return value * MICROS_PER_SECOND
    if isinstance(value, float):
        return int(round(value * MICROS_PER_SECOND))
    if isinstance(value, _dt.datetime):
        aware = value if value.tzinfo else value.replace(tzinfo=_dt.timezone.utc)
        return _timedelta_micros(aware - _EPOCH)
    if isinstance(value, _dt.timedelta):
        return _timedelta_micros(value)
    raise TypeError(
        f"a time must be seconds (int/float), datetime, timedelta, Timestamp or Duration, "
        f"not {type(value).__name__}: {value!r}"
    )


def _timedelta_micros(delta: _dt.timedelta) -> int:
    return (delta.days * 86_400 + delta.seconds) * MICROS_PER_SECOND + delta.microseconds


def format_micros(micros: int) -> str:
    """Readable form of a time in micros: ``-inf``, ``+inf`` or seconds."""
    if micros <= MIN_TIMESTAMP:
        return "-inf"
    if micros >= MAX_TIMESTAMP:
        return "+inf"
    if micros == GLOBAL_WINDOW_MAX_TIMESTAMP:
        return "global-max"
    return f"{micros / MICROS_PER_SECOND:g}s"


def check_timestamps(label: str, timestamps, elements) -> None:
    """Fails naming the transform ``label`` and the first of ``elements`` whose timestamp (in
    micros) is outside Beam's range, ``MIN_TIMESTAMP`` to ``MAX_TIMESTAMP``: such a time has
    no window and would be lost or misjudged downstream."""
    if not timestamps or MIN_TIMESTAMP <= min(timestamps) and max(timestamps) <= MAX_TIMESTAMP:
        return
    from panes.errors import UserCodeError

    for micros, element in zip(timestamps, elements):
        if not MIN_TIMESTAMP <= micros <= MAX_TIMESTAMP:
            raise UserCodeError(label, element, ValueError(
                f"timestamp {micros / MICROS_PER_SECOND:g}s is outside Beam's range "
                f"({MIN_TIMESTAMP / MICROS_PER_SECOND:g}s to "
                f"{MAX_TIMESTAMP / MICROS_PER_SECOND:g}s, int64 microseconds): give a time in "
                f"seconds, a datetime or a Timestamp"))
