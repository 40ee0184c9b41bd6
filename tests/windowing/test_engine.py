"""WindowingEngine specifications: Beam semantics of panes, lateness, holds and clean-up, and the
step API a streaming runner drives keys with (plain, picklable state; wake-ups)."""

import pickle

import pytest
from helpers import bundle, run, values
from strategies import strategy_of

from panes.evictor import CountEvictor
from panes.runners.eventlog import END_STEP, ProcessingTime, Watermark
from panes.runners.key_driver import drive_keys
from panes.timestamp import MAX_MICROS, to_micros
from panes.timestamp import MICROS_PER_SECOND as S
from panes.trigger import (
    AccumulationMode,
    AfterAll,
    AfterCount,
    AfterEach,
    AfterProcessingTime,
    AfterWatermark,
    ContinuousEventTimeTrigger,
    Never,
    OrFinally,
    Repeatedly,
)
from panes.window import (
    MAX_TIMESTAMP,
    PANE_NO_FIRING,
    AssignContext,
    CountWindows,
    FixedWindows,
    GlobalWindows,
    IntervalWindow,
    PaneInfo,
    Sessions,
    TimestampCombiner,
)
from panes.window import (
    PaneInfoTiming as T,
)
from panes.windowing.aggregation import BufferAggregation, CombineFnAggregation
from panes.windowing.engine import WindowingEngine

EARLY, ON_TIME, LATE = T.EARLY, T.ON_TIME, T.LATE


def fixed(size=10, **kw):
    return strategy_of(window_fn=FixedWindows(size), **kw)


def test_default_trigger_fires_once_per_window_and_is_last_with_zero_lateness():
    _, out = run(fixed(), [("in", [(1, 1), (2, 2), (12, 12)]), ("wm", 100)])
    assert out[0] == []
    assert sorted(values(out[1])) == [[1, 2], [12]]
    assert {o[4] for o in out[1]} == {PaneInfo(True, True, ON_TIME, 0, 0)}
    assert sorted(o[2] for o in out[1]) == [10 - 1e-6, 20 - 1e-6]


def test_late_data_within_lateness_makes_late_panes_and_beyond_is_dropped_to_late_tag():
    grouping, out = run(
        fixed(allowed_lateness=10),
        [("in", [(1, 1)]), ("wm", 15), ("in", [(2, 2)]), ("wm", 25), ("in", [(3, 3)])],
    )
    assert out[1][0][4] == PaneInfo(True, False, ON_TIME, 0, 0)
    assert values(out[2]) == [[2]] and out[2][0][4] == PaneInfo(False, False, LATE, 1, 1)
    assert out[3] == []  # GC at 10 + 10: nothing unfired, so no final pane
    (late,) = out[4]
    assert late[0] == "late" and late[1] == ("k", 3) and late[2] == 3
    assert grouping.counters.dropped_late == 1


@pytest.mark.parametrize(
    "combiner, timestamp",
    [
        (TimestampCombiner.OUTPUT_AT_EOW, 10 - 1e-6),
        (TimestampCombiner.OUTPUT_AT_EARLIEST, 2),
        (TimestampCombiner.OUTPUT_AT_LATEST, 7),
    ],
)
def test_timestamp_combiners_set_output_time_and_hold_the_output_watermark(combiner, timestamp):
    grouping, out = run(fixed(timestamp_combiner=combiner), [("in", [(1, 7), (2, 2)]), ("wm", 5)])
    assert grouping.output_watermark() == min(5 * S, int(timestamp * S))
    grouping.step(watermark=100 * S)
    assert grouping.output_watermark() == 100 * S
    _, out = run(fixed(timestamp_combiner=combiner), [("in", [(1, 7), (2, 2)]), ("wm", 100)])
    assert out[1][0][2] == timestamp


def test_early_panes_then_on_time_then_late_with_indexes():
    strategy = fixed(
        trigger=AfterWatermark(early=AfterCount(2), late=AfterCount(1)),
        allowed_lateness=100,
        accumulation_mode=AccumulationMode.DISCARDING,
    )
    _, out = run(
        strategy, [("in", [(1, 1), (2, 2)]), ("in", [(3, 3)]), ("wm", 50), ("in", [(4, 4)])]
    )
    assert [o[4] for o in out[0]] == [PaneInfo(True, False, EARLY, 0, -1)]
    assert [o[4] for o in out[2]] == [PaneInfo(False, False, ON_TIME, 1, 0)]
    assert values(out[2]) == [[3]]
    assert [o[4] for o in out[3]] == [PaneInfo(False, False, LATE, 2, 1)]


def test_finished_trigger_closes_window_and_later_elements_are_dropped_without_stalling():
    strategy = fixed(trigger=AfterCount(2), allowed_lateness=0)
    grouping, out = run(strategy, [("in", [(1, 1), (2, 2)]), ("in", [(3, 3)]), ("wm", 100)])
    assert values(out[0]) == [[1, 2]] and out[0][0][4].is_last
    assert out[1] == [] and out[2] == []
    assert grouping.counters.dropped_closed == 1 and grouping.output_watermark() == 100 * S


def test_beam_emits_final_pane_with_unfired_data_at_garbage_collection():
    strategy = fixed(trigger=Repeatedly(AfterCount(3)), allowed_lateness=5)
    _, out = run(strategy, [("in", [(1, 1), (2, 2)]), ("wm", 100)])
    assert values(out[1]) == [[1, 2]]
    assert out[1][0][4] == PaneInfo(True, True, ON_TIME, 0, 0)


def test_never_trigger_emits_only_the_final_pane():
    _, out = run(fixed(trigger=Never()), [("in", [(1, 1)]), ("wm", 100)])
    assert values(out[1]) == [[1]] and out[1][0][4].is_last


def test_processing_time_trigger_fires_on_processing_clock():
    strategy = strategy_of(window_fn=GlobalWindows(), trigger=Repeatedly(AfterProcessingTime(5)))
    _, out = run(
        strategy, [("pt", 0), ("in", [(1, 1)]), ("pt", 4), ("pt", 6), ("in", [(2, 2)]), ("pt", 12)]
    )
    assert out[2] == [] and values(out[3]) == [[1]] and values(out[5]) == [[2]]
    assert out[3][0][4].timing == EARLY


def test_after_each_and_or_finally_sequence():
    strategy = fixed(trigger=AfterEach(AfterCount(1), AfterCount(2)), allowed_lateness=0)
    _, out = run(strategy, [("in", [(1, 1)]), ("in", [(2, 2)]), ("in", [(3, 3)])])
    assert values(out[0]) == [[1]] and out[1] == [] and values(out[2]) == [[2, 3]]
    assert out[2][0][4].is_last
    strategy = fixed(trigger=OrFinally(Repeatedly(AfterCount(1)), AfterCount(3)))
    _, out = run(strategy, [("in", [(1, 1)]), ("in", [(2, 2)]), ("in", [(3, 3)]), ("in", [(4, 4)])])
    assert [len(values(o)) for o in out] == [1, 1, 1, 0] and out[2][0][4].is_last


def test_after_all_waits_for_every_subtrigger():
    strategy = fixed(trigger=AfterAll(AfterCount(2), AfterWatermark()), allowed_lateness=0)
    _, out = run(strategy, [("in", [(1, 1), (2, 2)]), ("wm", 100)])
    assert out[0] == [] and values(out[1]) == [[1, 2]]


def test_sessions_merge_state_counts_and_holds():
    strategy = strategy_of(
        window_fn=Sessions(10),
        trigger=AfterWatermark(early=AfterCount(3)),
        timestamp_combiner=TimestampCombiner.OUTPUT_AT_EARLIEST,
    )
    grouping, out = run(
        strategy, [("in", [(1, 1)]), ("in", [(2, 18)]), ("in", [(3, 10)]), ("wm", 5)]
    )
    assert values(out[2]) == [[1, 2, 3]]  # 1 + 1 + 1 counted across the merge
    assert out[2][0][3] == IntervalWindow(1, 28) and out[2][0][2] == 1
    assert grouping.output_watermark() == 5 * S


def test_combine_fn_aggregation_is_incremental():
    class Sum:
        def create_accumulator(self):
            return 0

        def add_input(self, acc, v):
            return acc + v

        def merge_accumulators(self, accs):
            return sum(accs)

        def extract_output(self, acc):
            return acc

    _, out = run(fixed(), [("in", [(1, 1), (2, 2)]), ("wm", 100)], CombineFnAggregation(Sum()))
    assert out[1][0][1] == ("k", 3)


def test_keys_are_independent_and_idle_keys_are_forgotten():
    strategy = fixed()
    grouping, _ = run(strategy, [("in", [(1, 1)]), ("wm", 100)])
    assert grouping.states == {}  # the key's window was garbage-collected: nothing is kept
    assert grouping.output_watermark() == 100 * S


# -- the step API -------------------------------------------------------------------------------


def _one_key(strategy, steps, between=lambda state: state):
    """Steps one key through ``steps`` of ``(elements as (value, seconds), watermark seconds,
    processing time seconds)``, passing its state through ``between`` after every step, as a
    streaming runner passes it through its state store; returns the outputs and results."""
    engine = WindowingEngine(strategy, BufferAggregation())
    state, outputs, results = engine.new_state("k"), [], []
    for elements, watermark, now in steps:
        values = [wv for _, wv in bundle(strategy, *elements)]
        result = engine.step(
            state,
            values,
            None if watermark is None else to_micros(watermark),
            None if now is None else to_micros(now),
        )
        outputs.append(
            [(tag, wv.value, wv.timestamp, wv.windows, wv.pane_info) for tag, wv in result.outputs]
        )
        results.append(result)
        state = (
            engine.new_state("k", state.input_watermark, state.processing_time)
            if result.empty
            else between(state)
        )
    return outputs, results


PICKLED_STRATEGIES = [
    fixed(
        trigger=AfterWatermark(early=AfterProcessingTime(2), late=AfterCount(1)),
        allowed_lateness=10,
        timestamp_combiner=TimestampCombiner.OUTPUT_AT_EARLIEST,
    ),
    strategy_of(
        window_fn=Sessions(3),
        trigger=AfterWatermark(early=AfterCount(2)),
        accumulation_mode=AccumulationMode.ACCUMULATING,
    ),
    strategy_of(
        window_fn=GlobalWindows(), trigger=ContinuousEventTimeTrigger(4), evictor=CountEvictor(2)
    ),
    strategy_of(window_fn=CountWindows(3, 1)),
]
PICKLED_STEPS = [
    ([(1, 1), (2, 2)], None, 0),
    ([(3, 5)], 3, 1),
    ([], None, 4),
    ([(4, 2), (5, 9)], 6, None),
    ([(6, 3)], 12, 9),
    ([(7, 30)], None, 20),
    ([], MAX_TIMESTAMP, MAX_TIMESTAMP),
]


@pytest.mark.parametrize("strategy", PICKLED_STRATEGIES)
def test_a_key_state_pickled_between_steps_gives_the_same_panes(strategy):
    """The state is plain data: the standard pickler takes it, and a key restored from it
    goes on exactly as one that never left memory."""
    in_memory, _ = _one_key(strategy, PICKLED_STEPS)
    restored, _ = _one_key(strategy, PICKLED_STEPS, lambda s: pickle.loads(pickle.dumps(s)))
    assert restored == in_memory
    assert any(in_memory)


def test_a_bundle_counts_every_element_and_leaves_no_quiet_run_in_the_key_state():
    """Elements after the first of a bundle in a window whose trigger only counts skip the
    trigger, yet count toward it; the run that let them skip it ends with the bundle, so the
    key's state (pickled after every streaming micro-batch) does not carry it."""
    strategy = fixed(trigger=AfterWatermark(early=AfterCount(5)), allowed_lateness=0)
    outputs, _ = _one_key(
        strategy, [([(1, 1), (2, 2), (3, 3)], None, None), ([(4, 4), (5, 5)], None, None)]
    )
    assert outputs[0] == []
    assert [(value, pane.timing) for _, value, _, _, pane in outputs[1]] == [
        (("k", [1, 2, 3, 4, 5]), T.EARLY)
    ]
    engine = WindowingEngine(strategy, BufferAggregation())
    state = engine.new_state("k")
    engine.step(state, [wv for _, wv in bundle(strategy, (1, 1), (2, 2), (3, 3))])
    assert [w.quiet for w in state.windows.values()] == [None]


@pytest.mark.parametrize("strategy", PICKLED_STRATEGIES)
def test_a_key_state_pickles_its_fields_by_position_not_by_name(strategy):
    """The streaming runner pickles each key's state it touches at every micro-batch: field
    names in every object would double its bytes and its time."""
    pickled: list = []
    _one_key(strategy, PICKLED_STEPS, lambda s: pickled.append(pickle.dumps(s)) or s)
    assert pickled
    for blob in pickled:
        assert b"input_watermark" not in blob and b"has_new_elements" not in blob
        assert b"garbage_collection" not in blob and b"_heaps" not in blob


def test_a_step_reports_the_keys_next_wake_up_and_when_its_state_may_go():
    strategy = fixed(
        trigger=AfterWatermark(early=AfterProcessingTime(3)),
        allowed_lateness=5,
        timestamp_combiner=TimestampCombiner.OUTPUT_AT_EARLIEST,
    )
    _, results = _one_key(strategy, [([(1, 4)], None, 2), ([], 12, 6), ([], 20, None)])
    first, on_time, collected = results
    assert (first.event_timer, first.processing_timer, first.hold) == (10 * S - 1, 5 * S, 4 * S)
    assert not first.empty and first.outputs == []
    # Processing time fires the early pane, then the watermark passes the end: the (empty)
    # ON_TIME pane; no hold is left, garbage collection (15 s) is next.
    assert [wv.pane_info.timing for _, wv in on_time.outputs] == [EARLY, ON_TIME]
    assert (on_time.event_timer, on_time.hold, on_time.empty) == (15 * S - 1, None, False)
    assert (collected.event_timer, collected.processing_timer, collected.empty) == (
        None,
        None,
        True,
    )


def test_a_step_moves_processing_time_before_its_elements_and_last_at_the_end():
    strategy = strategy_of(window_fn=GlobalWindows(), trigger=Repeatedly(AfterProcessingTime(5)))
    out, _ = _one_key(strategy, [([(1, 1)], None, 0), ([(2, 2)], None, 6)])
    # The arrival at 6 s first fires the pane of the element that came at 0 s, alone.
    assert [o[1] for o in out[1]] == [("k", [1])]
    out, _ = _one_key(strategy, [([(1, 1)], None, 0), ([(2, 2)], MAX_TIMESTAMP, MAX_TIMESTAMP)])
    # At the end of input the bundle comes first: the end of processing time fires both.
    assert [o[1] for o in out[1] if o[0] == "main"][0] == ("k", [1, 2])


def test_an_element_absorbed_after_a_pane_holds_the_output_watermark_again():
    """A pane releases its window's holds; an element that then arrives alone, taken without a
    trigger call (``absorb_run``), places the hold anew, as any element does."""
    strategy = fixed(trigger=AfterWatermark(early=AfterCount(2)), allowed_lateness=0)
    windows = tuple(FixedWindows(10).assign(AssignContext(1, None)))
    records = [((step,), step, step * S, windows, PANE_NO_FIRING) for step in (1, 2, 3)]
    replay = drive_keys(
        WindowingEngine(strategy, BufferAggregation()),
        {"k": records},
        [Watermark(END_STEP, MAX_MICROS)],
        [ProcessingTime(END_STEP, MAX_MICROS)],
    )
    assert [pane.timing for _, _, (_, _, _, pane) in replay.outputs["main"]] == [T.EARLY, T.ON_TIME]
    end = windows[0].max_timestamp_micros
    assert [(step, hold) for step, _, hold in replay.holds[:3]] == [(1, end), (2, None), (3, end)]
