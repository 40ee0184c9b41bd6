"""Plans a pipeline's IR as one Spark Structured Streaming query and starts it.

    sources ─▶ ingest (mapInArrow: element-wise transforms) ─▶ withWatermark(wm) ─▶
    groupings (transformWithStateInPandas, keyed by route and key) ─▶ foreachBatch (sinks)

See docs/streaming.md for how Beam's model maps onto it.
"""

from __future__ import annotations

import functools
import logging
import shutil
import tempfile

from panes.errors import PipelineConstructionError
from panes.ir.codec import to_json
from panes.runners.spark.session import get_session
from panes.runners.spark.streaming.checkpoint import CheckpointStore
from panes.runners.spark.streaming.event_reader import FORMAT, EventLogSource, reader_options
from panes.runners.spark.streaming.ingest import INGEST_DDL, event_log_decoder, ingest
from panes.runners.spark.streaming.clocks import StaticTimeline
from panes.runners.spark.streaming.operator import Operator, Stage
from panes.runners.spark.streaming.result import StreamingPipelineResult
from panes.runners.spark.streaming.rows import ROW_SCHEMA
from panes.runners.spark.streaming.sinks import FILE_SINKS, BatchCommitter, check_sinks
from panes.runners.spark.streaming.static_sources import STATIC_KINDS, StaticInputs
from panes.runners.spark.streaming.tail import layers

log = logging.getLogger("panes.streaming")
ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"


def run_streaming(ir, options, partitions=None, ticks_per_batch: int = 1):
    """Starts the query; a pipeline whose sources are all bounded is waited for."""
    sinks = check_sinks(ir)
    static_nodes = _sources(ir)
    first, tail, downstream = layers(ir)
    location, temporary = _checkpoint_location(options, sinks)
    store = CheckpointStore(location)
    store.check_structure(ir)
    spark = get_session(options)
    _configure(spark, partitions or options.spark_partitions)
    inputs = StaticInputs(ir, static_nodes)
    ir_json = to_json(ir, indent=None)
    tail_ids = frozenset(tail)
    frames = [_static_frame(spark, ir_json, inputs, node, ticks_per_batch, tail_ids)
              for node in static_nodes]
    rows = functools.reduce(lambda left, right: left.union(right), frames)
    # Rows routed to TICK only carry the watermark column: a filter here would be pushed below
    # the watermark and drop them before Spark sees it, so the stages after ignore them.
    rows = rows.withWatermark("wm", "0 seconds").drop("wm")
    stages = []
    if first:
        stages.append(Stage(clocks={label: inputs.clocks_of(inputs.watermarks(
            ir.nodes[label].inputs[0])) for label in first}, tail_ids=tail_ids))
    if tail:
        sourced = [pc for pc in ir.pcollections if pc not in downstream]
        stages.append(Stage(timeline=StaticTimeline(
            inputs.steps, {pc: inputs.watermarks(pc) for pc in sourced}, inputs.clock.events),
            tail_ids=tail_ids))
    for stage in stages:
        rows = rows.groupBy("route", "key").transformWithStateInPandas(
            Operator(ir_json, stage), ROW_SCHEMA, "Append", "EventTime")
    label = options.job_name
    committer = BatchCommitter(sinks, store, label)
    writer = (rows.writeStream.foreachBatch(committer).queryName(label)
              .option("checkpointLocation", location))
    writer = writer.trigger(availableNow=True)
    query = writer.start()
    result = StreamingPipelineResult(
        query, committer, label,
        on_end=(lambda: shutil.rmtree(location, ignore_errors=True)) if temporary else None)
    result.wait_until_finish()
    return result


def _sources(ir) -> list:
    nodes = []
    for node in ir.nodes.values():
        if node.kind in STATIC_KINDS:
            nodes.append(node)
        elif node.kind == "read":
            raise PipelineConstructionError(
                f"'{node.id}': this source cannot be read by the streaming runner yet")
    return nodes


def _checkpoint_location(options, sinks) -> tuple:
    """The checkpoint directory, and whether it is a temporary one panes removes at the end."""
    if options.checkpoint_location:
        return options.checkpoint_location, False
    files = [label for label, sink in sinks.items() if isinstance(sink, FILE_SINKS)]
    if files:
        raise PipelineConstructionError(
            f"a streaming pipeline that writes files ({', '.join(files)}) needs "
            f"--checkpoint_location=<directory>: it is where Spark keeps the offsets and state "
            f"that let a restarted query write each output exactly once")
    return tempfile.mkdtemp(prefix="panes-checkpoint-"), True


def _configure(spark, partitions) -> None:
    spark.conf.set("spark.sql.streaming.stateStore.providerClass", ROCKSDB)
    if partitions:
        spark.conf.set("spark.sql.shuffle.partitions", str(partitions))
    spark.dataSource.register(EventLogSource)


def _static_frame(spark, ir_json, inputs, node, ticks_per_batch: int, tail_ids):
    options = reader_options(node.id, inputs.bundles(node.id), inputs.end_tick, ticks_per_batch)
    frame = spark.readStream.format(FORMAT).options(**options).load()
    decoder = event_log_decoder({node.id: node.outputs["main"]})
    return frame.mapInArrow(ingest(ir_json, decoder, tail_ids), INGEST_DDL)
