"""The counting engine gives what the windowing engine gives, under every strategy it accepts:
the same panes and late elements at the same steps, the same holds, timers and counts, over
whole event logs and over live micro-batches whose key states go through pickle between
batches as the Spark streaming runner keeps them (the counting engine's as plain data)."""

import pickle
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import event_logs, micro_batches, strategy_of

from panes.evictor import CountEvictor
from panes.runners.eventlog import END_STEP, ProcessingTime, Watermark
from panes.runners.key_driver import KeyDriver, MicroBatch, drive_keys
from panes.timestamp import GLOBAL_WINDOW_MAX_MICROS, MAX_MICROS, MICROS_PER_SECOND
from panes.transforms.combiners import SumFn
from panes.trigger import (
    AccumulationMode,
    AfterAny,
    AfterCount,
    AfterProcessingTime,
    AfterWatermark,
    CountTrigger,
    Repeatedly,
)
from panes.window import (
    PANE_NO_FIRING,
    AssignContext,
    BoundedWindow,
    FixedWindows,
    GlobalWindow,
    GlobalWindows,
    IntervalWindow,
    NonMergingWindowFn,
    Sessions,
    SlidingWindows,
    TimestampCombiner,
)
from panes.windowing import window_fn_kinds
from panes.windowing.aggregation import BufferAggregation, CombineFnAggregation
from panes.windowing.counting import CountingEngine, CountingKeyState, is_counting_exact
from panes.windowing.engine import Counters, WindowingEngine

S = MICROS_PER_SECOND
WINDOW_FNS = [FixedWindows(4), FixedWindows(4, offset=1), SlidingWindows(6, 2), GlobalWindows()]
TRIGGERS = [
    None,
    AfterWatermark(),
    AfterWatermark(early=AfterCount(2)),
    AfterWatermark(late=AfterCount(1)),
    AfterWatermark(early=AfterCount(1), late=AfterCount(2)),
    AfterWatermark(early=AfterCount(3), late=AfterCount(1)),
    AfterWatermark(early=AfterCount(5), late=AfterCount(4)),
]


AGGREGATIONS = [BufferAggregation, lambda: CombineFnAggregation(SumFn())]


@st.composite
def counted_strategies(draw):
    trigger = draw(st.sampled_from(TRIGGERS))
    return strategy_of(
        draw(st.sampled_from(WINDOW_FNS)),
        **({} if trigger is None else {"trigger": trigger}),
        accumulation_mode=draw(st.sampled_from(list(AccumulationMode))),
        allowed_lateness=draw(st.sampled_from([0, 1, 3, 5, 20, 3600])),
    )


def on_the_edges(data, times: list) -> list:
    """``times`` some of which moved 1 µs back, onto a window's last microsecond (event times
    are whole seconds), where elements and timers are on time by a hair."""
    return [time - data.draw(st.sampled_from([0, 1])) for time in times]


def engines(strategy, aggregation):
    """The windowing engine and the counting engine of one grouping."""
    return WindowingEngine(strategy, aggregation()), CountingEngine(strategy, aggregation())


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_replaying_a_whole_log_gives_the_windowing_engines_panes(data):
    strategy = data.draw(counted_strategies())
    elements, watermarks, clock = data.draw(event_logs(strategy))
    moved = on_the_edges(data, [event.time for event in watermarks[:-1]])
    watermarks = [replace(event, time=time) for event, time in zip(watermarks, moved)] + [
        watermarks[-1]
    ]
    replays = [
        drive_keys(engine, elements, watermarks, clock)
        for engine in engines(strategy, data.draw(st.sampled_from(AGGREGATIONS)))
    ]
    expected, counted = (
        (
            replay.outputs,
            replay.watermarks,
            (
                replay.counters.dropped_late,
                replay.counters.dropped_closed,
                replay.counters.purged_unfired,
            ),
        )
        for replay in replays
    )
    assert counted == expected


def _of_stored(blob: bytes) -> CountingKeyState:
    """A counting key state from the pickle of its plain data, as the streaming runner keeps
    it."""
    return CountingKeyState.of_plain(pickle.loads(blob))


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_live_micro_batches_give_the_windowing_engines_panes_timers_and_holds(data):
    strategy = data.draw(counted_strategies())
    batches = data.draw(micro_batches(strategy))
    moved = on_the_edges(data, [watermark for _, watermark, _, _ in batches])
    batches = [(step, time, now, by_key) for (step, _, now, by_key), time in zip(batches, moved)]
    counters = Counters(), Counters()
    drivers = [
        KeyDriver(engine, counted)
        for engine, counted in zip(
            engines(strategy, data.draw(st.sampled_from(AGGREGATIONS))), counters
        )
    ]
    states: list = [{}, {}]
    # Each engine's states as the Spark streaming runner stores them.
    stores = [
        (pickle.dumps, pickle.loads),
        (lambda state: pickle.dumps(state.plain()), _of_stored),
    ]
    end_of_input = (batches[-1][0] + 1000, MAX_MICROS, batches[-1][2], {})
    for step, watermark, now, by_key in [*batches, end_of_input]:
        seen = []
        for driver, keys, (dump, load) in zip(drivers, states, stores):
            runs = {}
            for key in sorted({*keys, *by_key}):
                stored = keys.pop(key, None)
                state = None if stored is None else load(stored)
                run = driver.advance(
                    key, state, by_key.get(key, []), MicroBatch(step, watermark, now)
                )
                timers = None
                if run.state is not None:
                    timers = run.timers
                    processor = driver.processor
                    assert timers == processor.next_timers(run.state)
                    # What the counting engine keeps of its timers and holds is what its
                    # windows give, on a state loaded, and on one pickled whole before it
                    # worked them out.
                    loaded = load(dump(run.state))
                    for again in (loaded, pickle.loads(pickle.dumps(loaded))):
                        assert (timers, processor.earliest_hold(run.state)) == (
                            processor.next_timers(again),
                            processor.earliest_hold(again),
                        )
                runs[key] = (run.ordered(), run.holds, timers)
                if run.state is not None:
                    keys[key] = dump(run.state)
            seen.append(runs)
        assert seen[1] == seen[0]
        assert sorted(states[1]) == sorted(states[0])
    assert vars(counters[1]) == vars(counters[0])


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_a_key_state_comes_back_whole_from_its_plain_data(data):
    """Every window, pane and count a key state holds after each micro-batch survives
    ``plain`` and ``of_plain`` through pickle, with its windows' and panes' own types."""
    strategy = data.draw(counted_strategies())
    driver = KeyDriver(CountingEngine(strategy, CombineFnAggregation(SumFn())), Counters())
    states: dict = {}
    for step, watermark, now, by_key in data.draw(micro_batches(strategy)):
        for key in sorted({*states, *by_key}):
            run = driver.advance(
                key, states.pop(key, None), by_key.get(key, []), MicroBatch(step, watermark, now)
            )
            if run.state is None:
                continue
            back = _of_stored(pickle.dumps(run.state.plain()))
            kept = run.state
            assert (back.key, back.input_watermark, back.processing_time) == (
                kept.key,
                kept.input_watermark,
                kept.processing_time,
            )
            assert list(back.windows.items()) == list(kept.windows.items())
            assert [(type(w), [type(p) for p in s]) for w, s in back.windows.items()] == [
                (type(w), [type(p) for p in s]) for w, s in kept.windows.items()
            ]
            states[key] = back


class _Shifted(IntervalWindow):
    """An interval window of the user's own class."""


class _Round(BoundedWindow):
    """A window of the user's own, not an interval."""

    def __eq__(self, other):
        return type(other) is _Round and other.end == self.end

    def __hash__(self):
        return hash(self.end)


def test_a_key_state_keeps_windows_of_other_classes_as_they_are():
    """A DoFn may give elements windows of its own classes, which a grouping keeps: they go
    into the plain data as they are and come back with their classes."""
    windows = [IntervalWindow(0, 10), _Shifted(10, 20), _Round(30), GlobalWindow()]
    state = CountingKeyState("k", 0, 0, {window: [1, 0, 0, None] for window in windows})
    back = _of_stored(pickle.dumps(state.plain()))
    assert [(type(window), window) for window in back.windows] == [
        (type(window), window) for window in windows
    ]


def test_a_window_that_ends_after_the_global_window_is_collected_when_that_ends():
    """Garbage collection is capped at the end of the global window, so a window that ends
    later is collected before its end: its final pane comes when the watermark passes the
    global window's end, as a timer of the key's."""
    strategy = strategy_of(FixedWindows(7))
    time = GLOBAL_WINDOW_MAX_MICROS - S
    windows = tuple(
        window_fn_kinds.from_ir(strategy.window_fn).assign(AssignContext.at_micros(time, 1))
    )
    assert windows[0].max_timestamp_micros > GLOBAL_WINDOW_MAX_MICROS
    elements = {"k": [((1,), 1, time, windows, PANE_NO_FIRING)]}
    watermarks = [Watermark(2, GLOBAL_WINDOW_MAX_MICROS + 1), Watermark(END_STEP, MAX_MICROS)]
    clock = [ProcessingTime(END_STEP, MAX_MICROS)]
    windowing, counting = (
        drive_keys(engine, elements, watermarks, clock)
        for engine in engines(strategy, BufferAggregation)
    )
    assert [(step, wv.value) for step, _, wv in windowing.outputs["main"]] == [(2, ("k", [1]))]
    assert (counting.outputs, counting.holds) == (windowing.outputs, windowing.holds)


class EveryTenSeconds(NonMergingWindowFn):
    def assign(self, context):
        start = context.timestamp.micros // (10 * S) * 10
        return [IntervalWindow(start, start + 10)]


@pytest.mark.parametrize(
    "windowing",
    [
        {"window_fn": FixedWindows(60)},
        {"window_fn": SlidingWindows(60, 10), "allowed_lateness": 30},
        {"window_fn": GlobalWindows(), "trigger": AfterWatermark(early=AfterCount(10))},
        {
            "window_fn": FixedWindows(60),
            "trigger": AfterWatermark(early=AfterCount(1000), late=AfterCount(1)),
            "accumulation_mode": AccumulationMode.ACCUMULATING,
            "allowed_lateness": 60,
        },
    ],
)
def test_it_takes_windowings_whose_triggers_watch_the_watermark_and_count(windowing):
    assert is_counting_exact(strategy_of(**windowing))


@pytest.mark.parametrize(
    "windowing",
    [
        {"window_fn": Sessions(10)},
        {"window_fn": EveryTenSeconds()},
        {"window_fn": FixedWindows(60), "trigger": AfterWatermark(early=AfterProcessingTime(5))},
        {"window_fn": FixedWindows(60), "trigger": Repeatedly(AfterCount(2))},
        {"window_fn": FixedWindows(60), "trigger": Repeatedly(AfterAny(AfterCount(2)))},
        {"window_fn": FixedWindows(60), "trigger": CountTrigger(2)},
        {"window_fn": FixedWindows(60), "timestamp_combiner": TimestampCombiner.OUTPUT_AT_EARLIEST},
        {"window_fn": FixedWindows(60), "evictor": CountEvictor(2)},
    ],
)
def test_it_leaves_every_other_windowing_to_the_windowing_engine(windowing):
    assert not is_counting_exact(strategy_of(**windowing))
