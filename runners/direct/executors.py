"""One function per IR node kind: input streams in, output streams by tag out."""

from __future__ import annotations

from panes.errors import UserCodeError
from panes.ir.codec import lift
from panes.testing.capture import CaptureSink
from panes.testing.test_stream import ELEMENTS, WATERMARK
from panes.timestamp import MAX_TIMESTAMP, MIN_TIMESTAMP
from panes.transforms.dofn_runner import DoFnRunner
from panes.transforms.side_inputs import SideInputResolver
from panes.transforms.source_element import source_element
from panes.watermark import generate_watermarks
from panes.window import GLOBAL_WINDOW, WindowedValue
from panes.windowing.aggregation import BufferAggregation, CombineFnAggregation
from panes.windowing.batch import BatchGrouping, is_batch_exact
from panes.windowing.driver import LATE, MAIN, WindowingDriver
from panes.runners.direct.stream import Bundle, END_STEP, FIRST_STEP, Watermark, by_step, elements_of



def _source_stream(node, records) -> list:
    """A bounded source's stream: Beam batch (one bundle, then the watermark to +inf), or with a
    watermark strategy one bundle per record, each followed by the watermark it yields."""
    payload = lift({k: node.payload.get(k) for k in ("watermark", "timestamp_fn")})
    elements = [source_element(node.id, record, payload["timestamp_fn"]) for record in records]
    strategy = payload["watermark"]
    if strategy is None:
        return [Bundle(FIRST_STEP, elements), Watermark(END_STEP, MAX_TIMESTAMP)]
    stream, current = [], MIN_TIMESTAMP
    watermarks = generate_watermarks([wv.timestamp for wv in elements], strategy)
    for step, (element, watermark) in enumerate(zip(elements, watermarks), start=FIRST_STEP + 1):
        stream.append(Bundle(step, [element]))
        if watermark != current:
            current = watermark
            stream.append(Watermark(step, watermark))
    stream.append(Watermark(END_STEP, MAX_TIMESTAMP))
    return stream


def run_create(node, inputs, ctx):
    return {"main": _source_stream(node, lift(node.payload["values"]))}


def run_read(node, inputs, ctx):
    source = lift(node.payload["source"])
    try:
        records = list(source.read_records())
    except OSError as error:
        raise UserCodeError(node.id, None, error) from error
    return {"main": _source_stream(node, records)}


def run_test_stream(node, inputs, ctx):
    stream = []
    for step, (kind, data) in enumerate(lift(node.payload["events"]), start=FIRST_STEP + 1):
        if kind == ELEMENTS:
            stream.append(Bundle(step, [
                WindowedValue(v, MIN_TIMESTAMP if ts is None else ts, (GLOBAL_WINDOW,))
                for v, ts in data]))
        elif kind == WATERMARK:
            stream.append(Watermark(step, data))
    stream.append(Watermark(END_STEP, MAX_TIMESTAMP))
    return {"main": stream}


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
    output_watermark = MIN_TIMESTAMP
    with ctx.metrics_for(node.id):
        for step, events in by_step([inputs[0], ctx.processing_times]):
            emissions = []
            for index, event in events:
                if isinstance(event, Bundle):
                    emissions += driver.process_bundle([_keyed(node, wv) for wv in event.elements])
                elif index == 0:
                    emissions += driver.advance_input_watermark(event.time)
                else:
                    emissions += driver.advance_processing_time(event.time)
            main.append(Bundle(step, [wv for tag, wv in emissions if tag == MAIN]))
            late.append(Bundle(step, [wv for tag, wv in emissions if tag == LATE]))
            if driver.output_watermark() != output_watermark:
                output_watermark = driver.output_watermark()
                main.append(Watermark(step, output_watermark))
                late.append(Watermark(step, output_watermark))
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
    watermarks = [MIN_TIMESTAMP] * len(inputs)
    current = MIN_TIMESTAMP
    stream = []
    for step, events in by_step(inputs):
        elements = [wv for _, e in events if isinstance(e, Bundle) for wv in e.elements]
        if elements:
            stream.append(Bundle(step, elements))
        for index, event in events:
            if isinstance(event, Watermark):
                watermarks[index] = event.time
        if min(watermarks) != current:
            current = min(watermarks)
            stream.append(Watermark(step, current))
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
    "create": run_create, "read": run_read, "test_stream": run_test_stream,
    "par_do": run_par_do, "assign_windows": run_assign_windows,
    "group_by_key": run_group_by_key, "combine_per_key": run_combine_per_key,
    "flatten": run_flatten, "write": run_write,
}
