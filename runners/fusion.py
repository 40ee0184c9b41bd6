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
from panes.pvalue import TaggedOutput
from panes.transforms.dofn_runner import DoFnRunner
from panes.window import TimestampedValue, WindowedValue
from panes.runners.windows import assigner

_SPECIAL = (TaggedOutput, TimestampedValue, WindowedValue)
# Output types that are plainly values, told apart from _SPECIAL with one lookup.
_PLAIN = frozenset({str, int, float, bool, bytes, tuple, list, dict, type(None)})
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

    def bind(self, down, cell):
        """The stage's push function, feeding ``down``; it names its label in the metrics
        ``cell`` before user code runs."""
        self.down = down
        runner = self.runner
        if runner.plain_map:
            return self._map(down, cell)
        if runner.plain and runner.mode == "flat_map":
            return self._flat_map(down, cell)
        return self._any(down, cell)

    def _map(self, down, cell):
        runner, label = self.runner, self.label
        call, args, kwargs = runner.call, runner.args, runner.kwargs

        def push(position, value, timestamp, windows, pane):
            cell[1] = label
            try:
                item = call(value, *args, **kwargs)
            except UserCodeError:
                raise
            except Exception as error:
                raise UserCodeError(label, value, error) from error
            kind = type(item)
            if kind in _PLAIN:
                down(position, item, timestamp, windows, pane)
            elif kind is TimestampedValue:
                down(position, item.value, item.timestamp, windows, pane)
            elif isinstance(item, _SPECIAL):
                _, out = runner._output(item, box((value, timestamp, windows, pane)))
                down(position, *out)
            else:
                down(position, item, timestamp, windows, pane)

        return push

    def _flat_map(self, down, cell):
        runner, label = self.runner, self.label
        call, args, kwargs = runner.call, runner.args, runner.kwargs

        def push(position, value, timestamp, windows, pane):
            cell[1] = label
            try:
                items = call(value, *args, **kwargs)
                items = () if items is None else list(items)
            except UserCodeError:
                raise
            except Exception as error:
                raise UserCodeError(label, value, error) from error
            for index, item in enumerate(items):
                if type(item) not in _PLAIN and isinstance(item, _SPECIAL):
                    _, out = runner._output(item, box((value, timestamp, windows, pane)))
                    down((*position, index), *out)
                else:
                    down((*position, index), item, timestamp, windows, pane)

        return push

    def _any(self, down, cell):
        process, label = self.runner.process, self.label

        def push(position, value, timestamp, windows, pane):
            cell[1] = label
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

    def bind(self, down, cell):
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
    """Stages bound, in order, into one push function that ends in ``sink``. ``cell`` is the
    loop's metrics cell (``[container, step]``, see ``panes.metrics.metrics_cell_scope``):
    each ParDo names itself there before its user code runs."""

    def __init__(self, stages: list, sink, cell: list):
        self.stages = stages
        self.cell = cell
        push = sink
        for stage in reversed(stages):
            push = stage.bind(push, cell)
        self.push = push

    def open(self) -> None:
        self._each("open")

    def start_bundle(self) -> None:
        self._each("start_bundle")

    def finish_bundle(self, position_of) -> None:
        for stage in self.stages:
            self.cell[1] = stage.label
            stage.finish_bundle(position_of)

    def close(self) -> None:
        self._each("close")

    def _each(self, hook: str) -> None:
        for stage in self.stages:
            self.cell[1] = stage.label
            getattr(stage, hook)()


def boxing_sink(out: list):
    """A sink appending ``(position, WindowedValue)`` to ``out``."""
    append = out.append

    def push(position, value, timestamp, windows, pane):
        append((position, box((value, timestamp, windows, pane))))

    return push
