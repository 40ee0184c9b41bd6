"""One function per IR node kind: input streams in, output streams by tag out."""

from __future__ import annotations

from panes.errors import UserCodeError
from panes.ir.codec import lift
from panes.testing.capture import CaptureSink
from panes.timestamp import MAX_TIMESTAMP
from panes.transforms.dofn_runner import DoFnRunner
from panes.transforms.side_inputs import SideInputResolver
from panes.windowing.aggregation import BufferAggregation, CombineFnAggregation
from panes.windowing.batch import BatchGrouping, is_batch_exact
from panes.windowing.driver import WindowingDriver
from panes.runners.sources import source_stream, test_stream_stream
from panes.runners.eventlog import Bundle, Watermark, by_step, elements_of, merged_watermarks
from panes.runners.windows import assign
from panes.runners.replay import canonical_order, first_arrivals, key_value, keyed, replay_grouping



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
            event = Bundle(event.step, [assign(node.id, window_fn, wv) for wv in event.elements])
        stream.append(event)
    return {"main": stream}


def run_group_by_key(node, inputs, ctx):
    return _run_grouping(node, inputs, ctx, BufferAggregation())


def run_combine_per_key(node, inputs, ctx):
    aggregation = CombineFnAggregation(lift(node.payload["combine_fn"]), node.id)
    return _run_grouping(node, inputs, ctx, aggregation)


def _run_grouping(node, inputs, ctx, aggregation):
    strategy = lift(ctx.ir.pcollections[node.inputs[0]].windowing)
    batch = _batch_input(inputs[0]) if is_batch_exact(strategy) else None
    if batch is not None:
        return _run_batch_grouping(node, batch, strategy, aggregation)
    stream = [Bundle(e.step, [keyed(node.id, node.kind, wv) for wv in e.elements])
              if isinstance(e, Bundle) else e for e in inputs[0]]
    rank = first_arrivals(pair for e in stream if isinstance(e, Bundle) for pair in e.elements)
    driver = WindowingDriver(strategy, aggregation)
    with ctx.metrics_for(node.id):
        main, late = replay_grouping(driver, by_step([stream, ctx.clock.events]), rank)
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
    grouping, rank = BatchGrouping(strategy, aggregation), {}
    add = grouping.add_value
    for wv in elements:
        key, value = key_value(node.id, node.kind, wv.value)
        add(key, value, wv.timestamp, wv.windows)
        if key not in rank:
            rank[key] = len(rank)
    main = [Bundle(end_step, canonical_order(grouping.panes(), rank)),
            Watermark(end_step, MAX_TIMESTAMP)]
    return _grouping_outputs(node, main, [Watermark(end_step, MAX_TIMESTAMP)])


def _grouping_outputs(node, main, late):
    outputs = {"main": main}
    if node.payload.get("late_output"):
        outputs[node.payload["late_output"]] = late
    return outputs


def run_flatten(node, inputs, ctx):
    """Merges bundles of the same step; the watermark is the minimum over the active inputs."""
    bundles = [Bundle(step, [wv for _, e in events if isinstance(e, Bundle) for wv in e.elements])
               for step, events in by_step(inputs)]
    watermarks = merged_watermarks(inputs)
    return {"main": sorted([b for b in bundles if b.elements] + watermarks,
                           key=lambda e: (e.step, isinstance(e, Watermark)))}


def run_write(node, inputs, ctx):
    sink = lift(node.payload["sink"])
    if isinstance(sink, CaptureSink):
        ctx.captures[sink.capture_id] = [(event.step, wv) for event in inputs[0]
                                         if isinstance(event, Bundle) for wv in event.elements]
        return {}
    elements = elements_of(inputs[0])
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
