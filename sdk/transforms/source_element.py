"""How a source record becomes a windowed element (shared by every runner)."""

from __future__ import annotations

from collections.abc import Sequence

from panes.errors import UserCodeError, map_user_fn
from panes.timestamp import MICROS_PER_SECOND, MIN_MICROS, check_timestamps, to_micros
from panes.window import (
    GLOBAL_WINDOW,
    PANE_NO_FIRING,
    TimestampedValue,
    WindowedValue,
    windowed_value,
)

GLOBAL_WINDOWS = (GLOBAL_WINDOW,)


def source_element(label: str, record, timestamp_fn=None) -> WindowedValue:
    """The record in the global window, at its ``TimestampedValue`` time, ``timestamp_fn(record)``
    or -inf (Beam's timestamp for elements of a bounded source)."""
    if timestamp_fn is None and not isinstance(record, TimestampedValue):
        return windowed_value((record, MIN_MICROS, GLOBAL_WINDOWS, PANE_NO_FIRING))
    return windowed_value(
        (*source_value(label, record, timestamp_fn), GLOBAL_WINDOWS, PANE_NO_FIRING)
    )


def source_values(label: str, records: Sequence, timestamp_fn=None) -> tuple:
    """``source_value`` of each of a chunk of records, as ``(values, timestamps)``: the
    timestamp function runs under C-level ``map``, and whole seconds become micros in one
    pass."""
    if any(issubclass(kind, TimestampedValue) for kind in set(map(type, records))):
        pairs = [source_value(label, record, timestamp_fn) for record in records]
        return tuple(value for value, _ in pairs), tuple(time for _, time in pairs)
    if timestamp_fn is None:
        return records, [MIN_MICROS] * len(records)
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
        value, timestamp = record.value, record.timestamp_micros
    else:
        value, timestamp = record, MIN_MICROS
    if timestamp_fn is not None:
        try:
            timestamp = to_micros(timestamp_fn(value))
        except Exception as error:
            raise UserCodeError(label, value, error) from error
    check_timestamps(label, (timestamp,), (value,))
    return value, timestamp
