"""How the Spark runner holds a collection: an RDD of ``(position, WindowedValue)`` plus the
collection's watermark timeline, which is small and kept on the driver."""

from __future__ import annotations

import random
from dataclasses import dataclass

from panes.timestamp import MAX_TIMESTAMP
from panes.runners.eventlog import FIRST_STEP, Bundle, Watermark


@dataclass
class Collection:
    rdd: object
    timeline: list  # Watermark events, step-ordered
    step: int | None  # the one step all elements are at, when known

    def is_batch(self) -> bool:
        """Beam batch: all elements at one step, then the watermark straight to +inf."""
        return (self.step is not None and len(self.timeline) == 1
                and self.timeline[0].time == MAX_TIMESTAMP and self.step <= self.timeline[0].step)


def from_stream(plan, stream: list, label: str) -> Collection:
    """A collection from a direct-style event stream built on the driver (sources)."""
    records = [((event.step, index), wv) for event in stream if isinstance(event, Bundle)
               for index, wv in enumerate(event.elements)]
    if plan.shuffle_seed is not None:
        random.Random(plan.shuffle_seed).shuffle(records)
    steps = {position[0] for position, _ in records}
    step = steps.pop() if len(steps) == 1 else (FIRST_STEP if not steps else None)
    rdd = plan.sc.parallelize(records, plan.partitions).setName(label)
    return Collection(rdd, [e for e in stream if isinstance(e, Watermark)], step)
