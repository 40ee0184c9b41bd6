"""The batch fast path gives exactly the engine's panes for default-trigger batch input."""

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stepper import Stepper
from strategies import BATCH_WINDOW_FNS, seconds, strategy_of

from panes.timestamp import MAX_MICROS
from panes.transforms.combiners import SumFn
from panes.trigger import AfterCount, Repeatedly
from panes.window import (
    AssignContext,
    FixedWindows,
    IntervalWindow,
    Sessions,
    TimestampCombiner,
    WindowedValue,
)
from panes.windowing import window_fn_kinds
from panes.windowing.aggregation import BufferAggregation, CombineFnAggregation
from panes.windowing.batch import PENDING_LIMIT, BatchGrouping, KeyedOutputs, is_batch_exact
from panes.windowing.columns import IntervalWindows, MaxTimestamps, ProtoSessions

elements = st.lists(st.tuples(st.sampled_from("abc"), seconds, st.integers(-3, 9)), max_size=30)


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


# How elements reach a batch grouping: the index where the input splits in two parts (as
# Spark partitions), the chunk size, how many elements sessions keep pending, and whether the
# fast chunk assigner gives the windows (for sessions, columns of bounds).
feeds = st.tuples(
    st.integers(0, 30), st.integers(1, 4), st.sampled_from([1, 3, PENDING_LIMIT]), st.booleans()
)


@settings(max_examples=150, deadline=None)
@given(
    elements,
    st.sampled_from(BATCH_WINDOW_FNS),
    st.sampled_from(list(TimestampCombiner)),
    st.sampled_from([0, 7]),
    st.booleans(),
    feeds,
)
def test_batch_grouping_matches_the_engine(records, window_fn, combiner, lateness, combine, feed):
    """Whatever way the input comes (``feeds``)."""
    aggregation = CombineFnAggregation(SumFn()) if combine else BufferAggregation()
    _assert_batch_matches_engine(records, window_fn, combiner, lateness, aggregation, feed)


@settings(max_examples=200, deadline=None)
@given(elements, st.sampled_from(list(TimestampCombiner)), feeds, st.sampled_from([5, 3]))
def test_a_combiner_under_sessions_matches_the_engine(records, combiner, feed, assigned_gap):
    """The path that keeps sessions merged as it goes, from sorted batches of elements; also
    when the elements' windows were assigned with another gap than the grouping's."""
    aggregation = CombineFnAggregation(SumFn())
    _assert_batch_matches_engine(
        records, Sessions(5), combiner, 0, aggregation, feed, Sessions(assigned_gap)
    )


def _assert_batch_matches_engine(
    records, window_fn, combiner, lateness, aggregation, feed, assigned_by=None
):
    """``assigned_by``: the window function that assigns the elements' windows, if not the
    grouping's."""
    split, size, pending_limit, fast = feed
    strategy = strategy_of(
        window_fn=window_fn, timestamp_combiner=combiner, allowed_lateness=lateness
    )
    assigned_by = assigned_by or window_fn
    keyed = [
        (key, WindowedValue(value, second, assigned_by.assign(AssignContext(second))))
        for key, second, value in records
    ]

    grouping = Stepper(strategy, aggregation)
    expected = [
        wv
        for _, wv in grouping.step(keyed)
        + grouping.step(watermark=MAX_MICROS, processing_time=MAX_MICROS)
    ]
    assign = window_fn_kinds.chunk_assigner(window_fn_kinds.to_ir(assigned_by)) if fast else None
    batch, other = (BatchGrouping(strategy, aggregation, pending_limit) for _ in range(2))
    for part_grouping, part in ((batch, keyed[:split]), (other, keyed[split:])):
        for start in range(0, len(part), size):
            chunk = part[start : start + size]
            pairs = [(key, wv.value) for key, wv in chunk]
            timestamps = [wv.timestamp_micros for _, wv in chunk]
            windows = [wv.windows for _, wv in chunk]
            if assign is not None:
                windows = assign(pairs, timestamps, windows)
            part_grouping.add_chunk(pairs, timestamps, windows)
    batch.merge_from(other)
    assert _canonical(batch.panes()) == _canonical(expected)


def test_only_the_default_trigger_takes_the_batch_path():
    assert is_batch_exact(strategy_of(window_fn=FixedWindows(10)))
    assert not is_batch_exact(strategy_of(trigger=Repeatedly(AfterCount(2))))


@settings(max_examples=60, deadline=None)
@given(elements, st.sampled_from(BATCH_WINDOW_FNS), st.booleans(), st.integers(1, 6))
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


@pytest.mark.parametrize(
    "column, entries",
    [
        (
            IntervalWindows([0, 10 * 10**6], [5 * 10**6, 12 * 10**6]),
            [(IntervalWindow(0, 5),), (IntervalWindow(10, 12),)],
        ),
        (
            ProtoSessions([0, 10 * 10**6], 5 * 10**6),
            [(IntervalWindow(0, 5),), (IntervalWindow(10, 15),)],
        ),
        (MaxTimestamps([5 * 10**6, 12 * 10**6]), [5 * 10**6 - 1, 12 * 10**6 - 1]),
        (KeyedOutputs(["a", "b"], [2, 1], [7, 8, 9]), [("a", 7), ("a", 8), ("b", 9)]),
    ],
    ids=type,
)
def test_columns_read_as_their_entries_and_pickle_as_their_parts(column, entries):
    assert len(column) == len(entries) and column[-1] == entries[-1]
    assert list(column) == entries and column[:2] == entries[:2]
    copy = pickle.loads(pickle.dumps(column))
    assert type(copy) is type(column) and list(copy) == entries


def test_columns_of_parts_pickle_smaller_than_their_entries():
    """Sessions' timestamps at the end of their windows ship as the windows' ends, once."""
    starts = list(range(0, 10**9, 10**6))
    ends = [start + 5 * 10**6 for start in starts]
    for columns in (
        (IntervalWindows(starts, ends),),
        (IntervalWindows(starts, ends), MaxTimestamps(ends)),
        (KeyedOutputs([f"key{k}" for k in range(10)], [100] * 10, list(range(1000))),),
    ):
        entries = tuple(list(column) for column in columns)
        assert len(pickle.dumps(columns)) * 1.5 < len(pickle.dumps(entries))
