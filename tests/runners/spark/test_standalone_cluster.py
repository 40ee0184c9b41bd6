"""The Spark runner on a real standalone cluster (master and worker on loopback): closures cross
process boundaries for real, and the outputs still equal the direct runner's."""

import subprocess
import sys

import pytest

from standalone import cluster_env

PIPELINE = """
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


@pytest.mark.slow
def test_pipeline_runs_unchanged_on_a_standalone_cluster(tmp_path, standalone_cluster):
    script = tmp_path / "pipeline.py"
    script.write_text(PIPELINE)
    done = subprocess.run([sys.executable, str(script), standalone_cluster], env=cluster_env(),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("ok")
