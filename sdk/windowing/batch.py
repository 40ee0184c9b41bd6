"""Grouping bounded input under the default trigger, without the trigger machinery.

When all input arrives as one bundle and the watermark then jumps to +inf (Beam batch), a
default-trigger grouping emits exactly one ON_TIME pane per key and (merged) window. This module
computes those panes straight from accumulators, with the same pane, timestamp and merging rules
the driver uses (``next_pane``, ``garbage_collection_time``, the hold arithmetic), so runners can
take it as a fast path: the direct runner for speed, the Spark runner for combiner lifting.
"""

from __future__ import annotations

from panes.errors import UserCodeError
from panes.timestamp import MAX_TIMESTAMP, MIN_TIMESTAMP
from panes.trigger import DefaultTrigger
from panes.window import MergeContext, TimestampCombiner, WindowedValue
from panes.windowing.holds import combine_output_times, output_time
from panes.windowing.key_driver import garbage_collection_time
from panes.windowing.panes import next_pane
from panes.windowing.strategy import effective_windowing


def is_batch_exact(strategy) -> bool:
    """Whether a grouping under ``strategy`` may use this module for bounded, batch input."""
    effective = effective_windowing(strategy)
    return isinstance(effective.trigger, DefaultTrigger) and effective.evictor is None


def batch_panes(allowed_lateness: int):
    """``pane_of(window)``: the one pane a default-trigger grouping emits for ``window`` over
    batch input: ON_TIME, first, and last when the window is garbage-collected at its end (no
    allowed lateness). Only being last varies, so two PaneInfo objects serve every window."""
    panes: dict = {}

    def pane_of(window):
        max_timestamp = window.max_timestamp()
        is_final = garbage_collection_time(window, allowed_lateness) == max_timestamp
        pane = panes.get(is_final)
        if pane is None:
            pane = panes[is_final] = next_pane(None, max_timestamp, MAX_TIMESTAMP, MIN_TIMESTAMP,
                                               is_final)
        return pane

    return pane_of


class BatchGrouping:
    """Accumulates ``(key, WindowedValue)`` per key and window; ``panes()`` emits the result.

    ``accumulators`` maps ``(key, window)`` to ``[accumulator, output_time]``; partial
    groupings (e.g. Spark partitions) combine with ``merge_from``.
    """

    def __init__(self, strategy, aggregation, accumulators: dict | None = None):
        self.strategy = strategy
        self.aggregation = aggregation
        self.combiner = strategy.timestamp_combiner
        self.accumulators: dict = {} if accumulators is None else accumulators
        # At the end of the window, panes() sets the timestamp; nothing to track per element.
        self._at_end = self.combiner == TimestampCombiner.OUTPUT_AT_EOW
        self.add_value = self._adder()

    def add(self, key, wv) -> None:
        self.add_value(key, wv.value, wv.timestamp, wv.windows)

    def _adder(self):
        """``add_value(key, value, timestamp, windows)``, which runs for every element, with
        its lookups bound once; it returns whether the value opened a new (key, window)
        slot."""
        accumulators, combiner, at_end = self.accumulators, self.combiner, self._at_end
        aggregation = self.aggregation
        add, create, failed = aggregation.adder(), aggregation.create, aggregation.failed

        def add_value(key, value, timestamp, windows):
            opened = False
            for window in windows:
                slot = accumulators.get((key, window))
                try:
                    if slot is None:
                        time = None if at_end else output_time(combiner, window, timestamp)
                        accumulators[(key, window)] = [add(create(), value), time]
                        opened = True
                        continue
                    slot[0] = add(slot[0], value)
                except UserCodeError:
                    raise
                except Exception as error:
                    raise failed(value, error) from error
                if not at_end:
                    slot[1] = combine_output_times(combiner, slot[1],
                                                   output_time(combiner, window, timestamp))
            return opened

        return add_value

    def merge_from(self, other: "BatchGrouping") -> None:
        self.merge_accumulators(other.accumulators)

    def merge_accumulators(self, accumulators: dict) -> None:
        """Folds in another grouping's ``accumulators`` (e.g. shipped from a Spark partition)."""
        for key_window, (accumulator, timestamp) in accumulators.items():
            slot = self.accumulators.get(key_window)
            if slot is None:
                self.accumulators[key_window] = [accumulator, timestamp]
            else:
                slot[0] = self.aggregation.merge([slot[0], accumulator])
                slot[1] = combine_output_times(self.combiner, slot[1], timestamp)

    def panes(self) -> list:
        """The ON_TIME pane of every key and window, after merging windows."""
        self.merge_windows()
        pane_of = batch_panes(self.strategy.allowed_lateness.micros)
        at_end, extract, panes = self._at_end, self.aggregation.extract, []
        # One object per distinct window and pane: pickling ships a repeated object once.
        shared_windows: dict = {}
        for (key, window), (accumulator, timestamp) in self.accumulators.items():
            windows = shared_windows.get(window) or shared_windows.setdefault(window, (window,))
            panes.append(WindowedValue((key, extract(accumulator)),
                                       window.max_timestamp() if at_end else timestamp, windows,
                                       pane_of(window)))
        return panes

    def merge_windows(self) -> None:
        """Merges each key's windows as the merging window fn decides (no-op otherwise). Merging
        part of the input first (e.g. per Spark partition) ends in the same windows."""
        if not self.strategy.window_fn.is_merging():
            return
        windows_by_key: dict = {}
        for key, window in self.accumulators:
            windows_by_key.setdefault(key, []).append(window)
        for key, windows in windows_by_key.items():
            context = MergeContext(windows)
            self.strategy.window_fn.merge(context)
            for sources, result in context.merges:
                slots = [self.accumulators.pop((key, window)) for window in sources]
                existing = self.accumulators.pop((key, result), None)
                if existing is not None:
                    slots.append(existing)
                timestamp = slots[0][1]
                for slot in slots[1:]:
                    timestamp = combine_output_times(self.combiner, timestamp, slot[1])
                self.accumulators[(key, result)] = [
                    self.aggregation.merge([slot[0] for slot in slots]), timestamp]
