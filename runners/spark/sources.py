"""Sources on Spark: well-known formats are read in place, in parallel; any other source (and
any source read record at a time under a watermark strategy) is read on the driver, exactly as
the direct runner reads it, and distributed."""

from __future__ import annotations

from panes.ir.codec import lift
from panes.timestamp import MAX_TIMESTAMP
from panes.transforms.source_element import source_element
from panes.runners.eventlog import END_STEP, FIRST_STEP, Watermark
from panes.runners.sources import read_source, source_stream, test_stream_stream
from panes.runners.spark.collection import Collection, from_stream
from panes.runners.spark.dataframe import DataFrameSource, dataframe_records
from panes.runners.spark.errors import worker_generator

# Source type -> function(plan, source) giving an RDD of records whose partitions are in order.
NATIVE_READERS = {DataFrameSource: dataframe_records}


def reads_natively(node) -> bool:
    """Whether a source node is read in place: a known format, read as Beam batch."""
    if node.kind != "read":
        return False
    payload = lift(node.payload)
    return (type(payload["source"]) in NATIVE_READERS and payload["watermark"] is None
            and payload["arrival_fn"] is None)


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

    def elements(partition, records):
        for index, record in enumerate(records):
            yield (FIRST_STEP, partition, index), source_element(label, record, timestamp_fn)

    records = NATIVE_READERS[type(source)](plan, source)
    rdd = records.mapPartitionsWithIndex(worker_generator(elements)).setName(label)
    return Collection(rdd, [Watermark(END_STEP, MAX_TIMESTAMP)], FIRST_STEP)
