"""One function per IR node kind: input streams in, output streams by tag out."""

from __future__ import annotations

from panes.compiler.lift import lift
from panes.errors import UserCodeError
from panes.ir.io import CaptureSink
from panes.metrics import metrics_cell_scope, reset_metrics_scope
from panes.runners.eventlog import (
    FIRST_STEP,
    Bundle,
    Watermark,
    by_step,
    elements_of,
    merged_watermarks,
)
from panes.runners.fusion import CHUNK, Chain, Chunk, ParDoStage, WindowStage, boxing_sink
from panes.runners.key_driver import as_streams, drive_keys
from panes.runners.keyed import KeyedNode
from panes.runners.keys import key_value, key_values
from panes.runners.runner import Captured
from panes.runners.shortcuts import BATCH, aggregation_of, batch_end, grouping_path
from panes.runners.sources import source_stream, test_stream_stream
from panes.timestamp import MAX_MICROS
from panes.transforms.dofn_runner import DoFnRunner
from panes.transforms.side_inputs import SideInputResolver
from panes.windowing import window_fn_kinds
from panes.windowing.batch import BatchGrouping


def run_source(node, inputs, ctx):
    return {"main": source_stream(ctx.sources[node.id], ctx.clock)}


def run_test_stream(node, inputs, ctx):
    return {"main": test_stream_stream(node)}


class PendingStream:
    """Element-wise stages not yet run over ``stream``: its consumer runs them fused, into boxed
    bundles (``events``) or straight into a grouping (``fold``)."""

    def __init__(self, stream: list, stages: tuple = ()):
        self.stream, self.stages = stream, stages

    def then(self, stage) -> PendingStream:
        return PendingStream(self.stream, (*self.stages, stage))

    def events(self, ctx) -> list:
        out: list = []
        stream: list = []
        sink = boxing_sink(out)

        def bundle(step):
            stream.append(Bundle(step, [wv for _, wv in out]))
            out.clear()

        self.fold(ctx, sink, bundle, stream.append)
        return stream

    def fold(self, ctx, sink, bundle_done=None, watermark=None, cell=None) -> None:
        """Pushes every bundle through the stages into ``sink``, in chunks, calling
        ``bundle_done(step)`` after each bundle and ``watermark(event)`` for watermarks. A
        sink running user code names its step in the metrics ``cell`` it shares with the
        stages (``[ctx.metrics, step]``)."""
        cell = [ctx.metrics, None] if cell is None else cell
        chain = Chain([make() for make in self.stages], sink, cell)
        token = metrics_cell_scope(cell)
        try:
            chain.open()
            for event in self.stream:
                if isinstance(event, Watermark):
                    if watermark is not None:
                        watermark(event)
                    continue
                chain.start_bundle()
                for start in range(0, len(event.elements), CHUNK):
                    elements = event.elements[start : start + CHUNK]
                    chain.push(Chunk.of([()] * len(elements), elements))
                chain.finish_bundle(lambda index: ())
                if bundle_done is not None:
                    bundle_done(event.step)
            chain.close()
        finally:
            reset_metrics_scope(token)


def as_pending(stream) -> PendingStream:
    return stream if isinstance(stream, PendingStream) else PendingStream(stream)


def run_par_do(node, inputs, ctx):
    payload = lift(node.payload)
    resolver = None
    if node.side_inputs:
        resolver = SideInputResolver(
            node.id,
            node.side_inputs,
            [elements_of(ctx.stream(s.pcollection)) for s in node.side_inputs],
            [window_fn_kinds.from_ir(ctx.window_fn(s.pcollection)) for s in node.side_inputs],
        )
    if ctx.ir.is_stateful(node):
        return _run_keyed(
            node,
            as_pending(inputs[0]),
            ctx,
            KeyedNode(node, ctx.ir.pcollections[node.inputs[0]].windowing, resolver),
        )
    if len(node.outputs) == 1:
        stage = lambda: ParDoStage(node.id, payload, resolver)  # noqa: E731
        return {tag: as_pending(inputs[0]).then(stage) for tag in node.outputs}
    runner = DoFnRunner.of_payload(node.id, payload, resolver)
    outputs = {tag: [] for tag in node.outputs}
    with ctx.metrics_for(node.id):
        runner.setup()
        for event in as_pending(inputs[0]).events(ctx):
            if isinstance(event, Watermark):
                for stream in outputs.values():
                    stream.append(event)
                continue
            runner.start_bundle()
            results = [out for wv in event.elements for out in runner.process(wv)]
            results.extend(runner.finish_bundle())
            for tag, stream in outputs.items():
                stream.append(Bundle(event.step, [wv for t, wv in results if t == tag]))
        runner.teardown()
    return outputs


def run_assign_windows(node, inputs, ctx):
    window_fn = ctx.window_fn(node.outputs["main"])
    return {"main": as_pending(inputs[0]).then(lambda: WindowStage(node.id, window_fn))}


def run_grouping(node, inputs, ctx):
    """A ``group_by_key`` or ``combine_per_key``: on the batch path when the one decision of
    paths (``panes.runners.shortcuts``) says so, else each key driven through the log."""
    source = as_pending(inputs[0])
    strategy, end_step = ctx.ir.pcollections[node.inputs[0]].windowing, _batch_end(source.stream)
    if grouping_path(ctx.ir, node, end_step) == BATCH:
        return _run_batch_grouping(node, source, end_step, strategy, aggregation_of(node), ctx)
    return _run_keyed(node, source, ctx, KeyedNode(node, strategy))


def _run_keyed(node, source, ctx, keyed):
    """A keyed node: each key driven through the log (``key_driver.drive_keys``), in one
    bundle of its DoFn when it is stateful."""
    label = node.id
    elements, watermarks, steps = {}, [], set()
    for event in source.events(ctx):
        steps.add(event.step)
        if isinstance(event, Watermark):
            watermarks.append(event)
            continue
        for wv in event.elements:
            key, value = key_value(label, keyed.kind, wv.value)
            elements.setdefault(key, []).append(
                ((event.step,), value, wv.timestamp_micros, wv.windows, wv.pane_info)
            )
    clock_steps = {event.step for event in ctx.clock.events}
    with ctx.metrics_for(label):
        keyed.open()
        keyed.start_bundle()
        replay = drive_keys(keyed.processor, elements, watermarks, ctx.clock.events)
        finished = keyed.finish_bundle()
        keyed.close()
    last = max(steps | clock_steps)
    for tag, wv in finished:  # finish_bundle's outputs come after the bundle: at its last step
        replay.outputs.setdefault(tag, []).append((last, None, wv))
    replay.counters.report(ctx.metrics, label)
    streams = as_streams(replay, keyed.tags, steps | clock_steps)
    return {tag: streams[emitted] for emitted, tag in keyed.tags.items() if tag is not None}


def _batch_end(stream):
    """The end step when the stream is Beam batch (``shortcuts.batch_end``), else None.
    Element-wise stages keep a stream batch, so their input decides."""
    steps = {event.step for event in stream if isinstance(event, Bundle) and event.elements}
    step = steps.pop() if len(steps) == 1 else (FIRST_STEP if not steps else None)
    return batch_end(step, [event for event in stream if isinstance(event, Watermark)])


def _run_batch_grouping(node, source, end_step, strategy, aggregation, ctx):
    """Default trigger over batch input: one ON_TIME pane per key and window, no late data.
    The elements are folded into the grouping as the fused stages produce them."""
    grouping, cell = BatchGrouping(strategy, aggregation), [ctx.metrics, None]
    add, label, kind = grouping.add_chunk, node.id, node.kind

    def fold(chunk):
        cell[1] = label
        add(key_values(label, kind, chunk.values), chunk.timestamps, chunk.windows)

    source.fold(ctx, fold, cell=cell)
    with ctx.metrics_for(label):  # merging windows and extracting run the combiner too
        panes = grouping.panes()  # in canonical order: keys as they first arrived
    main = [Bundle(end_step, panes), Watermark(end_step, MAX_MICROS)]
    return _grouping_outputs(node, main, [Watermark(end_step, MAX_MICROS)])


def _grouping_outputs(node, main, late):
    outputs = {"main": main}
    if node.payload.get("late_output"):
        outputs[node.payload["late_output"]] = late
    return outputs


def run_flatten(node, inputs, ctx):
    """Merges bundles of the same step; the watermark is the minimum over the active inputs."""
    bundles = [
        Bundle(step, [wv for _, e in events if isinstance(e, Bundle) for wv in e.elements])
        for step, events in by_step(inputs)
    ]
    watermarks = merged_watermarks(inputs)
    return {
        "main": sorted(
            [b for b in bundles if b.elements] + watermarks,
            key=lambda e: (e.step, isinstance(e, Watermark)),
        )
    }


def run_write(node, inputs, ctx):
    sink = node.payload["sink"]
    if isinstance(sink, CaptureSink):
        bundles = [event for event in inputs[0] if isinstance(event, Bundle)]
        ctx.captures[sink.capture_id] = Captured(
            [bundle.step for bundle in bundles for _ in bundle.elements],
            [wv for bundle in bundles for wv in bundle.elements],
        )
        return {}
    elements = elements_of(inputs[0])
    try:
        lift(sink).write_records([wv.value for wv in elements], node.id)
    except UserCodeError:
        raise
    except Exception as error:
        raise UserCodeError(node.id, None, error) from error
    return {}


# Executors that take their main input still pending (they run its stages fused).
FUSING = {"par_do", "assign_windows", "group_by_key", "combine_per_key"}

EXECUTORS = {
    "create": run_source,
    "read": run_source,
    "test_stream": run_test_stream,
    "par_do": run_par_do,
    "assign_windows": run_assign_windows,
    "group_by_key": run_grouping,
    "combine_per_key": run_grouping,
    "flatten": run_flatten,
    "write": run_write,
}
