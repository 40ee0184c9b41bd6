"""Driver programs for the cluster fault tests: ``python fault_driver.py <master> <scenario>
<work dir> [args]``. Each prints one JSON line of what the test checks (counters), or is
killed on purpose. Faults are real: a worker process or an executor JVM kills itself, or the
driver process does."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import panes as beam
from panes.metrics import Metrics

KEYS = 7


def _ancestor(pid: int, marker: str) -> int | None:
    """The closest ancestor process of ``pid`` whose command line holds ``marker``."""
    while pid > 1:
        pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        if marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
            return pid
    return None


class Count(beam.DoFn):
    """Counts each element it sees under ``name``."""

    def __init__(self, name):
        self.name = name

    def process(self, element):
        Metrics.counter("faults", self.name).inc()
        yield element


class KillExecutorOnce(beam.DoFn):
    """The first element processed on the cluster kills the executor JVM running it (once:
    a marker file remembers), losing that executor's shuffle outputs."""

    def __init__(self, marker):
        self.marker = marker

    def process(self, element):
        if not os.path.exists(self.marker):
            open(self.marker, "w").close()
            os.kill(_ancestor(os.getpid(), "CoarseGrainedExecutorBackend"), signal.SIGKILL)
        yield element


class CrashFirstAttempt(beam.DoFn):
    """The first attempt of every task crashes its Python worker; retries go through."""

    def process(self, element):
        from pyspark import TaskContext

        if TaskContext.get().attemptNumber() == 0:
            os._exit(3)
        yield element


def keyed_counts(p, work: Path, before_shuffle, after_shuffle):
    """Sums and counts of the input's numbers per key, counting each number (``seen``) and
    each key (``grouped``); ``before_shuffle`` and ``after_shuffle`` inject faults."""
    lines = p | "Read" >> beam.io.ReadFromText(str(work / "in" / "*.txt"))
    keyed = (
        lines
        | "Seen" >> beam.ParDo(Count("seen"))
        | "Before" >> before_shuffle
        | "Key" >> beam.Map(lambda line: (int(line) % KEYS, int(line)))
    )
    return (
        keyed
        | beam.GroupByKey()
        | "After" >> after_shuffle
        | "Grouped" >> beam.ParDo(Count("grouped"))
        | "Format" >> beam.MapTuple(lambda key, values: f"{key} {sum(values)} {len(values)}")
    )


def run(master: str, scenario: str, work: Path, *args) -> None:
    options = {
        "spark_master": master,
        "spark_partitions": 4,
        "spark_conf": {
            "spark.executor.cores": "1",
            "spark.executor.memory": "512m",
            "spark.task.maxFailures": "4",
        },
    }
    p = beam.Pipeline(runner="spark", options=options)
    if scenario == "faults":
        out = keyed_counts(
            p,
            work,
            beam.ParDo(CrashFirstAttempt()),
            beam.ParDo(KillExecutorOnce(str(work / "killed"))),
        )
    elif scenario == "commit":
        out = _commit_run(p, work, args[0], args[2])
    else:
        raise SystemExit(f"unknown scenario {scenario}")
    shards = int(args[1]) if scenario == "commit" else 3
    out | beam.io.WriteToText(str(work / "out" / "counts"), num_shards=shards)
    result = p.run()
    print(
        json.dumps(
            {
                "seen": result.metrics().counter("seen"),
                "grouped": result.metrics().counter("grouped"),
            }
        )
    )


def _commit_run(p, work: Path, tag: str, kill_at: str):
    """A write whose commit the driver process kills itself in, at its ``kill_at``-th file
    operation (-1: never)."""
    from panes.io import commit
    from panes.runners.spark.hadoop import HadoopFileSystems

    operations, publishing = [0], [False]

    def step():
        if publishing[0]:
            operations[0] += 1
            if operations[0] == int(kill_at):
                os.kill(os.getpid(), signal.SIGKILL)

    def one_at_a_time(original):
        def each(self, *lists):
            for items in zip(*lists):
                original(self, *([item] for item in items))
                step()

        return each

    HadoopFileSystems.delete = one_at_a_time(HadoopFileSystems.delete)
    HadoopFileSystems.rename = one_at_a_time(HadoopFileSystems.rename)
    create = HadoopFileSystems.create

    def create_then_step(self, path):
        stream = create(self, path)
        close = stream.close

        def closed():
            close()
            step()

        stream.close = closed
        return stream

    HadoopFileSystems.create = create_then_step
    publish = commit.publish

    def counted(*args):
        publishing[0] = True
        publish(*args)

    commit.publish = counted
    return p | beam.Create([f"{tag} {i}" for i in range(60)])


if __name__ == "__main__":
    run(sys.argv[1], sys.argv[2], Path(sys.argv[3]), *sys.argv[4:])
