"""How the Spark runner holds a collection: an RDD of ``(position, WindowedValue)`` plus the
collection's watermark timeline, kept on the driver when it is small by design (a TestStream's,
a batch source's) and on the executors when it grows with the input
(``panes.runners.spark.timeline``).

Element-wise transforms are not applied at once: a collection may hold them as ``Pending``
work on an earlier RDD, which its consumer runs fused (``panes.runners.fusion``) into its own
partition loop — a grouping folds the elements straight into its accumulators. Reading
``rdd`` runs the pending work into boxed elements. A batch grouping's output is such work
over an RDD of ``Chunk``s (columns), and what the driver collects crosses as chunks: a
windowed value each would cost several times as much to pickle and unpickle.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import chain, islice, repeat
from typing import TYPE_CHECKING

from panes.metrics import MetricsContainer, metrics_cell_scope, reset_metrics_scope
from panes.runners.eventlog import FIRST_STEP, Bundle, Watermark
from panes.runners.fusion import CHUNK, Chain, Chunk, Expanded, boxing_sink
from panes.runners.runner import Captured
from panes.runners.shortcuts import batch_end
from panes.runners.spark.errors import worker_generator
from panes.window import windowed_value

if TYPE_CHECKING:
    from pyspark import RDD
from panes.runners.spark.metrics import loop_id, report
from panes.runners.spark.positions import FINISH, by_position
from panes.runners.spark.serializer import worker_output
from panes.runners.spark.timeline import Timeline
from panes.runners.spark.worker_logs import captured


@dataclass(frozen=True)
class Pending:
    """Element-wise work still to run: ``feed(partition, records, push)`` pushes ``records``
    as a ``Chunk`` into the chain built from ``stages`` (factories, called on the worker) and
    returns the last position it pushed. ``records`` are up to ``CHUNK`` of ``source``'s
    records, or one of them when ``source``'s records are chunks already (``chunked``)."""

    source: RDD
    feed: Callable
    stages: tuple = ()
    chunked: bool = False
    # Whether a partition's positions reach the stages in increasing order.
    ordered: bool = False

    def then(self, stage) -> Pending:
        return replace(self, stages=(*self.stages, stage))

    def run(self, sink_factory, accumulator, name: str, to_driver: bool = False):
        """An RDD of what the sinks ``sink_factory(ordered, cell)`` gives yield, one per
        partition (``ordered``: whether positions arrive in increasing order; ``cell``: the
        loop's metrics cell, where a sink running user code names its step). A sink has
        ``push``, and ``drain()`` and ``finish()`` giving its records. ``to_driver``: the RDD
        is for a ``collect`` (its records ship compressed)."""
        feed, stages, chunked, ordered = self.feed, self.stages, self.chunked, self.ordered
        loop = loop_id()

        def run(partition, records):
            cell = [MetricsContainer(), None]
            sink = sink_factory(ordered, cell)
            chain = Chain([make() for make in stages], sink.push, cell)
            records = iter(records)
            chunks = records if chunked else iter(lambda: list(islice(records, CHUNK)), [])
            token = metrics_cell_scope(cell)
            try:
                with captured():
                    chain.open()
                    chain.start_bundle()
                    last = None
                    for chunk in chunks:
                        last = feed(partition, chunk, chain.push)
                        yield from sink.drain()
                    step = FIRST_STEP if last is None else last[0]
                    chain.finish_bundle(lambda index: (step, FINISH, partition, index))
                    chain.close()
                    yield from sink.drain()
                    yield from sink.finish()
            finally:
                reset_metrics_scope(token)
            report(accumulator, loop, partition, cell[0])

        rdd = self.source.mapPartitionsWithIndex(worker_generator(run))
        return worker_output(rdd, to_driver).setName(name)


class ChunkSink:
    """Keeps the chain's output as the ``Chunk``s it comes in: columns, which cross to another
    process for a fraction of what a windowed value each costs."""

    def __init__(self, ordered=False, cell=None):
        self.out: list = []
        self.push = self.out.append

    def drain(self):
        yield from self.out
        self.out.clear()

    def finish(self):
        return ()


class BoxingSink(ChunkSink):
    """Keeps the chain's output as ``(position, WindowedValue)`` records."""

    def __init__(self, ordered=False, cell=None):
        super().__init__(ordered, cell)
        self.push = boxing_sink(self.out)


def in_order(chunks: list) -> Captured:
    """The chunks' elements as WindowedValues, in position order, with their steps. Positions
    are sorted by runs: a grouping's or FlatMap's outputs of one input (a nested ``Expanded``
    column) sort as one run, by its first position; any other position is a run alone."""
    runs: list = []
    for chunk in chunks:
        boxed = list(map(windowed_value, zip(*chunk[1:])))
        positions = chunk.positions
        runs += (
            positions.runs(boxed) if isinstance(positions, Expanded) else zip(positions, zip(boxed))
        )
    runs.sort(key=by_position)
    return Captured(
        list(chain.from_iterable(repeat(first[0], len(run)) for first, run in runs)),
        list(chain.from_iterable(run for _, run in runs)),
    )


def positioned(records: list) -> Captured:
    """``(position, WindowedValue)`` records in position order as captured columns."""
    return Captured([position[0] for position, _ in records], [wv for _, wv in records])


def chunk_feed(partition, chunk, push):
    """Feeds records that are ``Chunk``s already."""
    push(chunk)
    return chunk.positions[-1]


def positioned_feed(partition, records, push):
    """Feeds ``(position, WindowedValue)`` records."""
    positions, windowed_values = zip(*records)
    push(Chunk.of(positions, windowed_values))
    return positions[-1]


@dataclass(frozen=True)
class Held:
    """Records the driver already holds, in position order (a small result, such as a lowered
    aggregation's), and what parallelizing them takes."""

    records: list
    sc: object
    partitions: int
    name: str

    def parallelize(self):
        return self.sc.parallelize(self.records, self.partitions).setName(self.name)


class Collection:
    """``rdd`` of ``(position, WindowedValue)`` records, or ``pending`` work producing them, or
    records ``held`` on the driver, parallelized only when a transform needs them as an RDD;
    ``timeline``: Watermark events, step-ordered, or a timeline spread over the executors
    (``panes.runners.spark.timeline``); ``step``: the one step all elements are at,
    when known."""

    def __init__(
        self,
        rdd,
        timeline: Timeline,
        step: int | None,
        pending: Pending | None = None,
        accumulator=None,
        name: str = "",
        held: Held | None = None,
    ):
        self._rdd, self.timeline, self.step = rdd, timeline, step
        self.pending, self.accumulator, self.name = pending, accumulator, name
        self.held = held

    @property
    def rdd(self):
        if self.pending is not None:
            self._rdd = self.pending.run(BoxingSink, self.accumulator, self.name)
            self.pending = None
        if self._rdd is None and self.held is not None:
            self._rdd = self.held.parallelize()
        return self._rdd

    def collect(self, action) -> Captured:
        """The collection's windowed values on the driver, in position order, with their
        steps; ``action(run)`` runs the Spark job. Pending work ships its output as chunks,
        boxed here; either way what is collected ships compressed."""
        if self.pending is None:
            records = worker_output(self.rdd.mapPartitions(iter), to_driver=True)
            return positioned(sorted(action(records.collect), key=by_position))
        chunks = self.pending.run(ChunkSink, self.accumulator, self.name, to_driver=True)
        return in_order(action(chunks.collect))

    def work(self) -> Pending:
        """The collection as pending work (none yet, when it is already an RDD)."""
        return self.pending if self.pending is not None else Pending(self.rdd, positioned_feed)

    def then(self, stage, accumulator, name: str) -> Collection:
        """This collection with an element-wise ``stage`` (a factory) applied, pending."""
        return Collection(
            None, self.timeline, self.step, self.work().then(stage), accumulator, name
        )

    def batch_end(self):
        """The end step when the collection is Beam batch (``shortcuts.batch_end``), else None."""
        return batch_end(self.step, self.timeline)


def from_stream(plan, stream: list, label: str) -> Collection:
    """A collection from a direct-style event stream built on the driver (sources)."""
    records = [
        ((event.step, index), wv)
        for event in stream
        if isinstance(event, Bundle)
        for index, wv in enumerate(event.elements)
    ]
    if plan.shuffle_seed is not None:
        random.Random(plan.shuffle_seed).shuffle(records)
    steps = {position[0] for position, _ in records}
    step = steps.pop() if len(steps) == 1 else (FIRST_STEP if not steps else None)
    rdd = plan.sc.parallelize(records, plan.partitions).setName(label)
    return Collection(rdd, [e for e in stream if isinstance(e, Watermark)], step)
