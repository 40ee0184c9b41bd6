"""Text and Parquet sources and sinks: round trips, shard names, atomic writes, on every runner."""

import os

import pyarrow as pa
import pytest

import panes as beam
from panes.errors import UserCodeError
from panes.io import ReadFromParquet, ReadFromText, WriteToParquet, WriteToText
from panes.io.files import shard_names, split_evenly
from panes.testing import materialize


def visible(directory) -> list:
    """The names in ``directory`` but hidden ones (Hadoop's local file system writes a
    ``.<name>.crc`` checksum beside each file)."""
    return sorted(name for name in os.listdir(directory) if not name.startswith("."))


def test_shard_names_follow_beams_template():
    assert shard_names("out/part", ".txt", 3, "-SSSSS-of-NNNNN") == [
        "out/part-00000-of-00003.txt",
        "out/part-00001-of-00003.txt",
        "out/part-00002-of-00003.txt",
    ]
    assert shard_names("x", "", 1, "") == ["x"]


def test_records_split_into_consecutive_even_shards():
    assert split_evenly(list(range(7)), 3) == [[0, 1, 2], [3, 4], [5, 6]]
    assert split_evenly([], 2) == [[], []]


def test_text_round_trip_reads_files_in_path_order(tmp_path, runner):
    (tmp_path / "b.txt").write_text("three\nfour\n")
    (tmp_path / "a.txt").write_text("one\r\ntwo")
    p = beam.Pipeline(runner=runner)
    lines = p | ReadFromText(str(tmp_path / "*.txt"))
    read = materialize(lines)
    lines | beam.Map(str.upper) | WriteToText(str(tmp_path / "out" / "upper"), ".txt", num_shards=2)
    p.run()
    assert read.values == ["one", "two", "three", "four"]
    shards = visible(tmp_path / "out")
    assert shards == ["upper-00000-of-00002.txt", "upper-00001-of-00002.txt", "upper.SUCCESS"]
    assert (tmp_path / "out" / "upper.SUCCESS").read_bytes() == b""
    shards.pop()
    written = [line for shard in shards for line in (tmp_path / "out" / shard).read_text().split()]
    assert sorted(written) == ["FOUR", "ONE", "THREE", "TWO"]


def test_text_header_lines_are_skipped_and_written(tmp_path, runner):
    (tmp_path / "in.csv").write_text("name,n\na,1\nb,2\n")
    p = beam.Pipeline(runner=runner)
    (
        p
        | ReadFromText(str(tmp_path / "in.csv"), skip_header_lines=1)
        | WriteToText(str(tmp_path / "out.csv"), shard_name_template="", header="name,n")
    )
    p.run()
    assert (tmp_path / "out.csv").read_text() == "name,n\na,1\nb,2\n"


def test_parquet_round_trip_with_schema_and_columns(tmp_path, runner):
    schema = pa.schema([("word", pa.string()), ("count", pa.int64())])
    p = beam.Pipeline(runner=runner)
    (
        p
        | beam.Create([{"word": "a", "count": 2}, {"word": "b", "count": 5}])
        | WriteToParquet(str(tmp_path / "counts"), schema=schema)
    )
    p.run()
    p = beam.Pipeline(runner=runner)
    counts = materialize(p | ReadFromParquet(str(tmp_path / "counts*"), columns=["count"]))
    p.run()
    assert sorted(row["count"] for row in counts.values) == [2, 5]
    assert all(set(row) == {"count"} for row in counts.values)


def test_a_failed_write_leaves_no_output_under_the_final_name(tmp_path, runner):
    def explode(x):
        if x == 3:
            raise ValueError("boom")
        return x

    p = beam.Pipeline(runner=runner)
    p | beam.Create(range(5)) | beam.Map(explode) | WriteToText(str(tmp_path / "out"))
    with pytest.raises(UserCodeError):
        p.run()
    assert os.listdir(tmp_path) == []


def test_a_sink_that_fails_mid_write_leaves_nothing(tmp_path, runner):
    schema = pa.schema([("n", pa.int64())])
    p = beam.Pipeline(runner=runner)
    (
        p
        | beam.Create([{"n": 1}, {"n": "not a number"}])
        | WriteToParquet(str(tmp_path / "rows"), schema=schema, num_shards=2)
    )
    with pytest.raises(UserCodeError) as caught:
        p.run()
    assert "WriteToParquet" in caught.value.label or "Write" in caught.value.label
    assert os.listdir(tmp_path) == []


def test_reading_a_missing_file_names_the_transform(tmp_path, runner):
    p = beam.Pipeline(runner=runner)
    p | "ReadLogs" >> ReadFromText(str(tmp_path / "missing-*.log"))
    with pytest.raises(UserCodeError, match="ReadLogs"):
        p.run()
