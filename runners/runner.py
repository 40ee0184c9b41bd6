"""What runners share, as Beam's ``apache_beam.runners.runner``: a run's state and result."""

from __future__ import annotations

from typing import NamedTuple

from panes.metrics.metric import MetricResults


class PipelineState:
    """The state of a run, as ``PipelineResult.state`` reports it (Beam's names)."""

    UNKNOWN = "UNKNOWN"
    RUNNING = "RUNNING"
    DONE = "DONE"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"

    @classmethod
    def is_terminal(cls, state: str) -> bool:
        return state in (cls.DONE, cls.FAILED, cls.CANCELLED)


class Captured(NamedTuple):
    """A collection's windowed values in event-log order, and the step at which each was
    emitted: what a runner collects for a capture, as two columns."""

    steps: list
    windowed_values: list


class PipelineResult:
    """What a finished run reports: its state, metrics and captured collections (``captures``:
    each capture's id to its ``Captured``)."""

    def __init__(self, metrics, captures: dict, state: str = PipelineState.DONE):
        self._state = state
        self._metrics = metrics
        self.captures = captures

    @property
    def state(self) -> str:
        return self._state

    def wait_until_finish(self, duration=None) -> str:
        """The final state: panes runners return from ``run()`` when the run has finished."""
        return self._state

    def metrics(self) -> MetricResults:
        return MetricResults(self._metrics)
