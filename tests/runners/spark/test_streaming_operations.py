"""Operating a streaming pipeline: ``run()`` returns a running result whose
``wait_until_finish(duration)`` waits at most that long, whose metrics are those of the
committed micro-batches while it runs and after, and ``cancel()`` stops it with the published
outputs; sources are Spark's rate source through ``ReadFromSpark`` (Kafka likewise, where its
connector is installed). A run prints its progress lines and nothing else, unless
``--spark_log_level`` asks for Spark's own output."""

import glob
import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

import panes as beam
from panes.io.text import ReadFromText, WriteToText
from panes.metrics import Metrics
from panes.runners.spark.streaming.progress import IDLE_NOTE, POLL_SECONDS
from panes.runners.spark.streaming.sources import ReadFromSpark
from panes.testing import materialize
from panes.trigger import AccumulationMode, AfterCount, AfterProcessingTime, Repeatedly
from panes.watermark import WatermarkStrategy
from panes.window import FixedWindows, GlobalWindows


class CountRows(beam.DoFn):
    def process(self, row):
        Metrics.counter("test", "rows").inc()
        yield "rows", 1


def _published(prefix: Path) -> list:
    return [line for path in glob.glob(f"{prefix}-*") for line in Path(path).read_text().split()]


def _progress(caplog) -> list:
    """The progress lines logged so far, a record per micro-batch."""
    return [r for r in caplog.records if r.name == "panes.streaming" and "micro-batch" in r.msg]


def _unbounded_pipeline(tmp_path: Path, **options):
    return beam.Pipeline(
        runner="spark",
        options={"streaming": True, "checkpoint_location": str(tmp_path / "checkpoint"), **options},
    )


@pytest.mark.slow
def test_an_unbounded_pipeline_runs_until_cancelled(spark, tmp_path):
    rate = spark.readStream.format("rate").option("rowsPerSecond", 20).load()
    p = _unbounded_pipeline(tmp_path, trigger_interval=2)
    (
        p
        | ReadFromSpark(rate).with_watermarks(
            WatermarkStrategy.for_bounded_out_of_orderness(1),
            timestamp_fn=lambda row: row["timestamp"],
        )
        | beam.ParDo(CountRows())
        | beam.WindowInto(FixedWindows(2))
        | beam.CombinePerKey(sum)
        | beam.Map(lambda kv: str(kv[1]))
        | WriteToText(str(tmp_path / "out" / "counts"))
    )
    result = p.run()
    assert result.state == "RUNNING"
    started = time.time()
    assert result.wait_until_finish(duration=3000) == "RUNNING"
    assert time.time() - started >= 3
    deadline = time.time() + 240
    while not _published(tmp_path / "out" / "counts") and time.time() < deadline:
        time.sleep(2)
    while_running = result.metrics().counter("rows")
    assert while_running > 0  # the committed micro-batches' counts, read while it runs
    assert result.cancel() == "CANCELLED"
    assert result.state == "CANCELLED"
    counts = [int(count) for count in _published(tmp_path / "out" / "counts")]
    assert counts and all(0 < count <= 60 for count in counts)
    assert result.metrics().counter("rows") >= max(sum(counts), while_running)
    # Writing a micro-batch's files left PySpark's active session to the micro-batch.
    assert SparkSession.getActiveSession() is spark


@pytest.mark.slow
def test_a_dataframe_of_a_session_not_active_streams_with_the_runners_settings(spark, tmp_path):
    """The query runs on its DataFrame's session, which is where the runner's settings for
    it (transformWithState's state store among them) must go, and whose shuffle partitions
    the user set lay out its state."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "lines.txt").write_text("a\nb\na\n")
    other = spark.newSession()
    other.conf.set("spark.sql.shuffle.partitions", "3")
    lines = other.readStream.format("text").load(str(tmp_path / "in"))
    checkpoint = tmp_path / "checkpoint"
    p = beam.Pipeline(
        runner="spark",
        options={
            "streaming": True,
            "trigger_interval": "available_now",
            "checkpoint_location": str(checkpoint),
        },
    )
    counts = (
        p
        | ReadFromSpark(lines).with_watermarks(
            WatermarkStrategy.for_bounded_out_of_orderness(0), timestamp_fn=lambda row: 0
        )
        | beam.Map(lambda row: (row["value"], 1))
        | beam.WindowInto(
            GlobalWindows(),
            trigger=Repeatedly(AfterCount(1)),
            accumulation_mode=AccumulationMode.ACCUMULATING,
        )
        | beam.CombinePerKey(sum)
    )
    captured = materialize(counts, "Counts")
    p.run()
    latest = {}
    for key, count in captured.values:
        latest[key] = max(count, latest.get(key, 0))
    assert latest == {"a": 2, "b": 1}
    layout = json.loads((checkpoint / "panes" / "layout.json").read_text())
    assert layout["state_partitions"] == 3


def test_kafka_is_read_through_sparks_connector(spark):
    try:
        spark.readStream.format("kafka").option("kafka.bootstrap.servers", "127.0.0.1:9").option(
            "subscribe", "events"
        ).load()
    except Exception as error:
        if "kafka" not in str(error).lower():
            raise
        pytest.skip(
            "Spark's Kafka connector (spark-sql-kafka-0-10) is not on this machine's "
            "classpath and cannot be fetched here (no Maven access); docs/streaming.md "
            "shows how to read Kafka with it"
        )
    pytest.skip("the Kafka connector is installed, but no broker runs here to read from")


QUICK_START = """
import logging
import sys

import panes as beam
from panes.testing import TestStream
from panes.window import FixedWindows, TimestampedValue

logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")
p = beam.Pipeline(options=beam.PipelineOptions(["--runner=spark", "--streaming", *sys.argv[1:]]))
events = (
    TestStream()
    .add_elements([TimestampedValue(("a", 1), 1), TimestampedValue(("b", 2), 2)])
    .advance_watermark_to_infinity()
)
p | events | beam.WindowInto(FixedWindows(10)) | beam.CombinePerKey(sum)
p.run()
"""


UI_PORT_TAKEN = "WARN Utils: Service 'SparkUI' could not bind on port"


def _quick_start(tmp_path, *flags):
    script = tmp_path / "quick_start.py"
    script.write_text(QUICK_START)
    done = subprocess.run(
        [sys.executable, str(script), *flags], capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout + done.stderr


@pytest.mark.slow
def test_a_run_prints_its_progress_and_nothing_else(tmp_path):
    printed = _quick_start(tmp_path).splitlines()
    ours = [line for line in printed if line.startswith("panes.streaming: ")]
    batches = [
        int(line.split(" micro-batch ")[1].split(":")[0]) for line in ours if "micro-batch" in line
    ]
    assert len(batches) >= 2 and batches == list(range(len(batches)))  # each once, in order
    # Java's own note on the incubator module it loads is the only other line, but for
    # Spark's word on the port its UI took where another application (a parallel test
    # process) holds the usual one.
    others = [line for line in printed if line not in ours and UI_PORT_TAKEN not in line]
    assert others == ["WARNING: Using incubator modules: jdk.incubator.vector"]


@pytest.mark.slow
def test_a_log_level_shows_what_pyspark_prints(tmp_path):
    printed = _quick_start(tmp_path, "--spark_log_level=WARN")
    assert "Streaming TransformWithStateInPandas Python worker" in printed


@pytest.mark.slow
def test_a_micro_batch_after_triggers_that_found_nothing_gets_its_line(spark, tmp_path, caplog):
    """Spark notes a trigger that found no new input with the id of the micro-batch to come;
    that micro-batch, once input arrives, is the one logged."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "0.txt").write_text("a\n")
    p = _unbounded_pipeline(tmp_path, trigger_interval=0.2)
    p | ReadFromText(str(tmp_path / "in" / "*.txt")) | WriteToText(str(tmp_path / "out" / "lines"))
    caplog.set_level(logging.INFO, logger="panes.streaming")
    result = p.run()
    try:
        _wait_for(lambda: _published(tmp_path / "out" / "lines") == ["a"])
        _wait_for(lambda: _found_nothing(result.query.lastProgress))
        time.sleep(2 * POLL_SECONDS)  # the progress thread has seen it
        (tmp_path / "in" / "1.tmp").write_text("b\n")
        os.replace(tmp_path / "in" / "1.tmp", tmp_path / "in" / "1.txt")  # whole when listed
        _wait_for(lambda: sorted(_published(tmp_path / "out" / "lines")) == ["a", "b"])
        _wait_for(lambda: len(_progress(caplog)) >= 2)
    finally:
        result.cancel()
    lines = [line.getMessage() for line in _progress(caplog)]
    assert [line.split(" micro-batch ")[1].split(":")[0] for line in lines] == ["0", "1"]
    assert all(": 1 rows in " in line for line in lines), lines


def _found_nothing(progress) -> bool:
    """Whether ``progress`` is Spark's note of a trigger that found no new input."""
    return progress is not None and "addBatch" not in progress.durationMs


def _wait_for(condition, seconds: float = 180) -> None:
    """Waits until ``condition()`` holds; fails after ``seconds``."""
    deadline = time.time() + seconds
    while not condition():
        assert time.time() < deadline, "timed out"
        time.sleep(0.2)


@pytest.mark.slow
def test_processing_time_fires_from_the_wall_clock_without_new_input(spark, tmp_path, caplog):
    """A processing-time trigger and ``GroupIntoBatches``' buffering timer fire on files that
    all arrived before the start: no later input moves the clock, the heartbeat does. Once
    nothing is left to do, the heartbeat's idle micro-batches are logged at DEBUG after a
    first at INFO."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "0.txt").write_text("a\na\nb\n")
    p = _unbounded_pipeline(tmp_path)  # a micro-batch a second: the heartbeat's default
    words = p | ReadFromText(str(tmp_path / "in" / "*.txt"))
    (
        words
        | beam.Map(lambda word: (word, 1))
        | beam.WindowInto(
            GlobalWindows(),
            trigger=Repeatedly(AfterProcessingTime(2)),
            accumulation_mode=AccumulationMode.DISCARDING,
        )
        | beam.CombinePerKey(sum)
        | beam.Map(lambda kv: f"{kv[0]}={kv[1]}")
        | "WriteCounts" >> WriteToText(str(tmp_path / "out" / "counts"))
    )
    (
        words
        | "Keyed" >> beam.Map(lambda word: ("k", word))
        | beam.GroupIntoBatches(10, max_buffering_duration_secs=2)
        | beam.Map(lambda kv: "+".join(sorted(kv[1])))
        | "WriteBatches" >> WriteToText(str(tmp_path / "out" / "batches"))
    )
    caplog.set_level(logging.DEBUG, logger="panes.streaming")
    result = p.run()
    prefixes = (tmp_path / "out" / "counts", tmp_path / "out" / "batches")
    deadline = time.time() + 180
    while not all(map(_published, prefixes)) and time.time() < deadline:
        time.sleep(2)
    deadline = time.time() + 120  # for idle micro-batches
    while not any(r.levelno == logging.DEBUG for r in _progress(caplog)) and time.time() < deadline:
        time.sleep(1)
    assert result.cancel() == "CANCELLED"
    assert sorted(_published(prefixes[0])) == ["a=2", "b=1"]
    assert _published(prefixes[1]) == ["a+a+b"]
    lines = _progress(caplog)
    idle = [line for line in lines if line.levelno == logging.DEBUG]
    assert idle and all(" 0 rows in (0.0 rows/s)" in line.getMessage() for line in idle)
    first_idle = lines.index(idle[0]) - 1
    assert lines[first_idle].levelno == logging.INFO and IDLE_NOTE in lines[first_idle].getMessage()
