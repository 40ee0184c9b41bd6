"""Flink's "incremental aggregation with window information": the minimum reading per sensor
in each minute, reported with the window's start.

Only the running minimum is kept per sensor and window (CombinePerKey), and a DoFn that asks
for the window (``DoFn.WindowParam``) adds its start — Flink's ``reduce(fn, windowFunction)``.

    python examples/sensor_minimum.py
"""

from __future__ import annotations

import panes as beam
from panes.options.pipeline_options import PipelineOptions
from panes.testing import materialize
from panes.window import FixedWindows, TimestampedValue

READINGS = [  # (sensor, value, event time in seconds)
    ("s1", 21.5, 3),
    ("s2", 18.0, 7),
    ("s1", 19.0, 42),
    ("s2", 18.5, 59),
    ("s1", 22.0, 61),
    ("s1", 20.5, 95),
    ("s2", 17.0, 100),
    ("s2", 17.5, 119),
]


class MinReading(beam.CombineFn):
    """Keeps only the smallest reading seen."""

    def create_accumulator(self):
        return None

    def add_input(self, smallest, reading):
        return reading if smallest is None or reading < smallest else smallest

    def merge_accumulators(self, accumulators):
        present = [a for a in accumulators if a is not None]
        return min(present) if present else None

    def extract_output(self, smallest):
        return smallest


def with_window_start(kv, window=beam.DoFn.WindowParam):
    sensor, reading = kv
    return sensor, int(window.start), reading


def build(p, readings=READINGS):
    return (
        p
        | "Readings" >> beam.Create([TimestampedValue((s, v), t) for s, v, t in readings])
        | "Minutes" >> beam.WindowInto(FixedWindows(60))
        | "Minimum" >> beam.CombinePerKey(MinReading())
        | "WindowStart" >> beam.Map(with_window_start)
    )


def run(readings=READINGS, runner=None, options=None):
    p = beam.Pipeline(runner=runner, options=options)
    out = materialize(build(p, readings))
    p.run()
    return sorted(out.values)


if __name__ == "__main__":
    for sensor, start, reading in run(options=PipelineOptions()):
        print(f"{sensor} window starting at {start:>4}s: minimum {reading}")
