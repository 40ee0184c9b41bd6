"""One function per IR node kind: input streams in, output streams by tag out."""

from __future__ import annotations

from panes.errors import UserCodeError
from panes.ir.codec import lift
from panes.testing.capture import CaptureSink
from panes.timestamp import MAX_TIMESTAMP, MIN_TIMESTAMP
from panes.transforms.dofn_runner import DoFnRunner
from panes.transforms.side_inputs import SideInputResolver
from panes.watermark import combine_input_watermarks
from panes.window import WindowedValue
from panes.windowing.aggregation import BufferAggregation, CombineFnAggregation
from panes.windowing.batch import BatchGrouping, is_batch_exact
from panes.windowing.driver import LATE, MAIN, WindowingDriver
from panes.runners.direct.sources import source_stream, test_stream_stream
from panes.runners.direct.stream import Bundle, Watermark, by_step, elements_of



def run_source(node, inputs, ctx):
    return {"main": source_stream(ctx.sources[node.id], ctx.clock)}


def run_test_stream(node, inputs, ctx):
    return {"main": test_stream_stream(node)}


def run_par_do(node, inputs, ctx):
    payload = lift(node.payload)
    resolver = None
    if node.side_inputs:
        resolver = SideInputResolver(
            node.id, node.side_inputs, [elements_of(ctx.streams[s.pcollection]) for s in node.side_inputs],
            [ctx.window_fn(s.pcollection) for s in node.side_inputs])
    runner = DoFnRunner(node.id, payload["fn"], payload["args"], payload["kwargs"],
                        payload["main_tag"], payload["output_tags"], resolver)
    outputs = {tag: [] for tag in node.outputs}
    with ctx.metrics_for(node.id):
        runner.setup()
        for event in inputs[0]:
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
    stream = []
    for event in inputs[0]:
        if isinstance(event, Bundle):
            event = Bundle(event.step, [_assign(node, window_fn, wv) for wv in event.elements])
        stream.append(event)
    return {"main": stream}


def _assign(node, window_fn, wv):
    from panes.window import AssignContext

    try:
        windows = window_fn.assign(AssignContext(wv.timestamp, wv.value, wv.windows[0]))
    except Exception as error:
        raise UserCodeError(node.id, wv.value, error) from error
    return WindowedValue(wv.value, wv.timestamp, tuple(windows), wv.pane)


def run_group_by_key(node, inputs, ctx):
    return _run_grouping(node, inputs, ctx, BufferAggregation())


def run_combine_per_key(node, inputs, ctx):
    return _run_grouping(node, inputs, ctx, CombineFnAggregation(lift(node.payload["combine_fn"])))


def _run_grouping(node, inputs, ctx, aggregation):
    strategy = lift(ctx.ir.pcollections[node.inputs[0]].windowing)
    batch = _batch_input(inputs[0]) if is_batch_exact(strategy) else None
    if batch is not None:
        return _run_batch_grouping(node, batch, strategy, aggregation)
    driver = WindowingDriver(strategy, aggregation)
    main, late = [], []
    output_watermark, input_idle, output_idle = MIN_TIMESTAMP, False, False
    with ctx.metrics_for(node.id):
        for step, events in by_step([inputs[0], ctx.clock.events]):
            emissions = []
            for index, event in events:
                if isinstance(event, Bundle):
                    emissions += driver.process_bundle([_keyed(node, wv) for wv in event.elements])
                elif index == 0:
                    input_idle = event.idle
                    emissions += driver.advance_input_watermark(event.time)
                else:
                    emissions += driver.advance_processing_time(event.time)
            main.append(Bundle(step, [wv for tag, wv in emissions if tag == MAIN]))
            late.append(Bundle(step, [wv for tag, wv in emissions if tag == LATE]))
            if (driver.output_watermark(), input_idle) != (output_watermark, output_idle):
                output_watermark, output_idle = driver.output_watermark(), input_idle
                main.append(Watermark(step, output_watermark, output_idle))
                late.append(Watermark(step, output_watermark, output_idle))
    driver.counters.report(ctx.metrics, node.id)
    return _grouping_outputs(node, main, late)


def _batch_input(stream):
    """``(end_step, elements)`` when the stream is Beam batch: all elements in bundles of one
    step, no watermark before them, then the watermark straight to +inf at ``end_step``;
    otherwise None."""
    steps = {event.step for event in stream if isinstance(event, Bundle) and event.elements}
    watermarks = [event for event in stream if isinstance(event, Watermark)]
    if len(steps) > 1 or len(watermarks) != 1 or watermarks[0].time != MAX_TIMESTAMP:
        return None
    end_step = watermarks[0].step
    if steps and steps.pop() > end_step:
        return None
    return end_step, elements_of(stream)


def _run_batch_grouping(node, batch, strategy, aggregation):
    """Default trigger over batch input: one ON_TIME pane per key and window, no late data."""
    end_step, elements = batch
    grouping = BatchGrouping(strategy, aggregation)
    for wv in elements:
        grouping.add(*_keyed(node, wv))
    main = [Bundle(end_step, grouping.panes()), Watermark(end_step, MAX_TIMESTAMP)]
    return _grouping_outputs(node, main, [Watermark(end_step, MAX_TIMESTAMP)])


def _grouping_outputs(node, main, late):
    outputs = {"main": main}
    if node.payload.get("late_output"):
        outputs[node.payload["late_output"]] = late
    return outputs


def _keyed(node, wv):
    value = wv.value
    if not (isinstance(value, tuple) and len(value) == 2):
        raise UserCodeError(node.id, value, TypeError(
            f"{node.kind} needs (key, value) pairs, got {type(value).__name__}; key the elements "
            f"first, e.g. | Map(lambda x: (key_of(x), x)) or | WithKeys(...)"))
    return value[0], WindowedValue(value[1], wv.timestamp, wv.windows, wv.pane)


def run_flatten(node, inputs, ctx):
    """Merges bundles of the same step; the watermark is the minimum over the inputs that are
    not idle (unchanged while all are idle)."""
    watermarks = [MIN_TIMESTAMP] * len(inputs)
    idle = [False] * len(inputs)
    current, current_idle = MIN_TIMESTAMP, False
    stream = []
    for step, events in by_step(inputs):
        elements = [wv for _, e in events if isinstance(e, Bundle) for wv in e.elements]
        if elements:
            stream.append(Bundle(step, elements))
        for index, event in events:
            if isinstance(event, Watermark):
                watermarks[index], idle[index] = event.time, event.idle
        combined = combine_input_watermarks(watermarks, idle)
        combined = current if combined is None else combined
        if (combined, all(idle)) != (current, current_idle):
            current, current_idle = combined, all(idle)
            stream.append(Watermark(step, current, idle=current_idle))
    return {"main": stream}


def run_write(node, inputs, ctx):
    sink = lift(node.payload["sink"])
    elements = elements_of(inputs[0])
    if isinstance(sink, CaptureSink):
        ctx.captures[sink.capture_id] = elements
        return {}
    try:
        sink.write_records([wv.value for wv in elements])
    except Exception as error:
        raise UserCodeError(node.id, None, error) from error
    return {}


EXECUTORS = {
    "create": run_source, "read": run_source, "test_stream": run_test_stream,
    "par_do": run_par_do, "assign_windows": run_assign_windows,
    "group_by_key": run_group_by_key, "combine_per_key": run_combine_per_key,
    "flatten": run_flatten, "write": run_write,
}
