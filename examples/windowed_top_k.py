"""Consecutive windowed operations: a sum per key in 5-second windows, then the global top k
of those sums in the same windows.

Each per-key sum leaves its window with the window's end as its timestamp, so windowing the
sums again with the same 5-second windows puts every sum back into the window it came from —
the Flink pattern ``keyBy(...).window(5 s).reduce(sum)`` then ``windowAll(5 s).process(topK)``.

    python examples/windowed_top_k.py
"""

from __future__ import annotations

import panes as beam
from panes.options.pipeline_options import PipelineOptions
from panes.testing import materialize
from panes.window import FixedWindows, TimestampedValue

CLICKS = [  # (page, clicks, event time in seconds)
    ("home", 3, 0),
    ("cart", 5, 1),
    ("help", 1, 2),
    ("home", 4, 3),
    ("shop", 2, 4),
    ("shop", 9, 6),
    ("help", 7, 7),
    ("home", 1, 8),
    ("cart", 2, 9),
]


def build(p, clicks=CLICKS, k=2):
    sums = (
        p
        | "Clicks" >> beam.Create([TimestampedValue((page, n), t) for page, n, t in clicks])
        | "PerKeyWindows" >> beam.WindowInto(FixedWindows(5))
        | "SumPerPage" >> beam.CombinePerKey(sum)
    )
    return (
        sums
        | "GlobalWindows" >> beam.WindowInto(FixedWindows(5))
        | "TopK"
        >> beam.CombineGlobally(
            beam.combiners.TopCombineFn(k, key=lambda kv: kv[1])
        ).without_defaults()
    )


def run(clicks=CLICKS, k=2, runner=None, options=None):
    p = beam.Pipeline(runner=runner, options=options)
    out = materialize(build(p, clicks, k))
    p.run()
    return sorted((int(wv.windows[0].start), wv.value) for wv in out.windowed_values)


if __name__ == "__main__":
    for start, top in run(options=PipelineOptions()):
        print(f"window starting at {start}s: top pages {top}")
