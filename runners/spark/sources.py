"""Sources on Spark: text, Parquet and DataFrames are read in place, in parallel, as Beam batch
or record at a time under a watermark strategy. Any other source, and one whose records carry
arrival times (or may go idle), is read on the driver exactly as the direct runner reads it, and
distributed."""

from __future__ import annotations

import os
from itertools import chain, islice

from panes.io.files import match_files
from panes.io.parquet import ParquetSource, read_parquet_file
from panes.io.text import TextSource, read_lines
from panes.errors import UserCodeError
from panes.ir.codec import lift
from panes.timestamp import MAX_MICROS
from panes.window import GLOBAL_WINDOW, PANE_NO_FIRING
from panes.transforms.source_element import source_values
from panes.watermark import running_maxima, watermark_changes
from panes.runners.eventlog import END_STEP, FIRST_STEP, Watermark
from panes.runners.sources import read_source, record_step, source_stream, test_stream_stream
from panes.runners.fusion import CHUNK, Chunk
from panes.runners.spark.collection import Collection, Pending, from_stream
from panes.runners.spark.dataframe import DataFrameSource, dataframe_records
from panes.runners.spark.errors import worker_generator


def _text_records(plan, source: TextSource):
    """The lines, read by the Python workers themselves (no trip through the JVM), in byte
    ranges of at most TEXT_SPLIT_BYTES, at least one per partition."""
    total = sum(os.path.getsize(path) for path in match_files(source.file_pattern))
    splits = source.splits(max(1, min(TEXT_SPLIT_BYTES, -(-total // plan.partitions))))
    if not splits:
        return plan.sc.emptyRDD()
    return plan.sc.parallelize(splits, len(splits)).flatMap(lambda split: read_lines(*split))


def _parquet_records(plan, source: ParquetSource):
    files, columns = source.files(), source.columns
    return plan.sc.parallelize(files, len(files)).flatMap(
        lambda path: read_parquet_file(path, columns))


TEXT_SPLIT_BYTES = 32 << 20

# Source type -> function(plan, source) giving an RDD of the records with partitions in order.
NATIVE_READERS = {DataFrameSource: dataframe_records, TextSource: _text_records,
                  ParquetSource: _parquet_records}


def reads_natively(node) -> bool:
    """Whether a source node is read in place: a known format, read as Beam batch or under a
    watermark strategy that no processing-time clock takes part in (no arrival times, no
    idleness)."""
    if node.kind != "read":
        return False
    payload = lift(node.payload)
    strategy = payload["watermark"]
    source = payload["source"]
    return (type(source) in NATIVE_READERS and payload["arrival_fn"] is None
            and (strategy is None or strategy.idle_timeout is None)
            and not getattr(source, "skip_header_lines", 0))


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
        records = NATIVE_READERS[type(source)](plan, source).setName(label)
    except OSError as error:
        raise UserCodeError(label, None, error) from error
    if payload["watermark"] is None:
        pending = Pending(records, _feed(label, timestamp_fn), indexed=True)
        return Collection(None, [Watermark(END_STEP, MAX_MICROS)], FIRST_STEP, pending,
                          plan.metrics_accumulator, label)
    return _record_at_a_time(records, label, timestamp_fn, payload["watermark"], plan)


def _feed(label, timestamp_fn, starts=None):
    """Feeds a partition's ``(index, record)`` pairs as source elements: all at the first step
    (Beam batch), or, given the index of each partition's first record in the source
    (``starts``), each record at its own step."""
    windows = (GLOBAL_WINDOW,)

    def feed(partition, records, push):
        indexes, values = zip(*records)
        if starts is None:
            positions = [(FIRST_STEP, partition, index) for index in indexes]
        else:
            first = record_step(starts[partition])
            positions = [(first + index, 0) for index in indexes]
        count = len(values)
        values, timestamps = source_values(label, values, timestamp_fn)
        push(Chunk(positions, values, timestamps, [windows] * count, [PANE_NO_FIRING] * count))
        return positions[-1]

    return feed


def _record_at_a_time(records, label, timestamp_fn, strategy, plan) -> Collection:
    """A source read record at a time, each record its own step. One pass summarizes each
    partition by where its running maximum timestamp rises; in order, the summaries give every
    change of the watermark (a prefix scan). The records are then read again where they are
    consumed, each at its step."""
    def summary(partition):
        chunks = iter(lambda: list(islice(partition, CHUNK)), [])
        return [running_maxima(chain.from_iterable(
            source_values(label, chunk, timestamp_fn)[1] for chunk in chunks))]

    segments = plan.action(label, records.mapPartitions(worker_generator(summary)).collect)
    starts, total = [], 0
    for count, _ in segments:
        starts.append(total)
        total += count
    timeline = [Watermark(record_step(index), watermark)
                for index, watermark in watermark_changes(segments, strategy)]
    pending = Pending(records, _feed(label, timestamp_fn, starts), indexed=True)
    return Collection(None, timeline + [Watermark(END_STEP, MAX_MICROS)],
                      record_step(0) if total == 1 else (None if total else FIRST_STEP), pending,
                      plan.metrics_accumulator, label)
