"""Chunks: the columns a FlatMap's outputs inherit read the same entry by entry and whole, and
collected chunks ship compressed and come back in position order."""

import random
from itertools import accumulate

from hypothesis import given
from hypothesis import strategies as st
from strategies import strategy_of

from panes.runners.fusion import Chunk, Expanded
from panes.runners.spark.collection import in_order
from panes.runners.spark.serializer import DriverResultSerializer, WorkerSerializer
from panes.transforms.combiners import CountFn
from panes.window import GLOBAL_WINDOW, Sessions
from panes.windowing.aggregation import CombineFnAggregation
from panes.windowing.batch import BatchGrouping
from panes.windowing.columns import ProtoSessions

counts = st.lists(st.integers(0, 4), min_size=1, max_size=12)


@given(counts)
def test_a_flat_maps_outputs_inherit_their_inputs_columns(counts):
    inputs = Chunk(
        [(0, i) for i in range(len(counts))],
        [f"v{i}" for i in range(len(counts))],
        list(range(len(counts))),
        [("w", i) for i in range(len(counts))],
        ["pane"] * len(counts),
    )
    outputs = inputs.repeated(counts)
    expected = Chunk(
        *(
            [
                (*position, k)
                for position, count in zip(inputs.positions, counts)
                for k in range(count)
            ],
            *(
                [entry for entry, count in zip(column, counts) for _ in range(count)]
                for column in inputs[1:]
            ),
        )
    )
    for column, want in zip(outputs, expected):
        assert len(column) == len(want)
        assert [column[i] for i in range(len(column))] == want  # entry by entry, by bisection
        assert [column[-i] for i in range(1, len(column) + 1)] == want[::-1]
        assert list(column) == want  # whole
        assert [column[i] for i in range(len(column))] == want  # and entry by entry after it


@given(st.lists(st.tuples(st.booleans(), counts), min_size=1, max_size=5), st.randoms())
def test_collected_chunks_come_in_position_order(chunks, random):
    """A grouping's or FlatMap's outputs of one input (a nested column) sort as one run, beside
    chunks whose positions are listed one by one."""
    inputs = list(range(sum(len(c) for _, c in chunks)))
    random.shuffle(inputs)
    collected, expected, taken = [], [], 0
    for nested, chunk_counts in chunks:
        mine = inputs[taken : taken + len(chunk_counts)]
        taken += len(chunk_counts)
        if nested:
            positions = Expanded([(3, i) for i in mine], list(accumulate(chunk_counts)), True)
        else:
            positions = [(3, i, 0) for i in mine]
        n = len(positions)
        values = [f"v{position}" for position in positions]
        collected.append(Chunk(positions, values, [0] * n, [(GLOBAL_WINDOW,)] * n, ["p"] * n))
        expected += zip(positions, values)
    steps, windowed_values = in_order(collected)
    assert [(step, wv.value) for step, wv in zip(steps, windowed_values)] == [
        (position[0], value) for position, value in sorted(expected)
    ]


def test_collected_columns_ship_compressed_and_come_back_whole():
    """A batch grouping's sessions, as the driver collects them: a third smaller at least."""
    rng = random.Random(7)
    grouping = BatchGrouping(strategy_of(window_fn=Sessions(5)), CombineFnAggregation(CountFn()))
    times = sorted(rng.randrange(3600) * 10**6 for _ in range(5000))
    pairs = [(f"k{rng.randrange(50)}", 1) for _ in times]
    grouping.add_chunk(pairs, times, ProtoSessions(times, 5 * 10**6))
    columns = next(grouping.columns(list(grouping.keys())))
    shipped = DriverResultSerializer().dumps(columns)
    assert len(shipped) * 1.5 < len(WorkerSerializer().dumps(columns))
    back = DriverResultSerializer().loads(shipped)
    assert [list(column) for column in back] == [list(column) for column in columns]
