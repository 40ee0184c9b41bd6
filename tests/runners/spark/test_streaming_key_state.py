"""How the streaming grouping operator keeps a key bucket in Spark's state store: its keys'
pickled engine states in one row laid out by column and compressed, read and rewritten for
the keys a call advances; rows of older panes still read."""

import pickle

from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import strategy_of

from panes.runners.spark.streaming.key_state import Bucket, dump_row, dump_state, load_row
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


def _keys(keys: int) -> dict:
    """A bucket's keys as the operator keeps them: per key, its state after one element, its
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


def _bucket(keys: dict) -> Bucket:
    bucket = Bucket()
    for key, stored in keys.items():
        bucket.set(key, stored)
    row = bucket.dump()[0]
    return Bucket() if row is None else Bucket.load(row)


def _contents(bucket: Bucket, keys) -> dict:
    return {key: bucket.get(key) for key in keys if bucket.get(key) is not None}


def test_a_bucket_reads_back_as_it_was_written_in_a_fraction_of_the_bytes():
    keys = _keys(500)
    bucket = Bucket()
    for key, stored in keys.items():
        bucket.set(key, stored)
    row, earliest, first_due = bucket.dump()
    assert (earliest, first_due) == (60_020, None)
    assert _contents(Bucket.load(row), keys) == {key: kept[:2] for key, kept in keys.items()}
    assert len(row) * 4 < len(pickle.dumps(keys, pickle.HIGHEST_PROTOCOL))


def test_a_bucket_left_without_keys_stores_nothing():
    bucket = _bucket(_keys(3))
    for key in _keys(3):
        bucket.set(key, None)
    assert bucket.dump() == (None, None, None)


KEYS = st.integers(0, 30).map(lambda index: pickle.dumps(f"player-{index}"))
TIME = st.none() | st.integers(-5, 50)
STORED = st.tuples(st.binary(max_size=20), st.integers(0, 9), TIME, TIME)


@settings(max_examples=80, deadline=None)
@given(
    st.dictionaries(
        KEYS,
        STORED,
        max_size=25,
    ),
    st.dictionaries(KEYS, st.none() | STORED, max_size=25),
    st.integers(-5, 50),
    st.none() | st.integers(-5, 50),
)
def test_a_call_reads_and_rewrites_the_keys_it_advances_and_keeps_the_others(
    before, changes, watermark, processing_now
):
    def stored(state, first, wake, due):
        return (state, (first,), wake, due)

    model = {key: stored(*value) for key, value in before.items()}
    bucket = _bucket(model)
    expected_due = sorted(
        key
        for key, (*_, wake, due) in model.items()
        if key not in changes
        and (
            (wake is not None and wake <= watermark)
            or (processing_now is not None and due is not None and due <= processing_now)
        )
    )
    assert bucket.due(watermark, processing_now, changes) == expected_due
    for key, value in changes.items():
        assert bucket.get(key) == (None if key not in model else model[key][:2])
        bucket.set(key, None if value is None else stored(*value))
        if value is None:
            model.pop(key, None)
        else:
            model[key] = stored(*value)
    row, earliest, first_due = bucket.dump()
    wakes = [kept[2] for kept in model.values() if kept[2] is not None]
    dues = [kept[3] for kept in model.values() if kept[3] is not None]
    assert (earliest, first_due) == (min(wakes, default=None), min(dues, default=None))
    if not model:
        assert row is None
        return
    loaded = Bucket.load(row)
    assert _contents(loaded, {*before, *changes}) == {k: v[:2] for k, v in model.items()}
    assert loaded.due(10**9, None, ()) == sorted(k for k, v in model.items() if v[2] is not None)
    assert loaded.dump()[0] == row  # nothing left over past the keys' bytes


def test_a_row_of_an_older_panes_still_reads():
    keys = _keys(3)
    expected = {key: kept[:2] for key, kept in keys.items()}
    for row in (dump_row(keys), pickle.dumps(keys, pickle.HIGHEST_PROTOCOL), pickle.dumps(keys)):
        bucket = Bucket.load(row)
        assert _contents(bucket, keys) == expected
        assert bucket.due(60_020, None, ()) == sorted(keys)
        assert bucket.dump()[1] == 60_020


def test_the_tail_state_row_reads_back_as_it_was_written():
    value = {"sides": [(1, "a")] * 50, "complete": 3}
    assert load_row(dump_row(value)) == value
    assert load_row(pickle.dumps(value)) == value
