"""A streaming pipeline whose one grouping is a windowed aggregation of a DataFrame's columns
(event time from a field, fixed or sliding windows, the default trigger, no allowed lateness)
runs as Spark's own streaming aggregation, and gives what the windowing engine gives: the same
panes in the same micro-batches, the same late rows dropped and counted. Anything else stays on the
engine, and a checkpoint is never resumed on the other path."""

import json
import operator
import os
from pathlib import Path

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st

import panes as beam
from panes.errors import PipelineConstructionError, UserCodeError
from panes.io.text import WriteToText
from panes.ir import windowing as ir
from panes.metrics import MetricsFilter
from panes.runners.spark.streaming import runner as streaming_runner
from panes.runners.spark.streaming.lowered import (
    lowered_grouping,
    windows_by_watermark,
    windows_of,
)
from panes.runners.spark.streaming.sources import ReadFromSpark
from panes.runners.spark.streaming.tail import layers
from panes.timestamp import MIN_MICROS, Duration
from panes.trigger import AfterCount, AfterWatermark
from panes.watermark import WatermarkStrategy
from panes.window import FixedWindows, Sessions, SlidingWindows

SCHEMA = "user string, team string, score long, seconds double"
# (user, team, score, event time in seconds), a file per micro-batch; the watermark trails the
# largest time by 5 s. The third file's row at 25 s is behind the watermark (35 s) in a window
# still open, [20, 40): counted. The fourth's rows at 11, 12 and 13 s, one key's, are in
# [0, 20), which has ended: all dropped, the one without a score too (a late element never
# reaches the combiner); the fifth's at 59 s too, the watermark being 61 s by then.
# [120, 140) never ends.
FILES = [
    [("ann", "red", 3, 1.5), ("bob", "blue", 4, 2.0), ("ann", "red", 5, 19.999999)],
    [("cat", "red", 1, 24.0), ("bob", "blue", 2, 40.0)],
    [("ann", "red", 7, 25.0), ("bob", "blue", 1, 39.0)],
    [
        ("cat", "red", 9, 12.0),
        ("dan", "blue", 6, 41.0),
        ("cat", "red", 2, 13.0),
        ("cat", "red", "", 11.0),
        ("ann", "red", 2, 66.0),
    ],
    [("ann", "red", 1, 59.0), ("dan", "blue", 8, 130.0)],
]


def write_files(directory: Path, files) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for index, rows in enumerate(files):
        path = directory / f"{index:03d}.csv"
        path.write_text("".join(",".join(map(str, row)) + "\n" for row in rows))
        os.utime(path, (1_000_000 + index, 1_000_000 + index))  # Spark reads oldest first


# Sessions of a 10 s gap over whole seconds, the watermark 5 s behind (15 s after the first
# file, 45 s after the second, 55 s after the third). The second file's rows at 8, 9 and 12 s
# are behind the watermark, but on time for their own sessions: each starts one of its own,
# as the session it reaches (eve's [1, 11), fay's [1, 11), ann's [1, 15)) has ended, though
# not yet been emitted, and fay's bridges to her open [14, 24); bob's at 3 s is late. dan's
# at 40 and 50 s make sessions that touch but stay apart, his at 52 s in the third file
# extends the second; cat's at 35 s there is late.
SESSION_FILES = [
    [
        ("ann", "red", 3, 1),
        ("ann", "red", 4, 5),
        ("bob", "blue", 1, 2),
        ("eve", "red", 1, 1),
        ("fay", "blue", 2, 1),
        ("fay", "blue", 3, 14),
        ("gus", "red", 1, 20),
    ],
    [
        ("eve", "red", 2, 8),
        ("fay", "blue", 4, 9),
        ("ann", "red", 5, 12),
        ("bob", "blue", 6, 3),
        ("cat", "red", 6, 30),
        ("dan", "blue", 1, 40),
        ("dan", "blue", 2, 50),
    ],
    [("dan", "blue", 3, 60), ("dan", "blue", 4, 52), ("cat", "red", 8, 35)],
    [("ann", "red", 9, 100)],
]
SESSION_SCHEMA = SCHEMA.replace("seconds double", "seconds long")


def run(
    spark,
    tmp_path: Path,
    name: str,
    windowing,
    engine: bool,
    monkeypatch,
    files=FILES,
    schema=SCHEMA,
):
    """Runs the scores pipeline over ``files`` under ``windowing`` (a WindowInto); returns its
    published lines by micro-batch, its ``dropped_late`` count, and the path it took."""
    inputs, out = tmp_path / f"{name}-in", tmp_path / name
    write_files(inputs, files)
    frame = spark.readStream.schema(schema).option("maxFilesPerTrigger", 1).csv(str(inputs))
    with monkeypatch.context() as patch:
        if engine:
            patch.setattr(streaming_runner, "lowered_grouping", lambda *args: None)
        p = beam.Pipeline(
            runner="spark",
            options={
                "streaming": True,
                "trigger_interval": "available_now",
                "checkpoint_location": str(out / "checkpoint"),
            },
        )
        (
            p
            | ReadFromSpark(frame).with_watermarks(
                WatermarkStrategy.for_bounded_out_of_orderness(5),
                timestamp_fn=operator.itemgetter("seconds"),
            )
            | windowing
            | beam.GroupBy("team", "user")
            .aggregate_field("score", sum, "total")
            .aggregate_field("score", beam.combiners.MeanCombineFn(), "mean")
            .aggregate_field("score", max, "best")
            .aggregate_field("seconds", beam.combiners.CountCombineFn(), "plays")
            | beam.Map(described)
            | WriteToText(str(out / "scores"))
        )
        result = p.run()
    dropped = result.metrics().query(MetricsFilter().with_name("dropped_late"))["counters"]
    return published(out), sum(c.committed for c in dropped), path_of(out)


def described(
    row, window=beam.DoFn.WindowParam, pane=beam.DoFn.PaneInfoParam, at=beam.DoFn.TimestampParam
):
    return f"{sorted(row.items())} {window} {pane} {at}"


def published(out: Path) -> dict:
    """Each micro-batch's published lines, sorted."""
    batches: dict = {}
    for path in sorted(out.glob("scores-*")):
        if not path.name.endswith(".SUCCESS"):
            batch = int(path.name.split("-")[1])
            batches.setdefault(batch, []).extend(path.read_text().splitlines())
    return {batch: sorted(lines) for batch, lines in batches.items()}


def path_of(out: Path) -> dict:
    """Which groupings the checkpoint records as Spark's aggregation."""
    described = json.loads((out / "checkpoint" / "panes" / "pipeline.json").read_text())
    return {label for label, entry in described.items() if entry.get("path")}


LOWERED = {"GroupBy(team,user)/AggregateFields"}


@pytest.mark.smoke
def test_a_column_aggregation_runs_as_sparks_and_gives_the_engines_panes(
    spark, tmp_path, monkeypatch
):
    windowing = beam.WindowInto(FixedWindows(20))
    lowered, lowered_drops, lowered_path = run(
        spark, tmp_path, "lowered", windowing, False, monkeypatch
    )
    engine, engine_drops, engine_path = run(spark, tmp_path, "engine", windowing, True, monkeypatch)
    assert (lowered_path, engine_path) == (LOWERED, set())
    assert lowered == engine
    assert lowered_drops == engine_drops == 4
    assert [len(lowered[batch]) for batch in sorted(lowered)] == [2, 5, 1]


def test_after_watermark_alone_runs_as_sparks_aggregation_and_gives_the_engines_panes(
    spark, tmp_path, monkeypatch
):
    """Without allowed lateness ``AfterWatermark()`` fires as the default trigger does: once, on
    time and final."""
    windowing = beam.WindowInto(FixedWindows(20), trigger=AfterWatermark())
    lowered, lowered_drops, lowered_path = run(
        spark, tmp_path, "lowered", windowing, False, monkeypatch
    )
    engine, engine_drops, engine_path = run(spark, tmp_path, "engine", windowing, True, monkeypatch)
    assert (lowered_path, engine_path) == (LOWERED, set())
    assert (lowered, lowered_drops) == (engine, engine_drops)
    default, _, _ = run(
        spark, tmp_path, "default", beam.WindowInto(FixedWindows(20)), False, monkeypatch
    )
    assert lowered == default


@pytest.mark.parametrize(
    "window_fn", [SlidingWindows(20, 10), SlidingWindows(25, 10, offset=5)], ids=str
)
def test_sliding_windows_run_as_sparks_aggregation_and_give_the_engines_panes(
    spark, tmp_path, monkeypatch, window_fn
):
    """A row is late for the windows that have ended, and on time for the others."""
    windowing = beam.WindowInto(window_fn)
    lowered, lowered_drops, lowered_path = run(
        spark, tmp_path, "lowered", windowing, False, monkeypatch
    )
    engine, engine_drops, engine_path = run(spark, tmp_path, "engine", windowing, True, monkeypatch)
    assert (lowered_path, engine_path) == (LOWERED, set())
    assert (lowered, lowered_drops) == (engine, engine_drops)
    assert engine_drops > 4  # a late row's element in each window it is late for


@given(
    st.lists(
        st.one_of(st.integers(-10_000, 10_000), st.integers(-(2**62), 2**62)),
        min_size=1,
        max_size=40,
    ),
    st.integers(1, 60).flatmap(
        lambda size: st.tuples(st.just(size), st.integers(1, size), st.integers(0, 100))
    ),
    st.one_of(st.just(MIN_MICROS), st.integers(-10_100, 10_100)),
)
def test_a_rows_open_and_ended_windows_are_those_the_sdk_assigns(times, window, watermark):
    """Counted without listing them, also where the watermark is none yet (``MIN_MICROS``)."""
    size, period, offset = window
    window_fn = SlidingWindows(
        Duration(micros=size), Duration(micros=period), Duration(micros=offset)
    )
    opened, ended, earliest_end = windows_by_watermark(
        numpy.array(times, dtype=numpy.int64), watermark, size, period, window_fn.offset.micros
    )
    for index, time in enumerate(times):
        ends = [w.end_micros for w in window_fn.assign_micros(time)]
        open_ends = [end for end in ends if end > watermark]
        assert (opened[index], ended[index]) == (len(open_ends), len(ends) - len(open_ends))
        if open_ends:
            assert earliest_end[index] == min(open_ends)


def test_sessions_run_as_sparks_aggregation_and_give_the_engines_panes(
    spark, tmp_path, monkeypatch
):
    windowing = beam.WindowInto(Sessions(10))
    lowered, lowered_drops, lowered_path = run(
        spark, tmp_path, "lowered", windowing, False, monkeypatch, SESSION_FILES, SESSION_SCHEMA
    )
    engine, engine_drops, engine_path = run(
        spark, tmp_path, "engine", windowing, True, monkeypatch, SESSION_FILES, SESSION_SCHEMA
    )
    assert (lowered_path, engine_path) == (LOWERED, set())
    assert (lowered, lowered_drops) == (engine, 2)
    sessions = [
        (line.split("('user', '")[1][:3], line.split("] ")[1].split(")")[0] + ")")
        for lines in lowered.values()
        for line in lines
    ]
    assert sorted(sessions) == [
        ("ann", "[1.0, 15.0)"),
        ("ann", "[12.0, 22.0)"),
        ("bob", "[2.0, 12.0)"),
        ("cat", "[30.0, 40.0)"),
        ("dan", "[40.0, 50.0)"),
        ("dan", "[50.0, 70.0)"),
        ("eve", "[1.0, 11.0)"),
        ("eve", "[8.0, 18.0)"),
        ("fay", "[1.0, 11.0)"),
        ("fay", "[9.0, 24.0)"),
        ("gus", "[20.0, 30.0)"),
    ]


@pytest.mark.parametrize(
    "schema, gap, lowered",
    [
        (SESSION_SCHEMA, 10, True),
        (SESSION_SCHEMA, Duration(micros=10_000_500), False),
        (SCHEMA, 10, False),
        (SESSION_SCHEMA, 10**11, False),
    ],
    ids=["whole-seconds", "a-gap-between-milliseconds", "fractional-seconds", "a-gap-of-ages"],
)
def test_sessions_run_as_sparks_aggregation_where_their_ends_are_whole_milliseconds(
    spark, tmp_path, schema, gap, lowered
):
    """As the watermark is: Spark's sessions, 1 µs shorter, end by it exactly when Beam's do."""
    frame = spark.readStream.schema(schema).csv(str(tmp_path))
    windowing = beam.WindowInto(Sessions(gap))
    assert is_lowered(frame, windowing, operator.itemgetter("seconds")) == lowered


@given(
    st.lists(st.integers(-(2**62), 2**62), min_size=1, max_size=40),
    st.integers(1, 10**9),
    st.one_of(st.just(MIN_MICROS), st.integers(-(2**62), 2**62)),
)
def test_an_elements_session_before_merging_is_open_as_the_sdk_assigns_it(times, gap, watermark):
    opened, ended, earliest_end = windows_of(ir.Sessions(gap))(
        numpy.array(times, dtype=numpy.int64), watermark
    )
    for index, time in enumerate(times):
        (window,) = Sessions(Duration(micros=gap)).assign_micros(time)
        is_open = window.end_micros > watermark
        assert (opened[index], ended[index]) == (int(is_open), int(not is_open))
        if is_open:
            assert earliest_end[index] == window.end_micros


def test_a_restart_resumes_sparks_aggregation_from_the_checkpoint(spark, tmp_path, monkeypatch):
    windowing = beam.WindowInto(FixedWindows(20))
    whole, _, _ = run(spark, tmp_path, "whole", windowing, False, monkeypatch)
    run(spark, tmp_path, "resumed", windowing, False, monkeypatch, files=FILES[:3])
    resumed, dropped, path = run(spark, tmp_path, "resumed", windowing, False, monkeypatch)
    assert resumed == whole
    assert (dropped, path) == (4, LOWERED)


def test_a_checkpoint_is_not_resumed_on_the_other_path(spark, tmp_path, monkeypatch):
    windowing = beam.WindowInto(FixedWindows(20))
    run(spark, tmp_path, "scores", windowing, False, monkeypatch, files=FILES[:2])
    with pytest.raises(PipelineConstructionError) as refused:
        run(spark, tmp_path, "scores", windowing, True, monkeypatch)
    assert "'GroupBy(team,user)/AggregateFields' ran as Spark's streaming aggregation" in str(
        refused.value
    )
    assert "would now run on panes' windowing engine" in str(refused.value)


def test_a_checkpoint_of_the_engine_path_stays_on_it(spark, tmp_path, monkeypatch):
    """A checkpoint written before panes lowered the grouping (here: with the lowering off)
    resumes on the engine, with the engine's output."""
    windowing = beam.WindowInto(FixedWindows(20))
    whole, _, _ = run(spark, tmp_path, "whole", windowing, False, monkeypatch)
    run(spark, tmp_path, "resumed", windowing, True, monkeypatch, files=FILES[:3])
    resumed, dropped, path = run(spark, tmp_path, "resumed", windowing, False, monkeypatch)
    assert (resumed, dropped, path) == (whole, 4, set())


@pytest.mark.parametrize(
    "windowing, timestamp_fn, lowered",
    [
        (beam.WindowInto(FixedWindows(20)), operator.itemgetter("seconds"), True),
        (
            beam.WindowInto(FixedWindows(20), trigger=AfterWatermark()),
            operator.itemgetter("seconds"),
            True,
        ),
        (
            beam.WindowInto(FixedWindows(20), allowed_lateness=10),
            operator.itemgetter("seconds"),
            False,
        ),
        (beam.WindowInto(SlidingWindows(20, 10)), operator.itemgetter("seconds"), True),
        (beam.WindowInto(SlidingWindows(10, 20)), operator.itemgetter("seconds"), False),
        (
            beam.WindowInto(FixedWindows(20), trigger=AfterWatermark(early=AfterCount(1))),
            operator.itemgetter("seconds"),
            False,
        ),
        (beam.WindowInto(FixedWindows(20)), lambda row: row["seconds"], False),
        (beam.WindowInto(FixedWindows(20)), operator.itemgetter("seconds", "user"), False),
    ],
    ids=[
        "fixed",
        "after-watermark",
        "allowed-lateness",
        "sliding",
        "sliding-with-gaps",
        "early-firings",
        "a-lambda",
        "two-fields",
    ],
)
@pytest.mark.parametrize("deduplicated", [False, True], ids=["", "deduplicated-frame"])
def test_only_what_sparks_aggregation_reproduces_is_lowered(
    spark, tmp_path, windowing, timestamp_fn, lowered, deduplicated
):
    frame = spark.readStream.schema(SCHEMA).csv(str(tmp_path))
    if deduplicated:  # a frame with state of its own
        frame, lowered = frame.dropDuplicates(["user", "seconds"]), False
    assert is_lowered(frame, windowing, timestamp_fn) == lowered


def is_lowered(frame, windowing, timestamp_fn) -> bool:
    """Whether a user's total score over ``frame`` under ``windowing`` runs as Spark's
    aggregation."""
    return lowered_grouping_of(frame, windowing, timestamp_fn) is not None


def lowered_grouping_of(frame, windowing, timestamp_fn):
    """A user's total score over ``frame`` under ``windowing`` as Spark's aggregation, or
    None."""
    p = beam.Pipeline(runner="spark", options={"streaming": True})
    (
        p
        | ReadFromSpark(frame).with_watermarks(
            WatermarkStrategy.for_bounded_out_of_orderness(5), timestamp_fn=timestamp_fn
        )
        | windowing
        | beam.GroupBy("user").aggregate_field("score", sum, "total")
    )
    ir = p.to_ir()
    _, unbounded = streaming_runner._sources(ir)
    first, tail, _ = layers(ir)
    return lowered_grouping(ir, unbounded, first, tail)


def test_a_missing_value_fails_the_run_naming_the_transform_and_the_field(
    spark, tmp_path, monkeypatch
):
    files = [[("ann", "red", "", 1.0)]]
    with pytest.raises(UserCodeError) as failed:
        run(
            spark, tmp_path, "missing", beam.WindowInto(FixedWindows(20)), False, monkeypatch, files
        )
    assert "'GroupBy(team,user)/AggregateFields'" in str(failed.value)
    assert "field 'score' is None" in str(failed.value)


@pytest.mark.parametrize("seconds", ["NaN", "1e300"])
def test_a_time_python_cannot_take_fails_the_run_as_on_the_engine(
    spark, tmp_path, monkeypatch, seconds
):
    files = [[("ann", "red", 1, 1.0), ("bob", "blue", 2, seconds)]]
    failures = []
    for engine in (True, False):
        with pytest.raises(UserCodeError) as failed:
            windowing = beam.WindowInto(FixedWindows(20))
            run(spark, tmp_path, f"time-{engine}", windowing, engine, monkeypatch, files)
        failures.append(failed.value)
    on_engine, lowered = failures
    assert lowered.label == on_engine.label == "Read(DataFrameSource)"
    assert type(lowered.cause) is type(on_engine.cause) is ValueError
    assert lowered.cause.args == on_engine.cause.args


def test_the_aggregations_plan_holds_no_error_a_failure_could_be_taken_for(spark, tmp_path):
    """A streaming query's failures print its plan, and panes takes the first error it finds
    in a failure's text for the failure's cause: the plan must hold none."""
    frame = spark.readStream.schema(SCHEMA).csv(str(tmp_path))
    windowing, seconds = beam.WindowInto(FixedWindows(20)), operator.itemgetter("seconds")
    grouping = lowered_grouping_of(frame, windowing, seconds)
    assert "@@panes" not in grouping.query._jdf.queryExecution().toString()


def test_integer_sums_are_pythons_beyond_64_bits(spark, tmp_path, monkeypatch):
    scores = [2**62 + 1, 2**62 + 3, 2**62 - 7, -(2**40) - 5]
    files = [[("ann", "red", score, 1.0 + index) for index, score in enumerate(scores)]]
    files.append([("bob", "blue", 0, 100.0)])  # closes [0, 20)
    lowered, _, path = run(
        spark, tmp_path, "big", beam.WindowInto(FixedWindows(20)), False, monkeypatch, files
    )
    (line,) = [line for lines in lowered.values() for line in lines]
    assert f"('total', {sum(scores)})" in line
    assert f"('mean', {sum(scores) / len(scores)})" in line
    assert path == LOWERED


def test_a_window_ending_before_1970_fails_the_run_naming_the_way_to_the_engine(
    spark, tmp_path, monkeypatch
):
    files = [[("ann", "red", 1, 5.0)], [("bob", "blue", 2, -5.0)]]
    with pytest.raises(UserCodeError) as failed:
        run(spark, tmp_path, "early", beam.WindowInto(FixedWindows(20)), False, monkeypatch, files)
    assert "ends at or before 1970" in str(failed.value)
    assert "'Read(DataFrameSource)'" in str(failed.value)


def test_a_micro_batch_published_before_a_crash_is_run_again_without_publishing(
    spark, tmp_path, monkeypatch
):
    """A driver that dies after panes' commit record of a micro-batch and before Spark's: Spark
    runs the micro-batch again on restart (here: its commit log entry removed), for its state,
    and panes publishes nothing of it twice."""
    windowing = beam.WindowInto(FixedWindows(20))
    whole, _, _ = run(spark, tmp_path, "whole", windowing, False, monkeypatch)
    run(spark, tmp_path, "crashed", windowing, False, monkeypatch, files=FILES[:3])
    commits = tmp_path / "crashed" / "checkpoint" / "commits"
    last = max(commits.glob("[0-9]*"), key=lambda path: int(path.name))
    last.unlink()
    (commits / f".{last.name}.crc").unlink()
    resumed, dropped, _ = run(spark, tmp_path, "crashed", windowing, False, monkeypatch)
    assert (resumed, dropped) == (whole, 4)
