"""The batch fast path gives exactly the engine's panes for default-trigger batch input."""

import pickle

from hypothesis import given, settings
from hypothesis import strategies as st
from stepper import Stepper
from strategies import strategy_of

from panes.timestamp import MAX_MICROS
from panes.transforms.combiners import SumFn
from panes.trigger import AfterCount, Repeatedly
from panes.window import (
    AssignContext,
    FixedWindows,
    GlobalWindows,
    IntervalWindow,
    IntervalWindows,
    Sessions,
    SlidingWindows,
    TimestampCombiner,
    WindowedValue,
)
from panes.windowing.aggregation import BufferAggregation, CombineFnAggregation
from panes.windowing.batch import BatchGrouping, is_batch_exact

WINDOW_FNS = [
    GlobalWindows(),
    FixedWindows(10),
    FixedWindows(10, offset=3),
    SlidingWindows(10, 4),
    Sessions(5),
]

elements = st.lists(
    st.tuples(st.sampled_from("abc"), st.integers(0, 60), st.integers(-3, 9)), max_size=30
)


def _canonical(windowed_values):
    return sorted(
        (
            wv.value[0],
            sorted(wv.value[1]) if isinstance(wv.value[1], list) else wv.value[1],
            wv.timestamp,
            wv.windows,
            wv.pane_info,
        )
        for wv in windowed_values
    )


@settings(max_examples=150, deadline=None)
@given(
    elements,
    st.sampled_from(WINDOW_FNS),
    st.sampled_from(list(TimestampCombiner)),
    st.sampled_from([0, 7]),
    st.booleans(),
    st.integers(0, 30),
)
def test_batch_grouping_matches_the_engine(records, window_fn, combiner, lateness, combine, split):
    """Also when the input is accumulated in two parts and merged (as Spark partitions are)."""
    strategy = strategy_of(
        window_fn=window_fn, timestamp_combiner=combiner, allowed_lateness=lateness
    )
    aggregation = CombineFnAggregation(SumFn()) if combine else BufferAggregation()
    keyed = [
        (key, WindowedValue(value, second, window_fn.assign(AssignContext(second))))
        for key, second, value in records
    ]

    grouping = Stepper(strategy, aggregation)
    expected = [
        wv
        for _, wv in grouping.step(keyed)
        + grouping.step(watermark=MAX_MICROS, processing_time=MAX_MICROS)
    ]
    batch, other = BatchGrouping(strategy, aggregation), BatchGrouping(strategy, aggregation)
    for index, (key, wv) in enumerate(keyed):
        (batch if index < split else other).add_chunk(
            [(key, wv.value)], [wv.timestamp_micros], [wv.windows]
        )
    batch.merge_from(other)
    assert _canonical(batch.panes()) == _canonical(expected)


def test_only_the_default_trigger_takes_the_batch_path():
    assert is_batch_exact(strategy_of(window_fn=FixedWindows(10)))
    assert not is_batch_exact(strategy_of(trigger=Repeatedly(AfterCount(2))))


@settings(max_examples=60, deadline=None)
@given(elements, st.sampled_from(WINDOW_FNS), st.booleans(), st.integers(1, 6))
def test_columns_come_in_chunks_of_whole_keys(records, window_fn, combine, size):
    """Each chunk ends with the first key that brings it to ``size`` panes; together the chunks
    are the panes, and each column's i-th entry is the i-th pane's."""
    aggregation = CombineFnAggregation(SumFn()) if combine else BufferAggregation()
    batch = BatchGrouping(strategy_of(window_fn=window_fn), aggregation)
    for key, second, value in records:
        batch.add_chunk([(key, value)], [second * 10**6], [window_fn.assign(AssignContext(second))])
    panes = batch.panes()
    chunks = list(batch.columns(list(batch.keys()), size))
    assert [count for counts, *_ in chunks for count in counts] == [
        sum(1 for wv in panes if wv.value[0] == key) for key in batch.keys()
    ]
    for counts, *_ in chunks[:-1]:
        assert sum(counts) >= size > sum(counts[:-1])
    assert [
        (value, timestamp, windows)
        for _, values, timestamps, windows in chunks
        for value, timestamp, windows in zip(values, timestamps, windows)
    ] == [(wv.value, wv.timestamp_micros, wv.windows) for wv in panes]


def test_interval_windows_pickle_as_their_bounds():
    column = IntervalWindows([0, 10 * 10**6], [5 * 10**6, 12 * 10**6])
    assert list(column) == [(IntervalWindow(0, 5),), (IntervalWindow(10, 12),)]
    copy = pickle.loads(pickle.dumps(column))
    assert (copy.starts, copy.ends) == (column.starts, column.ends)
    assert list(copy) == list(column) and copy[1] == (IntervalWindow(10, 12),)
