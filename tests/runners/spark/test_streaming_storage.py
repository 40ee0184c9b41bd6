"""A streaming pipeline's outputs and checkpoint on a file system only Hadoop knows: every
micro-batch's shards are published under the URI's names with a marker per micro-batch, the
panes are the direct runner's, and nothing lands in a local directory named after the URI."""

import glob
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import panes as beam
from panes.io.parquet import WriteToParquet
from panes.io.text import WriteToText
from panes.testing import TestStream
from panes.trigger import AccumulationMode, AfterCount, AfterWatermark
from panes.window import FixedWindows, TimestampedValue


class DescribePane(beam.DoFn):
    def process(self, kv, window=beam.DoFn.WindowParam, pane=beam.DoFn.PaneInfoParam):
        yield f"{kv[0]} {int(window.start)} {pane.timing.value} {pane.index} {kv[1]}"


def _run(runner, text_prefix: str, parquet_prefix: str, options=None):
    p = beam.Pipeline(runner=runner, options=options)
    events = (
        TestStream()
        .add_elements([TimestampedValue(("a", 1), 1), TimestampedValue(("b", 2), 2)])
        .add_elements([TimestampedValue(("a", 3), 3)])
        .advance_watermark_to(12)
        .add_elements([TimestampedValue(("a", 4), 14), TimestampedValue(("b", 5), 15)])
        .advance_watermark_to_infinity()
    )
    panes = (
        p
        | events
        | beam.WindowInto(
            FixedWindows(10),
            trigger=AfterWatermark(early=AfterCount(1)),
            accumulation_mode=AccumulationMode.ACCUMULATING,
        )
        | beam.CombinePerKey(sum)
        | beam.ParDo(DescribePane())
    )
    panes | WriteToText(text_prefix, ".txt")
    panes | beam.Map(lambda line: {"pane": line}) | WriteToParquet(parquet_prefix)
    p.run()


def _lines(prefix: Path) -> Counter:
    return Counter(
        line
        for path in glob.glob(f"{prefix}-*.txt")
        for line in Path(path).read_text().splitlines()
    )


def _rows(prefix: Path) -> Counter:
    return Counter(
        row["pane"]
        for path in glob.glob(f"{prefix}-*")
        if not path.endswith(".SUCCESS")
        for row in pq.read_table(path).to_pylist()
    )


def test_outputs_and_checkpoint_go_through_hadoop(tmp_path, spark, hadoop_uri, monkeypatch):
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    _run("direct", str(tmp_path / "direct" / "text"), str(tmp_path / "direct" / "rows"))
    checkpoint = tmp_path / "checkpoint"
    _run(
        "spark",
        hadoop_uri(tmp_path / "out" / "text"),
        hadoop_uri(tmp_path / "out" / "rows"),
        {"streaming": True, "checkpoint_location": hadoop_uri(checkpoint)},
    )
    assert _lines(tmp_path / "out" / "text") == _lines(tmp_path / "direct" / "text")
    assert _rows(tmp_path / "out" / "rows") == _rows(tmp_path / "direct" / "rows")
    assert list((tmp_path / "cwd").iterdir()) == []  # no local "panesfs:" directory
    committed = sorted(int(path.name) for path in (checkpoint / "commits").glob("[0-9]*"))
    for name in ("text", "rows"):
        markers = sorted((tmp_path / "out").glob(f"{name}-*.SUCCESS"))
        assert [int(marker.name[len(name) + 1 : -8]) for marker in markers] == committed
    published = {path.name for path in (tmp_path / "out").iterdir()}
    assert not any(name.startswith(".panes-temp-") for name in published), published


@pytest.mark.slow
def test_a_replayed_micro_batch_replaces_what_a_crashed_attempt_published(
    tmp_path, spark, hadoop_uri
):
    """A shard that a crashed attempt of a micro-batch left under a final name (and its
    marker) is gone once the micro-batch is published again: never two attempts mixed."""
    prefix, checkpoint = tmp_path / "out" / "text", tmp_path / "checkpoint"
    options = {"streaming": True, "checkpoint_location": hadoop_uri(checkpoint)}
    _run("spark", hadoop_uri(prefix), hadoop_uri(tmp_path / "out" / "rows"), options)
    expected = _lines(prefix)
    commits = checkpoint / "commits"
    last = max(int(path.name) for path in commits.glob("[0-9]*"))
    (commits / str(last)).unlink()  # Spark never logged the last micro-batch as committed...
    (commits / f".{last}.crc").unlink(missing_ok=True)
    (checkpoint / "panes" / "commits" / f"{last:012d}.metrics").unlink()  # ...nor did panes
    (tmp_path / "out" / f"text-{last:08d}-00007.txt").write_text("a stale attempt\n")
    _run("spark", hadoop_uri(prefix), hadoop_uri(tmp_path / "out" / "rows"), options)
    assert _lines(prefix) == expected


@pytest.mark.slow
def test_only_micro_batches_an_earlier_run_reached_list_the_output(
    tmp_path, spark, hadoop_uri, monkeypatch
):
    """A new checkpoint over an output an earlier run left: its micro-batches up to the last the
    earlier run reached replace what it left; the later ones are published without listing the
    output's directory, which grows with every micro-batch."""
    from panes.runners.spark.hadoop import HadoopFileSystems

    _run("direct", str(tmp_path / "direct" / "text"), str(tmp_path / "direct" / "rows"))
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "text-00000001-00007.txt").write_text("an earlier run\n")
    listed: list = []
    list_prefix = HadoopFileSystems.list_prefix

    def listing(self, path):
        listed.append(path.rsplit("/", 1)[-1])
        return list_prefix(self, path)

    options = {"streaming": True, "checkpoint_location": hadoop_uri(tmp_path / "checkpoint")}
    monkeypatch.setattr(HadoopFileSystems, "list_prefix", listing)
    _run(
        "spark",
        hadoop_uri(tmp_path / "out" / "text"),
        hadoop_uri(tmp_path / "out" / "rows"),
        options,
    )
    assert _lines(tmp_path / "out" / "text") == _lines(tmp_path / "direct" / "text")
    assert len(list((tmp_path / "out").glob("text-*.SUCCESS"))) > 3
    # Each sink's directory is listed at the start; then each of the text sink's micro-batches
    # 0 and 1 lists its stale shards and leftover temporary directories.
    assert sorted(listed) == sorted(
        ["text-", ".panes-temp-text-", "rows-", ".panes-temp-rows-"]
        + ["text-00000000", ".panes-temp-text-00000000"]
        + ["text-00000001", ".panes-temp-text-00000001"]
    )
