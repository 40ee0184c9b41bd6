"""Chunks: the columns a FlatMap's outputs inherit read the same entry by entry and whole."""

from hypothesis import given
from hypothesis import strategies as st

from panes.runners.fusion import Chunk

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
