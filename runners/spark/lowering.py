"""Spark SQL lowering: a windowed aggregation of built-in combiners over a Parquet or DataFrame
input, run as one Spark SQL query in the JVM instead of Python code per element.

``lower_aggregations`` is a phase over the IR, run before planning. Where the one decision of
paths (``panes.runners.shortcuts``) gives a grouping the ``SQL`` path, the phase replaces its
chain:

    read (Parquet or DataFrame, in place, Beam batch: no watermark strategy)
    -> WithTimestampField          (par_do of TimestampFromField)
    -> WindowInto                  (FixedWindows, SlidingWindows or Sessions; default trigger
                                    or AfterWatermark() alone,
                                    end-of-window timestamps, no evictor)
    -> GroupBy(...).aggregate_field(...)   (its KeyByFields par_do, AggregateFields
                                            combine_per_key and ToRows par_do)

by one ``sql_aggregation`` node, whose query groups by the key fields and
``window``/``session_window``. The node holds what the query computes (``SqlAggregation``,
plain data); the query itself, a lazy DataFrame, stays beside the IR, with the run's plan.
A field type Spark and Python might see differently leaves the chain to the ordinary
planners.
``plan_sql_aggregation`` runs the query, brings its (small) result to the driver through Arrow
and builds the collection the ordinary plan would have built: the same rows, timestamps
(the window's end), windows, panes (``BATCH_PANE``) and positions (from each key's first
source position, which the query computes).
"""

from __future__ import annotations

import dataclasses

from panes.ir.model import Node
from panes.runners.eventlog import END_STEP, FIRST_STEP, Watermark
from panes.runners.shortcuts import SQL, SqlAggregation, grouping_path, sql_aggregation
from panes.runners.spark.aggregation_query import INDEX_BITS, build_query, finished, overflowed
from panes.runners.spark.collection import Collection, Held
from panes.runners.spark.positions import key_prefix
from panes.timestamp import MAX_MICROS
from panes.transforms.group_by import FieldsToRow
from panes.window import interval_window, windowed_value
from panes.windowing import window_fn_kinds
from panes.windowing.batch import BATCH_PANE

SQL_AGGREGATION = "sql_aggregation"


# -- the phase: recognising chains in the IR ------------------------------------------------------


def lower_aggregations(pipeline, session) -> tuple:
    """``(pipeline, queries)``: ``pipeline`` with each lowerable chain replaced by one
    ``sql_aggregation`` node, at the place (and with the id and outputs) of the chain's last
    node, its payload the ``SqlAggregation``; and each such node's query on ``session``."""
    lowered: dict = {}
    queries: dict = {}
    for node in pipeline.nodes.values():
        if node.kind != "combine_per_key" or grouping_path(pipeline, node, sql=True) != SQL:
            continue
        aggregation = sql_aggregation(pipeline, node)
        query = aggregation and build_query(aggregation, session)
        if aggregation is not None and query is not None:
            last = aggregation.replaced[-1]
            lowered[last], queries[last] = aggregation, query
    if not lowered:
        return pipeline, queries
    replaced = {node_id for aggregation in lowered.values() for node_id in aggregation.replaced}
    nodes = {}
    for node in pipeline.nodes.values():
        if node.id in lowered:
            nodes[node.id] = Node(
                node.id, SQL_AGGREGATION, (), node.outputs, (), {"aggregation": lowered[node.id]}
            )
        elif node.id not in replaced:
            nodes[node.id] = node
    return dataclasses.replace(pipeline, nodes=nodes), queries


# -- planning the node -----------------------------------------------------------------------------


def plan_sql_aggregation(node, inputs, plan) -> dict:
    """Runs the query and returns the collection the replaced chain would have produced. The
    result is small (a row per key and window): it comes to the driver through Arrow, and the
    collection holds it there, in position order."""
    aggregation, query = node.payload["aggregation"], plan.queries[node.id]
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
    table = table.sort_by(
        [(f"key{i}", "ascending") for i in range(key_count)]
        + [("end", "ascending"), ("start", "ascending")]
    )
    columns = [column.to_pylist() for column in table.columns]
    keys, starts, ends, outputs = result_columns(aggregation, columns)
    firsts = columns[-1]
    runs, run = [], 0  # each run of equal keys is one key's windows, in order
    for end_of_run in range(1, len(keys) + 1):
        if end_of_run == len(keys) or keys[end_of_run] != keys[run]:
            runs.append((min(firsts[run:end_of_run]), run, end_of_run))
            run = end_of_run
    to_row = row_maker(aggregation)
    # Fixed and sliding windows repeat across keys: one windows tuple and pane per window.
    merging = window_fn_kinds.from_ir(aggregation.strategy.window_fn).is_merging()
    shared: dict | None = {} if not merging else None
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
            # One pane at the end of the window, as the batch path gives it.
            windows, pane = windows_pane
            output = to_row((keys[row], outputs[row]))
            records.append(
                (
                    (*key_position, index),
                    box((output, windows[0].max_timestamp_micros, windows, pane)),
                )
            )
    return records


def result_columns(aggregation: SqlAggregation, columns: list) -> tuple:
    """``(keys, starts, ends, outputs)`` of a query result's columns (``key0..``, ``start``,
    ``end``, ``aggregate0..``, then any others): each key as a value (a tuple for several
    fields), each row's outputs as the built-in combiners return them."""
    key_count, count = len(aggregation.key_fields), len(aggregation.aggregations)
    keys = columns[0] if key_count == 1 else list(zip(*columns[:key_count]))
    aggregates = zip(aggregation.aggregations, columns[key_count + 2 : key_count + 2 + count])
    finals = [finished(a.combine, values) for a, values in aggregates]
    return keys, columns[key_count], columns[key_count + 1], list(zip(*finals))


def row_maker(aggregation: SqlAggregation):
    """The function of ``GroupBy(...).aggregate_field(...)``'s last step: ``(key, outputs)``
    to its row."""
    return FieldsToRow(
        aggregation.key_fields, tuple(a.output_name for a in aggregation.aggregations)
    ).fn
