"""Watermark strategies: the watermark after each record, periodic emission, idleness."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from panes.timestamp import MIN_MICROS, Duration
from panes.watermark import (
    WatermarkStrategy, combine_input_watermarks, is_idle, running_maxima, watermark_changes,
    watermark_for_max,
)

S = 1_000_000


@pytest.mark.parametrize("strategy, timestamps, expected", [
    (WatermarkStrategy.forMonotonousTimestamps(), [1, 2, 3], [1, 2, 3]),
    (WatermarkStrategy.for_bounded_out_of_orderness(2), [5, 3, 8, 6], [3, 3, 6, 6]),
    (WatermarkStrategy.for_bounded_out_of_orderness(2).with_periodic_emission(2),
     [5, 3, 8, 6, 9], [None, 3, 3, 6, 6]),
])
def test_watermark_after_each_record(strategy, timestamps, expected):
    changes = dict(watermark_changes([running_maxima(t * S for t in timestamps)], strategy))
    result, current = [], MIN_MICROS
    for index in range(len(timestamps)):
        current = changes.get(index, current)
        result.append(current)
    assert result == [MIN_MICROS if e is None else e * S for e in expected]


def test_idleness_and_several_inputs():
    strategy = WatermarkStrategy.forMonotonousTimestamps().withIdleness(10)
    assert is_idle(0, 10 * S, strategy) and not is_idle(0, 9 * S, strategy)
    assert not is_idle(0, 10**12, WatermarkStrategy())
    assert combine_input_watermarks([5, 2, 9], [False, True, False]) == 5
    assert combine_input_watermarks([5], [True]) is None


@given(timestamps=st.lists(st.integers(0, 1000), max_size=40),
       cuts=st.lists(st.integers(0, 40), max_size=4),
       delay=st.integers(0, 50), every=st.integers(1, 4))
def test_segments_give_the_changes_of_a_record_by_record_scan(timestamps, cuts, delay, every):
    strategy = WatermarkStrategy(max_out_of_orderness=Duration(micros=delay), emit_every=every)
    bounds = sorted({0, len(timestamps), *(c for c in cuts if c <= len(timestamps))})
    segments = [running_maxima(timestamps[start:end]) for start, end in zip(bounds, bounds[1:])]
    expected, running, current = [], MIN_MICROS, MIN_MICROS
    for index, timestamp in enumerate(timestamps):
        running = max(running, timestamp)
        if (index + 1) % every == 0 and watermark_for_max(running, strategy) > current:
            current = watermark_for_max(running, strategy)
            expected.append((index, current))
    assert watermark_changes(segments, strategy) == expected
