"""A grouping as a ``transformWithStateInPandas`` operator: each key's windowing state lives
in Spark's state store, and Spark calls the operator for a key when rows arrive for it or when
one of its timers expires.

One operator serves every grouping that reads its input straight from the sources: rows are
keyed by ``(route, key)``, the route naming the grouping (rows routed to a write pass through).
A call loads the key's state once, advances it with its clocks (``clocks``) and its rows in
step order, runs the panes through the element-wise transforms after the grouping
(``routing``), stores the state once and sets the one Spark timer that wakes the key next.
"""

from __future__ import annotations

import pickle
from itertools import groupby
from operator import itemgetter

import pandas as pd
from pyspark.sql.streaming import StatefulProcessor

from panes.ir import from_json
from panes.ir.codec import lift
from panes.metrics import MetricsContainer, metrics_cell_scope, reset_metrics_scope
from panes.runners.fusion import Chunk
from panes.runners.spark.errors import TransportedError, transported
from panes.errors import UserCodeError
from panes.runners.spark.positions import grouped
from panes.runners.spark.streaming import key_state
from panes.runners.spark.streaming.key_state import LATE, MAIN, Counters
from panes.runners.spark.streaming.routing import Router
from panes.runners.spark.streaming.rows import TICK, Outbox, load, metrics_columns
from panes.window import window_order
from panes.windowing.aggregation import BufferAggregation, CombineFnAggregation

STATE_SCHEMA = "state binary, first binary, timer long"
_COLUMNS = ("route", "key", "step", "data")


class _Grouping:
    """What the operator needs of one grouping node, built once per worker process."""

    def __init__(self, ir, node, clocks):
        strategy = lift(ir.pcollections[node.inputs[0]].windowing)
        aggregation = (BufferAggregation() if node.kind == "group_by_key" else
                       CombineFnAggregation(lift(node.payload["combine_fn"]), node.id))
        self.label = node.id
        self.core = key_state.Grouping(strategy, aggregation)
        self.clocks = clocks
        late = node.payload.get("late_output")
        self.outputs = {MAIN: node.outputs["main"], LATE: node.outputs.get(late) if late else None}


class GroupingOperator(StatefulProcessor):
    """The operator of a pipeline's source-fed groupings; ``clocks``: grouping id -> clocks."""

    def __init__(self, ir_json: str, clocks: dict):
        self.ir_json, self.clocks = ir_json, clocks

    def init(self, handle) -> None:
        self.handle = handle
        self.state = handle.getValueState("key", STATE_SCHEMA)
        ir = from_json(self.ir_json)
        self.groupings = {label: _Grouping(ir, ir.nodes[label], clocks)
                          for label, clocks in self.clocks.items()}
        self.cell = [MetricsContainer(), None]
        self.outbox = Outbox(ir)
        self.router = Router(ir, self.outbox.exit, self.cell)

    def handleInputRows(self, key, rows, timerValues):
        route, key_bytes = key
        if route not in self.groupings:
            if route != TICK:
                yield from rows  # on its way to a write
            return
        records = [record for frame in rows for data in frame["data"] for record in load(data)]
        yield from self._advance(self.groupings[route], key_bytes, records, timerValues, None)

    def handleExpiredTimer(self, key, timerValues, expiredTimerInfo):
        route, key_bytes = key
        yield from self._advance(self.groupings[route], key_bytes, [], timerValues,
                                 expiredTimerInfo.getExpiryTimeInMs())

    def close(self) -> None:
        self.router.close()

    def _advance(self, grouping, key_bytes, records, timer_values, expired):
        try:
            frame = self._advance_key(grouping, key_bytes, records, timer_values, expired)
        except UserCodeError as error:
            raise TransportedError(transported(error)) from None
        if frame is not None:
            yield frame

    def _advance_key(self, grouping, key_bytes, records, timer_values, expired):
        stored = self.state.get()
        if stored is None and not records:
            return None  # a timer of a key whose state has emptied
        counters, key = Counters(), pickle.loads(key_bytes)
        if stored is None:
            state, first, timer = grouping.core.new_state(key, counters), None, None
        else:
            state = grouping.core.load(key, stored[0], counters)
            first, timer = pickle.loads(stored[1]), stored[2]
        records.sort(key=itemgetter(0))
        if first is None:
            first = records[0][0]
        bundles = [(step, list(group)) for step, group in
                   groupby(records, key=lambda record: record[0][0])]
        container = MetricsContainer()
        self.cell[0], self.cell[1] = container, grouping.label
        token = metrics_cell_scope(self.cell)
        try:
            emissions = grouping.clocks.advance(state, bundles, timer_values)
            self._emit(grouping, first, emissions)
        finally:
            reset_metrics_scope(token)
        counters.report(container, grouping.label)
        self._store(state, first, None if timer == expired else timer, timer_values, grouping)
        columns = self.outbox.drain()
        if container.counters or container.distributions:
            for name, values in metrics_columns(container).items():
                columns[name] += values
        return pd.DataFrame(columns) if columns["route"] else None

    def _emit(self, grouping, first, emissions) -> None:
        """The key's panes and late elements, in the direct runner's order within each step,
        through the transforms after the grouping."""
        emissions.sort(key=lambda emission: (emission[0], window_order(emission[2].windows[0])))
        router = self.router
        router.start_bundle()
        last_step = None
        for tag in (MAIN, LATE):
            positions, values, index, step_of = [], [], 0, None
            for step, emitted_tag, wv in emissions:
                if emitted_tag != tag:
                    continue
                index = index + 1 if step == step_of else 0
                step_of = last_step = step
                positions.append(grouped(step, first, index))
                values.append(wv)
            if values and grouping.outputs[tag] is not None:
                router.push(grouping.outputs[tag], Chunk.of(positions, values))
        if last_step is not None:
            router.finish_bundle(last_step, first)

    def _store(self, state, first, timer, timer_values, grouping) -> None:
        """Saves the key's state and moves its Spark timer to its next wake-up."""
        if key_state.is_empty(state):
            self.state.clear()
            wake = None
        else:
            wake = grouping.clocks.wake_ms(state, timer_values)
            self.state.update((key_state.dump(state), pickle.dumps(first), wake))
        if timer is not None and timer != wake:
            self.handle.deleteTimer(timer)
        if wake is not None and wake != timer:
            self.handle.registerTimer(wake)
