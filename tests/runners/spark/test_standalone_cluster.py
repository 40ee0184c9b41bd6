"""The Spark runner on a real standalone cluster (master and worker on loopback): closures cross
process boundaries for real, and the outputs still equal the direct runner's."""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import pyspark

SPARK_HOME = Path(pyspark.__file__).parent
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


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _spark_class(*args, env):
    return subprocess.Popen([str(SPARK_HOME / "bin" / "spark-class"), *args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@pytest.mark.slow
def test_pipeline_runs_unchanged_on_a_standalone_cluster(tmp_path):
    port = _free_port()
    env = {**os.environ, "SPARK_HOME": str(SPARK_HOME), "PYSPARK_PYTHON": sys.executable,
           "SPARK_LOCAL_IP": "127.0.0.1"}
    master_url = f"spark://127.0.0.1:{port}"
    master = _spark_class("org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                          "--port", str(port), "--webui-port", str(_free_port()), env=env)
    worker = _spark_class("org.apache.spark.deploy.worker.Worker", master_url, "--host",
                          "127.0.0.1", "--cores", "2", "--memory", "1g",
                          "--webui-port", str(_free_port()), env=env)
    try:
        script = tmp_path / "pipeline.py"
        script.write_text(PIPELINE)
        deadline = time.time() + 60
        while time.time() < deadline:  # the master needs a moment to listen
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.5)
        done = subprocess.run([sys.executable, str(script), master_url], env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        assert done.stdout.startswith("ok")
    finally:
        for process in (worker, master):
            process.terminate()
            process.wait(timeout=30)
