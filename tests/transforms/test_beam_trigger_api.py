"""Beam's trigger API beyond the triggers themselves, as Beam's own trigger tests use it: a
trigger's continuation and data-loss reason (the engine's own answers), its portable form, the
private names, and the drivers that run panes' engine a bundle and a timer at a time."""

import pickle

import pytest
from ids import stable_id

from panes.runners.direct.clock import TestClock
from panes.runners.pipeline_context import PipelineContext
from panes.timestamp import MIN_TIMESTAMP, Duration
from panes.transforms import trigger
from panes.transforms.core import Windowing, WindowInto
from panes.transforms.trigger import (
    AccumulationMode,
    AfterAll,
    AfterAny,
    AfterCount,
    AfterEach,
    AfterProcessingTime,
    AfterWatermark,
    DataLossReason,
    DefaultTrigger,
    GeneralTriggerDriver,
    InMemoryUnmergedState,
    OrFinally,
    Repeatedly,
)
from panes.window import FixedWindows, GlobalWindows, PaneInfoTiming, TimestampCombiner
from panes.window import WindowedValue as WV
from panes.windowing import trigger_kinds

TRIGGERS = [
    DefaultTrigger(),
    trigger._Never(),
    trigger.Always(),
    AfterWatermark(),
    AfterWatermark(early=AfterCount(10), late=AfterCount(20)),
    AfterWatermark(late=DefaultTrigger()),
    AfterCount(42),
    AfterProcessingTime(42),
    Repeatedly(AfterCount(10)),
    AfterAll(AfterCount(1), DefaultTrigger()),
    AfterAll(AfterCount(42), AfterProcessingTime(42)),
    AfterAny(AfterCount(42), DefaultTrigger()),
    AfterAny(Repeatedly(AfterCount(42)), DefaultTrigger()),
    AfterEach(AfterCount(1), DefaultTrigger(), AfterCount(2)),
    AfterEach(AfterCount(1), AfterCount(2), AfterCount(3)),
    OrFinally(AfterCount(3), AfterCount(10)),
    OrFinally(Repeatedly(AfterCount(3)), AfterWatermark()),
    trigger.CountTrigger.of(3),
    trigger.ContinuousEventTimeTrigger.of(10),
]


@pytest.mark.parametrize("trigger_fn", TRIGGERS, ids=stable_id)
@pytest.mark.parametrize("lateness", [0, 60])
def test_beams_questions_about_a_trigger_get_the_engines_answers(trigger_fn, lateness):
    windowing = Windowing(GlobalWindows(), trigger_fn, allowed_lateness=lateness)
    lowered = trigger_kinds.to_ir(trigger_fn)
    assert trigger_kinds.to_ir(trigger_fn.get_continuation_trigger()) == (
        trigger_kinds.continuation(lowered)
    )
    may_finish = DataLossReason.MAY_FINISH in trigger_fn.may_lose_data(windowing)
    assert may_finish == trigger_kinds.may_finish(lowered, Duration(lateness).micros)


@pytest.mark.parametrize("trigger_fn", TRIGGERS, ids=stable_id)
def test_a_trigger_round_trips_through_its_portable_form(trigger_fn):
    context = PipelineContext()
    portable = trigger_fn.to_runner_api(context)
    assert portable == trigger_kinds.to_ir(trigger_fn)
    assert trigger.TriggerFn.from_runner_api(portable, context) == trigger_fn


def test_the_continuation_of_processing_time_is_synchronized_processing_time():
    assert AfterProcessingTime(10).get_continuation_trigger() == (
        trigger._AfterSynchronizedProcessingTime()
    )


def test_windowing_takes_beams_arguments_in_beams_order():
    windowing = Windowing(
        FixedWindows(10),
        AfterCount(2),
        AccumulationMode.ACCUMULATING,
        TimestampCombiner.OUTPUT_AT_EARLIEST,
        60,
    )
    assert windowing.timestamp_combiner == TimestampCombiner.OUTPUT_AT_EARLIEST
    assert windowing.allowed_lateness == Duration(60)


def test_beams_deprecated_transformed_output_time_is_refused_by_name():
    with pytest.raises(ValueError, match="OUTPUT_AT_EARLIEST_TRANSFORMED .* not supported"):
        Windowing(
            FixedWindows(10), timestamp_combiner=TimestampCombiner.OUTPUT_AT_EARLIEST_TRANSFORMED
        )
    with pytest.raises(Exception, match="use OUTPUT_AT_EARLIEST"):
        WindowInto(
            FixedWindows(10), timestamp_combiner=TimestampCombiner.OUTPUT_AT_EARLIEST_TRANSFORMED
        )


def _bundle(*timestamps):
    window_fn = FixedWindows(10)
    return [WV(t, t, window_fn.assign(window_fn.AssignContext(t, t))) for t in timestamps]


def _panes(outputs) -> list:
    return [
        (int(wv.windows[0].start), sorted(wv.value), wv.pane_info.timing, wv.pane_info.is_last)
        for wv in outputs
    ]


def test_the_general_driver_runs_the_engine_a_bundle_and_a_timer_at_a_time():
    """As Beam's trigger tests drive it: bundles with the watermark where it is, then the
    timers the state asks for, fired once the watermark passes them."""
    windowing = Windowing(
        FixedWindows(10), AfterWatermark(early=AfterCount(2)), AccumulationMode.DISCARDING
    )
    driver, state = GeneralTriggerDriver(windowing, TestClock()), InMemoryUnmergedState()
    early = driver.process_elements(state, _bundle(1, 2, 13), MIN_TIMESTAMP, MIN_TIMESTAMP)
    assert _panes(early) == [(0, [1, 2], PaneInfoTiming.EARLY, False)]
    assert state.get_and_clear_timers(watermark=9) == []
    [(window, (name, domain, time, _))] = state.get_and_clear_timers(watermark=10)
    assert (domain, float(time)) == ("WATERMARK", 10.0)  # the end of [0, 10)
    on_time = driver.process_timer(window, name, domain, time, state)
    assert _panes(on_time) == [(0, [], PaneInfoTiming.ON_TIME, True)]
    [(window, (name, domain, time, _))] = state.get_and_clear_timers()
    assert _panes(driver.process_timer(window, name, domain, time, state)) == [
        (10, [13], PaneInfoTiming.ON_TIME, True)
    ]
    assert state.timers == {}


def test_the_batch_global_driver_gives_one_pane_of_every_value_that_pickles():
    values = (WV(k, 0, (trigger.GlobalWindow(),)) for k in range(10))
    [pane] = trigger.BatchGlobalTriggerDriver().process_elements(None, values, None, None)
    assert pickle.loads(pickle.dumps(pane)).value == list(range(10))
    assert pane.pane_info.timing == PaneInfoTiming.ON_TIME and pane.pane_info.is_last


def test_a_test_clock_moves_only_when_told():
    clock = TestClock(5)
    clock.advance_time(Duration(2))
    assert clock.time() == 7.0
