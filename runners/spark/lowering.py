"""Spark SQL lowering: a windowed aggregation of built-in combiners over a Parquet or DataFrame
input, run as one Spark SQL query in the JVM instead of Python code per element.

``lower_aggregations`` is a phase over the IR, run before planning. It looks for this chain, in
which each collection is read by the next node only:

    read (Parquet or DataFrame, in place, Beam batch: no watermark strategy)
    -> WithTimestampField          (par_do of TimestampFromField)
    -> WindowInto                  (FixedWindows, SlidingWindows or Sessions; default trigger,
                                    end-of-window timestamps, no evictor)
    -> GroupBy(...).aggregate_field(...)   (its KeyByFields par_do, AggregateFields
                                            combine_per_key and ToRows par_do)

and replaces it by one ``sql_aggregation`` node, whose query groups by the key fields and
``window``/``session_window``. Everything else — another trigger, window fn or timestamp
combiner, a source read on the driver or under a watermark strategy, a field type Spark and
Python might see differently, a consumer of an intermediate collection — is left to the
ordinary planners. ``plan_sql_aggregation`` runs the query, brings its (small) result to the
driver through Arrow and builds the collection the ordinary plan would have built: the same
rows, timestamps (window end - 1 µs), windows, panes (``BATCH_PANE``) and positions
(from each key's first source position, which the query computes).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from panes.io.parquet import ParquetSource
from panes.ir.codec import lift
from panes.ir.model import Node
from panes.timestamp import MAX_MICROS
from panes.transforms.group_by import AggregateFieldsFn, FieldsToRow, KeyByFields
from panes.transforms.timestamps import TimestampFromField
from panes.window import (FixedWindows, Sessions, SlidingWindows, TimestampCombiner,
                          interval_window, windowed_value)
from panes.windowing.batch import BATCH_PANE, is_batch_exact
from panes.runners.eventlog import END_STEP, FIRST_STEP, Watermark
from panes.runners.spark.aggregation_query import INDEX_BITS, build_query, finished, overflowed
from panes.runners.spark.collection import Collection, Held
from panes.runners.spark.dataframe import DataFrameSource
from panes.runners.spark.positions import key_prefix
from panes.runners.spark.sources import reads_natively

SQL_AGGREGATION = "sql_aggregation"


@dataclass(frozen=True)
class SqlAggregation:
    """A recognised chain: what its query computes, and the labels its errors name."""

    source: object
    timestamp_field: str
    strategy: object
    key_fields: tuple
    aggregations: tuple
    timestamp_label: str
    combine_label: str
    # The nodes the query stands for, from the read to the ToRows par_do.
    replaced: tuple


# -- the phase: recognising chains in the IR ------------------------------------------------------


def lower_aggregations(ir, session):
    """``ir`` with each lowerable chain replaced by one ``sql_aggregation`` node, at the place
    (and with the id and outputs) of the chain's last node. Its payload holds the
    ``SqlAggregation`` and the query, a lazy DataFrame on ``session``."""
    lowered = {}
    for node in ir.nodes.values():
        aggregation = match_aggregation(ir, node)
        query = aggregation and build_query(aggregation, session)
        if query is not None:
            lowered[node.id] = {"aggregation": aggregation, "query": query}
    if not lowered:
        return ir
    replaced = {node_id for payload in lowered.values()
                for node_id in payload["aggregation"].replaced}
    nodes = {}
    for node in ir.nodes.values():
        if node.id in lowered:
            nodes[node.id] = Node(node.id, SQL_AGGREGATION, (), node.outputs, (), lowered[node.id])
        elif node.id not in replaced:
            nodes[node.id] = node
    return dataclasses.replace(ir, nodes=nodes)


def match_aggregation(ir, to_rows) -> SqlAggregation | None:
    """The chain ending in ``to_rows``, when it is a lowerable one (read off node kinds and
    structured payloads only; ``build_query`` then checks the input's schema)."""
    if not _runs(to_rows, FieldsToRow):
        return None
    combine = _sole_producer(ir, to_rows, "combine_per_key")
    keying = combine and _sole_producer(ir, combine, "par_do")
    windowing = keying and _sole_producer(ir, keying, "assign_windows")
    timestamping = windowing and _sole_producer(ir, windowing, "par_do")
    read = timestamping and _sole_producer(ir, timestamping, "read")
    if read is None or not (_runs(keying, KeyByFields) and _runs(timestamping, TimestampFromField)):
        return None
    combine_fn = combine.payload["combine_fn"]
    if not isinstance(combine_fn, AggregateFieldsFn) or combine.payload.get("late_output"):
        return None
    aggregations, keys = combine_fn.aggregations, to_rows.payload["fn"].key_fields
    if (keying.payload["fn"] != KeyByFields(keys, tuple(a.field for a in aggregations))
            or to_rows.payload["fn"].output_names != tuple(a.output_name for a in aggregations)):
        return None
    payload = lift(read.payload)
    if (not reads_natively(read) or payload["watermark"] is not None
            or payload["timestamp_fn"] is not None
            or type(payload["source"]) not in (ParquetSource, DataFrameSource)):
        return None
    strategy = lift(ir.pcollections[windowing.outputs["main"]].windowing)
    if not _lowerable_windowing(strategy):
        return None
    return SqlAggregation(payload["source"], timestamping.payload["fn"].field, strategy, keys,
                          aggregations, timestamping.id, combine.id,
                          (read.id, timestamping.id, windowing.id, keying.id, combine.id,
                           to_rows.id))


def _runs(node, fn_type) -> bool:
    """Whether ``node`` is a plain single-output par_do of a ``fn_type`` function."""
    payload = node.payload
    return (node.kind == "par_do" and type(payload["fn"]) is fn_type and len(node.outputs) == 1
            and not node.side_inputs and not payload["args"] and not payload["kwargs"])


def _sole_producer(ir, node, kind):
    """The node of ``kind`` producing ``node``'s input, when ``node`` is all that reads it."""
    (pcollection,) = node.inputs
    producer = ir.nodes[ir.pcollections[pcollection].producer]
    if producer.kind != kind or len(producer.outputs) != 1:
        return None
    if [consumer.id for consumer in ir.consumers(pcollection)] != [node.id]:
        return None
    return producer


def _lowerable_windowing(strategy) -> bool:
    window_fn = strategy.window_fn
    if not is_batch_exact(strategy) or strategy.timestamp_combiner != TimestampCombiner.OUTPUT_AT_EOW:
        return False
    if type(window_fn) is FixedWindows:
        return True
    if type(window_fn) is SlidingWindows:  # Spark's window() needs the slide within the size
        return window_fn.period.micros <= window_fn.size.micros
    # Sessions run as session_window with a gap 1 µs shorter (see build_query).
    return type(window_fn) is Sessions and window_fn.gap_size.micros > 1


# -- planning the node ------------------------------------------------------------------------------


def plan_sql_aggregation(node, inputs, plan) -> dict:
    """Runs the query and returns the collection the replaced chain would have produced. The
    result is small (a row per key and window): it comes to the driver through Arrow, and the
    collection holds it there, in position order."""
    aggregation, query = node.payload["aggregation"], node.payload["query"]
    table = plan.action(node.id, query.toArrow)
    if overflowed(table):
        exact = build_query(aggregation, query.sparkSession, exact=True)
        table = plan.action(node.id, exact.toArrow)
    records = output_records(aggregation, table)
    held = Held(records, plan.sc, plan.partitions, f"{node.id} (Spark SQL)")
    return {"main": Collection(None, [Watermark(END_STEP, MAX_MICROS)], END_STEP, held=held)}


def output_records(aggregation: SqlAggregation, table) -> list:
    """``(position, WindowedValue)`` of each row of the query's result (a pyarrow Table), in
    position order: by the key's first source position, then window as
    ``panes.window.window_order`` orders them (end, then start). Each is the row of
    key fields and outputs at the window's end, in the window's one pane (``BATCH_PANE``),
    at the position a grouping gives its key's outputs."""
    key_count = len(aggregation.key_fields)
    table = table.sort_by([(f"key{i}", "ascending") for i in range(key_count)]
                          + [("end", "ascending"), ("start", "ascending")])
    columns = [column.to_pylist() for column in table.columns]
    keys = columns[0] if key_count == 1 else list(zip(*columns[:key_count]))
    starts, ends, firsts = columns[key_count], columns[key_count + 1], columns[-1]
    outputs = list(zip(*[finished(a.combine, values) for a, values
                         in zip(aggregation.aggregations, columns[key_count + 2:-1])]))
    runs, run = [], 0  # each run of equal keys is one key's windows, in order
    for end_of_run in range(1, len(keys) + 1):
        if end_of_run == len(keys) or keys[end_of_run] != keys[run]:
            runs.append((min(firsts[run:end_of_run]), run, end_of_run))
            run = end_of_run
    to_row = FieldsToRow(aggregation.key_fields,
                         tuple(a.output_name for a in aggregation.aggregations)).fn
    # Fixed and sliding windows repeat across keys: one windows tuple and pane per window.
    shared = {} if not aggregation.strategy.window_fn.is_merging() else None
    records, box = [], windowed_value
    for first, run, end_of_run in sorted(runs):
        source_position = (FIRST_STEP, first >> INDEX_BITS, first & ((1 << INDEX_BITS) - 1))
        key_position = key_prefix(END_STEP, source_position)  # then the key's index
        for index, row in enumerate(range(run, end_of_run)):
            start, end = starts[row], ends[row]
            windows_pane = shared.get((start, end)) if shared is not None else None
            if windows_pane is None:
                window = interval_window((start, end))
                windows_pane = ((window,), BATCH_PANE)
                if shared is not None:
                    shared[(start, end)] = windows_pane
            records.append(((*key_position, index),
                            box((to_row((keys[row], outputs[row])), end - 1, *windows_pane))))
    return records
