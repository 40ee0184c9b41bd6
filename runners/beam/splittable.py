"""Beam's splittable DoFns: each element paired with its initial restriction, split and sized
as the DoFn's restriction provider says (panes' fast path), then processed restriction by
restriction by Beam's DoFnRunner (``BeamDoFn``). A restriction the DoFn defers is resumed at
once; nothing splits dynamically."""

from __future__ import annotations

from apache_beam.runners.common import DoFnSignature

from panes.runners.beam.dofns import FastBeamFn
from panes.runners.beam.translation import Translation, main_input


def split_restrictions(translation: Translation, applied) -> str:
    """A par_do giving ``((element, (restriction, estimator state)), size)`` for each initial
    split of each element; returns its output collection."""
    label = f"{applied.full_label}/SplitRestrictions"
    source = main_input(translation, applied)
    fn = FastBeamFn(_Splits(applied.transform.fn), "flat_map", label)
    return translation.par_do(label, source, fn)


class _Splits:
    """An element's initial restrictions, split and sized (Beam's PairWithRestriction and
    SplitAndSizeRestrictions)."""

    def __init__(self, dofn):
        self.dofn = dofn

    def __call__(self, element) -> list:
        signature = DoFnSignature(self.dofn)
        restrictions = signature.get_restriction_provider()
        estimators = signature.get_watermark_estimator_provider()
        initial = restrictions.initial_restriction(element)
        return [
            ((element, (part, estimators.initial_estimator_state(element, part))), size)
            for part, size in restrictions.split_and_size(element, initial)
        ]
