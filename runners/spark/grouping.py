"""GroupByKey and CombinePerKey on Spark.

On the batch path (``panes.runners.shortcuts``) a grouping is a ``BatchGrouping``, with a
map-side combine for CombineFns (combiner lifting; session windows merge per key after the
shuffle). On the engine path it is replayed exactly, as every keyed node is
(``panes.runners.spark.keyed``).
"""

from __future__ import annotations

from itertools import accumulate
from operator import itemgetter

from panes.runners.eventlog import Watermark
from panes.runners.fusion import CHUNK, Chunk, Expanded
from panes.runners.keys import key_values
from panes.runners.shortcuts import BATCH, aggregation_of, grouping_path
from panes.runners.spark.collection import Collection, Pending, chunk_feed
from panes.runners.spark.errors import worker_generator
from panes.runners.spark.keyed import by_key, plan_keyed, shuffled_by_key
from panes.runners.spark.positions import key_prefix
from panes.runners.spark.serializer import worker_output
from panes.runners.spark.shuffle import Buckets, shuffled
from panes.timestamp import MAX_MICROS
from panes.windowing.aggregation import CombineFnAggregation
from panes.windowing.batch import BATCH_PANE, BatchGrouping

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
        return plan_keyed(node, source, plan)
    label = node.id
    if isinstance(aggregation, CombineFnAggregation):
        chunks = _lifted(source, node, strategy, aggregation, end_step, plan)
    else:
        chunks = worker_output(
            shuffled_by_key(source, node, plan).mapPartitions(
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
            buckets, first = Buckets(partitions, ordered=True), self.first  # a record per key
            partials = dict(self.grouping.partials())
            buckets.add_all(
                list(partials), list(map(first.__getitem__, partials)), [*partials.values()]
            )
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


def _batch_partition(strategy, aggregation, end_step):
    def run(pairs):
        records_of = by_key(pairs)
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
