"""Pushes elements through the element-wise transforms that follow a collection, up to where
they leave the process: a grouping's input or a sink.

The streaming runner runs element-wise work where the elements are — after a source, in the
ingest stage; after a grouping, in that grouping's operator — so a collection's consumers are
built here as one push graph of ``fusion`` stages: single-output ParDos and WindowIntos as
fused stages, ParDos with tagged outputs element by element, Flattens by renumbering positions.
Elements travel as ``fusion.Chunk`` columns with Spark-runner positions
(``panes.runners.spark.positions``), so any later sort restores the direct runner's order.
"""

from __future__ import annotations

from bisect import insort

from panes.compiler.lift import lift
from panes.runners.fusion import Chunk, ParDoStage, WindowStage
from panes.runners.keyed import is_keyed
from panes.runners.spark.positions import FINISH, flattened
from panes.transforms.dofn_runner import DoFnRunner
from panes.window import windowed_value


class Router:
    """The push graph below collections, built on first use. ``exit(node, chunk)`` receives
    what reaches a grouping, a write or a ParDo with side inputs (the tail runs those),
    ``side(pcollection_id, chunk)`` what reaches a side collection; ``cell`` is the metrics
    cell of the loop running it."""

    def __init__(self, ir, exit, side, cell: list):
        self.ir, self.exit, self.side, self.cell = ir, exit, side, cell
        self._sides = {spec.pcollection for node in ir.nodes.values() for spec in node.side_inputs}
        self._pushes: dict = {}
        self._through: dict = {}
        self._rank = {node_id: rank for rank, node_id in enumerate(ir.nodes)}
        self.stages: list = []  # in topological order: each finishes before those it feeds
        self._in_bundle = False

    def push(self, pcollection_id: str, chunk: Chunk) -> None:
        self._entry(pcollection_id)(chunk)

    def push_through(self, node, chunk: Chunk, resolver) -> None:
        """Pushes ``chunk`` through ``node``, a ParDo whose side inputs ``resolver`` gives."""
        if node.id not in self._through:
            self._through[node.id] = self._stage(node, resolver)
        self._through[node.id](chunk)

    def start_bundle(self) -> None:
        """Starts a bundle of every stage; one built during the bundle starts it when built."""
        self._in_bundle = True
        for stage in self.stages:
            self.cell[1] = stage.label
            stage.start_bundle()

    def finish_bundle(self, step: int, bundle_id: tuple) -> None:
        """Ends the bundle; ``finish_bundle`` outputs come after their step's elements."""
        for stage in self.stages:
            self.cell[1] = stage.label
            stage.finish_bundle(lambda index: (step, FINISH, *bundle_id, index))
        self._in_bundle = False

    def close(self) -> None:
        for stage in self.stages:
            self.cell[1] = stage.label
            stage.close()

    def _entry(self, pcollection_id: str):
        if pcollection_id not in self._pushes:
            consumers = self.ir.consumers(pcollection_id)
            pushes = [
                self._consumer(node, pcollection_id)
                for node in consumers
                if pcollection_id in node.inputs
            ]
            if pcollection_id in self._sides:
                side = self.side
                pushes.append(lambda chunk: side(pcollection_id, chunk))
            self._pushes[pcollection_id] = pushes[0] if len(pushes) == 1 else _fan_out(pushes)
        return self._pushes[pcollection_id]

    def _consumer(self, node, pcollection_id: str):
        if is_keyed(self.ir, node) or node.kind == "write" or node.side_inputs:
            exit = self.exit
            return lambda chunk: exit(node, chunk)
        if node.kind == "flatten":
            index, down = node.inputs.index(pcollection_id), self._entry(node.outputs["main"])
            return lambda chunk: down(
                chunk._replace(
                    positions=[flattened(position, index) for position in chunk.positions]
                )
            )
        return self._stage(node)

    def _stage(self, node, resolver=None):
        """The push function of an element-wise ``node``'s stage, bound to its consumers."""
        stage: WindowStage | ParDoStage | _TaggedParDo
        if node.kind == "assign_windows":
            window_fn = lift(self.ir.pcollections[node.outputs["main"]].windowing).window_fn
            stage, down = WindowStage(node.id, window_fn), self._entry(node.outputs["main"])
            stage.label = node.id
        elif len(node.outputs) == 1:
            stage = ParDoStage(node.id, lift(node.payload), resolver)
            down = self._entry(next(iter(node.outputs.values())))
        else:
            downs = {tag: self._entry(pc) for tag, pc in node.outputs.items()}
            stage = _TaggedParDo(node, downs, resolver)
            down = None
        self.cell[1] = node.id
        stage.open()
        if self._in_bundle:
            stage.start_bundle()
        insort(self.stages, stage, key=self._stage_rank)
        return stage.bind(down, self.cell)

    def _stage_rank(self, stage) -> int:
        return self._rank[stage.label]


def _fan_out(pushes):
    if not pushes:
        return lambda chunk: None

    def push(chunk):
        for each in pushes:
            each(chunk)

    return push


class _TaggedParDo:
    """A ParDo with tagged outputs, run element by element; each output goes to its tag's
    consumers at ``(*position, index)``."""

    def __init__(self, node, downs: dict, resolver=None):
        payload = lift(node.payload)
        self.label = node.id
        self.runner = DoFnRunner.of_payload(node.id, payload, resolver)
        self.downs = downs

    def open(self) -> None:
        self.runner.setup()

    def bind(self, down, cell):
        runner, downs, label = self.runner, self.downs, self.label

        def push(chunk):
            cell[1] = label
            by_tag: dict = {}
            for position, value, timestamp, windows, pane in zip(*chunk):
                outputs = runner.process(windowed_value((value, timestamp, windows, pane)))
                for index, (tag, out) in enumerate(outputs):
                    by_tag.setdefault(tag, ([], []))
                    by_tag[tag][0].append((*position, index))
                    by_tag[tag][1].append(out)
            for tag, (positions, outputs) in by_tag.items():
                downs[tag](Chunk.of(positions, outputs))

        return push

    def start_bundle(self) -> None:
        self.runner.start_bundle()

    def finish_bundle(self, position_of) -> None:
        by_tag: dict = {}
        for index, (tag, out) in enumerate(self.runner.finish_bundle()):
            by_tag.setdefault(tag, ([], []))
            by_tag[tag][0].append(position_of(index))
            by_tag[tag][1].append(out)
        for tag, (positions, outputs) in by_tag.items():
            self.downs[tag](Chunk.of(positions, outputs))

    def close(self) -> None:
        self.runner.teardown()
