"""What a Beam pipeline run by panes returns: Beam's ``PipelineResult``, whose ``state``,
``wait_until_finish``, ``cancel`` and ``metrics()`` are panes' run's."""

from __future__ import annotations

import contextlib

from apache_beam.runners import runner as beam_runner

from panes.errors import UserCodeError
from panes.runners.beam.metrics import MetricResults


@contextlib.contextmanager
def beam_errors():
    """A user function's error surfaces as itself (Beam's ``BeamAssertException``,
    ``TypeCheckError``, the user's own), as Beam's runners raise it."""
    try:
        yield
    except UserCodeError as error:
        raise error.cause from None


class PipelineResult(beam_runner.PipelineResult):
    """A finished batch run, or a running streaming one (``--streaming`` on Spark)."""

    def __init__(self, result):
        super().__init__(result.state)
        self.result = result

    @property
    def state(self) -> str:
        return self.result.state

    def wait_until_finish(self, duration=None) -> str:
        with beam_errors():
            return self.result.wait_until_finish(duration)

    def cancel(self) -> str:
        cancel = getattr(self.result, "cancel", None)
        return self.state if cancel is None else cancel()

    def metrics(self) -> MetricResults:
        return MetricResults(self.result.metrics()._container)
