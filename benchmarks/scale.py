"""What the driver holds while panes reads and writes files on Spark, against the same job
hand-written in PySpark, measured in the same run: driver peak RSS (the Python process and the
JVM Spark starts for it) for text -> Map -> text, for a GroupByKey fan-out and for windowed sums
over a source in time order read record at a time, at 1M, 2M and 10M lines, with
``spark.driver.maxResultSize`` at 16m so that a job collecting its output to the driver fails.

    python -m benchmarks.scale [--sizes 1000000,2000000,10000000] [--jobs map,fanout,watermarked]
                               [--systems pyspark,panes] [--out benchmarks/results]

Each measurement runs in a fresh process (``python -m benchmarks.scale one ...``); before a
figure is reported the outputs of both systems are read back and compared (same lines).
Writes ``scale.md`` into --out.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.datagen import DATA, events_csv, ordered_csv
from benchmarks.run import RESULTS, ROOT, machine

JOBS = {
    "map": "text -> Map -> text",
    "fanout": "text -> GroupByKey -> FlatMap (back to every line) -> text",
    "watermarked": "text in time order, read record at a time (a watermark change per line) "
    "-> 60 s windows -> sum per key -> text",
}
WINDOW_MICROS = 60_000_000
SYSTEMS = ["pyspark", "panes"]
MAX_RESULT_SIZE = "16m"


def reformat(line: str) -> str:
    key, value, seconds = line.split(",")
    return f"{seconds} {key} {int(value) * 2}"


def key_of(line: str) -> tuple:
    key, rest = line.split(",", 1)
    return key, rest


def fan_out(key_lines) -> list:
    key, rests = key_lines
    return [f"{key} {rest}" for rest in rests]


def key_value(line: str) -> tuple:
    key, value, _ = line.split(",")
    return key, int(value)


def window_key(line: str) -> tuple:
    key, value, micros = line.split(",")
    return (key, int(micros) // WINDOW_MICROS * WINDOW_MICROS), int(value)


def pyspark_job(spark, job, source, out):
    lines = spark.sparkContext.textFile(source)
    if job == "map":
        lines.map(reformat).saveAsTextFile(out)
    elif job == "fanout":
        lines.map(key_of).groupByKey().flatMap(fan_out).saveAsTextFile(out)
    else:
        sums = lines.map(window_key).reduceByKey(lambda a, b: a + b)
        sums.map(lambda kv: f"{kv[0][0]} {kv[0][1]} {kv[1]}").saveAsTextFile(out)


def panes_job(job, source, out):
    import panes as beam

    with beam.Pipeline(runner="spark") as p:
        if job == "watermarked":
            lines = watermarked_sums(beam, p, source)
        else:
            lines = p | beam.io.ReadFromText(source)
        if job == "map":
            lines = lines | beam.Map(reformat)
        elif job == "fanout":
            lines = lines | beam.Map(key_of) | beam.GroupByKey() | beam.FlatMap(fan_out)
        lines | beam.io.WriteToText(out + "/part")


def watermarked_sums(beam, p, source):
    from panes.timestamp import Timestamp
    from panes.watermark import WatermarkStrategy
    from panes.window import FixedWindows

    class Format(beam.DoFn):
        def process(self, kv, window=beam.DoFn.WindowParam):
            yield f"{kv[0]} {window.start.micros} {kv[1]}"

    read = beam.io.ReadFromText(source).with_watermarks(
        WatermarkStrategy.for_monotonous_timestamps(),
        timestamp_fn=lambda line: Timestamp(micros=int(line.rsplit(",", 1)[1])),
    )
    return (
        p
        | read
        | beam.Map(key_value)
        | beam.WindowInto(FixedWindows(WINDOW_MICROS / 1_000_000))
        | beam.CombinePerKey(sum)
        | beam.ParDo(Format())
    )


def jvm_peak_mb(spark) -> float:
    """Peak resident memory of the driver's JVM (Linux: VmHWM)."""
    pid = spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def one(system, job, size) -> dict:
    """One measurement in this process: seconds, the Python driver's and its JVM's peak RSS,
    and a digest of the output's lines (sorted)."""
    from panes.runners.spark.session import start_session

    spark = start_session(
        f"local[{os.cpu_count()}]",
        "panes-scale",
        {
            "spark.driver.maxResultSize": MAX_RESULT_SIZE,
            "spark.driver.memory": "2g",
            "spark.ui.enabled": "false",
        },
    )
    source = str((ordered_csv if job == "watermarked" else events_csv)(size))
    out = str(DATA / f"scale-out-{system}-{job}-{size}")
    shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    if system == "pyspark":
        pyspark_job(spark, job, source, out)
    else:
        panes_job(job, source, out)
    seconds = time.perf_counter() - start
    python_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    digest = output_digest(out)
    shutil.rmtree(out, ignore_errors=True)
    return {
        "seconds": seconds,
        "python_mb": python_mb,
        "jvm_mb": jvm_peak_mb(spark),
        "digest": digest,
    }


def output_digest(directory: str) -> str:
    """A digest of the sorted lines of every data file under ``directory``."""
    lines = sorted(
        line
        for path in glob.glob(directory + "/*")
        if not os.path.basename(path).startswith(("_", ".")) and not path.endswith(".SUCCESS")
        for line in open(path, encoding="utf-8")
    )
    return hashlib.sha256("".join(lines).encode()).hexdigest()


def measure(system, job, size, timeout) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.scale", "one", system, job, str(size)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=timeout,
    )
    if done.returncode != 0:
        raise SystemExit(f"{system} {job} at {size} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None):
    if argv is None and sys.argv[1:2] == ["one"]:
        print(json.dumps(one(sys.argv[2], sys.argv[3], int(sys.argv[4]))))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000000,2000000,10000000")
    parser.add_argument("--jobs", default=",".join(JOBS))
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--timeout", type=int, default=3600)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    for size in sizes:
        for job in args.jobs.split(","):
            (ordered_csv if job == "watermarked" else events_csv)(size)
            results = {}
            for system in args.systems.split(","):
                results[system] = measure(system, job, size, args.timeout)
                r = results[system]
                print(
                    f"{job:7} {size:>11,} {system:8} {r['seconds']:8.1f} s  python "
                    f"{r['python_mb']:6.0f} MB  jvm {r['jvm_mb']:6.0f} MB",
                    flush=True,
                )
            if len({r["digest"] for r in results.values()}) > 1:
                raise SystemExit(f"MISMATCH: {job} at {size}: outputs differ")
            rows += [(job, size, system, r) for system, r in results.items()]
    lines = [
        "| job | lines | system | time (s) | driver Python peak MB | driver JVM peak MB "
        "| Python + JVM − PySpark's |",
        "| --- | ---: | --- | ---: | ---: | ---: | ---: |",
    ]
    baseline = {
        (job, size): r["python_mb"] + r["jvm_mb"]
        for job, size, system, r in rows
        if system == "pyspark"
    }
    for job, size, system, r in rows:
        total = r["python_mb"] + r["jvm_mb"]
        difference = f"{total - baseline[(job, size)]:+.0f} MB" if (job, size) in baseline else "–"
        lines.append(
            f"| {job} | {size:,} | {system} | {r['seconds']:.1f} | "
            f"{r['python_mb']:.0f} | {r['jvm_mb']:.0f} | {difference} |"
        )
    text = (
        f"Machine: {machine()}; spark.driver.maxResultSize={MAX_RESULT_SIZE}, "
        f"spark.driver.memory=2g\n\nJobs: "
        + "; ".join(f"{k}: {v}" for k, v in JOBS.items())
        + "\n\n"
        + "\n".join(lines)
        + "\n"
    )
    args.out.mkdir(exist_ok=True)
    (args.out / "scale.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
