"""Window assignment, as both runners do it: a chunk of elements at a time."""

from __future__ import annotations

from panes.errors import UserCodeError
from panes.window import AssignContext
from panes.windowing import window_fn_kinds


def assigner(label: str, window_fn):
    """A function ``(values, timestamps, windows) -> windows`` giving each element of a chunk
    the windows of the IR ``window_fn``: its kind's fast assigner where it has one (fixed and
    sliding windows from a cache keyed by the period's start, sessions inline), else each
    element through the window function's ``assign``."""
    fast = window_fn_kinds.chunk_assigner(window_fn)
    if fast is not None:
        return fast
    assign = window_fn_kinds.from_ir(window_fn).assign

    def generic(values, timestamps, previous):
        assigned, value = [], None
        try:
            for value, timestamp, windows in zip(values, timestamps, previous):
                assigned.append(
                    tuple(assign(AssignContext.at_micros(timestamp, value, windows[0])))
                )
        except Exception as error:
            raise UserCodeError(label, value, error) from error
        return assigned

    return generic
