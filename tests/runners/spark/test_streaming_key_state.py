"""How the streaming grouping operator keeps a key bucket in Spark's state store: its keys'
pickled engine states in one row, compressed, and rows from before compression still read."""

import pickle

from strategies import strategy_of

from panes.runners.spark.streaming.key_state import dump_row, dump_state, load_row
from panes.timestamp import to_micros
from panes.transforms.combiners import SumFn
from panes.trigger import AccumulationMode, AfterCount, AfterWatermark
from panes.window import AssignContext, FixedWindows, WindowedValue
from panes.windowing.aggregation import CombineFnAggregation
from panes.windowing.engine import WindowingEngine
from panes.windowing.window_fn_kinds import from_ir

STRATEGY = strategy_of(
    window_fn=FixedWindows(60),
    trigger=AfterWatermark(early=AfterCount(1000), late=AfterCount(1)),
    accumulation_mode=AccumulationMode.ACCUMULATING,
    allowed_lateness=60,
)


def _bucket(keys: int) -> dict:
    """A bucket's row as the operator keeps it: per key, its state after one element, its
    first position, its Spark wake-up and its processing-time due."""
    engine = WindowingEngine(STRATEGY, CombineFnAggregation(SumFn()))
    window_fn, row = from_ir(STRATEGY.window_fn), {}
    for index in range(keys):
        seconds = index % 3600
        value = WindowedValue(index, seconds, window_fn.assign(AssignContext(seconds, index)))
        state = engine.new_state(f"player-{index}")
        engine.step(state, [value], to_micros(seconds - 20), None)
        row[pickle.dumps(f"player-{index}")] = (dump_state(state), (index, 0), 60_020, None)
    return row


def test_a_bucket_row_reads_back_as_it_was_written_in_a_fraction_of_the_bytes():
    row = _bucket(500)
    stored = dump_row(row)
    assert load_row(stored) == row
    assert len(stored) * 4 < len(pickle.dumps(row, pickle.HIGHEST_PROTOCOL))


def test_a_row_written_before_compression_still_reads():
    row = _bucket(3)
    assert load_row(pickle.dumps(row, pickle.HIGHEST_PROTOCOL)) == row
    assert load_row(pickle.dumps(row)) == row
