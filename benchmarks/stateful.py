"""The stateful benchmark: deduplication with per-key state, each value of a key let through
once, on Spark batch and on Spark Structured Streaming, each system in a fresh process after an
untimed warm-up run on a small input.

    python -m benchmarks.stateful [--size 1000000] [--files 20] [--files-per-trigger 2]
                                  [--repeat 1] [--systems ...]

With ``--repeat N`` the systems run in N rounds, each system once per round, and the table
gives each system's median and every run.

The input is the benchmarks' event file (``datagen.events_csv``: 1000 keys, values 0-99). Each
system outputs the first event of each (key, value) it sees; the outputs are compared as
(key, value) pairs before any time is reported.

Systems: ``rdd`` is the batch job hand-written with PySpark's RDD API (``groupByKey``, then
each key's values sorted and deduplicated); ``panes-spark`` is the panes pipeline — a stateful
DoFn with a ``SetStateSpec`` — on the Spark runner; ``tws`` is the streaming job hand-written
as a PySpark ``transformWithState`` operator (a ``MapState`` of the values seen per key) over
the event files arriving in a directory, ``--files-per-trigger`` per micro-batch with
``Trigger.AvailableNow``; ``panes-streaming`` is the same panes pipeline under ``--streaming``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.datagen import events_csv
from benchmarks.fresh import fresh
from benchmarks.streaming import input_directory
from panes.runners.spark.streaming.runner import QUERY_CONF

SYSTEMS = ["rdd", "panes-spark", "tws", "panes-streaming"]
WARM_UP_SIZE = 20_000


def _pair(line: str):
    key, value, _ = line.split(",")
    return key, int(value)


def rdd(spark, size: int, _files, _per_trigger) -> list:
    def distinct(pair):
        key, values = pair
        previous = None
        for value in sorted(values):
            if value != previous:
                yield key, value
            previous = value

    lines = spark.sparkContext.textFile(str(events_csv(size)))
    return lines.map(_pair).groupByKey().flatMap(distinct).collect()


def _dedup_pipeline(p, read):
    import panes as beam
    from panes.testing import materialize
    from panes.transforms.userstate import SetStateSpec

    seen_spec = SetStateSpec("seen")

    class Deduplicate(beam.DoFn):
        def process(self, element, seen=beam.DoFn.StateParam(seen_spec)):
            if element[1] not in seen.read():
                seen.add(element[1])
                yield element

    return materialize(p | read | "Pair" >> beam.Map(_pair) | beam.ParDo(Deduplicate()))


def panes_spark(spark, size: int, _files, _per_trigger) -> list:
    import panes as beam

    p = beam.Pipeline(runner="spark")
    handle = _dedup_pipeline(p, beam.io.ReadFromText(str(events_csv(size))))
    p.run()
    return handle.values


def tws(spark, size: int, files: int, per_trigger: int) -> list:
    from pyspark.sql import Row
    from pyspark.sql.streaming import StatefulProcessor

    class Deduplicate(StatefulProcessor):
        def init(self, handle):
            self.seen = handle.getMapState("seen", "value int", "present boolean")

        def handleInputRows(self, key, rows, timerValues):
            for row in rows:
                if not self.seen.containsKey((row.value,)):
                    self.seen.updateValue((row.value,), (True,))
                    yield Row(key=row.key, value=row.value)

        def close(self):
            pass

    provider = "spark.sql.streaming.stateStore.providerClass"
    spark.conf.set(provider, QUERY_CONF[provider])
    directory = input_directory(size, files)
    out = Path(tempfile.mkdtemp(prefix="panes-stateful-bench-"))
    try:
        frame = (
            spark.readStream.option("maxFilesPerTrigger", per_trigger)
            .text(str(directory))
            .selectExpr("split(value, ',')[0] as key", "cast(split(value, ',')[1] as int) as value")
        )
        query = (
            frame.groupBy("key")
            .transformWithState(Deduplicate(), "key string, value int", "Append", "None")
            .writeStream.format("parquet")
            .option("path", str(out / "data"))
            .option("checkpointLocation", str(out / "checkpoint"))
            .trigger(availableNow=True)
            .start()
        )
        query.awaitTermination()
        return [(row.key, row.value) for row in spark.read.parquet(str(out / "data")).collect()]
    finally:
        shutil.rmtree(out, ignore_errors=True)


def panes_streaming(spark, size: int, files: int, per_trigger: int) -> list:
    import panes as beam
    from benchmarks.one import streaming_pipeline

    out = Path(tempfile.mkdtemp(prefix="panes-stateful-bench-"))
    try:
        p = streaming_pipeline(out / "checkpoint", max_files_per_trigger=per_trigger)
        read = beam.io.ReadFromText(str(input_directory(size, files) / "*.csv"))
        handle = _dedup_pipeline(p, read)
        p.run().wait_until_finish()
        return handle.values
    finally:
        shutil.rmtree(out, ignore_errors=True)


JOBS = {"rdd": rdd, "panes-spark": panes_spark, "tws": tws, "panes-streaming": panes_streaming}


def one(system: str, size: int, files: int, per_trigger: int) -> dict:
    from benchmarks.one import session

    spark = session()
    JOBS[system](spark, WARM_UP_SIZE, 2, 1)
    start = time.perf_counter()
    pairs = JOBS[system](spark, size, files, per_trigger)
    seconds = time.perf_counter() - start
    digest = hashlib.sha256(repr(sorted(pairs)).encode()).hexdigest()
    return {"seconds": seconds, "outputs": len(pairs), "digest": digest}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--files-per-trigger", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--one", nargs=4)
    args = parser.parse_args()
    if args.one:
        system, *numbers = args.one
        print(json.dumps(one(system, *map(int, numbers))))
        return
    systems = args.systems.split(",")
    runs: dict = {system: [] for system in systems}
    for _ in range(args.repeat):  # round by round, so the machine's drift falls on every system
        for system in systems:
            numbers = (str(args.size), str(args.files), str(args.files_per_trigger))
            runs[system].append(fresh("stateful", system, *numbers))
    rows = {
        system: (statistics.median(run["seconds"] for run in done), done)
        for system, done in runs.items()
    }
    digests = {run["digest"] for done in runs.values() for run in done}
    if len(digests) != 1:
        raise SystemExit(f"the systems disagree: {json.dumps(rows)}")
    print(f"| system | seconds (median of {args.repeat}) | every run (s) | outputs |")
    print("| --- | ---: | --- | ---: |")
    for system, (seconds, done) in rows.items():
        every = ", ".join(f"{run['seconds']:.2f}" for run in done)
        print(f"| {system} | {seconds:.2f} | {every} | {done[0]['outputs']:,} |")
    if {"rdd", "panes-spark"} <= rows.keys():
        print(f"\npanes-spark / rdd: {rows['panes-spark'][0] / rows['rdd'][0]:.2f}")
    if {"tws", "panes-streaming"} <= rows.keys():
        print(f"panes-streaming / tws: {rows['panes-streaming'][0] / rows['tws'][0]:.2f}")


if __name__ == "__main__":
    main()
