"""The end of the streaming query: ``foreachBatch`` publishes each micro-batch's outputs once.

Each file sink's records of a micro-batch are written by the executors that hold them, with
Spark's own writer (``file_writes``' rows: lines, or Arrow batches for Parquet) under Spark's
commit protocol, into a temporary directory beside the sink's prefix; the driver then publishes
them through Hadoop's ``FileSystem`` as a batch write publishes its shards (``panes.io.commit``):
any shard of the same micro-batch that a crashed attempt left is removed, the new ones take
their final names ``<prefix>-<micro-batch>-<partition><suffix>``, and the marker
``<prefix>-<micro-batch>.SUCCESS`` comes last. So any Hadoop file system works, and a
micro-batch's output is never two attempts mixed. Only micro-batches up to the last that left
anything before the query started can find an earlier attempt's files; later ones are
published fresh, without listing the output's directory, which grows with every micro-batch.
Only what is small by design comes back to the driver: captured values (tests), metrics and
the log records of user code. Last, the micro-batch is recorded as committed
(``checkpoint.CheckpointStore``): a micro-batch Spark replays after a crash is skipped if it
was, and redone whole otherwise.
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import posixpath
import re

from pyspark import TaskContext
from pyspark.sql import functions as F

from panes.compiler.lift import lift
from panes.errors import PipelineConstructionError
from panes.io.capture import CaptureSink
from panes.io.commit import TEMPORARY_PREFIX, temporary_stem, write_and_publish
from panes.io.parquet import ParquetSink
from panes.io.text import TextSink
from panes.metrics import MetricsContainer
from panes.runners.fusion import CHUNK
from panes.runners.runner import Captured
from panes.runners.spark import worker_logs
from panes.runners.spark.collection import positioned
from panes.runners.spark.errors import reported_by_the_query, stopped_mid_batch, worker_generator
from panes.runners.spark.file_writes import form_for, part_files
from panes.runners.spark.metrics import PerPartition
from panes.runners.spark.streaming.rows import METRICS, load

log = logging.getLogger("panes.streaming")
FILE_SINKS = (TextSink, ParquetSink)
SCHEMA_SAMPLE = 1000  # records per partition a Parquet schema is inferred from


@dataclasses.dataclass(frozen=True)
class FileOutput:
    """A file sink of the pipeline: its IR form, its sink, and its prefix as Hadoop names it
    (a relative path made absolute against the driver's working directory)."""

    ir_sink: object
    sink: TextSink | ParquetSink
    prefix: str

    def batch_prefix(self, batch_id: int) -> str:
        return f"{self.prefix}-{batch_id:08d}"

    def shard_name(self, batch_id: int, partition: int) -> str:
        return f"{self.batch_prefix(batch_id)}-{partition:05d}{self.sink.file_name_suffix}"

    def shard_regex(self, batch_id: int) -> re.Pattern:
        """Matches the base name of any shard of micro-batch ``batch_id``."""
        name = self.batch_prefix(batch_id).rsplit("/", 1)[-1]
        return re.compile(
            re.escape(f"{name}-") + r"\d{5}" + re.escape(self.sink.file_name_suffix) + r"\Z"
        )

    def last_batch(self, fs) -> int:
        """The last micro-batch with a shard, a marker or a temporary directory under this
        prefix (-1: none)."""
        name = posixpath.basename(self.prefix)
        batch = re.compile(rf"(?:{re.escape(TEMPORARY_PREFIX)})?{re.escape(name)}-(\d{{8,}})[-.]")
        stem = f"{self.prefix}-"
        paths = fs.list_prefix(stem) + fs.list_prefix(temporary_stem(stem))
        found = (batch.match(posixpath.basename(path)) for path in paths)
        return max((int(match[1]) for match in found if match), default=-1)


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


def file_outputs(ir, sinks: dict, fs) -> dict:
    """Node id -> ``FileOutput`` of each file sink, its prefix qualified by ``fs``."""
    return {
        label: FileOutput(
            ir.nodes[label].payload["sink"], sink, fs.qualified(sink.file_path_prefix)
        )
        for label, sink in sinks.items()
        if isinstance(sink, FILE_SINKS)
    }


class BatchCommitter:
    """The ``foreachBatch`` function; keeps the run's captured values and metrics."""

    def __init__(self, sinks: dict, files: dict, store, fs, label: str, counter=None):
        self.sinks, self.files, self.store, self.fs = sinks, files, store, fs
        self.label = label
        # What counts outside the rows (or None): ``start(batch_id)`` before a micro-batch's
        # jobs, then ``counted(batch_id)``, its metrics.
        self.counter = counter
        self.captures: dict = {}
        self.metrics = store.metrics()
        # Sink -> the last micro-batch that may find files of an earlier attempt.
        self._attempted = {label: output.last_batch(fs) for label, output in files.items()}
        self._published: dict = {}  # batch id -> outputs published (for progress)
        # Set as the query is cancelled: a micro-batch interrupted then was stopped, not failed.
        self.stopping = False

    def published(self, batch_id: int) -> int:
        return self._published.pop(batch_id, 0)

    def __call__(self, frame, batch_id: int) -> None:
        try:
            self._commit(frame, batch_id)
        except Exception as error:
            stopped = stopped_mid_batch(error) if self.stopping else None
            if stopped is not None:
                raise reported_by_the_query(stopped) from None
            reported_by_the_query(error)
            raise

    def _commit(self, frame, batch_id: int) -> None:
        if self.counter is not None:
            self.counter.start(batch_id)
        if self.store.is_committed(batch_id):
            # Published before a crash: run it for the state it writes, publish nothing.
            log.info("panes: micro-batch %d was published before a restart", batch_id)
            frame.write.format("noop").mode("overwrite").save()
            return
        small = [METRICS, *(label for label in self.sinks if label not in self.files)]
        # The first file sink whose schema is known also gathers the small rows as it writes,
        # so the stateful stages run in one Spark job; they are kept for any other job.
        gatherer = next((label for label, out in self.files.items() if not _infers(out)), None)
        jobs = len(self.files) + sum(map(_infers, self.files.values())) + (gatherer is None)
        if jobs > 1:
            frame.persist()
        try:
            published, gathered = 0, []
            for label, output in self.files.items():
                written, rows = self._write(
                    frame, batch_id, label, output, small if label == gatherer else []
                )
                published += written
                gathered.extend(rows)
            if gatherer is None:
                gathered = frame.where(F.col("route").isin(small)).select("route", "data").collect()
        finally:
            if jobs > 1:
                frame.unpersist()
        metrics, captured, logs = _small(gathered)
        if self.counter is not None:
            metrics.merge(self.counter.counted(batch_id))
        worker_logs.emit(logs)
        published += sum(len(records) for records in captured.values())
        total = MetricsContainer()  # a new one: the result may be reading the current one
        total.merge(self.metrics)
        total.merge(metrics)
        self.store.commit(batch_id, total)
        self.metrics = total
        for label, records in captured.items():
            batch = positioned(sorted(records, key=lambda r: r[0]))
            so_far = self.captures.setdefault(self.sinks[label].capture_id, Captured([], []))
            so_far.steps.extend(batch.steps)
            so_far.windowed_values.extend(batch.windowed_values)
        self._published[batch_id] = published

    def _write(self, frame, batch_id: int, label: str, output: FileOutput, gather) -> tuple:
        """Writes and publishes one file sink's records of the micro-batch; returns how many,
        and the ``(route, data)`` rows routed to ``gather`` that its tasks met on the way."""
        sink = output.sink
        rows = frame.where(F.col("route").isin([label, *gather])).select("route", "data")
        if _infers(output):  # never a gatherer: its rows are the sink's alone
            sink = dataclasses.replace(sink, schema=_inferred_schema(rows, sink, label))
        reports = frame.sparkSession.sparkContext.accumulator({}, PerPartition())

        def write(temporary):
            if isinstance(sink, ParquetSink) and sink.schema is None:
                return []  # no records to infer a schema from: only the marker
            form = form_for(output.ir_sink, sink, label)
            shard_rows = worker_generator(_shard_rows(form, label, reports))
            form.save(rows.mapInArrow(shard_rows, "row binary"), temporary)
            if not _written(reports):
                return []
            return [
                (path, output.shard_name(batch_id, partition))
                for partition, path in sorted(part_files(self.fs, temporary).items())
            ]

        write_and_publish(
            self.fs,
            output.batch_prefix(batch_id),
            output.shard_regex(batch_id),
            write,
            fresh=batch_id > self._attempted[label],
        )
        return _written(reports), [row for _, met in reports.value.values() for row in met]


def _infers(output: FileOutput) -> bool:
    """Whether the sink's schema is inferred from each micro-batch's records (a Spark job)."""
    return isinstance(output.sink, ParquetSink) and output.sink.schema is None


def _written(reports) -> int:
    return sum(count for count, _ in reports.value.values())


def _small(rows) -> tuple:
    """The metrics, captured values (capture sink -> records) and task log records of the
    micro-batch's small rows."""
    metrics, captured, logs = MetricsContainer(), dict[str, list](), []
    for route, data in rows:
        if route == METRICS:
            container, task_logs = load(data)
            metrics.merge(container)
            logs.append(task_logs)
        else:
            captured.setdefault(route, []).extend(load(data))
    return metrics, captured, logs


def _shard_rows(form, label: str, reports):
    """Runs on the executors: a partition's records of one sink, in position order, as the
    Arrow batches of its shard's rows (none for a partition without records). Its other
    rows, and how many records it wrote, go to ``reports``, once per partition whatever Spark
    retries."""

    def rows(batches):
        import pyarrow as pa

        records, met = [], []
        for batch in batches:
            for route, data in zip(batch["route"].to_pylist(), batch["data"].to_pylist()):
                if route == label:
                    records.extend(load(data))
                else:
                    met.append((route, data))
        reports.add({TaskContext.get().partitionId(): (len(records), met)})
        if not records:
            return
        records.sort(key=lambda record: record[0])
        values = [value for _, value in records]
        chunks = (form.row(values[start : start + CHUNK]) for start in range(0, len(values), CHUNK))
        schema = pa.schema([("row", pa.binary())])
        for row in itertools.chain(form.first_rows(), chunks):
            yield pa.RecordBatch.from_pydict({"row": list(row)}, schema)

    return rows


def _inferred_schema(rows, sink, label: str):
    """The Parquet schema of a micro-batch's records, inferred on the executors from the
    first records of the first partition that has any (a schema is small); None without
    records."""

    import pyarrow as pa

    def sample(batches):
        records = [
            record
            for batch in batches
            for data in batch["data"].to_pylist()
            for record in load(data)
        ]
        if records:
            records.sort(key=lambda record: record[0])
            values = [value for _, value in records[:SCHEMA_SAMPLE]]
            schema = sink.schema_for(label, values).serialize().to_pybytes()
            yield pa.RecordBatch.from_pydict({"schema": [schema]})

    schemas = rows.mapInArrow(worker_generator(sample), "schema binary").take(1)
    return pa.ipc.read_schema(pa.py_buffer(schemas[0].schema)) if schemas else None
