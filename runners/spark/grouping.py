"""GroupByKey and CombinePerKey on Spark.

Batch input under the default trigger takes the shared batch path (``BatchGrouping``), with a
map-side combine for CombineFns (combiner lifting; session windows merge per key after the
shuffle). Everything else is replayed exactly: shuffle by key, sort each partition's elements
by position, and drive the windowing engine through the whole watermark and clock timeline.
"""

from __future__ import annotations

from itertools import accumulate
from operator import itemgetter

from panes.metrics import MetricsContainer, metrics_scope, reset_metrics_scope
from panes.runners.eventlog import FIRST_STEP, Watermark
from panes.runners.fusion import CHUNK, Chunk, Expanded
from panes.runners.key_driver import drive_keys, output_timeline
from panes.runners.keys import key_values
from panes.runners.shortcuts import BATCH, aggregation_of, grouping_path
from panes.runners.spark.collection import Collection, Pending, chunk_feed
from panes.runners.spark.errors import worker_generator
from panes.runners.spark.positions import grouped, key_prefix
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
from panes.timestamp import MAX_MICROS, MIN_MICROS
from panes.windowing.aggregation import CombineFnAggregation
from panes.windowing.batch import BATCH_PANE, BatchGrouping
from panes.windowing.engine import Counters, WindowingEngine

CONTROL = "__control__"
HOLDS = "__holds__"
_key, _value = itemgetter(0), itemgetter(1)


def plan_grouping(node, inputs, plan) -> dict:
    """A ``group_by_key`` or ``combine_per_key``: on the batch path when the one decision of
    paths (``panes.runners.shortcuts``) says so, else replayed."""
    source, aggregation = inputs[0], aggregation_of(node)
    strategy = plan.strategy(node.inputs[0])
    end_step = source.batch_end()
    if grouping_path(plan.ir, node, end_step) != BATCH:
        return _replayed(node, source, strategy, aggregation, plan)
    label = node.id
    if isinstance(aggregation, CombineFnAggregation):
        chunks = _lifted(source, node, strategy, aggregation, end_step, plan)
    else:
        chunks = worker_output(
            _shuffled_by_key(source, node, plan).mapPartitions(
                worker_generator(_batch_partition(strategy, aggregation, end_step))
            )
        )
    done = [Watermark(end_step, MAX_MICROS)]
    # A partition's chunks are in position order.
    pending = Pending(chunks.setName(label), chunk_feed, chunked=True, ordered=True)
    main = Collection(None, done, end_step, pending, plan.metrics_accumulator, label)
    outputs = {"main": main}
    if node.payload.get("late_output"):
        outputs[node.payload["late_output"]] = Collection(plan.sc.emptyRDD(), done, end_step)
    return outputs


def _shuffled_by_key(source, node, plan, extra=None):
    """The source's elements as ``(key, (position, value, timestamp, windows, pane))`` (plain
    tuples, which pickle without a reducer call per element), in their key's partition, with
    ``extra`` (``shuffled``)."""
    label, kind, partitions = node.id, node.kind, plan.partitions

    class Keying:
        def __init__(self, ordered, cell):
            buckets = self.buckets = Buckets(partitions)
            add_all = buckets.add_all

            def push(chunk):
                pairs = key_values(label, kind, chunk.values)
                add_all(
                    map(_key, pairs),
                    zip(
                        chunk.positions,
                        map(_value, pairs),
                        chunk.timestamps,
                        chunk.windows,
                        chunk.panes,
                    ),
                )

            self.push = push

        def drain(self):
            return self.buckets.drain()

        def finish(self):
            return self.buckets.finish()

    batches = source.work().run(Keying, plan.metrics_accumulator, f"{label} (keyed)")
    return shuffled(batches, partitions, extra)


def _lifted(source, node, strategy, aggregation, end_step, plan):
    """Map-side partial groupings per partition, merged per key after the shuffle."""
    label, kind, partitions = node.id, node.kind, plan.partitions

    class Partial:
        """Folds the partition's elements into a BatchGrouping, noting each key's first
        position; ships each key's accumulators (sessions merged: a key's sessions, not its
        elements). When positions arrive in order, a key's first one is where it first
        arrives."""

        def __init__(self, ordered, cell):
            grouping, first = self.grouping, self.first = BatchGrouping(strategy, aggregation), {}
            self.cell = cell
            add_chunk = grouping.add_chunk

            def push(chunk):
                cell[1] = label
                pairs, positions = key_values(label, kind, chunk.values), chunk.positions
                opened = add_chunk(pairs, chunk.timestamps, chunk.windows)
                if ordered:
                    for index in opened:
                        first[pairs[index][0]] = positions[index]
                    return
                for (key, _), position in zip(pairs, positions):
                    known = first.get(key)
                    if known is None or position < known:
                        first[key] = position

            self.push = push

        def drain(self):
            return ()

        def finish(self):
            self.cell[1] = label  # merging windows runs the combiner
            buckets, first = Buckets(partitions), self.first
            partials = dict(self.grouping.partials())
            buckets.add_all(partials, [(first[key], partial) for key, partial in partials.items()])
            return buckets.finish()

    def combine(groups):
        """Merges each key's partial groupings and emits its panes."""
        grouping, first = BatchGrouping(strategy, aggregation), {}
        for key, partials in groups:
            for key_first, partial in partials:
                grouping.merge_partial(key, partial)
                known = first.get(key)
                if known is None or key_first < known:
                    first[key] = key_first
        return _batch_outputs(grouping, first, end_step)

    partials = source.work().run(Partial, plan.metrics_accumulator, f"{label} (partial)")
    return worker_output(shuffled(partials, partitions).mapPartitions(worker_generator(combine)))


def _by_key(groups) -> dict:
    """A partition's ``(key, records)`` as each key's ``(position, ...)`` records in position
    order, the keys in the order of their first position."""
    records_of: dict = {}
    for key, records in groups:
        known = records_of.get(key)
        if known is None:
            records_of[key] = records
        else:
            known.extend(records)
    for records in records_of.values():
        records.sort(key=itemgetter(0))
    return dict(sorted(records_of.items(), key=lambda item: item[1][0][0]))


def _batch_partition(strategy, aggregation, end_step):
    def run(pairs):
        records_of = _by_key(pairs)
        grouping = BatchGrouping(strategy, aggregation)
        for key, records in records_of.items():
            _, values, timestamps, windows, _ = zip(*records)
            grouping.add_chunk([(key, value) for value in values], timestamps, windows)
        first = {key: records[0][0] for key, records in records_of.items()}
        return _batch_outputs(grouping, first, end_step)

    return run


def _batch_outputs(grouping, first: dict, end_step: int):
    """A batch grouping's panes as ``Chunk``s of whole keys, keys in the order of their first
    position (``first``), so a partition's outputs are in position order; a key's outputs
    are at ``(*key_prefix, index)``. Columns cross to the consumer (or the driver) for a
    fraction of what a windowed value each costs to pickle."""
    keys = sorted(grouping.keys(), key=first.__getitem__)
    for counts, values, timestamps, windows in grouping.columns(keys, CHUNK):
        prefixes = [key_prefix(end_step, first[key]) for key in values.keys]
        positions = Expanded(prefixes, list(accumulate(counts)), nested=True)
        yield Chunk(positions, values, timestamps, windows, Expanded([BATCH_PANE], [len(values)]))


def _replayed(node, source, strategy, aggregation, plan) -> dict:
    """Each partition's keys replayed against the input timeline: broadcast when the driver
    holds it, else built in each task from copies of its parts shuffled in with the keys
    (``panes.runners.spark.timeline``), the output watermark then spread too."""
    label = node.id
    engine = WindowingEngine(strategy, aggregation)
    clock = plan.broadcast(plan.clock_events)
    spread = is_spread(source.timeline)
    if spread:
        parts, shape = layout(source.timeline)
        pairs = _shuffled_by_key(source, node, plan, copies(parts, plan.partitions))

        def timeline_of(items):
            return received(shape, items)
    else:
        pairs = _shuffled_by_key(source, node, plan)
        broadcast = plan.broadcast(source.timeline)

        def timeline_of(items):
            return items, broadcast.value

    def run(partition, items):
        groups, timeline = timeline_of(items)
        elements = _by_key(groups)
        if not elements:
            return
        first = {key: records[0][0] for key, records in elements.items()}
        container = MetricsContainer()
        token = metrics_scope(container, label)
        try:
            replay = drive_keys(engine, elements, timeline, clock.value)
        finally:
            reset_metrics_scope(token)
        for tag, outputs in (("main", replay.main), ("late", replay.late)):
            step, index = None, 0
            for output_step, key, wv in outputs:
                index = index + 1 if output_step == step else 0
                step = output_step
                yield tag, grouped(step, first[key], index), wv
        if spread:
            holds = [(step, (partition, rank), hold) for step, rank, hold in replay.holds]
            yield from ((HOLDS, *part) for part in chunked((partition,), holds))
            watermarks = []
        else:
            watermarks = [(e.step, e.time, e.idle) for e in replay.watermarks]
        yield CONTROL, watermarks, (replay.counters, container)

    out = worker_output(pairs.mapPartitionsWithIndex(worker_generator(run)))
    out = plan.persist(out.setName(label))
    controls = plan.action(label, lambda: out.filter(lambda r: r[0] == CONTROL).collect())
    counters = Counters()
    for _, _, (partition_counters, container) in controls:
        counters.add(partition_counters)
        plan.metrics.merge(container)
    counters.report(plan.metrics, label)
    if spread:
        holds = worker_output(out.filter(lambda r: r[0] == HOLDS).map(lambda r: (r[1], r[2])))
        timeline_out: Timeline = HeldBack(source.timeline, holds)
    else:
        timeline_out = _partitions_timeline(source.timeline, [c[1] for c in controls])
    outputs = {"main": _tagged(out, "main", timeline_out, label)}
    if node.payload.get("late_output"):
        outputs[node.payload["late_output"]] = _tagged(out, "late", timeline_out, label)
    return outputs


def _tagged(out, tag, timeline, label):
    rdd = worker_output(out.filter(lambda r: r[0] == tag).map(lambda r: (r[1], r[2])))
    return Collection(rdd.setName(f"{label}.{tag}"), timeline, None)


def _partitions_timeline(input_timeline: list, partition_watermarks: list) -> list:
    """The grouping's output watermark: the input's, held back by each partition's output
    watermark (its keys' holds; −∞ until it first moves)."""
    holds = [(FIRST_STEP - 1, index, MIN_MICROS) for index in range(len(partition_watermarks))]
    holds += [
        (step, index, time)
        for index, changes in enumerate(partition_watermarks)
        for step, time, _ in changes
    ]
    return output_timeline(input_timeline, holds)
