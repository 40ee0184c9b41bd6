"""Event time at Beam's module path ``apache_beam.utils.timestamp`` (defined in
``panes.timestamp``)."""

from panes.timestamp import MAX_TIMESTAMP, MIN_TIMESTAMP, Duration, Timestamp

__all__ = ["Timestamp", "Duration", "MIN_TIMESTAMP", "MAX_TIMESTAMP"]
