"""Built-in CombineFns and the Beam-style combiner transforms built on them."""

from __future__ import annotations

from panes.transforms.combinefn import CombineFn


class SumFn(CombineFn):
    """Sum of numbers; the accumulator is the running sum."""

    def create_accumulator(self):
        return 0

    def add_input(self, accumulator, element):
        return accumulator + element

    def merge_accumulators(self, accumulators):
        return sum(accumulators)

    def extract_output(self, accumulator):
        return accumulator


class _ExtremumFn(CombineFn):
    """Min or max; None until the first element."""

    pick = staticmethod(min)

    def create_accumulator(self):
        return None

    def add_input(self, accumulator, element):
        return element if accumulator is None else self.pick(accumulator, element)

    def merge_accumulators(self, accumulators):
        present = [a for a in accumulators if a is not None]
        return self.pick(present) if present else None

    def extract_output(self, accumulator):
        return accumulator


class MinFn(_ExtremumFn):
    pick = staticmethod(min)


class MaxFn(_ExtremumFn):
    pick = staticmethod(max)
