"""A streaming pipeline whose one grouping is a lowerable chain (``panes.runners.shortcuts``:
a streaming DataFrame with its event time in a field → fixed windows with the default trigger
and no allowed lateness → ``GroupBy(...).aggregate_field(...)``) runs it as Spark's own
streaming aggregation, in the JVM, with state per key and window:

    source ─▶ withWatermark(event time) ─▶ groupBy(keys, window).agg (append mode) ─▶
    mapInArrow (each window's row through the transforms after the chain) ─▶ foreachBatch (sinks)

It gives the engine's panes. The engine path's watermark is Spark's: the largest event time so
far less the strategy's delay, in whole milliseconds, as ``withWatermark`` keeps it. An element
is late once its window has ended by the watermark of the micro-batch that reads it, as Spark
judges rows when its query has a single watermark for late rows and for eviction
(``ALLOW_MULTIPLE``); a window's one pane comes out in the micro-batch whose watermark passes
its end, on time and final. Each late row is counted as the engine counts it
(``dropped_late``), from Spark's ``numRowsDroppedByWatermark``.
"""

from __future__ import annotations

import threading
from typing import Any

from panes.compiler.lift import lift
from panes.metrics import MetricName, MetricsContainer
from panes.runners.fusion import Chunk
from panes.runners.shortcuts import sql_aggregation
from panes.runners.spark.aggregation_query import build_streaming_query
from panes.runners.spark.lowering import result_columns, row_maker
from panes.runners.spark.streaming.ingest import INGEST_DDL, ingest
from panes.runners.spark.streaming.sources import BATCH_COLUMN, batch_step
from panes.window import interval_window, windowed_value
from panes.windowing.batch import BATCH_PANE

# Spark judges late rows by the previous micro-batch's watermark unless its queries may have
# one stateful operator only: then by the watermark it evicts with, which is the engine's.
ALLOW_MULTIPLE = {"spark.sql.streaming.statefulOperator.allowMultiple": "false"}


class LoweredGrouping:
    """The chain's aggregation, its query, and where its windows' rows go on."""

    def __init__(self, aggregation, query, output: str):
        self.aggregation, self.query, self.output = aggregation, query, output
        self._started = threading.Event()
        self._streaming_query: Any = None

    @property
    def label(self) -> str:
        return self.aggregation.combine_label

    def started(self, streaming_query) -> None:
        """The running query, whose micro-batches' plans count the late rows."""
        self._streaming_query = streaming_query
        self._started.set()

    def late_rows(self) -> MetricsContainer:
        """On the driver, after a micro-batch's jobs: the rows Spark dropped as late in it,
        as the grouping's ``dropped_late`` counter (what the engine counts)."""
        metrics = MetricsContainer()
        self._started.wait()
        plan = self._streaming_query._jsq.streamingQuery().lastExecution().executedPlan()
        dropped = _metric_total(plan, "numRowsDroppedByWatermark")
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
    delay = ir.nodes[aggregation.replaced[0]].payload["watermark"].max_out_of_orderness
    query = build_streaming_query(aggregation, frame, delay)
    if query is None:
        return None
    output = ir.nodes[aggregation.replaced[-1]].outputs["main"]
    return LoweredGrouping(aggregation, query, output)


def _metric_total(plan, name: str) -> int:
    """The sum of the SQL metric ``name`` over a physical plan's nodes (a JVM object)."""
    total, nodes = 0, [plan]
    while nodes:
        node = nodes.pop()
        metric = node.metrics().get(name)
        if metric.isDefined():
            total += metric.get().value()
        children = node.children()
        nodes.extend(children.apply(index) for index in range(children.size()))
    return total


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
