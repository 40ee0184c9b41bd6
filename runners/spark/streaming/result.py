"""A running streaming pipeline, as Beam's ``PipelineResult`` presents one: its state,
``wait_until_finish(duration)``, ``cancel()`` and the metrics of committed micro-batches,
while it runs and after."""

from __future__ import annotations

import itertools
import math
import time

from panes.metrics import MetricResults
from panes.runners.runner import PipelineResult, PipelineState
from panes.runners.spark.errors import surfaced_errors

RUNNING, DONE = PipelineState.RUNNING, PipelineState.DONE
CANCELLED, FAILED = PipelineState.CANCELLED, PipelineState.FAILED
WAIT_SECONDS = 0.2  # between a waiting driver's looks at the query


class StreamingPipelineResult(PipelineResult):
    """The result of ``Pipeline.run()`` under ``--streaming``."""

    def __init__(self, query, committer, label: str, on_end=None):
        super().__init__(committer.metrics, committer.captures, RUNNING)
        self.query, self.committer, self.label = query, committer, label
        self._on_end = on_end

    @property
    def state(self) -> str:
        if self._state == RUNNING and not self.query.isActive:
            self._finished()
        return self._state

    def wait_until_finish(self, duration=None) -> str:
        """Blocks until the query ends (``duration``: at most that many milliseconds, as in
        Beam); a failure surfaces as the error a batch run raises (``UserCodeError`` for user
        code). Ctrl-C cancels the query, then goes on as a KeyboardInterrupt. Returns the
        state."""
        waits = None if duration is None else math.ceil(duration / 1000 / WAIT_SECONDS)
        with surfaced_errors(self.label):
            try:
                ended = self._await(waits)
            except KeyboardInterrupt:
                self.cancel()
                raise
            except BaseException:
                self._end(FAILED)
                raise
        if ended:
            self._finished()
        return self._state

    def _await(self, waits) -> bool:
        """Whether the query ended within ``waits`` waits of ``WAIT_SECONDS`` (None: it waits
        for the end). It waits between short calls to the JVM, so that Ctrl-C interrupts a
        sleep of Python's, not a call that py4j would then log with its traces."""
        for _ in itertools.count() if waits is None else range(waits):
            if self.query.awaitTermination(0.001):  # raises the query's failure
                return True
            time.sleep(WAIT_SECONDS)
        return bool(self.query.awaitTermination(0.001))

    def metrics(self) -> MetricResults:
        """The metrics of the micro-batches committed so far (all of them once it ended)."""
        return MetricResults(self.committer.metrics)

    def cancel(self) -> str:
        """Stops the query; outputs of committed micro-batches stay, the checkpoint is intact."""
        self.committer.stopping = True
        self.query.stop()
        self._end(CANCELLED)
        return self._state

    def _finished(self) -> None:
        if self.query.exception() is not None:
            self.wait_until_finish()  # raises the failure
        self._end(DONE)

    def _end(self, state: str) -> None:
        if self._state == RUNNING:
            self._state = state
            if self._on_end is not None:
                self._on_end(self.query.exception() if state == FAILED else None)
