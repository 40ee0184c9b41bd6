"""What the streaming runner refuses before it starts anything, with an error that names the
transform and the way out: among it what would wait for good on unbounded input."""

import operator
import sys
from pathlib import Path

import pytest

import panes as beam
from panes.errors import PipelineConstructionError, ValidationError
from panes.io.base import Sink, Write
from panes.io.text import ReadFromText, WriteToText
from panes.runners.spark.streaming.runner import check_groupings, spark_interval
from panes.runners.spark.streaming.sources import ReadFromSpark
from panes.trigger import AccumulationMode, AfterProcessingTime, Repeatedly
from panes.watermark import WatermarkStrategy
from panes.window import FixedWindows, GlobalWindows

sys.path.insert(0, str(Path(__file__).parent))
import streaming_files_pipeline as files_pipeline  # noqa: E402


def _streaming():
    return beam.Pipeline(runner="spark", options={"streaming": True})


def test_a_streaming_file_sink_needs_a_checkpoint_location(tmp_path):
    p = _streaming()
    files_pipeline.build(p, str(tmp_path), str(tmp_path / "out"))
    with pytest.raises(PipelineConstructionError, match="--checkpoint_location"):
        p.run()


def test_an_event_log_and_an_unbounded_source_do_not_mix(tmp_path):
    p = _streaming()
    (
        (p | "Files" >> ReadFromText(str(tmp_path / "*.txt")), p | "Log" >> beam.Create(["x"]))
        | beam.Flatten()
    )
    with pytest.raises(PipelineConstructionError, match="Files against Log"):
        p.run()


class ListSink(Sink):
    def write_records(self, records):
        return []


def test_a_sink_that_cannot_publish_exactly_once_is_refused():
    p = _streaming()
    p | beam.Create([1]) | "Keep" >> Write(ListSink())
    with pytest.raises(PipelineConstructionError, match="'Keep' writes to ListSink"):
        p.run()


@pytest.mark.parametrize(
    "windowing",
    [beam.WindowInto(GlobalWindows()), None],
    ids=["global window", "no windowing"],
)
def test_a_grouping_that_would_never_fire_on_unbounded_input_is_refused(tmp_path, windowing):
    """As Beam refuses a GroupByKey of an unbounded PCollection in the global window with
    the default trigger: Beam's word count, its file read watched under --streaming."""
    p = _streaming()
    words = p | ReadFromText(str(tmp_path / "*.txt")) | beam.Map(lambda word: (word, 1))
    if windowing is not None:
        words = words | windowing
    words | "Count" >> beam.CombinePerKey(sum)
    with pytest.raises(PipelineConstructionError) as refused:
        p.run()
    assert str(refused.value).startswith(
        "'Count' groups unbounded input in the global window with the default trigger"
    )
    assert "or run in batch, without --streaming" in str(refused.value)


def test_a_grouping_in_the_global_window_with_a_trigger_is_not_refused(tmp_path):
    p = _streaming()
    (
        p
        | ReadFromText(str(tmp_path / "*.txt"))
        | beam.Map(lambda word: (word, 1))
        | beam.WindowInto(
            GlobalWindows(),
            trigger=Repeatedly(AfterProcessingTime(10)),
            accumulation_mode=AccumulationMode.DISCARDING,
        )
        | "Count" >> beam.CombinePerKey(sum)
    )
    check_groupings(p.to_ir())


def test_allow_unsafe_triggers_lets_such_a_grouping_run_with_a_warning(tmp_path, caplog):
    p = beam.Pipeline(runner="spark", options={"streaming": True, "allow_unsafe_triggers": True})
    (
        p
        | ReadFromText(str(tmp_path / "*.txt"))
        | beam.Map(lambda w: (w, 1))
        | "Count" >> (beam.CombinePerKey(sum))
    )
    check_groupings(p.to_ir(), allow_unsafe_triggers=True)
    assert "'Count' groups unbounded input in the global window" in caplog.text
    assert "allowed by --allow_unsafe_triggers" in caplog.text


def test_a_dataframe_with_its_own_watermark_is_refused(spark, tmp_path):
    """Spark refuses a second watermark once the query's moves: panes refuses it first."""
    rate = spark.readStream.format("rate").load().withWatermark("timestamp", "1 second")
    p = beam.Pipeline(
        runner="spark",
        options={"streaming": True, "checkpoint_location": str(tmp_path / "checkpoint")},
    )
    (
        p
        | "Rates"
        >> ReadFromSpark(rate).with_watermarks(
            WatermarkStrategy.for_bounded_out_of_orderness(1),
            timestamp_fn=operator.itemgetter("timestamp"),
        )
        | beam.WindowInto(FixedWindows(10))
        | beam.GroupBy("value").aggregate_field("value", sum, "total")
        | WriteToText(str(tmp_path / "out"))
    )
    with pytest.raises(PipelineConstructionError, match="'Rates' reads a DataFrame with its own"):
        p.run()
    assert not (tmp_path / "checkpoint").exists()


@pytest.mark.parametrize(
    ("interval", "millis"),
    [
        ("10", 10_000),  # as a command line gives it
        (10, 10_000),
        (2.5, 2_500),
        ("1.5 seconds", 1_500),
        ("500 milliseconds", 500),
        ("interval 1 minute", 60_000),
        ("1 hour 30 minutes", 5_400_000),
        ("1 MINUTE", 60_000),
    ],
)
def test_a_trigger_interval_is_seconds_or_a_spark_interval(spark, interval, millis):
    processing_time = spark._jvm.org.apache.spark.sql.streaming.Trigger.ProcessingTime
    assert processing_time(spark_interval(interval)).intervalMs() == millis


@pytest.mark.parametrize("interval", ["1 min", "10s", "1 month", "-1", "soon"])
def test_a_trigger_interval_spark_would_not_read_is_refused_before_it_starts(tmp_path, interval):
    p = beam.Pipeline(
        runner="spark",
        options={
            "streaming": True,
            "checkpoint_location": str(tmp_path / "checkpoint"),
            "trigger_interval": interval,
        },
    )
    p | ReadFromText(str(tmp_path / "*.txt")) | WriteToText(str(tmp_path / "out"))
    with pytest.raises(ValidationError, match=f"--trigger_interval '{interval}': give seconds"):
        p.run()
    assert not (tmp_path / "checkpoint").exists()
