"""Unbounded sources: files arriving in a directory, and any streaming DataFrame.

Under ``--streaming`` ``ReadFromText(pattern)`` and ``ReadFromParquet(pattern)`` watch the
pattern's directory with Spark's file source (new files only, in order, ``max_files_per_trigger``
at a time), and ``ReadFromSpark(df)`` reads a streaming DataFrame the user built (the rate
source, Kafka, Delta, ...) with its rows as dicts. Each micro-batch is one step: its rows are
one bundle, positioned by partition and row, and the step is the micro-batch's timestamp
(``current_timestamp()``, which Spark keeps in its offset log, so a replayed micro-batch sees
the same). A source's watermark strategy becomes the watermark column: each row's timestamp
minus the strategy's out-of-orderness, whose maximum Spark keeps as its watermark.

A pipeline that waits on processing time also reads a *heartbeat*: Spark's
``rate-micro-batch`` source, a row per micro-batch, each turned into an empty row for every
key bucket of its groupings. Spark runs a micro-batch only when some source has data, and
calls a key bucket only when it has rows or an event-time timer; the heartbeat gives each
bucket a call per micro-batch, with the micro-batch's timestamp as processing time, so
processing-time triggers and timers fire while no data arrives. (The source takes part in
``Trigger.AvailableNow`` with one row, where the ``rate`` source would turn the query into a
single micro-batch.)
"""

from __future__ import annotations

import datetime
import os
import posixpath

from panes.compiler.lift import lift
from panes.errors import PipelineConstructionError
from panes.io.base import Read
from panes.io.dataframe import DataFrameSource, ReadFromDataFrame
from panes.io.filesystems import FileSystems
from panes.io.parquet import ParquetSource
from panes.io.text import TextSource
from panes.runners.fusion import Chunk
from panes.runners.spark.hadoop import HadoopFileSystems
from panes.runners.spark.serializer import dumps
from panes.timestamp import MIN_MICROS
from panes.transforms.source_element import source_values
from panes.watermark import watermark_for_max
from panes.window import GLOBAL_WINDOW, PANE_NO_FIRING

BATCH_COLUMN = "_panes_batch"
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def ReadFromSpark(dataframe, label=None) -> Read:  # noqa: N802
    """Reads a Spark DataFrame's rows as dicts: a streaming DataFrame under ``--streaming``
    (e.g. ``spark.readStream.format("rate").load()``), or any DataFrame in batch."""
    return ReadFromDataFrame(dataframe, label=label)


def is_unbounded(node) -> bool:
    """Whether a read node is an unbounded source under ``--streaming``."""
    source = lift(node.payload["source"])
    if isinstance(source, (TextSource, ParquetSource)):
        return True
    return isinstance(source, DataFrameSource) and source.dataframe.isStreaming


def check_dataframes(nodes) -> None:
    """A clear error for a streaming DataFrame with its own ``withWatermark``: panes keeps the
    query's watermark from the read's strategy, and Spark refuses a second one once it moves."""
    for node in nodes:
        source = lift(node.payload)["source"]
        if isinstance(source, DataFrameSource) and "EventTimeWatermark" in plan_operators(
            source.dataframe
        ):
            raise PipelineConstructionError(
                f"'{node.id}' reads a DataFrame with its own withWatermark, which Spark would "
                f"refuse beside the watermark panes keeps; drop withWatermark from the "
                f"DataFrame and give the read the watermark: "
                f".with_watermarks(WatermarkStrategy.for_bounded_out_of_orderness(...))"
            )


def plan_operators(frame) -> set:
    """The names of the logical operators of ``frame``'s analyzed plan."""
    names, nodes = set(), [frame._jdf.queryExecution().analyzed()]
    while nodes:
        node = nodes.pop()
        names.add(node.nodeName())
        children = node.children()
        nodes.extend(children.apply(index) for index in range(children.size()))
    return names


def dataframe_session(nodes):
    """The session of the first DataFrame the unbounded sources ``nodes`` read, or None: the
    query runs on that session, which need not be the active one."""
    for node in nodes:
        source = lift(node.payload)["source"]
        if isinstance(source, DataFrameSource):
            return source.dataframe.sparkSession
    return None


def unbounded_frame(spark, node, options):
    """The source's rows as a streaming DataFrame, with the micro-batch's timestamp."""
    from pyspark.sql import functions

    payload = lift(node.payload)
    source = payload["source"]
    if payload["arrival_fn"] is not None:
        raise PipelineConstructionError(
            f"'{node.id}': an unbounded source's records arrive when Spark reads them; "
            f"arrival_fn is for bounded sources"
        )
    if isinstance(source, DataFrameSource):
        frame = source.dataframe
    else:
        frame = _file_stream(spark, node.id, source, options)
    return frame.withColumn(BATCH_COLUMN, functions.current_timestamp())


def _file_stream(spark, label, source, options):
    if getattr(source, "skip_header_lines", 0):
        raise PipelineConstructionError(
            f"'{label}': skip_header_lines is not supported on a watched directory"
        )
    local = FileSystems.get_scheme(source.file_pattern) is None
    qualified = HadoopFileSystems(spark.sparkContext).qualified(
        os.path.expanduser(source.file_pattern) if local else source.file_pattern
    )
    directory, pattern = posixpath.split(qualified)
    reader = spark.readStream.option("pathGlobFilter", pattern or "*")
    if options.max_files_per_trigger:
        reader = reader.option("maxFilesPerTrigger", int(options.max_files_per_trigger))
    if isinstance(source, TextSource):
        return reader.text(directory)
    try:
        schema = spark.read.parquet(source.file_pattern).schema
    except Exception as error:
        raise PipelineConstructionError(
            f"'{label}': watching {directory} for Parquet files needs one there already, to know "
            f"their schema ({error})"
        ) from None
    frame = reader.schema(schema).parquet(directory)
    return frame.select(*source.columns) if source.columns else frame


# How Spark describes the heartbeat's source in a micro-batch's progress.
HEARTBEAT_SOURCE = "RatePerMicroBatchStream[rowsPerBatch=1, numPartitions=1,"


def heartbeat_frame(spark, targets: list):
    """A row for each ``(route, key)`` of ``targets`` every micro-batch, in the ingest stage's
    schema (``ingest.INGEST_DDL``), with no records and no watermark."""
    from pyspark.sql import functions

    rate = (
        spark.readStream.format("rate-micro-batch")
        .option("rowsPerBatch", 1)
        .option("numPartitions", 1)
        .load()
    )
    beats = functions.array(
        *[
            functions.struct(functions.lit(route).alias("route"), functions.lit(key).alias("key"))
            for route, key in targets
        ]
    )
    return rate.select(functions.explode(beats).alias("beat")).select(
        "beat.route",
        "beat.key",
        functions.lit(0).cast("long").alias("step"),
        functions.lit(dumps([])).alias("data"),
        functions.lit(None).cast("timestamp").alias("wm"),
    )


def unbounded_decoder(node):
    """Decodes a micro-batch's rows of ``node`` into one chunk of its elements and the
    watermark column's value (see ``ingest.ingest``)."""
    payload, pcollection_id = lift(node.payload), node.outputs["main"]
    label, timestamp_fn, strategy = node.id, payload["timestamp_fn"], payload["watermark"]
    text = isinstance(payload["source"], TextSource)

    def decode(batch, task):
        if not batch.num_rows:
            return [], None
        step = batch_step(batch)
        rows = batch.drop_columns([BATCH_COLUMN])
        records = rows.column(0).to_pylist() if text else rows.to_pylist()
        values, timestamps = source_values(label, records, timestamp_fn)
        count, start = len(records), task.rows
        task.rows += count
        positions = [(step, task.partition, start + index) for index in range(count)]
        chunk = Chunk(
            positions,
            list(values),
            list(timestamps),
            [(GLOBAL_WINDOW,)] * count,
            [PANE_NO_FIRING] * count,
        )
        return [(pcollection_id, chunk)], _watermark_column(timestamps, strategy)

    return decode


def batch_step(batch) -> int:
    """The step of a micro-batch's Arrow batch: its timestamp (``BATCH_COLUMN``), in micros."""
    return _micros(batch.column(BATCH_COLUMN)[0].as_py())


def _watermark_column(timestamps, strategy):
    """The strategy's watermark after these timestamps, as the column's timestamp (whole
    milliseconds, rounded down), or None without a strategy."""
    if strategy is None:
        return None
    watermark = watermark_for_max(max(timestamps), strategy)
    if watermark == MIN_MICROS:
        return None
    return _EPOCH + datetime.timedelta(milliseconds=watermark // 1000)


def _micros(moment) -> int:
    return (moment - _EPOCH) // datetime.timedelta(microseconds=1)
