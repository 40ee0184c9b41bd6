"""Watermark strategies: the watermark after each record, periodic emission, idleness."""

import pytest

from panes.timestamp import MIN_TIMESTAMP
from panes.watermark import (
    WatermarkStrategy, combine_input_watermarks, generate_watermarks, is_idle, max_combine,
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
