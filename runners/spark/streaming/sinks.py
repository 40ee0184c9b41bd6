"""The end of the streaming query: ``foreachBatch`` publishes each micro-batch's outputs once.

One pass over the micro-batch's rows writes every file sink's records, by the executors that
hold them, into staging files named by micro-batch and partition, and brings back only what is
small by design: captured values (tests) and metrics. The driver then publishes the staged
files under their final names (any files a crashed attempt of the same micro-batch left are
replaced), and records the micro-batch as committed with its metrics
(``checkpoint.CheckpointStore``). A micro-batch Spark replays after a crash redoes exactly
this; one already committed is skipped.
"""

from __future__ import annotations

import glob
import logging
import os
import shutil

from panes.compiler.lift import lift
from panes.errors import PipelineConstructionError, UserCodeError
from panes.io.capture import CaptureSink
from panes.io.parquet import ParquetSink
from panes.io.text import TextSink
from panes.metrics import MetricsContainer
from panes.runners.runner import Captured
from panes.runners.spark.collection import positioned
from panes.runners.spark.errors import worker_generator
from panes.runners.spark.streaming.rows import METRICS, TICK, load

log = logging.getLogger("panes.streaming")
FILE_SINKS = (TextSink, ParquetSink)


def check_sinks(ir) -> dict:
    """The pipeline's writes: node id -> sink; a clear error for a sink streaming cannot write."""
    sinks = {}
    for node in ir.nodes.values():
        if node.kind != "write":
            continue
        sink = lift(node.payload["sink"])
        if not isinstance(sink, (CaptureSink, *FILE_SINKS)):
            raise PipelineConstructionError(
                f"'{node.id}' writes to {type(sink).__name__}, which the streaming runner "
                f"cannot publish exactly once; use WriteToText or WriteToParquet"
            )
        sinks[node.id] = sink
    return sinks


def staging_directory(sink) -> str:
    prefix = os.path.abspath(sink.file_path_prefix)
    return os.path.join(os.path.dirname(prefix), f".panes-staging-{os.path.basename(prefix)}")


def final_name(sink, batch_id: int, partition: int) -> str:
    return f"{sink.file_path_prefix}-{batch_id:08d}-{partition:05d}{sink.file_name_suffix}"


class BatchCommitter:
    """The ``foreachBatch`` function; keeps the run's captured values and metrics."""

    def __init__(self, sinks: dict, store, label: str):
        self.sinks, self.store, self.label = sinks, store, label
        self.captures: dict = {}
        self.metrics = store.metrics()
        self._published: dict = {}  # batch id -> outputs published (for progress)

    def published(self, batch_id: int) -> int:
        return self._published.pop(batch_id, 0)

    def __call__(self, frame, batch_id: int) -> None:
        if self.store.is_committed(batch_id):
            # Published before a crash: run it for the state it writes, publish nothing.
            log.info("panes: micro-batch %d was published before a restart", batch_id)
            frame.write.format("noop").mode("overwrite").save()
            return
        sinks = {label: sink for label, sink in self.sinks.items() if isinstance(sink, FILE_SINKS)}
        staging = {label: staging_directory(sink) for label, sink in sinks.items()}
        write = _partition_writer(sinks, staging, batch_id)
        # A worker's UserCodeError stays encoded in the failure's text, for the query's end
        # (result.wait_until_finish) to raise as itself.
        results = frame.rdd.mapPartitionsWithIndex(worker_generator(write)).collect()
        metrics, staged, published = MetricsContainer(), [], 0
        captured: dict = {}
        for kind, label, payload in results:
            if kind == METRICS:
                metrics.merge(payload)
            elif kind == "staged":
                staged.append((label, payload[:2]))
                published += payload[2]
            else:
                captured.setdefault(label, []).extend(payload)
                published += len(payload)
        self._publish(batch_id, staged)
        self.store.commit(batch_id, metrics)
        self.metrics.merge(metrics)
        for label, records in captured.items():
            batch = positioned(sorted(records, key=lambda r: r[0]))
            so_far = self.captures.setdefault(self.sinks[label].capture_id, Captured([], []))
            so_far.steps.extend(batch.steps)
            so_far.windowed_values.extend(batch.windowed_values)
        self._published[batch_id] = published

    def _publish(self, batch_id: int, staged: list) -> None:
        """Moves the staged files of ``batch_id`` under their final names, after removing any
        that a crashed attempt of the same micro-batch published."""
        for sink in self.sinks.values():
            if isinstance(sink, FILE_SINKS):
                for stale in glob.glob(
                    f"{glob.escape(sink.file_path_prefix)}-{batch_id:08d}-*"
                    f"{glob.escape(sink.file_name_suffix)}"
                ):
                    os.remove(stale)
        for label, (partition, path) in staged:
            sink = self.sinks[label]
            os.makedirs(
                os.path.dirname(os.path.abspath(final_name(sink, batch_id, partition))),
                exist_ok=True,
            )
            os.replace(path, final_name(sink, batch_id, partition))
        for sink in self.sinks.values():
            if isinstance(sink, FILE_SINKS):
                shutil.rmtree(
                    os.path.join(staging_directory(sink), str(batch_id)), ignore_errors=True
                )


def _partition_writer(sinks: dict, staging: dict, batch_id: int):
    """Runs on the executors: writes a partition's records of each file sink to one staging
    file, and returns staged names, captured values and metrics."""

    def write(partition, rows):
        by_route: dict = {}
        for row in rows:
            if row.route == METRICS:
                yield METRICS, None, load(row.data)
            elif row.route != TICK:
                by_route.setdefault(row.route, []).extend(load(row.data))
        for label, records in by_route.items():
            if label not in sinks:
                yield "captured", label, records
                continue
            records.sort(key=lambda record: record[0])
            path = os.path.join(
                staging[label], str(batch_id), f"{label.replace('/', '_')}-{partition:05d}"
            )
            os.makedirs(os.path.dirname(path), exist_ok=True)
            try:
                sinks[label].write_shard(path, [wv.value for _, wv in records], label)
            except UserCodeError:
                raise
            except Exception as error:
                raise UserCodeError(label, None, error) from error
            yield "staged", label, (partition, path, len(records))

    return write
