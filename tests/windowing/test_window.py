"""Window functions: offsets, time given as seconds/datetime/Duration, count windows."""

import datetime as dt

import pytest

from panes.timestamp import Duration
from panes.window import AssignContext, CountWindows, FixedWindows, GLOBAL_WINDOW, IntervalWindow


@pytest.mark.parametrize("size", [86_400, dt.timedelta(days=1), Duration(seconds=86_400)])
def test_utc_plus_8_daily_windows_with_offset(size):
    window_fn = FixedWindows(size, offset=-8 * 3600)
    t = dt.datetime(2024, 1, 2, 20, tzinfo=dt.timezone.utc)  # 04:00 next day UTC+8
    (window,) = window_fn.assign(AssignContext(t))
    start = dt.datetime(2024, 1, 2, 16, tzinfo=dt.timezone.utc)  # 00:00 UTC+8
    assert window == IntervalWindow(start, start + dt.timedelta(days=1))


def test_count_windows_assign_to_the_global_window_and_validate():
    assert CountWindows(3).assign(AssignContext(0)) == [GLOBAL_WINDOW]
    with pytest.raises(ValueError):
        CountWindows(0)
    with pytest.raises(ValueError):
        CountWindows(3, slide=0)
