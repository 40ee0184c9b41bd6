"""Evictors (Flink): a window buffer of (arrival, value, timestamp) entries in arrival order,
trimmed by the strategy's evictor around each firing, then aggregated.

Eviction is permanent: evicted elements leave the window's state, as in Flink's
``EvictingWindowOperator``. ``KINDS`` holds, per evictor kind, its IR and API classes, how one
lowers to the other and back, and what it keeps.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from panes import evictor as api
from panes.errors import PipelineConstructionError
from panes.ir import windowing as ir
from panes.ir.data import Pickled
from panes.timestamp import Duration


@dataclass(frozen=True)
class EvictorKind:
    """``keeper(evictor)`` gives ``entries -> the entries it keeps``, in arrival order."""

    ir: type
    api: type
    to_ir: Callable
    from_ir: Callable
    keeper: Callable


def _count_keeper(evictor: ir.CountEvictor) -> Callable:
    return lambda entries: entries[-evictor.max_count :]


def _time_keeper(evictor: ir.TimeEvictor) -> Callable:
    def keep(entries):
        if not entries:
            return entries
        cutoff = max(timestamp for _, _, timestamp in entries) - evictor.window_size
        return [entry for entry in entries if entry[2] > cutoff]

    return keep


def _delta_keeper(evictor: ir.DeltaEvictor) -> Callable:
    fn, threshold = evictor.fn.load(), evictor.threshold

    def keep(entries):
        if not entries:
            return entries
        last = entries[-1][1]
        return [entry for entry in entries if fn(entry[1], last) < threshold]

    return keep


KINDS = (
    EvictorKind(
        ir.CountEvictor,
        api.CountEvictor,
        to_ir=lambda e: ir.CountEvictor(e.max_count, e.evict_before, e.evict_after),
        from_ir=lambda e: api.CountEvictor(e.max_count, e.evict_before, e.evict_after),
        keeper=_count_keeper,
    ),
    EvictorKind(
        ir.TimeEvictor,
        api.TimeEvictor,
        to_ir=lambda e: ir.TimeEvictor(e.window_size.micros, e.evict_before, e.evict_after),
        from_ir=lambda e: api.TimeEvictor(
            Duration(micros=e.window_size), e.evict_before, e.evict_after
        ),
        keeper=_time_keeper,
    ),
    EvictorKind(
        ir.DeltaEvictor,
        api.DeltaEvictor,
        to_ir=lambda e: ir.DeltaEvictor(
            float(e.threshold), Pickled.of(e.fn), e.evict_before, e.evict_after
        ),
        from_ir=lambda e: api.DeltaEvictor(e.threshold, e.fn.load(), e.evict_before, e.evict_after),
        keeper=_delta_keeper,
    ),
)

_BY_API = {kind.api: kind for kind in KINDS}
_BY_IR = {kind.ir: kind for kind in KINDS}


def to_ir(evictor) -> ir.Evictor:
    kind = _BY_API.get(type(evictor))
    if kind is None:
        raise PipelineConstructionError(
            f"{evictor!r} is not a panes evictor; use CountEvictor, TimeEvictor or DeltaEvictor "
            f"of panes.evictor"
        )
    return kind.to_ir(evictor)


def from_ir(evictor: ir.Evictor) -> api.Evictor:
    return _BY_IR[type(evictor)].from_ir(evictor)


def keeper(evictor: ir.Evictor) -> Callable:
    """``entries -> the entries evictor keeps``, in arrival order."""
    return _BY_IR[type(evictor)].keeper(evictor)


class EvictingAggregation:
    """Buffers elements for an evictor and applies the grouping's aggregation at firing."""

    def __init__(self, aggregation, evictor: ir.Evictor):
        self.aggregation = aggregation
        self.evictor = evictor
        self.keep = keeper(evictor)

    def create(self):
        return []

    def add(self, accumulator, value, timestamp=None, arrival=None):
        accumulator.append((arrival, value, timestamp))
        return accumulator

    def failed(self, value, error) -> Exception:
        return error

    def merge(self, accumulators):
        return sorted(
            (entry for accumulator in accumulators for entry in accumulator),
            key=lambda entry: entry[0],
        )

    def extract(self, accumulator):
        """The pane's output; evicts from ``accumulator`` in place, before and/or after."""
        if self.evictor.evict_before:
            accumulator[:] = self.keep(accumulator)
        inner = self.aggregation.create()
        for _, value, timestamp in accumulator:
            inner = self.aggregation.add(inner, value, timestamp)
        output = self.aggregation.extract(inner)
        if self.evictor.evict_after:
            accumulator[:] = self.keep(accumulator)
        return output

    def extract_kept(self, accumulator):
        """An evicting pane is combined afresh from the buffer: nothing of it is kept."""
        return self.extract(accumulator)
