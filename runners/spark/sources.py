"""Sources on Spark: text, Parquet and DataFrames are read in place, in parallel, as Beam batch
or record at a time under a watermark strategy. Any other source, and one whose records carry
arrival times (or may go idle), is read on the driver exactly as the direct runner reads it, and
distributed."""

from __future__ import annotations

from bisect import bisect_right
from itertools import repeat

from pyspark.errors import AnalysisException

from panes.compiler.lift import lift
from panes.errors import UserCodeError
from panes.ir import io as ir
from panes.runners.eventlog import END_STEP, FIRST_STEP, Watermark
from panes.runners.fusion import Chunk
from panes.runners.sources import read_source, record_step, source_stream, test_stream_stream
from panes.runners.spark.collection import Collection, Pending, from_stream
from panes.runners.spark.dataframe import dataframe_chunks
from panes.runners.spark.errors import worker_generator
from panes.runners.spark.file_reads import parquet_chunks, text_chunks
from panes.runners.spark.serializer import worker_output
from panes.runners.spark.timeline import SourceChanges, chunked
from panes.timestamp import MAX_MICROS, MIN_MICROS
from panes.transforms.source_element import source_values
from panes.watermark import running_maxima, segment_changes
from panes.window import GLOBAL_WINDOW, PANE_NO_FIRING

# IR source kind -> function(plan, source (the API object), label) giving an RDD of the
# source's records in chunks (``panes.runners.spark.file_reads``) and whether each partition's
# positions rise.
NATIVE_READERS = {
    ir.DataFrameSource: dataframe_chunks,
    ir.TextSource: text_chunks,
    ir.ParquetSource: parquet_chunks,
}


def reads_natively(node) -> bool:
    """Whether a source node is read in place: a known format, read as Beam batch or under a
    watermark strategy that no processing-time clock takes part in (no arrival times, no
    idleness)."""
    if node.kind != "read":
        return False
    payload = node.payload
    strategy = payload["watermark"]
    return (
        type(payload["source"]) in NATIVE_READERS
        and payload["arrival_fn"] is None
        and (strategy is None or strategy.idle_timeout is None)
    )


def driver_read(node):
    """What the driver reads itself (for the clock and for sources without a native reader)."""
    return None if reads_natively(node) else read_source(node)


def plan_source(node, inputs, plan) -> dict:
    if reads_natively(node):
        return {"main": _native(node, plan)}
    return {"main": from_stream(plan, source_stream(plan.sources[node.id], plan.clock), node.id)}


def plan_test_stream(node, inputs, plan) -> dict:
    return {"main": from_stream(plan, test_stream_stream(node), node.id)}


def _native(node, plan) -> Collection:
    payload = lift(node.payload)
    source, label, timestamp_fn = payload["source"], node.id, payload["timestamp_fn"]
    try:
        chunks, ordered = NATIVE_READERS[type(node.payload["source"])](plan, source, label)
    except AnalysisException as error:  # Spark cannot plan the read: a missing column, say
        raise UserCodeError(label, None, error) from None
    if payload["watermark"] is None:
        pending = Pending(chunks, _feed(label, timestamp_fn), chunked=True, ordered=ordered)
        return Collection(
            None,
            [Watermark(END_STEP, MAX_MICROS)],
            FIRST_STEP,
            pending,
            plan.metrics_accumulator,
            label,
        )
    return _record_at_a_time(chunks, label, timestamp_fn, payload["watermark"], plan)


def _feed(label, timestamp_fn, index_of=None):
    """Feeds a chunk ``(segment, offset, records)`` as source elements: all at the first
    step (Beam batch), at positions ``(step, *segment, offset)`` onwards; or, given where
    each record sits in the source (``index_of(segment, offset)``), each at its own step."""
    windows = (GLOBAL_WINDOW,)

    def feed(partition, chunk, push):
        segment, offset, values = chunk
        count = len(values)
        if index_of is None:
            positions = list(
                zip(*map(repeat, (FIRST_STEP, *segment)), range(offset, offset + count))
            )
        else:
            first = record_step(index_of(segment, offset))
            positions = list(zip(range(first, first + count), repeat(0)))
        values, timestamps = source_values(label, values, timestamp_fn)
        push(Chunk(positions, values, timestamps, [windows] * count, [PANE_NO_FIRING] * count))
        return positions[-1]

    return feed


def _record_at_a_time(chunks, label, timestamp_fn, strategy, plan) -> Collection:
    """A source read record at a time, each record its own step. One pass summarizes each run
    of a segment's records in a partition by where its running maximum rises, and keeps the
    summaries on the executors; the driver takes each run's count and largest timestamp only,
    to find where each run starts and the largest timestamp before it (a prefix scan over the
    runs), from which the executors find the runs' watermark changes (``SourceChanges``). The
    records are then read again where they are consumed, each at its step."""

    def summary(partition):
        runs = []  # [segment, first offset, count, running maximum, rises]
        for segment, offset, values in partition:
            timestamps = source_values(label, values, timestamp_fn)[1]
            if not runs or runs[-1][0] != segment or runs[-1][1] + runs[-1][2] != offset:
                runs.append([segment, offset, 0, MIN_MICROS, []])
            run = runs[-1]
            count, rises = running_maxima(timestamps)
            run[4] += [(run[2] + index, top) for index, top in rises if top > run[3]]
            if rises:
                run[3] = max(run[3], rises[-1][1])
            run[2] += count
        return runs

    summaries = plan.persist(worker_output(chunks.mapPartitions(worker_generator(summary))))
    runs = sorted(
        plan.action(label, summaries.map(lambda run: tuple(run[:4])).collect),
        key=lambda run: run[:2],
    )
    starts: dict = {}
    before: dict = {}  # (segment, first offset) -> (first record index, largest timestamp before)
    total, largest = 0, MIN_MICROS
    for segment, first, count, maximum in runs:
        starts.setdefault(segment, ([], []))
        starts[segment][0].append(first)
        starts[segment][1].append(total)
        before[segment, first] = (total, largest)
        total, largest = total + count, max(largest, maximum)

    def index_of(segment, offset):
        firsts, indexes = starts[segment]
        run = bisect_right(firsts, offset) - 1
        return indexes[run] + offset - firsts[run]

    def changes(runs):
        for segment, first, count, _, rises in runs:
            start, entering = before[segment, first]
            points = segment_changes(start, count, entering, rises, total, strategy)
            yield from chunked((start,), points)

    timeline = SourceChanges(worker_output(summaries.mapPartitions(changes)))
    pending = Pending(chunks, _feed(label, timestamp_fn, index_of), chunked=True)
    return Collection(
        None,
        timeline,
        record_step(0) if total == 1 else (None if total else FIRST_STEP),
        pending,
        plan.metrics_accumulator,
        label,
    )
