"""The batch fast path gives exactly the engine's panes for default-trigger batch input."""

from hypothesis import given, settings, strategies as st

from panes.timestamp import MAX_MICROS
from panes.transforms.combiners import SumFn
from panes.trigger import AfterCount, Repeatedly
from panes.window import (
    AssignContext, FixedWindows, GlobalWindows, Sessions, SlidingWindows, TimestampCombiner,
    WindowedValue,
)
from panes.windowing.aggregation import BufferAggregation, CombineFnAggregation
from panes.windowing.batch import BatchGrouping, is_batch_exact
from panes.windowing.strategy import WindowingStrategy

from stepper import Stepper

WINDOW_FNS = [GlobalWindows(), FixedWindows(10), FixedWindows(10, offset=3),
              SlidingWindows(10, 4), Sessions(5)]

elements = st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, 60), st.integers(-3, 9)),
                    max_size=30)


def _canonical(windowed_values):
    return sorted((wv.value[0], sorted(wv.value[1]) if isinstance(wv.value[1], list) else wv.value[1],
                   wv.timestamp, wv.windows, wv.pane_info) for wv in windowed_values)


@settings(max_examples=150, deadline=None)
@given(elements, st.sampled_from(WINDOW_FNS), st.sampled_from(list(TimestampCombiner)),
       st.sampled_from([0, 7]), st.booleans(), st.integers(0, 30))
def test_batch_grouping_matches_the_engine(records, window_fn, combiner, lateness, combine, split):
    """Also when the input is accumulated in two parts and merged (as Spark partitions are)."""
    strategy = WindowingStrategy(window_fn=window_fn, timestamp_combiner=combiner,
                                 allowed_lateness=lateness)
    aggregation = CombineFnAggregation(SumFn()) if combine else BufferAggregation()
    keyed = [(key, WindowedValue(value, second, window_fn.assign(AssignContext(second))))
             for key, second, value in records]

    grouping = Stepper(strategy, aggregation)
    expected = [wv for _, wv in grouping.step(keyed) + grouping.step(
        watermark=MAX_MICROS, processing_time=MAX_MICROS)]
    batch, other = BatchGrouping(strategy, aggregation), BatchGrouping(strategy, aggregation)
    for index, (key, wv) in enumerate(keyed):
        (batch if index < split else other).add_chunk([(key, wv.value)], [wv.timestamp_micros],
                                                      [wv.windows])
    batch.merge_from(other)
    assert _canonical(batch.panes()) == _canonical(expected)


def test_only_the_default_trigger_takes_the_batch_path():
    assert is_batch_exact(WindowingStrategy(window_fn=FixedWindows(10)))
    assert not is_batch_exact(WindowingStrategy(trigger=Repeatedly(AfterCount(2))))
