"""Combiners scenarios name as ``aggregate`` beyond the built-in ones, written once against
Beam's names: ``combine_fns(beam)`` builds them on panes, and on Apache Beam for the oracle."""

from __future__ import annotations


def combine_fns(beam) -> dict:
    class InPlaceConcat(beam.CombineFn):
        """Appends to its accumulator in place and outputs the accumulator itself, as Beam's
        trigger tests' ``_ConcatCombineFn`` does: a pane fired in accumulating mode must not
        change when later inputs are added to the window."""

        def create_accumulator(self):
            return []

        def add_input(self, accumulator, value):
            accumulator.append(value)
            return accumulator

        def merge_accumulators(self, accumulators):
            return [value for accumulator in accumulators for value in accumulator]

        def extract_output(self, accumulator):
            return accumulator

    return {"concat": InPlaceConcat()}
