"""Storm's SlidingWindowTopology: a sliding-window sum, then a tumbling-window average.

A stream of integers is summed over count windows of the last 30 elements, sliding every 10
(Storm's ``withWindow(Count(30), Count(10))``); the sums are then averaged in tumbling windows of
3 (``withTumblingWindow(Count(3))``). Count windows follow arrival order, per key.

    python examples/storm_count_windows.py
"""

from __future__ import annotations

import panes as beam
from panes.options.pipeline_options import PipelineOptions
from panes.testing import materialize
from panes.window import CountWindows


def build(p, numbers=range(1, 91)):
    """Returns (sliding sums, averages of three consecutive sums)."""
    sums = (
        p
        | "Numbers" >> beam.Create([("all", n) for n in numbers])
        | "SlidingCount" >> beam.WindowInto(CountWindows(30, 10))
        | "SlidingSum" >> beam.CombinePerKey(sum)
    )
    averages = (
        sums
        | "TumblingCount" >> beam.WindowInto(CountWindows(3))
        | "TumblingAvg" >> beam.combiners.Mean.PerKey()
    )
    return sums, averages


def run(numbers=range(1, 91), runner=None, options=None):
    p = beam.Pipeline(runner=runner, options=options)
    sums, averages = build(p, list(numbers))
    sums_out, averages_out = materialize(sums), materialize(averages)
    p.run()
    return [v for _, v in sums_out.values], [v for _, v in averages_out.values]


if __name__ == "__main__":
    sums, averages = run(options=PipelineOptions())
    print("sliding sums (last 30, every 10):", sums)
    print("tumbling averages of 3 sums:     ", averages)
