"""A keyed node's outputs on Spark leave each task as chunks of columns, without Spark: every
output once, in canonical order, at positions that sort that way and start with their key's
prefix at their step."""

from panes.runners.fusion import CHUNK
from panes.runners.spark.keyed import output_chunks
from panes.runners.spark.positions import key_prefix
from panes.window import GlobalWindow, WindowedValue


def _outputs(runs: list) -> list:
    """``(step, key, WindowedValue)`` outputs: ``count`` of each ``(step, key, count)`` run."""
    return [
        (step, key, WindowedValue(f"{key}{step}-{index}", step, [GlobalWindow()]))
        for step, key, count in runs
        for index in range(count)
    ]


def test_outputs_ship_whole_in_order_with_increasing_positions_and_runs_unsplit():
    first = {"a": (1, 0, 3), "b": (1, 0, 9), "c": (1, 1, 0)}
    runs = [(1, "a", 3), (1, "b", CHUNK + 2), (1, "c", 1), (2, "a", CHUNK - 1), (2, "c", 5)]
    outputs = _outputs(runs)
    chunks = list(output_chunks(outputs, first))
    assert len(chunks) == 3  # a chunk closes at the first run boundary past CHUNK outputs
    positions = [position for chunk in chunks for position in chunk.positions]
    values = [value for chunk in chunks for value in chunk.values]
    assert values == [wv[0] for _, _, wv in outputs]
    assert len(positions) == len(outputs)
    assert positions == sorted(set(positions))
    for position, (step, key, _) in zip(positions, outputs):
        assert position[:-1] == key_prefix(step, first[key])
    assert [p[-1] for p in positions[:4]] == [0, 1, 2, 0]  # each run counts from 0


def test_no_outputs_ship_no_chunk():
    assert list(output_chunks([], {})) == []
