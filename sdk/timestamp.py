"""Event time inside panes: plain int microseconds, as in Beam, and conversion from what users
write.

Users give seconds (int or float), ``datetime`` objects, or Beam's ``Timestamp``/``Duration``
(``panes.utils.timestamp``, re-exported here); every runner and the windowing engine compute on
ints of microseconds, and public objects turn them back into ``Timestamp``s where users look.
"""

from __future__ import annotations

import datetime as _dt

from panes.utils.timestamp import MAX_TIMESTAMP, MIN_TIMESTAMP, Duration, Timestamp

__all__ = [
    "MICROS_PER_SECOND",
    "MIN_MICROS",
    "MAX_MICROS",
    "GLOBAL_WINDOW_END_MICROS",
    "GLOBAL_WINDOW_MAX_MICROS",
    "Timestamp",
    "Duration",
    "to_micros",
    "check_timestamps",
]

MICROS_PER_SECOND = 1_000_000
# -inf and +inf of event time: Beam's MIN_TIMESTAMP and MAX_TIMESTAMP.
MIN_MICROS = MIN_TIMESTAMP.micros
MAX_MICROS = MAX_TIMESTAMP.micros
# Beam ends the global window one day before the end of time, so that the end-of-window timer
# and garbage collection have room to fire; its last timestamp is the microsecond before.
GLOBAL_WINDOW_END_MICROS = MAX_MICROS - 86_400 * MICROS_PER_SECOND
GLOBAL_WINDOW_MAX_MICROS = GLOBAL_WINDOW_END_MICROS - 1

_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)


def to_micros(value) -> int:
    """Converts seconds, ``datetime`` (naive means UTC), ``timedelta``, ``Timestamp`` or
    ``Duration`` to micros; fractions of a microsecond are cut off, as Beam's ``Timestamp``
    does."""
    if type(value) is int:  # the common case first
        return value * MICROS_PER_SECOND
    if isinstance(value, (Timestamp, Duration)):
        return value.micros
    if isinstance(value, bool):
        raise TypeError(f"a time must be seconds, datetime, Timestamp or Duration, not {value!r}")
    if isinstance(value, (int, float)):
        return int(value * MICROS_PER_SECOND)
    if isinstance(value, _dt.datetime):
        aware = value if value.tzinfo else value.replace(tzinfo=_dt.timezone.utc)
        return Duration.of(aware - _EPOCH).micros
    if isinstance(value, _dt.timedelta):
        return Duration.of(value).micros
    raise TypeError(
        f"a time must be seconds (int/float), datetime, timedelta, Timestamp or Duration, "
        f"not {type(value).__name__}: {value!r}"
    )


def check_timestamps(label: str, timestamps, elements) -> None:
    """Fails naming the transform ``label`` and the first of ``elements`` whose timestamp (in
    micros) is outside Beam's range, ``MIN_TIMESTAMP`` to ``MAX_TIMESTAMP``: such a time has
    no window and would be lost or misjudged downstream."""
    if not timestamps or MIN_MICROS <= min(timestamps) and max(timestamps) <= MAX_MICROS:
        return
    from panes.errors import UserCodeError

    for micros, element in zip(timestamps, elements):
        if not MIN_MICROS <= micros <= MAX_MICROS:
            raise UserCodeError(
                label, element, outside_range(f"timestamp {micros / MICROS_PER_SECOND:g}s")
            )


def outside_range(what: str) -> ValueError:
    """The error for a time outside Beam's range; ``what`` names the time."""
    return ValueError(
        f"{what} is outside Beam's range ({MIN_MICROS / MICROS_PER_SECOND:g}s to "
        f"{MAX_MICROS / MICROS_PER_SECOND:g}s, int64 microseconds): give a time in seconds, a "
        "datetime or a Timestamp"
    )
