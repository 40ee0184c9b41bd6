"""Window functions: offsets, time given as seconds/datetime/Duration, count windows; windows
and windowed values as Beam's are to user code."""

import copy as copy_module
import datetime as dt
import pickle

import pytest

from panes.timestamp import Duration
from panes.utils.timestamp import MIN_TIMESTAMP, Timestamp
from panes.utils.windowed_value import PANE_INFO_UNKNOWN, create
from panes.window import (
    GLOBAL_WINDOW,
    AssignContext,
    CountWindows,
    FixedWindows,
    IntervalWindow,
    PaneInfo,
    PaneInfoTiming,
    TimestampedValue,
    WindowedValue,
    interval_window,
)


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


# -- windows and windowed values as user code sees them: Beam's, over int micros ----------------


def test_interval_windows_are_beams_in_seconds_and_micros_inside():
    window = IntervalWindow(1447686000, 1447689600)
    assert str(window) == repr(window) == "[1447686000.0, 1447689600.0)"
    assert (window.start, window.end) == (Timestamp(1447686000), Timestamp(1447689600))
    assert window.max_timestamp() == Timestamp(1447689600).predecessor()
    assert (float(window.start), int(window.end), window.start.micros) == (
        1447686000.0,
        1447689600,
        1447686000 * 10**6,
    )
    assert window.end.to_utc_datetime() == dt.datetime(2015, 11, 16, 16)
    assert (window.start_micros, window.end_micros) == (1447686000 * 10**6, 1447689600 * 10**6)
    assert IntervalWindow(Timestamp(2), 2.5) == interval_window((2_000_000, 2_500_000))
    assert IntervalWindow(0, 10).union(IntervalWindow(5, 20)) == IntervalWindow(0, 20)
    assert not IntervalWindow(0, 5).intersects(IntervalWindow(5, 10))


def test_windows_order_by_end_then_start_the_global_window_last():
    windows = [GLOBAL_WINDOW, IntervalWindow(0, 10), IntervalWindow(5, 8), IntervalWindow(2, 10)]
    assert sorted(windows) == [
        IntervalWindow(5, 8),
        IntervalWindow(0, 10),
        IntervalWindow(2, 10),
        GLOBAL_WINDOW,
    ]


def test_windowed_values_are_beams():
    value = WindowedValue("x", 1.5, [IntervalWindow(0, 10)])
    assert (value.timestamp, value.timestamp_micros, value.windows) == (
        Timestamp(1.5),
        1_500_000,
        (IntervalWindow(0, 10),),
    )
    assert value.pane_info == PANE_INFO_UNKNOWN
    assert value.with_value("y") == create("y", 1_500_000, [IntervalWindow(0, 10)])
    assert repr(WindowedValue(1, MIN_TIMESTAMP, [GLOBAL_WINDOW])) == (
        "(1, MIN_TIMESTAMP, (GlobalWindow,), PaneInfo(first: True, last: True, timing: UNKNOWN, "
        "index: 0, nonspeculative_index: 0))"
    )
    assert PaneInfoTiming.to_string(PaneInfoTiming.EARLY) == "EARLY"
    assert PaneInfoTiming.from_string("LATE") is PaneInfoTiming.LATE
    assert TimestampedValue("x", 7).timestamp == Timestamp(7)
    assert AssignContext(2.5).timestamp == Timestamp(2.5)


@pytest.mark.parametrize("copy", [pickle.loads, copy_module.copy, copy_module.deepcopy])
def test_copies_keep_the_micros(copy):
    """Picklers and copies rebuild from the micros inside, not through the constructors of
    seconds."""
    window = IntervalWindow(2, 25)
    early = PaneInfo(True, False, PaneInfoTiming.EARLY, 0, -1)
    value = WindowedValue(("k", 1), 3, (window,), early)
    for original in (window, value):
        copied = copy(pickle.dumps(original)) if copy is pickle.loads else copy(original)
        assert copied == original and type(copied) is type(original)


class _TaggedWindow(IntervalWindow):
    """An interval window of a user's own class, with an attribute of its own."""


@pytest.mark.parametrize("copy", [pickle.loads, copy_module.copy, copy_module.deepcopy])
def test_copies_of_a_users_interval_window_keep_its_micros_class_and_attributes(copy):
    window = _TaggedWindow(2, 25)
    window.tag = "mine"
    copied = copy(pickle.dumps(window)) if copy is pickle.loads else copy(window)
    assert (type(copied), tuple(copied), copied.tag) == (
        _TaggedWindow,
        (2_000_000, 25_000_000),
        "mine",
    )


def test_they_match_apache_beams():
    beam_window = pytest.importorskip(
        "apache_beam.transforms.window",
        reason="compared with Apache Beam: pip install -e '.[beam]'",
    )
    from apache_beam.utils import windowed_value as beam_windowed_value

    for start, end in [(0, 10), (1447686000, 1447689600.5), (-3.25, 0)]:
        ours, beams = IntervalWindow(start, end), beam_window.IntervalWindow(start, end)
        assert (repr(ours), hash(ours), ours.start.micros, ours.end.micros) == (
            repr(beams),
            hash(beams),
            beams.start.micros,
            beams.end.micros,
        )
        assert repr(ours.max_timestamp()) == repr(beams.max_timestamp())
    beams_global = beam_window.GlobalWindow()
    for ours, beams in [
        (GLOBAL_WINDOW.start, beams_global.start),
        (GLOBAL_WINDOW.end, beams_global.end),
        (GLOBAL_WINDOW.max_timestamp(), beams_global.max_timestamp()),
    ]:
        assert repr(ours) == repr(beams)
    ours = WindowedValue("x", 7.25, [IntervalWindow(0, 10)])
    beams = beam_windowed_value.WindowedValue("x", 7.25, (beam_window.IntervalWindow(0, 10),))
    assert repr(ours) == repr(beams)
