"""Operating an unbounded streaming pipeline: ``run()`` returns a running result whose
``wait_until_finish(duration)`` waits at most that long, ``cancel()`` stops it with the
published outputs and the metrics of committed micro-batches; sources are Spark's rate source
through ``ReadFromSpark`` (Kafka likewise, where its connector is installed)."""

import glob
import time
from pathlib import Path

import pytest

import panes as beam
from panes.io.text import WriteToText
from panes.metrics import Metrics
from panes.runners.spark.streaming.sources import ReadFromSpark
from panes.watermark import WatermarkStrategy
from panes.window import FixedWindows


class CountRows(beam.DoFn):
    def process(self, row):
        Metrics.counter("test", "rows").inc()
        yield "rows", 1


def _published(prefix: Path) -> list:
    return [line for path in glob.glob(f"{prefix}-*") for line in Path(path).read_text().split()]


@pytest.mark.slow
def test_an_unbounded_pipeline_runs_until_cancelled(spark, tmp_path):
    rate = spark.readStream.format("rate").option("rowsPerSecond", 20).load()
    p = beam.Pipeline(
        runner="spark",
        options={
            "streaming": True,
            "checkpoint_location": str(tmp_path / "checkpoint"),
            "trigger_interval": 2,
        },
    )
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
    assert result.cancel() == "CANCELLED"
    assert result.state == "CANCELLED"
    counts = [int(count) for count in _published(tmp_path / "out" / "counts")]
    assert counts and all(0 < count <= 60 for count in counts)
    assert result.metrics().counter("rows") >= sum(counts)


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
