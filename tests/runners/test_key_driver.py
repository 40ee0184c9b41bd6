"""The key driver gives exactly what stepping every key through every step of the event log with
``WindowingEngine.step`` gives — the same panes at the same steps, in the same order, the same
late elements, output watermarks and counts — from each of its clock sources: a whole log
known in advance, one step at a time (a streaming tail), and live micro-batches."""

import pytest
from conformance.stateful_dofns import dofns
from hypothesis import given, settings
from hypothesis import strategies as st
from stepper import Stepper
from strategies import event_logs, micro_batches, strategy_of

import panes as beam
from panes.evictor import CountEvictor
from panes.runners.eventlog import END_STEP, ProcessingTime, Watermark
from panes.runners.key_driver import KeyDriver, MicroBatch, Timeline, drive_keys
from panes.runners.keyed import KeyedNode
from panes.timestamp import MAX_MICROS, MICROS_PER_SECOND, MIN_MICROS
from panes.transforms import userstate
from panes.transforms.userstate import TimeDomain
from panes.trigger import (
    AccumulationMode,
    AfterAny,
    AfterCount,
    AfterProcessingTime,
    AfterWatermark,
    ContinuousEventTimeTrigger,
    CountTrigger,
    Repeatedly,
)
from panes.window import (
    PANE_NO_FIRING,
    AssignContext,
    FixedWindows,
    GlobalWindows,
    Sessions,
    SlidingWindows,
    TimestampCombiner,
    window_order,
    windowed_value,
)
from panes.windowing import window_fn_kinds
from panes.windowing.aggregation import BufferAggregation
from panes.windowing.engine import LATE, MAIN, Counters, WindowingEngine

S = MICROS_PER_SECOND
WINDOW_FNS = [FixedWindows(4), SlidingWindows(6, 2), Sessions(3), GlobalWindows()]
TRIGGERS = [
    None,
    AfterWatermark(early=AfterCount(2)),
    AfterWatermark(early=AfterCount(5), late=AfterCount(3)),
    AfterWatermark(early=AfterProcessingTime(2), late=AfterCount(1)),
    Repeatedly(AfterAny(AfterCount(3), AfterProcessingTime(5))),
    CountTrigger(2),
    CountTrigger(4),
    ContinuousEventTimeTrigger(3),
]


@st.composite
def strategies(draw):
    trigger = draw(st.sampled_from(TRIGGERS))
    return strategy_of(
        draw(st.sampled_from(WINDOW_FNS)),
        **({} if trigger is None else {"trigger": trigger}),
        accumulation_mode=draw(st.sampled_from(list(AccumulationMode))),
        allowed_lateness=draw(st.sampled_from([0, 5])),
        timestamp_combiner=draw(st.sampled_from(list(TimestampCombiner))),
        evictor=draw(st.sampled_from([None, CountEvictor(2)])),
    )


def canonical_order(outputs: list, rank: dict) -> list:
    """A step's outputs ``(key, ...)`` sorted by key rank, then window, as runners emit them."""
    return sorted(outputs, key=lambda wv: (rank[wv.value[0]], window_order(wv.windows[0])))


def stepped(strategy, elements, watermarks, clock):
    """The reference: at every step of the log, every key takes one ``step`` with its bundle
    and the step's clocks; each step's outputs in canonical order."""
    grouping = Stepper(strategy, shortcuts=False)
    rank = {key: index for index, key in enumerate(elements)}
    steps: dict = {}
    for event in watermarks:
        steps.setdefault(event.step, {})["watermark"] = event
    for event in clock:
        steps.setdefault(event.step, {})["clock"] = event
    for key, values in elements.items():
        for (step, *_), *fields in values:
            steps.setdefault(step, {}).setdefault("bundle", []).append(
                (key, windowed_value(fields))
            )
    main, late, output_watermarks = [], [], []
    output, idle = (grouping.output_watermark(), False), False
    for step in sorted(steps):
        events = steps[step]
        watermark, now = events.get("watermark"), events.get("clock")
        if watermark is not None:
            idle = watermark.idle
        emitted = grouping.step(
            events.get("bundle", ()), watermark and watermark.time, now and now.time
        )
        for tag, out in ((MAIN, main), (LATE, late)):
            ordered = canonical_order([wv for t, wv in emitted if t == tag], rank)
            out += [(step, wv.value[0], wv) for wv in ordered]
        if (grouping.output_watermark(), idle) != output:
            output = (grouping.output_watermark(), idle)
            output_watermarks.append(Watermark(step, *output))
    counters = grouping.counters
    return (
        main,
        late,
        output_watermarks,
        (counters.dropped_late, counters.dropped_closed, counters.purged_unfired),
    )


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_replaying_key_by_key_matches_stepping_every_key(data):
    strategy = data.draw(strategies())
    elements, watermarks, clock = data.draw(event_logs(strategy))
    replay = drive_keys(WindowingEngine(strategy, BufferAggregation()), elements, watermarks, clock)
    counters = replay.counters
    assert (
        replay.outputs.get(MAIN, []),
        replay.outputs.get(LATE, []),
        replay.watermarks,
        (counters.dropped_late, counters.dropped_closed, counters.purged_unfired),
    ) == stepped(strategy, elements, watermarks, clock)


def test_a_bundle_between_lone_elements_counts_toward_the_next_firing():
    """Lone elements of a window that cannot fire yet take a path that only counts them; the
    elements of a bundle in between must count as well, so the fourth element fires."""
    strategy = strategy_of(FixedWindows(4), trigger=AfterWatermark(early=AfterCount(4)))
    window = window_fn_kinds.from_ir(strategy.window_fn).assign(AssignContext(0, None))[0]
    elements = {"a": [((step,), 1, 0, (window,), PANE_NO_FIRING) for step in (1, 2, 2, 3)]}
    watermarks = [Watermark(END_STEP, MAX_MICROS)]
    clock = [ProcessingTime(-1, 0), ProcessingTime(END_STEP, MAX_MICROS)]
    replay = drive_keys(WindowingEngine(strategy, BufferAggregation()), elements, watermarks, clock)
    assert [(step, wv.value) for step, _, wv in replay.outputs[MAIN]] == [
        (3, ("a", [1, 1, 1, 1])),
        (END_STEP, ("a", [])),
    ]
    assert replay.outputs[MAIN] == stepped(strategy, elements, watermarks, clock)[0]


def test_a_hold_moved_by_a_lone_element_moves_the_output_watermark_at_its_step():
    """Under OUTPUT_AT_LATEST a later element moves its window's hold later, and with it the
    output watermark: at the element's own step, also among lone elements that only count."""
    strategy = strategy_of(
        FixedWindows(10),
        trigger=AfterWatermark(early=AfterCount(5)),
        timestamp_combiner=TimestampCombiner.OUTPUT_AT_LATEST,
    )
    window = window_fn_kinds.from_ir(strategy.window_fn).assign(AssignContext(0, None))[0]
    elements = {
        "a": [
            ((step,), 1, seconds * S, (window,), PANE_NO_FIRING)
            for step, seconds in ((1, 5), (3, 6), (4, 7), (5, 8))
        ]
    }
    watermarks = [Watermark(2, 7 * S), Watermark(END_STEP, MAX_MICROS)]
    clock = [ProcessingTime(-1, 0), ProcessingTime(END_STEP, MAX_MICROS)]
    replay = drive_keys(WindowingEngine(strategy, BufferAggregation()), elements, watermarks, clock)
    # Held at 5 s by the first element, then 6 s and 7 s by the next two, then +inf.
    assert [(w.step, w.time) for w in replay.watermarks[:3]] == [(2, 5 * S), (3, 6 * S), (4, 7 * S)]
    assert replay.watermarks == stepped(strategy, elements, watermarks, clock)[2]


def one_step_at_a_time(strategy, elements, watermarks, clock):
    """The driver advancing every key with state or elements at every step of the log, through
    that step's clock moves alone (``Timeline.of_step``), as a streaming tail does."""
    engine = WindowingEngine(strategy, BufferAggregation())
    counters = Counters()
    driver = KeyDriver(engine, counters)
    rank = {key: index for index, key in enumerate(elements)}
    by_step: dict = {}
    for key, records in elements.items():
        for record in records:
            by_step.setdefault(record[0][0], {}).setdefault(key, []).append(record)
    moves = {event.step: event for event in watermarks}
    ticks = {event.step: event for event in clock}
    states: dict = {}
    clocks = (MIN_MICROS, MIN_MICROS)
    main, late = [], []
    for step in sorted({*by_step, *moves, *ticks}):
        after = (
            max(clocks[0], moves[step].time) if step in moves else clocks[0],
            max(clocks[1], ticks[step].time) if step in ticks else clocks[1],
        )
        timeline = Timeline.of_step(step, clocks, after)
        bundle = by_step.get(step, {})
        emitted = []
        for key in sorted({*states, *bundle}, key=rank.__getitem__):
            run = driver.advance(key, states.pop(key, None), bundle.get(key, []), timeline)
            emitted += [(tag, wv) for _, tag, wv in run.ordered()]
            if run.state is not None:
                states[key] = run.state
        for tag, out in ((MAIN, main), (LATE, late)):
            out += [(step, wv.value[0], wv) for t, wv in emitted if t == tag]
        clocks = after
    return main, late, (counters.dropped_late, counters.dropped_closed, counters.purged_unfired)


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_advancing_one_step_at_a_time_matches_stepping_every_key(data):
    strategy = data.draw(strategies())
    elements, watermarks, clock = data.draw(event_logs(strategy))
    main, late, _, counters = stepped(strategy, elements, watermarks, clock)
    assert one_step_at_a_time(strategy, elements, watermarks, clock) == (main, late, counters)


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_micro_batches_move_the_watermark_then_processing_time_then_take_the_bundle(data):
    """A live micro-batch is, for every key, a step that moves the watermark, one that moves
    processing time and one that processes its bundle; keys without elements or due timers
    may be left behind, and catch up later."""
    strategy = data.draw(strategies())
    batches = data.draw(micro_batches(strategy))
    reference = Stepper(strategy, shortcuts=False)
    driver = KeyDriver(WindowingEngine(strategy, BufferAggregation()), Counters())
    rank: dict = {}
    states: dict = {}
    for step, watermark, now, by_key in batches:
        for key in by_key:
            rank.setdefault(key, len(rank))
        bundle = [
            (key, windowed_value(record[1:]))
            for key, records in by_key.items()
            for record in records
        ]
        expected = (
            reference.step((), watermark)
            + reference.step((), processing_time=now)
            + reference.step(bundle)
        )
        emitted = []
        for key in sorted({*states, *by_key}, key=rank.__getitem__):
            run = driver.advance(
                key, states.pop(key, None), by_key.get(key, []), MicroBatch(step, watermark, now)
            )
            assert {emission_step for emission_step, _, _ in run.emissions} <= {step}
            emitted += [(tag, wv) for _, tag, wv in run.ordered()]
            if run.state is not None:
                states[key] = run.state
        for tag in (MAIN, LATE):
            assert [wv for t, wv in emitted if t == tag] == canonical_order(
                [wv for t, wv in expected if t == tag], rank
            )


class _Searched(MicroBatch):
    """A micro-batch the driver advances keys through as through any timeline, by searching it
    for the clock moves that pass a key's timers."""


def from_the_start(data, batches: list) -> list:
    """``batches``, the first perhaps at ``MIN_MICROS``: a live input's watermark before Spark
    has one (``BatchClocks.now``)."""
    if data.draw(st.booleans()):
        step, _, now, by_key = batches[0]
        batches = [(step, MIN_MICROS, now, by_key), *batches[1:]]
    return batches


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_a_micro_batch_gives_what_searching_its_moves_gives(data):
    """``KeyDriver.advance`` takes a shorter path through a live micro-batch; it makes the moves
    a search of the batch finds, in the same order: the same emissions, holds, next timers
    and counts, batch after batch."""
    strategy = data.draw(strategies())
    batches = from_the_start(data, data.draw(micro_batches(strategy)))
    both_paths_agree(lambda: WindowingEngine(strategy, BufferAggregation()), batches)


NON_MERGING = [FixedWindows(4), SlidingWindows(6, 2), GlobalWindows()]
# A stateful DoFn of each kind of timer: event time, processing time, and event time with an
# output timestamp that holds the watermark.
TIMED_DOFNS = ["FlushAfterQuiet", "TimeoutInProcessingTime", "SumAtFirstElement"]
STATEFUL = dofns(beam, userstate, TimeDomain)


def stateful_dofn_runner(name: str, window_fn, lateness: int):
    """What the key driver advances a conformance scenario's stateful DoFn ``name`` with, on
    input in ``window_fn``'s windows with ``lateness``."""
    p = beam.Pipeline()
    _ = (
        p
        | beam.Create([("a", 0)])
        | beam.WindowInto(window_fn, allowed_lateness=lateness)
        | name >> beam.ParDo(STATEFUL[name]())
    )
    ir = p.to_ir()
    keyed = KeyedNode(ir.nodes[name], ir.pcollections[ir.nodes[name].inputs[0]].windowing)
    keyed.open()
    return keyed.processor


@pytest.mark.parametrize("name", TIMED_DOFNS)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_stateful_dofns_micro_batch_gives_what_searching_its_moves_gives(name, data):
    """The shorter path through a live micro-batch also gives a stateful DoFn's outputs, holds
    and timers as the search does, for timers in either domain."""
    window_fn = data.draw(st.sampled_from(NON_MERGING))
    lateness = data.draw(st.sampled_from([5, 20]))  # FlushAfterQuiet's timer: 5 s on
    strategy = strategy_of(window_fn, allowed_lateness=lateness)
    batches = from_the_start(data, data.draw(micro_batches(strategy)))
    both_paths_agree(lambda: stateful_dofn_runner(name, window_fn, lateness), batches)


def both_paths_agree(processor, batches: list) -> None:
    """Drives ``batches`` through two key drivers of a new ``processor()`` each, one taking the
    micro-batch path, the other searching the batches: they give the same emissions, holds,
    next timers and counts, batch after batch, and at the end of input."""
    counters = Counters(), Counters()
    drivers = [KeyDriver(processor(), c) for c in counters]
    states: list = [{}, {}]
    end_of_input = (batches[-1][0] + 1000, MAX_MICROS, batches[-1][2] + S, {})
    for step, watermark, now, by_key in [*batches, end_of_input]:
        seen = []
        for driver, keys, kind in zip(drivers, states, (MicroBatch, _Searched)):
            runs = {}
            for key in sorted({*keys, *by_key}):
                run = driver.advance(
                    key, keys.pop(key, None), by_key.get(key, []), kind(step, watermark, now)
                )
                runs[key] = (run.emissions, run.holds, run.timers, run.state is None)
                if run.state is not None:
                    keys[key] = run.state
            seen.append(runs)
        assert seen[0] == seen[1]
    assert vars(counters[0]) == vars(counters[1])
