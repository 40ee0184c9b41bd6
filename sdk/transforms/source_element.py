"""How a source record becomes a windowed element (shared by every runner)."""

from __future__ import annotations

from panes.errors import UserCodeError
from panes.timestamp import MIN_TIMESTAMP, to_micros
from panes.window import GLOBAL_WINDOW, TimestampedValue, WindowedValue

GLOBAL_WINDOWS = (GLOBAL_WINDOW,)


def source_element(label: str, record, timestamp_fn=None) -> WindowedValue:
    """The record in the global window, at its ``TimestampedValue`` time, ``timestamp_fn(record)``
    or -inf (Beam's timestamp for elements of a bounded source)."""
    if timestamp_fn is None and not isinstance(record, TimestampedValue):
        return WindowedValue(record, MIN_TIMESTAMP, GLOBAL_WINDOWS)
    return WindowedValue(*source_value(label, record, timestamp_fn), GLOBAL_WINDOWS)


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
    return value, timestamp
