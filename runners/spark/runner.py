"""The Spark runner: plans each IR node onto PySpark and runs the plan.

Collections are RDDs of ``(position, WindowedValue)``; positions restore the event-log order
wherever it matters, so outputs equal the direct runner's whatever the partitioning. Spark
actions happen where the driver needs an answer: a replayed grouping's output watermarks, side
inputs, and writes. Jobs and RDDs are named after the transforms.
"""

from __future__ import annotations

from panes.compiler.lift import lift
from panes.errors import UserCodeError
from panes.ir.io import CaptureSink
from panes.metrics import MetricsContainer
from panes.options.pipeline_options import PipelineOptions
from panes.runners.collector import cycle_collection_paused
from panes.runners.eventlog import FIRST_STEP, merged_watermarks
from panes.runners.runner import Captured, PipelineResult
from panes.runners.sources import SOURCE_KINDS, ProcessingClock
from panes.runners.spark.broadcast import Shared
from panes.runners.spark.collection import Collection, positioned
from panes.runners.spark.errors import surfaced_errors
from panes.runners.spark.file_writes import FILE_SINKS, plan_file_write
from panes.runners.spark.grouping import plan_grouping
from panes.runners.spark.lowering import SQL_AGGREGATION, lower_aggregations, plan_sql_aggregation
from panes.runners.spark.metrics import committed, emit_new_logs, partition_metrics
from panes.runners.spark.pardo import plan_assign_windows, plan_par_do
from panes.runners.spark.positions import flattened
from panes.runners.spark.serializer import worker_output
from panes.runners.spark.session import get_session
from panes.runners.spark.sources import driver_read, plan_source, plan_test_stream
from panes.runners.spark.timeline import Merged, is_spread
from panes.runners.spark.worker_logs import ship_levels, worker_log_levels


class Plan:
    """One run's state on the driver: the IR, Spark context, collections, clock and metrics."""

    def __init__(self, ir, session, partitions, shuffle_seed, queries=None):
        self.ir, self.session, self.sc = ir, session, session.sparkContext
        self.queries = queries or {}  # sql_aggregation node id -> its lazy DataFrame
        self.partitions = partitions or self.sc.defaultParallelism
        self.shuffle_seed = shuffle_seed
        self.collections: dict = {}
        self.captures: dict = {}
        self.metrics = MetricsContainer()
        self.metrics_accumulator = partition_metrics(self.sc)
        self.logged: set = set()  # the reports whose log records the driver passed on
        self.sources = {
            node.id: driver_read(node) for node in ir.nodes.values() if node.kind in SOURCE_KINDS
        }
        self.clock = ProcessingClock(ir, self.sources)
        self.clock_events = self.clock.events
        self._persisted: list = []
        self._broadcasts: list = []

    def strategy(self, pcollection_id):
        """The IR windowing strategy of a collection."""
        return self.ir.pcollections[pcollection_id].windowing

    def window_fn(self, pcollection_id):
        return self.strategy(pcollection_id).window_fn

    def broadcast(self, value) -> Shared:
        handle = self.sc.broadcast(value)
        self._broadcasts.append(handle)
        return Shared(handle)

    def persist(self, rdd):
        from pyspark import StorageLevel

        self._persisted.append(rdd.persist(StorageLevel.MEMORY_AND_DISK))
        return rdd

    def action(self, label: str, run):
        """Runs a Spark job; then passes on the log records its tasks' user code wrote."""
        self.sc.setJobDescription(f"panes: {label}")
        try:
            with surfaced_errors(label):
                return run()
        finally:
            emit_new_logs(self.metrics_accumulator, self.logged)

    def collect_sorted(self, collection: Collection, label: str) -> Captured:
        """The collection's windowed values in event-log order, with their steps, on the
        driver."""
        if collection.held is not None:
            return positioned(collection.held.records)
        return collection.collect(lambda run: self.action(label, run))

    def release(self) -> None:
        for rdd in self._persisted:
            rdd.unpersist()
        for handle in self._broadcasts:
            handle.destroy()


def plan_flatten(node, inputs, plan):
    rdds = [
        worker_output(c.rdd.map(lambda r, i=i: (flattened(r[0], i), r[1])))
        for i, c in enumerate(inputs)
    ]
    steps = {c.step for c in inputs}
    step = steps.pop() if len(steps) == 1 else None
    rdd = plan.sc.union(rdds).setName(node.id) if rdds else plan.sc.emptyRDD()
    timelines = [c.timeline for c in inputs]
    timeline = (
        Merged(tuple(timelines)) if any(map(is_spread, timelines)) else merged_watermarks(timelines)
    )
    return {"main": Collection(rdd, timeline, step)}


def plan_write(node, inputs, plan):
    """Files are written by the executors; a capture (``materialize``, ``assert_that``: test
    tools) and any other sink take the collection on the driver."""
    sink = node.payload["sink"]
    if type(sink) in FILE_SINKS:
        plan_file_write(node, inputs[0], plan)
        return {}
    collected = plan.collect_sorted(inputs[0], node.id)
    if isinstance(sink, CaptureSink):
        plan.captures[sink.capture_id] = collected
        return {}
    try:
        lift(sink).write_records([wv.value for wv in collected.windowed_values], node.id)
    except UserCodeError:
        raise
    except Exception as error:
        raise UserCodeError(node.id, None, error) from error
    return {}


PLANNERS = {
    "create": plan_source,
    "read": plan_source,
    "test_stream": plan_test_stream,
    "par_do": plan_par_do,
    "assign_windows": plan_assign_windows,
    "group_by_key": plan_grouping,
    "combine_per_key": plan_grouping,
    "flatten": plan_flatten,
    "write": plan_write,
    SQL_AGGREGATION: plan_sql_aggregation,
}


class SparkRunner:
    """Runs pipelines on Spark; ``partitions`` overrides the parallelism and ``shuffle_seed``
    permutes source elements across partitions (for determinism tests);
    ``steps_per_micro_batch``: under ``--streaming``, how many steps of an event log one
    micro-batch delivers (outputs do not depend on it; tests vary it)."""

    def __init__(
        self,
        partitions: int | None = None,
        shuffle_seed: int | None = None,
        steps_per_micro_batch: int = 1,
    ):
        self.partitions = partitions
        self.shuffle_seed = shuffle_seed
        self.steps_per_micro_batch = steps_per_micro_batch

    def run_pipeline(self, ir, options=None) -> PipelineResult:
        options = options if options is not None else PipelineOptions([])
        if options.streaming:
            from panes.runners.spark.streaming.runner import run_streaming

            return run_streaming(ir, options, self.partitions, self.steps_per_micro_batch)
        levels = worker_log_levels(options)
        session = get_session(options)
        ship_levels(session.sparkContext, levels)
        ir, queries = lower_aggregations(ir, session)
        plan = Plan(
            ir, session, self.partitions or options.spark_partitions, self.shuffle_seed, queries
        )
        uses = _uses(ir)
        # The driver unpickles and holds collected results: many small objects, which the
        # cycle collector would rescan again and again.
        with cycle_collection_paused():
            try:
                for node in ir.nodes.values():
                    inputs = [plan.collections[pcollection] for pcollection in node.inputs]
                    outputs = PLANNERS[node.kind](node, inputs, plan)
                    for tag, pcollection in node.outputs.items():
                        collection = plan.collections[pcollection] = outputs.get(tag) or _empty(
                            plan
                        )
                        if uses.get(pcollection, 0) > 1:
                            plan.persist(collection.rdd)
                for pcollection, collection in plan.collections.items():
                    if not uses.get(pcollection):
                        # Nothing reads it, but its transforms still run (side effects, metrics).
                        plan.action(pcollection, collection.rdd.count)
                plan.metrics.merge(committed(plan.metrics_accumulator))
            finally:
                plan.release()
        return PipelineResult(plan.metrics, plan.captures)


def _uses(ir) -> dict:
    """How many times each collection is read (as main or side input)."""
    uses: dict = {}
    for node in ir.nodes.values():
        for pcollection in [*node.inputs, *(s.pcollection for s in node.side_inputs)]:
            uses[pcollection] = uses.get(pcollection, 0) + 1
    return uses


def _empty(plan) -> Collection:
    return Collection(plan.sc.emptyRDD(), [], FIRST_STEP)
