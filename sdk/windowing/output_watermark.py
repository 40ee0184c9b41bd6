"""A grouping's output watermark (Beam's): its input watermark held back by the holds of the
panes it has still to emit. The rule is written here once: for one key (``held_back``), and
over many holders — the keys of a grouping, or Spark partitions each standing for its keys —
as their minimum (``OutputWatermark``).
"""

from __future__ import annotations

import heapq

from panes.timestamp import MIN_MICROS


def held_back(input_watermark: int, hold: int | None) -> int:
    """The input watermark held back by ``hold`` (None: nothing holds it)."""
    return input_watermark if hold is None or hold >= input_watermark else hold


class OutputWatermark:
    """The input watermark held back by the earliest hold of any holder. A holder's hold
    changes with ``hold(holder, time)``; None releases it."""

    def __init__(self):
        self.input_watermark = MIN_MICROS
        self._holds: dict = {}  # holder -> hold
        self._earliest: list = []  # heap of (hold, holder); stale entries are skipped

    def hold(self, holder, time: int | None) -> None:
        if time is None:
            self._holds.pop(holder, None)
            return
        self._holds[holder] = time
        heapq.heappush(self._earliest, (time, holder))

    def value(self) -> int:
        earliest, holds = self._earliest, self._holds
        while earliest and holds.get(earliest[0][1]) != earliest[0][0]:
            heapq.heappop(earliest)
        return held_back(self.input_watermark, earliest[0][0] if earliest else None)
