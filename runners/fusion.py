"""Element-wise transforms fused into one loop, as both runners run them.

A chain of single-output ParDos and WindowIntos becomes one push function that takes elements a
chunk at a time, in columns (``Chunk``). Each stage runs over the whole chunk and hands on new
columns for what it changed and the same ones for what it did not: a Map's user function runs
under C-level ``map``, and no call per stage, WindowedValue or generator stands between stages
for each element. What ends the chain (a sink) decides what becomes of the elements: boxed into
a collection, or folded straight into a grouping.

Positions are the Spark runner's (``panes.runners.spark.positions``); the direct runner passes
``()``. A Map keeps its input's position (one output each, so order holds); any other ParDo
appends the output's index.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from itertools import accumulate, chain, repeat
from typing import NamedTuple

from panes.errors import UserCodeError, map_user_fn
from panes.pvalue import TaggedOutput
from panes.runners.windows import assigner
from panes.timestamp import check_timestamps
from panes.transforms.dofn_runner import DoFnRunner
from panes.window import TimestampedValue, WindowedValue, windowed_value

# Elements a chain takes at a time: enough that per-chunk work vanishes, few enough that a
# chunk's columns stay small.
CHUNK = 4096
_SPECIAL = (TaggedOutput, TimestampedValue, WindowedValue)


class Chunk(NamedTuple):
    """Elements in columns: the i-th element is at ``positions[i]`` with ``values[i]``, and so
    on. Stages never change a column they are given, so unchanged columns are passed on as they
    are."""

    positions: Sequence
    values: Sequence
    timestamps: Sequence
    windows: Sequence
    panes: Sequence

    @classmethod
    def of(cls, positions: Sequence, windowed_values: Sequence) -> Chunk:
        """The columns of ``windowed_values`` (at least one), at ``positions``."""
        return cls(positions, *zip(*windowed_values))

    def repeated(self, counts: list) -> Chunk:
        """Each element ``counts[i]`` times, the k-th copy at ``(*position, k)``: what a
        FlatMap's outputs inherit."""
        ends = list(accumulate(counts))
        return Chunk(
            Expanded(self.positions, ends, True), *(Expanded(column, ends) for column in self[1:])
        )


class Expanded(Sequence):
    """A column of a FlatMap's outputs, made from its inputs' column: the i-th input's entry
    once per output of it, or for positions, ``(*position, k)`` for its k-th output. Built whole
    only when read whole; one entry is found by bisection (a grouping reads positions only
    where a key first arrives, and no pane at all)."""

    __slots__ = ("_column", "_ends", "_nested", "_entries")

    def __init__(self, column: Sequence, ends: list, nested: bool = False):
        self._column, self._ends, self._nested = column, ends, nested
        self._entries: list | None = None

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def __getitem__(self, index):
        if self._entries is not None or not isinstance(index, int):
            return self.entries()[index]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("Expanded index out of range")
        source = bisect_right(self._ends, index)
        if not self._nested:
            return self._column[source]
        return (*self._column[source], index - (self._ends[source - 1] if source else 0))

    def __iter__(self):
        return iter(self.entries())

    def runs(self, entries: list) -> list:
        """For a positions column: ``(first position, its elements)`` of each input's outputs,
        ``entries`` the elements. No other position sorts between a run's (its positions
        share a prefix no other has), so whole runs can be sorted by their first position."""
        return [
            ((*position, 0), entries[start:end])
            for position, start, end in zip(self._column, [0, *self._ends], self._ends)
        ]

    def entries(self) -> list:
        if self._entries is None:
            counts = [end - start for start, end in zip([0, *self._ends], self._ends)]
            self._entries = (
                [
                    (*position, index)
                    for position, count in zip(self._column, counts)
                    for index in range(count)
                ]
                if self._nested
                else list(chain.from_iterable(map(repeat, self._column, counts)))
            )
        return self._entries


def fusable(node) -> bool:
    """Whether a node can be a stage: a WindowInto, or a ParDo with one output."""
    return node.kind == "assign_windows" or (node.kind == "par_do" and len(node.outputs) == 1)


class ParDoStage:
    """A single-output ParDo; ``resolver`` gives its side inputs, if it has any."""

    down: Callable  # the next stage's push function, once bound

    def __init__(self, label: str, payload: dict, resolver=None):
        self.label = label
        self.runner = DoFnRunner.of_payload(label, payload, resolver)

    def bind(self, down, cell):
        """The stage's push function, feeding ``down``; it names its label in the metrics
        ``cell`` before user code runs."""
        self.down = down
        runner = self.runner
        if runner.plain_map:
            return self._map(down, cell)
        if runner.plain_flat_map:
            return self._flat_map(down, cell)
        return self._any(down, cell)

    def _call(self):
        """The user function of one value, with the ParDo's extra arguments."""
        call, args, kwargs = self.runner.call, self.runner.args, self.runner.kwargs
        return (lambda value: call(value, *args, **kwargs)) if args or kwargs else call

    def _map(self, down, cell):
        runner, label, call = self.runner, self.label, self._call()

        def push(chunk):
            cell[1] = label
            down(_outputs(runner, chunk, map_user_fn(label, call, chunk.values)))

        return push

    def _flat_map(self, down, cell):
        runner, label, call = self.runner, self.label, self._call()

        def push(chunk):
            cell[1] = label
            results, value = [], None
            append = results.append
            try:
                for value in chunk.values:
                    items = call(value)
                    append(() if items is None else list(items))
            except UserCodeError:
                raise
            except Exception as error:
                raise UserCodeError(label, value, error) from error
            items = list(chain.from_iterable(results))
            if items:
                down(_outputs(runner, chunk.repeated(list(map(len, results))), items))

        return push

    def _any(self, down, cell):
        process, label = self.runner.process, self.label

        def push(chunk):
            cell[1] = label
            positions, outputs = [], []
            for position, value, timestamp, windows, pane in zip(*chunk):
                for index, (_, out) in enumerate(
                    process(windowed_value((value, timestamp, windows, pane)))
                ):
                    positions.append((*position, index))
                    outputs.append(out)
            if outputs:
                down(Chunk.of(positions, outputs))

        return push

    def open(self) -> None:
        self.runner.setup()

    def start_bundle(self) -> None:
        self.runner.start_bundle()

    def finish_bundle(self, position_of) -> None:
        """Pushes finish_bundle's outputs on, the i-th at ``position_of(i)``."""
        outputs = [out for _, out in self.runner.finish_bundle()]
        if outputs:
            self.down(Chunk.of([position_of(index) for index in range(len(outputs))], outputs))

    def close(self) -> None:
        self.runner.teardown()


def _outputs(runner: DoFnRunner, inputs: Chunk, items: list) -> Chunk:
    """The chunk of a ParDo's outputs ``items``, the i-th made from the element ``inputs[i]``
    (its position already the output's): a plain value takes that element's timestamp, windows
    and pane; a TimestampedValue, WindowedValue or TaggedOutput says what it changes."""
    items = runner.converted(items)
    kinds = set(map(type, items))
    if not any(issubclass(kind, _SPECIAL) for kind in kinds):
        return inputs._replace(values=items)
    if kinds == {TimestampedValue}:
        timestamps = [item.timestamp_micros for item in items]
        check_timestamps(runner.label, timestamps, inputs.values)
        return inputs._replace(values=[item.value for item in items], timestamps=timestamps)
    outputs = [
        runner._output(item, windowed_value((value, timestamp, windows, pane)))[1]
        if isinstance(item, _SPECIAL)
        else windowed_value((item, timestamp, windows, pane))
        for item, value, timestamp, windows, pane in zip(items, *inputs[1:])
    ]
    return Chunk.of(inputs.positions, outputs)


class WindowStage:
    """A WindowInto: assigns each element the windows of ``window_fn``. An element in several
    windows (or none) is first exploded into one copy per window, as Beam's WindowInto does
    (a DoFn over each window in turn): three sliding windows re-windowed give three elements."""

    label = None

    def __init__(self, label: str, window_fn):
        self.assign = assigner(label, window_fn)

    def bind(self, down, cell):
        assign = self.assign

        def push(chunk):
            if set(map(len, chunk.windows)) != {1}:
                chunk = exploded(chunk)
                if not chunk.values:
                    return
            down(chunk._replace(windows=assign(chunk.values, chunk.timestamps, chunk.windows)))

        return push

    def open(self) -> None:
        pass

    start_bundle = close = open

    def finish_bundle(self, position_of) -> None:
        pass


def exploded(chunk: Chunk) -> Chunk:
    """One element per element and window, each in that one window (the copies of an element
    at ``(*position, k)``, as a FlatMap's outputs are)."""
    windows = chunk.windows
    return chunk.repeated(list(map(len, windows)))._replace(
        windows=[(window,) for element_windows in windows for window in element_windows]
    )


class Chain:
    """Stages bound, in order, into one push function that ends in ``sink``; both take a
    ``Chunk``. ``cell`` is the loop's metrics cell (``[container, step]``, see
    ``panes.metrics.metrics_cell_scope``): each ParDo names itself there before its user code
    runs."""

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
    extend = out.extend

    def push(chunk):
        extend(zip(chunk.positions, map(windowed_value, zip(*chunk[1:]))))

    return push
