"""Beam's stateful DoFns (``apache_beam.transforms.userstate``: state, timers, and what is built
on them, ``GroupIntoBatches`` and ``Deduplicate``) as panes' stateful par_do, run by panes' one
implementation of state and timers (``panes.transforms.stateful``).

``BeamStatefulDoFn`` stands for the Beam DoFn in panes: its ``process`` and one callback per
timer declare panes' state and timer parameters (a spec of panes' for each of Beam's, of the
same name and kind), and call the Beam DoFn's methods with what each asks for, converted to
Beam's values: Beam's timestamps and windows, its timers' ``set(timestamp, dynamic_timer_tag)``
and its ordered lists' ``(Timestamp, value)`` pairs. Refused, naming the transform: a stateful
DoFn under merging windows (Beam refuses it too), with side inputs, or asking for what only a
splittable DoFn or a bundle finalizer has.
"""

from __future__ import annotations

import inspect

from apache_beam.transforms import core as beam_core
from apache_beam.transforms import userstate as beam_userstate
from apache_beam.utils.timestamp import Duration as BeamDuration
from apache_beam.utils.timestamp import Timestamp as BeamTimestamp

from panes.errors import PipelineConstructionError
from panes.pvalue import TaggedOutput
from panes.runners.beam.dofns import BEAM_SPECIAL, converter, prepare_process
from panes.runners.beam.values import to_beam_pane, to_beam_window
from panes.timestamp import Timestamp
from panes.transforms import userstate
from panes.transforms.dofn import DoFn
from panes.transforms.timeutil import TimeDomain

_KINDS = (
    (beam_userstate.ReadModifyWriteStateSpec, userstate.ReadModifyWriteStateSpec),
    (beam_userstate.BagStateSpec, userstate.BagStateSpec),
    (beam_userstate.SetStateSpec, userstate.SetStateSpec),
    (beam_userstate.OrderedListStateSpec, userstate.OrderedListStateSpec),
)
# Beam's DoFn parameters that panes gives a stateful DoFn, by the argument of ``process`` or a
# timer callback of ``BeamStatefulDoFn`` they are made from.
_GIVEN = {
    beam_core.DoFn.ElementParam: "element",
    beam_core.DoFn.TimestampParam: "timestamp",
    beam_core.DoFn.WindowParam: "window",
    beam_core.DoFn.PaneInfoParam: "pane",
    beam_core.DoFn.KeyParam: "key",
    beam_core.DoFn.DynamicTimerTagParam: "timer_tag",
}
_PANES_PARAMS = {
    "timestamp": DoFn.TimestampParam,
    "window": DoFn.WindowParam,
    "pane": DoFn.PaneInfoParam,
    "key": DoFn.KeyParam,
    "timer_tag": DoFn.DynamicTimerTagParam,
}


def translate_stateful_pardo(applied, windowing, tags: dict) -> BeamStatefulDoFn:
    """The panes DoFn running ``applied``'s stateful Beam DoFn over input windowed by Beam's
    ``windowing``; refuses what panes cannot run, naming the transform."""
    window_fn = windowing.windowfn
    dofn, label = applied.transform.fn, applied.full_label
    name = type(dofn).__name__
    if window_fn.is_merging():
        raise PipelineConstructionError(
            f"'{label}': {name} keeps state per key and window, and its input's "
            f"{type(window_fn).__name__} windows merge, so no window could keep state of its "
            f"own (Beam refuses it too); window the input without merging, or group first"
        )
    if applied.side_inputs:
        raise PipelineConstructionError(
            f"'{label}': {name} is a stateful DoFn with side inputs, which panes does not "
            f"translate from Beam (docs/beam-runner.md); read the side input in a stateless "
            f"DoFn before it"
        )
    transform = applied.transform
    lateness = BeamDuration.of(windowing.allowed_lateness).micros
    return stateful_dofn(label, dofn, transform.args, transform.kwargs, window_fn, lateness, tags)


def stateful_dofn(label, dofn, args, kwargs, window_fn, lateness, tags) -> BeamStatefulDoFn:
    """A ``BeamStatefulDoFn`` of its own class, whose methods declare the state and timers of
    ``dofn`` (a Beam DoFn) as panes' parameters."""
    states, timer_specs = beam_userstate.get_dofn_specs(dofn)
    beam_states: list = sorted(states, key=_name)
    beam_timers: list = sorted(timer_specs, key=_name)
    callbacks = [spec._attached_callback for spec in beam_timers]
    for method in (dofn.process, *callbacks):
        _refuse_unknown(label, dofn, method)
    timers = [
        userstate.TimerSpec(spec.name[len(spec.prefix) :], _domain(spec)) for spec in beam_timers
    ]
    specs = [*(_state_spec(spec, label) for spec in beam_states), *timers]
    params: dict = {f"spec_{index}": spec for index, spec in enumerate(specs)}
    namespace = {
        "process": _method("process", True, params),
        "params": {spec.name: param for param, spec in params.items()},
    }
    for index, (timer, callback) in enumerate(zip(timers, callbacks, strict=True)):
        name = f"on_timer_{index}"
        namespace[name] = _method(callback.__name__, False, params)
        namespace[name].__name__ = name
        userstate.on_timer(timer)(namespace[name])
    cls = type(f"Beam{type(dofn).__name__}", (BeamStatefulDoFn,), namespace)
    return cls(label, dofn, args, kwargs, window_fn, lateness, tags)


class BeamStatefulDoFn(DoFn):
    """A Beam stateful DoFn in panes (see the module's docstring). ``tags`` maps Beam's output
    tags (None: the main output) to panes'; outputs to other tags are dropped, as Beam's
    DirectRunner drops them. ``window_fn``: the input's Beam window function (a
    ``TimestampedValue`` output gets the windows it assigns). ``params``: the argument of
    its methods that holds each state cell and timer, by Beam's name for it."""

    params: dict = {}

    def __init__(self, label, dofn, args, kwargs, window_fn, lateness: int, tags):
        self.label, self.dofn, self.args, self.kwargs = label, dofn, tuple(args), dict(kwargs)
        self.window_fn, self.lateness, self.tags = window_fn, lateness, tags
        self._convert = converter(window_fn)
        self._methods: dict = {}

    def __reduce__(self):
        return stateful_dofn, (
            self.label,
            self.dofn,
            self.args,
            self.kwargs,
            self.window_fn,
            self.lateness,
            self.tags,
        )

    def default_label(self) -> str:
        return type(self.dofn).__name__

    def setup(self):
        prepare_process()
        self.dofn.setup()

    def start_bundle(self):
        self.dofn.start_bundle()

    def finish_bundle(self):
        return self._outputs(self.dofn.finish_bundle())

    def teardown(self):
        self.dofn.teardown()

    def invoke(self, method_name: str, positional, given: dict):
        """The outputs of the Beam DoFn's ``method_name``, called with ``positional`` and what
        its parameters ask for, made from ``given``."""
        method, asks = self._method(method_name)
        kwargs = dict(self.kwargs) if method_name == "process" else {}
        for name, default in asks:
            if default in _GIVEN:
                kwargs[name] = _beam_value(_GIVEN[default], positional, given)
            elif isinstance(default, beam_core.DoFn.StateParam):
                kwargs[name] = _beam_state(given[self.params[default.state_spec.name]])
            elif isinstance(default, beam_core.DoFn.TimerParam):
                timer = given[self.params[default.timer_spec.name]]
                kwargs[name] = _BeamTimer(timer, given["window"], self.lateness)
        return self._outputs(method(*positional, **kwargs))

    def _method(self, method_name: str) -> tuple:
        """The Beam DoFn's method and the parameters it asks panes for, found once."""
        found = self._methods.get(method_name)
        if found is None:
            method = getattr(self.dofn, method_name)
            found = self._methods[method_name] = (method, tuple(_defaults(method).items()))
        return found

    def _outputs(self, results) -> list:
        if results is None:
            return []
        outputs = []
        for item in results:
            if type(item) in BEAM_SPECIAL:
                item = self._convert(item)
                if isinstance(item, TaggedOutput):
                    if item.tag not in self.tags:
                        continue
                    item = TaggedOutput(self.tags[item.tag], item.value)
            outputs.append(item)
        return outputs


def _method(beam_name: str, is_process: bool, specs: dict):
    """A method of ``BeamStatefulDoFn`` calling the Beam DoFn's ``beam_name`` (``process``, of
    an element, or a timer callback): it asks panes for the timestamp, window, pane, key and
    timer tag, and for every state cell and timer, by name."""

    def method(self, *element, **given):
        return self.invoke(beam_name, (*element, *self.args) if element else (), given)

    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)]
    if is_process:
        parameters.append(inspect.Parameter("element", inspect.Parameter.POSITIONAL_ONLY))
    params: dict = dict(_PANES_PARAMS)
    if not is_process:
        params.pop("pane")
    for name, spec in specs.items():
        params[name] = (
            userstate.TimerParam(spec)
            if isinstance(spec, userstate.TimerSpec)
            else userstate.StateParam(spec)
        )
    parameters += [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default)
        for name, default in params.items()
    ]
    method.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    return method


def _state_spec(spec, label: str) -> userstate.StateSpec:
    """panes' spec of Beam's state ``spec``: its name and kind; a combining cell keeps Beam's
    ``CombineFn``, which it calls as Beam does."""
    if type(spec) is beam_userstate.CombiningValueStateSpec:
        combining = userstate.CombiningValueStateSpec(spec.name, sum)
        combining.combine_fn = spec.combine_fn  # type: ignore[assignment]
        return combining
    for beam_kind, panes_kind in _KINDS:
        if type(spec) is beam_kind:
            return panes_kind(spec.name)
    raise PipelineConstructionError(
        f"'{label}': panes has no state of Beam's kind {type(spec).__name__} ({spec.name!r}); "
        f"it keeps ReadModifyWrite, Bag, Set, CombiningValue and OrderedList state"
    )


def _name(spec) -> str:
    return spec.name


def _domain(spec) -> str:
    if spec.time_domain == beam_userstate.TimeDomain.WATERMARK:
        return TimeDomain.WATERMARK
    return TimeDomain.REAL_TIME


def _defaults(method) -> dict:
    return {
        name: p.default
        for name, p in inspect.signature(method).parameters.items()
        if p.default is not inspect.Parameter.empty
    }


def _refuse_unknown(label: str, dofn, method) -> None:
    """Refuses a Beam DoFn parameter panes does not give a stateful DoFn, naming it."""
    for name, default in _defaults(method).items():
        if isinstance(default, beam_core._DoFnParam) and not (
            default in _GIVEN
            or isinstance(default, (beam_core.DoFn.StateParam, beam_core.DoFn.TimerParam))
        ):
            raise PipelineConstructionError(
                f"'{label}': {type(dofn).__name__}.{method.__name__} asks for {default} "
                f"({name}), which panes does not give a stateful DoFn (docs/beam-runner.md)"
            )


def _beam_value(what: str, positional, given: dict):
    if what == "element":
        return positional[0]
    value = given[what]
    if what == "timestamp":
        return BeamTimestamp(micros=value.micros)
    if what == "window":
        return to_beam_window(value)
    if what == "pane":
        return to_beam_pane(value)
    return value


def _beam_state(state):
    if isinstance(state, userstate.OrderedListRuntimeState):
        return _BeamOrderedList(state)
    return state


class _BeamTimer:
    """A panes timer as Beam's code sets it: times are Beam's ``Timestamp`` or seconds. Beam
    Python lets an event-time timer be set at its window's ``end``, a microsecond past the
    window's expiry when it allows no lateness (its ``GroupIntoBatches`` does); Beam Java
    refuses that, so panes takes it as set at the expiry (docs/beam-runner.md)."""

    def __init__(self, timer: userstate.RuntimeTimer, window, lateness: int):
        self.timer, self.window, self.lateness = timer, window, lateness

    def set(self, timestamp, dynamic_timer_tag: str = "") -> None:
        time = _panes_time(timestamp)
        last = self.window.max_timestamp_micros
        if time.micros == last + 1 and self.lateness == 0 and self._event_time():
            time = Timestamp(micros=last)
        self.timer.set(time, dynamic_timer_tag)

    def _event_time(self) -> bool:
        return TimeDomain.is_event_time(self.timer._spec.time_domain)

    def clear(self, dynamic_timer_tag: str = "") -> None:
        self.timer.clear(dynamic_timer_tag)


class _BeamOrderedList:
    """A panes ordered list as Beam's code reads it: ``(Timestamp, value)`` pairs of Beam's."""

    def __init__(self, state: userstate.OrderedListRuntimeState):
        self.state = state

    def read(self):
        return self._beam(self.state.read())

    def add(self, value) -> None:
        timestamp, item = value
        self.state.add((_panes_time(timestamp), item))

    def read_range(self, min_timestamp, limit_timestamp):
        return self._beam(
            self.state.read_range(_panes_time(min_timestamp), _panes_time(limit_timestamp))
        )

    def clear_range(self, min_timestamp, limit_timestamp) -> None:
        self.state.clear_range(_panes_time(min_timestamp), _panes_time(limit_timestamp))

    def clear(self) -> None:
        self.state.clear()

    @staticmethod
    def _beam(pairs) -> list:
        return [(BeamTimestamp(micros=time.micros), item) for time, item in pairs]


def _panes_time(value) -> Timestamp:
    return Timestamp(micros=BeamTimestamp.of(value).micros)
