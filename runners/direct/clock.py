"""Beam's clocks (``apache_beam.runners.direct.clock``): a ``TestClock`` a test moves by hand,
for what reads the processing time through a clock (``GeneralTriggerDriver``)."""

from __future__ import annotations

from panes.timestamp import Duration, Timestamp


class TestClock:
    """A processing-time clock that moves only when told (``advance_time``)."""

    __test__ = False  # a test's tool, not a test

    def __init__(self, current_time=None):
        self._current_time = Timestamp.of(current_time or 0)

    def time(self) -> float:
        """The current time, in seconds."""
        return float(self._current_time)

    def advance_time(self, advance_by) -> None:
        self._current_time += Duration.of(advance_by)
