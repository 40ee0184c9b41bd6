"""The direct runner: executes the IR in-process, node by node, as the reference oracle."""

from __future__ import annotations

import contextlib

from panes.ir.codec import lift
from panes.metrics import MetricsContainer, metrics_scope, reset_metrics_scope
from panes.runners.runner import PipelineResult
from panes.runners.collector import cycle_collection_paused
from panes.runners.direct.executors import EXECUTORS, FUSING, PendingStream
from panes.runners.sources import SOURCE_KINDS, ProcessingClock, read_source


class ExecutionContext:
    """What executors share: the IR, finished streams, metrics, captures and the clock."""

    def __init__(self, ir):
        self.ir = ir
        self.streams: dict = {}  # pcollection id -> event list, or a PendingStream
        self.uses = {pcollection: len(ir.consumers(pcollection)) for pcollection in ir.pcollections}
        self.metrics = MetricsContainer()
        self.captures: dict = {}
        self.sources = {node.id: read_source(node) for node in ir.nodes.values()
                        if node.kind in SOURCE_KINDS}
        self.clock = ProcessingClock(ir, self.sources)
        self._window_fns: dict = {}

    def stream(self, pcollection_id, fusing: bool = False):
        """The collection's events; still pending for a ``fusing`` consumer that is its only
        one (so its stages run once)."""
        stream = self.streams[pcollection_id]
        if isinstance(stream, PendingStream) and not (fusing and self.uses[pcollection_id] == 1):
            stream = self.streams[pcollection_id] = stream.events(self)
        return stream

    def window_fn(self, pcollection_id):
        if pcollection_id not in self._window_fns:
            self._window_fns[pcollection_id] = lift(
                self.ir.pcollections[pcollection_id].windowing.window_fn)
        return self._window_fns[pcollection_id]

    @contextlib.contextmanager
    def metrics_for(self, step: str):
        token = metrics_scope(self.metrics, step)
        try:
            yield
        finally:
            reset_metrics_scope(token)


class DirectRunner:
    """Runs every node in topological order; element-wise stages run fused into their
    consumer."""

    def run_pipeline(self, ir, options=None) -> PipelineResult:
        with cycle_collection_paused():
            ctx = ExecutionContext(ir)
            for node in ir.nodes.values():
                inputs = [ctx.stream(pcollection, node.kind in FUSING)
                          for pcollection in node.inputs]
                outputs = EXECUTORS[node.kind](node, inputs, ctx)
                for tag, pcollection in node.outputs.items():
                    ctx.streams[pcollection] = outputs.get(tag, [])
            for pcollection, uses in ctx.uses.items():
                if not uses:
                    ctx.stream(pcollection)  # nothing reads it, but its transforms still run
        return PipelineResult(ctx.metrics, ctx.captures)

