"""How the streaming grouping operator keeps a key bucket in Spark's state store: its keys'
pickled engine states in one row laid out by column and compressed, read and rewritten for
the keys a call advances; rows of older panes still read, and their keys advanced by the engine
that kept them."""

import pickle

import pyarrow
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import strategy_of

import panes as beam
from panes.runners.spark.streaming.clocks import BatchClocks
from panes.runners.spark.streaming.key_state import (
    Bucket,
    dump_row,
    dump_state,
    load_row,
    load_state,
)
from panes.runners.spark.streaming.operator import _Keyed
from panes.timestamp import to_micros
from panes.transforms.combiners import SumFn
from panes.trigger import AccumulationMode, AfterCount, AfterWatermark
from panes.window import AssignContext, FixedWindows, Sessions, WindowedValue
from panes.windowing.aggregation import CombineFnAggregation
from panes.windowing.counting import CountingEngine
from panes.windowing.engine import WindowingEngine
from panes.windowing.window_fn_kinds import from_ir

zstd = pyarrow.Codec("zstd")
STRATEGY = strategy_of(
    window_fn=FixedWindows(60),
    trigger=AfterWatermark(early=AfterCount(1000), late=AfterCount(1)),
    accumulation_mode=AccumulationMode.ACCUMULATING,
    allowed_lateness=60,
)


def _keys(count: int) -> dict:
    """A bucket's keys as the operator keeps them: per key, its state after one element, its
    first position, its Spark wake-up and its processing-time due."""
    engine = WindowingEngine(STRATEGY, CombineFnAggregation(SumFn()))
    window_fn, keys = from_ir(STRATEGY.window_fn), {}
    for index in range(count):
        seconds = index % 3600
        value = WindowedValue(index, seconds, window_fn.assign(AssignContext(seconds, index)))
        state = engine.new_state(f"player-{index}")
        engine.step(state, [value], to_micros(seconds - 20), None)
        keys[pickle.dumps(f"player-{index}")] = (dump_state(state), (index, 0), 60_020, None)
    return keys


def _stored(keys: dict) -> bytes:
    bucket = Bucket()
    for key, stored in keys.items():
        bucket.set(key, stored)
    return bucket.dump()[0]


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
    keys = _keys(3)
    bucket = Bucket.load(_stored(keys))
    for key in keys:
        bucket.set(key, None)
    assert bucket.dump() == (None, None, None)


def test_a_row_whose_lengths_miss_its_bytes_is_refused():
    row = _stored(_keys(3))
    payload = zstd.decompress(row[9:], int.from_bytes(row[1:9], "little"), asbytes=True)
    truncated = payload[:-1]
    corrupt = row[:1] + len(truncated).to_bytes(8, "little") + zstd.compress(truncated)
    with pytest.raises(ValueError, match="corrupt"):
        Bucket.load(corrupt)


KEYS = st.integers(0, 30).map(lambda index: pickle.dumps(f"player-{index}"))
TIME = st.none() | st.integers(-5, 50)
STORED = st.builds(
    lambda state, first, wake, due: (state, (first,), wake, due),
    st.binary(max_size=20),
    st.integers(0, 9),
    TIME,
    TIME,
)
CALL = st.tuples(
    st.dictionaries(KEYS, st.none() | STORED, max_size=25),  # the keys it advances
    st.integers(-5, 50),  # the watermark
    st.none() | st.integers(-5, 50),  # processing time, with a heartbeat
)


@settings(max_examples=80, deadline=None)
@given(st.dictionaries(KEYS, STORED, max_size=25), st.lists(CALL, min_size=1, max_size=3))
def test_a_call_reads_and_rewrites_the_keys_it_advances_and_keeps_the_others(before, calls):
    model, row = dict(before), _stored(before)
    for changes, watermark, processing_now in calls:
        bucket = Bucket() if row is None else Bucket.load(row)
        assert bucket.due(watermark, processing_now, changes) == sorted(
            key
            for key, (*_, wake, due) in model.items()
            if key not in changes
            and (
                (wake is not None and wake <= watermark)
                or (processing_now is not None and due is not None and due <= processing_now)
            )
        )
        for key, stored in changes.items():
            assert bucket.get(key) == (None if key not in model else model[key][:2])
            bucket.set(key, stored)
            if stored is None:
                model.pop(key, None)
            else:
                model[key] = stored
        row, earliest, first_due = bucket.dump()
        wakes = [kept[2] for kept in model.values() if kept[2] is not None]
        dues = [kept[3] for kept in model.values() if kept[3] is not None]
        assert (earliest, first_due) == (min(wakes, default=None), min(dues, default=None))
        assert (row is None) == (not model)
    if row is not None:
        loaded = Bucket.load(row)
        seen = {*before, *(key for changes, *_ in calls for key in changes)}
        assert _contents(loaded, seen) == {key: kept[:2] for key, kept in model.items()}
        assert loaded.dump()[0] == row  # a reload writes the same bytes: nothing left over


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


def _grouping(window_fn, trigger) -> _Keyed:
    """The operator's view of the ``CombinePerKey`` of a pipeline windowed so."""
    p = beam.Pipeline()
    (
        p
        | beam.Create([("k", 1)])
        | beam.WindowInto(window_fn, trigger=trigger, allowed_lateness=60)
        | beam.CombinePerKey(sum)
    )
    ir = p.to_ir()
    node = next(node for node in ir.nodes.values() if node.kind == "combine_per_key")
    return _Keyed(ir, node, BatchClocks())


def test_new_keys_take_the_counting_engine_and_keys_of_an_older_checkpoint_keep_theirs():
    """A checkpoint of a panes from before the counting engine holds windowing-engine states:
    those keys go on with the windowing engine, new keys take the counting engine."""
    grouping = _grouping(FixedWindows(60), AfterWatermark(early=AfterCount(10), late=AfterCount(1)))
    engine = grouping.node.processor
    kept = load_state(dump_state(engine.new_state("k")))
    assert grouping.processor_for(kept) is engine
    counting = grouping.processor_for(None)
    assert isinstance(counting, CountingEngine)
    assert grouping.processor_for(load_state(dump_state(counting.new_state("k")))) is counting


def test_a_windowing_the_counting_engine_does_not_take_keeps_the_windowing_engine():
    grouping = _grouping(Sessions(10), AfterWatermark(early=AfterCount(10), late=AfterCount(1)))
    assert grouping.processor_for(None) is grouping.node.processor
