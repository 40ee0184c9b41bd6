"""What a grouping keeps per key and window: a buffer of values, or a combiner's accumulator.

``add`` also receives the element's timestamp and arrival number, which only the evicting
buffer (``panes.windowing.evicting``) keeps.
"""

from __future__ import annotations


class BufferAggregation:
    """GroupByKey: keeps every value; a pane is the list of them."""

    def create(self):
        return []

    def add(self, accumulator, value, timestamp=None, arrival=None):
        accumulator.append(value)
        return accumulator

    def merge(self, accumulators):
        return [value for accumulator in accumulators for value in accumulator]

    def extract(self, accumulator):
        return list(accumulator)


class CombineFnAggregation:
    """CombinePerKey: keeps only the combiner's accumulator (incremental aggregation)."""

    def __init__(self, combine_fn):
        self.combine_fn = combine_fn

    def create(self):
        return self.combine_fn.create_accumulator()

    def add(self, accumulator, value, timestamp=None, arrival=None):
        return self.combine_fn.add_input(accumulator, value)

    def merge(self, accumulators):
        return self.combine_fn.merge_accumulators(list(accumulators))

    def extract(self, accumulator):
        return self.combine_fn.extract_output(accumulator)
