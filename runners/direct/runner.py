"""The direct runner: executes the IR in-process, node by node, as the reference oracle."""

from __future__ import annotations

import contextlib

from panes.ir.codec import lift
from panes.metrics import MetricsContainer, metrics_scope, reset_metrics_scope
from panes.pipeline import PipelineResult
from panes.runners.direct.executors import EXECUTORS
from panes.runners.direct.stream import END_STEP, FIRST_STEP, ProcessingTime
from panes.testing.test_stream import PROCESSING_TIME
from panes.timestamp import MAX_TIMESTAMP


class ExecutionContext:
    """What executors share: the IR, finished streams, metrics, captures and the clock."""

    def __init__(self, ir):
        self.ir = ir
        self.streams: dict = {}
        self.metrics = MetricsContainer()
        self.captures: dict = {}
        self.processing_times = _processing_time_timeline(ir)
        self._window_fns: dict = {}

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


def _processing_time_timeline(ir) -> list:
    """The virtual processing-time clock: 0 before any input, TestStream advances, then the
    end of input."""
    now = 0
    timeline = [ProcessingTime(FIRST_STEP - 1, now)]
    for node in ir.nodes.values():
        if node.kind != "test_stream":
            continue
        for step, (kind, advance) in enumerate(lift(node.payload["events"]), start=FIRST_STEP + 1):
            if kind == PROCESSING_TIME:
                now += advance
                timeline.append(ProcessingTime(step, now))
    timeline.sort(key=lambda event: event.step)
    timeline.append(ProcessingTime(END_STEP, MAX_TIMESTAMP))
    return timeline


class DirectRunner:
    """Runs every node in topological order over fully materialized streams."""

    def run_pipeline(self, ir, options=None) -> PipelineResult:
        ctx = ExecutionContext(ir)
        for node in ir.nodes.values():
            inputs = [ctx.streams[pcollection] for pcollection in node.inputs]
            outputs = EXECUTORS[node.kind](node, inputs, ctx)
            for tag, pcollection in node.outputs.items():
                ctx.streams[pcollection] = outputs.get(tag, [])
        return PipelineResult(ctx.metrics, ctx.captures)
