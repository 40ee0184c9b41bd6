"""A streaming pipeline whose one grouping is a lowerable chain (``panes.runners.shortcuts``:
a streaming DataFrame with its event time in a field → fixed, sliding or session windows with
the default trigger (or ``AfterWatermark()`` alone) and no allowed lateness →
``GroupBy(...).aggregate_field(...)``) runs it as Spark's own streaming aggregation, in the
JVM, with state per key and window:

    source ─▶ select (fields, event time) ─▶ mapInArrow (late rows counted, out) ─▶
    withWatermark ─▶ groupBy(keys, window).agg (append mode) ─▶
    mapInArrow (each window's row through the transforms after the chain) ─▶ foreachBatch (sinks)

It gives the engine's panes. The engine path's watermark is Spark's: the largest event time so
far less the strategy's delay, in whole milliseconds, as ``withWatermark`` keeps it, and a
window's one pane, on time and final, comes out in the micro-batch whose watermark passes its
end. A row is late for a window once the window has ended by the watermark of the micro-batch
that reads it (``BatchClocks``). Spark judges late rows after its partial aggregation, so it
counts groups, not rows, and, with several stateful operators allowed, by the micro-batch
before's watermark. So the query allows one (``SETTINGS``), and Spark drops by the
micro-batch's watermark; before the grouping, panes counts each row's ended windows by that
same watermark, which the driver hands its tasks, as the engine counts them
(``dropped_late``), and takes out the rows left in no window (``late_filter``).
"""

from __future__ import annotations

import threading
from typing import Any

from panes.compiler.lift import lift
from panes.errors import UserCodeError
from panes.ir import windowing as ir
from panes.metrics import MetricName, MetricsContainer
from panes.runners.fusion import Chunk
from panes.runners.shortcuts import sql_aggregation
from panes.runners.spark.aggregation_query import (
    EVENT_MICROS,
    SESSION_FROM,
    build_streaming_query,
    period_of,
    required_fields,
    time_error,
)
from panes.runners.spark.errors import TransportedError, transported
from panes.runners.spark.lowering import result_columns, row_maker
from panes.runners.spark.metrics import PerPartition
from panes.runners.spark.streaming.ingest import INGEST_DDL, ingest
from panes.runners.spark.streaming.sources import BATCH_COLUMN, batch_step, plan_operators
from panes.timestamp import MIN_MICROS
from panes.window import interval_window, windowed_value
from panes.windowing.batch import BATCH_PANE

# The local property that tells a micro-batch's tasks its id and watermark (micros).
BATCH_PROPERTY = "panes.lowered_batch"
# The settings the query runs with: Spark judges late rows by the micro-batch's watermark, as
# the engine does, not by the micro-batch before's (which it does when a query may have several
# stateful operators; this query has one). The flag is Spark's, kept for compatibility; the
# sliding windows' differential tests fail should a Spark ignore it.
SETTINGS = {"spark.sql.streaming.statefulOperator.allowMultiple": "false"}
# Spark's logical operators that keep state in a streaming query (a join, conservatively, even
# with a static side).
_STATEFUL = frozenset(
    {
        "Aggregate",
        "Deduplicate",
        "DeduplicateWithinWatermark",
        "Distinct",
        "FlatMapGroupsInPandasWithState",
        "FlatMapGroupsWithState",
        "GlobalLimit",
        "Join",
        "TransformWithState",
        "TransformWithStateInPandas",
        "TransformWithStateInPySpark",
    }
)


class LoweredGrouping:
    """The chain's aggregation, its query, where its windows' rows go on, and its late rows
    per micro-batch and partition (an accumulator, ``{(batch id, partition): count}``)."""

    def __init__(self, aggregation, output: str, spark_context):
        self.aggregation, self.output = aggregation, output
        self.label = aggregation.combine_label
        self.sc = spark_context
        self.late = spark_context.accumulator({}, PerPartition())
        self.query: Any = None  # the lazy DataFrame of the aggregation
        self._streaming_query: Any = None
        self._started = threading.Event()

    def started(self, streaming_query) -> None:
        """Called as soon as the query has started: its micro-batches' watermarks are read
        from it."""
        self._streaming_query = streaming_query
        self._started.set()

    def start(self, batch_id: int) -> None:
        """Before a micro-batch's jobs, on the thread that runs them: its id and watermark
        for its tasks (a watermark of 0 is none, as on the engine path)."""
        self._started.wait()
        execution = self._streaming_query._jsq.streamingQuery().lastExecution()
        watermark_ms = execution.offsetSeqMetadata().batchWatermarkMs()
        watermark = watermark_ms * 1000 if watermark_ms > 0 else MIN_MICROS
        self.sc.setLocalProperty(BATCH_PROPERTY, f"{batch_id} {watermark}")

    def counted(self, batch_id: int) -> MetricsContainer:
        """After a micro-batch's jobs: its late rows, as the grouping's ``dropped_late``."""
        late = dict(self.late.value)  # a straggling task of a micro-batch may still report
        dropped = sum(count for (batch, _), count in late.items() if batch == batch_id)
        for key in late:
            if key[0] <= batch_id:
                self.late.value.pop(key, None)
        metrics = MetricsContainer()
        if dropped:
            metrics.inc(self.label, MetricName("panes", "dropped_late"), dropped)
        return metrics

    def rows(self, ir_json: str, buckets: int):
        """The query's rows in the schema the sinks read (``rows.ROW_SCHEMA``)."""
        from pyspark.sql import functions

        stamped = self.query.withColumn(BATCH_COLUMN, functions.current_timestamp())
        decode = window_decoder(self.aggregation, self.output)
        return stamped.mapInArrow(ingest(ir_json, decode, buckets), INGEST_DDL).drop("wm")


def lowered_grouping(ir, unbounded: list, first: list, tail: list):
    """The pipeline's grouping as Spark's streaming aggregation, or None: the pipeline must
    have one source, one grouping and no tail, the grouping a streaming chain, and the source
    DataFrame's fields types the query reproduces."""
    if len(unbounded) != 1 or len(first) != 1 or tail:
        return None
    aggregation = sql_aggregation(ir, ir.nodes[first[0]], streaming=True)
    if aggregation is None or aggregation.replaced[0] != unbounded[0].id:
        return None
    frame = lift(aggregation.source).dataframe
    if _stateful(frame):
        return None
    output = ir.nodes[aggregation.replaced[-1]].outputs["main"]
    lowered = LoweredGrouping(aggregation, output, frame.sparkSession.sparkContext)
    delay = ir.nodes[aggregation.replaced[0]].payload["watermark"].max_out_of_orderness
    lowered.query = build_streaming_query(
        aggregation,
        frame,
        delay,
        lambda timed, schema: timed.mapInArrow(late_filter(aggregation, lowered.late), schema),
    )
    return lowered if lowered.query is not None else None


def _stateful(frame) -> bool:
    """Whether a streaming DataFrame keeps state of its own: what follows it would then go by
    its operators' watermark, not the micro-batch's."""
    return not _STATEFUL.isdisjoint(plan_operators(frame))


def late_filter(aggregation, late):
    """The ``mapInArrow`` function that counts into ``late`` each window of a row that has
    ended by the micro-batch's watermark (``BATCH_PROPERTY``), as the engine drops an element
    from each such window, and drops the rows left in none; Spark drops a sliding window's row
    from its ended windows itself, by the same watermark (``SETTINGS``). A None where Python
    fails fails the run as Python does (``required_fields``), and so does a time Python cannot
    take (``_time_failure``); so does a row in an open window
    that ends at or before 1970 (only before the watermark has passed 1970): Spark's watermark
    starts there, and would take such a window as ended. Sessions' rows get their
    ``SESSION_FROM`` (``aggregation_query._streaming_sessions``)."""
    window_fn, label = aggregation.strategy.window_fn, aggregation.timestamp_label
    windows, sessions = windows_of(window_fn), isinstance(window_fn, ir.Sessions)
    # The errors as text: an exception's own pickle may not rebuild it on a worker. A None
    # time fails every row, as the read's timestamp_fn does; a None value only a row on time,
    # as a late element never reaches the combiner.
    required = {field: transported(error) for field, error in required_fields(aggregation).items()}
    del required[aggregation.timestamp_field]  # checked with the other bad times

    def run(batches):
        from pyspark import TaskContext

        context = TaskContext.get()
        batch_id, watermark = _batch_of(context)
        dropped = 0
        for batch in batches:
            if batch.column(EVENT_MICROS).null_count:
                raise TransportedError(_time_failure(batch, aggregation))
            times = batch.column(EVENT_MICROS).to_numpy(zero_copy_only=False)
            opened, ended, earliest_end = windows(times, watermark)
            dropped += int(ended.sum())
            kept = opened > 0
            if (earliest_end[kept] <= 0).any():
                raise TransportedError(transported(_before_1970(label)))
            if not kept.all():
                batch, times = batch.filter(kept), times[kept]
            for field, error in required.items():
                if batch.column(field).null_count:
                    raise TransportedError(error)
            yield _with_session_from(batch, times, watermark) if sessions else batch
        late.add({(batch_id, context.partitionId()): dropped})

    return run


def _time_failure(batch, aggregation) -> str:
    """The error of the batch's first row whose time Python fails (its ``EVENT_MICROS`` is
    null: ``aggregation_query._micros``)."""
    import pyarrow.compute as pc

    first = pc.index(batch.column(EVENT_MICROS).is_null(), True).as_py()
    seconds = batch.column(aggregation.timestamp_field)[first].as_py()
    return transported(time_error(aggregation, seconds))


def _with_session_from(batch, times, watermark: int):
    """Sessions' rows with their ``SESSION_FROM``: the time, or the watermark if later
    (``aggregation_query._streaming_sessions``)."""
    import numpy
    import pyarrow as pa

    return batch.append_column(SESSION_FROM, pa.array(numpy.maximum(times, watermark), pa.int64()))


def windows_of(window_fn):
    """``windows_by_watermark`` of ``window_fn``'s windows; an element's session before merging
    is the gap from its time on."""
    if isinstance(window_fn, ir.Sessions):
        gap = window_fn.gap_size
        return lambda times, watermark: windows_by_watermark(times, watermark, gap, gap, times)
    size, period, offset = window_fn.size, period_of(window_fn), window_fn.offset
    return lambda times, watermark: windows_by_watermark(times, watermark, size, period, offset)


def windows_by_watermark(times, watermark: int, size: int, period: int, offset) -> tuple:
    """For event times (micros, a numpy array) in windows of ``size`` starting every ``period``
    from ``offset`` (or, an array, from each time's own): how many of each time's windows are
    open by ``watermark`` (end after it), how many have ended, and the end of its earliest open
    window. The windows of a time end ``period`` apart, the last one at ``last_end``; counted,
    not listed, so memory does not grow with ``size / period``."""
    import numpy

    last_end = times - numpy.mod(times - offset, period) + size
    held = -((times - last_end) // period)  # ends after the time: ceil((last_end - t) / period)
    # A watermark below every window's end opens them all; raised to there, it cannot overflow.
    raised = numpy.maximum(watermark, last_end - held * period)
    opened = numpy.maximum(-((raised - last_end) // period), 0)
    return opened, held - opened, last_end - (opened - 1) * period


def _batch_of(context) -> tuple:
    """``(micro-batch id, watermark)`` as the driver handed them to this task; refused when
    they are not this micro-batch's (without PySpark's pinned threads the property may land on
    another JVM thread)."""
    handed = context.getLocalProperty(BATCH_PROPERTY)
    running = context.getLocalProperty("streaming.sql.batchId")
    batch_id, watermark = map(int, handed.split()) if handed else (None, None)
    if batch_id is None or (running is not None and int(running) != batch_id):
        raise RuntimeError(
            f"panes: micro-batch {running} did not get its watermark from the driver "
            f"(got {handed!r}); Spark's aggregation of panes needs PySpark's pinned threads "
            "(do not set PYSPARK_PIN_THREAD=false)"
        )
    return batch_id, watermark


def _before_1970(label: str) -> UserCodeError:
    message = (
        "an event time in a window that ends at or before 1970 cannot go through Spark's "
        "streaming aggregation, whose watermark starts there; give the source a "
        "timestamp_fn other than operator.itemgetter (e.g. lambda row: row[...]) and a new "
        "--checkpoint_location to run the grouping on panes' windowing engine"
    )
    return UserCodeError(label, None, ValueError(message))


def window_decoder(aggregation, output: str):
    """Decodes a micro-batch's aggregated rows (``build_streaming_query``'s columns and the
    micro-batch's timestamp) into the chain's output elements: each row as the chain's last
    step makes it, at its window's end, in the window's one pane, on time and final."""
    to_row = row_maker(aggregation)

    def decode(batch, task):
        if not batch.num_rows:
            return [], None
        step = batch_step(batch)
        columns = [column.to_pylist() for column in batch.drop_columns([BATCH_COLUMN]).columns]
        keys, starts, ends, outputs = result_columns(aggregation, columns)
        positions, values = [], []
        for key, start, end, result in zip(keys, starts, ends, outputs):
            window = interval_window((start, end))
            positions.append((step, task.partition, task.rows))
            task.rows += 1
            values.append(
                windowed_value(
                    (to_row((key, result)), window.max_timestamp_micros, (window,), BATCH_PANE)
                )
            )
        return [(output, Chunk.of(positions, values))], None

    return decode
