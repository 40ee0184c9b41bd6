"""Side-input views: what a DoFn sees of a side collection for the window it is processing."""

from __future__ import annotations

from panes.errors import UserCodeError
from panes.ir.model import SIDE_INPUT_MARK
from panes.window import GLOBAL_WINDOW, GlobalWindows


def side_window(side_window_fn, main_window):
    """The side input's window for a main-input window: the one holding its end (Beam's
    default window mapping)."""
    if isinstance(side_window_fn, GlobalWindows) or main_window is None:
        return GLOBAL_WINDOW
    return side_window_fn.assign_micros(main_window.max_timestamp_micros)[0]


def build_view(spec, values, label: str):
    """Turns the side input's values in one window into the view the DoFn asked for."""
    if spec.view == "singleton":
        if len(values) == 1:
            return values[0]
        if not values and spec.has_default:
            return spec.default
        raise UserCodeError(
            label,
            None,
            ValueError(
                f"AsSingleton side input '{spec.pcollection}' has {len(values)} elements in this "
                f"window; it needs exactly one (or give AsSingleton(pcoll, default_value=...))"
            ),
        )
    if spec.view == "dict":
        try:
            return dict(values)
        except (TypeError, ValueError) as error:
            raise UserCodeError(
                label,
                None,
                ValueError(f"AsDict side input '{spec.pcollection}' needs (key, value) elements"),
            ) from error
    return list(values)


class SideInputResolver:
    """Replaces side-input markers in a DoFn's arguments with views for a given window."""

    def __init__(self, label, specs, windowed_values_by_input, window_fns):
        self.label = label
        self.specs = specs
        self.window_fns = window_fns
        self.by_window = [_index_by_window(wvs) for wvs in windowed_values_by_input]
        self._cache: dict = {}

    def __call__(self, main_window, args, kwargs):
        views = [self._view(i, main_window) for i in range(len(self.specs))]
        return (
            tuple(_substitute(a, views) for a in args),
            {k: _substitute(v, views) for k, v in kwargs.items()},
        )

    def _view(self, index, main_window):
        window = side_window(self.window_fns[index], main_window)
        key = (index, window)
        if key not in self._cache:
            values = self.by_window[index].get(window, [])
            self._cache[key] = build_view(self.specs[index], values, self.label)
        return self._cache[key]


def _index_by_window(windowed_values) -> dict:
    by_window: dict = {}
    for wv in windowed_values:
        for window in wv.windows:
            by_window.setdefault(window, []).append(wv.value)
    return by_window


def _substitute(arg, views):
    if isinstance(arg, dict) and SIDE_INPUT_MARK in arg:
        return views[arg[SIDE_INPUT_MARK]]
    return arg
