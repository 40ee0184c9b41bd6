"""Beam's ``ParDo`` as panes' par_do: on panes' fused fast path when the DoFn is a plain
callable (``Map``, ``FlatMap``, ``Filter``, ``MapTuple``, ``FlatMapTuple``) or a DoFn whose
``process`` takes only its element, otherwise through Beam's own DoFnRunner. Splittable DoFns
go to ``splittable``, stateful ones to ``stateful``."""

from __future__ import annotations

import types

from apache_beam.runners.common import DoFnSignature
from apache_beam.transforms import core as beam_core

from panes.ir.codec import lower_value
from panes.ir.model import SIDE_INPUT_MARK, SideInput
from panes.ir.windowing import WindowingStrategy
from panes.runners.beam import splittable, stateful
from panes.runners.beam.dofns import BeamDoFn, FastBeamFn, ReifyWindows
from panes.runners.beam.translation import (
    MAIN,
    Translation,
    main_input,
    output_tags,
    par_do_payload,
)


def translate_pardo(translation: Translation, applied) -> None:
    dofn = applied.transform.fn
    signature = DoFnSignature(dofn)
    if signature.is_stateful_dofn():
        fn = stateful.translate_stateful_pardo(
            applied, _input_pcoll(applied).windowing, output_tags(applied)
        )
        add_par_do(translation, applied, main_input(translation, applied), fn, (), {})
        return
    if signature.is_splittable_dofn():
        split = splittable.split_restrictions(translation, applied)
        return add_beam_dofn(translation, applied, split, sized_restrictions=True)
    fast = fast_fn(applied, signature)
    if fast is not None:
        transform = applied.transform
        add_par_do(
            translation,
            applied,
            main_input(translation, applied),
            fast,
            tuple(lower_value(arg) for arg in transform.args),
            {name: lower_value(value) for name, value in transform.kwargs.items()},
        )
        return
    add_beam_dofn(translation, applied, main_input(translation, applied))


def add_beam_dofn(translation: Translation, applied, source: str, **options) -> None:
    """A par_do running ``applied``'s DoFn through Beam's DoFnRunner over ``source``."""
    transform = applied.transform
    sides = [side_input(translation, side, applied.full_label) for side in applied.side_inputs]
    fn = BeamDoFn(
        applied.full_label,
        transform.fn,
        transform.args,
        transform.kwargs,
        [side._side_input_data() for side in applied.side_inputs],
        _input_pcoll(applied).windowing,
        output_tags(applied),
        **options,
    )
    add_par_do(
        translation,
        applied,
        source,
        fn,
        (),
        {f"side_{index}": {SIDE_INPUT_MARK: index} for index in range(len(sides))},
        tuple(SideInput(pcollection, "list") for pcollection in sides),
    )


def add_par_do(translation: Translation, applied, source: str, fn, args, kwargs, sides=()):
    tags = output_tags(applied)
    strategy = translation.strategy(source)
    ids = translation.add(
        applied.full_label,
        "par_do",
        (source,),
        {tags[tag]: (pcoll, strategy) for tag, pcoll in applied.outputs.items()},
        par_do_payload(fn, args, kwargs, tags),
        sides,
    )
    return ids


def side_input(translation: Translation, side, label: str) -> str:
    """The panes collection a Beam side input is read from: its elements paired with their
    windows, all in the global window (so that Beam's window mapping applies in the DoFn)."""
    source = translation.input_id(side.pvalue, label)
    reified = translation.side_inputs.get(source)
    if reified is None:
        with_windows = translation.par_do(f"{source}/ReifyWindows", source, ReifyWindows())
        reified = translation.side_inputs[source] = translation.add(
            f"{source}/InGlobalWindow",
            "assign_windows",
            (with_windows,),
            {MAIN: (None, WindowingStrategy())},
            {"window_fn": WindowingStrategy().window_fn, "allow_unsafe_triggers": False},
        )[MAIN]
    return reified


def fast_fn(applied, signature) -> FastBeamFn | None:
    """The DoFn on panes' fast path, when it needs nothing of Beam's DoFnRunner: one output,
    no side inputs, no DoFn parameters, no bundle methods."""
    transform, label = applied.transform, applied.full_label
    dofn = transform.fn
    if applied.side_inputs or len(applied.outputs) != 1 or _takes_params(signature):
        return None
    window_fn = _input_pcoll(applied).windowing.windowfn
    if isinstance(dofn, beam_core.CallableWrapperDoFn):
        mode, fn = callable_mode(dofn._fn)
        return FastBeamFn(fn, mode, label, window_fn)
    if type(dofn) is beam_core.DoFn or not _plain_dofn(type(dofn)):
        return None
    return FastBeamFn(dofn.process, "flat_map", label, window_fn, dofn)


def _takes_params(signature) -> bool:
    return any(isinstance(d, beam_core._DoFnParam) for d in signature.process_method.defaults)


def _plain_dofn(cls) -> bool:
    """Whether a DoFn class runs as a function of its element: no bundle methods, no batches."""
    return all(
        getattr(cls, method) is getattr(beam_core.DoFn, method)
        for method in ("start_bundle", "finish_bundle", "process_batch")
    )


class _Star:
    """``fn`` of a tuple element's items (Beam's ``MapTuple`` and ``FlatMapTuple``)."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, element, *args, **kwargs):
        return self.fn(*element, *args, **kwargs)


def _lambdas(function) -> list:
    return [c for c in function.__code__.co_consts if isinstance(c, types.CodeType)]


# The wrappers Beam's callable transforms put around the user's function, by what panes runs.
_WRAPPERS = (
    (_lambdas(beam_core.Map), "map", None),
    (_lambdas(beam_core.Filter), "filter", None),
    (_lambdas(beam_core.MapTuple), "map", _Star),
    (_lambdas(beam_core.FlatMapTuple), "flat_map", _Star),
)


def callable_mode(wrapper) -> tuple:
    """``(panes mode, function)`` of a Beam ``CallableWrapperDoFn``'s function: the user's
    function inside Beam's Map, Filter, MapTuple or FlatMapTuple wrapper, or FlatMap's own."""
    code = getattr(wrapper, "__code__", None)
    for codes, mode, adapt in _WRAPPERS:
        if code is not None and any(code == known for known in codes):
            cells = dict(zip(code.co_freevars, wrapper.__closure__ or ()))
            fn = cells["fn"].cell_contents
            return mode, fn if adapt is None else adapt(fn)
    return "flat_map", wrapper


def _input_pcoll(applied):
    (pcoll,) = applied.main_inputs.values()
    return pcoll
