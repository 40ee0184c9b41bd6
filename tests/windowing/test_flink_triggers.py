"""Flink-family triggers, count windows and evictors: per-element evaluation, accumulation
decided by purging, silent purge of unfired contents at clean-up."""

import pytest
from helpers import run, values
from ids import stable_id
from ir_round_trip import through_json
from strategies import strategy_of

from panes.evictor import CountEvictor, DeltaEvictor, TimeEvictor
from panes.ir import windowing as ir
from panes.timestamp import MAX_TIMESTAMP
from panes.trigger import (
    All,
    ContinuousEventTimeTrigger,
    CountTrigger,
    DeltaTrigger,
    EventTimeTrigger,
    ProcessingTimeTrigger,
    PurgingTrigger,
)
from panes.window import CountWindows, FixedWindows, GlobalWindows
from panes.window import PaneInfoTiming as T
from panes.windowing import evicting


def test_count_trigger_fires_every_n_elements_within_one_bundle_accumulating():
    strategy = strategy_of(window_fn=GlobalWindows(), trigger=CountTrigger(2))
    _, out = run(strategy, [("in", [(i, i) for i in range(5)])])
    assert values(out[0]) == [[0, 1], [0, 1, 2, 3]]


def test_purging_trigger_discards_and_leftovers_are_purged_silently():
    strategy = strategy_of(window_fn=GlobalWindows(), trigger=PurgingTrigger(CountTrigger(2)))
    grouping, out = run(strategy, [("in", [(i, i) for i in range(5)]), ("wm", 1e12)])
    grouping.step(watermark=MAX_TIMESTAMP.micros)
    assert values(out[0]) == [[0, 1], [2, 3]]
    assert grouping.counters.purged_unfired == 1


@pytest.mark.parametrize("count, emitted, purged", [(5, [[0, 1, 2, 3, 4]], 0), (3, [], 3)])
def test_k_anonymity_all_end_of_window_and_at_least_5(count, emitted, purged):
    strategy = strategy_of(
        window_fn=FixedWindows(10),
        trigger=All(EventTimeTrigger.afterEndOfWindow(), CountTrigger.atLeast(5)),
    )
    grouping, out = run(strategy, [("in", [(i, i) for i in range(count)]), ("wm", 100)])
    assert values(out[1]) == emitted
    assert grouping.counters.purged_unfired == purged


def test_event_time_trigger_fires_at_end_then_for_each_late_element_accumulating():
    strategy = strategy_of(
        window_fn=FixedWindows(10), trigger=EventTimeTrigger(), allowed_lateness=20
    )
    _, out = run(strategy, [("in", [(1, 1)]), ("wm", 15), ("in", [(2, 2), (3, 3)])])
    assert values(out[1]) == [[1]] and out[1][0][4].timing == T.ON_TIME
    assert values(out[2]) == [[1, 2], [1, 2, 3]]
    assert [o[4].timing for o in out[2]] == [T.LATE, T.LATE]


def test_dsl_early_trigger_and_discarding():
    trigger = EventTimeTrigger.afterEndOfWindow().withEarlyTrigger(CountTrigger.atLeast(2))
    strategy = strategy_of(window_fn=FixedWindows(10), trigger=trigger.discarding())
    _, out = run(strategy, [("in", [(1, 1), (2, 2), (3, 3)]), ("wm", 100)])
    assert values(out[0]) == [[1, 2]] and values(out[1]) == [[3]]
    assert trigger.discarding().accumulating() == trigger


def test_continuous_event_time_trigger_fires_per_interval_and_at_end():
    """Each timer fires on its own: the jump from 7 to 100 passes the periodic timer at 9 and
    the end of the window, two panes."""
    strategy = strategy_of(window_fn=FixedWindows(10), trigger=ContinuousEventTimeTrigger(3))
    _, out = run(
        strategy, [("in", [(1, 1)]), ("wm", 3.5), ("in", [(5, 5)]), ("wm", 7), ("wm", 100)]
    )
    assert values(out[1]) == [[1]] and values(out[3]) == [[1, 5]]
    assert values(out[4]) == [[1, 5], [1, 5]]
    assert [o[4].timing for o in out[4]] == [T.EARLY, T.ON_TIME] and out[4][1][4].is_last


def test_continuous_trigger_in_the_global_window_fires_once_at_the_end_of_time():
    """Its periodic timers would never run out before +inf: the end passes them at once."""
    strategy = strategy_of(window_fn=GlobalWindows(), trigger=ContinuousEventTimeTrigger(3))
    _, out = run(strategy, [("in", [(1, 1)]), ("wm", 7), ("wm", MAX_TIMESTAMP)])
    assert values(out[1]) == [[1], [1]]  # at 3 and 6
    assert values(out[2]) == [[1]] and out[2][0][4].is_last


def test_processing_time_trigger_fires_when_processing_time_passes_window_end():
    strategy = strategy_of(window_fn=FixedWindows(10), trigger=ProcessingTimeTrigger())
    _, out = run(strategy, [("in", [(1, 1)]), ("pt", 5), ("pt", 11)])
    assert out[1] == [] and values(out[2]) == [[1]]


def test_delta_trigger_fires_when_delta_exceeds_threshold():
    strategy = strategy_of(
        window_fn=GlobalWindows(), trigger=DeltaTrigger(5, lambda old, new: new - old)
    )
    _, out = run(strategy, [("in", [(1, 1), (3, 2), (7, 3), (9, 4), (13, 5)])])
    assert values(out[0]) == [[1, 3, 7], [1, 3, 7, 9, 13]]


def test_tumbling_count_windows_per_key_in_arrival_order():
    strategy = strategy_of(window_fn=CountWindows(3))
    _, out = run(strategy, [("in", [(i, 10 - i) for i in range(7)])])
    assert values(out[0]) == [[0, 1, 2], [3, 4, 5]]


def test_sliding_count_windows_keep_last_n_every_slide():
    strategy = strategy_of(window_fn=CountWindows(4, 2))
    _, out = run(strategy, [("in", [(i, i) for i in range(7)])])
    assert values(out[0]) == [[0, 1], [0, 1, 2, 3], [2, 3, 4, 5]]


@pytest.mark.parametrize(
    "evictor, kept",
    [
        (CountEvictor(2), [3, 4]),
        (TimeEvictor(2), [3, 4]),  # timestamps 0..4: keeps those after 4 - 2
        (DeltaEvictor(2, lambda element, last: abs(last - element)), [3, 4]),
    ],
)
def test_evictors_keep(evictor, kept):
    entries = [(i, i, i * 1_000_000) for i in range(5)]
    keep = evicting.keeper(evicting.to_ir(evictor))
    assert [value for _, value, _ in keep(entries)] == kept


def test_evict_after_applies_to_the_buffer_not_the_pane():
    strategy = strategy_of(
        window_fn=GlobalWindows(),
        trigger=CountTrigger(2),
        evictor=CountEvictor.of(1, do_evict_after=True),
    )
    _, out = run(strategy, [("in", [(i, i) for i in range(4)])])
    assert values(out[0]) == [[0, 1], [1, 2, 3]]


@pytest.mark.parametrize(
    "evictor",
    [
        CountEvictor.of(2),
        TimeEvictor.of(5, do_evict_after=True),
        DeltaEvictor.of(2, lambda element, last: abs(last - element)),
    ],
    ids=stable_id,
)
def test_an_evictor_round_trips_through_its_ir_and_json(evictor):
    lowered = evicting.to_ir(evictor)
    assert through_json(lowered, ir.Evictor) == lowered
    assert evicting.from_ir(through_json(lowered, ir.Evictor)) == evictor


def test_every_evictor_kind_has_one_entry():
    assert {kind.ir for kind in evicting.KINDS} == set(ir.Evictor.members.values())
