"""Runs the benchmark workloads side by side on every system and writes a table and a plot.

    python -m benchmarks.run [--sizes 1000000,10000000] [--workloads 1,2,3,4,5]
                             [--systems rdd,dataframe,panes-spark,panes-spark-sql,panes-direct,beam]
                             [--timeout 1800] [--repeat 1] [--out benchmarks/results]

Each measurement runs in a fresh process (``benchmarks.one``); results of all systems are
checked equal (by digest) before any time is reported. Times include reading the input files;
starting Spark is not timed. Peak memory is the driver process's peak resident set (for Spark
systems the JVM is a separate process). A system that cannot be imported or does not implement
a job, or that runs past --timeout, is listed under the table as such and the rest still run.
Writes benchmarks/results/latest.md and latest.png (or into --out).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

from benchmarks import workloads as w
from benchmarks.datagen import events_csv, events_parquet, words_text
from benchmarks.one import WARM_UP_SIZE

RESULTS = Path(__file__).parent / "results"
ROOT = Path(__file__).parent.parent
SYSTEMS = ["rdd", "dataframe", "panes-spark", "panes-spark-sql", "panes-direct", "beam"]
# Where a system takes too long to be worth waiting for: (system, workload) -> largest size.
SIZE_LIMITS = {
    ("beam", 1): 1_000_000,
    ("beam", 5): 1_000_000,
    **{("panes-direct", n): 1_000_000 for n in range(1, 6)},
}


def measure(systems, workload, size, timeout, repeat, notes):
    """``{system: (seconds, peak MB)}`` for the systems that ran — each run in a fresh process,
    ``repeat`` times, keeping the median time — after checking that they all computed the same
    result. Systems that are not available or time out are added to ``notes``."""
    results, timings = {}, {}
    for system in systems:
        if size > SIZE_LIMITS.get((system, workload), size):
            continue
        outcomes = []
        for _ in range(repeat):
            outcome = run_one(system, workload, size, timeout)
            if isinstance(outcome, str):
                notes.append(f"workload {workload}, {size:,} events, {system}: {outcome}")
                print(f"  {notes[-1]}", flush=True)
                break
            outcomes.append(outcome)
        if not outcomes or outcomes[0]["digest"] is None:
            continue
        for outcome in outcomes:
            results.setdefault((system, outcome["digest"], outcome["rows"]), True)
        seconds = statistics.median(outcome["seconds"] for outcome in outcomes)
        timings[system] = seconds, max(outcome["peak_mb"] for outcome in outcomes)
        print(
            f"  workload {workload} size {size:>11,} {system:<13} {seconds:8.2f} s "
            f"{timings[system][1]:7.0f} MB",
            flush=True,
        )
    if len({(digest, rows) for _, digest, rows in results}) > 1:
        raise SystemExit(f"MISMATCH: workload {workload} at {size}: {sorted(results)}")
    return timings


def run_one(system, workload, size, timeout):
    """One measurement's outcome (a dict), or why there is none (a str)."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "benchmarks.one", system, str(workload), str(size)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout} s"
    if done.returncode != 0:
        raise SystemExit(
            f"{system} failed on workload {workload} at {size}:\n{done.stderr[-3000:]}"
        )
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    if "unavailable" in outcome:
        return f"not available ({outcome['unavailable']})"
    return outcome


def table(rows) -> str:
    lines = [
        "| workload | events | system | time (s) | events/s | × RDD | × DataFrame "
        "| × panes-spark w1 | peak driver MB |",
        "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for workload, size, system, seconds, peak, vs_rdd, vs_dataframe, vs_w1 in rows:
        lines.append(
            f"| {workload} | {size:,} | {system} | {seconds:.2f} | {size / seconds:,.0f} | "
            f"{vs_rdd} | {vs_dataframe} | {vs_w1} | {peak:,.0f} |"
        )
    return "\n".join(lines)


def plot(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    workloads = sorted({r[0] for r in rows})
    figure, axes = plt.subplots(1, len(workloads), figsize=(4 * len(workloads), 3.6), squeeze=False)
    for axis, workload in zip(axes[0], workloads):
        for color, system in enumerate(SYSTEMS):
            points = sorted((r[1], r[3]) for r in rows if r[0] == workload and r[2] == system)
            if points:
                axis.plot(*zip(*points), marker="o", label=system, color=f"C{color}")
        axis.set(
            title=f"workload {workload}",
            xlabel="events",
            ylabel="seconds",
            xscale="log",
            yscale="log",
        )
        axis.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def machine() -> str:
    cpus = os.cpu_count()
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return (
        f"{platform.processor() or platform.machine()}, {cpus} cores, {memory:.0f} GB, "
        f"Python {platform.python_version()}, Spark local[{cpus}]"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000000,10000000")
    parser.add_argument("--workloads", default="1,2,3,4,5")
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument(
        "--timeout", type=int, default=1800, help="seconds one measurement may take (default 1800)"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="runs per measurement; the table shows the median (default 1)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=RESULTS,
        help="folder for latest.md and latest.png (default benchmarks/results)",
    )
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    workloads = [int(x) for x in args.workloads.split(",")]
    systems = args.systems.split(",")
    for size in [WARM_UP_SIZE, *sizes]:  # inputs first, untimed
        events_csv(size), events_parquet(size), words_text(size)
    rows, notes = [], []
    for size in sizes:
        for workload in workloads:
            timings = measure(systems, workload, size, args.timeout, args.repeat, notes)
            rdd_time = timings.get("rdd", (None,))[0]
            dataframe_time = timings.get("dataframe", (None,))[0]
            for system, (seconds, peak) in timings.items():
                rows.append(
                    [
                        workload,
                        size,
                        system,
                        seconds,
                        peak,
                        f"{seconds / rdd_time:.2f}" if rdd_time else "–",
                        f"{seconds / dataframe_time:.2f}" if dataframe_time else "–",
                        "–",
                    ]
                )
    w1 = {r[1]: r[3] for r in rows if r[0] == 1 and r[2] == "panes-spark"}
    for r in rows:
        if r[0] == 4 and r[2] == "panes-spark" and r[1] in w1:
            r[7] = f"{r[3] / w1[r[1]]:.2f}"
    args.out.mkdir(exist_ok=True)
    text = (
        f"Machine: {machine()}\n\nWorkloads: "
        + "; ".join(f"({n}) {d}" for n, d in w.WORKLOADS.items())
        + "\n\n"
        + table(rows)
        + "\n"
        + "".join(f"\n* {note}" for note in notes)
        + ("\n" if notes else "")
    )
    (args.out / "latest.md").write_text(text)
    print(text)
    try:
        plot(rows, args.out / "latest.png")
    except ImportError as error:
        raise SystemExit(
            f"The table is in {args.out / 'latest.md'}; the plot needs matplotlib "
            f"({error}): pip install -r benchmarks/requirements.txt"
        ) from None


if __name__ == "__main__":
    main()
