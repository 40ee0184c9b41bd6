"""Watermark timelines that stay on the executors.

A source read record at a time in time order moves its watermark at nearly every record, so its
timeline is as long as its input, and so is the output watermark of a grouping fed by it: the
driver must not hold them. Such a timeline is kept as parts in RDDs — a source's watermark
changes, a grouping's holds — and a recipe that combines them (the same rules as on the driver:
``output_timeline``, ``merged_watermarks``). A task that replays a grouping against it receives a
copy of every part in its shuffle (``copies``) and builds the timeline there (``build``); the
driver only sees the recipe.

A timeline is a list of ``Watermark`` events (held on the driver, small by design) or a
``SourceChanges``, ``HeldBack`` or ``Merged``.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING

from panes.runners.eventlog import END_STEP, Watermark, merged_watermarks
from panes.runners.key_driver import output_timeline
from panes.runners.sources import record_step
from panes.timestamp import MAX_MICROS
from panes.watermark import rising

if TYPE_CHECKING:
    from pyspark import RDD

# Events a part ships as one record.
PART_CHUNK = 65536


@dataclass(frozen=True)
class SourceChanges:
    """A bounded source's watermark read record at a time: ``parts`` holds ``(order,
    [(record index, watermark), ...])`` chunks whose points, in order, rise where the watermark
    changes (``panes.watermark.segment_changes``); +inf after the last record."""

    parts: RDD


@dataclass(frozen=True)
class HeldBack:
    """A grouping's output watermark: its ``input`` timeline held back by the holds in
    ``parts``, ``(order, [(step, holder, hold), ...])`` chunks."""

    input: object
    parts: RDD


@dataclass(frozen=True)
class Part:
    """One chunk of a part (the ``index``-th of a ``layout``), as a shuffle delivers it."""

    index: int
    order: tuple
    chunk: list


@dataclass(frozen=True)
class Merged:
    """The watermark of several timelines merged (Flatten)."""

    inputs: tuple


Timeline = list | SourceChanges | HeldBack | Merged


def is_spread(timeline) -> bool:
    return not isinstance(timeline, list)


def layout(timeline) -> tuple:
    """``(parts, shape)``: the RDDs of a timeline's parts, and its recipe with each part
    replaced by its index there (what a task needs to ``build`` it, picklable)."""
    parts: list = []

    def shape(node):
        if isinstance(node, list):
            return ("held", node)
        if isinstance(node, Merged):
            return ("merged", tuple(map(shape, node.inputs)))
        parts.append(node.parts)
        index = len(parts) - 1
        if isinstance(node, SourceChanges):
            return ("source", index)
        return ("held_back", shape(node.input), index)

    return parts, shape(timeline)


def copies(parts: list, partitions: int) -> RDD:
    """Every chunk of ``parts`` once for each of ``partitions``, as ``(partition, Part)``
    records for a shuffle that routes by partition."""
    return parts[0].context.union(
        [
            rdd.flatMap(
                lambda record, index=index: (
                    (partition, Part(index, *record)) for partition in range(partitions)
                )
            )
            for index, rdd in enumerate(parts)
        ]
    )


def received(shape: tuple, items) -> tuple:
    """A shuffled partition's items without the ``Part`` copies among them, and the timeline
    of ``shape`` built from those."""
    others: list = []
    chunks: dict = {}
    for item in items:
        if type(item) is Part:
            chunks.setdefault(item.index, []).append((item.order, item.chunk))
        else:
            others.append(item)
    return others, build(shape, chunks)


def build(shape: tuple, chunks: dict) -> list:
    """The timeline's ``Watermark`` events from its ``shape`` and each part's ``(order,
    chunk)`` records (``chunks[part index]``)."""
    kind = shape[0]
    if kind == "held":
        return shape[1]
    if kind == "merged":
        return merged_watermarks([build(input, chunks) for input in shape[1]])
    if kind == "source":
        points = rising(_in_order(chunks.get(shape[1], [])))
        events = [Watermark(record_step(index), watermark) for index, watermark in points]
        return [*events, Watermark(END_STEP, MAX_MICROS)]
    return output_timeline(build(shape[1], chunks), list(_in_order(chunks.get(shape[2], []))))


def chunked(order, events: list):
    """``events`` as ``(order + (n,), chunk)`` part records of at most ``PART_CHUNK`` each."""
    for n, start in enumerate(range(0, len(events), PART_CHUNK)):
        yield (*order, n), events[start : start + PART_CHUNK]


def _in_order(records: list):
    return chain.from_iterable(chunk for _, chunk in sorted(records, key=lambda r: r[0]))
