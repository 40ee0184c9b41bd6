"""The key-advance microbenchmark: what the Spark streaming operator spends on one key of the
streaming benchmark's windowing, without Spark — the key's stored state loaded, advanced
through a live micro-batch by the key driver on the counting engine, and stored again.

    python -m benchmarks.key_advance [--keys 100000] [--events 60000] [--repeat 3]

Six micro-batches of six minutes of event time each, as ``benchmarks.streaming`` cuts an hour
into ten files: each gives ``--events / 6`` events to keys drawn from ``--keys``, one event a
key advance, then advances every other key that holds state, as the batch's timers wake them.
Prints the microseconds per key advance of each repeat; the first warms up.
"""

from __future__ import annotations

import argparse
import random
import time

from benchmarks.workloads import DELAY, EARLY_EVERY, FIXED, LATENESS

BATCHES, BATCH_SECONDS = 6, 360
S = 1_000_000


def engine():
    """The counting engine of the streaming benchmark's grouping."""
    from panes.transforms.combiners import SumFn
    from panes.transforms.core import Windowing
    from panes.trigger import AccumulationMode, AfterCount, AfterWatermark
    from panes.window import FixedWindows
    from panes.windowing.aggregation import CombineFnAggregation
    from panes.windowing.counting import CountingEngine
    from panes.windowing.strategy import windowing_to_ir

    windowing = Windowing(
        FixedWindows(FIXED),
        trigger=AfterWatermark(early=AfterCount(EARLY_EVERY), late=AfterCount(1)),
        accumulation_mode=AccumulationMode.ACCUMULATING,
        allowed_lateness=LATENESS,
    )
    return CountingEngine(windowing_to_ir(windowing), CombineFnAggregation(SumFn()))


def run(keys: int, events: int, seed: int) -> float:
    """Microseconds per key advance over the six micro-batches."""
    from panes.runners.key_driver import KeyDriver, MicroBatch
    from panes.runners.spark.streaming.key_state import dump_state, load_state
    from panes.timestamp import MIN_MICROS
    from panes.window import PANE_NO_FIRING, AssignContext, FixedWindows
    from panes.windowing.engine import Counters

    rng, driver, stored = random.Random(seed), KeyDriver(engine(), Counters()), {}
    window_fn = FixedWindows(FIXED)
    elapsed, advances = 0.0, 0

    def advance(key, records, batch):
        state = stored.pop(key, None)
        run = driver.advance(key, None if state is None else load_state(state), records, batch)
        if run.state is not None:
            stored[key] = dump_state(run.state)

    for index in range(BATCHES):
        start_time = index * BATCH_SECONDS * S
        watermark = start_time - DELAY * S if index else MIN_MICROS
        batch = MicroBatch(index + 1, watermark, index + 1)
        arriving = []
        for position in range(events // BATCHES):
            time_ = start_time + rng.randrange(BATCH_SECONDS) * S
            windows = tuple(window_fn.assign(AssignContext.at_micros(time_, 1)))
            record = ((index + 1, position), 1, time_, windows, PANE_NO_FIRING)
            arriving.append((f"k{rng.randrange(keys)}", [record]))
        woken = sorted(stored.keys() - {key for key, _ in arriving})
        started = time.perf_counter()
        for key, records in arriving:
            advance(key, records, batch)
        for key in woken:
            advance(key, [], batch)
        elapsed += time.perf_counter() - started
        advances += len(arriving) + len(woken)
    return elapsed / advances * 1e6


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--keys", type=int, default=100_000)
    parser.add_argument("--events", type=int, default=60_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    run(args.keys, args.events, 0)
    print(" ".join(f"{run(args.keys, args.events, seed):.2f}" for seed in range(args.repeat)), "µs")


if __name__ == "__main__":
    main()
