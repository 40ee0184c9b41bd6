"""The primitive transforms and the core composites built directly on them."""

from __future__ import annotations

from dataclasses import dataclass, field

from panes.errors import PipelineConstructionError
from panes.evictor import Evictor
from panes.ir import userstate as ir_userstate
from panes.ir.data import Pickled
from panes.ir.windowing import EARLIEST_TRANSFORMED
from panes.pvalue import AsSideInput, DoOutputsTuple, PBegin, PCollection
from panes.timestamp import Duration
from panes.transforms import userstate
from panes.transforms.combinefn import CombineFn
from panes.transforms.dofn import CallableWrapperDoFn, DoFn, _Param
from panes.transforms.ptransform import (
    PrimitiveTransform,
    PTransform,
    SourceTransform,
    require_pcollection,
)
from panes.transforms.timeutil import TimeDomain
from panes.trigger import AccumulationMode, DefaultTrigger, Trigger
from panes.window import GlobalWindows, TimestampCombiner, TimestampedValue, WindowFn
from panes.windowing import validate_strategy, window_fn_kinds
from panes.windowing.strategy import downstream_windowing, windowing_to_ir


def _label_of(transform) -> str:
    pipeline_label = transform.label or transform.default_label()
    return pipeline_label


# -- sources ------------------------------------------------------------------------------------


class Create(SourceTransform):
    """A bounded collection of the given values (``TimestampedValue`` sets an element's time)."""

    ir_kind = "create"

    def __init__(self, values, label=None):
        super().__init__(label)
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            raise PipelineConstructionError(
                f"Create takes an iterable of values, got {type(values).__name__} {values!r}; "
                f"for a single value write Create([value])"
            )
        self.values = list(values.items()) if isinstance(values, dict) else list(values)

    def expand(self, pbegin):
        if not isinstance(pbegin, PBegin):
            raise PipelineConstructionError(
                f"Create '{_label_of(self)}' starts a pipeline: apply it to the pipeline "
                f"(p | Create(...)), not to a PCollection"
            )
        plain = [v.value if isinstance(v, TimestampedValue) else v for v in self.values]
        if not plain:  # no element says what the elements are (Beam types Create([]) as Any)
            kind = "unknown"
        elif all(isinstance(v, tuple) and len(v) == 2 for v in plain):
            kind = "kv"
        else:
            kind = "not_kv"
        return pbegin.pipeline.new_output(windowing=Windowing(), element_kind=kind)

    def ir_payload(self):
        return {"values": Pickled.of(self.values), **self.source_timing()}

    def infer_output_type(self, input_type):
        from panes.typehints.typehints import instance_to_type, union_of

        return union_of(
            instance_to_type(v.value if isinstance(v, TimestampedValue) else v) for v in self.values
        )


# -- ParDo and its function-based forms ---------------------------------------------------------


class ParDo(PrimitiveTransform):
    """Runs a DoFn on every element; ``.with_outputs('a', 'b', main='m')`` for tagged outputs."""

    ir_kind = "par_do"

    def __init__(self, fn, *args, **kwargs):
        super().__init__(kwargs.pop("label", None))
        if isinstance(fn, type) and issubclass(fn, DoFn):
            raise PipelineConstructionError(
                f"ParDo needs a DoFn instance, got the class {fn.__name__}: "
                f"write ParDo({fn.__name__}())"
            )
        if not isinstance(fn, DoFn):
            raise PipelineConstructionError(
                f"ParDo needs a DoFn instance, got {type(fn).__name__}; for a plain function "
                f"use Map, FlatMap or Filter"
            )
        self.fn = fn
        self.args = args
        self.kwargs = kwargs
        self.output_tags: tuple = ()
        self.main_tag = "main"
        self.stateful = not isinstance(fn, CallableWrapperDoFn) and userstate.is_stateful_dofn(fn)
        if self.stateful:
            try:
                userstate.validate_stateful_dofn(fn)
            except ValueError as error:
                raise PipelineConstructionError(f"{self.default_label()}: {error}") from None
        self.main_unpacked = True  # unpacking the outputs gives the main one first

    def default_label(self) -> str:
        return f"ParDo({self.fn.default_label()})"

    def with_outputs(self, *tags, main=None):
        """Declares tagged outputs; the result unpacks, as Beam's, into the main output when
        ``main`` names it, then the tagged ones (``small, large = ...with_outputs('large',
        main='small')``; ``odd, even = ...with_outputs('odd', 'even')``)."""
        main_tag = "main" if main is None else main
        for tag in tags:
            if not isinstance(tag, str) or tag == main_tag:
                raise PipelineConstructionError(
                    f"{self.default_label()}.with_outputs: tags must be distinct strings other "
                    f"than the main tag {main_tag!r}, got {tag!r}"
                )
        transform = _copy(self)
        transform.output_tags = tuple(tags)
        transform.main_tag = main_tag
        transform.main_unpacked = main is not None
        return transform

    def side_inputs(self) -> list:
        return [a for a in (*self.args, *self.kwargs.values()) if isinstance(a, AsSideInput)]

    def input_type_hint(self):
        from panes.typehints.decorators import declared_hints

        if self._input_type_hint is not None:
            return self._input_type_hint
        return declared_hints(self.fn.fn if isinstance(self.fn, CallableWrapperDoFn) else self.fn)[
            0
        ]

    def infer_output_type(self, input_type):
        from panes.typehints.decorators import declared_hints
        from panes.typehints.typehints import iterable_element_type

        if not isinstance(self.fn, CallableWrapperDoFn):
            return declared_hints(self.fn)[1]
        if self.fn.mode == "filter":
            return input_type
        output = declared_hints(self.fn.fn)[1]
        if output is None or self.fn.mode == "map":
            return output
        return iterable_element_type(output)

    def expand(self, pcoll):
        pcoll = require_pcollection(self, pcoll, _label_of(self))
        pipeline = pcoll.pipeline
        if self.stateful:
            _check_stateful_input(self, pcoll)
        for side in self.side_inputs():
            if side.pvalue.pipeline is not pipeline:
                raise PipelineConstructionError(
                    f"{self.default_label()}: side input {side.pvalue} belongs to another pipeline"
                )
        main = pipeline.new_output(self.main_tag, pcoll.windowing)
        if not self.output_tags:
            return main
        outputs = {self.main_tag: main}
        for tag in self.output_tags:
            outputs[tag] = pipeline.new_output(tag, pcoll.windowing)
        return DoOutputsTuple(outputs, self.main_tag, self.main_unpacked)

    def ir_payload(self):
        """The node's payload; the compiler lowers ``fn``, and ``args`` and ``kwargs`` once it
        has taken the side inputs out of them."""
        return {
            "fn": self.fn,
            "args": self.args,
            "kwargs": self.kwargs,
            "main_tag": self.main_tag,
            "output_tags": self.output_tags,
            **stateful_payload(self.fn),
        }


def stateful_payload(dofn) -> dict:
    """A DoFn's state cells and timers as IR data (none for a stateless DoFn)."""
    stateful = isinstance(dofn, DoFn) and not isinstance(dofn, CallableWrapperDoFn)
    states, timers = userstate.get_dofn_specs(dofn) if stateful else ((), ())
    return {
        "state_specs": tuple(
            ir_userstate.StateSpec(spec.name, spec.kind)
            for spec in sorted(states, key=lambda spec: spec.name)
        ),
        "timer_specs": tuple(
            ir_userstate.TimerSpec(
                spec.name,
                ir_userstate.EVENT_TIME
                if spec.time_domain == TimeDomain.WATERMARK
                else ir_userstate.PROCESSING_TIME,
                spec._attached_callback.__name__,
            )
            for spec in sorted(timers, key=lambda spec: spec.name)
        ),
    }


def _check_stateful_input(transform, pcoll) -> None:
    """A stateful DoFn keeps state per key and window: its input must be keyed, and windowed
    by a window function that does not merge (Beam's rules)."""
    label = f"ParDo '{_label_of(transform)}' has a stateful DoFn"
    if pcoll.element_kind == "not_kv":
        raise PipelineConstructionError(
            f"{label}, which keeps state per key: its input {pcoll} must hold (key, value) "
            f"pairs; key it first, e.g. | WithKeys(fn) or | Map(lambda x: (key(x), x))"
        )
    window_fn = pcoll.windowing.window_fn
    if window_fn.is_merging():
        raise PipelineConstructionError(
            f"{label} under {type(window_fn).__name__}, whose windows merge, so no window could "
            f"keep state of its own (Beam refuses it too); window its input without merging, "
            f"e.g. FixedWindows, or group first"
        )


def _copy(transform):
    import copy

    return copy.copy(transform)


def _callable_pardo(name, fn, mode, args, kwargs, wrapped=None):
    """A ParDo of ``fn`` labelled ``name(<fn's label>)``; ``wrapped`` runs in its place (the
    tuple-unpacking forms)."""
    if not callable(fn):
        raise PipelineConstructionError(f"{name} needs a callable, got {type(fn).__name__} {fn!r}")
    from panes.transforms.ptransform import label_from_callable

    dofn = CallableWrapperDoFn(wrapped or fn, mode, label_from_callable(fn))
    pardo = ParDo(dofn, *args, **kwargs)
    pardo.kind_name = name
    return pardo


class _CallableParDo(ParDo):
    kind_name: str

    def default_label(self) -> str:
        return f"{self.kind_name}({self.fn.default_label()})"


def Map(fn, *args, **kwargs):  # noqa: N802 - Beam's name
    """One output per element: ``fn(element, *args)``."""
    return _as_callable(_callable_pardo("Map", fn, "map", args, kwargs))


def identity(element):
    """FlatMap's default function: the element (an iterable) itself."""
    return element


def FlatMap(fn=identity, *args, **kwargs):  # noqa: N802
    """Zero or more outputs per element: every item of ``fn(element, *args)``."""
    return _as_callable(_callable_pardo("FlatMap", fn, "flat_map", args, kwargs))


def Filter(fn, *args, **kwargs):  # noqa: N802
    """The elements for which ``fn(element, *args)`` is true."""
    return _as_callable(_callable_pardo("Filter", fn, "filter", args, kwargs))


def MapTuple(fn, *args, **kwargs):  # noqa: N802
    """``Map`` with the element's tuple unpacked into arguments."""
    return _as_callable(_callable_pardo("MapTuple", fn, "map", args, kwargs, _unpacking(fn)))


def FlatMapTuple(fn, *args, **kwargs):  # noqa: N802
    """``FlatMap`` with the element's tuple unpacked into arguments."""
    return _as_callable(
        _callable_pardo("FlatMapTuple", fn, "flat_map", args, kwargs, _unpacking(fn))
    )


def _unpacking(fn):
    """``fn`` called with an element's tuple as its first arguments; the parameters it asks
    the runner for (``DoFn.WindowParam``, ...) stay in the signature the runner reads."""
    import inspect

    def unpacked(element, *args, **kwargs):
        return fn(*element, *args, **kwargs)

    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        parameters = []
    asked = [p for p in parameters if isinstance(p.default, _Param)]
    kind = inspect.Parameter
    unpacked.__signature__ = inspect.Signature(
        [
            kind("element", kind.POSITIONAL_ONLY),
            kind("args", kind.VAR_POSITIONAL),
            *(p.replace(kind=kind.KEYWORD_ONLY) for p in asked),
        ]
    )
    return unpacked


def _as_callable(pardo):
    pardo.__class__ = _CallableParDo
    return pardo


# -- windowing ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Windowing:
    """How a PCollection is windowed (Beam's ``Windowing``, its arguments in Beam's order):
    window function, trigger, accumulation mode, timestamp combiner, allowed lateness and
    (Flink) evictor. It lowers to the IR's ``WindowingStrategy`` when the pipeline is
    compiled."""

    window_fn: WindowFn = field(default_factory=GlobalWindows)
    trigger: Trigger = field(default_factory=DefaultTrigger)
    accumulation_mode: AccumulationMode = AccumulationMode.DISCARDING
    timestamp_combiner: TimestampCombiner = TimestampCombiner.OUTPUT_AT_EOW
    allowed_lateness: Duration = Duration(0)
    evictor: Evictor | None = None

    def __post_init__(self):
        object.__setattr__(self, "allowed_lateness", Duration.of(self.allowed_lateness))
        if self.timestamp_combiner is EARLIEST_TRANSFORMED:
            raise ValueError(
                f"{EARLIEST_TRANSFORMED} (Beam Python's deprecated output time from "
                f"WindowFn.get_transformed_output_time) is not supported; use OUTPUT_AT_EARLIEST"
            )

    def is_default(self) -> bool:
        return self == Windowing()


class WindowInto(PrimitiveTransform):
    """Assigns elements to windows and sets how groupings downstream fire (trigger etc.)."""

    ir_kind = "assign_windows"

    def __init__(
        self,
        windowfn,
        trigger=None,
        accumulation_mode=None,
        timestamp_combiner=None,
        allowed_lateness=0,
        evictor=None,
        allow_unsafe_triggers=False,
        label=None,
    ):
        super().__init__(label)
        if isinstance(windowfn, type):
            raise PipelineConstructionError(
                f"WindowInto needs a window function instance, got the class {windowfn.__name__}: "
                f"write WindowInto({windowfn.__name__}(...))"
            )
        if not isinstance(windowfn, WindowFn):
            raise PipelineConstructionError(
                f"WindowInto needs a WindowFn such as FixedWindows(60), got {windowfn!r}"
            )
        self.windowing = _windowing(
            windowfn, trigger, accumulation_mode, timestamp_combiner, allowed_lateness, evictor
        )
        self.allow_unsafe_triggers = allow_unsafe_triggers

    def default_label(self) -> str:
        return f"WindowInto({type(self.windowing.window_fn).__name__})"

    def expand(self, pcoll):
        """Checks the strategy as Beam's GroupByKey does (a trigger that may finish and lose data
        needs ``allow_unsafe_triggers`` here or as a pipeline option), when it is applied."""
        pcoll = require_pcollection(self, pcoll, _label_of(self))
        allow_unsafe = self.allow_unsafe_triggers or pcoll.pipeline.options.allow_unsafe_triggers
        try:
            validate_strategy(windowing_to_ir(self.windowing), _label_of(self), bool(allow_unsafe))
        except ValueError as error:
            raise PipelineConstructionError(str(error)) from None
        return pcoll.pipeline.new_output(windowing=self.windowing, element_kind=pcoll.element_kind)

    def ir_payload(self):
        return {
            "window_fn": window_fn_kinds.to_ir(self.windowing.window_fn),
            "allow_unsafe_triggers": self.allow_unsafe_triggers,
        }

    def infer_output_type(self, input_type):
        return input_type


def _windowing(
    windowfn, trigger, accumulation_mode, timestamp_combiner, allowed_lateness, evictor
) -> Windowing:
    fields = {"window_fn": windowfn, "allowed_lateness": allowed_lateness}
    if trigger is not None:
        fields["trigger"] = trigger
    if accumulation_mode is not None:
        fields["accumulation_mode"] = accumulation_mode
    if timestamp_combiner is not None:
        fields["timestamp_combiner"] = timestamp_combiner
    if evictor is not None:
        fields["evictor"] = evictor
    try:
        windowing = Windowing(**fields)
    except (TypeError, ValueError) as error:
        raise PipelineConstructionError(f"WindowInto: {error}") from error
    if not isinstance(windowing.accumulation_mode, AccumulationMode):
        raise PipelineConstructionError(
            f"WindowInto: accumulation_mode must be AccumulationMode.DISCARDING or "
            f"AccumulationMode.ACCUMULATING, got {accumulation_mode!r}"
        )
    if not isinstance(windowing.timestamp_combiner, TimestampCombiner):
        raise PipelineConstructionError(
            f"WindowInto: timestamp_combiner must be a TimestampCombiner (e.g. "
            f"TimestampCombiner.OUTPUT_AT_EOW), got {timestamp_combiner!r}"
        )
    if windowing.allowed_lateness.micros < 0:
        raise PipelineConstructionError(
            f"WindowInto: allowed_lateness must not be negative, got {windowing.allowed_lateness}; "
            f"use 0 to drop everything behind the watermark"
        )
    windowing_to_ir(windowing)  # a trigger, window function or evictor panes does not know fails
    return windowing


# -- grouping -----------------------------------------------------------------------------------


class _Grouping(PrimitiveTransform):
    """Shared by GroupByKey and CombinePerKey: keyed input, optional late-data output."""

    late_output = False
    key_coder = None  # set on the inner grouping of one that groups keys by their encoding

    def with_late_output(self, tag: str = "late"):
        """Also output elements dropped as too late, as the tagged output ``tag``
        (Flink's ``sideOutputLateData``): ``result.main`` and ``result.late``."""
        transform = _copy(self)
        transform.late_output = tag
        return transform

    def expand(self, pcoll):
        pcoll = require_pcollection(self, pcoll, _label_of(self))
        if pcoll.element_kind == "not_kv":
            raise PipelineConstructionError(
                f"{type(self).__name__} '{_label_of(self)}' needs (key, value) pairs, but its "
                f"input {pcoll} holds other elements; key them first, e.g. | WithKeys(fn) or "
                f"| Map(lambda x: (key(x), x))"
            )
        from panes.coders import registry
        from panes.typehints.typehints import key_value_types

        if registry.custom_types and self.key_coder is None:
            coder = registry.custom_coder(key_value_types(pcoll.element_type)[0])
            if coder is not None:
                return self._grouped_by_encoding(pcoll, coder)
        pipeline = pcoll.pipeline
        main = pipeline.new_output("main", downstream_windowing(pcoll.windowing), element_kind="kv")
        if not self.late_output:
            return main
        late = pipeline.new_output(self.late_output, pcoll.windowing, element_kind="kv")
        return DoOutputsTuple({"main": main, self.late_output: late})

    def _grouped_by_encoding(self, pcoll, coder):
        """Groups keys by their encoding with the key type's registered coder, as Beam groups
        by the key coder's bytes: keys are encoded, grouped, then decoded."""
        inner = _copy(self)
        inner.key_coder = coder
        grouped = (
            pcoll
            | "EncodeKeys" >> Map(lambda kv: (coder.encode(kv[0]), kv[1]))
            | type(self).__name__ >> inner
        )

        def decoded(out, label):
            return out | label >> Map(lambda kv: (coder.decode(kv[0]), kv[1]))

        if not isinstance(grouped, DoOutputsTuple):
            return decoded(grouped, "DecodeKeys")
        return DoOutputsTuple({pc.tag: decoded(pc, f"DecodeKeys({pc.tag})") for pc in grouped})

    def ir_payload(self):
        return {"late_output": self.late_output or None}


class GroupByKey(_Grouping):
    """Groups ``(key, value)`` pairs per key and window into ``(key, [values])`` panes."""

    ir_kind = "group_by_key"

    def infer_output_type(self, input_type):
        from panes.typehints.typehints import Iterable, Tuple, key_value_types

        key, value = key_value_types(input_type)
        return Tuple[key, Iterable[value]]  # type: ignore[type-arg]  # built from data


class CombinePerKey(_Grouping):
    """Combines the values of each key and window with a CombineFn or a function like ``sum``."""

    ir_kind = "combine_per_key"

    def __init__(self, fn, *args, **kwargs):
        super().__init__(kwargs.pop("label", None))
        from panes.transforms.ptransform import label_from_callable

        try:
            self.fn = CombineFn.maybe_from_callable(fn)
        except TypeError as error:
            raise PipelineConstructionError(f"CombinePerKey: {error}") from error
        self.fn_label = label_from_callable(fn)
        self.side_arguments = None
        if any(isinstance(a, AsSideInput) for a in (*args, *kwargs.values())):
            self.side_arguments = (args, kwargs)
        elif args or kwargs:
            self.fn = _BoundCombineFn(self.fn, args, kwargs)

    def expand(self, pcoll):
        """The combine primitive; with side inputs, or for a combiner whose result depends
        on the elements' order, a grouping whose values the combiner takes at once."""
        if self.side_arguments is None and not self.fn.needs_input_order:
            return super().expand(pcoll)
        fn, (args, kwargs) = self.fn, self.side_arguments or ((), {})
        return (
            pcoll
            | "GroupByKey" >> GroupByKey()
            | "Combine"
            >> Map(lambda kv, *a, **k: (kv[0], fn.apply(kv[1], *a, **k)), *args, **kwargs)
        )

    def default_label(self) -> str:
        return f"CombinePerKey({self.fn_label})"

    def ir_payload(self):
        return {"combine_fn": self.fn, **super().ir_payload()}  # the compiler lowers it

    def infer_output_type(self, input_type):
        from panes.typehints.typehints import Any, Tuple, key_value_types

        return Tuple[key_value_types(input_type)[0], Any]


class _BoundCombineFn(CombineFn):
    """A CallableWrapperCombineFn with extra arguments bound (``CombinePerKey(fn, n)``)."""

    def __init__(self, inner, args, kwargs):
        from panes.transforms.combinefn import CallableWrapperCombineFn

        if not isinstance(inner, CallableWrapperCombineFn):
            raise PipelineConstructionError(
                "extra arguments to a combine transform are only allowed with a plain function"
            )
        self.inner = CallableWrapperCombineFn(lambda values: inner.fn(values, *args, **kwargs))

    def create_accumulator(self):
        return self.inner.create_accumulator()

    def add_input(self, accumulator, element):
        return self.inner.add_input(accumulator, element)

    def merge_accumulators(self, accumulators):
        return self.inner.merge_accumulators(accumulators)

    def extract_output(self, accumulator):
        return self.inner.extract_output(accumulator)


class CombineGlobally(PTransform):
    """Combines all elements of each window into one; an empty global input gives the
    combiner's empty result unless ``.without_defaults()``."""

    def __init__(self, fn, *args, **kwargs):
        super().__init__(kwargs.pop("label", None))
        self.combine = CombinePerKey(fn, *args, **kwargs)
        self.has_defaults = True
        self.as_view = False

    def default_label(self) -> str:
        return f"CombineGlobally({self.combine.fn_label})"

    def as_singleton_view(self):
        """Applied, gives ``AsSingleton`` of the result: a side input for other transforms,
        whose value in a window without input is the combiner's empty result (in any
        windowing, as Beam's) unless ``.without_defaults()``."""
        transform = _copy(self)
        transform.as_view = True
        return transform

    def without_defaults(self):
        transform = _copy(self)
        transform.has_defaults = False
        return transform

    def expand(self, pcoll):
        from panes.pvalue import AsSingleton

        pcoll = require_pcollection(self, pcoll, _label_of(self))
        if not self.as_view:
            return self._with_defaults(pcoll) if self.has_defaults else self._combined(pcoll)
        if not self.has_defaults:
            return AsSingleton(self._combined(pcoll))
        return AsSingleton(self._combined(pcoll), default_value=self._empty_result())

    def _combined(self, pcoll):
        return (
            pcoll
            | "KeyWithNone" >> Map(lambda value: (None, value))
            | "CombinePerKey" >> self.combine
            | "UnKey" >> Map(lambda kv: kv[1])
        )

    def _empty_result(self):
        args, kwargs = self.combine.side_arguments or ((), {})
        return self.combine.fn.apply([], *args, **kwargs)

    def _with_defaults(self, pcoll):
        if not _in_global_window(pcoll.windowing.window_fn):
            raise PipelineConstructionError(
                f"{_label_of(self)}: Default values are not yet supported in CombineGlobally() "
                f"if the output PCollection is not windowed by GlobalWindows. Instead, use "
                f"CombineGlobally().without_defaults() to output an empty PCollection if the "
                f"input PCollection is empty, or CombineGlobally().as_singleton_view() to get "
                f"the default output of the CombineFn if the input PCollection is empty."
            )
        combined = self._combined(pcoll)
        if not pcoll.windowing.is_default():
            return combined
        fn = self.combine.fn
        args, kwargs = self.combine.side_arguments or ((), {})
        from panes.pvalue import AsList

        return (
            pcoll.pipeline
            | "DoOnce" >> Create([None])
            | "InjectDefault"
            >> Map(
                lambda _, results, *a, **k: results[0] if results else fn.apply([], *a, **k),
                AsList(combined),
                *args,
                **kwargs,
            )
        )


def _in_global_window(window_fn) -> bool:
    """Whether ``window_fn`` puts every element in the global window (count windows do too)."""
    from panes.window import CountWindows, GlobalWindows

    return isinstance(window_fn, (GlobalWindows, CountWindows))


class CombineValues(PTransform):
    """Combines the iterable value of each ``(key, values)`` element; extra arguments (side
    inputs too) go to the combiner."""

    def __init__(self, fn, *args, **kwargs):
        super().__init__(kwargs.pop("label", None))
        combine = CombinePerKey(fn)
        self.fn, self.fn_label, self.args, self.kwargs = combine.fn, combine.fn_label, args, kwargs

    def default_label(self) -> str:
        return f"CombineValues({self.fn_label})"

    def expand(self, pcoll):
        fn = self.fn
        return pcoll | "Combine" >> Map(
            lambda kv, *a, **k: (kv[0], fn.apply(kv[1], *a, **k)), *self.args, **self.kwargs
        )


class Flatten(PrimitiveTransform):
    """Merges several PCollections with the same windowing into one."""

    ir_kind = "flatten"

    def expand(self, pcolls):
        if isinstance(pcolls, PCollection):
            pcolls = (pcolls,)
        if not isinstance(pcolls, (list, tuple)) or not pcolls:
            raise PipelineConstructionError(
                f"Flatten '{_label_of(self)}' takes a non-empty tuple or list of PCollections: "
                f"(pc1, pc2) | Flatten()"
            )
        strategies = {repr(pc.windowing) for pc in pcolls}
        if len(strategies) > 1:
            raise PipelineConstructionError(
                f"Flatten '{_label_of(self)}': inputs have different windowing strategies "
                f"({', '.join(sorted(strategies))}); apply the same WindowInto to each first"
            )
        kinds = {pc.element_kind for pc in pcolls}
        return pcolls[0].pipeline.new_output(
            windowing=pcolls[0].windowing,
            element_kind=kinds.pop() if len(kinds) == 1 else "unknown",
        )

    def infer_output_type(self, input_type):
        return input_type


class Partition(PTransform):
    """Splits a collection into ``n`` by ``fn(element, n, *args) -> index``."""

    def __init__(self, fn, n: int, *args, **kwargs):
        super().__init__(kwargs.pop("label", None))
        if not isinstance(n, int) or n <= 0:
            raise PipelineConstructionError(
                f"Partition needs a positive number of partitions, got {n!r}"
            )
        self.fn, self.n, self.args, self.kwargs = fn, n, args, kwargs

    def expand(self, pcoll):
        return tuple(
            pcoll
            | "Partition"
            >> ParDo(_PartitionDoFn(self.fn, self.n), *self.args, **self.kwargs).with_outputs(
                *[str(i) for i in range(1, self.n)], main="0"
            )
        )


class _PartitionDoFn(DoFn):
    def __init__(self, fn, n):
        self.fn, self.n = fn, n

    def process(self, element, *args, **kwargs):
        from panes.pvalue import TaggedOutput

        index = self.fn(element, self.n, *args, **kwargs)
        if not isinstance(index, int) or not 0 <= index < self.n:
            raise ValueError(
                f"partition function returned {index!r}, expected an int in [0, {self.n})"
            )
        yield TaggedOutput(str(index), element)


class Reshuffle(PTransform):
    """Redistributes elements (a fusion break on Spark); the elements are unchanged."""

    def expand(self, pcoll):
        return pcoll | "Identity" >> Map(lambda element: element)
