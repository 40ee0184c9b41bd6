"""Chunks: the columns a FlatMap's outputs inherit read the same entry by entry and whole, and
collected chunks come back in position order."""

from itertools import accumulate

from hypothesis import given
from hypothesis import strategies as st

from panes.runners.fusion import Chunk, Expanded
from panes.runners.spark.collection import in_order
from panes.window import GLOBAL_WINDOW

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
