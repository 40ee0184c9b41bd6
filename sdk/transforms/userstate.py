"""User state and timers of a DoFn (Beam's ``apache_beam.transforms.userstate``).

A stateful DoFn declares state cells (``BagStateSpec('buffer')``, ...) and timers
(``TimerSpec('flush', TimeDomain.WATERMARK)``) as class attributes, asks for them by default
value (``buffer=DoFn.StateParam(BUFFER)``, ``flush=DoFn.TimerParam(FLUSH)``), and names each
timer's callback with ``@on_timer(FLUSH)``. Its input must be ``(key, value)`` pairs: state and
timers are kept per key and window. The runtime objects below are what the DoFn is given; the
rules of when timers fire and state goes are ``panes.transforms.stateful``'s.
"""

from __future__ import annotations

import bisect
import inspect
from collections.abc import Callable, Iterable
from typing import Any

from panes.timestamp import MAX_MICROS, MIN_MICROS, Timestamp, to_micros
from panes.transforms.combinefn import CombineFn
from panes.transforms.timeutil import TimeDomain

__all__ = [
    "StateSpec",
    "ReadModifyWriteStateSpec",
    "BagStateSpec",
    "SetStateSpec",
    "CombiningValueStateSpec",
    "OrderedListStateSpec",
    "TimerSpec",
    "on_timer",
    "get_dofn_specs",
    "is_stateful_dofn",
    "validate_stateful_dofn",
    "RuntimeState",
    "ReadModifyWriteRuntimeState",
    "BagRuntimeState",
    "SetRuntimeState",
    "CombiningValueRuntimeState",
    "OrderedListRuntimeState",
    "RuntimeTimer",
]


class StateSpec:
    """A named state cell of a stateful DoFn. ``coder`` is accepted as in Beam; panes keeps
    state as Python values and pickles it where it must."""

    kind = ""

    def __init__(self, name: str, coder=None):
        if not isinstance(name, str) or not name:
            raise ValueError(f"{type(self).__name__} needs a non-empty name, got {name!r}")
        self.name = name
        self.coder = coder

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name})"


class ReadModifyWriteStateSpec(StateSpec):
    """One value: ``read()``, ``write(value)``, ``clear()``."""

    kind = "read_modify_write"


class BagStateSpec(StateSpec):
    """Values in the order added: ``read()``, ``add(value)``, ``clear()``."""

    kind = "bag"


class SetStateSpec(StateSpec):
    """Distinct values, in the order first added: ``read()``, ``add(value)``, ``clear()``."""

    kind = "set"


class CombiningValueStateSpec(StateSpec):
    """A value combined from what is added: ``read()`` is ``combine_fn``'s output,
    ``add(value)``, ``clear()``. As in Beam, ``CombiningValueStateSpec(name, combine_fn)`` or
    ``CombiningValueStateSpec(name, coder, combine_fn)``."""

    kind = "combining"

    def __init__(self, name: str, coder=None, combine_fn=None):
        if combine_fn is None:
            if coder is None:
                raise ValueError(f"CombiningValueStateSpec({name!r}) needs a combine_fn")
            coder, combine_fn = None, coder
        super().__init__(name, coder)
        self.combine_fn = CombineFn.maybe_from_callable(combine_fn)


class OrderedListStateSpec(StateSpec):
    """``(timestamp, value)`` pairs kept in timestamp order: ``read()``, ``add((timestamp,
    value))``, ``read_range(min, limit)``, ``clear_range(min, limit)``, ``clear()``."""

    kind = "ordered_list"


class TimerSpec:
    """A named timer of a stateful DoFn in ``time_domain``; ``@on_timer(spec)`` names its
    callback. Its name gets Beam's ``ts-`` prefix."""

    prefix = "ts-"

    def __init__(self, name: str, time_domain: str):
        if time_domain not in (TimeDomain.WATERMARK, TimeDomain.REAL_TIME):
            raise ValueError(
                f"TimerSpec({name!r}): unsupported time domain {time_domain!r}; use "
                f"TimeDomain.WATERMARK or TimeDomain.REAL_TIME"
            )
        self.name = self.prefix + name
        self.time_domain = time_domain
        self._attached_callback: Callable | None = None

    def __repr__(self) -> str:
        return f"TimerSpec({self.name})"


def on_timer(timer_spec: TimerSpec) -> Callable:
    """Marks a DoFn method as the callback of ``timer_spec``'s timer."""
    if not isinstance(timer_spec, TimerSpec):
        raise ValueError(f"@on_timer expects a TimerSpec, got {timer_spec!r}")

    def attach(method: Callable) -> Callable:
        if not callable(method):
            raise ValueError(f"@on_timer({timer_spec.name}) decorates a method, got {method!r}")
        if timer_spec._attached_callback is not None:
            raise ValueError(f"{timer_spec!r} has two @on_timer callbacks")
        timer_spec._attached_callback = method
        return method

    return attach


class StateParam:
    """``DoFn.StateParam(spec)``: asks for the state cell of ``spec`` (a ``userstate``
    StateSpec) of the element's key and window."""

    def __init__(self, spec):
        if not isinstance(spec, StateSpec):
            raise ValueError(f"DoFn.StateParam expects a StateSpec, got {spec!r}")
        self.spec = spec

    def __repr__(self) -> str:
        return f"DoFn.StateParam({self.spec.name})"


class TimerParam:
    """``DoFn.TimerParam(spec)``: asks for the timer of ``spec`` (a ``userstate.TimerSpec``)
    of the element's key and window."""

    def __init__(self, spec):
        if not isinstance(spec, TimerSpec):
            raise ValueError(f"DoFn.TimerParam expects a TimerSpec, got {spec!r}")
        self.spec = spec

    def __repr__(self) -> str:
        return f"DoFn.TimerParam({self.spec.name})"


def parameters(fn) -> dict:
    """The default values of ``fn``'s parameters, by name (none when it has no signature)."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return {}
    return {
        name: p.default
        for name, p in signature.parameters.items()
        if p.default is not inspect.Parameter.empty
    }


def _methods(dofn) -> Iterable:
    for name in dir(type(dofn)):
        method = getattr(type(dofn), name, None)
        if callable(method) and not name.startswith("__"):
            yield name, method


def get_dofn_specs(dofn) -> tuple[set, set]:
    """The state and timer specs a DoFn's methods ask for by default value."""
    states, timers = set(), set()
    for _, method in _methods(dofn):
        for default in parameters(method).values():
            if isinstance(default, StateParam):
                states.add(default.spec)
            elif isinstance(default, TimerParam):
                timers.add(default.spec)
    return states, timers


def is_stateful_dofn(dofn) -> bool:
    """Whether a DoFn uses state or timers."""
    states, timers = get_dofn_specs(dofn)
    return bool(states or timers)


def validate_stateful_dofn(dofn) -> None:
    """Refuses two specs of one name and a timer without its callback, as Beam does."""
    states, timers = get_dofn_specs(dofn)
    for kind, specs in (("StateSpecs", states), ("TimerSpecs", timers)):
        names = [spec.name for spec in specs]
        if len(names) != len(set(names)):
            raise ValueError(f"DoFn {dofn!r} has several {kind} of one name: {sorted(names)}")
    for spec in timers:
        callback = spec._attached_callback
        if callback is None:
            raise ValueError(
                f"DoFn {type(dofn).__name__} has {spec!r} without a callback: decorate the "
                f"method that handles it with @on_timer"
            )
        if getattr(type(dofn), callback.__name__, None) is not callback:
            raise ValueError(
                f"the @on_timer callback of {spec!r} is not {type(dofn).__name__}."
                f"{callback.__name__} (was it overwritten?)"
            )


# -- what a DoFn is given ------------------------------------------------------------------------


class RuntimeState:
    """One state cell of one key and window: its value lives in ``cells[name]``, plain data
    the runner keeps."""

    def __init__(self, cells: dict, spec: StateSpec):
        self._cells, self._name, self._spec = cells, spec.name, spec

    def clear(self) -> None:
        self._cells.pop(self._name, None)


class ReadModifyWriteRuntimeState(RuntimeState):
    def read(self) -> Any:
        return self._cells.get(self._name)

    def write(self, value) -> None:
        self._cells[self._name] = value


class BagRuntimeState(RuntimeState):
    def read(self) -> list:
        return list(self._cells.get(self._name, ()))

    def add(self, value) -> None:
        self._cells.setdefault(self._name, []).append(value)


class SetRuntimeState(RuntimeState):
    def read(self):
        """The values, in the order first added: a live view, as a dict's keys are (add
        nothing while iterating over it)."""
        return self._cells.get(self._name, _NOTHING).keys()

    def add(self, value) -> None:
        self._cells.setdefault(self._name, {})[value] = None


class CombiningValueRuntimeState(RuntimeState):
    def read(self) -> Any:
        combine_fn = self._spec.combine_fn  # type: ignore[attr-defined]
        accumulator = self._cells.get(self._name)
        if accumulator is None:
            accumulator = combine_fn.create_accumulator()
        return combine_fn.extract_output(accumulator)

    def add(self, value) -> None:
        combine_fn = self._spec.combine_fn  # type: ignore[attr-defined]
        accumulator = self._cells.get(self._name)
        if accumulator is None:
            accumulator = combine_fn.create_accumulator()
        self._cells[self._name] = combine_fn.add_input(accumulator, value)


class OrderedListRuntimeState(RuntimeState):
    """Kept as ``(micros, value)`` pairs sorted by time; equal times keep the order added."""

    def read(self) -> list:
        return self.read_range(MIN_MICROS, MAX_MICROS)

    def add(self, value) -> None:
        timestamp, item = value
        entries = self._cells.setdefault(self._name, [])
        micros = to_micros(timestamp)
        entries.insert(bisect.bisect_right(entries, micros, key=_time), (micros, item))

    def read_range(self, min_timestamp, limit_timestamp) -> list:
        """The pairs with ``min_timestamp <= timestamp < limit_timestamp``."""
        entries = self._cells.get(self._name, [])
        low, high = self._bounds(entries, min_timestamp, limit_timestamp)
        return [(Timestamp(micros=micros), item) for micros, item in entries[low:high]]

    def clear_range(self, min_timestamp, limit_timestamp) -> None:
        entries = self._cells.get(self._name, [])
        low, high = self._bounds(entries, min_timestamp, limit_timestamp)
        del entries[low:high]

    @staticmethod
    def _bounds(entries: list, min_timestamp, limit_timestamp) -> tuple:
        low = bisect.bisect_left(entries, to_micros(min_timestamp), key=_time)
        return low, bisect.bisect_left(entries, to_micros(limit_timestamp), key=_time)


def _time(entry) -> int:
    return entry[0]


_NOTHING: dict = {}

RUNTIME_STATES = {
    ReadModifyWriteStateSpec.kind: ReadModifyWriteRuntimeState,
    BagStateSpec.kind: BagRuntimeState,
    SetStateSpec.kind: SetRuntimeState,
    CombiningValueStateSpec.kind: CombiningValueRuntimeState,
    OrderedListStateSpec.kind: OrderedListRuntimeState,
}


class RuntimeTimer:
    """A timer of one key and window: ``set(timestamp)`` (again: moves it), ``clear()``; each
    ``dynamic_timer_tag`` is a timer of its own. ``output_timestamp`` (panes; Beam Java's
    ``withOutputTimestamp``) is when what its callback outputs is stamped, and holds the
    output watermark until it fires. ``now()`` (panes; Beam Java's
    ``getCurrentRelativeTime``) is the current time of the timer's domain."""

    def __init__(self, timers, spec: TimerSpec):
        self._timers, self._spec = timers, spec

    def set(self, timestamp, dynamic_timer_tag: str = "", output_timestamp=None) -> None:
        self._timers.set(
            self._spec,
            dynamic_timer_tag,
            to_micros(timestamp),
            None if output_timestamp is None else to_micros(output_timestamp),
        )

    def clear(self, dynamic_timer_tag: str = "") -> None:
        self._timers.clear(self._spec, dynamic_timer_tag)

    def now(self) -> Timestamp:
        return Timestamp(micros=self._timers.now(self._spec))
