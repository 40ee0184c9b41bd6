"""CombineFn: associative, commutative aggregation in four steps (create/add/merge/extract),
and the built-in ones that plain ``sum``, ``min`` and ``max`` stand for."""

from __future__ import annotations

import builtins
import operator


class CombineFn:
    """Subclass and implement create_accumulator, add_input, merge_accumulators, extract_output."""

    # Whether the result depends on the order the elements come in (Top's ties): such a
    # combiner gets each key and window's elements after the grouping, in their order, where
    # the others are combined on the map side first.
    needs_input_order = False

    def create_accumulator(self):
        raise NotImplementedError

    def add_input(self, accumulator, element):
        raise NotImplementedError

    def add_inputs(self, accumulator, elements, *args, **kwargs):
        for element in elements:
            accumulator = self.add_input(accumulator, element, *args, **kwargs)
        return accumulator

    def merge_accumulators(self, accumulators):
        raise NotImplementedError

    def extract_output(self, accumulator):
        raise NotImplementedError

    def compact(self, accumulator):
        return accumulator

    def apply(self, elements, *args, **kwargs):
        """Combines a whole iterable at once; extra arguments (side inputs) go to every
        method, as in Beam."""
        accumulator = self.create_accumulator(*args, **kwargs)
        return self.extract_output(
            self.add_inputs(accumulator, elements, *args, **kwargs), *args, **kwargs
        )

    def default_label(self) -> str:
        return type(self).__name__

    @staticmethod
    def maybe_from_callable(fn) -> CombineFn:
        """A CombineFn as given, a built-in one for sum/min/max, or a wrapper for a function."""
        if isinstance(fn, CombineFn):
            return fn
        if isinstance(fn, type) and issubclass(fn, CombineFn):
            raise TypeError(f"pass an instance of {fn.__name__}, i.e. {fn.__name__}()")
        if not callable(fn):
            raise TypeError(f"a combiner must be a CombineFn or a callable, got {fn!r}")
        builtin = {builtins.sum: SumFn, builtins.min: MinFn, builtins.max: MaxFn}.get(fn)
        return builtin() if builtin else CallableWrapperCombineFn(fn)


class CallableWrapperCombineFn(CombineFn):
    """Combines with ``fn(iterable)``; ``fn`` must be associative and commutative, like sum."""

    _BUFFER_SIZE = 64

    def __init__(self, fn):
        self.fn = fn

    def default_label(self) -> str:
        return f"CombineFn({getattr(self.fn, '__name__', 'fn')})"

    def create_accumulator(self):
        return []

    def add_input(self, accumulator, element):
        accumulator.append(element)
        if len(accumulator) > self._BUFFER_SIZE:
            accumulator[:] = [self.fn(accumulator)]
        return accumulator

    def merge_accumulators(self, accumulators):
        return [self.fn([value for acc in accumulators for value in acc])]

    def extract_output(self, accumulator):
        return self.fn(accumulator)

    def compact(self, accumulator):
        return [self.fn(accumulator)] if len(accumulator) > 1 else accumulator

    def apply(self, elements, *args, **kwargs):
        return self.fn(list(elements), *args, **kwargs)


class SumFn(CombineFn):
    """Sum of numbers; the accumulator is the running sum."""

    # ``accumulator + element``, as a C function: groupings call it once per element.
    add_input = staticmethod(operator.add)

    def create_accumulator(self):
        return 0

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
