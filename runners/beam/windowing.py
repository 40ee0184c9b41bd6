"""Beam's windowing strategies as panes' IR: window functions, triggers, accumulation modes,
timestamp combiners and allowed lateness map one-to-one; a user's own Beam ``WindowFn`` runs
through ``BeamWindowFn``. What panes lacks is refused naming the transform."""

from __future__ import annotations

from apache_beam.transforms import trigger as beam_trigger
from apache_beam.transforms import window as beam_window
from apache_beam.utils.timestamp import Timestamp as BeamTimestamp

from panes.errors import PipelineConstructionError
from panes.ir import triggers as ir_triggers
from panes.ir import windowing as ir
from panes.ir.data import Pickled
from panes.runners.beam.values import to_beam_window, to_panes_window
from panes.window import WindowFn

_ACCUMULATION = {
    beam_trigger.AccumulationMode.DISCARDING: ir.AccumulationMode.DISCARDING,
    beam_trigger.AccumulationMode.ACCUMULATING: ir.AccumulationMode.ACCUMULATING,
}
_TIMESTAMP_COMBINERS = {
    beam_window.TimestampCombiner.OUTPUT_AT_EOW: ir.TimestampCombiner.OUTPUT_AT_EOW,
    beam_window.TimestampCombiner.OUTPUT_AT_EARLIEST: ir.TimestampCombiner.OUTPUT_AT_EARLIEST,
    beam_window.TimestampCombiner.OUTPUT_AT_LATEST: ir.TimestampCombiner.OUTPUT_AT_LATEST,
}


def strategy(windowing, label: str) -> ir.WindowingStrategy:
    """The IR strategy of a Beam ``Windowing``; ``label`` names the transform in refusals."""
    accumulation = _ACCUMULATION.get(windowing.accumulation_mode)
    if accumulation is None:
        raise _refused(label, f"the accumulation mode {windowing.accumulation_mode!r}")
    combiner = _TIMESTAMP_COMBINERS.get(windowing.timestamp_combiner)
    if combiner is None:
        raise _refused(label, f"the timestamp combiner {windowing.timestamp_combiner}")
    return ir.WindowingStrategy(
        window_fn(windowing.windowfn),
        trigger(windowing.triggerfn, label),
        accumulation,
        windowing.allowed_lateness.micros,
        combiner,
    )


def window_fn(fn) -> ir.WindowFn:
    """The IR of a Beam window function: Beam's own kinds as data, any other pickled."""
    kind = type(fn)
    if kind is beam_window.GlobalWindows:
        return ir.GlobalWindows()
    if kind is beam_window.FixedWindows:
        return ir.FixedWindows(fn.size.micros, fn.offset.micros)
    if kind is beam_window.SlidingWindows:
        return ir.SlidingWindows(fn.size.micros, fn.period.micros, fn.offset.micros)
    if kind is beam_window.Sessions:
        return ir.Sessions(fn.gap_size.micros)
    return ir.CustomWindowFn(f"{kind.__module__}.{kind.__qualname__}", Pickled.of(BeamWindowFn(fn)))


def trigger(fn, label: str) -> ir_triggers.Trigger:
    """The IR of a Beam trigger. ``AfterWatermark`` keeps its early and late triggers wrapped
    in ``Repeatedly``; panes repeats them implicitly, as Beam Java does, so the wrapper goes."""
    kind = type(fn)
    if kind is beam_trigger.DefaultTrigger:
        return ir_triggers.Default()
    if kind is beam_trigger._Never:
        return ir_triggers.Never()
    if kind is beam_trigger.Always:
        return ir_triggers.Repeat(ir_triggers.ElementCount(1))
    if kind is beam_trigger.AfterWatermark:
        return ir_triggers.AfterEndOfWindow(
            None if fn.early is None else trigger(fn.early.underlying, label),
            None if fn.late is None else trigger(fn.late.underlying, label),
        )
    if kind is beam_trigger.AfterCount:
        return ir_triggers.ElementCount(fn.count)
    if kind is beam_trigger.AfterProcessingTime:
        return ir_triggers.AfterProcessingTime(BeamTimestamp.of(fn.delay).micros)
    if kind is beam_trigger.Repeatedly:
        return ir_triggers.Repeat(trigger(fn.underlying, label))
    if kind is beam_trigger.OrFinally:
        return ir_triggers.OrFinally(trigger(fn.triggers[0], label), trigger(fn.triggers[1], label))
    parallel = {
        beam_trigger.AfterAny: ir_triggers.AfterAny,
        beam_trigger.AfterAll: ir_triggers.AfterAll,
        beam_trigger.AfterEach: ir_triggers.AfterEach,
    }.get(kind)
    if parallel is not None:
        return parallel(tuple(trigger(sub, label) for sub in fn.triggers))
    raise _refused(label, f"the trigger {fn!r}")


def _refused(label: str, what: str) -> PipelineConstructionError:
    return PipelineConstructionError(
        f"'{label}': panes cannot run {what}; docs/beam-runner.md lists the windowing panes "
        f"translates"
    )


class BeamWindowFn(WindowFn):
    """A user's own Beam ``WindowFn`` as a panes one: its ``assign`` and ``merge`` see Beam's
    windows and timestamps, panes' engine gets panes' windows back."""

    def __init__(self, fn):
        self.fn = fn

    def assign(self, context):
        window = None if context.window is None else to_beam_window(context.window)
        beam_context = beam_window.WindowFn.AssignContext(
            BeamTimestamp(micros=context.timestamp_micros), context.element, window
        )
        return [to_panes_window(w) for w in self.fn.assign(beam_context)]

    def merge(self, merge_context) -> None:
        self.fn.merge(_MergeContext(merge_context))

    def is_merging(self) -> bool:
        return self.fn.is_merging()

    def get_window_coder(self):
        return self.fn.get_window_coder()


class _MergeContext(beam_window.WindowFn.MergeContext):
    """Beam's view of panes' merge context: Beam's windows in, panes' merges out."""

    def __init__(self, panes_context):
        self.panes_context = panes_context
        self.by_beam = {to_beam_window(w): w for w in panes_context.windows}
        super().__init__(list(self.by_beam))

    def merge(self, to_be_merged, merge_result) -> None:
        self.panes_context.merge(
            [self.by_beam[w] for w in to_be_merged], to_panes_window(merge_result)
        )
