"""Runs the benchmark workloads side by side on every system and writes a table and a plot.

    python -m benchmarks.run [--sizes 1000000,10000000] [--workloads 1,2,3,4,5]
                             [--systems rdd,dataframe,panes-spark,panes-direct,beam]

Results of all systems are checked equal before any time is reported. Times include reading
the input files; Spark's session start is not timed. Writes benchmarks/results/latest.md and
latest.png.
"""

from __future__ import annotations

import argparse
import os
import platform
import threading
import time
from pathlib import Path

from benchmarks import workloads as w
from benchmarks.datagen import events_csv, events_parquet, words_text

RESULTS = Path(__file__).parent / "results"
SYSTEMS = ["rdd", "dataframe", "panes-spark", "panes-direct", "beam"]
# Where a system takes too long to be worth waiting for: (system, workload) -> largest size.
SIZE_LIMITS = {("beam", 1): 1_000_000, ("beam", 5): 1_000_000,
               **{("panes-direct", n): 1_000_000 for n in range(1, 6)},
               ("panes-spark", 4): 1_000_000}


class PeakMemory:
    """Samples this process's resident memory while a run is in progress."""

    def __init__(self):
        self.peak, self._running = 0, False

    def _rss(self) -> int:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    def _sample(self):
        while self._running:
            self.peak = max(self.peak, self._rss())
            time.sleep(0.05)

    def __enter__(self):
        self._running, self.peak = True, self._rss()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._running = False
        self._thread.join()


def run_one(system, workload, size, spark):
    if system == "rdd":
        return w.rdd(spark, workload, size) if workload != 4 else None
    if system == "dataframe":
        return w.dataframe(spark, workload, size)
    if system == "panes-spark":
        return w.panes("spark", workload, size)
    if system == "panes-direct":
        return w.panes("direct", workload, size)
    if system == "beam":
        return w.beam_direct(workload, size)
    raise KeyError(system)


def measure(systems, workload, size, spark):
    """``{system: (seconds, peak MB)}`` for the systems that ran, after checking they agree."""
    results, timings = {}, {}
    for system in systems:
        if size > SIZE_LIMITS.get((system, workload), size):
            continue
        with PeakMemory() as memory:
            start = time.perf_counter()
            result = run_one(system, workload, size, spark)
            seconds = time.perf_counter() - start
        if result is None:
            continue
        results[system], timings[system] = result, (seconds, memory.peak / 2**20)
        print(f"  workload {workload} size {size:>9,} {system:<13} {seconds:7.2f} s", flush=True)
    reference = next(iter(results.values()), None)
    for system, result in results.items():
        if result != reference:
            raise SystemExit(f"MISMATCH: workload {workload} at {size}: {system} differs from "
                             f"{next(iter(results))} ({len(result)} vs {len(reference)} rows)")
    return timings


def table(rows) -> str:
    lines = ["| workload | events | system | time (s) | events/s | × RDD | × panes-spark w1 | peak driver MB |",
             "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |"]
    for workload, size, system, seconds, peak, vs_rdd, vs_w1 in rows:
        lines.append(f"| {workload} | {size:,} | {system} | {seconds:.2f} | {size / seconds:,.0f} | "
                     f"{vs_rdd} | {vs_w1} | {peak:,.0f} |")
    return "\n".join(lines)


def plot(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    workloads = sorted({r[0] for r in rows})
    figure, axes = plt.subplots(1, len(workloads), figsize=(4 * len(workloads), 3.6), squeeze=False)
    for axis, workload in zip(axes[0], workloads):
        for system in SYSTEMS:
            points = sorted((r[1], r[3]) for r in rows if r[0] == workload and r[2] == system)
            if points:
                axis.plot(*zip(*points), marker="o", label=system)
        axis.set(title=f"workload {workload}", xlabel="events", ylabel="seconds", xscale="log",
                 yscale="log")
        axis.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def machine() -> str:
    cpus = os.cpu_count()
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return (f"{platform.processor() or platform.machine()}, {cpus} cores, {memory:.0f} GB, "
            f"Python {platform.python_version()}, Spark local[{cpus}]")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000000,10000000")
    parser.add_argument("--workloads", default="1,2,3,4,5")
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    workloads = [int(x) for x in args.workloads.split(",")]
    systems = args.systems.split(",")
    for size in sizes:  # inputs first, untimed
        events_csv(size), events_parquet(size), words_text(size)

    from panes.runners.spark.session import start_session

    spark = start_session(f"local[{os.cpu_count()}]", "panes-benchmarks",
                          {"spark.sql.shuffle.partitions": str(2 * os.cpu_count()),
                           "spark.sql.session.timeZone": "UTC", "spark.driver.memory": "8g"})
    w.panes("spark", 1, sizes[0])  # warm the Python workers and the JVM once
    w.dataframe(spark, 1, sizes[0])
    rows = []
    for size in sizes:
        for workload in workloads:
            timings = measure(systems, workload, size, spark)
            rdd_time = timings.get("rdd", (None,))[0]
            for system, (seconds, peak) in timings.items():
                rows.append([workload, size, system, seconds, peak,
                             f"{seconds / rdd_time:.2f}" if rdd_time else "–", "–"])
    w1 = {r[1]: r[3] for r in rows if r[0] == 1 and r[2] == "panes-spark"}
    for r in rows:
        if r[0] == 4 and r[2] == "panes-spark" and r[1] in w1:
            r[6] = f"{r[3] / w1[r[1]]:.2f}"
    RESULTS.mkdir(exist_ok=True)
    text = (f"Machine: {machine()}\n\nWorkloads: " + "; ".join(
        f"({n}) {d}" for n, d in w.WORKLOADS.items()) + "\n\n" + table(rows) + "\n")
    (RESULTS / "latest.md").write_text(text)
    plot(rows, RESULTS / "latest.png")
    print(text)


if __name__ == "__main__":
    main()
