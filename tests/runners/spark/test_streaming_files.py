"""Files arriving in a directory, read and written by a streaming pipeline: outputs are
published exactly once per micro-batch, and a query stopped — gracefully, by a failing user
function, or by SIGKILL of its driver, locally and on a standalone cluster (there through a
Hadoop scheme of its own) — and restarted from its checkpoint ends with exactly the output of
a run that was never interrupted and read the same micro-batches."""

import glob
import json
import logging
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

import panes as beam
from panes.errors import PipelineConstructionError, UserCodeError
from panes.transforms.timeutil import TimeDomain
from panes.transforms.userstate import (
    BagStateSpec,
    CombiningValueStateSpec,
    TimerSpec,
    on_timer,
)

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import hadoop_scheme  # noqa: E402
import streaming_files_pipeline as files_pipeline  # noqa: E402

FILES = 8


def write_files(directory: Path, indexes, bad_line_in=None) -> None:
    """Writes input files ``f<index>.csv`` in order of index, each with a later mtime: lines
    ``key,value,seconds`` moving forward in event time, with stragglers that come late."""
    directory.mkdir(parents=True, exist_ok=True)
    for index in indexes:
        rng = random.Random(index)
        lines = []
        for line in range(25):
            seconds = index * 6 + rng.randrange(8)
            if line % 11 == 10:
                seconds -= 14  # a straggler: late, or beyond the allowed lateness
            value = "bad" if index == bad_line_in and line == 3 else str(rng.randrange(100))
            lines.append(f"k{rng.randrange(4)},{value},{max(seconds, 0)}")
        path = directory / f"f{index:02d}.csv"
        path.write_text("\n".join(lines) + "\n")
        os.utime(path, (1_000_000 + index, 1_000_000 + index))


def outputs(prefix: Path) -> Counter:
    return Counter(
        line for path in glob.glob(f"{prefix}-*") for line in Path(path).read_text().splitlines()
    )


def reference(tmp_path: Path, bad_line_in=None, batches=None, lowered=False) -> Counter:
    """The output of one uninterrupted run over all files, a micro-batch per file, or per
    group of files in ``batches`` (each group's lines written as one file); ``lowered``: of
    the driver's pipeline that runs as Spark's aggregation."""
    batches = batches or [[index] for index in range(FILES)]
    write_files(tmp_path / "files", range(FILES), bad_line_in)
    (tmp_path / "all").mkdir()
    for number, group in enumerate(batches):
        path = tmp_path / "all" / f"b{number:02d}.csv"
        path.write_text("".join((tmp_path / "files" / f"f{i:02d}.csv").read_text() for i in group))
        os.utime(path, (1_000_000 + number, 1_000_000 + number))
    files_pipeline.main(
        {
            "checkpoint_location": str(tmp_path / "all-checkpoint"),
            "trigger_interval": "available_now",
        },
        str(tmp_path / "all"),
        str(tmp_path / "all-out" / "panes"),
        fixed=True,
        lowered=lowered,
    )
    return outputs(tmp_path / "all-out" / "panes")


# An offsets entry: its version, the batch's metadata, then a line per source in the query's
# order: the files first (a pipeline that waits on processing time adds the heartbeat).
_FIRST_SOURCE = 2


def planned_batches(checkpoint: Path) -> list:
    """The input files (by index) each micro-batch of a query read, from its checkpoint. Spark's
    file source logs the files of a batch before the query plans it; a driver killed between
    the two leaves files that a restarted driver's next micro-batch takes with its own. Every
    10th entry of the source's log is a compaction (``9.compact``) holding all before it."""
    logged: dict = {}
    for path in (checkpoint / "sources" / "0").glob("[0-9]*"):
        if path.name.removesuffix(".compact").isdigit():
            for line in path.read_text().splitlines()[1:]:
                entry = json.loads(line)
                logged.setdefault(entry["batchId"], set()).add(entry["path"])
    batches, previous = [], -1
    for path in sorted((checkpoint / "offsets").glob("[0-9]*"), key=lambda p: int(p.name)):
        end = json.loads(path.read_text().splitlines()[_FIRST_SOURCE])["logOffset"]
        files = [file for entry in range(previous + 1, end + 1) for file in logged[entry]]
        previous = end
        if files:
            batches.append(sorted(int(Path(file).stem[1:]) for file in files))
    return batches


def test_planned_batches_reads_a_compacted_file_source_log(tmp_path):
    """The log as Spark 4 writes it after 12 micro-batches of one file each, the first ten
    compacted into ``9.compact``, and an offset log that took two files in its last batch."""
    (tmp_path / "sources" / "0").mkdir(parents=True)
    (tmp_path / "offsets").mkdir()

    def entries(batches):
        return "v1\n" + "".join(
            json.dumps({"path": f"file:///in/f{b:02d}.csv", "timestamp": b, "batchId": b}) + "\n"
            for b in batches
        )

    (tmp_path / "sources" / "0" / "9.compact").write_text(entries(range(10)))
    for batch in (10, 11):
        (tmp_path / "sources" / "0" / str(batch)).write_text(entries([batch]))
    for batch, log_offset in enumerate([*range(10), 11]):
        (tmp_path / "offsets" / str(batch)).write_text(
            'v1\n{"batchWatermarkMs":0}\n' + json.dumps({"logOffset": log_offset}) + "\n"
        )
    assert planned_batches(tmp_path) == [[index] for index in range(10)] + [[10, 11]]


@pytest.mark.slow
def test_a_restart_resumes_exactly_and_a_changed_pipeline_is_refused(tmp_path, spark):
    expected = reference(tmp_path)
    directory, checkpoint = tmp_path / "in", str(tmp_path / "checkpoint")
    options = {"checkpoint_location": checkpoint, "trigger_interval": "available_now"}
    write_files(directory, range(3))
    files_pipeline.main(options, str(directory), str(tmp_path / "out" / "panes"))
    write_files(directory, range(3, FILES))
    result = files_pipeline.main(options, str(directory), str(tmp_path / "out" / "panes"))
    assert result.state == "DONE"
    assert outputs(tmp_path / "out" / "panes") == expected
    panes = [count for line, count in expected.items() if not line.startswith("batch ")]
    assert any(count == 1 for count in panes) and max(panes) == 1  # batches name sizes only

    changed = beam.Pipeline(runner="spark", options={"streaming": True, **options})
    files_pipeline.build(
        changed, str(directory), str(tmp_path / "out" / "panes"), window_seconds=20
    )
    with pytest.raises(PipelineConstructionError, match="the windowing of 'Sum' changed"):
        changed.run()

    changed = beam.Pipeline(runner="spark", options={"streaming": True, **options})
    files_pipeline.build(
        changed, str(directory), str(tmp_path / "out" / "panes"), stateful_fn=BufferChanged
    )
    with pytest.raises(PipelineConstructionError) as refused:
        changed.run()
    assert (
        "the state cells of 'Buffer' changed ('count' added, 'latest' changed from "
        "read_modify_write to bag); the timers of 'Buffer' changed ('quiet' changed from "
        "event_time to processing_time)"
    ) in str(refused.value)


class BufferChanged(beam.DoFn):
    """The pipeline's stateful DoFn with a cell added, a cell of another kind, and its timer
    in another time domain: the state its checkpoint holds is not this DoFn's."""

    LATEST = BagStateSpec("latest")
    COUNT = CombiningValueStateSpec("count", sum)
    QUIET = TimerSpec("quiet", TimeDomain.REAL_TIME)

    def process(
        self,
        kv,
        latest=beam.DoFn.StateParam(LATEST),
        count=beam.DoFn.StateParam(COUNT),
        buffer=beam.DoFn.StateParam(files_pipeline.BUFFER),
        quiet=beam.DoFn.TimerParam(QUIET),
    ):
        return []

    @on_timer(QUIET)
    def flush(self):
        return []


@pytest.mark.slow
def test_a_failing_user_function_stops_the_query_and_a_fixed_restart_resumes(tmp_path, spark):
    expected = reference(tmp_path, bad_line_in=4)
    directory, checkpoint = tmp_path / "in", str(tmp_path / "checkpoint")
    options = {"checkpoint_location": checkpoint, "trigger_interval": "available_now"}
    write_files(directory, range(FILES), 4)
    with pytest.raises(UserCodeError) as failure:
        files_pipeline.main(options, str(directory), str(tmp_path / "out" / "panes"))
    assert failure.value.label == "Parse" and ",bad," in failure.value.element
    assert isinstance(failure.value.cause, ValueError)
    assert os.path.isdir(os.path.join(checkpoint, "offsets"))
    files_pipeline.main(options, str(directory), str(tmp_path / "out" / "panes"), fixed=True)
    assert outputs(tmp_path / "out" / "panes") == expected


def _driver(tmp_path: Path, options: dict, env: dict, place=str, lowered=False) -> subprocess.Popen:
    """A driver process reading ``tmp_path/in`` and writing ``tmp_path/out/panes``, named by
    ``place`` (a local path, or a URI of a Hadoop scheme)."""
    log = open(tmp_path / "driver.log", "ab")
    return subprocess.Popen(
        [
            sys.executable,
            str(HERE / "streaming_files_pipeline.py"),
            json.dumps(options),
            place(tmp_path / "in"),
            place(tmp_path / "out" / "panes"),
            *(["lowered"] if lowered else []),
        ],
        env=env,
        stdout=log,
        stderr=log,
        start_new_session=True,
    )


def _kill(driver: subprocess.Popen) -> None:
    """SIGKILL to the driver's process group: the Python driver and its JVM."""
    os.killpg(driver.pid, signal.SIGKILL)
    driver.wait(timeout=60)


def _planned(checkpoint: Path) -> int:
    """How many micro-batches the query has planned (Spark's offset log)."""
    return len(list((checkpoint / "offsets").glob("[0-9]*")))


def kill_and_restart(
    tmp_path: Path, master: str, env: dict, place=str, spark_conf=None, lowered=False
) -> None:
    """Files arrive one by one while the driver is killed at several points — each a moment
    after it planned a micro-batch, so mostly while it runs — and restarted; a last run drains
    what is left. The output must be that of an uninterrupted run over the same micro-batches,
    each file read once. The drivers name the input, output and checkpoint by ``place``;
    ``lowered``: they run the pipeline that panes runs as Spark's aggregation."""
    checkpoint = tmp_path / "checkpoint"
    options = {
        "checkpoint_location": place(checkpoint),
        "spark_master": master,
        "spark_partitions": 2,
        "spark_conf": spark_conf or {},
    }
    kill_after = {1: 0.5, 4: 2.0, 6: 4.0}  # file index -> seconds after a new micro-batch
    # RocksDB unpacks its JNI library (15 MB) into the JVM's temporary directory and removes it
    # as the JVM exits, which a SIGKILL skips: the drivers unpack it here instead, in turn.
    env = {**env, "ROCKSDB_SHAREDLIB_DIR": str(tmp_path)}
    driver = _driver(tmp_path, options, env, place, lowered)
    try:
        for index in range(FILES):
            planned = _planned(checkpoint)
            write_files(tmp_path / "in", [index])
            if index in kill_after:
                deadline = time.time() + 300
                while _planned(checkpoint) <= planned and time.time() < deadline:
                    time.sleep(0.2)
                time.sleep(kill_after[index])
                _kill(driver)
                driver = _driver(tmp_path, options, env, place, lowered)
            else:
                time.sleep(3)
        deadline = time.time() + 300  # a loaded machine: the last driver may still be starting
        while not outputs(tmp_path / "out" / "panes") and time.time() < deadline:
            time.sleep(0.5)
    finally:
        _kill(driver)
    assert outputs(tmp_path / "out" / "panes"), "the killed drivers published nothing"
    drain = _driver(tmp_path, {**options, "trigger_interval": "available_now"}, env, place, lowered)
    assert drain.wait(timeout=600) == 0, (tmp_path / "driver.log").read_text()[-3000:]
    batches = planned_batches(checkpoint)
    assert sorted(index for batch in batches for index in batch) == list(range(FILES))
    expected = reference(tmp_path, batches=batches, lowered=lowered)
    assert outputs(tmp_path / "out" / "panes") == expected


@pytest.mark.slow
def test_sigkill_of_the_driver_loses_and_duplicates_nothing_locally(tmp_path, spark):
    kill_and_restart(
        tmp_path,
        "local[2]",
        {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable},
    )


@pytest.mark.slow
def test_sigkill_of_the_driver_loses_and_duplicates_nothing_on_sparks_aggregation(tmp_path, spark):
    """The same for a pipeline panes runs as Spark's streaming aggregation, whose state is
    Spark's own and whose late rows panes drops by each micro-batch's watermark."""
    kill_and_restart(
        tmp_path,
        "local[2]",
        {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable},
        lowered=True,
    )
    assert "spark-aggregation" in (tmp_path / "checkpoint" / "panes" / "pipeline.json").read_text()


@pytest.mark.slow
@pytest.mark.parametrize("lowered", [False, True], ids=["engine", "sparks aggregation"])
def test_sigkill_of_the_driver_loses_and_duplicates_nothing_on_a_standalone_cluster(
    tmp_path, spark, cluster, lowered
):
    """On the cluster the input, the outputs and the checkpoint are URIs of a Hadoop scheme,
    which only Spark's readers and writers and panes' Hadoop calls can serve; the executors
    of Spark's aggregation get each micro-batch's watermark from the driver."""
    kill_and_restart(
        tmp_path, cluster.url, cluster.env, hadoop_scheme.uri, hadoop_scheme.SPARK_CONF, lowered
    )


@pytest.mark.slow
def test_a_micro_batch_replayed_after_publishing_publishes_nothing_twice(tmp_path, spark, caplog):
    """A crash after panes published a micro-batch but before Spark logged it as committed:
    Spark runs the micro-batch again, which must still write its state, and publish nothing."""
    expected = reference(tmp_path)
    directory, checkpoint = tmp_path / "in", tmp_path / "checkpoint"
    options = {"checkpoint_location": str(checkpoint), "trigger_interval": "available_now"}
    write_files(directory, range(4))
    files_pipeline.main(options, str(directory), str(tmp_path / "out" / "panes"))
    last = max((checkpoint / "commits").glob("[0-9]*"), key=lambda path: int(path.name))
    last.unlink()  # Spark never logged it...
    last.with_name(f".{last.name}.crc").unlink(missing_ok=True)  # ...nor its checksum
    write_files(directory, range(4, FILES))
    with caplog.at_level(logging.INFO, logger="panes.streaming"):
        files_pipeline.main(options, str(directory), str(tmp_path / "out" / "panes"))
    assert f"micro-batch {last.name} was published before a restart" in caplog.text
    assert outputs(tmp_path / "out" / "panes") == expected
