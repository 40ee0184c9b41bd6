"""Translates a Beam pipeline into panes' IR.

The walk reads Beam's graph of applied transforms (as Beam built it, or as ``TestPipeline``
rebuilt it from the Runner API proto). A composite whose class Beam registers under a URN
(``Create``, ``Read``, ``CombinePerKey``, ``Reshuffle``) or whose sink panes writes itself
becomes panes' own node when it can; every other composite is walked into, down to Beam's
primitives — ``Impulse``, ``ParDo`` (``WindowInto`` among them), ``GroupByKey``, ``Flatten``
and ``TestStream`` — each of which maps onto an IR node kind. Windowing strategies are read
from the collections (which survive the proto's round trip) and translated one-to-one.
What panes lacks is refused before anything runs, naming the transform and what is missing.
"""

from __future__ import annotations

from apache_beam.testing.test_stream import TestStream
from apache_beam.transforms import core as beam_core

from panes.errors import PipelineConstructionError
from panes.ir.model import Composite, PipelineIR
from panes.runners.beam import grouping, pardo, shortcuts, sources, windowing
from panes.runners.beam.translation import MAIN, Translation, main_input


def translate(pipeline) -> PipelineIR:
    """panes' IR of a Beam ``Pipeline``."""
    root = pipeline.transforms_stack[0]
    translation = Translation(_consumed(root))
    for part in root.parts:
        visit(translation, part)
    if not translation.nodes:
        raise PipelineConstructionError("the Beam pipeline is empty: it applies no transform")
    return translation.ir()


def visit(translation: Translation, applied) -> None:
    shortcut = shortcuts.of(applied)
    if shortcut is not None and shortcut(translation, applied):
        return
    if applied.is_composite():
        if not applied.parts:  # returned its input: e.g. a Reshuffle Beam chose to skip
            for pcoll in applied.outputs.values():
                translation.alias(
                    pcoll, translation.input_id(_only_input(applied), applied.full_label)
                )
            return
        translation.composites.append(
            Composite(applied.full_label, tuple(part.full_label for part in applied.parts))
        )
        for part in applied.parts:
            visit(translation, part)
        return
    primitive(translation, applied)


def primitive(translation: Translation, applied) -> None:
    """Translates one of Beam's primitives."""
    transform = applied.transform
    if isinstance(transform, beam_core.WindowInto):
        return window_into(translation, applied)
    if isinstance(transform, beam_core.ParDo):
        return pardo.translate_pardo(translation, applied)
    if isinstance(transform, beam_core.GroupByKey):
        return grouping.translate_group_by_key(translation, applied)
    if isinstance(transform, beam_core.Flatten):
        return flatten(translation, applied)
    if isinstance(transform, beam_core.Impulse):
        return sources.translate_impulse(translation, applied)
    if isinstance(transform, TestStream):
        return sources.translate_test_stream(translation, applied)
    raise PipelineConstructionError(
        f"'{applied.full_label}': panes cannot run Beam's {type(transform).__name__} "
        f"(docs/beam-runner.md lists what translates)"
    )


def window_into(translation: Translation, applied) -> None:
    label = applied.full_label
    source = main_input(translation, applied)
    (pcoll,) = applied.outputs.values()
    strategy = windowing.strategy(pcoll.windowing, label)
    translation.add(
        label,
        "assign_windows",
        (source,),
        {MAIN: (pcoll, strategy)},
        # Beam judged the trigger when it built the pipeline (--allow_unsafe_triggers).
        {"window_fn": strategy.window_fn, "allow_unsafe_triggers": True},
    )


def flatten(translation: Translation, applied) -> None:
    label = applied.full_label
    (pcoll,) = applied.outputs.values()
    inputs = [translation.input_id(pc, label) for pc in applied.main_inputs.values()]
    if not inputs:
        return sources.empty(translation, label, pcoll)
    translation.add(label, "flatten", inputs, {MAIN: (pcoll, translation.strategy(inputs[0]))}, {})


def _only_input(applied):
    return next(iter(applied.main_inputs.values()))


def _consumed(root) -> set:
    """id() of every collection a transform reads, as main or side input."""
    consumed: set = set()
    pending = [root]
    while pending:
        applied = pending.pop()
        pending.extend(applied.parts)
        for pcoll in applied.main_inputs.values():
            consumed.add(id(pcoll))
        for side in applied.side_inputs:
            consumed.add(id(side.pvalue))
    return consumed
