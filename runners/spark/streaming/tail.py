"""Groupings after groupings: the *tail* of a pipeline, run step by step in one place.

A grouping's input watermark downstream of another grouping is that grouping's output
watermark — its input watermark held back by the holds of all its keys — which no single key
knows and Spark cannot compute (it hands a downstream operator its own input watermark). So
the groupings after the first layer run in one operator key, the tail: first-layer keys send it
their outputs and the changes of their earliest holds; once every first-layer key has passed a
step (Spark's watermark says so), the tail finishes that step for each of its groupings in
topological order, as the direct runner's replay does — processing time, the step's bundle,
the input watermark — with each step's outputs in canonical order (the key's first arrival,
then window), and each grouping's output watermark for the next.

This trades parallelism for exactness: the tail is one task. It suits what follows a grouping
in practice (panes are few: totals, top-k); docs/streaming.md says so.
"""

from __future__ import annotations

import math
from collections import Counter
from operator import itemgetter

from panes.runners.fusion import Chunk
from panes.runners.key_driver import KeyDriver, Timeline, canonical
from panes.runners.keyed import KeyedNode, is_keyed
from panes.runners.keys import key_values
from panes.runners.spark.positions import FINISH, grouped
from panes.runners.spark.streaming.key_state import dump_state, load_state
from panes.runners.spark.streaming.rows import IN
from panes.timestamp import MIN_MICROS
from panes.windowing.output_watermark import held_back


def layers(ir) -> tuple:
    """``(first, tail, downstream)``: the groupings fed by sources only, those after another
    grouping, and the collections after a grouping."""
    downstream: set = set()
    first: list = []
    tail: list = []
    for node in ir.nodes.values():
        after = any(pc in downstream for pc in node.inputs)
        if is_keyed(ir, node):
            (tail if after else first).append(node.id)
            downstream |= set(node.outputs.values())
        elif after:
            downstream |= set(node.outputs.values())
    return first, tail, downstream


class TailState:
    """The tail's state between micro-batches: plain data, pickled whole into one state row."""

    def __init__(self):
        self.done = -math.inf  # the last step finished
        self.pending: dict = {}  # step -> {grouping id: records}
        self.hold_changes: dict = {}  # step -> [(first-layer grouping id, old, new)]
        self.holds: dict = {}  # first-layer grouping id -> Counter of its keys' earliest holds
        self.keys: dict = {}  # tail grouping id -> {key: state bytes}
        self.firsts: dict = {}  # tail grouping id -> {key: position of its first element}
        self.clocks: dict = {}  # tail grouping id -> (input watermark, processing time) so far
        self.watermarks: dict = {}  # tail grouping id -> its output watermark so far

    def receive(self, entries: list) -> None:
        for entry in entries:
            if entry[0] == IN:
                _, label, records = entry
                for record in records:
                    self.pending.setdefault(record[0][0], {}).setdefault(label, []).append(record)
            else:
                _, label, step, old, new = entry
                self.hold_changes.setdefault(step, []).append((label, old, new))

    def waiting(self) -> bool:
        return bool(self.pending or self.hold_changes or any(self.keys.values()))


class Tail:
    """Runs the tail's steps; built once per worker process from the IR."""

    def __init__(self, ir):
        self.ir = ir
        self.first_ids, tail_ids, self.downstream = layers(ir)
        self.groupings = {}
        for label in tail_ids:
            node = ir.nodes[label]
            keyed = KeyedNode(node, ir.pcollections[node.inputs[0]].windowing)
            keyed.open()
            self.groupings[label] = (node, keyed)
        self._inputs: dict = {}

    def close(self) -> None:
        for _, keyed in self.groupings.values():
            keyed.close()

    def deliver(self, node, chunk) -> None:
        """The tail's router exit for its own groupings: input for the step being finished."""
        self._inputs.setdefault(node.id, []).extend(zip(*chunk))

    def finish(self, state: TailState, timeline, router, counters: dict) -> None:
        """Finishes the steps ``timeline`` says are complete, pushing outputs into ``router``;
        ``counters``: where the windowing core counts each grouping's drops."""
        self.source_watermark = timeline.source_watermark
        self.processing_time = timeline.processing_time
        for step in timeline.complete_steps(state.done):
            for label, old, new in state.hold_changes.pop(step, ()):
                holds = state.holds.setdefault(label, Counter())
                if old is not None:
                    holds[old] -= 1
                if new is not None:
                    holds[new] += 1
            self._inputs = state.pending.pop(step, {})
            for label, (node, core) in self.groupings.items():
                records = sorted(self._inputs.pop(label, ()), key=itemgetter(0))
                self._grouping_step(state, step, node, core, records, router, counters[label])
            state.done = step

    def _grouping_step(self, state, step, node, core, records, router, counters) -> None:
        """One step of one tail grouping over all its keys: the key driver advances each key
        through the step (processing time, its bundle, then the input watermark)."""
        label = node.id
        firsts = state.firsts.setdefault(label, {})
        by_key: dict = {}
        for record, (key, value) in zip(
            records, key_values(label, core.kind, [r[1] for r in records])
        ):
            by_key.setdefault(key, []).append((record[0], value, *record[2:]))
            firsts.setdefault(key, record[0])
        states = {key: load_state(blob) for key, blob in state.keys.get(label, {}).items()}
        before = state.clocks.get(label, (MIN_MICROS, MIN_MICROS))
        after = (self._watermark(state, node.inputs[0], step), self.processing_time(step))
        timeline = Timeline.of_step(step, before, after)
        processor = core.processor
        driver = KeyDriver(processor, counters)
        emissions, kept, holds = [], {}, []
        core.start_bundle()
        for key in [*states, *(key for key in by_key if key not in states)]:
            run = driver.advance(key, states.get(key), by_key.get(key, []), timeline)
            emissions += [(step, firsts[key], key, tag, wv) for step, tag, wv in run.ordered()]
            if run.state is not None:
                kept[key] = dump_state(run.state)
                if (hold := processor.earliest_hold(run.state)) is not None:
                    holds.append(hold)
        for index, (tag, wv) in enumerate(core.finish_bundle()):
            emissions.append((step, (step, FINISH, index), None, tag, wv))
        state.keys[label] = kept
        state.watermarks[label] = held_back(after[0], min(holds, default=None))
        state.clocks[label] = after
        self._emit(core, step, canonical(emissions), router)

    def _emit(self, core, step, emissions: list, router) -> None:
        for tag, output in core.outputs.items():
            positions, values, index, previous = [], [], 0, None
            for _, first, _, emitted_tag, wv in emissions:
                if emitted_tag == tag:
                    index = index + 1 if first == previous else 0
                    previous = first
                    positions.append(grouped(step, first, index))
                    values.append(wv)
            if output is not None and values:
                router.push(output, Chunk.of(positions, values))

    def _watermark(self, state, pcollection_id: str, step):
        """A collection's watermark after ``step``: a source-fed one's, a first-layer
        grouping's output watermark, a tail grouping's, or its producer's input's (the
        minimum over a Flatten's inputs)."""
        if pcollection_id not in self.downstream:
            return self.source_watermark(pcollection_id, step)
        producer = self.ir.nodes[self.ir.pcollections[pcollection_id].producer]
        if producer.id in self.groupings:
            return state.watermarks.get(producer.id, MIN_MICROS)
        if producer.id in self.first_ids:
            holds = [hold for hold, count in state.holds.get(producer.id, {}).items() if count > 0]
            return held_back(
                self.source_watermark(producer.inputs[0], step), min(holds, default=None)
            )
        return min(self._watermark(state, pc, step) for pc in producer.inputs)
