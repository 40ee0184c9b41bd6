"""What a grouping keeps per key and window: a buffer of values, or a combiner's accumulator.

``add`` also receives the element's timestamp and arrival number, which only the evicting
buffer (``panes.windowing.evicting``) keeps.
"""

from __future__ import annotations

import copy

from panes.errors import UserCodeError


class BufferAggregation:
    """GroupByKey: keeps every value; a pane is the list of them."""

    def create(self):
        return []

    def add(self, accumulator, value, timestamp=None, arrival=None):
        accumulator.append(value)
        return accumulator

    def adder(self):
        """``(accumulator, value) -> accumulator`` without error wrapping: the caller wraps
        failures with ``failed`` (batch groupings add in their own loop)."""
        return self.add

    def failed(self, value, error) -> Exception:
        return error

    def merge(self, accumulators):
        return [value for accumulator in accumulators for value in accumulator]

    def extract(self, accumulator):
        return list(accumulator)

    def extract_kept(self, accumulator):
        """A pane of a buffer that stays for later panes: ``extract`` copies already."""
        return list(accumulator)

    def extractor(self):
        """``accumulator -> output`` without error wrapping: the caller wraps failures with
        ``extract_failed`` (batch groupings extract in their own loop)."""
        return list

    def extract_failed(self, accumulator, error) -> Exception:
        return error


class CombineFnAggregation:
    """CombinePerKey: keeps only the combiner's accumulator (incremental aggregation). A
    failing combiner raises a UserCodeError naming the transform ``label``."""

    def __init__(self, combine_fn, label: str = "CombinePerKey"):
        self.combine_fn = combine_fn
        self.label = label

    def create(self):
        try:
            return self.combine_fn.create_accumulator()
        except Exception as error:
            raise UserCodeError(self.label, None, error) from error

    def add(self, accumulator, value, timestamp=None, arrival=None):
        try:
            return self.combine_fn.add_input(accumulator, value)
        except Exception as error:
            raise self.failed(value, error) from error

    def adder(self):
        """``add_input`` itself: the caller wraps failures with ``failed``."""
        return self.combine_fn.add_input

    def failed(self, value, error) -> Exception:
        """The error to raise when adding ``value`` failed with ``error``."""
        return UserCodeError(self.label, value, error)

    def merge(self, accumulators):
        try:
            return self.combine_fn.merge_accumulators(list(accumulators))
        except Exception as error:
            raise UserCodeError(self.label, None, error) from error

    def extract(self, accumulator):
        try:
            return self.combine_fn.extract_output(accumulator)
        except Exception as error:
            raise self.extract_failed(accumulator, error) from error

    def extract_kept(self, accumulator):
        """A pane of an accumulator that stays for later panes (accumulating mode), extracted
        from a copy: an output that is the accumulator, or part of it, is not changed by the
        inputs added after it fired (as Beam's runners copy state on access)."""
        return self.extract(copy.deepcopy(accumulator))

    def extractor(self):
        """``extract_output`` itself: the caller wraps failures with ``extract_failed``."""
        return self.combine_fn.extract_output

    def extract_failed(self, accumulator, error) -> Exception:
        return UserCodeError(self.label, accumulator, error)
