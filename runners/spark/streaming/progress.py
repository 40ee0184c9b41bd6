"""Progress of a streaming pipeline, one line per micro-batch through Python logging at INFO
(logger ``panes.streaming``): rows read and their rate, Spark's watermark, rows in the state
store, outputs published and how long the micro-batch took."""

from __future__ import annotations

import logging

from pyspark.sql.streaming import StreamingQueryListener

log = logging.getLogger("panes.streaming")


class ProgressLogger(StreamingQueryListener):
    """Logs the progress of the query named ``name``; ``published(batch id)`` gives how many
    outputs a micro-batch published."""

    def __init__(self, name: str, published):
        self.name, self.published = name, published

    def onQueryStarted(self, event) -> None:
        if event.name == self.name:
            log.info("panes: streaming pipeline '%s' started (query %s)", self.name, event.id)

    def onQueryProgress(self, event) -> None:
        progress = event.progress
        if progress.name != self.name:
            return
        state_rows = sum(operator.numRowsTotal for operator in progress.stateOperators)
        log.info(
            "panes: '%s' micro-batch %d: %d rows in (%.1f rows/s), watermark %s, %d state "
            "rows, %d outputs published, %d ms",
            self.name,
            progress.batchId,
            progress.numInputRows,
            progress.processedRowsPerSecond,
            progress.eventTime.get("watermark", "-"),
            state_rows,
            self.published(progress.batchId),
            progress.batchDuration,
        )

    def onQueryIdle(self, event) -> None:
        pass

    def onQueryTerminated(self, event) -> None:
        log.info(
            "panes: streaming query %s ended%s",
            event.id,
            f" with {event.exception}" if event.exception else "",
        )
