"""Spark SQL lowering: which chains the phase recognises (and which it leaves to the ordinary
planners), and that a lowered query gives exactly the ordinary plan's records — values,
timestamps, windows, panes and positions — whatever the windows, times and partitioning."""

import datetime as dt
import decimal
import math
import pickle
import random

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from ids import stable_id

import panes as beam
import panes.runners.spark.runner as spark_runner
from panes.errors import UserCodeError
from panes.runners.spark.dataframe import ReadFromDataFrame
from panes.runners.spark.lowering import SQL_AGGREGATION, lower_aggregations
from panes.testing import materialize
from panes.transforms.combiners import CountFn, MeanFn
from panes.trigger import AfterCount, AfterWatermark
from panes.watermark import WatermarkStrategy
from panes.window import FixedWindows, IntervalWindow, Sessions, SlidingWindows, TimestampCombiner

SCHEMA = pa.schema([("key", pa.string()), ("value", pa.int64()), ("seconds", pa.float64())])


def events(count, seed=1, keys=5, span=600):
    rng = random.Random(seed)
    return [
        {
            "key": f"k{rng.randrange(keys)}",
            "value": rng.randrange(-50, 100),
            "seconds": rng.randrange(-span, span) / rng.choice((1, 2, 4)),
        }
        for _ in range(count)
    ]


@pytest.fixture(scope="module")
def parquet(tmp_path_factory):
    """Three Parquet files of events, the middle one with several row groups."""
    folder = tmp_path_factory.mktemp("events")
    rows = events(600)
    for index, part in enumerate((rows[:150], rows[150:450], rows[450:])):
        pq.write_table(
            pa.Table.from_pylist(part, schema=SCHEMA),
            folder / f"events-{index}.parquet",
            row_group_size=64,
        )
    return str(folder / "events-*.parquet")


def aggregation(read, window_fn=FixedWindows(60), combine=sum, **windowing):  # noqa: B008
    def build(p):
        return (
            p
            | read
            | beam.WithTimestampField("seconds")
            | beam.WindowInto(window_fn, **windowing)
            | beam.GroupBy("key").aggregate_field("value", combine, "out")
        )

    return build


def lowered_kinds(spark, build) -> list:
    p = beam.Pipeline(runner="spark")
    build(p)
    lowered, queries = lower_aggregations(p.to_ir(), spark)
    assert set(queries) == {n.id for n in lowered.nodes.values() if n.kind == SQL_AGGREGATION}
    pickle.dumps(lowered)  # the IR holds no query, nothing live: a DataFrame does not pickle
    return [node.kind for node in lowered.nodes.values()]


def test_read_timestamp_window_and_group_by_become_one_query(spark, parquet):
    kinds = lowered_kinds(
        spark, lambda p: materialize(aggregation(beam.io.ReadFromParquet(parquet))(p))
    )
    assert kinds == [SQL_AGGREGATION, "write"]


def _with_other_consumer(p, parquet):
    windowed = (
        p
        | beam.io.ReadFromParquet(parquet)
        | beam.WithTimestampField("seconds")
        | beam.WindowInto(FixedWindows(60))
    )
    windowed | "Count" >> beam.combiners.Count.Globally().without_defaults()
    return windowed | beam.GroupBy("key").aggregate_field("value", sum, "out")


def _hand_written(p, parquet):
    return (
        p
        | beam.io.ReadFromParquet(parquet)
        | "Timestamp" >> beam.Map(lambda row: beam.window.TimestampedValue(row, row["seconds"]))
        | beam.WindowInto(FixedWindows(60))
        | "Key" >> beam.Map(lambda row: (row["key"], row["value"]))
        | beam.CombinePerKey(sum)
    )


class CustomWindows(FixedWindows):
    """A user's window fn: Spark SQL cannot know what it assigns."""


def from_parquet(read=beam.io.ReadFromParquet, **windowing):
    return lambda p, parquet: aggregation(read(parquet), **windowing)(p)


FALLBACKS = {
    "early firings": from_parquet(trigger=AfterWatermark(early=AfterCount(2))),
    "custom window fn": from_parquet(window_fn=CustomWindows(60)),
    "earliest timestamps": from_parquet(timestamp_combiner=TimestampCombiner.OUTPUT_AT_EARLIEST),
    "sliding with gaps": from_parquet(window_fn=SlidingWindows(30, 60)),
    "watermark strategy": from_parquet(
        lambda parquet: beam.io.ReadFromParquet(parquet).with_watermarks(
            WatermarkStrategy.for_bounded_out_of_orderness(5)
        )
    ),
    "columns without the field": from_parquet(
        lambda parquet: beam.io.ReadFromParquet(parquet, columns=["key", "seconds"])
    ),
    "driver-read source": lambda p, parquet: aggregation(beam.Create(events(10)))(p),
    "intermediate consumer": _with_other_consumer,
    "hand-written lambdas": _hand_written,
    "no windowing": lambda p, parquet: (
        p
        | beam.io.ReadFromParquet(parquet)
        | beam.WithTimestampField("seconds")
        | beam.GroupBy("key").aggregate_field("value", sum, "o")
    ),
}


@pytest.mark.parametrize("case", list(FALLBACKS))
def test_anything_else_is_left_to_the_ordinary_planners(spark, parquet, case):
    kinds = lowered_kinds(spark, lambda p: FALLBACKS[case](p, parquet))
    assert SQL_AGGREGATION not in kinds
    assert "combine_per_key" in kinds


@pytest.mark.parametrize(
    "value_type, reason",
    [
        (pa.decimal128(10, 2), "Spark sums decimals with its own scale"),
        (pa.uint64(), "Spark reads it as a decimal"),
        (pa.timestamp("us"), "a naive timestamp is not an instant"),
    ],
)
def test_a_field_type_spark_might_see_differently_is_left_to_the_ordinary_planners(
    spark, tmp_path, value_type, reason
):
    path = str(tmp_path / "typed.parquet")
    value = {
        pa.decimal128(10, 2): decimal.Decimal("1.50"),
        pa.uint64(): 3,
        pa.timestamp("us"): dt.datetime(2020, 1, 1),
    }[value_type]
    pq.write_table(
        pa.table({"key": ["a"], "value": pa.array([value], value_type), "seconds": [1]}), path
    )
    kinds = lowered_kinds(spark, aggregation(beam.io.ReadFromParquet(path), combine=max))
    assert SQL_AGGREGATION not in kinds, reason


def records_of(runner, build, monkeypatch, lowered=True):
    """The records the write collects, with their positions (Spark), and the values captured,
    from a run on ``runner``."""
    collected = []
    original = spark_runner.Plan.collect_sorted

    def keep(plan, collection, label):
        records = original(plan, collection, label)
        collected.append(records)
        return records

    with monkeypatch.context() as patch:
        patch.setattr(spark_runner.Plan, "collect_sorted", keep)
        if not lowered:
            patch.setattr(spark_runner, "lower_aggregations", lambda ir, session: (ir, {}))
        p = beam.Pipeline(runner=runner)
        handle = materialize(build(p))
        p.run()
    return (collected[-1] if collected else None), handle.windowed_values


WINDOWS = [
    FixedWindows(60),
    FixedWindows(45, offset=10),
    SlidingWindows(90, 30, offset=7),
    SlidingWindows(100, 30),
    Sessions(1),
    Sessions(30),
]


@pytest.mark.parametrize("window_fn", WINDOWS, ids=stable_id)
@pytest.mark.parametrize("combine", [sum, min, CountFn(), MeanFn()], ids=stable_id)
def test_a_lowered_query_gives_the_ordinary_plans_records_exactly(
    spark, parquet, monkeypatch, window_fn, combine
):
    build = aggregation(beam.io.ReadFromParquet(parquet), window_fn, combine)
    assert lowered_kinds(spark, lambda p: materialize(build(p))) == [SQL_AGGREGATION, "write"]
    lowered, values = records_of("spark", build, monkeypatch)
    ordinary, _ = records_of("spark", build, monkeypatch, lowered=False)
    assert lowered == ordinary
    assert values == records_of("direct", build, monkeypatch)[1]


def test_session_gaps_of_exactly_the_gap_split_as_in_beam(spark, tmp_path, monkeypatch):
    path = str(tmp_path / "ties.parquet")
    pq.write_table(
        pa.Table.from_pylist(
            [{"key": "a", "value": 1, "seconds": t} for t in (0, 5, 9.999999, 20, 25.000001)]
        ),
        path,
    )
    build = aggregation(beam.io.ReadFromParquet(path), Sessions(5), CountFn())
    lowered, values = records_of("spark", build, monkeypatch)
    assert [(wv.windows[0], wv.value["out"]) for wv in values] == [
        (IntervalWindow(0, 5), 1),
        (IntervalWindow(5, 14.999999), 2),
        (IntervalWindow(20, 25), 1),
        (IntervalWindow(25.000001, 30.000001), 1),
    ]
    assert lowered == records_of("spark", build, monkeypatch, lowered=False)[0]


def test_a_dataframe_in_several_partitions_keeps_its_positions(spark, monkeypatch):
    frame = spark.createDataFrame(events(300, seed=3), "key string, value long, seconds double")
    frame = frame.repartition(3, "key").sortWithinPartitions("seconds")
    build = aggregation(ReadFromDataFrame(frame), SlidingWindows(120, 60), MeanFn())
    kinds = lowered_kinds(spark, lambda p: materialize(build(p)))
    assert kinds == [SQL_AGGREGATION, "write"]
    lowered, values = records_of("spark", build, monkeypatch)
    assert lowered == records_of("spark", build, monkeypatch, lowered=False)[0]
    assert values == records_of("direct", build, monkeypatch)[1]


@pytest.mark.parametrize("window_fn", [FixedWindows(60), SlidingWindows(90, 30)], ids=stable_id)
@pytest.mark.parametrize("combine", [sum, MeanFn()], ids=stable_id)
def test_integer_sums_beyond_64_bits_are_exact_as_in_python(
    spark, tmp_path, monkeypatch, window_fn, combine
):
    path = str(tmp_path / "large.parquet")
    pq.write_table(
        pa.Table.from_pylist(  # "a" sums past a long; "b" means past 2**53
            [{"key": "a", "value": 2**62 + i, "seconds": 10 * i} for i in range(4)]
            + [{"key": "b", "value": 2**53 + 2 * i + 1, "seconds": 40 * i} for i in range(5)]
        ),
        path,
    )
    build = aggregation(beam.io.ReadFromParquet(path), window_fn, combine)
    assert lowered_kinds(spark, lambda p: materialize(build(p))) == [SQL_AGGREGATION, "write"]
    lowered, values = records_of("spark", build, monkeypatch)
    assert values == records_of("direct", build, monkeypatch)[1]
    assert lowered == records_of("spark", build, monkeypatch, lowered=False)[0]
    if combine is sum:  # a window holds all four of "a"
        assert max(wv.value["out"] for wv in values) == sum(2**62 + i for i in range(4))


BAD_TIMES = [
    (pa.float64(), math.nan),
    (pa.float64(), math.inf),
    (pa.float64(), -math.inf),
    (pa.float64(), 1e303),  # finite seconds, infinite micros
    (pa.float64(), 1e300),
    (pa.float64(), -9.3e12),
    (pa.int64(), 10**13),
    (pa.int64(), -(10**13)),
]


def _failure(runner, build, monkeypatch, lowered=True) -> UserCodeError:
    with pytest.raises(UserCodeError) as failed:
        records_of(runner, build, monkeypatch, lowered)
    return failed.value


@pytest.mark.parametrize("time_type, seconds", BAD_TIMES, ids=stable_id)
def test_a_time_python_cannot_take_fails_as_in_python_ansi_or_not(
    spark, tmp_path, monkeypatch, time_type, seconds
):
    """A NaN, infinite or out-of-range time fails the lowered query with the error the
    ordinary plans give, naming the transform that reads the time: never Spark's cast error,
    and never a wrong time when ANSI mode is off."""
    path = str(tmp_path / "times.parquet")
    pq.write_table(
        pa.table(
            {"key": ["a", "a"], "value": [1, 2], "seconds": pa.array([1, seconds], time_type)}
        ),
        path,
    )
    build = aggregation(beam.io.ReadFromParquet(path))
    assert lowered_kinds(spark, lambda p: materialize(build(p))) == [SQL_AGGREGATION, "write"]
    python = _failure("direct", build, monkeypatch)
    assert python.label == "WithTimestampField(seconds)"
    assert _failure("spark", build, monkeypatch, lowered=False).cause.args == python.cause.args
    ansi = spark.conf.get("spark.sql.ansi.enabled")
    for mode in ("true", "false"):
        spark.conf.set("spark.sql.ansi.enabled", mode)
        try:
            lowered = _failure("spark", build, monkeypatch)
        finally:
            spark.conf.set("spark.sql.ansi.enabled", ansi)
        assert (lowered.label, type(lowered.cause)) == (python.label, type(python.cause))
        if "outside Beam's range" in str(python.cause):
            assert str(lowered.cause).startswith("an event time is outside Beam's range")
        else:
            assert lowered.cause.args == python.cause.args


@pytest.mark.parametrize("seconds", [9_223_372_036_000, -9_223_372_036_000, 9.2e12, -9.2e12])
def test_times_near_the_ends_of_beams_range_are_lowered_as_in_python(
    spark, tmp_path, monkeypatch, seconds
):
    path = str(tmp_path / "ends.parquet")
    pq.write_table(pa.table({"key": ["a"], "value": [1], "seconds": [seconds]}), path)
    build = aggregation(beam.io.ReadFromParquet(path))
    lowered, values = records_of("spark", build, monkeypatch)
    assert values == records_of("direct", build, monkeypatch)[1]
    assert lowered == records_of("spark", build, monkeypatch, lowered=False)[0]


def test_utc_timestamps_are_event_times(spark, tmp_path, monkeypatch):
    path = str(tmp_path / "instants.parquet")
    start = dt.datetime(2024, 3, 1, tzinfo=dt.timezone.utc)
    pq.write_table(
        pa.Table.from_pylist(
            [
                {"key": f"k{i % 3}", "value": i, "seconds": start + dt.timedelta(seconds=7.25 * i)}
                for i in range(40)
            ],
            schema=pa.schema(
                [
                    ("key", pa.string()),
                    ("value", pa.int32()),
                    ("seconds", pa.timestamp("us", tz="UTC")),
                ]
            ),
        ),
        path,
    )
    build = aggregation(beam.io.ReadFromParquet(path), FixedWindows(60), max)
    assert lowered_kinds(spark, lambda p: materialize(build(p))) == [SQL_AGGREGATION, "write"]
    lowered, values = records_of("spark", build, monkeypatch)
    assert lowered == records_of("spark", build, monkeypatch, lowered=False)[0]
    assert values == records_of("direct", build, monkeypatch)[1]


def test_transforms_after_the_lowered_aggregation_run_as_usual(spark, parquet):
    p = beam.Pipeline(runner="spark")
    totals = aggregation(beam.io.ReadFromParquet(parquet))(p)
    doubled = totals | beam.Map(lambda row: row["out"] * 2)
    both = (totals | "Keys" >> beam.Map(lambda row: row["key"]), doubled) | beam.Flatten()
    handles = [
        materialize(doubled),
        materialize(both),
        materialize(totals | "Again" >> beam.combiners.Count.Globally().without_defaults()),
    ]
    p.run()
    direct = beam.Pipeline()
    totals = aggregation(beam.io.ReadFromParquet(parquet))(direct)
    expected = materialize(totals | beam.Map(lambda row: row["out"] * 2))
    direct.run()
    assert handles[0].windowed_values == expected.windowed_values
    assert len(handles[1].values) == 2 * len(expected.values)
    assert sum(handles[2].values) == len(expected.values)
