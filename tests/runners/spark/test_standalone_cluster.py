"""The Spark runner on a real standalone cluster (master and worker on loopback): closures cross
process boundaries for real, outputs equal the direct runner's, and files are read and written
by the executors through whatever Hadoop file system a URI names."""

import pytest

pytestmark = pytest.mark.slow

WINDOWED = """
import sys
import panes as beam
from panes.testing import materialize
from panes.trigger import AfterCount, AfterWatermark
from panes.window import Sessions, TimestampedValue

def run(runner, options):
    p = beam.Pipeline(runner=runner, options=options)
    events = p | beam.Create([TimestampedValue(("k%d" % (i % 4), i), i * 0.7) for i in range(200)])
    sums = (events | beam.WindowInto(Sessions(1), trigger=AfterWatermark(early=AfterCount(5)))
            | beam.CombinePerKey(sum))
    out = materialize(sums)
    p.run()
    return sorted(map(repr, out.windowed_values))

spark = run("spark", {"spark_master": sys.argv[1], "spark_partitions": 3})
assert spark == run("direct", {}), "cluster run differs from the direct runner"
print("ok", len(spark))
"""

# Hadoop's view file system under a scheme of its own, every path falling back to the local
# file system: URIs of a scheme only the cluster's Hadoop configuration knows.
FILES = """
import os
import sys
import panes as beam

os.chdir(sys.argv[2])  # relative paths are the driver's, resolved before planning
options = {"spark_master": sys.argv[1], "spark_conf": {
    "spark.hadoop.fs.panesfs.impl": "org.apache.hadoop.fs.viewfs.ViewFileSystemOverloadScheme",
    "spark.hadoop.fs.viewfs.mounttable.cluster.linkFallback": "file:///"}}
here = "panesfs://cluster" + os.getcwd()
p = beam.Pipeline(runner="spark", options=options)
lines = p | "ReadText" >> beam.io.ReadFromText(here + "/in/*.txt", skip_header_lines=1)
(lines | beam.Map(lambda line: {"word": line, "size": len(line)})
 | beam.io.WriteToParquet(here + "/out/words", num_shards=2))
(lines | beam.Map(str.upper) | beam.io.WriteToText("relative/upper", ".txt"))
p.run()
p = beam.Pipeline(runner="spark", options=options)
rows = p | beam.io.ReadFromParquet(here + "/out/words*", columns=["word"])
rows | beam.Map(lambda row: row["word"]) | beam.io.WriteToText("relative/words", num_shards=1)
p.run()
print("ok")
"""


def test_pipeline_runs_unchanged_on_a_standalone_cluster(cluster, tmp_path):
    script = tmp_path / "pipeline.py"
    script.write_text(WINDOWED)
    done = cluster.run_driver(script, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("ok")


def test_executors_read_and_write_uris_of_any_hadoop_scheme_and_relative_paths(cluster, tmp_path):
    (tmp_path / "in").mkdir()
    for name, words in (("a", ["x", "yy"]), ("b", ["zzz"])):
        (tmp_path / "in" / f"{name}.txt").write_text("header\n" + "".join(w + "\n" for w in words))
    script = tmp_path / "files.py"
    script.write_text(FILES)
    done = cluster.run_driver(script, tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    out = sorted(p.name for p in (tmp_path / "out").iterdir() if not p.name.startswith("."))
    assert out == ["words-00000-of-00002.parquet", "words-00001-of-00002.parquet", "words.SUCCESS"]
    upper = [
        line
        for shard in sorted((tmp_path / "relative").glob("upper-*.txt"))
        for line in shard.read_text().splitlines()
    ]
    assert sorted(upper) == ["X", "YY", "ZZZ"]  # a shard per partition, as Spark packed them
    assert (tmp_path / "relative" / "words-00000-of-00001").read_text() == "x\nyy\nzzz\n"


def test_the_production_example_runs_against_the_cluster(cluster, tmp_path, monkeypatch):
    import gzip
    import json
    from pathlib import Path

    import pyarrow.parquet as pq

    examples = Path(__file__).resolve().parents[3] / "examples"
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2] / "examples"))
    from test_hourly_sessions import events, expected_sessions

    logs = events(seed=11)
    (tmp_path / "logs").mkdir()
    for part in range(2):
        lines = [json.dumps({k: v for k, v in e.items() if k != "second"}) for e in logs[part::2]]
        text = "\n".join(lines).encode()
        (tmp_path / "logs" / f"{part}.json.gz").write_bytes(gzip.compress(text))
    done = cluster.run_python(
        examples / "hourly_sessions.py",
        "--runner",
        "spark",
        "--spark_master",
        cluster.url,
        "--input",
        tmp_path / "logs" / "*.gz",
        "--output",
        tmp_path / "out" / "sessions",
    )
    assert done.returncode == 0, done.stderr[-3000:]
    table = pq.read_table([str(p) for p in sorted((tmp_path / "out").glob("sessions-*.parquet"))])
    assert sorted(tuple(row.values()) for row in table.to_pylist()) == expected_sessions(logs)
