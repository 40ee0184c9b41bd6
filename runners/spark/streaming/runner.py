"""Plans a pipeline's IR as one Spark Structured Streaming query and starts it.

    sources ─▶ ingest (mapInArrow: element-wise transforms) ─▶ withWatermark(wm) ─▶
    first-layer groupings ─▶ [tail: groupings after groupings] ─▶ foreachBatch (sinks)

Both stateful stages are ``transformWithState`` operators (``operator``); a pipeline whose one
grouping is a windowed aggregation of a DataFrame's columns runs it as Spark's own streaming
aggregation instead (``lowered``). See docs/streaming.md for how Beam's model maps onto the
query.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import posixpath
import re
import tempfile

from panes.errors import PipelineConstructionError, ValidationError
from panes.ir import to_json, triggers
from panes.ir.windowing import CountWindows, GlobalWindows
from panes.runners.keyed import GROUPINGS, is_keyed, waits_on_processing_time
from panes.runners.spark.errors import ReportedByTheQuery
from panes.runners.spark.hadoop import HadoopFileSystems
from panes.runners.spark.session import checked_workers, get_session, quiet_gateway
from panes.runners.spark.streaming.checkpoint import CheckpointStore
from panes.runners.spark.streaming.clocks import BatchClocks, BatchTimeline, StaticTimeline
from panes.runners.spark.streaming.event_log import (
    event_log_decoder,
    event_log_frame,
    write_event_log,
)
from panes.runners.spark.streaming.ingest import INGEST_DDL, ingest
from panes.runners.spark.streaming.lowered import SETTINGS as LOWERED_SETTINGS
from panes.runners.spark.streaming.lowered import lowered_grouping
from panes.runners.spark.streaming.operator import Operator, Stage
from panes.runners.spark.streaming.progress import ProgressLogger
from panes.runners.spark.streaming.result import StreamingPipelineResult
from panes.runners.spark.streaming.rows import ROW_SCHEMA, TAIL, bucket_key
from panes.runners.spark.streaming.sinks import (
    FILE_SINKS,
    BatchCommitter,
    check_sinks,
    file_outputs,
)
from panes.runners.spark.streaming.sources import (
    check_dataframes,
    dataframe_session,
    heartbeat_frame,
    is_unbounded,
    unbounded_decoder,
    unbounded_frame,
)
from panes.runners.spark.streaming.static_sources import STATIC_KINDS, StaticInputs
from panes.runners.spark.streaming.tail import layers
from panes.runners.spark.worker_logs import ship_levels, worker_log_levels

log = logging.getLogger("panes.streaming")
SHUFFLE_PARTITIONS = "spark.sql.shuffle.partitions"
# The session settings a streaming query of panes runs with (its own copy of the session's).
QUERY_CONF = {
    # transformWithState keeps its state in RocksDB only.
    "spark.sql.streaming.stateStore.providerClass": (
        "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
    ),
    # A micro-batch commits a log of its state's changes, not a snapshot of the state: what
    # Spark advises for RocksDB, snapshots being uploaded in the background.
    "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled": "true",
    # Spark starts a Python daemon per environment its Python workers need, and marks the
    # environment of some workers (not the stateful operators') by this setting: without it,
    # the ingest stage and the groupings share one daemon and its warm workers.
    "spark.sql.execution.pyspark.udf.simplifiedTraceback.enabled": "false",
}
# Spark's checkpoint files on the local file system go through Hadoop's FileSystem, not its
# FileContext (Spark's default), whose rename checks each path for a symbolic link, which
# Hadoop's local file system does by running ``readlink`` as a child process: 55 to 60
# processes a micro-batch, on the micro-batch's path. Where Spark overwrites a file (the state
# store's), FileSystem's rename also replaces it in one step, where FileContext's deletes it
# first.
LOCAL_CHECKPOINT_CONF = {
    "spark.sql.streaming.checkpointFileManagerClass": (
        "org.apache.spark.sql.execution.streaming.checkpointing."
        "FileSystemBasedCheckpointFileManager"
    ),
}
AVAILABLE_NOW = "available_now"
# The trigger interval of a pipeline that reads a heartbeat (``sources.heartbeat_frame``) and
# sets none: how late, at most, a processing-time timer fires beyond a micro-batch's duration.
HEARTBEAT_INTERVAL = "1 second"
_SECONDS = re.compile(r"\d+(\.\d+)?")
_SPARK_INTERVAL = re.compile(
    r"(interval\s+)?(\d+(\.\d+)?\s+(week|day|hour|minute|second|millisecond|microsecond)s?\s*)+",
    re.IGNORECASE,
)
# Key buckets per partition of the state: Spark calls an operator once per bucket, so fewer
# buckets mean fewer calls, and more mean smaller wake-up tables per bucket.
KEY_BUCKETS_PER_PARTITION = 16


def run_streaming(ir, options, partitions=None, ticks_per_batch: int = 1):
    """Starts the query. A pipeline whose sources are all bounded (event logs) runs with
    ``Trigger.AvailableNow`` and is waited for; an unbounded one runs until cancelled."""
    sinks = check_sinks(ir)
    static, unbounded = _sources(ir)
    check_side_inputs(ir, bool(unbounded))
    if unbounded:
        check_groupings(ir, allow_unsafe_triggers=bool(options.allow_unsafe_triggers))
        check_dataframes(unbounded)
    heartbeat = bool(unbounded) and _waits_on_processing_time(ir)
    trigger = _trigger(options, bounded=not unbounded, heartbeat=heartbeat)
    first, tail, downstream = layers(ir)
    location = _checkpoint_location(options, sinks)
    levels = worker_log_levels(options)
    spark = dataframe_session(unbounded)
    spark = checked_workers(spark) if spark is not None else get_session(options)
    ship_levels(spark.sparkContext, levels)
    _configure(options)
    fs = HadoopFileSystems(spark.sparkContext)
    temporary = location is None
    location = fs.qualified(location or _temporary_checkpoint())
    store = CheckpointStore(fs, location)
    lowered = lowered_grouping(ir, unbounded, first, tail) if unbounded else None
    recorded = store.lowered()
    if lowered is not None and recorded is not None and lowered.label not in recorded:
        lowered = None  # a checkpoint of the engine path, from before panes lowered it
    store.check_structure(ir, lowered=frozenset([lowered.label] if lowered else []))
    partitions, buckets = store.layout(
        default_partitions(spark, partitions or options.spark_partitions),
        KEY_BUCKETS_PER_PARTITION,
    )
    ir_json, tail_ids = to_json(ir, indent=None), frozenset(tail)

    def ingested(frame, decoder):
        return frame.mapInArrow(ingest(ir_json, decoder, buckets, tail_ids), INGEST_DDL)

    if lowered is not None:
        log.debug("panes: '%s' runs as Spark's streaming aggregation", lowered.label)
        rows, stages = lowered.rows(ir_json, buckets), []
    elif unbounded:
        frames = [
            ingested(unbounded_frame(spark, node, options), unbounded_decoder(node))
            for node in unbounded
        ]
        clocks: dict = {label: BatchClocks() for label in first}
        timeline: BatchTimeline | StaticTimeline = BatchTimeline()
        if heartbeat:
            beats = [(label, bucket_key(b)) for label in first for b in range(buckets)]
            frames.append(heartbeat_frame(spark, beats + ([(TAIL, b"")] if tail else [])))
    else:
        inputs = StaticInputs(ir, static)
        events = posixpath.join(store.root, "events")
        write_event_log(
            fs, events, {node.id: inputs.bundles(node.id) for node in static}, inputs.end_tick
        )
        decoder = event_log_decoder({node.id: node.outputs["main"] for node in static})
        frames = [ingested(event_log_frame(spark, events, ticks_per_batch), decoder)]
        clocks = {
            label: inputs.clocks_of(inputs.watermarks(ir.nodes[label].inputs[0])) for label in first
        }
        sourced = [pc for pc in ir.pcollections if pc not in downstream]
        timeline = StaticTimeline(
            inputs.steps, {pc: inputs.watermarks(pc) for pc in sourced}, inputs.clock.events
        )
    if lowered is None:
        rows = functools.reduce(lambda left, right: left.union(right), frames)
        # Rows routed to TICK only carry the watermark column: a filter here would be pushed
        # below the watermark and drop them before Spark sees it, so the stages after ignore
        # them.
        rows = rows.withWatermark("wm", "0 seconds").drop("wm")
        stages = (
            [Stage(buckets, clocks, tail_ids=tail_ids, heartbeat=heartbeat)] if first else []
        ) + ([Stage(buckets, timeline=timeline, tail_ids=tail_ids)] if tail else [])
    for stage in stages:
        rows = rows.groupBy("route", "key").transformWithState(
            Operator(ir_json, stage), ROW_SCHEMA, "Append", "EventTime"
        )
    label = options.job_name or "panes"
    committer = BatchCommitter(
        sinks,
        file_outputs(ir, sinks, fs),
        store,
        fs,
        label,
        counter=lowered,
    )
    writer = (
        rows.writeStream.foreachBatch(committer)
        .queryName(label)
        .option("checkpointLocation", location)
    )
    if trigger:
        writer = writer.trigger(**trigger)
    # The query runs on its DataFrame's session: a user's streaming DataFrame may come from
    # another session than the active one.
    settings = {
        **QUERY_CONF,
        SHUFFLE_PARTITIONS: str(partitions),
        **(LOWERED_SETTINGS if lowered is not None else {}),
        **_local_checkpoint_conf(rows.sparkSession, location),
    }
    with _query_conf(rows.sparkSession, settings):
        query = writer.start()
        if lowered is not None:
            lowered.started(query)
        _take_settings(query)
    progress = ProgressLogger(query, label, committer.published, heartbeat)
    progress.start()

    def on_end(exception):
        progress.stop(exception)
        if temporary:
            fs.delete([location])

    result = StreamingPipelineResult(query, committer, label, on_end=on_end)
    if not unbounded or options.trigger_interval == AVAILABLE_NOW:
        result.wait_until_finish()
    return result


def _local_checkpoint_conf(spark, location: str) -> dict:
    """``LOCAL_CHECKPOINT_CONF`` for a checkpoint on the local file system, unless the session
    (or its Hadoop configuration) names its own checkpoint file manager."""
    if not location.startswith("file:"):
        return {}
    hadoop = spark.sparkContext._jsc.hadoopConfiguration()
    return {
        name: value
        for name, value in LOCAL_CHECKPOINT_CONF.items()
        if spark.conf.get(name, None) is None and hadoop.get(name) is None
    }


def _waits_on_processing_time(ir) -> bool:
    return any(
        waits_on_processing_time(ir, node) for node in ir.nodes.values() if is_keyed(ir, node)
    )


def check_side_inputs(ir, unbounded: bool) -> None:
    """Stateless ParDos take side inputs (in the tail: ``side_inputs``); stateful ones do not
    yet. On unbounded input a ParDo whose side window is the global one — its side input's, or
    the one its main input's global window maps to — would wait for good: such a window is
    complete only when its input ends."""
    for node in ir.nodes.values():
        if node.side_inputs and is_keyed(ir, node):
            raise PipelineConstructionError(
                f"'{node.id}' is a stateful DoFn with side inputs, which the streaming runner "
                f"does not support yet; run the pipeline in batch, or read the side input in a "
                f"ParDo before it"
            )
        if node.side_inputs and unbounded:
            _check_side_windows(ir, node)


def _check_side_windows(ir, node) -> None:
    def is_global(pcollection_id: str) -> bool:  # count windows are global in event time
        window_fn = ir.pcollections[pcollection_id].windowing.window_fn
        return isinstance(window_fn, (GlobalWindows, CountWindows))

    if is_global(node.inputs[0]):
        reason = f"its main input, from '{ir.pcollections[node.inputs[0]].producer}',"
    else:
        side = next((s.pcollection for s in node.side_inputs if is_global(s.pcollection)), None)
        if side is None:
            return
        reason = f"its side input, from '{ir.pcollections[side].producer}',"
    raise PipelineConstructionError(
        f"'{node.id}' reads side inputs and {reason} is in the global window: on unbounded "
        f"input it would wait for good, as an element waits until the side window it reads is "
        f"complete (docs/streaming.md, Side inputs), and a global window is complete only when "
        f"its input ends. Window the main and side inputs alike (e.g. "
        f"WindowInto(FixedWindows(60)) on both), or run on bounded input"
    )


def check_groupings(ir, allow_unsafe_triggers: bool = False) -> None:
    """Refuses, as Beam does, a grouping of unbounded input in the global window with the
    default trigger: it fires when its input ends, so on unbounded input never. Under
    ``--allow_unsafe_triggers`` it warns instead, as Beam does."""
    for node in ir.nodes.values():
        if node.kind not in GROUPINGS:
            continue
        windowing = ir.pcollections[node.inputs[0]].windowing
        if not isinstance(windowing.window_fn, GlobalWindows) or not isinstance(
            windowing.trigger, triggers.Default
        ):
            continue
        problem = (
            f"'{node.id}' groups unbounded input in the global window with the default "
            f"trigger, which fires when the input ends: here never (under --streaming a file "
            f"read watches its directory and a streaming DataFrame runs until stopped)"
        )
        if allow_unsafe_triggers:
            log.warning("panes: %s; allowed by --allow_unsafe_triggers", problem)
            continue
        raise PipelineConstructionError(
            f"{problem}. Window the input (e.g. WindowInto(FixedWindows(60)), with a "
            f"watermark strategy on the source), give it a trigger (e.g. "
            f"WindowInto(GlobalWindows(), trigger=Repeatedly(AfterProcessingTime(10)), "
            f"accumulation_mode=AccumulationMode.DISCARDING)), or run in batch, without "
            f"--streaming. Beam refuses such a GroupByKey too (--allow_unsafe_triggers: a "
            f"warning instead)"
        )


def _sources(ir) -> tuple:
    """``(static, unbounded)`` source nodes; a pipeline has one kind or the other."""
    static, unbounded = [], []
    for node in ir.nodes.values():
        if node.kind in STATIC_KINDS or (node.kind == "read" and not is_unbounded(node)):
            static.append(node)
        elif node.kind == "read":
            unbounded.append(node)
    if static and unbounded:
        raise PipelineConstructionError(
            f"a streaming pipeline reads either unbounded sources or event logs, not both: "
            f"{', '.join(n.id for n in unbounded)} against {', '.join(n.id for n in static)}"
        )
    return static, unbounded


def _checkpoint_location(options, sinks):
    """The checkpoint directory the options name, or None: a temporary one, which panes
    removes at the end (a pipeline that writes files needs one that lasts)."""
    if options.checkpoint_location:
        return options.checkpoint_location
    files = [label for label, sink in sinks.items() if isinstance(sink, FILE_SINKS)]
    if files:
        raise PipelineConstructionError(
            f"a streaming pipeline that writes files ({', '.join(files)}) needs "
            f"--checkpoint_location=<directory>: it is where Spark keeps the offsets and state "
            f"that let a restarted query write each output exactly once"
        )
    return None


def _temporary_checkpoint() -> str:
    return tempfile.mkdtemp(prefix="panes-checkpoint-")


def default_partitions(spark, chosen=None) -> int:
    """The state partitions of a new checkpoint: ``chosen`` (``--spark_partitions``), else
    ``spark.sql.shuffle.partitions`` where the user set it, else the session's parallelism
    (``sc.defaultParallelism``: its cores) — not Spark's 200, each a state store instance that
    every micro-batch opens and commits."""
    if chosen:
        return int(chosen)
    user_set = spark.conf.get(SHUFFLE_PARTITIONS, None)
    return int(user_set) if user_set else spark.sparkContext.defaultParallelism


def _trigger(options, bounded: bool, heartbeat: bool) -> dict:
    """Event logs end by themselves (AvailableNow); otherwise ``--trigger_interval`` (seconds,
    a Spark interval such as ``"1 minute"``, or ``available_now``: what has arrived, then
    stop), else Spark's default: the next micro-batch as soon as the last is done — or, with
    a heartbeat, which always has data, a micro-batch every ``HEARTBEAT_INTERVAL``."""
    interval = options.trigger_interval
    if bounded or interval == AVAILABLE_NOW:
        return {"availableNow": True}
    if interval is None:
        return {"processingTime": HEARTBEAT_INTERVAL} if heartbeat else {}
    return {"processingTime": spark_interval(interval)}


def spark_interval(interval) -> str:
    """``--trigger_interval`` as Spark's ``processingTime`` takes it: a number of seconds (also
    as text, as a command line gives it) or a Spark interval of weeks to microseconds; a clear
    error for anything else, before Spark starts the query."""
    text = str(interval).strip()
    if _SECONDS.fullmatch(text):
        return f"{text} seconds"
    if _SPARK_INTERVAL.fullmatch(text):
        return text
    raise ValidationError(
        f"--trigger_interval {interval!r}: give seconds (e.g. 10), a Spark interval (e.g. "
        f"'1 minute', '500 milliseconds'), or {AVAILABLE_NOW}"
    )


def _configure(options) -> None:
    if options.spark_log_level is None:
        # Also for a session panes did not start; a failed callback's trace is reported in a
        # line of panes' (``ReportedByTheQuery``).
        quiet_gateway()
        callbacks = logging.getLogger("py4j.clientserver")
        if not any(isinstance(f, ReportedByTheQuery) for f in callbacks.filters):
            callbacks.addFilter(ReportedByTheQuery())


def _take_settings(query) -> None:
    """Makes the query copy its session's settings now. Spark clones the session when the query
    starts, but the clone copies the settings when first used, on the query's own thread: after
    ``_query_conf`` has put the session's own back, when that thread is slow to get there."""
    query._jsq.streamingQuery().sparkSessionForStream().sessionState()


@contextlib.contextmanager
def _query_conf(spark, settings: dict):
    """``settings`` in the session's conf while the query starts: the query runs on a copy of
    the session made then, and the session's other work keeps its own."""
    previous = {name: spark.conf.get(name, None) for name in settings}
    for name, value in settings.items():
        spark.conf.set(name, value)
    try:
        yield
    finally:
        for name, value in previous.items():
            if value is None:
                spark.conf.unset(name)
            else:
                spark.conf.set(name, value)
