"""Element-wise transforms fused into one loop, as both runners run them.

A chain of single-output ParDos and WindowIntos becomes one push function: each stage calls the
next with the element unboxed — ``(position, value, timestamp, windows, pane)`` — so no
WindowedValue, list or generator stands between stages. What ends the chain (a sink) decides
what becomes of the elements: boxed into a collection, or folded straight into a grouping.

Positions are the Spark runner's (``panes.runners.spark.positions``); the direct runner passes
``()``. A Map keeps its input's position (one output each, so order holds); any other ParDo
appends the output's index.
"""

from __future__ import annotations

from panes.errors import UserCodeError
from panes.metrics import metrics_scope, reset_metrics_scope
from panes.pvalue import TaggedOutput
from panes.transforms.dofn_runner import DoFnRunner
from panes.window import TimestampedValue, WindowedValue
from panes.runners.windows import assigner

_SPECIAL = (TaggedOutput, TimestampedValue, WindowedValue)
box = WindowedValue._make


def fusable(node) -> bool:
    """Whether a node can be a stage: a WindowInto, or a ParDo with one output."""
    return node.kind == "assign_windows" or (node.kind == "par_do" and len(node.outputs) == 1)


class ParDoStage:
    """A single-output ParDo; ``resolver`` gives its side inputs, if it has any."""

    def __init__(self, label: str, payload: dict, resolver=None):
        self.label = label
        self.runner = DoFnRunner(label, payload["fn"], payload["args"], payload["kwargs"],
                                 payload["main_tag"], payload["output_tags"], resolver)
        self.down = None

    def bind(self, down, container=None):
        """The stage's push function, feeding ``down``; with a metrics ``container`` each call
        reports under this stage's label (needed when several ParDos share one loop)."""
        self.down = down
        push = self._map(down) if self.runner.plain_map else self._any(down)
        if container is None:
            return push
        label = self.label

        def scoped(position, value, timestamp, windows, pane):
            token = metrics_scope(container, label)
            try:
                push(position, value, timestamp, windows, pane)
            finally:
                reset_metrics_scope(token)

        return scoped

    def _map(self, down):
        runner, label = self.runner, self.label
        call, args, kwargs = runner.call, runner.args, runner.kwargs

        def push(position, value, timestamp, windows, pane):
            try:
                item = call(value, *args, **kwargs)
            except UserCodeError:
                raise
            except Exception as error:
                raise UserCodeError(label, value, error) from error
            if type(item) is TimestampedValue:
                down(position, item.value, item.timestamp, windows, pane)
            elif isinstance(item, _SPECIAL):
                _, out = runner._output(item, box((value, timestamp, windows, pane)))
                down(position, *out)
            else:
                down(position, item, timestamp, windows, pane)

        return push

    def _any(self, down):
        process = self.runner.process

        def push(position, value, timestamp, windows, pane):
            for index, (_, out) in enumerate(process(box((value, timestamp, windows, pane)))):
                down((*position, index), *out)

        return push

    def open(self) -> None:
        self.runner.setup()

    def start_bundle(self) -> None:
        self.runner.start_bundle()

    def finish_bundle(self, position_of) -> None:
        """Pushes finish_bundle's outputs on, the i-th at ``position_of(i)``."""
        for index, (_, out) in enumerate(self.runner.finish_bundle()):
            self.down(position_of(index), *out)

    def close(self) -> None:
        self.runner.teardown()


class WindowStage:
    """A WindowInto: assigns each element the windows of ``window_fn``."""

    label = None

    def __init__(self, label: str, window_fn):
        self.assign = assigner(label, window_fn)

    def bind(self, down, container=None):
        assign = self.assign

        def push(position, value, timestamp, windows, pane):
            down(position, value, timestamp, assign(value, timestamp, windows), pane)

        return push

    def open(self) -> None:
        pass

    start_bundle = close = open

    def finish_bundle(self, position_of) -> None:
        pass


class Chain:
    """Stages bound, in order, into one push function that ends in ``sink``. User metrics go to
    ``container``: scoped per call when several ParDos share the loop, otherwise by ``scope()``
    once around it."""

    def __init__(self, stages: list, sink, container):
        self.stages = stages
        self.container = container
        labels = [stage.label for stage in stages if isinstance(stage, ParDoStage)]
        self.label = labels[0] if len(labels) == 1 else None
        push = sink
        for stage in reversed(stages):
            push = stage.bind(push, container if len(labels) > 1 else None)
        self.push = push

    def scope(self):
        """A token for ``reset_metrics_scope`` (or None) putting the loop under the one ParDo's
        label."""
        return None if self.label is None else metrics_scope(self.container, self.label)

    def open(self) -> None:
        self._each("open")

    def start_bundle(self) -> None:
        self._each("start_bundle")

    def finish_bundle(self, position_of) -> None:
        for stage in self.stages:
            self._scoped(stage, stage.finish_bundle, position_of)

    def close(self) -> None:
        self._each("close")

    def _each(self, hook: str) -> None:
        for stage in self.stages:
            self._scoped(stage, getattr(stage, hook))

    def _scoped(self, stage, call, *args) -> None:
        token = metrics_scope(self.container, stage.label) if stage.label else None
        try:
            call(*args)
        finally:
            if token is not None:
                reset_metrics_scope(token)


def boxing_sink(out: list):
    """A sink appending ``(position, WindowedValue)`` to ``out``."""
    append = out.append

    def push(position, value, timestamp, windows, pane):
        append((position, box((value, timestamp, windows, pane))))

    return push
