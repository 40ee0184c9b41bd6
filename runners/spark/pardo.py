"""Element-wise primitives on Spark: ParDo (with tagged outputs and broadcast side inputs) and
window assignment. Single-output ParDos and WindowIntos become pending stages, fused into their
consumer's partition loop; a ParDo with tagged outputs runs partition by partition, its outputs
split by tag; a stateful ParDo is a keyed node (``panes.runners.spark.keyed``)."""

from __future__ import annotations

from panes.compiler.lift import lift
from panes.metrics import MetricsContainer, metrics_scope, reset_metrics_scope
from panes.runners.eventlog import FIRST_STEP
from panes.runners.fusion import ParDoStage, WindowStage
from panes.runners.spark.collection import Collection
from panes.runners.spark.errors import worker_generator
from panes.runners.spark.keyed import plan_keyed
from panes.runners.spark.metrics import loop_id, report
from panes.runners.spark.positions import FINISH
from panes.runners.spark.serializer import worker_output
from panes.runners.spark.side_inputs import side_input_values
from panes.runners.spark.worker_logs import captured
from panes.transforms.dofn_runner import DoFnRunner
from panes.transforms.side_inputs import SideInputResolver
from panes.windowing import window_fn_kinds


def plan_par_do(node, inputs, plan) -> dict:
    payload = lift(node.payload)
    label, specs = node.id, node.side_inputs
    side_values = (
        plan.broadcast([side_input_values(plan, spec, label) for spec in specs]) if specs else None
    )
    side_window_fns = [window_fn_kinds.from_ir(plan.window_fn(s.pcollection)) for s in specs]

    def resolver():
        return (
            SideInputResolver(label, specs, side_values.value, side_window_fns) if specs else None
        )

    source = inputs[0]
    if plan.ir.is_stateful(node):
        return plan_keyed(node, source, plan, resolver)
    if len(node.outputs) == 1:
        stage = lambda: ParDoStage(label, payload, resolver())  # noqa: E731
        return {tag: source.then(stage, plan.metrics_accumulator, label) for tag in node.outputs}
    accumulator, loop = plan.metrics_accumulator, loop_id()

    def run(partition, records):
        container = MetricsContainer()

        def scoped(call, *args):
            token = metrics_scope(container, label)
            try:
                return call(*args)
            finally:
                reset_metrics_scope(token)

        with captured():
            runner = DoFnRunner.of_payload(label, payload, resolver())
            scoped(runner.setup)
            scoped(runner.start_bundle)
            step = FIRST_STEP
            for position, wv in records:
                step = position[0]
                for index, (tag, out) in enumerate(scoped(runner.process, wv)):
                    yield (*position, index), out, tag
            for index, (tag, out) in enumerate(scoped(runner.finish_bundle)):
                yield (step, FINISH, partition, index), out, tag
            scoped(runner.teardown)
        report(accumulator, loop, partition, container)

    tagged = plan.persist(
        worker_output(source.rdd.mapPartitionsWithIndex(worker_generator(run))).setName(label)
    )
    return {
        tag: Collection(
            worker_output(tagged.filter(_has_tag(tag)).map(_untagged)).setName(f"{label}.{tag}"),
            source.timeline,
            source.step,
        )
        for tag in node.outputs
    }


def _untagged(record):
    return record[0], record[1]


def _has_tag(tag):
    return lambda record: record[2] == tag


def plan_assign_windows(node, inputs, plan) -> dict:
    label, window_fn = node.id, plan.window_fn(node.outputs["main"])
    return {
        "main": inputs[0].then(
            lambda: WindowStage(label, window_fn), plan.metrics_accumulator, label
        )
    }
