"""Every kind of window function, one entry each: its IR class, its API class and how one lowers
to the other and back, how it is shown, how runners assign a chunk of elements to its windows
fast, and (count windows) the trigger and evictor it implies. A user's own ``WindowFn``
subclass is the ``custom`` kind: pickled, and run through its own ``assign`` and ``merge``.

``from_ir`` gives what runs: the API object, whose ``assign`` and ``merge`` are pure functions
of an element's timestamp.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from panes import window as api
from panes.errors import PipelineConstructionError
from panes.ir import triggers
from panes.ir import windowing as ir
from panes.ir.data import Pickled
from panes.timestamp import Duration
from panes.window import GLOBAL_WINDOW
from panes.windowing.columns import ProtoSessions

# Distinct windows remembered per assigner: fixed and sliding windows repeat for every element
# of a window, so assigning them is a lookup; the bound keeps memory flat on long inputs.
_CACHE_SIZE = 4096


@dataclass(frozen=True)
class WindowFnKind:
    """What panes knows of one kind of window function. ``assigner(window_fn)`` gives a fast
    ``(values, timestamps, previous windows) -> windows`` for a chunk, or None (each element
    through ``assign``); ``implied(window_fn)``: the ``(trigger, evictor)`` that replaces the
    default trigger."""

    ir: type
    api: type
    to_ir: Callable
    from_ir: Callable
    display: Callable
    assigner: Callable = lambda window_fn: None
    implied: Callable | None = None


def _seconds(micros: int) -> str:
    return f"{micros / 1_000_000:g}s"


def _offset(micros: int) -> str:
    return f", offset={_seconds(micros)}" if micros else ""


def _constant(window_fn) -> Callable:
    windows = (GLOBAL_WINDOW,)
    return lambda values, timestamps, previous: [windows] * len(timestamps)


def _by_start(window_fn, period: int) -> Callable:
    """Windows that depend only on where the timestamp's ``period`` starts, answered from a
    cache keyed by that start."""
    offset = window_fn.offset
    assign_micros = from_ir(window_fn).assign_micros
    cache: dict = {}
    cached = cache.get

    def windows_from(start):
        if len(cache) >= _CACHE_SIZE:
            cache.clear()
        windows = cache[start] = tuple(assign_micros(start))
        return windows

    def by_start(values, timestamps, previous):
        # A windows tuple is never empty, so `or` only computes what the cache misses.
        return [
            cached(start) or windows_from(start)
            for start in [t - (t - offset) % period for t in timestamps]
        ]

    return by_start


def _sessions(window_fn) -> Callable:
    """Each element's proto-session ``[t, t + gap)``, as a column of starts and the gap: a
    grouping merges them from those, and a window object is made only for what reads one."""
    gap = window_fn.gap_size
    return lambda values, timestamps, previous: ProtoSessions(list(timestamps), gap)


def _count_windows_implied(window_fn: ir.CountWindows) -> tuple:
    """Flink's count windows: a purging count trigger, or a count trigger every ``slide``
    elements keeping the last ``size`` (unless the strategy names its own evictor)."""
    if window_fn.slide is None:
        return triggers.PurgingTrigger(triggers.CountTrigger(window_fn.size)), None
    return triggers.CountTrigger(window_fn.slide), ir.CountEvictor(window_fn.size)


def _custom_to_ir(window_fn) -> ir.CustomWindowFn:
    cls = type(window_fn)
    return ir.CustomWindowFn(f"{cls.__module__}.{cls.__qualname__}", Pickled.of(window_fn))


KINDS = (
    WindowFnKind(
        ir.GlobalWindows,
        api.GlobalWindows,
        to_ir=lambda w: ir.GlobalWindows(),
        from_ir=lambda w: api.GlobalWindows(),
        display=lambda w: "GlobalWindows()",
        assigner=_constant,
    ),
    WindowFnKind(
        ir.FixedWindows,
        api.FixedWindows,
        to_ir=lambda w: ir.FixedWindows(w.size.micros, w.offset.micros),
        from_ir=lambda w: api.FixedWindows(Duration(micros=w.size), Duration(micros=w.offset)),
        display=lambda w: f"FixedWindows({_seconds(w.size)}{_offset(w.offset)})",
        assigner=lambda w: _by_start(w, w.size),
    ),
    WindowFnKind(
        ir.SlidingWindows,
        api.SlidingWindows,
        to_ir=lambda w: ir.SlidingWindows(w.size.micros, w.period.micros, w.offset.micros),
        from_ir=lambda w: api.SlidingWindows(
            Duration(micros=w.size), Duration(micros=w.period), Duration(micros=w.offset)
        ),
        display=lambda w: (
            f"SlidingWindows({_seconds(w.size)}, {_seconds(w.period)}{_offset(w.offset)})"
        ),
        # With a size that is a multiple of the period, the windows follow the period's start.
        assigner=lambda w: _by_start(w, w.period) if w.size % w.period == 0 else None,
    ),
    WindowFnKind(
        ir.Sessions,
        api.Sessions,
        to_ir=lambda w: ir.Sessions(w.gap_size.micros),
        from_ir=lambda w: api.Sessions(Duration(micros=w.gap_size)),
        display=lambda w: f"Sessions({_seconds(w.gap_size)})",
        assigner=_sessions,
    ),
    WindowFnKind(
        ir.CountWindows,
        api.CountWindows,
        to_ir=lambda w: ir.CountWindows(w.size, w.slide),
        from_ir=lambda w: api.CountWindows(w.size, w.slide),
        display=lambda w: f"CountWindows({w.size}{'' if w.slide is None else f', {w.slide}'})",
        assigner=_constant,
        implied=_count_windows_implied,
    ),
    WindowFnKind(
        ir.CustomWindowFn,
        api.WindowFn,
        to_ir=_custom_to_ir,
        from_ir=lambda w: w.fn.load(),
        display=lambda w: f"{w.name.rsplit('.', 1)[-1]}(<pickled>)",
    ),
)

_BY_API = {kind.api: kind for kind in KINDS}
_BY_IR = {kind.ir: kind for kind in KINDS}


def to_ir(window_fn) -> ir.WindowFn:
    """The IR of an API window function; a user's own subclass is pickled."""
    kind = _BY_API.get(type(window_fn))
    if kind is None:
        if not isinstance(window_fn, api.WindowFn):
            raise PipelineConstructionError(
                f"{window_fn!r} is not a window function; use one of panes.window (e.g. "
                f"FixedWindows(60)) or subclass panes.window.WindowFn"
            )
        kind = _BY_IR[ir.CustomWindowFn]
    return kind.to_ir(window_fn)


def kind_of(window_fn: ir.WindowFn) -> WindowFnKind:
    return _BY_IR[type(window_fn)]


def from_ir(window_fn: ir.WindowFn):
    """The window function that runs: the API object (``assign``, ``merge``, ``is_merging``)."""
    return kind_of(window_fn).from_ir(window_fn)


def display(window_fn: ir.WindowFn) -> str:
    return kind_of(window_fn).display(window_fn)


def chunk_assigner(window_fn: ir.WindowFn) -> Callable | None:
    """A kind's fast chunk assigner for ``window_fn``, or None."""
    return kind_of(window_fn).assigner(window_fn)
