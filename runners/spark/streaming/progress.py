"""Progress of a streaming pipeline, one line per micro-batch through Python logging at INFO
(logger ``panes.streaming``): rows read and their rate, Spark's watermark, rows in the state
store, outputs published and how long the micro-batch took. Under a heartbeat (a micro-batch a
second, ``sources.heartbeat_frame``), a micro-batch that read nothing else and published nothing
is *idle*: the first of a run of them is logged at INFO, the rest at DEBUG. A query that fails is
logged at ERROR with its cause in one line (the user's error, or Spark's), also when nobody
waits for it.

The lines come from a driver thread that reads the query's progress, not from a Spark
``StreamingQueryListener``: Spark calls a listener from the JVM whenever it likes, also while
(or after) the Python driver exits, which then fails with a trace on the console."""

from __future__ import annotations

import logging
import threading

from panes.runners.spark.errors import failure_summary
from panes.runners.spark.streaming.sources import HEARTBEAT_SOURCE

log = logging.getLogger("panes.streaming")
POLL_SECONDS = 0.5
IDLE_NOTE = " (idle: the next idle micro-batches are logged at DEBUG)"


class ProgressLogger:
    """Logs the progress of ``query`` (named ``name``) until ``stop``; ``published(batch id)``
    gives how many outputs a micro-batch published; ``heartbeat``: whether the query reads a
    heartbeat, a row per micro-batch."""

    def __init__(self, query, name: str, published, heartbeat: bool = False):
        self.query, self.name, self.published = query, name, published
        self._heartbeat = heartbeat
        self._logged = -1  # the last micro-batch logged
        self._idle = False  # whether the last micro-batch logged was idle
        self._failure_logged = False
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"panes progress {name}")
        self._thread.daemon = True

    def start(self) -> None:
        log.info("panes: streaming pipeline '%s' started (query %s)", self.name, self.query.id)
        self._thread.start()

    def stop(self, exception=None) -> None:
        """Logs what is left and the query's end."""
        self._stopped.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join()
        self._log_new()
        if exception is None:
            log.info("panes: streaming query %s ended", self.query.id)
        else:
            self._log_failure(exception)

    def _run(self) -> None:
        while not self._stopped.wait(POLL_SECONDS):
            try:
                self._log_new()
                if not self.query.isActive:
                    exception = self.query.exception()
                    if exception is not None:
                        self._log_failure(exception)
                    return
            except Exception:  # the session is going away with the driver
                return

    def _log_failure(self, exception) -> None:
        if not self._failure_logged:
            self._failure_logged = True
            log.error(
                "panes: streaming pipeline '%s' (query %s) failed: %s",
                self.name,
                self.query.id,
                failure_summary(exception),
            )

    def _log_new(self) -> None:
        """Logs the micro-batches run since the last logged. The last progress is one call;
        Spark's recent ones (up to 100, each a call) are read only when more than one came."""
        last = self.query.lastProgress
        if last is None or last.batchId <= self._logged:
            return
        recent = self.query.recentProgress if last.batchId > self._logged + 1 else [last]
        for progress in recent:
            if progress.batchId > self._logged and _ran(progress):
                self._logged = progress.batchId
                self._log(progress)
        if not _ran(last):  # every micro-batch before the one to come has run
            self._logged = max(self._logged, last.batchId - 1)

    def _heartbeat_rows(self, progress) -> int:
        if not self._heartbeat:
            return 0
        return sum(
            source.numInputRows
            for source in progress.sources
            if source.description.startswith(HEARTBEAT_SOURCE)
        )

    def _log(self, progress) -> None:
        state_rows = sum(operator.numRowsTotal for operator in progress.stateOperators)
        rows = progress.numInputRows - self._heartbeat_rows(progress)
        rate = progress.processedRowsPerSecond * rows / progress.numInputRows if rows else 0.0
        published = self.published(progress.batchId)
        idle = self._heartbeat and not rows and not published
        log.log(
            logging.DEBUG if idle and self._idle else logging.INFO,
            "panes: '%s' micro-batch %d: %d rows in (%.1f rows/s), watermark %s, %d state "
            "rows, %d outputs published, %d ms%s",
            self.name,
            progress.batchId,
            rows,
            rate,
            progress.eventTime.get("watermark", "-"),
            state_rows,
            published,
            progress.batchDuration,
            IDLE_NOTE if idle and not self._idle else "",
        )
        self._idle = idle


def _ran(progress) -> bool:
    """Whether ``progress`` is a micro-batch's, not Spark's note that a trigger found nothing to
    run, which carries the id of the micro-batch still to come."""
    return "addBatch" in progress.durationMs
