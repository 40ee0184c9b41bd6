"""Element-wise primitives on Spark: ParDo (with tagged outputs and broadcast side inputs) and
window assignment. Both run partition by partition with the SDK's shared element code."""

from __future__ import annotations

from panes.ir.codec import lift
from panes.metrics import MetricsContainer, metrics_scope, reset_metrics_scope
from panes.transforms.dofn_runner import DoFnRunner
from panes.transforms.side_inputs import SideInputResolver
from panes.runners.eventlog import FIRST_STEP
from panes.runners.spark.collection import Collection
from panes.runners.spark.errors import worker_generator
from panes.runners.spark.positions import FINISH
from panes.runners.windows import assign


def plan_par_do(node, inputs, plan) -> dict:
    payload = lift(node.payload)
    label, specs = node.id, node.side_inputs
    side_values = plan.broadcast([plan.collect_values(s.pcollection) for s in specs]) if specs else None
    side_window_fns = [plan.window_fn(s.pcollection) for s in specs]
    accumulator = plan.metrics_accumulator

    def run(partition, records):
        container = MetricsContainer()

        def scoped(call, *args):
            token = metrics_scope(container, label)
            try:
                return call(*args)
            finally:
                reset_metrics_scope(token)

        resolver = (SideInputResolver(label, specs, side_values.value, side_window_fns)
                    if specs else None)
        runner = DoFnRunner(label, payload["fn"], payload["args"], payload["kwargs"],
                            payload["main_tag"], payload["output_tags"], resolver)
        scoped(runner.setup)
        scoped(runner.start_bundle)
        step, process = FIRST_STEP, runner.process
        for position, wv in records:
            step = position[0]
            token = metrics_scope(container, label)  # per element: fused ParDos interleave
            try:
                outputs = process(wv)
            finally:
                reset_metrics_scope(token)
            if len(outputs) == 1:
                tag, out = outputs[0]
                yield (*position, 0), out, tag
            else:
                for index, (tag, out) in enumerate(outputs):
                    yield (*position, index), out, tag
        for index, (tag, out) in enumerate(scoped(runner.finish_bundle)):
            yield (step, FINISH, partition, index), out, tag
        scoped(runner.teardown)
        accumulator.add(container)

    source = inputs[0]
    if len(node.outputs) == 1:
        untagged = lambda partition, records: (r[:2] for r in run(partition, records))  # noqa: E731
        rdd = source.rdd.mapPartitionsWithIndex(worker_generator(untagged)).setName(label)
        return {tag: Collection(rdd, source.timeline, source.step) for tag in node.outputs}
    tagged = plan.persist(source.rdd.mapPartitionsWithIndex(worker_generator(run)).setName(label))
    return {tag: Collection(tagged.filter(_has_tag(tag)).map(_untagged).setName(f"{label}.{tag}"),
                            source.timeline, source.step)
            for tag in node.outputs}


def _untagged(record):
    return record[0], record[1]


def _has_tag(tag):
    return lambda record: record[2] == tag


def plan_assign_windows(node, inputs, plan) -> dict:
    label, window_fn = node.id, plan.window_fn(node.outputs["main"])

    def run(records):
        for position, wv in records:
            yield position, assign(label, window_fn, wv)

    source = inputs[0]
    rdd = source.rdd.mapPartitions(worker_generator(run), preservesPartitioning=True).setName(label)
    return {"main": Collection(rdd, source.timeline, source.step)}
