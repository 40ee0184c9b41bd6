"""How the streaming grouping operator keeps a key bucket in Spark's state store: its keys'
pickled engine states in one row laid out by column and compressed, and a log of the keys each
call changed, until the log reaches half the row and the row is rewritten; rows of older panes
still read, and their keys advanced by the engine that kept them."""

import os
import pickle
from collections import Counter

import pyarrow
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import strategy_of

import panes as beam
from panes.io.text import ReadFromText, WriteToText
from panes.runners.spark.streaming.clocks import BatchClocks
from panes.runners.spark.streaming.key_state import (
    _LOG_ENTRIES,
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
from panes.watermark import WatermarkStrategy
from panes.window import (
    GLOBAL_WINDOW,
    AssignContext,
    FixedWindows,
    PaneInfo,
    PaneInfoTiming,
    Sessions,
    WindowedValue,
    interval_window,
)
from panes.windowing.aggregation import CombineFnAggregation
from panes.windowing.counting import CountingEngine, CountingKeyState
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
    return bucket.write().row


def _contents(bucket: Bucket, keys) -> dict:
    return {key: bucket.get(key) for key in keys if bucket.get(key) is not None}


def test_a_bucket_reads_back_as_it_was_written_in_a_fraction_of_the_bytes():
    keys = _keys(500)
    bucket = Bucket()
    for key, stored in keys.items():
        bucket.set(key, stored)
    row, changes, earliest, first_due = bucket.write()
    assert (changes, earliest, first_due) == (None, 60_020, None)
    assert _contents(Bucket.load(row), keys) == {key: kept[:2] for key, kept in keys.items()}
    assert len(row) * 4 < len(pickle.dumps(keys, pickle.HIGHEST_PROTOCOL))


def test_a_bucket_left_without_keys_stores_nothing():
    keys = _keys(3)
    bucket = Bucket.load(_stored(keys))
    for key in keys:
        bucket.set(key, None)
    assert bucket.write() == (None, None, None, None)


def _calls_until_rewritten(keys: dict, per_call: int, cycle: bool) -> tuple:
    """Calls each changing ``per_call`` of a bucket's ``keys`` — the same ones, or with
    ``cycle`` the next ones — until one rewrites the row: the first row and the log before
    it. Each call is checked against a model of the keys."""
    row, log, model = _stored(keys), [], {key: kept[:2] for key, kept in keys.items()}
    names = [*keys] * 2
    for call in range(_LOG_ENTRIES + 1):
        bucket = Bucket.load(row, log)
        start = call * per_call % len(keys) if cycle else 0
        for key in names[start : start + per_call]:
            moved = (dump_state(call), (call, 1), 120_020, None)
            bucket.set(key, moved)
            model[key] = moved[:2]
        written = bucket.write()
        if written.row is not None:
            assert written.changes is None
            assert _contents(Bucket.load(written.row), keys) == model
            return row, log
        assert len(written.changes) * 20 < len(row)
        log.append(written.changes)
        assert _contents(Bucket.load(row, log), keys) == model
    raise AssertionError("no call rewrote the row")


def test_a_call_that_changes_few_of_many_keys_logs_just_those_until_the_log_is_half_the_row():
    row, log = _calls_until_rewritten(_keys(2000), per_call=60, cycle=False)
    logged, largest = sum(map(len, log)), max(map(len, log))
    assert len(log) < _LOG_ENTRIES
    assert len(row) / 2 - 2 * largest < logged <= len(row) / 2  # rewritten once the log is full


def test_a_log_that_changed_half_the_rows_keys_is_folded_into_the_row():
    """So keys removed, or replaced, by the log stay less than half the row."""
    row, log = _calls_until_rewritten(_keys(2000), per_call=60, cycle=True)
    assert len(log) == 16 and sum(map(len, log)) < len(row) / 2  # 17 calls change 1,020 keys


def test_a_log_of_many_small_calls_is_folded_into_the_row_after_its_last_allowed_entry():
    row, log = _calls_until_rewritten(_keys(2000), per_call=1, cycle=False)
    assert len(log) == _LOG_ENTRIES and sum(map(len, log)) < len(row) / 2


def test_a_row_of_an_older_panes_is_rewritten_at_its_first_call():
    keys = _keys(500)
    bucket = Bucket.load(dump_row(keys))
    bucket.set([*keys][0], None)
    written = bucket.write()
    assert written.changes is None and written.row[:1] == b"R"


def test_a_logged_key_that_a_later_call_changes_again_gives_the_bucket_its_new_times():
    keys = _keys(500)  # each wakes at 60_020, without a processing-time due
    row, first = _stored(keys), [*keys][0]
    bucket = Bucket.load(row)
    bucket.set(first, (dump_state(1), (1, 0), 30_000, 5))
    logged = bucket.write()
    assert logged.changes is not None and (logged.earliest, logged.first_due) == (30_000, 5)
    assert Bucket.load(row, [logged.changes]).due(30_000, None, ()) == [first]
    for again, times in ((None, (60_020, None)), ((b"s", (2, 0), 90_000, None), (60_020, None))):
        bucket = Bucket.load(row, [logged.changes])
        bucket.set(first, again)
        written = bucket.write()
        assert written.changes is not None and (written.earliest, written.first_due) == times


def test_a_bucket_whose_keys_all_leave_after_its_log_stores_nothing():
    keys = _keys(500)
    bucket = Bucket.load(_stored(keys))
    first = [*keys][0]
    bucket.set(first, None)
    changes = bucket.write().changes
    assert changes is not None
    bucket = Bucket.load(_stored(keys), [changes])
    assert bucket.get(first) is None
    for key in keys:
        bucket.set(key, None)
    assert bucket.write() == (None, None, None, None)


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


@settings(max_examples=120, deadline=None)
@given(st.dictionaries(KEYS, STORED, max_size=25), st.lists(CALL, min_size=1, max_size=5))
def test_a_call_reads_and_rewrites_the_keys_it_advances_and_keeps_the_others(before, calls):
    model, row, log = dict(before), _stored(before), []
    for changes, watermark, processing_now in calls:
        bucket = Bucket() if row is None else Bucket.load(row, log)
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
        written = bucket.write()
        if written.changes is None:
            row, log = written.row, []
        else:
            log.append(written.changes)
        wakes = [kept[2] for kept in model.values() if kept[2] is not None]
        dues = [kept[3] for kept in model.values() if kept[3] is not None]
        expected = (min(wakes, default=None), min(dues, default=None))
        assert (written.earliest, written.first_due) == expected
        assert (row is None) == (not model)
    if row is not None:
        loaded = Bucket.load(row, log)
        seen = {*before, *(key for changes, *_ in calls for key in changes)}
        assert _contents(loaded, seen) == {key: kept[:2] for key, kept in model.items()}


def test_a_row_of_an_older_panes_still_reads():
    keys = _keys(3)
    expected = {key: kept[:2] for key, kept in keys.items()}
    for row in (dump_row(keys), pickle.dumps(keys, pickle.HIGHEST_PROTOCOL), pickle.dumps(keys)):
        bucket = Bucket.load(row)
        assert _contents(bucket, keys) == expected
        assert bucket.due(60_020, None, ()) == sorted(keys)
        assert bucket.write().earliest == 60_020


# A bucket of eight keys ``player-0`` .. ``player-7`` as the panes of 5434565 stored it, before
# its log's entries were laid out by column: key ``player-{i}`` held state ``b"state-{i}"``,
# first position ``(i, 0)``, wake-up ``60_020 + i`` and, for even ``i``, due ``5_000 + i``; then
# one call moved ``player-1`` and removed ``player-2``, an entry of the log.
_ROW_BEFORE_LOG_COLUMNS = bytes.fromhex(
    "43b80200000000000028b52ffd60b801f506000249222d80276a0c338393273330035b7d8330a0fb09d03010"
    "36b626da07935f70b46664f3eff2ba605f1b569e90ff7f0a506e574a2926454aa20484780e0e94dbd5d5da29"
    "5ac35c988505bcebbbbeebbbbeebbbbeebbbc6f95388f3c7c5f94b88f3211c186405040302df80c14b42494d"
    "52043d8e84b26100aecc824416ee4597680c47433e5ee8146d86973a20e0850e5c8ce3cc107e06e3c238ce0c"
    "e16730c8050f33d2c0031b78e081071e78e081073ef0c0030f3cf098b92ecdbd34575de2b80333cb922fb32c"
    "38df92597d618b2cb7b045de72b5fa030d3df0c0b1"
)
_ENTRY_BEFORE_LOG_COLUMNS = bytes.fromhex(
    "445d0000000000000028b52ffd205d350200b40380059552007d942843178004950c008c08706c617965722d"
    "31942e942843056d6f766564944b014b0186944ad4d401004b07749432942e944e752e0300ad4a3d30d000b4"
)


def test_a_bucket_and_log_entry_stored_before_the_log_s_columns_still_read():
    bucket = Bucket.load(_ROW_BEFORE_LOG_COLUMNS, [_ENTRY_BEFORE_LOG_COLUMNS])
    expected = {pickle.dumps(f"player-{i}"): (b"state-%d" % i, (i, 0)) for i in range(8)}
    expected[pickle.dumps("player-1")] = (b"moved", (1, 1))
    del expected[pickle.dumps("player-2")]
    names = [pickle.dumps(f"player-{i}") for i in range(8)]
    assert _contents(bucket, names) == expected
    assert bucket.due(60_023, 5_004, ()) == sorted(
        pickle.dumps(f"player-{i}") for i in (0, 1, 3, 4)
    )
    bucket.set(names[3], None)
    written = bucket.write()  # the log is past half the row: the row is rewritten
    assert written.changes is None and (written.earliest, written.first_due) == (60_020, 7)
    del expected[names[3]]
    assert _contents(Bucket.load(written.row), names) == expected


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


# Two counting-engine key states as panes stored them before plain data (at 64d9d84): pickled
# with their classes — CountingKeyState, its windows and a PaneInfo with its enum.
_STORED_BEFORE_PLAIN = (
    "800595fd000000000000008c1870616e65732e77696e646f77696e672e636f756e74696e67948c10436f756e"
    "74696e674b65795374617465949394288c08706c617965722d37944ac095a9054a00c2eb0b7d94288c0c7061"
    "6e65732e77696e646f77948c1a5f696e74657276616c5f77696e646f775f6f665f6d6963726f739493944a00"
    "8793034a000e2707869452945d94284b0c4b004b0168058c0850616e65496e666f94939428888968058c0e50"
    "616e65496e666f54696d696e679493948c074f4e5f54494d4594859452944b004b007494529489894e4aff94"
    "ba0a6568074a000e27074a0095ba0a869452945d94284b054b014b004e88884aff94ba0a4e6575749452942e",
    "800595bd000000000000008c1870616e65732e77696e646f77696e672e636f756e74696e67948c10436f756e"
    "74696e674b65795374617465949394288c0161944b0186944b0a4b147d948c0c70616e65732e77696e646f77"
    "948c0e5f676c6f62616c5f77696e646f779493942952945d94285d94284b014b02654b024b0068068c085061"
    "6e65496e666f94939428888968068c0e50616e65496e666f54696d696e679493948c054541524c5994859452"
    "944b004affffffff7494529488884b054e6573749452942e",
)


def test_a_counting_key_state_stored_before_plain_data_still_loads_and_is_stored_plain():
    S = 1_000_000
    expected = [
        CountingKeyState(
            "player-7",
            95 * S,
            200 * S,
            {
                interval_window((60 * S, 120 * S)): [
                    12,
                    0,
                    1,
                    PaneInfo(True, False, PaneInfoTiming.ON_TIME, 0, 0),
                    False,
                    False,
                    None,
                    179_999_999,
                ],
                interval_window((120 * S, 180 * S)): [5, 1, 0, None, True, True, 179_999_999, None],
            },
        ),
        CountingKeyState(
            ("a", 1),
            10,
            20,
            {
                GLOBAL_WINDOW: [
                    [1, 2],
                    2,
                    0,
                    PaneInfo(True, False, PaneInfoTiming.EARLY, 0, -1),
                    True,
                    True,
                    5,
                    None,
                ]
            },
        ),
    ]
    for stored, state in zip(_STORED_BEFORE_PLAIN, expected):
        loaded = load_state(bytes.fromhex(stored))
        assert loaded.plain() == state.plain()
        assert list(loaded.windows.items()) == list(state.windows.items())
        again = dump_state(loaded)
        assert again[:1] == b"K" and len(again) < len(stored) // 2
        assert load_state(again).plain() == state.plain()


def test_a_windowing_the_counting_engine_does_not_take_keeps_the_windowing_engine():
    grouping = _grouping(Sessions(10), AfterWatermark(early=AfterCount(10), late=AfterCount(1)))
    assert grouping.processor_for(None) is grouping.node.processor


class _DescribePane(beam.DoFn):
    def process(self, kv, pane=beam.DoFn.PaneInfoParam):
        yield f"{kv[0]} {pane.timing.value} {pane.index} {kv[1]}"


def _write_keys(directory, index: int, keys, seconds=None) -> None:
    """A file of one ``key,value,seconds`` line per key, later than the files before it; the
    value is ``index + 1``, the time ``seconds`` or ``index``."""
    directory.mkdir(exist_ok=True)
    path = directory / f"f{index:02d}.csv"
    seconds = index if seconds is None else seconds
    path.write_text("".join(f"k{key},{index + 1},{seconds}\n" for key in keys))
    os.utime(path, (1_000_000 + index, 1_000_000 + index))


def _run_sums(directory, output, checkpoint) -> None:
    pipeline = beam.Pipeline(
        runner="spark",
        options={
            "streaming": True,
            "max_files_per_trigger": 1,
            "checkpoint_location": str(checkpoint),
            "trigger_interval": "available_now",
        },
    )
    (
        pipeline
        | ReadFromText(str(directory / "*.csv")).with_watermarks(
            WatermarkStrategy.for_bounded_out_of_orderness(0),
            timestamp_fn=lambda line: int(line.split(",")[2]),
        )
        | beam.Map(lambda line: (line.split(",")[0], int(line.split(",")[1])))
        | beam.WindowInto(
            FixedWindows(1000),
            trigger=AfterWatermark(early=AfterCount(1)),
            accumulation_mode=AccumulationMode.ACCUMULATING,
        )
        | beam.CombinePerKey(sum)
        | beam.ParDo(_DescribePane())
        | WriteToText(str(output))
    )
    pipeline.run().wait_until_finish()


def test_keys_a_call_changes_are_logged_and_survive_a_restart(tmp_path, spark):
    """600 keys made live, then micro-batches touching a few of them, with a restart between:
    each touched key's early pane counts and sums all its values before, so a key state lost
    or stale in a bucket's log shows; the log holds the calls' changes. Then the watermark
    passes their window: each key's timer fires its on-time pane, and only the key that moved
    it on keeps state."""
    directory, checkpoint, output = tmp_path / "in", tmp_path / "checkpoint", tmp_path / "out"
    touched = [range(600), *([1, 101, 200 + i] for i in range(3))]
    touched_after_restart = [[1, 300 + i] for i in range(3)]
    for index, keys in enumerate(touched):
        _write_keys(directory, index, keys)
    _run_sums(directory, output / "panes", checkpoint)
    for index, keys in enumerate(touched_after_restart, len(touched)):
        _write_keys(directory, index, keys)
    _run_sums(directory, output / "panes", checkpoint)

    expected, panes, totals = Counter(), Counter(), Counter()
    for index, keys in enumerate([*touched, *touched_after_restart]):
        for key in keys:
            totals[key] += index + 1
            expected[f"k{key} EARLY {panes[key]} {totals[key]}"] += 1
            panes[key] += 1
    assert _written(output) == expected
    assert _state_rows(spark, checkpoint, "log") > 0

    late = len(touched) + len(touched_after_restart)
    _write_keys(directory, late, [9999], seconds=5000)
    _run_sums(directory, output / "panes", checkpoint)
    expected[f"k9999 EARLY 0 {late + 1}"] += 1
    for key in range(600):
        expected[f"k{key} ON_TIME {panes[key]} {totals[key]}"] += 1
    assert _written(output) == expected
    assert (_state_rows(spark, checkpoint, "bucket"), _state_rows(spark, checkpoint, "log")) == (
        1,
        0,
    )


def _written(output) -> Counter:
    """The lines the sums pipeline wrote under ``output``, counted."""
    return Counter(
        line for path in output.glob("panes-*") for line in path.read_text().splitlines()
    )


def _state_rows(spark, checkpoint, variable: str) -> int:
    """The rows Spark's state reader gives for the operator's state ``variable``."""
    frame = spark.read.format("statestore").option("stateVarName", variable)
    return frame.load(str(checkpoint)).count()
