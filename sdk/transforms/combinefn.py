"""CombineFn: associative, commutative aggregation in four steps (create/add/merge/extract)."""

from __future__ import annotations

import builtins


class CombineFn:
    """Subclass and implement create_accumulator, add_input, merge_accumulators, extract_output."""

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
        return self.extract_output(self.add_inputs(accumulator, elements, *args, **kwargs),
                                   *args, **kwargs)

    def default_label(self) -> str:
        return type(self).__name__

    @staticmethod
    def maybe_from_callable(fn) -> "CombineFn":
        """A CombineFn as given, a built-in one for sum/min/max, or a wrapper for a function."""
        if isinstance(fn, CombineFn):
            return fn
        if isinstance(fn, type) and issubclass(fn, CombineFn):
            raise TypeError(f"pass an instance of {fn.__name__}, i.e. {fn.__name__}()")
        if not callable(fn):
            raise TypeError(f"a combiner must be a CombineFn or a callable, got {fn!r}")
        from panes.transforms import combiners

        builtin = {builtins.sum: combiners.SumFn, builtins.min: combiners.MinFn,
                   builtins.max: combiners.MaxFn}.get(fn)
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
