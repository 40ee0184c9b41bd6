"""Columns of windows and timestamps, kept as the parts they are made of (``PartsColumn``):
what the window assigners give the batch groupings, and what runners ship between
processes."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import repeat
from operator import sub

from panes.window import interval_window


class PartsColumn(Sequence):
    """A column of entries kept as the parts they are made of (bounds, keys and counts), which
    pickle for a fraction of what the entries cost: what runners ship between processes.
    Built whole when first indexed, iterated from the parts; subclasses give ``_parts`` and
    ``_iterate`` (the entries, in order)."""

    __slots__ = ("_entries",)

    def __init__(self):
        self._entries: list | None = None

    def _parts(self) -> tuple:
        raise NotImplementedError

    def _iterate(self) -> Iterator:
        raise NotImplementedError

    def entries(self) -> list:
        if self._entries is None:
            self._entries = list(self._iterate())
        return self._entries

    def __getitem__(self, index):
        return self.entries()[index]

    def __iter__(self):
        return self._iterate() if self._entries is None else iter(self._entries)

    def __reduce__(self):
        return type(self), self._parts()


class IntervalWindows(PartsColumn):
    """A column of windows tuples, the i-th ``(IntervalWindow(starts[i], ends[i]),)`` (bounds
    in micros)."""

    __slots__ = ("starts", "ends")

    def __init__(self, starts: list, ends: list):
        super().__init__()
        self.starts, self.ends = starts, ends

    def __len__(self) -> int:
        return len(self.starts)

    def _parts(self) -> tuple:
        return self.starts, self.ends

    def _iterate(self) -> Iterator:
        return zip(map(interval_window, zip(self.starts, self.ends)))


class ProtoSessions(PartsColumn):
    """A column of windows tuples, the i-th ``(IntervalWindow(starts[i], starts[i] + gap),)``:
    each element's own session before any merging (micros), kept as the starts and the gap."""

    __slots__ = ("starts", "gap")

    def __init__(self, starts: list, gap: int):
        super().__init__()
        self.starts, self.gap = starts, gap

    def __len__(self) -> int:
        return len(self.starts)

    @property
    def ends(self) -> list:
        gap = self.gap
        return [start + gap for start in self.starts]

    def _parts(self) -> tuple:
        return self.starts, self.gap

    def _iterate(self) -> Iterator:
        return zip(map(interval_window, zip(self.starts, self.ends)))


class MaxTimestamps(PartsColumn):
    """A column of timestamps, the i-th ``ends[i] - 1``: the max timestamps of windows that end
    at ``ends`` (micros), as panes output at the end of their windows have."""

    __slots__ = ("ends",)

    def __init__(self, ends: list):
        super().__init__()
        self.ends = ends

    def __len__(self) -> int:
        return len(self.ends)

    def _parts(self) -> tuple:
        return (self.ends,)

    def _iterate(self) -> Iterator:
        return map(sub, self.ends, repeat(1))
