"""Groupings as ``transformWithState`` operators (PySpark's Row API, whose call costs about
half the pandas one's): the windowing state of each key lives in Spark's state store, and Spark
calls the operator for a key bucket (``rows.bucket_of``) when rows arrive for its keys or when
its timer expires: a call and each state access are round trips to the JVM, which cost far
more than a key's work.

The query has up to two such operators, each an ``Operator`` with its own ``Stage``. The
first serves every grouping fed by sources only; its rows are keyed by ``(route, bucket)``, the
route naming the grouping. A call loads the bucket's state once (its row and its log),
advances each of its keys that has rows or is due by its clocks and its rows in step order
(``clocks``), runs their panes through the element-wise transforms after the grouping as
one bundle (``routing``), stores the bucket once (the keys it changed appended to the log, or
the row rewritten), and moves its one Spark timer to the earliest wake-up of its keys. Where a
heartbeat runs (``sources.heartbeat_frame``), every micro-batch calls every bucket, and the
bucket's ``due`` value, when its keys' first processing-time timer is due, spares loading the
bucket until then. The second operator, present when groupings follow groupings, is the
``tail``: one key that finishes steps for the later groupings. Rows routed elsewhere (writes,
metrics) pass through.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field
from operator import itemgetter

from pyspark.sql import Row
from pyspark.sql.streaming import StatefulProcessor

from panes.compiler.lift import lift
from panes.errors import UserCodeError
from panes.ir import from_json
from panes.metrics import MetricsContainer, metrics_cell_scope, reset_metrics_scope
from panes.runners.fusion import CHUNK, Chunk
from panes.runners.key_driver import KeyDriver
from panes.runners.keyed import GROUPINGS, KeyedNode
from panes.runners.shortcuts import aggregation_of
from panes.runners.spark.errors import TransportedError, transported
from panes.runners.spark.positions import (
    AFTER_FINISHED,
    BUCKET_FINISHED,
    BUCKET_PANES,
    FINISH,
    key_prefix,
)
from panes.runners.spark.streaming.clocks import BatchClocks
from panes.runners.spark.streaming.key_state import (
    Bucket,
    dump_row,
    dump_state,
    load_row,
    load_state,
)
from panes.runners.spark.streaming.routing import Router
from panes.runners.spark.streaming.rows import HOLD, TAIL, TICK, Outbox, add_report, load
from panes.runners.spark.streaming.tail import Tail, TailState
from panes.runners.spark.worker_logs import captured
from panes.windowing.counting import CountingEngine, is_counting_exact
from panes.windowing.engine import Counters
from panes.windowing.key_state import KeyState

# A bucket's state: its keys' (state, first position, Spark wake-up, processing-time due), laid
# out by column and compressed (``key_state.Bucket``), and its Spark timer; the log of the keys
# calls changed since, with the timer each left; beside them, the first of its keys' due times.
# The tail's: its state, pickled and compressed (``key_state.dump_row``).
BUCKET_STATE = "state binary, timer long"
LOG = "changes binary, timer long"
DUE = "due long"


@dataclass
class Stage:
    """What one operator runs: ``clocks`` of the groupings it keys (grouping id -> clocks),
    or the ``timeline`` of the tail it runs; ``tail_ids``: the tail's groupings; ``buckets``:
    how many key buckets the groupings' keys fall into; ``heartbeat``: whether a heartbeat
    calls every bucket each micro-batch."""

    buckets: int
    clocks: dict = field(default_factory=dict)
    timeline: object = None
    tail_ids: frozenset = frozenset()
    heartbeat: bool = False


class _Keyed:
    """What the operator needs of one keyed node, built once per worker process: the node
    (``keyed.KeyedNode``), its clocks, and, for a grouping whose windowing allows it, the
    counting engine (``panes.windowing.counting``), which costs a key less to load, advance
    and store than the windowing engine."""

    def __init__(self, ir, node, clocks):
        self.label = node.id
        strategy = lift(ir.pcollections[node.inputs[0]].windowing)
        self.node = KeyedNode(node, strategy)
        self.node.open()
        self.clocks = clocks
        self.outputs = self.node.outputs
        self.counting = None
        if node.kind in GROUPINGS and is_counting_exact(strategy):
            self.counting = CountingEngine(strategy, aggregation_of(node))

    def processor_for(self, state):
        """What advances a key from ``state`` (None: a new key): the counting engine where
        there is one, but for a state the windowing engine kept (a checkpoint of an earlier
        panes), which it goes on advancing."""
        if self.counting is None or isinstance(state, KeyState):
            return self.node.processor
        return self.counting


class Operator(StatefulProcessor):
    """One stateful stage of the query (see the module's docstring)."""

    def __init__(self, ir_json: str, stage: Stage):
        self.ir_json, self.stage = ir_json, stage

    def init(self, handle) -> None:
        """Declares the state. The stage is built at its first call: Spark also calls ``init``
        in a Python process of the driver at the query's start, to learn the state's schema,
        and user code (whose modules the driver's process may not import) waits until then."""
        self.handle = handle
        self.state = handle.getValueState("bucket", BUCKET_STATE)
        if self.stage.clocks:
            self.log = handle.getListState("log", LOG)
        if self.stage.heartbeat:
            self.due = handle.getValueState("due", DUE)
        self.built = False

    def _build(self) -> None:
        ir = from_json(self.ir_json)
        self.groupings = {
            label: _Keyed(ir, ir.nodes[label], clocks)
            for label, clocks in self.stage.clocks.items()
        }
        self.tail = Tail(ir) if self.stage.timeline is not None else None
        self.cell = [MetricsContainer(), None]
        self.outbox = Outbox(ir, self.stage.buckets, tail_ids=self.stage.tail_ids)
        exit, side = self.outbox.exit, self.outbox.side
        if self.tail is not None:
            tail, outbox, side = self.tail, self.outbox, self.tail.deliver_side

            def exit(node, chunk):
                if node.id in tail.order:
                    return tail.deliver(node, chunk)
                return outbox.exit(node, chunk)

        self.router = Router(ir, exit, side, self.cell)
        self.built = True

    def handleInputRows(self, key, rows, timerValues):
        if not self.built:
            self._build()
        route = key[0]
        if route in self.groupings:
            entries: dict = {}
            for row in rows:
                for key_bytes, records in load(row.data):
                    entries.setdefault(key_bytes, []).extend(records)
            yield from self._call(
                self._advance_bucket, self.groupings[route], key[1], entries, timerValues, None
            )
        elif route == TAIL and self.tail is not None:
            entries = [entry for row in rows for entry in load(row.data)]
            yield from self._call(self._advance_tail, entries, timerValues, None)
        elif route != TICK:
            yield from rows  # on its way on

    def handleExpiredTimer(self, key, timerValues, expiredTimerInfo):
        if not self.built:
            self._build()
        route, expired = key[0], expiredTimerInfo.getExpiryTimeInMs()
        if route == TAIL:
            yield from self._call(self._advance_tail, [], timerValues, expired)
        else:
            yield from self._call(
                self._advance_bucket, self.groupings[route], key[1], {}, timerValues, expired
            )

    def close(self) -> None:
        if not self.built:
            return
        self.router.close()
        for grouping in self.groupings.values():
            grouping.node.close()
        if self.tail is not None:
            self.tail.close()

    def _call(self, advance, *args):
        """Runs ``advance`` with user metrics and log records scoped to this call; yields its
        rows."""
        container = MetricsContainer()
        self.cell[0] = container
        token = metrics_cell_scope(self.cell)
        try:
            with captured():
                advance(*args, container)
        except UserCodeError as error:
            raise TransportedError(transported(error)) from None
        finally:
            reset_metrics_scope(token)
        columns = self.outbox.drain()
        add_report(columns, container)
        for route, key, step, data in zip(*columns.values()):
            yield Row(route=route, key=key, step=step, data=data)

    def _advance_bucket(
        self, grouping, bucket_key, entries: dict, timer_values, expired, container
    ):
        """Advances the bucket's keys that have rows or whose wake-up has come, then moves the
        bucket's timer to the earliest wake-up left. The bucket's keys are read from its row and
        log and written in one of them: a state store call is a round trip to the JVM. A call
        of the heartbeat alone reads the bucket only if one of its keys is due by processing
        time."""
        now, processing_now = timer_values.getCurrentWatermarkInMs(), None
        if self.stage.heartbeat:
            processing_now = BatchClocks.now(timer_values)[1]
            if not entries and expired is None:
                first_due = self.due.get()
                if first_due is None or first_due[0] > processing_now:
                    return
        bucket, timer, logged = self._load_bucket()
        due = bucket.due(now, processing_now, entries)
        self.cell[1] = grouping.label
        grouping.node.start_bundle()
        counters = Counters()
        emitted: list = []
        for key_bytes in [*sorted(entries), *due]:
            kept = self._advance_key(
                grouping,
                key_bytes,
                bucket.get(key_bytes),
                entries.get(key_bytes, []),
                timer_values,
                counters,
                emitted,
            )
            bucket.set(key_bytes, kept)
        counters.report(container, grouping.label)
        last_step = self._emit(grouping, emitted)
        finished = grouping.node.finish_bundle()
        if finished:
            steps = [record[0][0] for records in entries.values() for record in records]
            if last_step is not None:
                steps.append(last_step)
            if not steps:  # woken by timers that emitted nothing
                steps.append(grouping.clocks.step(timer_values))
            self._emit_finished(grouping, finished, max(steps), bucket_key)
        written = bucket.write()
        self._store_bucket(written, logged)
        self._move_timer(None if timer == expired else timer, written.earliest)
        if self.stage.heartbeat:
            if written.first_due is None:
                self.due.clear()
            else:
                self.due.update((written.first_due,))

    def _load_bucket(self) -> tuple:
        """The bucket from its row and log, its Spark timer, and whether it has a log."""
        stored = self.state.get()
        if stored is None:
            return Bucket(), None, False
        log = list(self.log.get())
        bucket = Bucket.load(stored[0], [changes for changes, _ in log])
        return bucket, log[-1][1] if log else stored[1], bool(log)

    def _store_bucket(self, written, logged: bool) -> None:
        """Appends the call's changes to the bucket's log, or rewrites its row and drops the
        log (``logged``: there is one), or clears both when no key is left."""
        if written.changes is not None:
            self.log.appendValue((written.changes, written.earliest))
            return
        if written.row is None:
            self.state.clear()
        else:
            self.state.update((written.row, written.earliest))
        if logged:
            self.log.clear()

    def _advance_key(self, grouping, key_bytes, stored, records, timer_values, counters, emitted):
        """Advances one key from its ``stored`` ``(state, first position)``, counting what it
        drops in ``counters`` and adding its ``(first position, emissions)`` to ``emitted``;
        returns them anew with its Spark wake-up and processing-time due (None: its state is
        empty)."""
        if stored is None and not records:
            return None
        records.sort(key=itemgetter(0))
        if stored is None:
            key, state, first = pickle.loads(key_bytes), None, records[0][0]
        else:
            state, first = load_state(stored[0]), stored[1]
            key = state.key
        driver = KeyDriver(grouping.processor_for(state), counters)
        tail = self.stage.tail_ids
        hold = driver.processor.earliest_hold(state) if tail and state is not None else None
        run = grouping.clocks.advance(driver, key, state, records, timer_values)
        if run.emissions:
            emitted.append((first, run.ordered()))
        if tail:
            changes = []
            for step, new in run.holds:
                changes.append((HOLD, grouping.label, step, hold, new))
                hold = new
            if changes:
                self.outbox.add(TAIL, b"", changes)
        if run.state is None:
            return None
        return (dump_state(run.state), first, *grouping.clocks.wakes(run, timer_values))

    def _advance_tail(self, entries, timer_values, expired, container):
        stored = self.state.get()
        tail_state = TailState() if stored is None else load_row(stored[0])
        timer = None if stored is None or stored[1] == expired else stored[1]
        tail_state.receive(entries)
        counters = {label: Counters() for label in self.tail.groupings}
        self.tail.finish(tail_state, self.stage.timeline.view(timer_values), self.router, counters)
        for label, counted in counters.items():
            counted.report(container, label)
        wake = None
        if tail_state.waiting():
            wake = max(timer_values.getCurrentWatermarkInMs(), 0) + 1
        self.state.update((dump_row(tail_state), wake))
        self._move_timer(timer, wake)

    def _emit(self, grouping, emitted: list) -> int | None:
        """The call's outputs, each key's ``(first position, emissions)`` with its emissions
        ``(step, tag, WindowedValue)`` in canonical order, through the transforms after the
        node as one bundle, a step at a time; returns the last step (None: no output)."""
        if not emitted:
            return None
        steps = _by_step(emitted)
        router = self.router
        router.start_bundle()
        for step in sorted(steps):
            for tag, (positions, values) in steps[step].items():
                output = grouping.outputs.get(tag)
                if output is None:
                    continue
                for start in range(0, len(values), CHUNK):
                    end = start + CHUNK
                    router.push(output, Chunk.of(positions[start:end], values[start:end]))
        last_step = max(steps)
        router.finish_bundle(last_step, (BUCKET_PANES, *min(first for first, _ in emitted)))
        return last_step

    def _emit_finished(self, grouping, finished: list, last_step: int, bucket_key) -> None:
        """A stateful DoFn's ``finish_bundle`` outputs, after the call's ``last_step`` (the
        last of its elements and outputs), placed by the bucket's index (positions are
        integers), and the bundle they make for the transforms after it."""
        bucket = int.from_bytes(bucket_key, "big")
        router = self.router
        router.start_bundle()
        for index, (tag, wv) in enumerate(finished):
            if grouping.outputs.get(tag) is not None:
                position = (last_step, FINISH, BUCKET_FINISHED, bucket, index)
                router.push(grouping.outputs[tag], Chunk.of([position], [wv]))
        router.finish_bundle(last_step, (AFTER_FINISHED, bucket))

    def _move_timer(self, timer, wake) -> None:
        """Moves the key's one Spark timer from ``timer`` to ``wake`` (None: no timer)."""
        if timer is not None and timer != wake:
            self.handle.deleteTimer(timer)
        if wake is not None and wake != timer:
            self.handle.registerTimer(wake)


def _by_step(emitted: list) -> dict:
    """Keys' ``(first position, emissions)`` as step -> tag -> ``(positions, values)``: a key's
    outputs of a tag at a step are placed by its first position, then their order there."""
    steps: dict = {}
    for first, emissions in emitted:
        step_of = None
        for step, tag, wv in emissions:
            if step != step_of:
                step_of, prefix, indexes = step, key_prefix(step, first), dict[str, int]()
                tags = steps.setdefault(step, {})
            index = indexes.get(tag, 0)
            indexes[tag] = index + 1
            positions, values = tags.setdefault(tag, ([], []))
            positions.append((*prefix, index))
            values.append(wv)
    return steps
