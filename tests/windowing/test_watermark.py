"""Watermark strategies: the watermark after each record, periodic emission, idleness."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from panes.timestamp import MIN_TIMESTAMP, Duration
from panes.watermark import (
    WatermarkStrategy, combine_input_watermarks, generate_watermarks, is_idle, max_combine,
    segment_carries, segment_summary, segment_watermarks,
)

S = 1_000_000


@pytest.mark.parametrize("strategy, timestamps, expected", [
    (WatermarkStrategy.forMonotonousTimestamps(), [1, 2, 3], [1, 2, 3]),
    (WatermarkStrategy.for_bounded_out_of_orderness(2), [5, 3, 8, 6], [3, 3, 6, 6]),
    (WatermarkStrategy.for_bounded_out_of_orderness(2).with_periodic_emission(2),
     [5, 3, 8, 6, 9], [None, 3, 3, 6, 6]),
])
def test_watermark_after_each_record(strategy, timestamps, expected):
    result = generate_watermarks([t * S for t in timestamps], strategy)
    assert result == [MIN_TIMESTAMP if e is None else e * S for e in expected]


def test_running_max_is_an_associative_scan():
    assert max_combine(max_combine(1, 5), 3) == max_combine(1, max_combine(5, 3)) == 5


def test_idleness_and_several_inputs():
    strategy = WatermarkStrategy.forMonotonousTimestamps().withIdleness(10)
    assert is_idle(0, 10 * S, strategy) and not is_idle(0, 9 * S, strategy)
    assert not is_idle(0, 10**12, WatermarkStrategy())
    assert combine_input_watermarks([5, 2, 9], [False, True, False]) == 5
    assert combine_input_watermarks([5], [True]) is None


@given(timestamps=st.lists(st.integers(0, 1000), max_size=40),
       cuts=st.lists(st.integers(0, 40), max_size=4),
       delay=st.integers(0, 50), every=st.integers(1, 4))
def test_segmented_scan_equals_the_one_pass_scan(timestamps, cuts, delay, every):
    strategy = WatermarkStrategy(max_out_of_orderness=Duration(micros=delay), emit_every=every)
    bounds = sorted({0, len(timestamps), *(c for c in cuts if c <= len(timestamps))})
    segments = [(start, timestamps[start:end]) for start, end in zip(bounds, bounds[1:])]
    carries = segment_carries([segment_summary(ts, start, strategy) for start, ts in segments],
                              strategy)
    scanned = [w for (start, ts), carry in zip(segments, carries)
               for w in segment_watermarks(ts, start, carry, strategy)]
    assert scanned == generate_watermarks(timestamps, strategy)
