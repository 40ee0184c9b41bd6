"""How the direct runner holds a collection: a stream of bundles and watermark advances, each
at a step of the pipeline's event log."""

from __future__ import annotations

from dataclasses import dataclass

FIRST_STEP = 0
# Bounded input ends here: watermarks go to +inf and processing time to its end.
END_STEP = 2**62


@dataclass
class Bundle:
    step: int
    elements: list


@dataclass
class Watermark:
    """The collection's watermark from ``step`` on; ``idle``: its source has gone quiet and
    does not hold back a combined watermark (Flink's idleness)."""

    step: int
    time: int
    idle: bool = False


@dataclass
class ProcessingTime:
    step: int
    time: int


def by_step(streams) -> list:
    """Merges several step-ordered streams into ``(step, [(input_index, event), ...])``."""
    merged: dict = {}
    for index, stream in enumerate(streams):
        for event in stream:
            merged.setdefault(event.step, []).append((index, event))
    return sorted(merged.items())


def elements_of(stream) -> list:
    return [wv for event in stream if isinstance(event, Bundle) for wv in event.elements]
