"""Window assignment of one element, as both runners do it."""

from __future__ import annotations

from panes.errors import UserCodeError
from panes.window import AssignContext, WindowedValue


def assign(label: str, window_fn, wv: WindowedValue) -> WindowedValue:
    """``wv`` in the windows ``window_fn`` assigns it; a failing window fn names the transform."""
    try:
        windows = window_fn.assign(AssignContext(wv.timestamp, wv.value, wv.windows[0]))
    except Exception as error:
        raise UserCodeError(label, wv.value, error) from error
    return WindowedValue(wv.value, wv.timestamp, tuple(windows), wv.pane)
