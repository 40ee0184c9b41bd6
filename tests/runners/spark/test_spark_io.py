"""Spark specifics of reading and writing: files split and packed as Spark's readers do still
give the direct runner's records, in its order; shards follow partitions unless counted;
side inputs are measured before they are collected; metrics survive recomputation."""

import re

import pytest

import panes as beam
from panes.errors import RunnerError, UserCodeError
from panes.metrics import MetricName, MetricsContainer
from panes.runners.spark.metrics import committed, partition_metrics, report
from panes.runners.spark.side_inputs import LIMIT_SETTING
from panes.testing import materialize
from panes.trigger import AccumulationMode, AfterCount, AfterWatermark
from panes.watermark import WatermarkStrategy
from panes.window import FixedWindows


@pytest.fixture
def small_splits(spark):
    """Spark cuts files into splits of a few dozen bytes and packs several into a partition."""
    settings = {"spark.sql.files.maxPartitionBytes": "40", "spark.sql.files.openCostInBytes": "1"}
    before = {key: spark.conf.get(key) for key in settings}
    for key, value in settings.items():
        spark.conf.set(key, value)
    yield
    for key, value in before.items():
        spark.conf.set(key, value)


@pytest.fixture(params=["local", "hadoop"])
def files(request, tmp_path, spark):
    """Five CSV files with headers, named as a local path or as a Hadoop URI; the direct runner
    reads the same files by their local path."""
    for index in range(5):
        lines = [f"{(index * 37 + i * 11) % 90},k{i % 3}" for i in range(12 + index)]
        (tmp_path / f"part-{index}.csv").write_text("time,key\n" + "\n".join(lines) + "\n")
    local = str(tmp_path / "part-*.csv")
    if request.param == "local":
        return local, local
    return request.getfixturevalue("hadoop_uri")(local), local


def read_and_group(runner, pattern, watermark):
    p = beam.Pipeline(runner=runner)
    read = beam.io.ReadFromText(pattern, skip_header_lines=1)
    if watermark:
        read = read.with_watermarks(
            WatermarkStrategy.for_bounded_out_of_orderness(20),
            timestamp_fn=lambda line: int(line.split(",")[0]),
        )
    lines = p | read
    sums = (
        lines
        | beam.Map(lambda line: (line.split(",")[1], int(line.split(",")[0])))
        | beam.WindowInto(
            FixedWindows(30),
            trigger=AfterWatermark(early=AfterCount(2), late=AfterCount(1)),
            accumulation_mode=AccumulationMode.ACCUMULATING,
            allowed_lateness=40,
        )
        | beam.CombinePerKey(sum)
    )
    handles = [materialize(lines), materialize(sums)]
    p.run()
    return [(h.steps, [repr(wv) for wv in h.windowed_values]) for h in handles]


@pytest.mark.parametrize("watermark", [False, True], ids=["batch", "record at a time"])
def test_split_and_packed_files_give_the_direct_runners_records_and_panes(
    spark, small_splits, files, watermark
):
    on_spark, local = files
    assert read_and_group("spark", on_spark, watermark) == read_and_group(
        "direct", local, watermark
    )


def test_an_undecodable_line_read_by_spark_names_its_file_and_split(
    spark, small_splits, hadoop_uri, tmp_path
):
    lines = [f"line {i}".encode() for i in range(40)]
    lines[30] = b"caf\xe9"
    (tmp_path / "latin1.txt").write_bytes(b"\n".join(lines) + b"\n")
    p = beam.Pipeline(runner="spark")
    p | "ReadLogs" >> beam.io.ReadFromText(hadoop_uri(tmp_path / "latin1.txt"))
    with pytest.raises(UserCodeError, match="ReadLogs") as caught:
        p.run()
    assert re.search(
        r"panesfs://cluster\S*/latin1.txt, line \d+ of the split at byte \d+ is "
        r"not UTF-8",
        str(caught.value),
    ), str(caught.value)


@pytest.mark.parametrize(
    "label, connector",
    [("ReadLogs", "com.google.cloud.bigdataoss:gcs-connector"), ("WriteLogs", "hadoop-aws")],
)
def test_an_object_store_without_its_connector_names_the_transform_and_the_connector(
    spark, label, connector
):
    p = beam.Pipeline(runner="spark")
    if label == "ReadLogs":
        p | label >> beam.io.ReadFromText("gs://bucket/logs/*.txt")
    else:
        p | beam.Create(["a"]) | label >> beam.io.WriteToText("s3a://bucket/logs/out")
    with pytest.raises(UserCodeError) as caught:
        p.run()
    message = str(caught.value)
    assert message.startswith(f"OSError in transform '{label}'")
    assert connector in message and "spark.jars.packages" in message
    assert "\tat " not in message


def test_a_relative_path_is_the_drivers_from_where_it_is_now(spark, tmp_path, monkeypatch):
    """As on the direct runner, though the session's JVM started in another folder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text("one\ntwo\n")
    p = beam.Pipeline(runner="spark")
    p | beam.io.ReadFromText("in/*.txt") | beam.io.WriteToText("out/lines", num_shards=1)
    p.run()
    assert (tmp_path / "out" / "lines-00000-of-00001").read_text() == "one\ntwo\n"


def test_without_a_shard_count_a_shard_per_partition(spark, tmp_path):
    p = beam.Pipeline(runner="spark", options={"spark_partitions": 3})
    p | beam.Create(range(30)) | beam.io.WriteToText(str(tmp_path / "n"))
    p.run()
    shards = sorted(tmp_path.glob("n-*"))
    assert [s.name for s in shards] == [f"n-0000{i}-of-00003" for i in range(3)]
    assert sorted(int(x) for s in shards for x in s.read_text().split()) == list(range(30))


def test_a_side_input_above_the_limit_is_refused_before_it_is_collected(spark):
    spark.conf.set(LIMIT_SETTING, "10000")
    try:
        p = beam.Pipeline(runner="spark")
        big = p | "Big" >> beam.Create(range(1000))
        p | beam.Create([1]) | "Use" >> beam.Map(lambda x, side: x, beam.pvalue.AsList(big))
        with pytest.raises(RunnerError, match=r"transform 'Use'.*above the 10,000 bytes"):
            p.run()
        p = beam.Pipeline(runner="spark")
        small = p | "Small" >> beam.Create(range(10))
        out = materialize(
            p
            | beam.Create([1])
            | "Use" >> beam.Map(lambda x, side: sum(side), beam.pvalue.AsList(small))
        )
        p.run()
        assert out.values == [45]
    finally:
        spark.conf.unset(LIMIT_SETTING)


def test_a_partition_computed_again_counts_once(spark):
    accumulator = partition_metrics(spark.sparkContext)
    name = MetricName("test", "seen")

    def count(partition, records):
        container = MetricsContainer()
        for record in records:
            container.inc("Count", name, 1)
            yield record
        report(accumulator, "loop", partition, container)

    rdd = spark.sparkContext.parallelize(range(100), 4).mapPartitionsWithIndex(count)
    assert rdd.count() == 100 and rdd.count() == 100  # two jobs compute every partition
    assert committed(accumulator).counters == {("Count", name): 100}
