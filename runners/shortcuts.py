"""Which path a grouping takes: the one decision, made from the IR.

A grouping's panes are the windowing engine's, its keys advanced by the key driver (``ENGINE``).
Two shortcuts give the same panes faster where the IR proves them equal, each checked against
the engine path (``tests/runners/test_shortcuts.py`` by property tests; the streaming chain by
``tests/runners/spark/test_streaming_lowered.py``):

* ``BATCH`` — the default trigger (or ``AfterWatermark()`` alone) and no evictor over
  Beam-batch input (all elements at one step, then the watermark straight to +inf): one pane
  per key and window, straight from accumulators (``panes.windowing.batch``); on Spark with a
  map-side combine.
* ``SQL`` — on a runner with a Spark SQL lowering, this chain, each collection read by the next
  node only: a Parquet or DataFrame source read in place as Beam batch → ``WithTimestampField``
  → ``WindowInto`` (fixed, sliding or session windows, batch windowing, end-of-window
  timestamps) → ``GroupBy(...).aggregate_field(...)`` of built-in combiners: one query.
  Under ``--streaming`` the chain reads a streaming DataFrame whose watermark strategy and event
  time come from one field (``timestamp_fn=operator.itemgetter(field)``), in fixed, sliding or
  session windows with no allowed lateness: one streaming aggregation, whose watermark is the
  engine's.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

from panes.compiler.lift import lift
from panes.ir import io, rows
from panes.ir import windowing as ir
from panes.timestamp import MAX_MICROS
from panes.windowing.aggregation import BufferAggregation, CombineFnAggregation
from panes.windowing.batch import is_batch_exact

ENGINE, BATCH, SQL = "engine", "batch", "sql"


def grouping_path(pipeline, node, batch_end: int | None = None, sql: bool = False) -> str:
    """The path of grouping ``node`` of ``pipeline``: ``SQL`` when the runner lowers to Spark
    SQL (``sql``) and the node aggregates a lowerable chain; ``BATCH`` when its windowing
    allows and its input is Beam batch, ending at ``batch_end`` (None: it is not); else
    ``ENGINE``."""
    if sql and sql_aggregation(pipeline, node) is not None:
        return SQL
    strategy = pipeline.pcollections[node.inputs[0]].windowing
    if batch_end is not None and is_batch_exact(strategy):
        return BATCH
    return ENGINE


def batch_end(step: int | None, watermarks) -> int | None:
    """The end step of a Beam-batch input — its elements all at ``step`` (None: at several
    steps, or not known), its watermark (``Watermark`` events) one jump to +inf at or after
    ``step`` — or None when the input is not one."""
    if step is None or not isinstance(watermarks, list) or len(watermarks) != 1:
        return None
    (end,) = watermarks
    return end.step if end.time == MAX_MICROS and step <= end.step else None


def aggregation_of(node):
    """What a grouping node aggregates: its values as lists (``group_by_key``) or its
    CombineFn's (``combine_per_key``)."""
    if node.kind == "group_by_key":
        return BufferAggregation()
    return CombineFnAggregation(lift(node.payload["combine_fn"]), node.id)


# -- the SQL chain --------------------------------------------------------------------------------


@dataclass(frozen=True)
class SqlAggregation:
    """A lowerable chain: what its query computes, and the labels its errors name."""

    source: object  # the IR source: io.ParquetSource or io.DataFrameSource
    timestamp_field: str
    strategy: ir.WindowingStrategy
    key_fields: tuple
    aggregations: tuple  # rows.FieldAggregation
    timestamp_label: str  # the WithTimestampField par_do (streaming: the read)
    combine_label: str  # the combine_per_key node
    replaced: tuple  # the chain's node ids, read to to_rows


def sql_aggregation(pipeline, combine, streaming: bool = False) -> SqlAggregation | None:
    """The lowerable chain around ``combine``, a ``combine_per_key`` node, read off node kinds
    and IR payloads only (the lowering then checks the input's schema); None when it is not
    one. ``streaming``: the chain of an unbounded source (see the module's docstring)."""
    if combine.kind != "combine_per_key":
        return None
    consumers = pipeline.consumers(combine.outputs["main"])
    to_rows = consumers[0] if len(consumers) == 1 else None
    if to_rows is None or not _runs(to_rows, rows.FieldsToRow):
        return None
    keying = _sole_producer(pipeline, combine, "par_do")
    windowing = keying and _sole_producer(pipeline, keying, "assign_windows")
    if windowing is None or not _runs(keying, rows.KeyByFields):
        return None
    head = (_streaming_head if streaming else _batch_head)(pipeline, windowing)
    if head is None:
        return None
    read, timestamp_field, timestamping = head
    combine_fn = combine.payload["combine_fn"]
    if not isinstance(combine_fn, rows.AggregateFields) or combine.payload.get("late_output"):
        return None
    aggregations, keys = combine_fn.aggregations, to_rows.payload["fn"].key_fields
    if keying.payload["fn"] != rows.KeyByFields(
        keys, tuple(a.field for a in aggregations)
    ) or to_rows.payload["fn"].output_names != tuple(a.output_name for a in aggregations):
        return None
    strategy = pipeline.pcollections[windowing.outputs["main"]].windowing
    if not (_streaming_windowing if streaming else _lowerable_windowing)(strategy):
        return None
    ids = (read.id, timestamping.id, windowing.id, keying.id, combine.id, to_rows.id)
    return SqlAggregation(
        read.payload["source"],
        timestamp_field,
        strategy,
        keys,
        aggregations,
        timestamping.id,
        combine.id,
        tuple(dict.fromkeys(ids)),  # a streaming read is its own timestamping node
    )


def _batch_head(pipeline, windowing):
    """``(read, timestamp field, timestamping node)`` of a Beam-batch chain: a Parquet or
    DataFrame source without a watermark, then ``WithTimestampField``."""
    timestamping = _sole_producer(pipeline, windowing, "par_do")
    read = timestamping and _sole_producer(pipeline, timestamping, "read")
    if read is None or not _runs(timestamping, rows.TimestampFromField):
        return None
    payload = read.payload
    if (
        type(payload["source"]) not in (io.ParquetSource, io.DataFrameSource)
        or payload["watermark"] is not None
        or payload["arrival_fn"] is not None
        or payload["timestamp_fn"] is not None
    ):
        return None
    return read, timestamping.payload["fn"].field, timestamping


def _streaming_head(pipeline, windowing):
    """``(read, timestamp field, read)`` of a streaming chain: a DataFrame source whose event
    time is one field (``operator.itemgetter``), under a watermark strategy Spark's
    ``withWatermark`` reproduces (a delay of whole milliseconds; Spark has no idleness)."""
    read = _sole_producer(pipeline, windowing, "read")
    if read is None:
        return None
    payload = read.payload
    strategy, field = payload["watermark"], _field_of(payload["timestamp_fn"])
    if (
        type(payload["source"]) is not io.DataFrameSource
        or strategy is None
        or strategy.max_out_of_orderness % 1000
        or strategy.idle_timeout is not None
        or payload["arrival_fn"] is not None
        or field is None
    ):
        return None
    return read, field, read


def _field_of(timestamp_fn) -> str | None:
    """The field ``timestamp_fn`` reads, when it is ``operator.itemgetter(field)``."""
    if timestamp_fn is None:
        return None
    fn = lift(timestamp_fn)
    if type(fn) is not operator.itemgetter:
        return None
    fields = fn.__reduce__()[1]
    return fields[0] if len(fields) == 1 and isinstance(fields[0], str) else None


def _runs(node, row_fn) -> bool:
    """Whether ``node`` is a plain single-output par_do of an IR ``row_fn``."""
    payload = node.payload
    return (
        node.kind == "par_do"
        and type(payload["fn"]) is row_fn
        and len(node.outputs) == 1
        and not node.side_inputs
        and not payload["args"]
        and not payload["kwargs"]
    )


def _sole_producer(pipeline, node, kind):
    """The node of ``kind`` producing ``node``'s input, when ``node`` is all that reads it."""
    (pcollection,) = node.inputs
    producer = pipeline.nodes[pipeline.pcollections[pcollection].producer]
    if producer.kind != kind or len(producer.outputs) != 1:
        return None
    if [consumer.id for consumer in pipeline.consumers(pcollection)] != [node.id]:
        return None
    return producer


def _streaming_windowing(strategy) -> bool:
    """Fixed, sliding or session windows, one on-time pane each and nothing after: Spark's
    append mode emits a window once the watermark passes its end, and drops rows of windows
    that have ended (sessions need event times in whole milliseconds as well, which
    ``build_streaming_query`` checks)."""
    return strategy.allowed_lateness == 0 and _lowerable_windowing(strategy)


def _lowerable_windowing(strategy) -> bool:
    window_fn = strategy.window_fn
    if (
        not is_batch_exact(strategy)
        or strategy.timestamp_combiner != ir.TimestampCombiner.OUTPUT_AT_EOW
    ):
        return False
    if isinstance(window_fn, ir.FixedWindows):
        return True
    if isinstance(window_fn, ir.SlidingWindows):  # Spark's window() needs the slide within the size
        return window_fn.period <= window_fn.size
    # Sessions run as session_window with a gap 1 µs shorter (see the lowering's query).
    return isinstance(window_fn, ir.Sessions) and window_fn.gap_size > 1
