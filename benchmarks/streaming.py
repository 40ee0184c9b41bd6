"""The streaming benchmark: files arriving in a directory, one job per system on Spark
Structured Streaming (local mode), each in a fresh process after an untimed warm-up run.

    python -m benchmarks.streaming [--size 1000000] [--files 20] [--files-per-trigger 2]
                                   [--keys 1000] [--partitions CORES] [--repeat 1]
                                   [--systems ...] [--latency | --live-keys 1000,...]

The input is benchmark workload 4's event file (``datagen.events_csv``: ``--keys`` keys, an
hour of event time, up to 30 s out of order) cut into ``--files`` files, read
``--files-per-trigger`` files per micro-batch with ``Trigger.AvailableNow``; the time is from
the query's start to its end, reading and writing included. Each system's micro-batches are
also reported: their median duration, the median bytes its stateful operators wrote into
RocksDB per micro-batch (``rocksdbTotalBytesWritten``; ``--live-keys`` adds the mean, which
counts the micro-batches that rewrite whole rows), the state rows left at the end, and the CPU
seconds of the timed run in the JVM, in the Python processes under it, in the JVM's children
that ended, and in the driver's Python process (``benchmarks.cpu``).

Systems: ``stateless-native`` parses the lines with Spark SQL functions and writes them out
(text); ``stateless-python`` does the same with the parsing and formatting in Python
(``mapInArrow``); ``native-aggregation`` is Spark's own windowed aggregation
(``withWatermark(20 s)``, ``groupBy(window(60 s), key).sum``, append mode: final results only,
no early or late panes); ``stateful-floor`` is the least a Python stateful operator of PySpark
costs on these micro-batches: the lines packed into a row per key bucket, as panes packs them
(16 buckets per state partition), and a ``transformWithState`` on RocksDB that reads and
writes one count per bucket and does nothing else; ``panes-streaming`` is the panes pipeline
under ``--streaming`` (60 s windows per key, early panes every 1000 elements, late panes,
accumulating, lateness 60 s, watermark 20 s behind); ``panes-streaming-sql`` is a panes pipeline
of the native aggregation's windowing (the default trigger, no lateness) over the same parsed
columns (``ReadFromSpark``, event time from a field, ``GroupBy(...).aggregate_field``), which
panes runs as Spark's streaming aggregation.

``--latency`` instead measures the micro-batch latency floor: six one-line files, one per
micro-batch; the median time of the last five micro-batches.

Every job runs with ``--partitions`` shuffle and state partitions, by default the machine's
cores: the default parallelism of ``local[*]``, which is what panes gives a new checkpoint's
state when the session does not set ``spark.sql.shuffle.partitions`` (Spark's own default,
200, would slow the native aggregation down, not speed it up).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import tempfile
import time
import zlib
from pathlib import Path

from benchmarks.cpu import cpu
from benchmarks.datagen import DATA, KEYS, events_csv
from benchmarks.fresh import fresh
from benchmarks.workloads import DELAY, EARLY_EVERY, FIXED, LATENESS

SYSTEMS = [
    "stateless-native",
    "stateless-python",
    "native-aggregation",
    "stateful-floor",
    "panes-streaming",
    "panes-streaming-sql",
]
ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
WARM_UP_SIZE = 20_000
LIVE_FILE_EVENTS, LIVE_MEASURED_FILES, LIVE_MEASURED_EVENTS = 100_000, 20, 20_000


def input_directory(size: int, files: int, keys: int = KEYS) -> Path:
    """The events of ``events_csv(size, keys)`` in ``files`` files, in order, with rising
    mtimes."""
    directory = DATA / f"streaming-{size}-{files}-{keys}keys"
    if not directory.exists():
        lines = events_csv(size, keys).read_text().splitlines(keepends=True)
        per_file = -(-len(lines) // files)
        _arriving(
            directory, [lines[index * per_file : (index + 1) * per_file] for index in range(files)]
        )
    return directory


def _arriving(directory: Path, files: list) -> None:
    """Writes each list of lines of ``files`` as a file of ``directory``, in order, with
    rising mtimes (the order Spark's file source reads them in)."""
    DATA.mkdir(parents=True, exist_ok=True)
    temporary = Path(tempfile.mkdtemp(dir=DATA))
    for index, lines in enumerate(files):
        path = temporary / f"events-{index:04d}.csv"
        path.write_text("".join(lines))
        os.utime(path, (1_000_000 + index, 1_000_000 + index))
    temporary.rename(directory)


def live_keys_directory(keys: int) -> Path:
    """Files that make ``keys`` keys live, one event each, then ``LIVE_MEASURED_FILES`` files
    of ``LIVE_MEASURED_EVENTS`` events on keys among them; event times within the first 40 s
    (one 60 s window, the watermark 20 s behind: nothing closes)."""
    directory = DATA / f"live-{keys}keys-{LIVE_MEASURED_FILES}"
    if not directory.exists():
        rng = random.Random(keys)
        files = [
            [
                f"k{key},1,{rng.randrange(40)}\n"
                for key in range(start, min(keys, start + LIVE_FILE_EVENTS))
            ]
            for start in range(0, keys, LIVE_FILE_EVENTS)
        ]
        files += [
            [f"k{rng.randrange(keys)},1,{rng.randrange(40)}\n" for _ in range(LIVE_MEASURED_EVENTS)]
            for _ in range(LIVE_MEASURED_FILES)
        ]
        _arriving(directory, files)
    return directory


def _parse(line: str):
    key, value, seconds = line.split(",")
    return key, int(value), int(seconds)


def stateless_native(spark, directory, out, files_per_trigger):
    from pyspark.sql import functions as F

    lines = spark.readStream.option("maxFilesPerTrigger", files_per_trigger).text(str(directory))
    parts = F.split("value", ",")
    parsed = lines.select(
        parts[0].alias("key"),
        parts[1].cast("int").alias("value"),
        parts[2].cast("long").alias("seconds"),
    )
    return _file_query(parsed.select(F.concat_ws(" ", "key", "value", "seconds")), out)


def stateless_python(spark, directory, out, files_per_trigger):
    import pyarrow as pa

    def parse_and_format(batches):
        for batch in batches:
            rows = [_parse(line) for line in batch.column(0).to_pylist()]
            yield pa.RecordBatch.from_pydict(
                {
                    "value": [
                        f"{key} {value} {seconds - seconds % FIXED}" for key, value, seconds in rows
                    ]
                }
            )

    lines = spark.readStream.option("maxFilesPerTrigger", files_per_trigger).text(str(directory))
    return _file_query(lines.mapInArrow(parse_and_format, "value string"), out)


def _events(spark, directory, files_per_trigger):
    """The lines as columns: key, value, and event time (a timestamp)."""
    from pyspark.sql import functions as F

    lines = spark.readStream.option("maxFilesPerTrigger", files_per_trigger).text(str(directory))
    parts = F.split("value", ",")
    return lines.select(
        parts[0].alias("key"),
        parts[1].cast("long").alias("value"),
        F.timestamp_seconds(parts[2].cast("long")).alias("time"),
    )


def native_aggregation(spark, directory, out, files_per_trigger):
    from pyspark.sql import functions as F

    events = _events(spark, directory, files_per_trigger)
    sums = (
        events.withWatermark("time", f"{DELAY} seconds")
        .groupBy(F.window("time", f"{FIXED} seconds"), "key")
        .agg(F.sum("value").alias("s"))
    )
    return _file_query(
        sums.select(
            F.concat_ws(" ", "key", F.col("window.start").cast("string"), F.col("s").cast("string"))
        ),
        out,
    )


def stateful_floor(spark, directory, out, files_per_trigger):
    import pyarrow as pa
    from pyspark.sql import Row
    from pyspark.sql.streaming import StatefulProcessor

    buckets = 16 * int(spark.conf.get("spark.sql.shuffle.partitions"))

    def pack(batches):
        for batch in batches:
            lines: dict = {}
            for line in batch.column(0).to_pylist():
                lines.setdefault(zlib.crc32(line.split(",", 1)[0].encode()) % buckets, []).append(
                    line
                )
            yield pa.RecordBatch.from_pydict(
                {
                    "bucket": pa.array(list(lines), pa.int32()),
                    "lines": list(map("\n".join, lines.values())),
                }
            )

    class Count(StatefulProcessor):
        def init(self, handle):
            self.count = handle.getValueState("count", "count long")

        def handleInputRows(self, key, rows, timerValues):
            added = sum(row.lines.count("\n") + 1 for row in rows)
            stored = self.count.get()
            self.count.update(((stored[0] if stored else 0) + added,))
            yield Row(bucket=key[0], count=added)

        def close(self):
            pass

    spark.conf.set("spark.sql.streaming.stateStore.providerClass", ROCKSDB)
    lines = spark.readStream.option("maxFilesPerTrigger", files_per_trigger).text(str(directory))
    counts = (
        lines.mapInArrow(pack, "bucket int, lines string")
        .groupBy("bucket")
        .transformWithState(Count(), "bucket int, count long", "Append", "None")
    )
    return _file_query(counts.selectExpr("concat_ws(' ', bucket, count)"), out)


def _file_query(frame, out):
    return (
        frame.writeStream.format("text")
        .option("path", str(out / "data"))
        .option("checkpointLocation", str(out / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )


def panes_streaming(spark, directory, out, files_per_trigger):
    import panes as beam
    from benchmarks.one import streaming_pipeline
    from panes.io.text import ReadFromText, WriteToText
    from panes.trigger import AccumulationMode, AfterCount, AfterWatermark
    from panes.watermark import WatermarkStrategy
    from panes.window import FixedWindows

    p = streaming_pipeline(out / "checkpoint", max_files_per_trigger=files_per_trigger)
    (
        p
        | ReadFromText(str(directory / "*.csv")).with_watermarks(
            WatermarkStrategy.for_bounded_out_of_orderness(DELAY),
            timestamp_fn=lambda line: int(line.rsplit(",", 1)[1]),
        )
        | "Parse" >> beam.Map(lambda line: _parse(line)[:2])
        | beam.WindowInto(
            FixedWindows(FIXED),
            trigger=AfterWatermark(early=AfterCount(EARLY_EVERY), late=AfterCount(1)),
            accumulation_mode=AccumulationMode.ACCUMULATING,
            allowed_lateness=LATENESS,
        )
        | beam.CombinePerKey(sum)
        | "Format" >> beam.Map(lambda kv: f"{kv[0]} {kv[1]}")
        | WriteToText(str(out / "data" / "panes"))
    )
    return p.run().query


def panes_streaming_sql(spark, directory, out, files_per_trigger):
    import operator

    import panes as beam
    from benchmarks.one import streaming_pipeline
    from panes.io.text import WriteToText
    from panes.runners.spark.streaming.sources import ReadFromSpark
    from panes.watermark import WatermarkStrategy
    from panes.window import FixedWindows

    p = streaming_pipeline(out / "checkpoint")
    (
        p
        | ReadFromSpark(_events(spark, directory, files_per_trigger)).with_watermarks(
            WatermarkStrategy.for_bounded_out_of_orderness(DELAY),
            timestamp_fn=operator.itemgetter("time"),
        )
        | beam.WindowInto(FixedWindows(FIXED))
        | beam.GroupBy("key").aggregate_field("value", sum, "s")
        | "Format" >> beam.Map(lambda row: f"{row['key']} {row['s']}")
        | WriteToText(str(out / "data" / "panes"))
    )
    return p.run().query


JOBS = {
    "stateless-native": stateless_native,
    "stateless-python": stateless_python,
    "native-aggregation": native_aggregation,
    "stateful-floor": stateful_floor,
    "panes-streaming": panes_streaming,
    "panes-streaming-sql": panes_streaming_sql,
}


def _session(partitions: int):
    """The benchmarks' Spark session (``benchmarks.one.session``) with ``partitions`` shuffle
    and state partitions."""
    from benchmarks.one import session

    spark = session()
    spark.conf.set("spark.sql.shuffle.partitions", str(partitions))
    return spark


def one(
    system: str, size: int, files: int, files_per_trigger: int, keys: int, partitions: int
) -> dict:
    """Runs ``system`` once untimed on a small input, then timed; returns its measurements."""
    spark = _session(partitions)
    for run_size, run_files in ((WARM_UP_SIZE, 2), (size, files)):
        directory = input_directory(run_size, run_files, keys)
        out = Path(tempfile.mkdtemp(prefix="panes-streaming-bench-"))
        try:
            start, cpu_before = time.perf_counter(), cpu(spark)
            query = JOBS[system](spark, directory, out, files_per_trigger)
            query.awaitTermination()
            seconds, used = time.perf_counter() - start, cpu(spark) - cpu_before
            outputs = sum(
                1
                for path in (out / "data").rglob("*")
                if path.is_file() and not any(part.startswith((".", "_")) for part in path.parts)
                for _ in path.open()
            )
            progress = [p for p in query.recentProgress if p["numInputRows"]]
        finally:
            shutil.rmtree(out, ignore_errors=True)
    return {
        "seconds": seconds,
        "batches": len(query.recentProgress),
        "outputs": outputs,
        **micro_batches(progress),
        "cpu": used._asdict(),
    }


def micro_batches(progress: list) -> dict:
    """The median duration and the median and mean RocksDB bytes written (None: the state is
    not in RocksDB) of micro-batches that read input, and the state rows after the last."""

    def written(batch):
        metrics = [op.get("customMetrics", {}) for op in batch["stateOperators"]]
        return sum(m.get("rocksdbTotalBytesWritten", 0) for m in metrics)

    rocksdb = any(
        "rocksdbTotalBytesWritten" in op.get("customMetrics", {})
        for op in progress[-1]["stateOperators"]
    )
    return {
        "batch_seconds": statistics.median(p["durationMs"]["triggerExecution"] for p in progress)
        / 1000,
        "state_bytes_written": statistics.median(map(written, progress)) if rocksdb else None,
        "state_bytes_mean": statistics.mean(map(written, progress)) if rocksdb else None,
        "state_rows": sum(op["numRowsTotal"] for op in progress[-1]["stateOperators"]),
    }


def latency(system: str, partitions: int) -> dict:
    """The median duration of micro-batches that each read one one-line file."""
    spark = _session(partitions)
    directory = Path(tempfile.mkdtemp(prefix="panes-latency-"))
    out = Path(tempfile.mkdtemp(prefix="panes-latency-out-"))
    try:
        for index in range(6):
            path = directory / f"events-{index}.csv"
            path.write_text(f"k{index},1,{index * 30}\n")
            os.utime(path, (1_000_000 + index, 1_000_000 + index))
        query = JOBS[system](spark, directory, out, 1)
        query.awaitTermination()
        durations = [
            progress["durationMs"]["triggerExecution"]
            for progress in query.recentProgress
            if progress["numInputRows"]
        ][1:]
    finally:
        shutil.rmtree(directory, ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)
    return {"seconds": statistics.median(durations) / 1000, "batches": len(durations)}


def live(system: str, keys: int, partitions: int) -> dict:
    """The median duration and RocksDB bytes written of the measured micro-batches of
    ``live_keys_directory(keys)``, and the state rows after them."""
    spark = _session(partitions)
    spark.conf.set("spark.sql.streaming.stateStore.providerClass", ROCKSDB)
    out = Path(tempfile.mkdtemp(prefix="panes-live-"))
    try:
        query = JOBS[system](spark, live_keys_directory(keys), out, 1)
        query.awaitTermination()
        progress = [p for p in query.recentProgress if p["numInputRows"]]
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return micro_batches(progress[-LIVE_MEASURED_FILES:])


def _bytes(count) -> str:
    return "–" if count is None else f"{count / 1e6:.2f} MB"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--files-per-trigger", type=int, default=2)
    parser.add_argument("--keys", type=int, default=KEYS)
    parser.add_argument("--partitions", type=int, default=os.cpu_count())
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--latency", action="store_true")
    parser.add_argument("--live-keys")
    parser.add_argument("--one", nargs="+")
    args = parser.parse_args()
    if args.one:
        system, *rest = args.one
        if rest == ["latency"]:
            result = latency(system, args.partitions)
        elif rest[0] == "live":
            result = live(system, int(rest[1]), args.partitions)
        else:
            result = one(system, *map(int, rest), args.partitions)
        print(json.dumps(result))
        return
    systems = args.systems.split(",")
    partitions = ("--partitions", str(args.partitions))
    if args.live_keys:
        live_table(systems, [int(count) for count in args.live_keys.split(",")], partitions)
        return
    rows = {}
    for system in systems:
        runs = [
            fresh("streaming", system, "latency", *partitions)
            if args.latency
            else fresh(
                "streaming",
                system,
                *map(str, (args.size, args.files, args.files_per_trigger, args.keys)),
                *partitions,
            )
            for _ in range(args.repeat)
        ]
        seconds = statistics.median(run["seconds"] for run in runs)
        rows[system] = (seconds, runs[0])
        print(f"{system:<20} {seconds:8.2f} s  {runs[0]}", flush=True)
    if args.latency:
        return
    stateless = rows.get("stateless-native", (None,))[0]
    native = rows.get("native-aggregation", (None,))[0]
    print(
        f"\n{args.keys:,} keys, {args.partitions} partitions\n\n| system | time (s) | events/s "
        "| micro-batches | outputs | × stateless-native rate | × native-aggregation rate "
        "| median micro-batch (s) | RocksDB bytes written per micro-batch "
        "| state rows at the end | CPU: JVM (s) | Python workers | JVM's ended children "
        "| driver's Python |"
    )
    print("| --- |" + " ---: |" * 13)
    for system, (seconds, run) in rows.items():
        print(
            f"| {system} | {seconds:.2f} | {args.size / seconds:,.0f} | {run['batches']} | "
            f"{run['outputs']:,} | {_ratio(stateless, seconds)} | {_ratio(native, seconds)} | "
            f"{run['batch_seconds']:.2f} | {_bytes(run['state_bytes_written'])} | "
            f"{run['state_rows']:,} | {_cpu(run['cpu'])} |"
        )


def _cpu(used: dict) -> str:
    """A run's CPU seconds (``benchmarks.cpu``) as table cells."""
    return " | ".join("–" if value is None else f"{value:.2f}" for value in used.values())


def _ratio(base, seconds) -> str:
    """A system's rate as a multiple of the ``base`` system's (which took ``base`` s)."""
    return "–" if base is None else f"{base / seconds:.2f}"


def live_table(systems: list, counts: list, partitions: tuple) -> None:
    print(
        "| system | live keys | median micro-batch (s) | RocksDB bytes written per micro-batch "
        "(median) | (mean) | state rows |\n| --- | ---: | ---: | ---: | ---: | ---: |"
    )
    for system in systems:
        for keys in counts:
            run = fresh("streaming", system, "live", str(keys), *partitions)
            print(
                f"| {system} | {keys:,} | {run['batch_seconds']:.2f} | "
                f"{_bytes(run['state_bytes_written'])} | {_bytes(run['state_bytes_mean'])} | "
                f"{run['state_rows']:,} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
