"""Keyed nodes on Spark, replayed exactly: a grouping on the engine path, or a stateful ParDo.

Elements are shuffled by key, each partition sorts each key's elements by position, and the key
driver advances each of that partition's keys against the input's watermark timeline and the
processing-time clock (``panes.runners.key_driver``), as the direct runner advances all keys.
The timeline is broadcast when the driver holds it, else built in each task from copies of its
parts shuffled in with the keys (``panes.runners.spark.timeline``), the output watermark then
spread too.
"""

from __future__ import annotations

from itertools import chain
from operator import itemgetter, lt

from panes.metrics import MetricsContainer, metrics_scope, reset_metrics_scope
from panes.runners.eventlog import FIRST_STEP
from panes.runners.fusion import CHUNK, Chunk, Expanded
from panes.runners.key_driver import drive_keys, output_timeline
from panes.runners.keyed import KeyedNode
from panes.runners.keys import key_values
from panes.runners.spark.collection import Collection, Pending, chunk_feed
from panes.runners.spark.errors import worker_generator
from panes.runners.spark.positions import FINISH, by_position, key_prefix
from panes.runners.spark.serializer import worker_output
from panes.runners.spark.shuffle import Buckets, shuffled
from panes.runners.spark.timeline import (
    HeldBack,
    Timeline,
    chunked,
    copies,
    is_spread,
    layout,
    received,
)
from panes.runners.spark.worker_logs import captured, emit, taken
from panes.timestamp import MIN_MICROS
from panes.windowing.engine import Counters

CONTROL = "__control__"
HOLDS = "__holds__"
_key, _value, _wv = itemgetter(0), itemgetter(1), itemgetter(2)


def plan_keyed(node, source, plan, resolver=None) -> dict:
    """The node's outputs, tag -> collection, each partition's keys replayed;
    ``resolver()`` builds the side inputs of a stateful DoFn in the task."""
    label = node.id
    strategy = plan.strategy(node.inputs[0])
    tags = KeyedNode(node, strategy).tags
    clock = plan.broadcast(plan.clock_events)
    spread = is_spread(source.timeline)
    if spread:
        parts, shape = layout(source.timeline)
        pairs = shuffled_by_key(source, node, plan, copies(parts, plan.partitions))

        def timeline_of(items):
            return received(shape, items)
    else:
        pairs = shuffled_by_key(source, node, plan)
        broadcast = plan.broadcast(source.timeline)

        def timeline_of(items):
            return items, broadcast.value

    def run(partition, items):
        groups, timeline = timeline_of(items)
        elements = by_key(groups)
        if not elements:
            return
        first = {key: records[0][0] for key, records in elements.items()}
        keyed = KeyedNode(node, strategy, resolver and resolver())
        container = MetricsContainer()
        token = metrics_scope(container, label)
        try:
            with captured():
                keyed.open()
                keyed.start_bundle()
                replay = drive_keys(keyed.processor, elements, timeline, clock.value)
                finished = keyed.finish_bundle()
                keyed.close()
        finally:
            reset_metrics_scope(token)
        last = max((outputs[-1][0] for outputs in replay.outputs.values()), default=FIRST_STEP)
        for tag, outputs in replay.outputs.items():
            for chunk in output_chunks(outputs, first):
                yield tag, chunk
        finishing: dict = {}
        for index, (tag, wv) in enumerate(finished):
            finishing.setdefault(tag, []).append(((last, FINISH, partition, index), wv))
        for tag, records in finishing.items():
            yield tag, Chunk.of(*zip(*records))
        if spread:
            holds = [(step, (partition, rank), hold) for step, rank, hold in replay.holds]
            yield from ((HOLDS, *part) for part in chunked((partition,), holds))
            watermarks = []
        else:
            watermarks = [(e.step, e.time, e.idle) for e in replay.watermarks]
        yield CONTROL, watermarks, (replay.counters, container, taken())

    out = worker_output(pairs.mapPartitionsWithIndex(worker_generator(run)))
    out = plan.persist(out.setName(label))
    controls = plan.action(label, lambda: out.filter(lambda r: r[0] == CONTROL).collect())
    counters = Counters()
    for _, _, (partition_counters, container, _) in controls:
        counters.add(partition_counters)
        plan.metrics.merge(container)
    emit(logs for _, _, (_, _, logs) in controls)
    counters.report(plan.metrics, label)
    if spread:
        holds = worker_output(out.filter(lambda r: r[0] == HOLDS).map(lambda r: (r[1], r[2])))
        timeline_out: Timeline = HeldBack(source.timeline, holds)
    else:
        timeline_out = _partitions_timeline(source.timeline, [c[1] for c in controls])
    return {
        tag: _tagged(out, emitted, timeline_out, plan, label)
        for emitted, tag in tags.items()
        if tag is not None
    }


def _tagged(out, tag, timeline, plan, label):
    """The node's outputs of ``tag``: chunks, a partition's in position order."""
    chunks = worker_output(out.filter(lambda r: r[0] == tag).map(itemgetter(1)))
    name = f"{label}.{tag}"
    pending = Pending(chunks.setName(name), chunk_feed, chunked=True, ordered=True)
    return Collection(None, timeline, None, pending, plan.metrics_accumulator, name)


def output_chunks(outputs: list, first: dict):
    """A tag's ``(step, key, WindowedValue)`` outputs, in canonical order, as ``Chunk``s of
    whole runs (a key's outputs at one step) of about ``CHUNK`` outputs; the k-th output of a
    run at ``(*key_prefix(step, first[key]), k)``. Columns cross to the consumer, or the
    driver, for a fraction of what a record each costs to pickle."""
    start, prefixes, ends = 0, list[tuple](), list[int]()
    run_step = run_key = None
    for index, (step, key, _) in enumerate(outputs):
        if step == run_step and key is run_key:
            continue
        if prefixes:
            ends.append(index - start)
            if index - start >= CHUNK:
                yield _chunk(outputs[start:index], prefixes, ends)
                start, prefixes, ends = index, [], []
        prefixes.append(key_prefix(step, first[key]))
        run_step, run_key = step, key
    if prefixes:
        ends.append(len(outputs) - start)
        yield _chunk(outputs[start:], prefixes, ends)


def _chunk(outputs: list, prefixes: list, ends: list) -> Chunk:
    return Chunk(Expanded(prefixes, ends, nested=True), *zip(*map(_wv, outputs)))


def _partitions_timeline(input_timeline: list, partition_watermarks: list) -> list:
    """The node's output watermark: the input's, held back by each partition's output
    watermark (its keys' holds; −∞ until it first moves)."""
    holds = [(FIRST_STEP - 1, index, MIN_MICROS) for index in range(len(partition_watermarks))]
    holds += [
        (step, index, time)
        for index, changes in enumerate(partition_watermarks)
        for step, time, _ in changes
    ]
    return output_timeline(input_timeline, holds)


def shuffled_by_key(source, node, plan, extra=None):
    """The source's elements as ``(key, [(position, value, timestamp, windows, pane), ...])``
    in their key's partition, with ``extra`` (``shuffled``)."""
    label, kind, partitions = node.id, KeyedNode.kind_of(node), plan.partitions

    class Keying:
        def __init__(self, ordered, cell):
            buckets = self.buckets = Buckets(partitions, ordered)
            add_all = buckets.add_all

            def push(chunk):
                pairs = key_values(label, kind, chunk.values)
                add_all(
                    list(map(_key, pairs)),
                    chunk.positions,
                    list(map(_value, pairs)),
                    chunk.timestamps,
                    chunk.windows,
                    chunk.panes,
                )

            self.push = push

        def drain(self):
            return self.buckets.drain()

        def finish(self):
            return self.buckets.finish()

    batches = source.work().run(Keying, plan.metrics_accumulator, f"{label} (keyed)")
    return shuffled(batches, partitions, extra)


def by_key(groups) -> dict:
    """A partition's ``(key, records)`` (``shuffled``) as each key's records in position
    order, the keys in the order of their first position."""
    runs_of: dict = {}
    for key, records in groups:
        runs = runs_of.get(key)
        if runs is None:
            runs_of[key] = [records]
        else:
            runs.append(records)
    records_of = {key: _merged(runs) for key, runs in runs_of.items()}
    return dict(sorted(records_of.items(), key=lambda item: _first_position(item[1])))


def _merged(runs: list) -> list:
    """Runs of records, each in position order, as one list in position order: joined when
    they do not overlap (one map side's positions rise, and map sides read apart often do
    not interleave), else sorted."""
    if len(runs) == 1:
        return runs[0]
    runs.sort(key=_first_position)
    records = list(chain.from_iterable(runs))
    lasts, firsts = map(_last_position, runs[:-1]), map(_first_position, runs[1:])
    if not all(map(lt, lasts, firsts)):
        records.sort(key=by_position)
    return records


def _first_position(run: list) -> tuple:
    return run[0][0]


def _last_position(run: list) -> tuple:
    return run[-1][0]
