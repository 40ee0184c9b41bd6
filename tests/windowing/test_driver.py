"""WindowingDriver specifications: Beam semantics of panes, lateness, holds and clean-up."""

import pytest

from panes.timestamp import MICROS_PER_SECOND as S
from panes.trigger import (
    AccumulationMode, AfterAll, AfterCount, AfterEach, AfterProcessingTime, AfterWatermark,
    Never, OrFinally, Repeatedly,
)
from panes.window import (
    FixedWindows, GlobalWindows, IntervalWindow, PaneInfo, PaneInfoTiming as T, Sessions,
    TimestampCombiner,
)
from panes.windowing.aggregation import CombineFnAggregation
from panes.windowing.strategy import WindowingStrategy

from helpers import run, values

EARLY, ON_TIME, LATE = T.EARLY, T.ON_TIME, T.LATE


def fixed(size=10, **kw):
    return WindowingStrategy(window_fn=FixedWindows(size), **kw)


def test_default_trigger_fires_once_per_window_and_is_last_with_zero_lateness():
    _, out = run(fixed(), [("in", [(1, 1), (2, 2), (12, 12)]), ("wm", 100)])
    assert out[0] == []
    assert sorted(values(out[1])) == [[1, 2], [12]]
    assert {o[4] for o in out[1]} == {PaneInfo(True, True, ON_TIME, 0, 0)}
    assert sorted(o[2] for o in out[1]) == [10 - 1e-6, 20 - 1e-6]


def test_late_data_within_lateness_makes_late_panes_and_beyond_is_dropped_to_late_tag():
    driver, out = run(fixed(allowed_lateness=10), [
        ("in", [(1, 1)]), ("wm", 15), ("in", [(2, 2)]), ("wm", 25), ("in", [(3, 3)])])
    assert out[1][0][4] == PaneInfo(True, False, ON_TIME, 0, 0)
    assert values(out[2]) == [[2]] and out[2][0][4] == PaneInfo(False, False, LATE, 1, 1)
    assert out[3] == []  # GC at 10 + 10: nothing unfired, so no final pane
    (late,) = out[4]
    assert late[0] == "late" and late[1] == ("k", 3) and late[2] == 3
    assert driver.dropped_late == 1


@pytest.mark.parametrize("combiner, timestamp", [
    (TimestampCombiner.OUTPUT_AT_EOW, 10 - 1e-6),
    (TimestampCombiner.OUTPUT_AT_EARLIEST, 2),
    (TimestampCombiner.OUTPUT_AT_LATEST, 7),
])
def test_timestamp_combiners_set_output_time_and_hold_the_output_watermark(combiner, timestamp):
    driver, out = run(fixed(timestamp_combiner=combiner),
                      [("in", [(1, 7), (2, 2)]), ("wm", 5)])
    assert driver.output_watermark() == min(5 * S, int(timestamp * S))
    driver.advance_input_watermark(100 * S)
    assert driver.output_watermark() == 100 * S
    _, out = run(fixed(timestamp_combiner=combiner), [("in", [(1, 7), (2, 2)]), ("wm", 100)])
    assert out[1][0][2] == timestamp


def test_early_panes_then_on_time_then_late_with_indexes():
    strategy = fixed(trigger=AfterWatermark(early=AfterCount(2), late=AfterCount(1)),
                     allowed_lateness=100, accumulation_mode=AccumulationMode.DISCARDING)
    _, out = run(strategy, [("in", [(1, 1), (2, 2)]), ("in", [(3, 3)]), ("wm", 50),
                            ("in", [(4, 4)])])
    assert [o[4] for o in out[0]] == [PaneInfo(True, False, EARLY, 0, -1)]
    assert [o[4] for o in out[2]] == [PaneInfo(False, False, ON_TIME, 1, 0)]
    assert values(out[2]) == [[3]]
    assert [o[4] for o in out[3]] == [PaneInfo(False, False, LATE, 2, 1)]


def test_finished_trigger_closes_window_and_later_elements_are_dropped_without_stalling():
    strategy = fixed(trigger=AfterCount(2), allowed_lateness=0)
    driver, out = run(strategy, [("in", [(1, 1), (2, 2)]), ("in", [(3, 3)]), ("wm", 100)])
    assert values(out[0]) == [[1, 2]] and out[0][0][4].is_last
    assert out[1] == [] and out[2] == []
    assert driver.dropped_closed == 1 and driver.output_watermark() == 100 * S


def test_beam_emits_final_pane_with_unfired_data_at_garbage_collection():
    strategy = fixed(trigger=Repeatedly(AfterCount(3)), allowed_lateness=5)
    _, out = run(strategy, [("in", [(1, 1), (2, 2)]), ("wm", 100)])
    assert values(out[1]) == [[1, 2]]
    assert out[1][0][4] == PaneInfo(True, True, ON_TIME, 0, 0)


def test_never_trigger_emits_only_the_final_pane():
    _, out = run(fixed(trigger=Never()), [("in", [(1, 1)]), ("wm", 100)])
    assert values(out[1]) == [[1]] and out[1][0][4].is_last


def test_processing_time_trigger_fires_on_processing_clock():
    strategy = WindowingStrategy(window_fn=GlobalWindows(),
                                 trigger=Repeatedly(AfterProcessingTime(5)))
    _, out = run(strategy, [("pt", 0), ("in", [(1, 1)]), ("pt", 4), ("pt", 6), ("in", [(2, 2)]),
                            ("pt", 12)])
    assert out[2] == [] and values(out[3]) == [[1]] and values(out[5]) == [[2]]
    assert out[3][0][4].timing == EARLY


def test_after_each_and_or_finally_sequence():
    strategy = fixed(trigger=AfterEach(AfterCount(1), AfterCount(2)), allowed_lateness=0)
    _, out = run(strategy, [("in", [(1, 1)]), ("in", [(2, 2)]), ("in", [(3, 3)])])
    assert values(out[0]) == [[1]] and out[1] == [] and values(out[2]) == [[2, 3]]
    assert out[2][0][4].is_last
    strategy = fixed(trigger=OrFinally(Repeatedly(AfterCount(1)), AfterCount(3)))
    _, out = run(strategy, [("in", [(1, 1)]), ("in", [(2, 2)]), ("in", [(3, 3)]),
                            ("in", [(4, 4)])])
    assert [len(values(o)) for o in out] == [1, 1, 1, 0] and out[2][0][4].is_last


def test_after_all_waits_for_every_subtrigger():
    strategy = fixed(trigger=AfterAll(AfterCount(2), AfterWatermark()), allowed_lateness=0)
    _, out = run(strategy, [("in", [(1, 1), (2, 2)]), ("wm", 100)])
    assert out[0] == [] and values(out[1]) == [[1, 2]]


def test_sessions_merge_state_counts_and_holds():
    strategy = WindowingStrategy(window_fn=Sessions(10), trigger=AfterWatermark(
        early=AfterCount(3)), timestamp_combiner=TimestampCombiner.OUTPUT_AT_EARLIEST)
    driver, out = run(strategy, [("in", [(1, 1)]), ("in", [(2, 18)]), ("in", [(3, 10)]),
                                 ("wm", 5)])
    assert values(out[2]) == [[1, 2, 3]]  # 1 + 1 + 1 counted across the merge
    assert out[2][0][3] == IntervalWindow(1 * S, 28 * S) and out[2][0][2] == 1
    assert driver.output_watermark() == 5 * S


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
    driver, _ = run(strategy, [("in", [(1, 1)]), ("wm", 100)])
    assert driver.key_driver("other").is_empty()
    assert driver.output_watermark() == 100 * S
