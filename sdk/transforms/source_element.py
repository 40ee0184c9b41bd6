"""How a source record becomes a windowed element (shared by every runner)."""

from __future__ import annotations

from collections.abc import Sequence

from panes.errors import UserCodeError, map_user_fn
from panes.timestamp import MICROS_PER_SECOND, MIN_TIMESTAMP, check_timestamps, to_micros
from panes.window import GLOBAL_WINDOW, TimestampedValue, WindowedValue

GLOBAL_WINDOWS = (GLOBAL_WINDOW,)


def source_element(label: str, record, timestamp_fn=None) -> WindowedValue:
    """The record in the global window, at its ``TimestampedValue`` time, ``timestamp_fn(record)``
    or -inf (Beam's timestamp for elements of a bounded source)."""
    if timestamp_fn is None and not isinstance(record, TimestampedValue):
        return WindowedValue(record, MIN_TIMESTAMP, GLOBAL_WINDOWS)
    return WindowedValue(*source_value(label, record, timestamp_fn), GLOBAL_WINDOWS)


def source_values(label: str, records: Sequence, timestamp_fn=None) -> tuple:
    """``source_value`` of each of a chunk of records, as ``(values, timestamps)``: the
    timestamp function runs under C-level ``map``, and whole seconds become micros in one
    pass."""
    if any(issubclass(kind, TimestampedValue) for kind in set(map(type, records))):
        values, timestamps = zip(*[source_value(label, record, timestamp_fn)
                                   for record in records])
        return values, timestamps
    if timestamp_fn is None:
        return records, [MIN_TIMESTAMP] * len(records)
    times = map_user_fn(label, timestamp_fn, records)
    if set(map(type, times)) == {int}:
        timestamps = [time * MICROS_PER_SECOND for time in times]
    else:
        timestamps = map_user_fn(label, to_micros, times, records)
    check_timestamps(label, timestamps, records)
    return records, timestamps


def source_value(label: str, record, timestamp_fn=None) -> tuple:
    """``(value, timestamp)`` of a source record, as ``source_element`` gives them."""
    if isinstance(record, TimestampedValue):
        value, timestamp = record.value, record.timestamp
    else:
        value, timestamp = record, MIN_TIMESTAMP
    if timestamp_fn is not None:
        try:
            timestamp = to_micros(timestamp_fn(value))
        except Exception as error:
            raise UserCodeError(label, value, error) from error
    check_timestamps(label, (timestamp,), (value,))
    return value, timestamp
