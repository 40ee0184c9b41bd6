"""A new user's first streaming run: the five-element ``TestStream`` pipeline below
(``FixedWindows(10)``, early firings, ``CombinePerKey(sum)``) run as a script with no settings
but ``--streaming`` — Spark's default master, no partitions, no checkpoint — each run in a
fresh process, beside the same script in batch.

    python -m benchmarks.startup [--repeat 3]

Each run reports the process's wall time and where it went: starting the session, ``run()``
until the query has started, the first micro-batch (split into Spark's query planning and the
rest) and the other micro-batches. Figures, not a test: the machine is shared and noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

from benchmarks.fresh import fresh

PHASES = ["session", "run", "query start", "first batch", "first planning", "other batches"]


def pipeline(streaming: bool) -> dict:
    """Runs the pipeline in this process; returns its phases in seconds."""
    import panes as beam
    from panes.runners.spark.session import get_session
    from panes.testing import TestStream
    from panes.trigger import AccumulationMode, AfterCount, AfterWatermark
    from panes.window import FixedWindows, TimestampedValue

    options = beam.PipelineOptions(["--runner=spark", *(["--streaming"] if streaming else [])])
    started = time.perf_counter()
    get_session(options)  # what run() does first, timed apart
    phases = {"session": time.perf_counter() - started}
    p = beam.Pipeline(options=options)
    events = (
        TestStream()
        .add_elements([TimestampedValue(("a", 1), 1), TimestampedValue(("b", 2), 2)])
        .add_elements([TimestampedValue(("a", 3), 3)])
        .advance_watermark_to(12)
        .add_elements([TimestampedValue(("a", 4), 14), TimestampedValue(("b", 5), 15)])
        .advance_watermark_to_infinity()
    )
    (
        p
        | events
        | beam.WindowInto(
            FixedWindows(10),
            trigger=AfterWatermark(early=AfterCount(1)),
            accumulation_mode=AccumulationMode.ACCUMULATING,
        )
        | beam.CombinePerKey(sum)
        | beam.Map(lambda kv: f"{kv[0]} {kv[1]}")
    )
    running = time.perf_counter()
    result = p.run()
    phases["run"] = time.perf_counter() - running
    if streaming:
        batches = result.query.recentProgress
        first = batches[0].durationMs
        phases["first batch"] = first["triggerExecution"] / 1000
        phases["first planning"] = first["queryPlanning"] / 1000
        phases["other batches"] = sum(b.durationMs["triggerExecution"] for b in batches[1:]) / 1000
        phases["query start"] = phases["run"] - phases["first batch"] - phases["other batches"]
        phases["batches"] = len(batches)
    return phases


def measure(streaming: bool) -> dict:
    """One run in a fresh process: its wall time and phases."""
    started = time.perf_counter()
    phases = fresh("startup", ["batch", "streaming"][streaming])
    return {"wall": time.perf_counter() - started, **phases}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--one", choices=["batch", "streaming"])
    args = parser.parse_args()
    if args.one:
        print(json.dumps(pipeline(args.one == "streaming")))
        return
    load = os.getloadavg()[0]
    runs: dict = {"batch": [], "streaming": []}
    for _ in range(args.repeat):
        for mode in runs:
            runs[mode].append(measure(mode == "streaming"))
            print(mode, json.dumps({k: round(v, 1) for k, v in runs[mode][-1].items()}), flush=True)
    print(f"\nload average at the start: {load:.1f} on {os.cpu_count()} cores")
    print("| run | wall s | " + " | ".join(f"{phase} s" for phase in PHASES) + " |")
    print("| --- | ---: |" + " ---: |" * len(PHASES))
    for mode, measured in runs.items():
        cells = [statistics.median(m["wall"] for m in measured)]
        cells += [statistics.median(m.get(phase, 0.0) for m in measured) for phase in PHASES]
        print(f"| {mode} | " + " | ".join(f"{cell:.1f}" for cell in cells) + " |")


if __name__ == "__main__":
    main()
