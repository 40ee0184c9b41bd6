"""The rule by which ``Sessions`` merge (``SessionSlots``), written once for the API's
``Sessions.merge`` (all windows at once) and the engine's batch groupings (as elements
arrive): hence at the lowest layer, which both may import."""

from __future__ import annotations

from bisect import bisect_right


class SessionSlots:
    """Sessions as they merge: disjoint intervals ``[starts[i], ends[i])`` sorted by start, each
    with its slot (what the caller keeps for it).

    Sessions merge every group of overlapping windows into their span, whatever order they
    come in: the spans are the connected parts of the windows' union. So a key can keep its
    sessions disjoint and sorted at all times — a window that overlaps some of them joins them
    into one — and end where merging all windows at once would. Sessions kept apart (e.g. by
    Spark partitions) join the same way.
    """

    __slots__ = ("starts", "ends", "slots")

    def __init__(self):
        self.starts: list = []
        self.ends: list = []
        self.slots: list = []

    def place(self, start: int, end: int, merge_slots) -> int:
        """The index of the session ``[start, end)`` belongs to once every session it overlaps
        has been merged into one (their slots by ``merge_slots(slots) -> slot``) and widened
        to cover it. Overlapping none, it becomes a new session whose slot is None."""
        starts, ends = self.starts, self.ends
        count = len(starts)
        # Sessions before `index` start at or before `start`: only the last of them can hold it.
        index = count if not count or start >= starts[-1] else bisect_right(starts, start)
        low = index - 1 if index and ends[index - 1] > start else index
        high = index
        while high < count and starts[high] < end:
            high += 1
        if low == high:
            starts.insert(index, start)
            ends.insert(index, end)
            self.slots.insert(index, None)
            return index
        if high - low > 1:
            slots = self.slots
            slots[low] = merge_slots(slots[low:high])
            ends[low] = ends[high - 1]
            del starts[low + 1 : high], ends[low + 1 : high], slots[low + 1 : high]
        if start < starts[low]:
            starts[low] = start
        if end > ends[low]:
            ends[low] = end
        return low

    def merge_from(self, other: SessionSlots, merge_slots) -> None:
        """Joins ``other``'s sessions and slots into these. Those that start at or after the
        end of all of these are appended as they are (input mostly in time order)."""
        starts, ends, slots = self.starts, self.ends, self.slots
        for index, (start, end, slot) in enumerate(zip(other.starts, other.ends, other.slots)):
            if not ends or start >= ends[-1]:
                starts += other.starts[index:]
                ends += other.ends[index:]
                slots += other.slots[index:]
                return
            at = self.place(start, end, merge_slots)
            slots[at] = slot if slots[at] is None else merge_slots([slots[at], slot])
