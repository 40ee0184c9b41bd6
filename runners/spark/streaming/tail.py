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

from panes.runners.eventlog import END_STEP
from panes.runners.fusion import Chunk
from panes.runners.replay import key_values
from panes.runners.spark.positions import grouped
from panes.runners.spark.streaming import key_state
from panes.runners.spark.streaming.key_state import (EVENT_TIME, LATE, MAIN,
                                                     PROCESSING_TIME)
from panes.runners.spark.streaming.routing import GROUPINGS
from panes.runners.spark.streaming.rows import IN
from panes.timestamp import MIN_TIMESTAMP
from panes.window import window_order



def layers(ir) -> tuple:
    """``(first, tail, downstream)``: the groupings fed by sources only, those after another
    grouping, and the collections after a grouping."""
    downstream, first, tail = set(), [], []
    for node in ir.nodes.values():
        after = any(pc in downstream for pc in node.inputs)
        if node.kind in GROUPINGS:
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
            self.groupings[label] = (ir.nodes[label], key_state.Grouping.of(ir, ir.nodes[label]))
        self._inputs: dict = {}

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
        """One step of one tail grouping over all its keys: processing time, the bundle, then
        the input watermark (at the end of input: bundle, watermark, processing time)."""
        label = node.id
        firsts = state.firsts.setdefault(label, {})
        watermark_before, now_before = state.clocks.get(label, (MIN_TIMESTAMP, MIN_TIMESTAMP))
        by_key: dict = {}
        for record, (key, value) in zip(records, key_values(label, node.kind,
                                                             [r[1] for r in records])):
            by_key.setdefault(key, []).append((record[0], value, *record[2:]))
            firsts.setdefault(key, record[0])
        live = {key: core.load(key, blob, counters)
                for key, blob in state.keys.get(label, {}).items()}
        for key in by_key:
            if key not in live:
                live[key] = core.new_state(key, counters)
                for domain, time in ((EVENT_TIME, watermark_before), (PROCESSING_TIME, now_before)):
                    if time > MIN_TIMESTAMP:
                        key_state.advance(live[key], domain, time)
        watermark = self._watermark(state, node.inputs[0], step)
        now = self.processing_time(step)
        actions = [(PROCESSING_TIME, now), (None, None), (EVENT_TIME, watermark)]
        if step == END_STEP:
            actions = actions[1:] + actions[:1]
        emissions: list = []
        for domain, time in actions:
            for key, key_state_ in live.items():
                if domain is None:
                    emitted = key_state.process(key_state_, by_key[key]) if key in by_key else ()
                elif time is not None and key_state.clock(key_state_, domain) < time:
                    emitted = key_state.advance(key_state_, domain, time)
                else:
                    continue
                emissions += [((firsts[key], window_order(wv.windows[0]), len(emissions)), tag,
                               wv) for tag, wv in emitted]
        state.keys[label] = {key: key_state.dump(s) for key, s in live.items()
                             if not key_state.is_empty(s)}
        holds = [h for s in live.values() if (h := key_state.earliest_hold(s)) is not None]
        state.watermarks[label] = min([watermark, *holds])
        state.clocks[label] = (watermark, now_before if now is None else now)
        self._emit(node, step, sorted(emissions, key=itemgetter(0)), router)

    def _emit(self, node, step, emissions: list, router) -> None:
        late = node.payload.get("late_output")
        outputs = {MAIN: node.outputs["main"], LATE: node.outputs.get(late) if late else None}
        for tag, output in outputs.items():
            positions, values, index, previous = [], [], 0, None
            for (first, _, _), emitted_tag, wv in emissions:
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
            return state.watermarks.get(producer.id, MIN_TIMESTAMP)
        if producer.id in self.first_ids:
            holds = [hold for hold, count in state.holds.get(producer.id, {}).items() if count > 0]
            return min([self.source_watermark(producer.inputs[0], step), *holds])
        return min(self._watermark(state, pc, step) for pc in producer.inputs)
