"""Beam's values and panes' at the boundary between them: windows, timestamps, panes and
windowed values, converted where Beam's code (a DoFn run by Beam's DoFnRunner, a WindowFn, a
side input's window mapping) meets panes' runners. Both sides count time in int64 µs, so a
conversion copies microseconds and never rounds."""

from __future__ import annotations

from apache_beam.transforms import window as beam_window
from apache_beam.utils import windowed_value as beam_wv
from apache_beam.utils.timestamp import Timestamp as BeamTimestamp

from panes.window import (
    GLOBAL_WINDOW,
    PANE_NO_FIRING,
    GlobalWindow,
    IntervalWindow,
    PaneInfo,
    PaneInfoTiming,
    interval_window,
    windowed_value,
)

_BEAM_GLOBAL_WINDOW = beam_window.GlobalWindow()

_TIMINGS = {
    PaneInfoTiming.EARLY: beam_wv.PaneInfoTiming.EARLY,
    PaneInfoTiming.ON_TIME: beam_wv.PaneInfoTiming.ON_TIME,
    PaneInfoTiming.LATE: beam_wv.PaneInfoTiming.LATE,
    PaneInfoTiming.UNKNOWN: beam_wv.PaneInfoTiming.UNKNOWN,
}
_PANES_TIMINGS = {beam: panes for panes, beam in _TIMINGS.items()}


def to_beam_window(window):
    """Beam's window for a panes window."""
    if type(window) is IntervalWindow:
        return beam_window.IntervalWindow(
            BeamTimestamp(micros=window[0]), BeamTimestamp(micros=window[1])
        )
    if isinstance(window, GlobalWindow):
        return _BEAM_GLOBAL_WINDOW
    raise TypeError(f"panes has no Beam counterpart for the window {window!r}")


def to_panes_window(window):
    """panes' window for a Beam window."""
    if isinstance(window, beam_window.IntervalWindow):
        return interval_window((window.start.micros, window.end.micros))
    if isinstance(window, beam_window.GlobalWindow):
        return GLOBAL_WINDOW
    raise TypeError(
        f"panes runs windows that are Beam's IntervalWindow or GlobalWindow; got "
        f"{type(window).__name__} {window!r} (a window class of its own is not supported)"
    )


def to_beam_pane(pane: PaneInfo):
    if pane is PANE_NO_FIRING:
        return beam_wv.PANE_INFO_UNKNOWN
    return beam_wv.PaneInfo(
        pane.is_first, pane.is_last, _TIMINGS[pane.timing], pane.index, pane.nonspeculative_index
    )


def to_panes_pane(pane) -> PaneInfo:
    if pane is beam_wv.PANE_INFO_UNKNOWN:
        return PANE_NO_FIRING
    return PaneInfo(
        pane.is_first,
        pane.is_last,
        _PANES_TIMINGS[pane.timing],
        pane.index,
        pane.nonspeculative_index,
    )


def to_panes_windowed_value(wv):
    """panes' ``WindowedValue`` of an element Beam's code produced."""
    return windowed_value(
        (
            wv.value,
            wv.timestamp_micros,
            tuple(to_panes_window(w) for w in wv.windows),
            to_panes_pane(wv.pane_info),
        )
    )
