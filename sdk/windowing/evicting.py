"""Evictor logic (Flink): a window buffer of (arrival, value, timestamp) entries in arrival
order, trimmed by the strategy's evictor around each firing, then aggregated.

Eviction is permanent: evicted elements leave the window's state, as in Flink's
``EvictingWindowOperator``.
"""

from __future__ import annotations

from panes.evictor import CountEvictor, DeltaEvictor, TimeEvictor


def _evict_count(evictor: CountEvictor, entries: list) -> list:
    return entries[-evictor.max_count:]


def _evict_time(evictor: TimeEvictor, entries: list) -> list:
    if not entries:
        return entries
    cutoff = max(timestamp for _, _, timestamp in entries) - evictor.window_size.micros
    return [entry for entry in entries if entry[2] > cutoff]


def _evict_delta(evictor: DeltaEvictor, entries: list) -> list:
    if not entries:
        return entries
    last = entries[-1][1]
    return [entry for entry in entries if evictor.fn(entry[1], last) < evictor.threshold]


_EVICT = {CountEvictor: _evict_count, TimeEvictor: _evict_time, DeltaEvictor: _evict_delta}


def evict(evictor, entries: list) -> list:
    """The entries ``evictor`` keeps, in arrival order."""
    return _EVICT[type(evictor)](evictor, entries)


class EvictingAggregation:
    """Buffers elements for an evictor and applies the grouping's aggregation at firing."""

    def __init__(self, aggregation, evictor):
        self.aggregation = aggregation
        self.evictor = evictor

    def create(self):
        return []

    def add(self, accumulator, value, timestamp=None, arrival=None):
        accumulator.append((arrival, value, timestamp))
        return accumulator

    def failed(self, value, error) -> Exception:
        return error

    def merge(self, accumulators):
        return sorted((entry for accumulator in accumulators for entry in accumulator),
                      key=lambda entry: entry[0])

    def extract(self, accumulator):
        """The pane's output; evicts from ``accumulator`` in place, before and/or after."""
        if self.evictor.evict_before:
            accumulator[:] = evict(self.evictor, accumulator)
        inner = self.aggregation.create()
        for _, value, timestamp in accumulator:
            inner = self.aggregation.add(inner, value, timestamp)
        output = self.aggregation.extract(inner)
        if self.evictor.evict_after:
            accumulator[:] = evict(self.evictor, accumulator)
        return output
