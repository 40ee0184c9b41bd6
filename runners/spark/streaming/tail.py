"""Groupings after groupings, and ParDos with side inputs: the *tail* of a pipeline, run step by
step in one place.

A grouping's input watermark downstream of another grouping is that grouping's output
watermark — its input watermark held back by the holds of all its keys — which no single key
knows and Spark cannot compute (it hands a downstream operator its own input watermark). So
the groupings after the first layer run in one operator key, the tail: first-layer keys send it
their outputs and the changes of their earliest holds; once every first-layer key has passed a
step (Spark's watermark says so), the tail finishes that step for each of its groupings in
topological order, as the direct runner's replay does — processing time, the step's bundle,
the input watermark — with each step's outputs in canonical order (the key's first arrival,
then window), and each grouping's output watermark for the next. Each node keeps its own last
finished step: a ParDo with side inputs waits for its side windows (``side_inputs``), and the
nodes after it wait with it, while those before go on.

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
from panes.runners.spark.positions import FINISH, TAIL_STEP, grouped
from panes.runners.spark.streaming.key_state import dump_state, load_state
from panes.runners.spark.streaming.rows import IN, SIDE
from panes.runners.spark.streaming.side_inputs import SideInputParDo
from panes.timestamp import MIN_MICROS
from panes.windowing.output_watermark import held_back


def layers(ir) -> tuple:
    """``(first, tail, downstream)``: the groupings fed by sources only; the tail's nodes, in
    topological order: the groupings after another grouping or after a ParDo with side inputs,
    and those ParDos (``side_inputs``); and the collections after any of these."""
    downstream: set = set()
    first: list = []
    tail: list = []
    for node in ir.nodes.values():
        after = any(pc in downstream for pc in node.inputs)
        if is_keyed(ir, node) or node.side_inputs:
            (tail if after or node.side_inputs else first).append(node.id)
            downstream |= set(node.outputs.values())
        elif after:
            downstream |= set(node.outputs.values())
    return first, tail, downstream


class TailState:
    """The tail's state between micro-batches: plain data, pickled whole into one state row."""

    def __init__(self):
        self.complete = -math.inf  # the last step complete upstream of the tail
        self.sources: dict = {}  # complete step -> {source-fed collection id: its watermark}
        self.times: dict = {}  # complete step -> processing time
        self.done: dict = {}  # tail node id -> the last step it finished
        self.pending: dict = {}  # step -> {tail node id: records}
        self.hold_changes: dict = {}  # step -> [(first-layer grouping id, old, new)]
        self.holds: dict = {}  # first-layer grouping id -> Counter of its keys' earliest holds
        self.keys: dict = {}  # tail grouping id -> {key: state bytes}
        self.firsts: dict = {}  # tail grouping id -> {key: position of its first element}
        self.clocks: dict = {}  # tail grouping id -> (input watermark, processing time) so far
        self.watermarks: dict = {}  # tail node id -> {step: its output watermark after it}
        self.sides: dict = {}  # side collection id -> its records so far

    def receive(self, entries: list) -> None:
        for entry in entries:
            if entry[0] == IN:
                self.add(entry[1], entry[2])
            elif entry[0] == SIDE:
                self.add_side(entry[1], entry[2])
            else:
                _, label, step, old, new = entry
                self.hold_changes.setdefault(step, []).append((label, old, new))

    def add(self, label: str, records) -> None:
        """Input records of the tail node ``label``, by the step of their position."""
        for record in records:
            self.pending.setdefault(record[0][0], {}).setdefault(label, []).append(record)

    def add_side(self, pcollection_id: str, records) -> None:
        """Records of a side collection, kept for the ParDos that read it."""
        self.sides.setdefault(pcollection_id, []).extend(records)

    def take(self, label: str, step) -> list:
        """The tail node's records of ``step`` and before, in position order."""
        records = []
        for pending_step in [pending for pending in self.pending if pending <= step]:
            records += self.pending[pending_step].pop(label, ())
            if not self.pending[pending_step]:
                del self.pending[pending_step]
        return sorted(records, key=itemgetter(0))

    def waiting(self) -> bool:
        return bool(self.pending or self.hold_changes or any(self.keys.values()))


class Tail:
    """Runs the tail's steps; built once per worker process from the IR."""

    def __init__(self, ir):
        self.ir = ir
        self.first_ids, self.order, self.downstream = layers(ir)
        self.rank = {label: rank for rank, label in enumerate(self.order)}
        self.sourced = [pc for pc in ir.pcollections if pc not in self.downstream]
        self.groupings, self.side_input_pardos = {}, {}
        for label in self.order:
            node = ir.nodes[label]
            if node.side_inputs:
                self.side_input_pardos[label] = SideInputParDo(ir, node)
                continue
            keyed = KeyedNode(node, ir.pcollections[node.inputs[0]].windowing)
            keyed.open()
            self.groupings[label] = (node, keyed)
        self.feeders = {
            label: set().union(*(self._feeders(pc) for pc in ir.nodes[label].inputs))
            for label in self.order
        }
        self._state = TailState()

    def close(self) -> None:
        for _, keyed in self.groupings.values():
            keyed.close()

    def deliver(self, node, chunk) -> None:
        """The tail's router exit for its own nodes: input for the steps of its positions."""
        self._state.add(node.id, zip(*chunk))

    def deliver_side(self, pcollection_id: str, chunk) -> None:
        """The tail's router exit for side collections."""
        self._state.add_side(pcollection_id, zip(*chunk))

    def finish(self, state: TailState, timeline, router, counters: dict) -> None:
        """Finishes, node by node in topological order, the steps ``timeline`` says are
        complete, pushing outputs into ``router``; ``counters``: where the windowing core
        counts each grouping's drops. A node finishes a step once the tail nodes feeding it
        have; a ParDo with side inputs, once the side windows its step's elements read are
        complete (``side_inputs``): until then it and what follows it wait."""
        self._state = state
        for step in timeline.complete_steps(state.complete):
            state.sources[step] = {pc: timeline.source_watermark(pc, step) for pc in self.sourced}
            state.times[step] = timeline.processing_time(step)
            state.complete = step
        steps = sorted(state.sources)
        for label in self.order:
            fed = min(
                (state.done.get(feeder, -math.inf) for feeder in self.feeders[label]),
                default=math.inf,
            )
            for step in steps:
                if step <= state.done.get(label, -math.inf) or step > fed:
                    continue
                records = state.take(label, step)
                router.start_bundle()
                ran = self._step(state, step, label, records, router, counters)
                router.finish_bundle(step, (TAIL_STEP, self.rank[label]))
                if not ran:
                    state.add(label, records)
                    break
                state.done[label] = step
        self._forget(state)

    def _step(self, state, step, label: str, records, router, counters: dict) -> bool:
        """One step of one tail node, a bundle of the transforms after it (so that what they
        emit from ``finish_bundle`` reaches the nodes they feed at this step); says whether
        it ran."""
        if label in self.side_input_pardos:
            return self._side_input_step(state, step, label, records, router)
        node, core = self.groupings[label]
        self._grouping_step(state, step, node, core, records, router, counters[label])
        return True

    def _side_input_step(self, state, step, label, records, router) -> bool:
        """Runs the step of a ParDo with side inputs, if its side windows are complete by the
        side collections' latest watermarks; says whether it ran."""
        pardo = self.side_input_pardos[label]
        watermarks = [
            self._watermark(state, spec.pcollection, state.complete) for spec in pardo.specs
        ]
        if not pardo.complete(records, watermarks):
            return False
        pardo.run(records, state.sides, router)
        state.watermarks.setdefault(label, {})[step] = self._watermark(
            state, pardo.node.inputs[0], step
        )
        return True

    def _forget(self, state) -> None:
        """Drops the clocks and watermarks of steps every tail node has finished, and folds
        their changes of holds into the holds."""
        floor = min((state.done.get(label, -math.inf) for label in self.order), default=-math.inf)
        for step in [step for step in state.hold_changes if step <= floor]:
            for label, old, new in state.hold_changes.pop(step):
                holds = state.holds.setdefault(label, Counter())
                if old is not None:
                    holds[old] -= 1
                if new is not None:
                    holds[new] += 1
        for step in [step for step in state.sources if step < floor]:
            del state.sources[step], state.times[step]
        for history in state.watermarks.values():
            for step in [step for step in history if step < floor]:
                del history[step]

    def _feeders(self, pcollection_id: str) -> set:
        """The tail nodes whose outputs reach ``pcollection_id`` through element-wise steps."""
        producer = self.ir.pcollections[pcollection_id].producer
        if producer in self.order:
            return {producer}
        if pcollection_id not in self.downstream or producer in self.first_ids:
            return set()
        return set().union(*(self._feeders(pc) for pc in self.ir.nodes[producer].inputs))

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
        after = (self._watermark(state, node.inputs[0], step), state.times[step])
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
        state.watermarks.setdefault(label, {})[step] = held_back(after[0], min(holds, default=None))
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
        grouping's output watermark, a tail node's (after the last step it finished, if
        before ``step``), or its producer's input's (the minimum over a Flatten's inputs)."""
        if pcollection_id not in self.downstream:
            return state.sources[step][pcollection_id]
        producer = self.ir.nodes[self.ir.pcollections[pcollection_id].producer]
        if producer.id in state.done:
            history = state.watermarks[producer.id]
            return history[min(step, state.done[producer.id])]
        if producer.id in self.order:
            return MIN_MICROS
        if producer.id in self.first_ids:
            return held_back(
                self._watermark(state, producer.inputs[0], step),
                self._earliest_hold(state, producer.id, step),
            )
        return min(self._watermark(state, pc, step) for pc in producer.inputs)

    def _earliest_hold(self, state, label: str, step):
        """The earliest hold of a first-layer grouping's keys after ``step``: the folded holds
        with the changes of later steps up to ``step``."""
        holds, changed = state.holds.get(label, {}), Counter[int | None]()
        for change_step, changes in state.hold_changes.items():
            if change_step <= step:
                for grouping, old, new in changes:
                    if grouping == label:
                        changed[old] -= 1
                        changed[new] += 1
        held = [hold for hold, count in holds.items() if count + changed[hold] > 0]
        held += [hold for hold, count in changed.items() if count > 0 and hold not in holds]
        return min((hold for hold in held if hold is not None), default=None)
