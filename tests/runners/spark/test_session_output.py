"""What a user sees from a Spark run panes starts, in a fresh process: no start-up banner, a
failed task retried as on a cluster, and a user function's error shown as the exception, the
element, the transform and the user's file:line, without JVM frames or pickled data — also
when it fails inside Spark's file writers."""

import signal
import subprocess
import sys
import time

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


WRITE_DRIVER = """
import sys
import panes as beam

def check(line):
    if line == "line 654321":
        raise ValueError("bad record")
    return line

source, output, steps = sys.argv[1:]
p = beam.Pipeline(runner="spark", options={"spark_master": "local[2]"})
lines = p | beam.io.ReadFromText(source)
if steps == "check":
    lines = lines | "Check" >> beam.Map(check)
lines | beam.io.WriteToText(output)
p.run()
"""


def failed_write(tmp_path, lines, steps):
    """The whole output of a ReadFromText -> [Map] -> WriteToText run over ``lines`` (bytes)."""
    (tmp_path / "in.txt").write_bytes(b"".join(lines))
    (tmp_path / "driver.py").write_text(WRITE_DRIVER)
    done = subprocess.run(
        [sys.executable, "driver.py", "in.txt", "out/lines", steps],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=900,
    )
    assert done.returncode == 1, done.stdout[-3000:]
    return done.stdout


def assert_only_the_users_error(output: str, error: str) -> None:
    """At most 40 lines; the user's error once, as the driver's error; before its traceback
    only one-line notes (Java's, the failed task's), no other error and no JVM frame."""
    lines = output.strip().splitlines()
    assert len(lines) <= 40, output
    assert output.count(error) == 1, output
    assert lines[-1].startswith("panes.errors.UserCodeError: ") and error in lines[-1]
    before = lines[: lines.index("Traceback (most recent call last):")]
    assert not [line for line in before if "Error" in line or "Exception:" in line], before
    for noise in ("\tat ", "@@panes", "Aborting", "PYTHON_EXCEPTION", "BrokenPipe"):
        assert noise not in output, noise


def test_an_undecodable_line_read_and_written_is_reported_once(tmp_path):
    lines = [f"line {i}\n".encode() for i in range(100_000)]
    lines[61_727] = b"caf\xe9 au lait\n"
    output = failed_write(tmp_path, lines, "copy")
    assert_only_the_users_error(output, "in.txt, line 61728 is not UTF-8")


def test_a_map_failing_on_one_of_a_million_lines_before_a_write_is_reported_once(tmp_path):
    output = failed_write(tmp_path, [f"line {i}\n".encode() for i in range(1_000_000)], "check")
    assert_only_the_users_error(output, "while processing element 'line 654321'")
    assert "driver.py:7 in check: bad record" in output


STREAMING_DRIVER = """
import logging
import sys
import time
import panes as beam

def invert(line):
    return 1 / int(line)

pattern, waits, logs = sys.argv[1:]
if logs == "logging":
    logging.basicConfig(level=logging.INFO)
p = beam.Pipeline(runner="spark", options={"streaming": True, "spark_partitions": 2})
p | beam.io.ReadFromText(pattern) | "Invert" >> beam.Map(invert)
result = p.run()
if waits == "waits":
    result.wait_until_finish()
while result.query.isActive:
    time.sleep(0.2)
time.sleep(2)
print("the driver went on", flush=True)
"""


def failed_stream(tmp_path, waits: str, logs: str = "no logging"):
    """A streaming ReadFromText -> Map run over files whose third line fails the Map; the
    driver ``waits`` for the pipeline, or goes on without waiting; with ``logs`` "logging",
    Python's logging prints INFO and above on the console."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "numbers.txt").write_text("1\n2\n0\n4\n")
    (tmp_path / "driver.py").write_text(STREAMING_DRIVER)
    return subprocess.run(
        [sys.executable, "driver.py", "in/*.txt", waits, logs],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )


FAILED = "failed: ZeroDivisionError in transform 'Invert' while processing element '0' at "
# (A task that failed is in Spark's log; the query's failure in panes' line, not in a trace of
# the py4j callback that ran the micro-batch.)
CALLBACK_TRACE = "exception while executing the Python Proxy"


def test_a_streaming_pipeline_that_fails_raises_the_users_error_without_jvm_traces(tmp_path):
    done = failed_stream(tmp_path, "waits")
    assert done.returncode == 1, done.stderr[-3000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("panes.errors.UserCodeError: ZeroDivisionError in transform 'Invert'")
    before = done.stderr[: done.stderr.index("Traceback (most recent call last):")]
    assert before.count(FAILED) == 1 and done.stderr.count(FAILED) == 1, done.stderr
    for noise in ("\tat ", "@@panes"):
        assert noise not in done.stderr, noise


def test_a_streaming_pipeline_nobody_waits_for_logs_why_it_failed(tmp_path):
    done = failed_stream(tmp_path, "goes on")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "the driver went on" in done.stdout
    assert done.stderr.count(FAILED) == 1, done.stderr
    assert "driver.py:8 in invert: division by zero" in done.stderr
    for noise in ("\tat ", "@@panes", "Traceback"):
        assert noise not in done.stderr, noise


def test_a_failed_streaming_pipeline_with_logging_at_info_logs_no_callback_trace(tmp_path):
    done = failed_stream(tmp_path, "goes on", "logging")
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stderr.count(FAILED) == 1, done.stderr
    for noise in ("\tat ", "@@panes", "Traceback", CALLBACK_TRACE):
        assert noise not in done.stderr, noise


CANCELLING_DRIVER = """
import time
import panes as beam
from pyspark import SparkContext

def slow(line):
    time.sleep(30)
    return line

p = beam.Pipeline(
    runner="spark",
    options={"streaming": True, "spark_partitions": 2, "checkpoint_location": "checkpoint"},
)
p | beam.io.ReadFromText("in/*.txt") | "Slow" >> beam.Map(slow) | beam.io.WriteToText("out/lines")
result = p.run()
jobs = SparkContext.getOrCreate().statusTracker()
while not jobs.getActiveJobsIds():  # the micro-batch's job, its tasks sleeping
    time.sleep(0.2)
time.sleep(2)
print("cancelled", result.cancel(), flush=True)
"""


def test_a_streaming_pipeline_cancelled_while_a_micro_batch_runs_stops_quietly(tmp_path):
    """Spark reads the error of a stop that interrupts the micro-batch's callback with a
    regular expression that overflows the JVM's stack on a long error: the callback's error
    is kept short, and the stop is a stop."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "lines.txt").write_text("a\nb\n")
    (tmp_path / "driver.py").write_text(CANCELLING_DRIVER)
    done = subprocess.run(
        [sys.executable, "driver.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "cancelled CANCELLED" in done.stdout
    for noise in ("Exception in thread", "StackOverflowError", "Traceback", "\tat "):
        assert noise not in done.stderr, done.stderr[-3000:]


INTERRUPTED_DRIVER = """
import panes as beam

p = beam.Pipeline(
    runner="spark",
    options={"streaming": True, "spark_partitions": 2, "checkpoint_location": "checkpoint"},
)
p | beam.io.ReadFromText("in/*.txt") | beam.Map(str.upper) | beam.io.WriteToText("out/lines")
result = p.run()
print("started", flush=True)
try:
    result.wait_until_finish()
except KeyboardInterrupt:
    print("interrupted", result.state, flush=True)
"""


def test_ctrl_c_while_waiting_for_a_streaming_pipeline_cancels_it_quietly(tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "lines.txt").write_text("a\nb\n")
    (tmp_path / "driver.py").write_text(INTERRUPTED_DRIVER)
    driver = subprocess.Popen(
        [sys.executable, "driver.py"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert driver.stdout.readline() == "started\n"
    time.sleep(5)
    driver.send_signal(signal.SIGINT)
    out, err = driver.communicate(timeout=300)
    assert driver.returncode == 0, err[-3000:]
    assert out == "interrupted CANCELLED\n"
    for noise in ("py4j", "Traceback", "Exception", "\tat "):
        assert noise not in err, err[-3000:]


def test_a_batch_run_with_logging_at_info_shows_nothing_of_pysparks_gateway(tmp_path):
    """Beam's examples log at INFO: py4j's line about closing its connection at exit is not
    among what they print."""
    script = tmp_path / "driver.py"
    script.write_text(
        "import logging\n"
        "import panes as beam\n"
        "logging.basicConfig(level=logging.INFO)\n"
        "p = beam.Pipeline(runner='spark')\n"
        "doubled = beam.testing.materialize(p | beam.Create([1, 2]) | beam.Map(lambda x: 2 * x))\n"
        "p.run()\n"
        "print(*sorted(doubled.values))\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["2", "4"]
    assert "py4j" not in done.stderr, done.stderr
