"""Windowed values and panes at Beam's module path ``apache_beam.utils.windowed_value`` (they are
defined in ``panes.window``)."""

from panes.window import PANE_NO_FIRING, PaneInfo, PaneInfoTiming, WindowedValue, windowed_value

__all__ = ["WindowedValue", "PaneInfo", "PaneInfoTiming", "PANE_INFO_UNKNOWN", "create"]

PANE_INFO_UNKNOWN = PANE_NO_FIRING


def create(value, timestamp_micros: int, windows, pane_info=PANE_INFO_UNKNOWN) -> WindowedValue:
    """A WindowedValue from its time in micros: Beam's fast constructor."""
    return windowed_value((value, timestamp_micros, tuple(windows), pane_info))
