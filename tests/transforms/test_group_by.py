"""GroupBy(...).aggregate_field(...) and WithTimestampField: the declarative forms equal the
hand-written Map / WindowInto / CombinePerKey pipeline element for element — values,
timestamps, windows, panes and order — on every runner, from Create and from Parquet files
(which the Spark runner lowers to Spark SQL)."""

import datetime as dt
import math

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import panes as beam
from panes.errors import UserCodeError
from panes.ir.codec import is_structured
from panes.testing import materialize
from panes.transforms.combiners import CountFn, MaxFn, MeanFn, MinFn, SumFn
from panes.utils.timestamp import Timestamp
from panes.window import FixedWindows, Sessions, SlidingWindows, TimestampedValue

ROWS = [{"key": k, "region": r, "value": v, "seconds": t} for k, r, v, t in [
    ("a", "eu", 3, 0), ("b", "us", 10, 4), ("a", "eu", 1, 61), ("c", "eu", 7, 62),
    ("a", "us", 2, 5), ("b", "us", 5, 200), ("c", "eu", 4, 63.5), ("a", "eu", 8, 130),
    ("b", "eu", 6, 203), ("a", "us", 9, 131), ("c", "us", 1, 1000), ("a", "eu", 5, 1003),
]]


def run(runner, build):
    p = beam.Pipeline(runner=runner)
    handle = materialize(build(p))
    p.run()
    return handle.windowed_values


def declarative(read, window_fn, *aggregations, keys=("key",)):
    def build(p):
        grouped = beam.GroupBy(*keys)
        for aggregation in aggregations:
            grouped = grouped.aggregate_field(*aggregation)
        return (p | read() | beam.WithTimestampField("seconds") | beam.WindowInto(window_fn)
                | grouped)
    return build


def hand_written(read, window_fn, combine, field, name, keys=("key",)):
    def key_of(row):
        return row[keys[0]] if len(keys) == 1 else tuple(row[k] for k in keys)

    def to_row(kv):
        key = (kv[0],) if len(keys) == 1 else kv[0]
        return {**dict(zip(keys, key)), name: kv[1]}

    return lambda p: (p | read()
                      | "Timestamp" >> beam.Map(lambda row: TimestampedValue(row, row["seconds"]))
                      | beam.WindowInto(window_fn)
                      | "Key" >> beam.Map(lambda row: (key_of(row), row[field]))
                      | beam.CombinePerKey(combine) | "ToRow" >> beam.Map(to_row))


@pytest.fixture(scope="module")
def parquet_files(tmp_path_factory):
    """ROWS in two Parquet files (a glob reads both, in name order)."""
    folder = tmp_path_factory.mktemp("rows")
    for index, part in enumerate((ROWS[:7], ROWS[7:])):
        pq.write_table(pa.Table.from_pylist(part, schema=pa.schema([
            ("key", pa.string()), ("region", pa.string()), ("value", pa.int64()),
            ("seconds", pa.float64())])), folder / f"part-{index}.parquet")
    return str(folder / "part-*.parquet")


@pytest.mark.parametrize("window_fn", [FixedWindows(60), SlidingWindows(120, 60, offset=30),
                                       Sessions(10)], ids=["fixed", "sliding", "sessions"])
@pytest.mark.parametrize("combine, expected_type", [
    (sum, int), (min, int), (max, int), (CountFn(), int), (MeanFn(), float),
    (SumFn(), int), (MinFn(), int), (MaxFn(), int)])
@pytest.mark.parametrize("source", ["create", "parquet"])
def test_aggregate_field_equals_the_hand_written_pipeline(runner, parquet_files, source,
                                                         window_fn, combine, expected_type):
    read = ((lambda: beam.Create(ROWS)) if source == "create"
            else (lambda: beam.io.ReadFromParquet(parquet_files)))
    expected = run("direct", hand_written(read, window_fn, combine, "value", "out"))
    actual = run(runner, declarative(read, window_fn, ("value", combine, "out")))
    assert actual == expected
    assert {type(wv.value["out"]) for wv in actual} == {expected_type}


def test_several_aggregates_and_key_fields_give_one_row_per_key_and_window(runner,
                                                                          parquet_files):
    build = declarative(lambda: beam.io.ReadFromParquet(parquet_files), FixedWindows(60),
                        ("value", sum, "total"), ("value", CountFn(), "n"),
                        ("value", MeanFn(), "mean"), ("value", max, "largest"),
                        keys=("region", "key"))
    out = run(runner, build)
    first_window = [wv.value for wv in out if wv.windows[0].start == 0]
    assert first_window == [
        {"region": "eu", "key": "a", "total": 3, "n": 1, "mean": 3.0, "largest": 3},
        {"region": "us", "key": "b", "total": 10, "n": 1, "mean": 10.0, "largest": 10},
        {"region": "us", "key": "a", "total": 2, "n": 1, "mean": 2.0, "largest": 2}]
    for name, combine in [("total", sum), ("n", CountFn()), ("mean", MeanFn()),
                          ("largest", max)]:
        expected = run("direct", hand_written(
            lambda: beam.io.ReadFromParquet(parquet_files), FixedWindows(60), combine, "value",
            name, keys=("region", "key")))
        assert [wv._replace(value=wv.value[name]) for wv in out] == [
            wv._replace(value=wv.value[name]) for wv in expected]


def test_outputs_are_at_the_end_of_their_window_in_its_on_time_pane(runner):
    [out] = run(runner, declarative(lambda: beam.Create(ROWS[:1]), FixedWindows(60),
                                    ("value", sum, "total")))
    assert out.timestamp == Timestamp(60).predecessor() == out.windows[0].max_timestamp()
    assert (out.pane_info.is_first, out.pane_info.is_last, out.pane_info.timing.value) == (
        True, True, "ON_TIME")


def test_group_by_without_aggregates_groups_rows_by_key(runner):
    out = run(runner, lambda p: p | beam.Create(ROWS[:5]) | beam.GroupBy("region"))
    assert sorted((key, [row["value"] for row in rows]) for key, rows in
                  (wv.value for wv in out)) == [("eu", [3, 1, 7]), ("us", [10, 2])]


def test_with_timestamp_field_reads_seconds_datetimes_and_timestamps(runner):
    rows = [{"t": 1.5}, {"t": 7}, {"t": dt.datetime(1970, 1, 1, 0, 1, tzinfo=dt.timezone.utc)},
            {"t": beam.window.Timestamp(seconds=2)}]
    out = run(runner, lambda p: p | beam.Create(rows) | beam.WithTimestampField("t"))
    assert [wv.timestamp for wv in out] == [1.5, 7, 60, 2]


def test_a_none_in_an_aggregated_field_fails_naming_the_field_and_the_fix(runner,
                                                                         tmp_path):
    path = str(tmp_path / "gaps.parquet")
    pq.write_table(pa.Table.from_pylist([{"key": "a", "value": 1, "seconds": 0},
                                         {"key": "a", "value": None, "seconds": 1}]), path)
    p = beam.Pipeline(runner=runner)
    (p | beam.io.ReadFromParquet(path) | beam.WithTimestampField("seconds")
     | beam.WindowInto(FixedWindows(60)) | "Total" >> beam.GroupBy("key").aggregate_field(
         "value", sum, "total"))
    with pytest.raises(UserCodeError) as caught:
        p.run()
    assert caught.value.label == "Total/AggregateFields"
    assert "field 'value' is None" in str(caught.value) and "Filter(" in str(caught.value)


def test_a_none_time_fails_in_with_timestamp_field(runner, tmp_path):
    path = str(tmp_path / "no-time.parquet")
    pq.write_table(pa.Table.from_pylist([{"key": "a", "value": 1, "seconds": None}],
                                        schema=pa.schema([("key", pa.string()),
                                                          ("value", pa.int64()),
                                                          ("seconds", pa.int64())])), path)
    p = beam.Pipeline(runner=runner)
    (p | beam.io.ReadFromParquet(path) | beam.WithTimestampField("seconds")
     | beam.WindowInto(FixedWindows(60)) | beam.GroupBy("key").aggregate_field(
         "value", sum, "total"))
    with pytest.raises(UserCodeError) as caught:
        p.run()
    assert caught.value.label == "WithTimestampField(seconds)"
    assert "field 'seconds'" in str(caught.value)


def test_count_counts_rows_whatever_the_field_holds(runner):
    rows = [{"key": "a", "value": None, "seconds": 0}, {"key": "a", "value": 2, "seconds": 1}]
    [out] = run(runner, declarative(lambda: beam.Create(rows), FixedWindows(60),
                                    ("value", CountFn(), "n")))
    assert out.value == {"key": "a", "n": 2}


def test_the_ir_holds_field_names_and_combiners_as_structure_not_pickles():
    p = beam.Pipeline()
    (p | beam.Create(ROWS) | beam.WithTimestampField("seconds")
     | beam.GroupBy("key").aggregate_field("value", sum, "total"))
    ir = p.to_ir()
    functions = {node.id: node.payload.get("fn", node.payload.get("combine_fn"))
                 for node in ir.nodes.values() if node.kind in ("par_do", "combine_per_key")}
    assert set(functions) == {"WithTimestampField(seconds)", "GroupBy(key)/KeyByFields",
                              "GroupBy(key)/AggregateFields", "GroupBy(key)/ToRows"}
    assert all(is_structured(fn) for fn in functions.values())


def test_a_nan_value_gives_a_nan_mean(runner):
    rows = [{"key": "a", "value": math.nan, "seconds": 0}]
    [out] = run(runner, declarative(lambda: beam.Create(rows), FixedWindows(60),
                                    ("value", MeanFn(), "mean")))
    assert math.isnan(out.value["mean"])
