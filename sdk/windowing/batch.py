"""Grouping bounded input under the default trigger (or ``AfterWatermark()`` alone), without
the trigger machinery.

When all input arrives as one bundle and the watermark then jumps to +inf (Beam batch), a
default-trigger grouping emits exactly one pane per key and (merged) window, the same for every
window (``BATCH_PANE``). This module computes those panes straight from accumulators, with the
engine's pane, timestamp and merging rules (``next_pane``, the hold arithmetic,
``merge_windows``), so runners can take it as a fast path: the direct runner for speed, the
Spark runner for combiner lifting and its Spark SQL lowering.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import chain, count, repeat
from operator import add, itemgetter

from panes.errors import UserCodeError
from panes.ir import triggers
from panes.ir import windowing as ir
from panes.ir.windowing import TimestampCombiner
from panes.timestamp import MAX_MICROS
from panes.utils.sessions import SessionSlots
from panes.window import window_order, windowed_value
from panes.windowing import window_fn_kinds
from panes.windowing.aggregation import CombineFnAggregation
from panes.windowing.columns import IntervalWindows, MaxTimestamps, PartsColumn, ProtoSessions
from panes.windowing.holds import combine_output_times, output_time
from panes.windowing.merging import merge_windows
from panes.windowing.panes import next_pane
from panes.windowing.strategy import effective_windowing


def is_batch_exact(strategy) -> bool:
    """Whether a grouping under ``strategy`` may use this module for bounded, batch input: under
    the default trigger, or ``AfterWatermark()`` alone, both firing once on such input, on time
    and final, as the watermark jumps past every window's end."""
    effective = effective_windowing(strategy)
    on_time_only = effective.trigger == _ON_TIME_ONLY and (
        window_fn_kinds.kind_of(strategy.window_fn).implied is None
    )
    return (
        isinstance(effective.trigger, triggers.Default) or on_time_only
    ) and effective.evictor is None


_ON_TIME_ONLY = triggers.AfterEndOfWindow()
# The watermark's jump from -inf to +inf passes every window's end and garbage-collection time at
# once: the engine activates each window once, for garbage collection, so its one pane is final;
# the window's hold (and its end-of-window timer) keep the output watermark at or before its
# end, so the pane is ON_TIME (Beam Java's ON_TIME_AND_ONLY_FIRING).
BATCH_PANE = next_pane(None, 0, MAX_MICROS, 0, is_final=True)

# Elements a sessions grouping keeps waiting before it places them (some 20 MB).
PENDING_LIMIT = 1 << 17
_first, _second = itemgetter(0), itemgetter(1)


class BatchGrouping:
    """Accumulates elements per key and window; ``panes()`` emits the result.

    A slot is ``[accumulator, output_time]``. A combiner under Sessions keeps each key's windows
    merged (``SessionSlots``), taking elements in batches sorted by start, so no window holds a
    slot only to be merged away; the combiner then sees a key's elements in that order, not
    as they came (Beam promises no order). Otherwise each key maps its windows to slots,
    merged at the end when the window function merges (a GroupByKey's lists then keep the
    order merging gives them). Partial groupings (e.g. Spark partitions) hand over
    ``partials()``, folded in by ``merge_partial``.
    """

    def __init__(self, strategy, aggregation, pending_limit: int = PENDING_LIMIT):
        self.strategy = strategy
        self.aggregation = aggregation
        self.combiner = strategy.timestamp_combiner
        # At the end of the window, panes() sets the timestamp; nothing to track per element.
        self._at_end = self.combiner == TimestampCombiner.OUTPUT_AT_EOW
        self.window_fn = window_fn_kinds.from_ir(strategy.window_fn)
        self._sessions = isinstance(strategy.window_fn, ir.Sessions) and isinstance(
            aggregation, CombineFnAggregation
        )
        self._keys: dict = {}  # key -> SessionSlots, or {window: slot}
        # Sessions: each key's elements not yet in its SessionSlots, flat: start, end, value,
        # timestamp, start, ...; placed when there are pending_limit of them, and before any
        # result. (Flat, because tuples made per key when placing lie together in memory:
        # made as elements arrive, a key's would lie among every other key's.) Elements whose
        # window is [start, start + gap) wait in _gapped as start, value, ... when timestamps
        # are not read (half the objects to keep, touch and free).
        self._pending: dict = {}
        self._gapped: dict = {}
        self._gap = strategy.window_fn.gap_size if self._sessions else None
        self._pending_count, self._pending_limit = 0, pending_limit
        # One windows tuple per distinct window, across keys: pickling ships a repeated one
        # once. (Sessions are all distinct.)
        self._windows_of: dict = {}
        self.add_chunk = self._session_adder() if self._sessions else self._chunk_adder()

    def _chunk_adder(self):
        """``add_chunk(pairs, timestamps, windows)``: adds a chunk of elements in columns, each
        a ``(key, value)`` pair; returns the indexes of those whose key was new. It runs for
        every element, so its look-ups are bound once."""
        keys, combiner, at_end = self._keys, self.combiner, self._at_end
        aggregation = self.aggregation
        add, create, failed = aggregation.adder(), aggregation.create, aggregation.failed

        def add_chunk(pairs, timestamps, windows_column):
            opened, value = [], None
            if at_end:  # the window's end is the output time: timestamps are not read
                timestamps = repeat(None)
            try:
                for index, ((key, value), timestamp, windows) in enumerate(
                    zip(pairs, timestamps, windows_column)
                ):
                    try:
                        slots = keys[key]
                    except KeyError:
                        slots = keys[key] = {}
                        opened.append(index)
                    for window in windows:
                        slot = slots.get(window)
                        if slot is None:
                            time = None if at_end else output_time(combiner, window, timestamp)
                            slots[window] = [add(create(), value), time]
                            continue
                        slot[0] = add(slot[0], value)
                        if not at_end:
                            slot[1] = combine_output_times(
                                combiner, slot[1], output_time(combiner, window, timestamp)
                            )
            except UserCodeError:
                raise
            except Exception as error:
                raise failed(value, error) from error
            return opened

        return add_chunk

    def _session_adder(self):
        """``add_chunk`` for a combiner under Sessions: elements wait, per key, until they are
        placed in bulk (``_place_pending``), which is cheaper than placing each as it comes."""
        gap, at_end = self._gap, self._at_end

        def add_chunk(pairs, timestamps, windows_column):
            if at_end and isinstance(windows_column, ProtoSessions) and windows_column.gap == gap:
                keys, values = map(_first, pairs), map(_second, pairs)
                rows = zip(count(), keys, zip(windows_column.starts, values))
                opened = self._wait(self._gapped, rows)
            else:
                opened = self._wait(self._pending, _session_rows(pairs, timestamps, windows_column))
            self._pending_count += len(pairs)
            if self._pending_count >= self._pending_limit:
                self._place_pending()
            return opened

        return add_chunk

    def _wait(self, waiting: dict, rows) -> list:
        """Appends each row's fields to its key's list in ``waiting``; ``rows`` are ``(index,
        key, fields)``. Returns the indexes of the rows whose key was new."""
        keys, opened = self._keys, []
        for index, key, fields in rows:
            try:
                flat = waiting[key]
            except KeyError:
                if key not in keys:
                    keys[key] = SessionSlots()
                    opened.append(index)
                flat = waiting[key] = []
            flat += fields
        return opened

    def _place_pending(self) -> None:
        """Joins each key's pending elements into its sessions: sorted by start, they form
        runs of overlapping windows in one sweep, and the runs merge into the key's sessions
        (as another partition's would)."""
        keys, merge_slots, gap = self._keys, self._merge_slots, self._gap
        for key, flat in self._pending.items():
            fields = iter(flat)
            elements = sorted(zip(fields, fields, fields, fields), key=_first)
            keys[key].merge_from(self._runs(elements[0][0], elements), merge_slots)
        for key, flat in self._gapped.items():
            fields = iter(flat)
            pairs = sorted(zip(fields, fields), key=_first)
            starts = list(map(_first, pairs))
            bounded = zip(starts, map(add, starts, repeat(gap)), map(_second, pairs), repeat(None))
            keys[key].merge_from(self._runs(starts[0], bounded), merge_slots)
        self._pending.clear()
        self._gapped.clear()
        self._pending_count = 0

    def _runs(self, first_start: int, elements) -> SessionSlots:
        """``elements`` ``(start, end, value, timestamp)`` sorted by start, the first at
        ``first_start``, joined while their windows overlap, each run's slot its elements'
        accumulator and output time."""
        aggregation, combiner, at_end = self.aggregation, self.combiner, self._at_end
        add, create = aggregation.adder(), aggregation.create
        runs = SessionSlots()
        starts, ends, slots = runs.starts, runs.ends, runs.slots
        # The open run's accumulator, output time and end; nothing starts before the first
        # element, which so opens the first run.
        accumulator, time, run_end, value = None, None, first_start, None
        try:
            for start, end, value, timestamp in elements:
                if start < run_end:
                    accumulator = add(accumulator, value)
                    if end > run_end:
                        run_end = end
                    if not at_end:  # the output time is the timestamp (not the window's end)
                        time = combine_output_times(combiner, time, timestamp)
                    continue
                if starts:
                    ends.append(run_end)
                    slots.append([accumulator, time])
                time = None if at_end else timestamp
                accumulator, run_end = add(create(), value), end
                starts.append(start)
        except UserCodeError:
            raise
        except Exception as error:
            raise aggregation.failed(value, error) from error
        ends.append(run_end)
        slots.append([accumulator, time])
        return runs

    # -- partial groupings ------------------------------------------------------------------------

    def partials(self):
        """``(key, partial)`` for every key, windows merged, for another grouping's
        ``merge_partial`` (what a Spark partition ships after its map side)."""
        if self._sessions:
            self._place_pending()
        for key, slots in self._keys.items():
            if not self._sessions:
                self._merge_windows(key)
            yield key, slots

    def merge_partial(self, key, partial) -> None:
        """Folds in a key's ``partial`` from another grouping's ``partials()``, taking it over:
        the other grouping is spent."""
        mine = self._keys.get(key)
        if mine is None:
            self._keys[key] = partial
        elif self._sessions:
            mine.merge_from(partial, self._merge_slots)
        else:
            for window, slot in partial.items():
                known = mine.get(window)
                mine[window] = slot if known is None else self._merge_slots([known, slot])

    def merge_from(self, other: BatchGrouping) -> None:
        """Folds in all of ``other``'s keys; ``other`` is spent."""
        for key, partial in other.partials():
            self.merge_partial(key, partial)

    def _merge_slots(self, slots: list) -> list:
        timestamp = slots[0][1]
        for slot in slots[1:]:
            timestamp = combine_output_times(self.combiner, timestamp, slot[1])
        return [self.aggregation.merge([slot[0] for slot in slots]), timestamp]

    # -- results ----------------------------------------------------------------------------------

    def keys(self):
        """The keys, in the order they first arrived."""
        return self._keys.keys()

    def panes(self) -> list:
        """The ON_TIME pane of every key and window, in canonical order: keys as they first
        arrived, then windows by ``window_order``."""
        return [
            wv
            for _, values, timestamps, windows in self.columns(self._keys)
            for wv in map(windowed_value, zip(values, timestamps, windows, repeat(BATCH_PANE)))
        ]

    def columns(
        self, keys, size: int | None = None
    ) -> Iterator[tuple[list, KeyedOutputs, Sequence, Sequence]]:
        """The ON_TIME panes of ``keys``, each key's windows merged and in window order, as
        columns, in chunks of whole keys that end once they hold ``size`` panes (one chunk
        if None): how many panes each key has, the values ``(key, output)``, the timestamps
        and the windows tuples (every pane is ``BATCH_PANE``). Columns rather than a windowed
        value per pane because runners ship them: a key once for all its values, sessions'
        windows as lists of micros, and their ends as the timestamps at the end of them."""
        sessions, at_end, windows_of = self._sessions, self._at_end, self._windows_of
        if sessions:
            self._place_pending()
        chunk_keys, counts, outputs, timestamps, starts, ends, windows = _no_columns()

        def chunk() -> tuple[list, KeyedOutputs, Sequence, Sequence]:
            return (
                counts,
                KeyedOutputs(chunk_keys, counts, outputs),
                MaxTimestamps(ends) if sessions and at_end else timestamps,
                IntervalWindows(starts, ends) if sessions else windows,
            )

        for key in keys:
            if sessions:
                merged = self._keys[key]
                slots = merged.slots
                starts += merged.starts
                ends += merged.ends
                if not at_end:
                    timestamps += [timestamp for _, timestamp in slots]
            else:
                ordered = self._ordered_slots(key)
                slots = [slot for _, slot in ordered]
                for window, (_, timestamp) in ordered:
                    timestamps.append(window.max_timestamp_micros if at_end else timestamp)
                    shared = windows_of.get(window) or windows_of.setdefault(window, (window,))
                    windows.append(shared)
            chunk_keys.append(key)
            counts.append(len(slots))
            outputs += self._outputs(slots)
            if size is not None and len(outputs) >= size:
                yield chunk()
                chunk_keys, counts, outputs, timestamps, starts, ends, windows = _no_columns()
        if counts:
            yield chunk()

    def _outputs(self, slots: list) -> list:
        """The aggregation's outputs of ``slots``' accumulators."""
        aggregation = self.aggregation
        extract = aggregation.extractor()
        outputs: list = []
        append, accumulator = outputs.append, None
        try:
            for accumulator, _ in slots:
                append(extract(accumulator))
        except UserCodeError:
            raise
        except Exception as error:
            raise aggregation.extract_failed(accumulator, error) from error
        return outputs

    def _ordered_slots(self, key) -> list:
        slots = self._keys[key]
        self._merge_windows(key)
        return sorted(slots.items(), key=lambda item: window_order(item[0]))

    def _merge_windows(self, key) -> None:
        """Merges the key's windows as the merging window fn decides (no-op otherwise).
        Merging part of the input first (e.g. per Spark partition) ends in the same windows."""
        if not self.window_fn.is_merging():
            return
        slots = self._keys[key]
        for sources, result in merge_windows(self.window_fn, [], list(slots)):
            merging = [slots.pop(window) for window in sources]
            existing = slots.pop(result, None)
            if existing is not None:
                merging.append(existing)
            slots[result] = self._merge_slots(merging)


def _session_rows(pairs, timestamps, windows_column) -> Iterator:
    """``(index, key, (start, end, value, timestamp))`` for each element and window of a
    chunk: from the bounds themselves when the windows are a column of them."""
    if isinstance(windows_column, (IntervalWindows, ProtoSessions)):
        keys, values = map(_first, pairs), map(_second, pairs)
        fields = zip(windows_column.starts, windows_column.ends, values, timestamps)
        return zip(count(), keys, fields)
    return (
        (index, key, (start, end, value, timestamp))
        for index, ((key, value), timestamp, windows) in enumerate(
            zip(pairs, timestamps, windows_column)
        )
        for start, end in windows
    )


class KeyedOutputs(PartsColumn):
    """A column of values ``(key, output)``: each of ``keys`` paired with as many of
    ``outputs`` as its count says, in order."""

    __slots__ = ("keys", "counts", "outputs")

    def __init__(self, keys: list, counts: list, outputs: list):
        super().__init__()
        self.keys, self.counts, self.outputs = keys, counts, outputs

    def __len__(self) -> int:
        return len(self.outputs)

    def _parts(self) -> tuple:
        return self.keys, self.counts, self.outputs

    def _iterate(self) -> Iterator:
        return zip(chain.from_iterable(map(repeat, self.keys, self.counts)), self.outputs)


def _no_columns() -> tuple[list, list, list, list, list, list, list]:
    """Empty columns for ``BatchGrouping.columns``: keys, counts, outputs, timestamps, starts,
    ends, windows."""
    return [], [], [], [], [], [], []
