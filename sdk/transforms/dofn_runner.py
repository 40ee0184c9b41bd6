"""Runs a DoFn over windowed values: parameters, outputs, timestamps, side inputs and errors.

Both runners use it, so user code sees the same thing everywhere.
"""

from __future__ import annotations

import inspect

from panes.errors import UserCodeError
from panes.pvalue import TaggedOutput
from panes.timestamp import check_timestamps
from panes.transforms.dofn import CallableWrapperDoFn, DoFn
from panes.window import TimestampedValue, WindowedValue, windowed_value

_PARAMS = {
    DoFn.ElementParam: lambda wv, window: wv.value,
    DoFn.TimestampParam: lambda wv, window: wv.timestamp,
    DoFn.WindowParam: lambda wv, window: window,
    DoFn.PaneInfoParam: lambda wv, window: wv.pane_info,
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
        self.params = _param_slots(target)
        self.per_window = (
            DoFn.WindowParam in self.params.values() or resolve_side_inputs is not None
        )
        # Without parameters or side inputs (the common case) runners can call it lean.
        self.plain = not self.params and resolve_side_inputs is None
        self.plain_map = self.plain and self.mode == "map"
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
        """The ``(tag, WindowedValue)`` outputs of one input element."""
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

    # -- internals --

    def _process_in(self, wv, window):
        args, kwargs = self.args, self.kwargs
        if self.resolve_side_inputs is not None:
            args, kwargs = self.resolve_side_inputs(window, args, kwargs)
        if self.params:
            kwargs = {
                **kwargs,
                **{name: _PARAMS[param](wv, window) for name, param in self.params.items()},
            }
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
        return [self._output(item, wv) for item in results]

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


def _param_slots(fn) -> dict:
    """Parameters of ``fn`` whose default asks for the timestamp, window, pane or element."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return {}
    return {
        name: p.default
        for name, p in signature.parameters.items()
        if any(p.default is param for param in _PARAMS)
    }
