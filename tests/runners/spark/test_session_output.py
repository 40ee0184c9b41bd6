"""What a user sees from a Spark run panes starts, in a fresh process: no start-up banner, a
failed task retried as on a cluster, and a user function's error shown as the exception, the
element, the transform and the user's file:line, without JVM frames or pickled data."""

import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow

DRIVER = """
import os
import sys
import panes as beam

def crash_first_attempt(x):
    from pyspark import TaskContext
    if TaskContext.get().attemptNumber() == 0 and TaskContext.get().partitionId() == 0:
        os._exit(3)
    return x

def invert(x):
    return 1 / x

options = {"spark_log_level": sys.argv[1]} if len(sys.argv) > 1 else {}
p = beam.Pipeline(runner="spark", options=options)
numbers = p | beam.Create(range(1, 101)) | beam.Map(crash_first_attempt)
counted = beam.testing.materialize(numbers | beam.combiners.Count.Globally())
p.run()
print("counted", counted.values, flush=True)
p = beam.Pipeline(runner="spark", options=options)
p | beam.Create([2, 1, 0, 4]) | "Invert" >> beam.Map(invert)
p.run()
"""


def run_driver(tmp_path, *args):
    script = tmp_path / "driver.py"
    script.write_text(DRIVER)
    return subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, timeout=600
    )


def test_default_session_retries_a_failed_task_and_shows_only_the_users_error(tmp_path):
    done = run_driver(tmp_path)
    assert "counted [100]" in done.stdout  # the crashed task ran again
    assert done.returncode == 1
    error = done.stderr[done.stderr.index("Traceback") :]
    last = error.strip().splitlines()[-1]
    assert last.startswith(
        "panes.errors.UserCodeError: ZeroDivisionError in transform 'Invert' "
        "while processing element 0 at "
    )
    line = DRIVER.splitlines().index("    return 1 / x") + 1
    assert f"{tmp_path / 'driver.py'}:{line} in invert: division by zero" in last
    before = done.stderr[: done.stderr.index("Traceback")]
    for noise in ("log4j", "Setting default log level", "NativeCodeLoader", "@@panes", "\tat "):
        assert noise not in done.stderr, noise
    # One line per failed attempt, from the executor and the scheduler, and Java's own note.
    assert len(before.strip().splitlines()) <= 10, before


def test_a_log_level_restores_sparks_own_logging(tmp_path):
    done = run_driver(tmp_path, "WARN")
    assert "Using Spark's default log4j profile" in done.stderr
    assert "WARN NativeCodeLoader" in done.stderr
    assert "\tat org.apache.spark" in done.stderr  # the executor's full trace, as Spark logs it


def test_under_spark_submit_its_master_holds(tmp_path):
    from pathlib import Path

    import pyspark

    script = tmp_path / "submitted.py"
    script.write_text(
        "import panes as beam\nfrom panes.testing import materialize\n"
        "from pyspark.sql import SparkSession\n"
        "p = beam.Pipeline(runner='spark')\n"
        "out = materialize(p | beam.Create([1, 2, 3]) | beam.Map(lambda x: x * 2))\n"
        "p.run()\n"
        "print(SparkSession.getActiveSession().sparkContext.master, sorted(out.values))\n"
    )
    submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    env = {
        **__import__("os").environ,
        "PYSPARK_PYTHON": sys.executable,
        "PYSPARK_DRIVER_PYTHON": sys.executable,
    }
    done = subprocess.run(
        [str(submit), "--master", "local[1]", str(script)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == "local[1] [2, 4, 6]"
