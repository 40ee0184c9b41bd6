"""Runs a DoFn over windowed values: parameters, outputs, timestamps, side inputs and errors.

Every runner uses it, so user code sees the same thing everywhere. A stateful DoFn's state,
timers, key and timer tag come from a context its runner gives (``panes.transforms.stateful``).
"""

from __future__ import annotations

from panes.errors import UserCodeError
from panes.pvalue import TaggedOutput
from panes.timestamp import check_timestamps
from panes.transforms.dofn import CallableWrapperDoFn, DoFn
from panes.transforms.userstate import StateParam, TimerParam, parameters
from panes.window import TimestampedValue, WindowedValue, windowed_value

_PARAMS = {
    DoFn.ElementParam: lambda wv, window: wv.value,
    DoFn.TimestampParam: lambda wv, window: wv.timestamp,
    DoFn.WindowParam: lambda wv, window: window,
    DoFn.PaneInfoParam: lambda wv, window: wv.pane_info,
}
# Outputs that are a value as they are (the common case, told apart without isinstance), and
# those that say more: a tag, a timestamp, a window.
_PLAIN = frozenset({tuple, str, int, float, bytes, list, dict})
_SPECIAL = (TaggedOutput, TimestampedValue, WindowedValue)
# What a stateful DoFn's context gives (``context.key``, ``.tag``, ``.state(spec)``,
# ``.timer(spec)``).
_CONTEXT_PARAMS = {
    DoFn.KeyParam: lambda context, default: context.key,
    DoFn.DynamicTimerTagParam: lambda context, default: context.tag,
}


class DoFnRunner:
    """Invokes one DoFn instance; ``side_inputs(window)`` gives the side-input values for a
    window as ``(args, kwargs)`` with the markers replaced."""

    def __init__(
        self,
        label: str,
        dofn: DoFn,
        args,
        kwargs,
        main_tag: str,
        output_tags,
        resolve_side_inputs=None,
    ):
        self.label = label
        self.dofn = dofn
        self.main_tag = main_tag
        self.tags = {main_tag, *output_tags}
        self.args, self.kwargs = tuple(args), dict(kwargs)
        self.resolve_side_inputs = resolve_side_inputs
        target = dofn.fn if isinstance(dofn, CallableWrapperDoFn) else dofn.process
        self.mode = dofn.mode if isinstance(dofn, CallableWrapperDoFn) else "process"
        self.call = target
        # A filter's outputs are its inputs: nothing to convert.
        wrapper = dofn if isinstance(dofn, CallableWrapperDoFn) and dofn.mode != "filter" else None
        self.foreign = wrapper.foreign_outputs if wrapper else frozenset()
        self.convert_output = wrapper.convert_output if wrapper else _as_is
        self.params = _param_slots(target)
        self.context_params = _context_slots(target)
        self._callbacks: dict = {}
        # A stateful DoFn's process that asks for its state, timers and key only.
        self.lean = not self.params and not self.kwargs and resolve_side_inputs is None
        self.per_window = (
            DoFn.WindowParam in self.params.values()
            or resolve_side_inputs is not None
            or bool(self.context_params)
        )
        # Without parameters or side inputs (the common case) runners can call it lean.
        self.plain = not self.params and not self.context_params and resolve_side_inputs is None
        self.plain_map = self.plain and self.mode == "map"
        # A DoFn's process that asks for nothing but the element is a FlatMap of it.
        self.plain_flat_map = self.plain and self.mode in ("flat_map", "process")
        if self.plain_map:
            self.process = self._process_map  # type: ignore[method-assign]

    @classmethod
    def of_payload(cls, label: str, payload: dict, resolve_side_inputs=None) -> DoFnRunner:
        """The runner of a par_do node's lifted payload."""
        return cls(
            label,
            payload["fn"],
            payload["args"],
            payload["kwargs"],
            payload["main_tag"],
            payload["output_tags"],
            resolve_side_inputs,
        )

    # -- lifecycle, in the order runners call it --

    def setup(self) -> None:
        self._guard(self.dofn.setup, None)

    def start_bundle(self) -> None:
        self._guard(self.dofn.start_bundle, None)

    def process(self, wv: WindowedValue) -> list:
        """The ``(tag, WindowedValue)`` outputs of one input element (in every window of it
        where the DoFn asks for its window)."""
        if self.per_window and len(wv.windows) > 1:
            outputs = []
            for window in wv.windows:
                outputs.extend(
                    self._process_in(
                        windowed_value((wv.value, wv.timestamp_micros, (window,), wv.pane_info)),
                        window,
                    )
                )
            return outputs
        return self._process_in(wv, wv.windows[0] if wv.windows else None)

    def _process_map(self, wv: WindowedValue) -> list:
        """``process`` of a Map without parameters or side inputs: the common case, kept lean."""
        try:
            item = self.call(wv.value, *self.args, **self.kwargs)
        except UserCodeError:
            raise
        except Exception as error:
            raise UserCodeError(self.label, wv.value, error) from error
        if type(item) in self.foreign:
            item = self.convert_output(item)
        if isinstance(item, (TaggedOutput, TimestampedValue, WindowedValue)):
            return [self._output(item, wv)]
        return [(self.main_tag, wv.with_value(item))]

    def finish_bundle(self) -> list:
        results = self._guard(self.dofn.finish_bundle, None) or ()
        outputs = []
        for result in results:
            tag, value = (
                (result.tag, result.value)
                if isinstance(result, TaggedOutput)
                else (self.main_tag, result)
            )
            if not isinstance(value, WindowedValue):
                raise UserCodeError(
                    self.label,
                    None,
                    TypeError(
                        "finish_bundle must yield WindowedValue (it has no element to take a "
                        f"window and timestamp from), got {value!r}"
                    ),
                )
            outputs.append((self._check_tag(tag, None), value))
        return outputs

    def teardown(self) -> None:
        self._guard(self.dofn.teardown, None)

    def process_in(self, key, records, window, context) -> list:
        """The outputs of a stateful DoFn's ``process`` for the ``(key, value)`` element of
        each ``(position, value, timestamp, windows, pane)`` record in ``window`` (each
        record's ``windows`` that window alone), its state and timers from ``context``; lean
        when ``process`` asks for nothing else."""
        outputs: list = []
        if not self.lean:
            for _, value, timestamp, windows, pane in records:
                context.input_timestamp = timestamp
                wv = windowed_value(((key, value), timestamp, windows, pane))
                outputs += self._process_in(wv, window, context)
            return outputs
        bound = context.arguments.get(id(self.context_params))
        if bound is None:
            bound = _context_kwargs(self.context_params, context, self.label)
        call, args, main, append = self.call, self.args, self.main_tag, outputs.append
        element = None
        try:
            for _, value, timestamp, windows, pane in records:
                context.input_timestamp = timestamp
                element = (key, value)
                result = call(element, *args, **bound)
                if result is None:
                    continue
                for item in result:
                    if type(item) in _PLAIN or not isinstance(item, _SPECIAL):
                        append((main, windowed_value((item, timestamp, windows, pane))))
                    else:
                        wv = windowed_value((element, timestamp, windows, pane))
                        append(self._output(item, wv))
        except UserCodeError:
            raise
        except Exception as error:
            raise UserCodeError(self.label, element, error) from error
        return outputs

    def on_timer(self, method_name: str, wv: WindowedValue, window, context) -> list:
        """The outputs of the timer callback ``method_name``: ``wv`` stands for the timer, its
        timestamp the timer's output timestamp (also its outputs' default)."""
        callback, params, context_params = self._callback(method_name)
        kwargs = {name: _PARAMS[param](wv, window) for name, param in params.items()}
        kwargs.update(_context_kwargs(context_params, context, self.label))
        try:
            result = callback(**kwargs)
            results = () if result is None else list(result)
        except UserCodeError:
            raise
        except Exception as error:
            raise UserCodeError(self.label, None, error) from error
        return [self._output(item, wv) for item in results]

    # -- internals --

    def _callback(self, method_name: str) -> tuple:
        """A timer callback, its element parameters and its context parameters, found once."""
        found = self._callbacks.get(method_name)
        if found is None:
            callback = getattr(self.dofn, method_name)
            found = self._callbacks[method_name] = (
                callback,
                _param_slots(callback),
                _context_slots(callback),
            )
        return found

    def _process_in(self, wv, window, context=None):
        args, kwargs = self.args, self.kwargs
        if self.resolve_side_inputs is not None:
            args, kwargs = self.resolve_side_inputs(window, args, kwargs)
        if self.params:
            kwargs = {
                **kwargs,
                **{name: _PARAMS[param](wv, window) for name, param in self.params.items()},
            }
        if self.context_params:
            kwargs = {**kwargs, **_context_kwargs(self.context_params, context, self.label)}
        try:
            result = self.call(wv.value, *args, **kwargs)
            if self.mode == "map":
                results = (result,)
            elif self.mode == "filter":
                results = (wv.value,) if result else ()
            else:
                results = () if result is None else list(result)
        except UserCodeError:
            raise
        except Exception as error:
            raise UserCodeError(self.label, wv.value, error) from error
        return [self._output(item, wv) for item in self.converted(results)]

    def converted(self, items):
        """``items`` with the DoFn's foreign outputs (another SDK's) made panes' own."""
        if not self.foreign or self.foreign.isdisjoint(map(type, items)):
            return items
        convert, foreign = self.convert_output, self.foreign
        return [convert(item) if type(item) in foreign else item for item in items]

    def _output(self, item, wv):
        tag = self.main_tag
        if isinstance(item, TaggedOutput):
            tag, item = item.tag, item.value
        tag = self._check_tag(tag, wv.value)
        if isinstance(item, (TimestampedValue, WindowedValue)):
            check_timestamps(self.label, (item.timestamp_micros,), (wv.value,))
            if isinstance(item, WindowedValue):
                return tag, item
            return tag, windowed_value(
                (item.value, item.timestamp_micros, wv.windows, wv.pane_info)
            )
        return tag, wv.with_value(item)

    def _check_tag(self, tag, element):
        if tag not in self.tags:
            raise UserCodeError(
                self.label,
                element,
                ValueError(
                    f"output tag {tag!r} was not declared; declare it with "
                    f".with_outputs({tag!r}) (declared: {sorted(self.tags)})"
                ),
            )
        return tag

    def _guard(self, hook, element):
        try:
            return hook()
        except Exception as error:
            raise UserCodeError(self.label, element, error) from error


def _as_is(item):
    return item


def _param_slots(fn) -> dict:
    """Parameters of ``fn`` whose default asks for the timestamp, window, pane or element."""
    return {
        name: default
        for name, default in parameters(fn).items()
        if any(default is param for param in _PARAMS)
    }


def _context_slots(fn) -> dict:
    """Parameters of ``fn`` whose default asks for a stateful DoFn's key, timer tag, state or
    timers."""
    return {
        name: default
        for name, default in parameters(fn).items()
        if isinstance(default, (StateParam, TimerParam))
        or any(default is param for param in _CONTEXT_PARAMS)
    }


def _context_kwargs(slots: dict, context, label: str) -> dict:
    """The arguments of a stateful DoFn's method from its ``context``: its state and timer
    objects are the same for every call in one context, so they are bound once."""
    if context is None:
        raise UserCodeError(
            label,
            None,
            TypeError(
                "DoFn.KeyParam, StateParam, TimerParam and DynamicTimerTagParam are given to "
                "stateful DoFns only, whose input is keyed"
            ),
        )
    bound = context.arguments.get(id(slots))
    if bound is None:
        bound = context.arguments[id(slots)] = {}
        for name, default in slots.items():
            if isinstance(default, StateParam):
                bound[name] = context.state(default.spec)
            elif isinstance(default, TimerParam):
                bound[name] = context.timer(default.spec)
            else:
                bound[name] = _CONTEXT_PARAMS[default](context, default)
    return bound
